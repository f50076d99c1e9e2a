"""Tests written against the survivors of the sandbox's wall-building lines (protocols/dynaeval/sandbox.py's
bwrap_prefix, _limiter, _start, _probe; scripts/mutants.py, seed 1, `--only` those lines)."""
from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path

from judgeagent.protocols.dynaeval import sandbox
from judgeagent.protocols.dynaeval.sandbox import run_tests
from tests.test_sandbox import PROBLEMS, solve


def test_a_bubblewrap_on_the_evaluators_path_outside_usr_bin_runs(monkeypatch):
    # sandbox.py `shutil.which(BWRAP) or BWRAP` (-> `and`): bwrap is started by its full path, as the evaluator's
    # PATH finds it (/usr/local/bin, a build of its own), not by name through the PATH bwrap is given (/usr/bin:/bin)
    folder = Path(tempfile.mkdtemp(dir="/var/tmp"))  # one the sandbox's host uid can walk to
    folder.chmod(0o755)
    (folder / "judgeagent-bwrap").symlink_to(shutil.which("bwrap") or "/usr/bin/bwrap")
    monkeypatch.setenv("PATH", f"{folder}{os.pathsep}{os.environ['PATH']}")
    monkeypatch.setattr(sandbox, "BWRAP", "judgeagent-bwrap")
    sandbox._probe.cache_clear()
    try:
        p = PROBLEMS[0]
        assert run_tests(solve(p, p["canonical_solution"]), p["test"], p["entry_point"]).passed
    finally:
        sandbox._probe.cache_clear()
        shutil.rmtree(folder)


def test_a_bubblewrap_that_starts_but_fails_is_named_with_its_last_words(monkeypatch):
    # sandbox.py `_probe`'s failure line: its `return` (-> None), the words (emptied), the last line of stderr
    # (`[-1]` -> `[-2]`), the exit code where stderr is empty. A bwrap that starts and fails at once stands for one
    # refused its namespaces (user namespaces disabled); it runs as the sandbox's host uid, so it lies where that
    # uid can reach it.
    folder = Path(tempfile.mkdtemp(dir="/var/tmp"))
    folder.chmod(0o755)
    fake = folder / "bwrap"
    monkeypatch.setattr(sandbox, "BWRAP", str(fake))
    who = " as an unprivileged user (are user namespaces disabled?)" if os.geteuid() == 0 else ""
    try:
        for script, said in (("echo 'bwrap: starting' >&2; echo 'bwrap: setting up uid map: Permission denied' >&2; "
                              "exit 1", "bwrap: setting up uid map: Permission denied"), ("exit 3", "exit code 3")):
            fake.write_text(f"#!/bin/sh\n{script}\n")
            fake.chmod(0o755)
            assert sandbox._probe.__wrapped__(str(fake)) == (None, f"bubblewrap does not work here{who} ({said})")
    finally:
        shutil.rmtree(folder)
