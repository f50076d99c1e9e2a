"""The embedded local model: a llama.cpp OpenAI-compatible server on loopback, started and stopped here."""
from __future__ import annotations

import contextlib
import fcntl
import importlib.util
import json
import os
import signal
import socket
import subprocess
import sys
import threading
import time
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import IO

from ..errors import JudgeAgentError

# What the embedded model is (its spec) lives with the other specs, so that `spec` never imports this
# module; this module runs its server.
from .spec import ALIAS, DEFAULT_PORT, GGUF_NAME, HOST, ModelSpec, local_spec, packaged_gguf  # noqa: F401


def serving(base_url: str, gguf: str, timeout: float = 1.0) -> bool:
    """True if a llama.cpp server at `base_url` already serves this GGUF under our alias."""
    try:
        with urllib.request.urlopen(f"{base_url}/models", timeout=timeout) as response:
            data = json.load(response)
    except (OSError, ValueError):
        return False
    served = [m.get("id") for m in data.get("data", [])]
    return ALIAS in served and _marker(base_url) == gguf


def _marker(base_url: str) -> str | None:
    # Which file a server on this port serves: written when we start one, read to reuse it.
    file = _marker_file(base_url)
    return file.read_text().strip() if file.is_file() else None


def _marker_file(base_url: str) -> Path:
    return _runtime_file(base_url.rsplit(":", 1)[1].split("/")[0], "gguf")


def _free(port: int) -> bool:
    with socket.socket() as s:
        return s.connect_ex((HOST, port)) != 0


# Servers this process runs, by GGUF file. Roles, nested blocks and threads of one process share one, stopped when
# its last user leaves; another process never reuses ours, since a server dies with the process that started it
# (seen: of two runs started together, the second reused the first's server and lost it mid-run when the first
# ended).
_OWN: dict[str, _Served] = {}
_OWN_LOCK = threading.Lock()
_PORTS_TRIED = 50


@contextlib.contextmanager
def local_server(spec: ModelSpec, startup_timeout: float = 180.0) -> Iterator[ModelSpec]:
    """Serve `spec.gguf` for the duration of the block; share the server this process already runs for it.

    Each process runs its own server, on the first port from `spec`'s on that no other judgeagent process
    holds (a lock file per port, held while the server runs) and nothing answers on. The server is stopped when
    its last block ends, on errors and on Ctrl-C too; it also dies with this process (PR_SET_PDEATHSIG), so a
    killed run leaves no orphan holding the port.
    """
    assert spec.gguf, "local_server needs a spec with a GGUF file"
    with _OWN_LOCK:  # held while a server starts: another thread waits for it rather than start a second
        served = _OWN.get(spec.gguf)
        if served is None:
            served = _OWN[spec.gguf] = _serve(spec, startup_timeout)
        else:
            served.users += 1
    try:
        yield spec.model_copy(update={"base_url": served.spec.base_url})
    finally:
        with _OWN_LOCK:
            served.users -= 1
            last = served.users == 0
            if last:
                del _OWN[spec.gguf]
        if last:
            served.stop()


@dataclass
class _Served:
    """A server this process started: where it answers, its process, its port's lock, and how many blocks use it."""

    spec: ModelSpec
    process: subprocess.Popen[bytes]
    lock: IO[bytes]
    users: int = 1

    def stop(self) -> None:
        try:
            _stop(self.process)
        finally:
            _marker_file(self.spec.base_url).unlink(missing_ok=True)
            self.lock.close()  # closing the file releases its lock


def _serve(spec: ModelSpec, startup_timeout: float) -> _Served:
    assert spec.gguf
    first = int(spec.base_url.rsplit(":", 1)[1].split("/")[0])
    for port in range(first, first + _PORTS_TRIED):
        lock = _claim(port)
        if lock is None:
            continue
        here = spec.model_copy(update={"base_url": f"http://{HOST}:{port}/v1"})
        process = None
        try:
            process = _start(spec.gguf, port)
            if _wait(process, here, startup_timeout):
                _marker_file(here.base_url).write_text(spec.gguf)
                return _Served(here, process, lock)
        except BaseException:  # Ctrl-C or a failed start: nothing left running or locked
            if process is None:
                lock.close()
            else:
                _Served(here, process, lock).stop()
            raise
        _Served(here, process, lock).stop()  # another program took the port between our look and the bind
    raise JudgeAgentError(f"no free port for the local model server in {first}-{first + _PORTS_TRIED - 1}: "
                          "stop what holds them or set JUDGEAGENT_LOCAL_PORT to another port")


def _claim(port: int) -> IO[bytes] | None:
    """This port's lock file, locked for this process; None if another judgeagent process (or anything else
    that answers on it) has the port. The lock goes when the file is closed or the process dies."""
    try:
        lock = open(_runtime_file(port, "lock"), "ab")  # noqa: SIM115  (held past this function)
    except OSError:  # e.g. another user's lock file in a shared /tmp: their port
        return None
    try:
        fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        lock.close()
        return None
    if not _free(port):
        lock.close()
        return None
    return lock


def _runtime_file(port: int | str, suffix: str) -> Path:
    return Path(os.environ.get("XDG_RUNTIME_DIR") or "/tmp") / f"judgeagent-local-{port}.{suffix}"


def _log_file(port: int) -> Path:
    return _runtime_file(port, "log")


def _start(gguf: str, port: int) -> subprocess.Popen[bytes]:
    if importlib.util.find_spec("llama_cpp") is None:
        raise JudgeAgentError('the embedded model needs llama.cpp: pip install "judgeagent[local]"')
    command = [sys.executable, "-m", "llama_cpp.server", "--model", gguf, "--model_alias", ALIAS,
               "--host", HOST, "--port", str(port), "--n_ctx", "4096", "--verbose", "false"]
    # The server logs every request; a pipe nobody reads would fill and stall it, so a file takes them.
    with open(_log_file(port), "wb") as log:
        return subprocess.Popen(command, stdout=log, stderr=subprocess.STDOUT,
                                preexec_fn=_die_with_parent, start_new_session=True)


def _die_with_parent() -> None:
    try:
        import ctypes

        ctypes.CDLL("libc.so.6").prctl(1, signal.SIGTERM)  # PR_SET_PDEATHSIG
    except OSError:
        pass


def _wait(process: subprocess.Popen[bytes], spec: ModelSpec, timeout: float) -> bool:
    """True once our server answers; False if it could not bind its port (something else took it)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process.poll() is not None:
            log = _log_file(int(spec.base_url.rsplit(":", 1)[1].split("/")[0]))
            lines = log.read_text(errors="replace").strip().splitlines() if log.is_file() else []
            if any("address already in use" in line.lower() for line in lines):
                return False
            tail = lines[-1] if lines else f"exit status {process.returncode}"
            raise JudgeAgentError(f"the local model server failed to start: {tail[:300]}")
        try:
            with urllib.request.urlopen(f"{spec.base_url}/models", timeout=1.0):
                pass
        except OSError:
            time.sleep(0.25)
            continue
        # Whoever answered, our server must still be up: one that lost the port exits just after.
        time.sleep(0.2)
        if process.poll() is None:
            return True
    _stop(process)
    raise JudgeAgentError(f"the local model server did not answer within {timeout:.0f} s")


def _stop(process: subprocess.Popen[bytes]) -> None:
    if process.poll() is None:
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
