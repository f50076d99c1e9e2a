"""Thread discipline for CPU model work: one intra-op thread for small inputs, the machine's for large batches.

Why: with torch's default two intra-op threads, one question's MiniLM encode took 425 ms on a 2-core
machine at load ~3.5 and 16 ms with one thread (the threads wait on each other while other processes
hold the cores; bench/encoder_threads.py). Only large batches (the graph build) gain from more threads.

How the pools behave, and why this is safe with concurrent worker threads:
- torch's intra-op count and OpenMP's are per thread once a thread has used them (torch initialises a
  thread from its global setting on first use): setting them in a worker changes that worker only. The
  global setting (what a new thread starts with) is put back when the outermost block of the process ends.
- OpenBLAS's count may be process-global (builds differ): the first block to enter sets it to one, the last to leave restores
  it (a count under a lock), so one thread leaving cannot undo another's limit.
"""
from __future__ import annotations

import sys
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any


def passive_openmp() -> None:
    """Idle OpenMP threads sleep instead of spinning (`OMP_WAIT_POLICY=PASSIVE`), unless the user chose a policy.

    Why: torch's OpenMP threads spin for a while after each parallel region. On a machine whose other processes
    hold the cores, a spinning thread takes the core its sibling needs next, and an encode of a few short texts
    on two threads waits on it: the demo graph's 568 entity names took 8.5 s to embed on two threads at load
    ~3.5, 1.0 s with PASSIVE and 1.2-1.6 s on one thread (one question per call: 541-562 ms against 26-38 ms;
    bench/encoder_threads.py). It changes no arithmetic, only how threads wait. Read once, when torch loads
    OpenMP: a process that imported torch before judgeagent keeps its policy.
    """
    import os

    os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")


SMALL = 64
"""Inputs up to this many texts are small: one thread. Larger ones (the graph build's slices) use them all."""

_lock = threading.Lock()
_controllers: dict[int, Any] = {}
_active = 0
_blas_limit: Any = None
_torch_default: int | None = None
_local = threading.local()


def _torch() -> Any:
    """torch if it is loaded; None in a process without it (static encoder, spaCy only), and while another thread
    is still importing it (a partly initialised module has no `set_num_threads` yet: seen when the answer
    checker's preload imported it as the event loop encoded)."""
    torch = sys.modules.get("torch")
    return torch if hasattr(torch, "set_num_threads") and hasattr(torch, "get_num_threads") else None


def _pools() -> Any:
    """threadpoolctl's view of the loaded BLAS and OpenMP libraries, found once per set of imported modules.

    Why: `threadpool_limits` looks for the libraries anew at every call (it reads each loaded library's file);
    that cost about 5 ms a call, three calls per question on the path of a knowledge path's first sample
    (issue 50: 28 of its 84 ms). A thread-pool library is loaded by an import (numpy, torch, faiss), so a
    process that imported nothing since the last look has the same libraries."""
    from threadpoolctl import ThreadpoolController

    key = len(sys.modules)
    found = _controllers.get(key)
    if found is None:
        found = ThreadpoolController()
        _controllers.clear()
        _controllers[key] = found
    return found


@contextmanager
def one_thread() -> Iterator[None]:
    """Run the block with one torch, OpenMP and BLAS thread; nests, and is safe across threads."""
    global _active, _blas_limit, _torch_default

    torch = _torch()
    pools = _pools()
    with _lock:
        if _active == 0:
            _blas_limit = pools.limit(limits=1, user_api="blas")
            _torch_default = torch.get_num_threads() if torch is not None else None
        _active += 1
        default = _torch_default  # what this thread goes back to: the count before any block was open
    outermost = getattr(_local, "depth", 0) == 0
    _local.depth = getattr(_local, "depth", 0) + 1
    if outermost and torch is not None:
        torch.set_num_threads(1)
    openmp = pools.limit(limits=1, user_api="openmp")  # this thread's OpenMP pools (faiss, torch's)
    try:
        yield
    finally:
        openmp.restore_original_limits()
        _local.depth -= 1
        if outermost and torch is not None and default is not None:
            torch.set_num_threads(default)  # this thread's count, and the global one new threads start from
        with _lock:
            _active -= 1
            if _active == 0:
                _blas_limit.restore_original_limits()
                _blas_limit = None


@contextmanager
def sized(n: int) -> Iterator[None]:
    """One thread for a small input (`n` texts at most `SMALL`); a large one runs as the caller's thread is set."""
    if n > SMALL:
        yield
        return
    with one_thread():
        yield


def load_in_background(load: Callable[..., Any], *args: Any, name: str) -> None:
    """Start `load(*args)` on a daemon thread (a model that takes seconds to load, while other work goes on). Its
    error is dropped: the code that needs the model loads it again and reports the error in one line, where
    a thread's error would print a traceback."""
    def quietly() -> None:
        try:
            load(*args)
        except Exception:
            pass

    threading.Thread(target=quietly, name=name, daemon=True).start()
