"""The survivors of stop 61's fresh mutation sample (seed 63, bench/mutants.md), each killed by the outcome its
defect changes (#47). Written after the sample was scored (it ran in clones frozen at its commits)."""
from __future__ import annotations

import os
import subprocess
import tempfile

import pytest

from judgeagent.errors import JudgeAgentError


def test_a_missing_bubblewrap_is_named_with_the_fix(monkeypatch):
    """sandbox.py:469: without the binary the probe says so (and does not crash on its own answer)."""
    from judgeagent.protocols.dynaeval import sandbox

    monkeypatch.setattr(sandbox, "BWRAP", "judgeagent-no-such-bwrap")
    with pytest.raises(JudgeAgentError, match=r"bubblewrap \(judgeagent-no-such-bwrap\) is not installed: install it"):
        sandbox.require_bubblewrap()
    assert sandbox.bubblewrap() is None


def test_only_the_folders_of_ended_evaluators_are_removed(tmp_path, monkeypatch):
    """sandbox.py:699: a sandbox folder is stale when the process named in it has ended; a live one's is kept."""
    from judgeagent.protocols.dynaeval.sandbox import _remove_stale_folders

    ended = subprocess.Popen(["true"])
    ended.wait()
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    stale, live = tmp_path / f"judgeagent-sandbox-{ended.pid}-ab", tmp_path / f"judgeagent-sandbox-{os.getpid()}-cd"
    for folder in (stale, live):
        (folder / "work").mkdir(parents=True)
    _remove_stale_folders.__wrapped__()
    assert not stale.exists() and (live / "work").is_dir()
