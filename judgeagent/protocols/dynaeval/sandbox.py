"""Run generated code against its unit tests under OS isolation, with a verdict the code cannot forge.

Model-written code is untrusted (docs/security.md). Two processes take part in one test run, each in its
own bubblewrap sandbox (new user, PID, network, IPC and UTS namespaces; an empty environment; read-only
binds of the Python runtime and /usr only; a size-limited tmpfs as its only writable folder; its own
/proc; killed with its parent):

- the *candidate* sandbox defines the submitted code and answers calls of its function: arguments come in,
  the return value goes out as plain data (None, bool, int, float, str, bytes, complex, and lists, tuples,
  sets and dicts of them) or the exception it raised;
- the *harness* sandbox runs the problem's test (`check(candidate)`) against a proxy that makes those calls.

The verdict is what the harness prints on its own stdout, a pipe only the harness holds: the submission
never runs in the harness's interpreter, so it cannot patch builtins, `check` or AssertionError there,
read a token, or exit it with status 0; its return values arrive as data rebuilt from plain types there,
so an object whose `__eq__` is always true cannot exist on that side. All the submission controls is the
values its own function returns, which is what is under test.

Limits are enforced from outside the code: wall time by this process (it kills both sandboxes at the
deadline, on Ctrl-C or cancellation, and whatever happens in between), address space, CPU time, file
size and open files by rlimits set before bwrap starts, the process count by a pids cgroup where one can
be made (else RLIMIT_NPROC), output by reading with a cap, disk by the tmpfs size. The evaluator's death
takes the sandboxes with it (PR_SET_PDEATHSIG on bwrap, --die-with-parent inside). Nothing is written to
the host's disk. An audit hook in the candidate still names what was refused (status `forbidden`); it is a
diagnostic, not the boundary: code that disables it meets the same walls.

Where bubblewrap is missing or does not work, `run_tests` refuses (JudgeAgentError) unless the caller
asks for `isolation="none"`: the same two processes with rlimits, no walls (the verdict still cannot be
forged, but the code can read and write what the evaluator can).
"""
from __future__ import annotations

import ctypes
import functools
import json
import os
import resource
import secrets
import selectors
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from ...errors import JudgeAgentError

Status = Literal["passed", "failed", "timeout", "memory", "forbidden", "error"]
Isolation = Literal["bubblewrap", "none"]
STATUSES = ("passed", "failed", "timeout", "memory", "forbidden", "error")
MB = 1024 * 1024

BWRAP = "bwrap"
"""The bubblewrap binary, looked up on PATH (tests point it at a missing path to see the refusal)."""
PIDS_CGROUP = Path("/sys/fs/cgroup/pids")
"""Where a per-sandbox pids cgroup is made when writable (cgroup v1, as root): RLIMIT_NPROC does not bind root."""
INSTALL = "apt-get install bubblewrap"
WORK = "/tmp/work"
"""The code's folder inside the sandbox, on its tmpfs: the audit hook names writes outside it."""
SANDBOX_UID = 65534
"""The uid and gid inside the sandbox (nobody): the code is not root even in its own user namespace."""


@dataclass(frozen=True)
class SandboxLimits:
    timeout_s: float = 10.0
    memory_mb: int = 1024
    """Address space of each process: Python itself needs ~50 MB; numpy-free test code rarely needs 200."""
    file_mb: int = 10
    """The largest file the code may write; the tmpfs it writes to holds tmpfs_mb in all."""
    tmpfs_mb: int = 16
    output_kb: int = 1024
    """Bytes of stdout and stderr the code may print; beyond it the run stops (the parent never keeps more)."""
    processes: int = 32
    """Processes and threads per sandbox, bwrap's own included."""


@dataclass(frozen=True)
class SandboxResult:
    status: Status
    detail: str
    """One line: the assertion or exception, or which limit stopped the code."""
    seconds: float

    @property
    def passed(self) -> bool:
        return self.status == "passed"


# Plain data both ways: lists and JSON scalars as JSON, the other containers tagged. The harness rebuilds
# only builtin types from it, whatever the candidate's side sends.
_CODEC = r'''
import json
def encode(v, depth=0):
    if depth > 200:
        raise ValueError("value nested too deeply")
    t = type(v)
    if v is None or t in (bool, int, float, str):
        return v
    if t is list:
        return [encode(x, depth + 1) for x in v]
    if t in (tuple, set, frozenset):
        return {t.__name__: [encode(x, depth + 1) for x in v]}
    if t is dict:
        return {"dict": [[encode(k, depth + 1), encode(x, depth + 1)] for k, x in v.items()]}
    if t is bytes:
        return {"bytes": v.hex()}
    if t is complex:
        return {"complex": [v.real, v.imag]}
    raise TypeError(f"a {t.__name__} is not plain data (None, bool, int, float, str, bytes, complex, list, "
                    "tuple, set, dict)")
def decode(v, depth=0):
    if depth > 200:
        raise ValueError("value nested too deeply")
    t = type(v)
    if v is None or t in (bool, int, float, str):
        return v
    if t is list:
        return [decode(x, depth + 1) for x in v]
    if t is dict and len(v) == 1:
        (tag, x), = v.items()
        if tag in ("tuple", "set", "frozenset") and type(x) is list:
            return {"tuple": tuple, "set": set, "frozenset": frozenset}[tag](decode(y, depth + 1) for y in x)
        if tag == "dict" and type(x) is list and all(type(p) is list and len(p) == 2 for p in x):
            return {decode(k, depth + 1): decode(y, depth + 1) for k, y in x}
        if tag == "bytes" and type(x) is str:
            return bytes.fromhex(x)
        if tag == "complex" and type(x) is list and len(x) == 2 and all(type(y) is float for y in x):
            return complex(x[0], x[1])
    raise ValueError("malformed value")
'''

# The candidate's side: defines the code, then answers one call per request line.
_CANDIDATE = _CODEC + r'''
import os, sys
task = json.loads(sys.stdin.read())
os.dup2(os.open(os.devnull, os.O_RDONLY), 0)
requests, replies = os.fdopen(int(sys.argv[1]), "r"), os.fdopen(int(sys.argv[2]), "w")
HOME = os.path.realpath(os.getcwd())
BLOCKED = ("socket.connect", "socket.bind", "socket.sendto", "socket.sendmsg", "socket.getaddrinfo",
           "subprocess.Popen", "os.system", "os.exec", "os.posix_spawn", "os.spawn", "os.fork", "os.forkpty",
           "os.kill", "os.killpg", "ctypes.dlopen", "ctypes.cdata", "os.chdir", "shutil.rmtree", "os.remove",
           "os.rmdir", "os.rename", "os.chmod", "os.symlink", "os.link", "os.truncate", "os.mkdir", "os.utime",
           "os.mkfifo", "os.mknod", "_posixsubprocess")
INSIDE_OK = ("os.remove", "os.rmdir", "os.rename", "os.mkdir", "os.chmod", "os.truncate", "shutil.rmtree")
WRITE_FLAGS = os.O_WRONLY | os.O_RDWR | os.O_APPEND | os.O_CREAT | os.O_TRUNC

class Forbidden(BaseException):
    """Not an Exception: a bare `except Exception` in the code must not swallow it."""

def inside(path):
    try:
        real = os.path.realpath(os.fsdecode(path))
    except Exception:
        return False
    return real == HOME or real.startswith(HOME + os.sep)

def hook(event, args):
    # Names what the code tried, for the report; the sandbox's walls stop it whether or not this runs.
    if event.startswith(BLOCKED):
        if event in INSIDE_OK and args and isinstance(args[0], (str, bytes, os.PathLike)) and inside(args[0]):
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

def reply(kind, value):
    replies.write(json.dumps([kind, value]) + "\n")
    replies.flush()

def failure(e):
    if isinstance(e, Forbidden):
        return ["forbidden", str(e)]
    if isinstance(e, MemoryError):
        return ["memory", "memory limit reached"]
    return ["raise", (type(e).__name__ + ": " + str(e))[:200]]

broken = None
sys.addaudithook(hook)
try:
    scope = {"__name__": "__sandbox__"}
    exec(compile(task["code"], "solution.py", "exec"), scope)
    function = scope[task["entry_point"]]
except BaseException as e:
    broken = failure(e)
for line in requests:
    if broken:
        reply(*broken)
        continue
    try:
        args, kwargs = decode(json.loads(line))
        value = encode(function(*args, **kwargs))
    except BaseException as e:
        reply(*failure(e))
    else:
        reply("ok", value)
'''

# The harness's side: the problem's own code and test, `check` called with a proxy of the candidate. Its
# stdout (the verdict) is a pipe no other process holds; what the test prints goes to stderr.
_HARNESS = _CODEC + r'''
import os, sys
verdict = os.fdopen(os.dup(1), "w")
os.dup2(2, 1)
task = json.loads(sys.stdin.read())
os.dup2(os.open(os.devnull, os.O_RDONLY), 0)
requests, replies = os.fdopen(int(sys.argv[1]), "w"), os.fdopen(int(sys.argv[2]), "r")
stopped = []

class Stop(BaseException):
    """The candidate's process hit a limit or ended: the run's status, whatever the test catches."""

class CandidateRaised(Exception):
    pass

def say(status, detail):
    verdict.write(json.dumps({"status": status, "detail": str(detail)[:200]}) + "\n")
    verdict.flush()
    os._exit(0)

def stop(status, detail):
    stopped.append((status, detail))
    raise Stop(detail)

def candidate(*args, **kwargs):
    requests.write(json.dumps([encode(list(args)), encode(kwargs)]) + "\n")
    requests.flush()
    line = replies.readline(1 << 24)
    if not line.endswith("\n"):
        stop("error", "the code's process ended" if not line else "the code's reply is too long")
    try:
        message = json.loads(line)
        kind, value = message if type(message) is list and len(message) == 2 else (None, None)
        if kind == "ok":
            return decode(value)
    except (ValueError, TypeError, RecursionError):
        kind = None
    if kind == "raise":
        raise CandidateRaised(value)
    if kind in ("forbidden", "memory", "error"):
        stop(kind, value)
    stop("error", "the code's process sent a malformed reply")

try:
    scope = {"__name__": "__check__"}
    exec(compile(task["context"], "problem.py", "exec"), scope)
    scope[task["entry_point"]] = candidate  # HumanEval/33's test calls the function by its own name too
    exec(compile(task["test"], "test.py", "exec"), scope)
    scope["check"](candidate)
except Stop:
    pass
except CandidateRaised as e:
    say("error", e)
except AssertionError as e:
    say("failed", ("assertion failed " + str(e)).strip())
except BaseException as e:
    say("error", type(e).__name__ + ": " + str(e))
if stopped:
    say(*stopped[0])
say("passed", "passed")
'''


def run_tests(code: str, test: str, entry_point: str, limits: SandboxLimits = SandboxLimits(), *,
              context: str = "", isolation: Isolation = "bubblewrap",
              cancel: threading.Event | None = None) -> SandboxResult:
    """Define `code` in one sandbox, run the test's `check(entry_point)` (HumanEval's form) in another.

    `context` is trusted code of the problem the test may use (HumanEval/32's `poly`), run on the harness's
    side. `cancel`, once set, stops the run at once (status error). Refuses (JudgeAgentError) when
    `isolation` is bubblewrap and it does not work here."""
    start = time.perf_counter()
    prefix = bwrap_prefix(limits) if isolation == "bubblewrap" else None
    if prefix is not None:
        require_bubblewrap()
    with _folder(isolation) as cwd:
        run = _Run(limits, prefix, cwd)
        try:
            status, detail = run.go({"code": code, "entry_point": entry_point},
                                    {"context": context, "test": test, "entry_point": entry_point}, cancel)
        finally:
            run.kill()
    return SandboxResult(status, detail, time.perf_counter() - start)


# --- the backend: bubblewrap, probed once ---------------------------------------------------------------

def interpreter() -> str:
    """The base interpreter (not a venv's link to it): run with -I -S, it needs only its own prefix."""
    return os.path.realpath(getattr(sys, "_base_executable", None) or sys.executable)


def bwrap_prefix(limits: SandboxLimits) -> list[str]:
    args = [shutil.which(BWRAP) or BWRAP, "--unshare-all", "--unshare-user", "--uid", str(SANDBOX_UID), "--gid", str(SANDBOX_UID),
            "--die-with-parent", "--new-session", "--clearenv", "--setenv", "PATH", "/usr/bin:/bin",
            "--setenv", "HOME", WORK, "--setenv", "TMPDIR", WORK, "--setenv", "LANG", "C.UTF-8", "--setenv", "PYTHONHASHSEED", "0",
            "--proc", "/proc", "--dev", "/dev", "--size", str(limits.tmpfs_mb * MB), "--tmpfs", "/tmp",
            "--ro-bind", "/usr", "/usr"]
    for top in ("/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32"):
        if os.path.islink(top):
            args += ["--symlink", os.readlink(top), top]
        elif os.path.isdir(top):
            args += ["--ro-bind", top, top]
    for prefix in sorted({os.path.realpath(sys.base_prefix), os.path.realpath(sys.base_exec_prefix)}):
        if not prefix.startswith("/usr/"):
            args += ["--ro-bind", prefix, prefix]
    if os.path.exists("/etc/ld.so.cache"):
        args += ["--ro-bind", "/etc/ld.so.cache", "/etc/ld.so.cache"]
    return [*args, "--dir", WORK, "--chdir", WORK, "--"]


@functools.lru_cache(maxsize=4)
def _probe(binary: str) -> tuple[str | None, str]:
    """(bubblewrap's version, "") when a sandboxed interpreter runs, else (None, why not)."""
    path = shutil.which(binary)
    if path is None:
        return None, f"bubblewrap ({binary}) is not installed"
    _remove_stale_cgroups()
    try:
        version = subprocess.run([path, "--version"], capture_output=True, text=True, timeout=10,
                                 check=False).stdout.strip()
        ran = subprocess.run([*bwrap_prefix(SandboxLimits()), interpreter(), "-I", "-S", "-c", "print('ok')"],
                             capture_output=True, text=True, timeout=20, env={}, check=False)
    except (OSError, subprocess.SubprocessError) as e:
        return None, f"bubblewrap does not run here ({e})"
    if ran.returncode != 0 or ran.stdout.strip() != "ok":
        why = (ran.stderr.strip().splitlines() or [f"exit code {ran.returncode}"])[-1]
        return None, f"bubblewrap does not work here ({why[:120]})"
    return version or "bubblewrap", ""


def bubblewrap() -> str | None:
    """bubblewrap's name and version when it works here (probed once), else None."""
    return _probe(BWRAP)[0]


def require_bubblewrap() -> str:
    version, why = _probe(BWRAP)
    if version is None:
        raise JudgeAgentError(f"the code task runs model-written code only under OS isolation and {why}: "
                              f"install it ({INSTALL}), or knowingly run without: -o sandbox=unsafe-no-isolation")
    return version


# --- one run: two processes, their pipes, the watch ------------------------------------------------------

@dataclass
class _Side:
    process: subprocess.Popen[bytes]
    cgroup: Path | None
    out: bytearray = field(default_factory=bytearray)
    err: bytearray = field(default_factory=bytearray)


class _Run:
    def __init__(self, limits: SandboxLimits, prefix: list[str] | None, cwd: str) -> None:
        self.limits, self.prefix, self.cwd = limits, prefix, cwd
        self.sides: list[_Side] = []

    def go(self, candidate_task: dict[str, str], harness_task: dict[str, str],
           cancel: threading.Event | None) -> tuple[Status, str]:
        calls_r, calls_w = os.pipe()
        answers_r, answers_w = os.pipe()
        try:
            candidate = self._start(_CANDIDATE, (calls_r, answers_w), merge_stderr=True)
            harness = self._start(_HARNESS, (calls_w, answers_r), merge_stderr=False)
        finally:
            for fd in (calls_r, calls_w, answers_r, answers_w):
                os.close(fd)  # each end now lives only in its sandbox: EOF reaches the other side when one dies
        self._feed(candidate, candidate_task)
        self._feed(harness, harness_task)
        stopped = self._watch(candidate, harness, time.monotonic() + self.limits.timeout_s, cancel)
        if stopped:
            return stopped
        return self._verdict(candidate, harness)

    def _start(self, script: str, fds: tuple[int, int], merge_stderr: bool) -> _Side:
        cgroup = _make_cgroup(self.limits.processes)
        argv = [*(self.prefix or []), interpreter(), "-I", "-S", "-B", "-c", script, *map(str, fds)]
        # bwrap itself gets no more than the code: its init in the sandbox keeps the environment it was started
        # with, readable there at /proc/1/environ (the evaluator's API keys, were it inherited).
        env = {"PATH": "/usr/bin:/bin", "LANG": "C.UTF-8", "HOME": self.cwd, "TMPDIR": self.cwd, "PYTHONHASHSEED": "0"}
        try:
            process = subprocess.Popen(argv, cwd=self.cwd, env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                       stderr=subprocess.STDOUT if merge_stderr else subprocess.PIPE, pass_fds=fds,
                                       start_new_session=True,
                                       # Safe with threads here: the function takes no lock and imports nothing.
                                       preexec_fn=_limiter(self.limits, cgroup))  # noqa: PLW1509
        except (OSError, subprocess.SubprocessError) as e:
            if cgroup is not None:
                _drop_cgroup(cgroup)
            raise JudgeAgentError(f"the sandbox could not start: {e}") from None
        side = _Side(process, cgroup)
        self.sides.append(side)
        return side

    @staticmethod
    def _feed(side: _Side, task: dict[str, str]) -> None:
        stdin = side.process.stdin
        assert stdin is not None
        try:
            stdin.write(json.dumps(task).encode())
            stdin.close()
        except BrokenPipeError:
            pass  # it died before reading: the watch sees it end, and _kill closes what is left

    def _watch(self, candidate: _Side, harness: _Side, deadline: float,
               cancel: threading.Event | None) -> tuple[Status, str] | None:
        """Reads every stream with a cap until the harness's verdict stream ends; a limit ends it sooner."""
        streams = {candidate.process.stdout: candidate.out, harness.process.stdout: harness.out,
                   harness.process.stderr: harness.err}
        cap = self.limits.output_kb * 1024
        printed = 0
        with selectors.DefaultSelector() as selector:
            for stream in streams:
                selector.register(stream, selectors.EVENT_READ)  # type: ignore[arg-type]
            while harness.process.stdout in streams:
                left = deadline - time.monotonic()
                if left <= 0:
                    return "timeout", f"stopped after {self.limits.timeout_s:g} s"
                if cancel is not None and cancel.is_set():
                    return "error", "cancelled"
                for key, _ in selector.select(min(left, 0.05 if cancel is not None else left)):
                    chunk = os.read(key.fd, 65536)
                    if not chunk:
                        selector.unregister(key.fileobj)
                        streams.pop(key.fileobj)  # type: ignore[call-overload]
                        continue
                    printed += len(chunk)
                    if printed > cap:
                        return "error", f"output limit reached ({self.limits.output_kb} KB)"
                    kept = streams[key.fileobj]  # type: ignore[index]
                    kept += chunk
                    del kept[:-8192]  # the tail is all a detail line needs
        try:
            harness.process.wait(max(deadline - time.monotonic(), 0.01))
        except subprocess.TimeoutExpired:
            return "timeout", f"stopped after {self.limits.timeout_s:g} s"
        return None

    def _verdict(self, candidate: _Side, harness: _Side) -> tuple[Status, str]:
        lines = harness.out.decode(errors="replace").strip().splitlines()
        try:
            said = json.loads(lines[-1]) if harness.process.returncode == 0 and lines else {}
        except ValueError:
            said = {}
        status, detail = said.get("status"), str(said.get("detail", ""))
        if status not in STATUSES:
            return "error", _last_line(harness.err) or f"the test harness ended with code {harness.process.returncode}"
        if status == "error" and detail == "the code's process ended":
            return _ended(candidate)
        return status, detail

    def kill(self) -> None:
        for side in self.sides:
            _kill(side)


def _ended(candidate: _Side) -> tuple[Status, str]:
    """Why the candidate's process ended mid-test: its exit status (bwrap passes on 128 + a signal)."""
    try:
        code = candidate.process.wait(2)
    except subprocess.TimeoutExpired:
        code = None
    if code in (-signal.SIGXCPU, 128 + signal.SIGXCPU):
        return "timeout", "CPU time limit reached"
    text = candidate.out.decode(errors="replace")
    if "MemoryError" in text or code in (-signal.SIGSEGV, 128 + signal.SIGSEGV):
        return "memory", "memory limit reached"
    return "error", f"the code's process ended (exit code {code})"


def _last_line(data: bytearray) -> str:
    lines = data.decode(errors="replace").strip().splitlines()
    return lines[-1][:200] if lines else ""


def _kill(side: _Side) -> None:
    """SIGKILL bwrap's group (its sandbox dies with it) and anything left in its cgroup, then reap."""
    if side.process.poll() is None:
        try:
            os.killpg(side.process.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
    for stream in (side.process.stdin, side.process.stdout, side.process.stderr):
        if stream is not None and not stream.closed:
            try:
                stream.close()
            except BrokenPipeError:
                pass
    side.process.wait()
    if side.cgroup is not None:
        _drop_cgroup(side.cgroup)


class _folder:
    """bubblewrap needs no host folder (the code's folder is a tmpfs inside); without it, a temporary one,
    named with this process's pid so that the next start removes it if this process is killed first."""

    def __init__(self, isolation: Isolation) -> None:
        self.temp = None
        if isolation == "none":
            _remove_stale_folders()
            self.temp = tempfile.TemporaryDirectory(prefix=f"judgeagent-sandbox-{os.getpid()}-")

    def __enter__(self) -> str:
        return self.temp.name if self.temp else "/"

    def __exit__(self, *exc: object) -> None:
        if self.temp:
            self.temp.cleanup()


@functools.cache
def _remove_stale_folders() -> None:
    for path in Path(tempfile.gettempdir()).glob("judgeagent-sandbox-*-*"):
        pid = path.name.split("-")[2]
        if pid.isdigit() and not Path(f"/proc/{pid}").exists():
            shutil.rmtree(path, ignore_errors=True)


# --- limits set on bwrap before it runs: inherited by everything in the sandbox --------------------------

_LIBC = ctypes.CDLL(None, use_errno=True)
_PR_SET_PDEATHSIG = 1


def _limiter(limits: SandboxLimits, cgroup: Path | None):  # type: ignore[no-untyped-def]
    parent = os.getpid()
    cpu = int(limits.timeout_s) + 1
    nproc = None if cgroup is not None or os.getuid() == 0 else _processes_of_user() + limits.processes
    procs = os.fsencode(cgroup / "cgroup.procs") if cgroup is not None else None

    def apply() -> None:
        # Killed when this thread's process dies, so the evaluator's SIGKILL takes the sandbox along.
        _LIBC.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
        if os.getppid() != parent:
            os._exit(1)
        if procs is not None:  # before RLIMIT_NOFILE: the evaluator's descriptors are not closed yet
            fd = os.open(procs, os.O_WRONLY)
            os.write(fd, b"0")
            os.close(fd)
        elif nproc is not None:
            resource.setrlimit(resource.RLIMIT_NPROC, (nproc, nproc))
        for kind, value in ((resource.RLIMIT_AS, limits.memory_mb * MB), (resource.RLIMIT_CPU, cpu),
                            (resource.RLIMIT_FSIZE, limits.file_mb * MB), (resource.RLIMIT_NOFILE, 64),
                            (resource.RLIMIT_CORE, 0)):
            resource.setrlimit(kind, (value, value))

    return apply


def _processes_of_user() -> int:
    """RLIMIT_NPROC counts the user's processes everywhere: the cap is what runs now plus the sandbox's share."""
    uid, count = os.getuid(), 0
    for entry in os.scandir("/proc"):
        try:
            count += entry.name.isdigit() and entry.stat().st_uid == uid
        except OSError:
            pass
    return count


def _own_pids_cgroup() -> Path | None:
    if not os.access(PIDS_CGROUP, os.W_OK):
        return None
    try:
        for line in Path("/proc/self/cgroup").read_text().splitlines():
            _, controllers, path = line.split(":", 2)
            if "pids" in controllers.split(","):
                return PIDS_CGROUP / path.lstrip("/")
    except OSError:
        return None
    return None


def _make_cgroup(max_pids: int) -> Path | None:
    base = _own_pids_cgroup()
    if base is None:
        return None
    path = base / f"judgeagent-sandbox-{os.getpid()}-{secrets.token_hex(4)}"
    try:
        path.mkdir()
        (path / "pids.max").write_text(str(max_pids))
    except OSError:
        _drop_cgroup(path)
        return None
    return path


def _drop_cgroup(path: Path) -> None:
    for _ in range(50):
        try:
            for pid in (path / "cgroup.procs").read_text().split():
                os.kill(int(pid), signal.SIGKILL)
            path.rmdir()
            return
        except FileNotFoundError:
            return
        except OSError:
            time.sleep(0.01)  # the killed processes take a moment to leave


def _remove_stale_cgroups() -> None:
    """Empty cgroups of evaluators that were killed (their pid is gone); a busy one refuses rmdir."""
    base = _own_pids_cgroup()
    if base is None or not base.is_dir():
        return
    for path in base.glob("judgeagent-sandbox-*"):
        pid = path.name.split("-")[2]
        if pid.isdigit() and not Path(f"/proc/{pid}").exists():
            try:
                path.rmdir()
            except OSError:
                pass
