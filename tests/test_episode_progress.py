"""The other protocols' live progress: in a log, a line for each stage (the judge's calibration, the episodes)
and every tenth of the episodes, with the elapsed time; on a terminal, a tqdm bar named by the stage."""
from __future__ import annotations

import sys

from judgeagent.benchmark import load_benchmark
from judgeagent.cli.main import main
from judgeagent.models.testserver import FakeServer

from .test_dry_run import ARC, differing


def test_a_log_hears_the_calibration_then_the_episodes(tmp_path, capsys):
    with FakeServer(reply=differing(load_benchmark(ARC).items)) as server:
        config = tmp_path / "j.toml"
        config.write_text(f'[models.t]\nbase_url = "{server.base_url}"\nmodel = "t"\nmax_retries = 0\n')
        code = main(["evaluate", "--protocol", "kieval", "--target", "t", "--benchmark", ARC, "--limit", "3",
                     "-o", "rounds=1", "-o", "judge_policy=trust", "--config", str(config), "--run-dir",
                     str(tmp_path / "run"), "--no-cache"])
    err = capsys.readouterr().err.splitlines()
    assert code == 0
    stages = [line for line in err if line.startswith(("calibrating the judge", "episodes"))]
    assert stages[0].startswith("calibrating the judge on up to ") and stages[0].endswith(" elapsed)")
    assert stages[1].startswith("episodes (") and stages[-1].startswith("episodes: 3/3 done (")
    assert err[0] == "protocol kieval:" and any(line.startswith("  calls: ") for line in err)  # the plan first


def test_a_terminal_gets_a_bar_named_by_the_stage(capsys, monkeypatch):
    from judgeagent.cli.bars import progress_for
    from judgeagent.protocols.base import ProgressEvent

    monkeypatch.setattr(sys.stderr, "isatty", lambda: True, raising=False)
    with progress_for("kieval", False, None, None) as bar:
        bar.stage("episodes")
        for done in range(1, 5):
            bar(ProgressEvent(done, 4))
    err = capsys.readouterr().err
    assert "episodes" in err and "4/4" in err and "episodes: 4/4 done" not in err  # the bar, not log lines
