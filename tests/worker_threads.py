"""How many threads each pytest-xdist worker's numeric libraries (torch, FAISS, OpenBLAS) run on: the cores over
the workers (`make test` and `make test-fast` run two workers, on 2 cores in CI and the project's machines).

Why: torch, FAISS and OpenBLAS each start a pool of one thread per core in every process. Two workers on two
cores then run four busy threads on two cores, and each pool's threads wait on each other while the other
worker holds a core (threads.py says the same of the online stage). Measured (#47, stop 59): the MultiHop-RAG
graph's 8,942 entity names took 24.3 CPU s to embed on two threads and 20.2 on one, the same bytes. With one
thread a worker the graph build and the other worker's tests each keep a core. A thread count the user set is
kept (setdefault); one process (no xdist, `TEST_WORKERS=0`) keeps the libraries' own defaults."""
from __future__ import annotations

import os
from collections.abc import Mapping

VARIABLES = ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS")


def cores() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        return os.cpu_count() or 1


def worker_threads(env: Mapping[str, str], cores: int) -> dict[str, str]:
    """The variables to set in an xdist worker's environment (before torch, numpy or FAISS load): the cores
    shared out over the workers, at least one each; none outside a worker, none the user set already."""
    if not env.get("PYTEST_XDIST_WORKER", "").startswith("gw"):
        return {}
    try:
        workers = max(1, int(env.get("PYTEST_XDIST_WORKER_COUNT", "1")))
    except ValueError:
        workers = 1
    threads = str(max(1, cores // workers))
    return {name: threads for name in VARIABLES if name not in env}
