"""The question reader's own process: spaCy and the encoder on a question, beside the sampler's encode.

Why a process and not a thread (issue 50): a first path runs spaCy on its question on one thread while the
other encodes the question. spaCy holds the GIL for most of its work and the encoder needs it between its
torch calls, so on two threads the question's encode took 32.1 ms of wall for 23.3 ms of CPU beside a spaCy
loop, against 21.6 ms beside the same loop in another process (`bench/build_graph.py`, 2026-11-28). In this
process the reading (spaCy, then the encoder on the mentions the graph has no node for) runs truly beside it.

The answers are the ones this process would compute: the same extractor class and configuration, the same
encoder weights (checked by their fingerprint before any vector is used), one intra-op thread as the
sampler's reading has. A reader that is starting, busy, failed or gone answers None, and the caller reads
in its own process: a path never waits for the reader's start, and a reader that dies costs nothing but
its speed. The child exits when its input closes (this process ended or closed it).
"""
from __future__ import annotations

import os
import pickle
import select
import signal
import struct
import subprocess
import sys
import threading
import weakref
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from ..config import EntityConfig
from ..entities import Mention

_HEADER = struct.Struct("<Q")
_TIMEOUT_S = 60.0
"""A reply slower than this means a stuck child: it is stopped and the caller reads itself."""


class ReaderProcess:
    """A child process that extracts mentions (`extract`) and encodes short lists (`encode`) on request.

    `entities`: the SpacyExtractor configuration to load (None: no extraction); `encoder`: the name of the
    encoder to load (None: no encoding) and `fingerprint` the parent's fingerprint of it (read once the child
    is up); a child whose weights give another fingerprint is never asked for vectors."""

    def __init__(self, entities: EntityConfig | None, encoder: str | None,
                 fingerprint: Callable[[], str] | None) -> None:
        self._lock = threading.Lock()
        self._ready = threading.Event()
        self._dead = False
        self._can_extract = False
        self._can_encode = False
        self.served = 0
        """Texts answered by the child (extracted or encoded): what the process saved the caller."""
        env = {**os.environ, "OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1"}
        root = Path(__file__).resolve().parents[2]
        if not {"site-packages", "dist-packages"} & set(root.parts):  # a source tree: the child imports this one
            env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(root), os.environ.get("PYTHONPATH")]))
        self._proc = subprocess.Popen([sys.executable, "-m", "judgeagent.graph.reader"], stdin=subprocess.PIPE,
                                      stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=env)
        self._finalizer = weakref.finalize(self, _stop, self._proc)
        setup = {"entities": entities.model_dump(mode="json") if entities is not None else None, "encoder": encoder}
        threading.Thread(target=self._start, args=(setup, fingerprint), name="judgeagent-reader-start",
                         daemon=True).start()

    @property
    def pid(self) -> int:
        return self._proc.pid

    @property
    def ready(self) -> bool:
        return self._ready.is_set() and not self._dead

    def wait(self, timeout: float) -> bool:
        """Wait until the child has loaded its models (or failed); whether it can answer."""
        self._ready.wait(timeout)
        return self.ready

    def extract(self, texts: Sequence[str]) -> list[list[Mention]] | None:
        """The child's mentions of `texts`, or None when it cannot answer now (the caller extracts)."""
        return self._ask("extract", texts) if self._can_extract else None

    def encode(self, texts: Sequence[str]) -> np.ndarray | None:
        """The child's vectors of exactly this list, or None when it cannot answer now (the caller encodes)."""
        return self._ask("encode", texts) if self._can_encode else None

    def close(self) -> None:
        self._dead = True
        self._finalizer()

    def _start(self, setup: dict[str, Any], fingerprint: Callable[[], str] | None) -> None:
        # Nothing here may raise: a thread's error prints a traceback (at exit, after Ctrl-C, the parent's
        # encoder and the child's pipe may both be gone). Any failure leaves the reading to this process.
        with self._lock:
            try:
                _send(self._proc, setup)
                kind, info = _receive(self._proc, _TIMEOUT_S * 2)  # spaCy and torch load: seconds
                if kind == "ready":
                    self._can_extract = info["extractor"]
                    self._can_encode = (info["fingerprint"] is not None and fingerprint is not None
                                        and info["fingerprint"] == fingerprint())
            except Exception:  # noqa: BLE001
                kind = "failed"
            if kind != "ready":
                self._fail()
        self._ready.set()

    def _ask(self, op: str, texts: Sequence[str]) -> Any:
        if not self.ready or not texts or not self._lock.acquire(blocking=False):
            return None  # starting, gone, or answering another thread: the caller does it now
        try:
            _send(self._proc, (op, list(texts)))
            kind, result = _receive(self._proc, _TIMEOUT_S)
        except (OSError, EOFError, TimeoutError, ValueError, pickle.UnpicklingError):  # ValueError: a closed pipe
            self._fail()
            return None
        finally:
            self._lock.release()
        if kind != "ok":
            return None  # the caller's own call raises the error in its own words
        self.served += len(texts)
        return result

    def _fail(self) -> None:
        self._dead = True
        self._finalizer()


def _stop(proc: subprocess.Popen[bytes]) -> None:
    """Close the child's input (it exits at end of input); kill one that does not go. Its output is left open:
    another thread may be reading it, and reads the end of it now."""
    try:
        if proc.stdin is not None:
            proc.stdin.close()
        proc.wait(timeout=2)
    except (OSError, ValueError, subprocess.TimeoutExpired):
        proc.kill()
        proc.wait()


def _send(proc: subprocess.Popen[bytes], value: Any) -> None:
    assert proc.stdin is not None
    _write(proc.stdin, value)


def _receive(proc: subprocess.Popen[bytes], timeout: float) -> Any:
    assert proc.stdout is not None
    if not select.select([proc.stdout.fileno()], [], [], timeout)[0]:
        raise TimeoutError
    found = _read(proc.stdout)
    if found is None:
        raise EOFError
    return found[0]


def _write(stream: Any, value: Any) -> None:
    """One frame: the pickle's length, then the pickle (both sides of the pipes)."""
    data = pickle.dumps(value, protocol=pickle.HIGHEST_PROTOCOL)
    stream.write(_HEADER.pack(len(data)) + data)
    stream.flush()


def _read(stream: Any) -> tuple[Any] | None:
    """One frame's value (in a 1-tuple: a value may be None), or None at the end of the stream."""
    header = stream.read(_HEADER.size)
    if not header or len(header) < _HEADER.size:
        return None
    size = _HEADER.unpack(header)[0]
    data = stream.read(size)
    if data is None or len(data) < size:
        return None
    return (pickle.loads(data),)


# --- the child ---------------------------------------------------------------------------------------------
def _serve() -> None:
    """Load what the parent asked for, say so, then answer requests until the input ends."""
    stdin = sys.stdin.buffer
    # The replies go to the parent's pipe; anything a library prints goes to stderr (discarded), not into it.
    stdout = os.fdopen(os.dup(1), "wb")
    os.dup2(2, 1)

    def reply(value: Any) -> None:
        _write(stdout, value)

    def request() -> Any:
        found = _read(stdin)
        return found[0] if found is not None else None

    signal.signal(signal.SIGINT, signal.SIG_IGN)  # a terminal's Ctrl-C reaches the whole group: the parent decides
    setup = request()
    if setup is None:
        return
    try:
        from ..entities import SpacyExtractor
        from ..threads import one_thread

        extractor = SpacyExtractor(EntityConfig(**setup["entities"])) if setup["entities"] is not None else None
        encoder = None
        if setup["encoder"] is not None:
            from ..embedding import Encoder

            encoder = Encoder(setup["encoder"])
    except Exception as e:  # noqa: BLE001  (the parent reads in its own process and reports its own error)
        reply(("failed", str(e)[:200]))
        return
    with one_thread():
        reply(("ready", {"extractor": extractor is not None,
                         "fingerprint": encoder.fingerprint if encoder is not None else None}))
        while (message := request()) is not None:
            op, texts = message
            try:
                if op == "extract" and extractor is not None:
                    reply(("ok", extractor.extract(texts)))
                elif op == "encode" and encoder is not None:
                    reply(("ok", encoder.encode(texts)))
                else:
                    reply(("error", f"unknown request {op!r}"))
            except Exception as e:  # noqa: BLE001
                reply(("error", str(e)[:200]))


if __name__ == "__main__":
    _serve()
