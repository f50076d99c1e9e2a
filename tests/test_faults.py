"""`evaluate` killed (SIGKILL) or interrupted (Ctrl-C) at random points, in a real subprocess, then resumed.

The scripted servers live in this process, so they outlive the killed one and count every call.
A resumed run must end with the records of an uninterrupted run, having repeated at most the calls
that were in flight at the kill (each endpoint allows `max_concurrency` = 4 at once).
"""
import json
import random
import signal
import subprocess
import sys
import time

import pytest

from judgeagent.benchmark import load_benchmark
from judgeagent.cli import main
from tests.conftest import DEMO, ROOT
from tests.scripted import Roles, Script, ctrl_c_restored

IN_FLIGHT = 4 + 4  # target endpoint + interviewer/judge endpoint


@pytest.fixture(scope="module")
def roles():
    script = Script(target_right={"Rosetta", "Voyager", "Apollo"})
    for item in load_benchmark(DEMO / "questions.jsonl").items:
        script.golds[item.question] = item.gold
    with Roles(script) as r:
        r.target.latency = r.interviewer.latency = 0.05
        yield r


@pytest.fixture(scope="module")
def baseline(roles, demo_graph, tmp_path_factory):
    """An uninterrupted run: its records and the calls it took."""
    folder = tmp_path_factory.mktemp("faults")
    config = roles.write_config(folder / "judgeagent.toml")
    before = roles.calls()
    assert main(evaluate_args(config, demo_graph, folder / "whole")) == 0
    return config, records(folder / "whole"), roles.calls() - before


def evaluate_args(config, graph, run_dir):
    return [str(a) for a in ["evaluate", "--target", "tgt", "--interviewer", "int", "--benchmark",
                             DEMO / "questions.jsonl", "--graph", graph.path, "--no-graph", "--rounds", "2",
                             "--run-dir", run_dir, "--config", config, "--no-cache", "-q"]]


def records(run):
    rows = [json.loads(line) for line in (run / "records.jsonl").read_text().splitlines()]
    return sorted((r["record_id"], r["question"], r["answer"], r["correct"]) for r in rows)


def interrupt_at(roles, args, calls, sig):
    """Start `judgeagent evaluate` and send it `sig` once the servers have seen `calls` more calls."""
    start = roles.calls()
    process = subprocess.Popen([sys.executable, "-m", "judgeagent", *args], cwd=ROOT, stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, text=True, preexec_fn=ctrl_c_restored)
    deadline = time.monotonic() + 30
    while roles.calls() - start < calls and process.poll() is None and time.monotonic() < deadline:
        time.sleep(0.005)
    assert process.poll() is None, "the run ended before the kill point"
    process.send_signal(sig)
    _, err = process.communicate(timeout=30)
    return process.returncode, err, roles.calls() - start


def test_killed_at_random_points_then_resumed(roles, baseline, demo_graph, tmp_path):
    config, whole, whole_calls = baseline
    for k in sorted(random.Random(7).sample(range(2, whole_calls - IN_FLIGHT), 3)):
        args = evaluate_args(config, demo_graph, tmp_path / f"killed-{k}")
        code, _, spent = interrupt_at(roles, args, k, signal.SIGKILL)
        assert code == -signal.SIGKILL
        before = roles.calls()
        resume = ["evaluate", "--resume", str(tmp_path / f"killed-{k}"), "--config", config, "--no-cache", "-q"]
        assert main(resume) == 0
        assert records(tmp_path / f"killed-{k}") == whole
        assert whole_calls <= spent + roles.calls() - before <= whole_calls + IN_FLIGHT, k


def test_ctrl_c_says_how_to_resume(roles, baseline, demo_graph, tmp_path):
    config, whole, whole_calls = baseline
    args = evaluate_args(config, demo_graph, tmp_path / "interrupted")
    code, err, spent = interrupt_at(roles, args, whole_calls // 2, signal.SIGINT)
    assert code == 130 and err.strip() == "aborted: resume with the same command", err
    manifest = json.loads((tmp_path / "interrupted" / "manifest.json").read_text())
    assert manifest["status"] == "running"
    before = roles.calls()
    assert main(args) == 0  # the same command
    assert records(tmp_path / "interrupted") == whole
    assert spent + roles.calls() - before <= whole_calls + IN_FLIGHT
