"""tests/worker_threads.py: each xdist worker's numeric libraries run on its share of the cores."""
from __future__ import annotations

import os

import pytest

from tests.worker_threads import VARIABLES, cores, worker_threads


def test_two_workers_on_two_cores_get_one_thread_each():
    env = {"PYTEST_XDIST_WORKER": "gw1", "PYTEST_XDIST_WORKER_COUNT": "2"}
    assert worker_threads(env, 2) == {name: "1" for name in VARIABLES}
    assert worker_threads(env, 16) == {name: "8" for name in VARIABLES}
    assert worker_threads({**env, "PYTEST_XDIST_WORKER_COUNT": "4"}, 2) == {name: "1" for name in VARIABLES}


def test_one_process_and_the_users_choice_are_left_alone():
    assert worker_threads({}, 2) == {}  # no xdist (TEST_WORKERS=0): the libraries' defaults
    env = {"PYTEST_XDIST_WORKER": "gw0", "PYTEST_XDIST_WORKER_COUNT": "2", "OMP_NUM_THREADS": "2"}
    assert worker_threads(env, 2) == {"MKL_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1"}


def test_this_worker_runs_torch_on_its_share():
    """Set before torch loaded (tests/conftest.py): torch's own count follows it."""
    if not os.environ.get("PYTEST_XDIST_WORKER", "").startswith("gw"):
        pytest.skip("runs in an xdist worker (make test, make test-fast)")
    torch = pytest.importorskip("torch")
    share = max(1, cores() // int(os.environ["PYTEST_XDIST_WORKER_COUNT"]))
    assert os.environ["OMP_NUM_THREADS"] == str(share)
    assert torch.get_num_threads() == share
