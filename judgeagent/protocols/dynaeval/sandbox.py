"""Run generated code against its unit tests in a separate, limited process.

Model-written code is untrusted. It runs in a fresh Python interpreter (isolated mode, no site
packages of the user, an empty temporary working folder, a minimal environment) under limits:
wall-clock and CPU time, address space, file size, no new processes. An audit hook installed before
the code runs refuses network access, process creation and writes outside the working folder. The
process group is killed at the deadline. This stops the accidents and the obvious abuse that model
code commits (endless loops, runaway memory, "pip install", deleting files); it is not a container:
native code loaded through ctypes could get around the hook, so the hook also refuses ctypes.
"""
from __future__ import annotations

import json
import os
import secrets
import signal
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

Status = Literal["passed", "failed", "timeout", "memory", "forbidden", "error"]


@dataclass(frozen=True)
class SandboxLimits:
    timeout_s: float = 10.0
    memory_mb: int = 1024
    """Address space: Python itself needs ~50 MB; numpy-free test code rarely needs more than 200."""
    file_mb: int = 10


@dataclass(frozen=True)
class SandboxResult:
    status: Status
    detail: str
    """One line: the assertion or exception, or which limit stopped the code."""
    seconds: float

    @property
    def passed(self) -> bool:
        return self.status == "passed"


# Runs inside the child: limits, then the audit hook, then the code. Written to the working folder.
_RUNNER = r'''
import json, os, resource, sys
limits = json.loads(sys.argv[1])
mb = 1024 * 1024
resource.setrlimit(resource.RLIMIT_AS, (limits["memory_mb"] * mb, limits["memory_mb"] * mb))
resource.setrlimit(resource.RLIMIT_FSIZE, (limits["file_mb"] * mb, limits["file_mb"] * mb))
cpu = int(limits["timeout_s"]) + 1
resource.setrlimit(resource.RLIMIT_CPU, (cpu, cpu))
resource.setrlimit(resource.RLIMIT_NPROC, (0, 0)) if os.getuid() != 0 else None
HOME = os.path.realpath(os.getcwd())
BLOCKED = ("socket.connect", "socket.bind", "socket.sendto", "socket.getaddrinfo", "subprocess.Popen",
           "os.system", "os.exec", "os.posix_spawn", "os.spawn", "os.fork", "os.forkpty", "os.kill",
           "ctypes.dlopen", "ctypes.cdata", "os.chdir", "shutil.rmtree", "os.remove", "os.rmdir",
           "os.rename", "os.chmod", "os.symlink", "os.link", "os.truncate", "os.mkdir")
WRITE_FLAGS = os.O_WRONLY | os.O_RDWR | os.O_APPEND | os.O_CREAT | os.O_TRUNC

class Forbidden(BaseException):
    """Not an Exception: a bare `except Exception` in the code under test must not swallow it."""

def inside(path):
    try:
        real = os.path.realpath(os.fsdecode(path))
    except Exception:
        return False
    return real == HOME or real.startswith(HOME + os.sep)

def hook(event, args):
    if event.startswith(BLOCKED):
        if event in ("os.remove", "os.rmdir", "os.rename", "os.mkdir", "os.chmod", "os.truncate",
                     "shutil.rmtree") and args and inside(args[0]):
            return
        raise Forbidden(f"forbidden in the sandbox: {event}")
    if event == "open" and len(args) >= 3:
        path, mode, flags = args[0], args[1], args[2]
        writing = (isinstance(mode, str) and any(c in mode for c in "wax+")) or (
            isinstance(flags, int) and flags & WRITE_FLAGS)
        if writing and isinstance(path, (str, bytes, os.PathLike)) and not inside(path):
            raise Forbidden(f"forbidden in the sandbox: writing {os.fsdecode(path)}")
    if event == "import" and args and args[0] in ("ctypes", "_ctypes"):
        raise Forbidden("forbidden in the sandbox: ctypes")

def main():
    # The nonce marks the runner's own verdict line: code that prints a fake "passed" line lacks it.
    nonce = sys.stdin.readline().strip()
    sys.stdin = open(os.devnull)
    source = open("solution.py").read()
    sys.addaudithook(hook)
    scope = {"__name__": "__sandbox__"}

    def say(status, detail="", code=0):
        print(f"JUDGEAGENT-SANDBOX {nonce} {status} {detail}".rstrip(), flush=True)
        os._exit(code)

    try:
        exec(compile(source, "solution.py", "exec"), scope)
        exec(compile(limits["test"], "test.py", "exec"), scope)
        scope["check"](scope[limits["entry_point"]])
    except Forbidden as e:
        say("forbidden", str(e), 3)
    except MemoryError:
        say("memory", "memory limit reached", 4)
    except AssertionError as e:
        say("failed", ("assertion failed " + str(e)).strip()[:200], 1)
    except BaseException as e:
        say("error", (type(e).__name__ + ": " + str(e))[:200], 2)
    say("passed")


main()
'''


def run_tests(code: str, test: str, entry_point: str, limits: SandboxLimits = SandboxLimits()) -> SandboxResult:
    """Define `code`, then call the test's `check(entry_point)` (HumanEval's form), in the sandbox."""
    start = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="judgeagent-sandbox-") as folder:
        work = Path(folder)
        (work / "solution.py").write_text(code, encoding="utf-8")
        (work / "runner.py").write_text(_RUNNER, encoding="utf-8")
        settings = json.dumps({"timeout_s": limits.timeout_s, "memory_mb": limits.memory_mb,
                               "file_mb": limits.file_mb, "test": test, "entry_point": entry_point})
        env = {"PATH": "/usr/bin:/bin", "LANG": "C.UTF-8", "HOME": folder, "PYTHONHASHSEED": "0"}
        nonce = secrets.token_hex(16)
        process = subprocess.Popen([sys.executable, "-I", "-S", "-B", "runner.py", settings], cwd=folder, env=env,
                                   stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                   start_new_session=True)  # its own group: killed whole at the deadline
        try:
            out, err = process.communicate(f"{nonce}\n".encode(), timeout=limits.timeout_s)
        except subprocess.TimeoutExpired:
            _kill_group(process)
            return SandboxResult("timeout", f"stopped after {limits.timeout_s:g} s", time.perf_counter() - start)
        return _result(process.returncode, out.decode(errors="replace"), err.decode(errors="replace"),
                       nonce, time.perf_counter() - start)


def _kill_group(process: subprocess.Popen[bytes]) -> None:
    try:
        os.killpg(process.pid, signal.SIGKILL)
    except ProcessLookupError:
        pass
    process.communicate()


_EXIT_CODES = {"passed": 0, "failed": 1, "error": 2, "forbidden": 3, "memory": 4}


def _result(code: int, out: str, err: str, nonce: str, seconds: float) -> SandboxResult:
    marker = f"JUDGEAGENT-SANDBOX {nonce} "
    lines = [line[len(marker):] for line in out.splitlines() if line.startswith(marker)]
    if lines:
        status, _, detail = lines[-1].partition(" ")
        if _EXIT_CODES.get(status) == code:
            return SandboxResult(status, detail or status, seconds)  # type: ignore[arg-type]
    if code == -signal.SIGXCPU:
        return SandboxResult("timeout", "CPU time limit reached", seconds)
    if "MemoryError" in err or code == -signal.SIGSEGV:
        return SandboxResult("memory", "memory limit reached", seconds)
    tail = err.strip().splitlines()[-1] if err.strip() else f"exit code {code}"
    return SandboxResult("error", tail[:200], seconds)
