"""Tests written against seed 65's survivors in the sandbox outside its verdict path (bench/mutants.md, stop 62):
the timeout's words, bubblewrap that cannot run, the mount plan of a system whose /bin is a folder."""
from __future__ import annotations

import os

from judgeagent.protocols.dynaeval import sandbox
from judgeagent.protocols.dynaeval.sandbox import SandboxLimits, run_tests
from tests.test_sandbox import PROBLEMS, solve


def test_a_timeout_is_said_in_the_seconds_the_user_set():
    # sandbox.py `{self.limits.timeout_s:g}` ('g' emptied): a 1.0 s limit reads "1 s", not "1.0 s"
    p = PROBLEMS[0]
    result = run_tests(solve(p, "    while True:\n        pass\n"), p["test"], p["entry_point"],
                       SandboxLimits(timeout_s=1.0))
    assert (result.status, result.detail) == ("timeout", "stopped after 1 s")


def test_a_bubblewrap_that_cannot_start_is_named_with_the_systems_words(tmp_path):
    # sandbox.py `_probe`'s `return None, f"bubblewrap does not run here ({e})"` (-> `return None`): a binary whose
    # interpreter is missing fails to start; the probe says so in one line instead of failing itself
    broken = tmp_path / "bwrap"
    broken.write_text("#!/nonexistent/sh\n")
    broken.chmod(0o755)
    version, why = sandbox._probe(str(broken))
    assert version is None and why.startswith("bubblewrap does not run here ([Errno 2] No such file or directory")


def test_a_system_whose_top_folders_are_folders_mounts_them_read_only(monkeypatch):
    # sandbox.py `args += ["--ro-bind", top, top]` ('--ro-bind' emptied): on a system without the merged /usr
    # (/bin, /lib ... real folders, not links), each is bound read-only; this machine's are links
    real_islink = os.path.islink
    monkeypatch.setattr(sandbox.os.path, "islink", lambda p: False if p in ("/bin", "/lib") else real_islink(p))
    args, _ = sandbox.bwrap_prefix(SandboxLimits(), 3)
    at = args.index("/bin") - 1
    assert args[at:at + 3] == ["--ro-bind", "/bin", "/bin"]
    at = args.index("/lib") - 1
    assert args[at:at + 3] == ["--ro-bind", "/lib", "/lib"]
