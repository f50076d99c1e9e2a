"""judgeagent.threads: one intra-op thread inside a block, the machine's count back after it, across threads."""
from __future__ import annotations

import threading
from concurrent.futures import ThreadPoolExecutor

import pytest

torch = pytest.importorskip("torch")

from judgeagent import threads


@pytest.fixture(autouse=True)
def two_threads():
    """At least two torch threads to start from: an xdist worker runs torch on one (tests/worker_threads.py), and
    "the count is put back" would then hold whatever the block did."""
    before = torch.get_num_threads()
    torch.set_num_threads(max(before, 2))
    yield
    torch.set_num_threads(before)


def test_a_block_runs_on_one_thread_and_restores_the_count_nested():
    default = torch.get_num_threads()
    with threads.one_thread():
        assert torch.get_num_threads() == 1
        with threads.one_thread():
            assert torch.get_num_threads() == 1
        assert torch.get_num_threads() == 1  # the inner block's exit undid nothing
    assert torch.get_num_threads() == default


def test_overlapping_blocks_in_two_threads_keep_their_limit_until_the_last_leaves():
    default = torch.get_num_threads()
    first_in, second_out = threading.Event(), threading.Event()

    def first() -> int:  # enters first, leaves last
        with threads.one_thread():
            first_in.set()
            second_out.wait(10)
            return torch.get_num_threads()

    def second() -> int:
        first_in.wait(10)
        with threads.one_thread():
            inside = torch.get_num_threads()
        second_out.set()
        return inside

    with ThreadPoolExecutor(2) as pool:
        a, b = pool.submit(first), pool.submit(second)
        assert b.result() == 1
        assert a.result() == 1  # still one thread after the other block left
    assert torch.get_num_threads() == default
    with ThreadPoolExecutor(1) as fresh:
        assert fresh.submit(torch.get_num_threads).result() == default


def test_only_small_inputs_are_limited():
    default = torch.get_num_threads()
    with threads.sized(threads.SMALL):
        assert torch.get_num_threads() == 1
    with threads.sized(threads.SMALL + 1):
        assert torch.get_num_threads() == default


@pytest.mark.parametrize("chosen, expected", [(None, "PASSIVE"), ("ACTIVE", "ACTIVE")])
def test_idle_openmp_threads_sleep_unless_the_user_chose(chosen, expected):
    """A fresh process that imports judgeagent (before torch) gets sleeping OpenMP threads; a policy the user set stays."""
    import os
    import subprocess
    import sys

    env = {k: v for k, v in os.environ.items() if k != "OMP_WAIT_POLICY"}
    if chosen:
        env["OMP_WAIT_POLICY"] = chosen
    out = subprocess.run([sys.executable, "-c", "import os, judgeagent; print(os.environ['OMP_WAIT_POLICY'])"],
                         env=env, capture_output=True, text=True, check=True)
    assert out.stdout.strip() == expected


def test_a_torch_still_being_imported_by_another_thread_is_left_alone():
    """A thread that limits itself while another thread is importing torch sees a partly initialised module (no
    `set_num_threads` yet): the block runs without touching it instead of failing (seen in the online stage)."""
    import subprocess
    import sys

    script = ("import sys, types; sys.modules['torch'] = types.ModuleType('torch')\n"
              "from judgeagent.threads import one_thread\n"
              "with one_thread():\n    print('ran')")
    out = subprocess.run([sys.executable, "-c", script], check=False, capture_output=True, text=True)
    assert out.returncode == 0 and out.stdout.strip() == "ran", out.stderr


def test_small_encodes_run_side_by_side_with_the_same_bytes(encoder, monkeypatch):
    """The online stage's two threads encode batches at once (issue 31): each batch's vectors must be the bytes
    it gets encoded alone, and the model must run two calls at once (a lock around them would keep one core
    idle)."""
    texts = [f"Which central bank raised its interest rate in quarter {i} of the year?" for i in range(40)]
    batches = [texts[i:i + 5] for i in range(0, len(texts), 5)]
    alone = [encoder.encode(b) for b in batches]
    inside, most = [0], [0]
    guard, model = threading.Lock(), encoder._encode

    def counted(*args):
        with guard:
            inside[0] += 1
            most[0] = max(most[0], inside[0])
        try:
            return model(*args)
        finally:
            with guard:
                inside[0] -= 1

    monkeypatch.setattr(encoder, "_encode", counted)
    with ThreadPoolExecutor(2) as pool:
        for _ in range(3):
            together = list(pool.map(encoder.encode, batches))
            assert all(a.tobytes() == t.tobytes() for a, t in zip(alone, together))
    assert most[0] == 2
