"""The embedded local model: a llama.cpp OpenAI-compatible server on loopback, started and stopped here."""
from __future__ import annotations

import contextlib
import importlib.util
import json
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path

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
    port = base_url.rsplit(":", 1)[1].split("/")[0]
    return Path(os.environ.get("XDG_RUNTIME_DIR") or "/tmp") / f"judgeagent-local-{port}.gguf"


def _free(port: int) -> bool:
    with socket.socket() as s:
        return s.connect_ex((HOST, port)) != 0


@contextlib.contextmanager
def local_server(spec: ModelSpec, startup_timeout: float = 180.0) -> Iterator[ModelSpec]:
    """Serve `spec.gguf` for the duration of the block; reuse a server already serving it.

    The server is stopped on normal exit, on errors and on Ctrl-C; it also dies with this process
    (PR_SET_PDEATHSIG), so a killed run leaves no orphan holding the port.
    """
    assert spec.gguf, "local_server needs a spec with a GGUF file"
    if serving(spec.base_url, spec.gguf):
        yield spec
        return
    port = int(spec.base_url.rsplit(":", 1)[1].split("/")[0])
    while not _free(port):
        port += 1
    spec = spec.model_copy(update={"base_url": f"http://{HOST}:{port}/v1"})
    process = _start(spec.gguf, port)
    try:
        _wait(process, spec, startup_timeout)
        _marker_file(spec.base_url).write_text(spec.gguf)
        yield spec
    finally:
        _stop(process)
        _marker_file(spec.base_url).unlink(missing_ok=True)


def _log_file(port: int) -> Path:
    return Path(os.environ.get("XDG_RUNTIME_DIR") or "/tmp") / f"judgeagent-local-{port}.log"


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


def _wait(process: subprocess.Popen[bytes], spec: ModelSpec, timeout: float) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process.poll() is not None:
            log = _log_file(int(spec.base_url.rsplit(":", 1)[1].split("/")[0]))
            lines = log.read_text(errors="replace").strip().splitlines() if log.is_file() else []
            tail = lines[-1] if lines else f"exit status {process.returncode}"
            raise JudgeAgentError(f"the local model server failed to start: {tail[:300]}")
        try:
            with urllib.request.urlopen(f"{spec.base_url}/models", timeout=1.0):
                return
        except OSError:
            time.sleep(0.25)
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
