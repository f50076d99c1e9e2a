"""Run generated code against its unit tests under OS isolation, with a verdict the code cannot forge.

Model-written code is untrusted (docs/security.md). Two processes take part in one test run, each in its
own bubblewrap sandbox (new user, PID, network, IPC and UTS namespaces; no nested user namespaces; a
seccomp filter; never host root; an empty environment; read-only binds of the Python runtime and /usr
only; a read-only root and /dev and a size-limited tmpfs as its only writable folder; its own /proc;
killed with its parent; `walls.py` has the uid, the filter and the cgroups):

- the *candidate* sandbox defines the submitted code and answers requests: calls of its names, attributes
  of its objects. Values go out as data (builtins, the standard library's collections, big ints) or as
  references to objects that stay on its side;
- the *harness* sandbox runs the problem's test (`check(candidate)`) against a proxy that makes those calls.

The verdict is what the harness prints on its own stdout, a pipe only the harness holds: the submission
never runs in the harness's interpreter, so it cannot patch builtins, `check` or AssertionError there,
read a token, or exit it with status 0; its return values arrive as data rebuilt from builtin and standard
library types there, or as references that compare by identity and have no truth value, so an object whose
`__eq__` is always true cannot decide a comparison. All the submission controls is the values its own names
return, which is what is under test.

Limits are enforced from outside the code: wall time by this process (it kills both sandboxes at the
deadline, on Ctrl-C or cancellation, and whatever happens in between), address space, CPU time, file
size and open files by rlimits set before bwrap starts, processes and memory by cgroups where they can be
made (else RLIMIT_NPROC), output by reading with a cap, disk by the tmpfs size. The failure's label comes
from the same outside counts, never from what the code prints or claims. The evaluator's death takes the
sandboxes with it (PR_SET_PDEATHSIG on bwrap, --die-with-parent inside). Nothing is written to the host's
disk. An audit hook in the candidate still names what was refused (an `error` whose detail starts
"forbidden in the sandbox"); it is a diagnostic, not the boundary: code that disables it meets the same walls.

Where bubblewrap or libseccomp is missing or does not work, `run_tests` refuses (JudgeAgentError) unless the
caller asks for `isolation="none"`: the same two processes with rlimits, no walls (the verdict still cannot
be forged, but the code can read and write what the evaluator can).
"""
from __future__ import annotations

import contextlib
import ctypes
import functools
import json
import os
import resource
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
from . import walls

Status = Literal["passed", "failed", "timeout", "memory", "error"]
Isolation = Literal["bubblewrap", "none"]
STATUSES = ("passed", "failed", "timeout", "memory", "error")
"""`timeout` and `memory` only where the evaluator measured it (its clock, the sandbox's cgroups): what the code
prints or raises never names its own failure."""
MB = 1024 * 1024

BWRAP = "bwrap"
"""The bubblewrap binary, looked up on PATH (tests point it at a missing path to see the refusal)."""
INSTALL = "apt-get install bubblewrap libseccomp2"
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


# Data both ways. Plain values (None, bool, int of any size, float, str, bytes, complex, and lists, tuples, sets,
# frozensets and dicts of them) cross as themselves; the standard library's Counter, OrderedDict, defaultdict,
# deque and namedtuples cross as their builtin content and are rebuilt as that type; a subclass of a builtin
# crosses as its builtin value. Anything else the candidate's side holds crosses as a *reference* ({"ref": n}):
# the harness gets an opaque handle whose attributes and calls are answered by the candidate's side, and whose
# equality, hash and truth are its own (identity, no truth value), so no object of the submission's can decide
# a comparison in the harness. The harness rebuilds only builtin and standard-library types from what arrives.
_CODEC = r"""
import collections, json, sys
getattr(sys, "set_int_max_str_digits", lambda n: None)(0)  # a 5000-digit int is an answer too
REBUILT = {"Counter": collections.Counter, "OrderedDict": collections.OrderedDict, "deque": collections.deque}
def encode(v, depth=0):
    if depth > 200:
        raise ValueError("value nested too deeply")
    t = type(v)
    if v is None or t in (bool, int, float, str):
        return v
    if t is list:
        return [encode(x, depth + 1) for x in v]
    if isinstance(v, tuple) and hasattr(t, "_fields") and type(t._fields) is tuple:
        return {"namedtuple": [t.__name__, [str(f) for f in t._fields], [encode(x, depth + 1) for x in tuple(v)]]}
    if t.__name__ in REBUILT and isinstance(v, REBUILT[t.__name__]):
        items = v.items() if isinstance(v, dict) else v
        body = [[encode(k, depth + 1), encode(x, depth + 1)] for k, x in items] if isinstance(v, dict) else \
            [encode(x, depth + 1) for x in items]
        return {t.__name__: body}
    if isinstance(v, collections.defaultdict):
        factory = v.default_factory
        name = factory.__name__ if factory in (list, int, set, dict, str, float, tuple) else None
        return {"defaultdict": [name, [[encode(k, depth + 1), encode(x, depth + 1)] for k, x in v.items()]]}
    for base in (bool, int, float, str):
        if isinstance(v, base):
            return base(v)
    for base in (list, tuple, set, frozenset):
        if isinstance(v, base):
            body = [encode(x, depth + 1) for x in base.__iter__(v)]
            return body if base is list else {base.__name__: body}
    if isinstance(v, dict):
        return {"dict": [[encode(k, depth + 1), encode(x, depth + 1)] for k, x in dict.items(v)]}
    if isinstance(v, (bytes, bytearray)):
        return {"bytes": bytes(v).hex()}
    if isinstance(v, complex):
        return {"complex": [float(v.real), float(v.imag)]}
    return {"ref": reference(v)}
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
        if tag in ("tuple", "set", "frozenset", "deque") and type(x) is list:
            kind = {"tuple": tuple, "set": set, "frozenset": frozenset, "deque": collections.deque}[tag]
            return kind(decode(y, depth + 1) for y in x)
        if tag in ("dict", "Counter", "OrderedDict") and pairs(x):
            content = {decode(k, depth + 1): decode(y, depth + 1) for k, y in x}
            return content if tag == "dict" else REBUILT[tag](content)
        if tag == "defaultdict" and type(x) is list and len(x) == 2 and pairs(x[1]):
            factory = {"list": list, "int": int, "set": set, "dict": dict, "str": str, "float": float,
                       "tuple": tuple}.get(x[0])
            return collections.defaultdict(factory, ((decode(k, depth + 1), decode(y, depth + 1)) for k, y in x[1]))
        if tag == "namedtuple" and type(x) is list and len(x) == 3 and type(x[0]) is str and type(x[1]) is list \
                and type(x[2]) is list and len(x[1]) == len(x[2]):
            kind = collections.namedtuple(x[0], x[1], rename=True)
            return kind(*(decode(y, depth + 1) for y in x[2]))
        if tag == "bytes" and type(x) is str:
            return bytes.fromhex(x)
        if tag == "complex" and type(x) is list and len(x) == 2 and all(type(y) is float for y in x):
            return complex(x[0], x[1])
        if tag == "ref" and type(x) is int:
            return referenced(x)
    raise ValueError("malformed value")
def pairs(x):
    return type(x) is list and all(type(p) is list and len(p) == 2 for p in x)
"""

# The candidate's side: defines the code, sends the names it defined, then answers one request per line:
# a call of a name or a reference, or an attribute of a reference read or set.
_CANDIDATE = _CODEC + r"""
import os
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
objects = []

class Forbidden(BaseException):
    # Not an Exception: a bare `except Exception` in the code must not swallow it.
    pass

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

def reference(v):
    objects.append(v)
    return len(objects) - 1

def referenced(n):
    if not 0 <= n < len(objects):
        raise ValueError("no such reference")
    return objects[n]

def reply(kind, value):
    replies.write(json.dumps([kind, value]) + "\n")
    replies.flush()

def failure(e):
    # A claim, not a verdict: the evaluator labels memory only on evidence from outside (docs/security.md).
    if isinstance(e, Forbidden):
        return ["forbidden", str(e)]
    if isinstance(e, MemoryError):
        return ["memory", "MemoryError"]
    return ["raise", [type(e).__name__, (type(e).__name__ + ": " + str(e))[:200]]]

def answer(request):
    kind = request[0]
    if kind == "names":
        return sorted(k for k, v in scope.items() if not k.startswith("__") and callable(v))
    if kind == "call":
        target = scope[request[1]] if type(request[1]) is str else referenced(request[1])
        args, kwargs = decode(request[2]), decode(request[3])
        return target(*args, **kwargs)
    if kind == "get":
        return getattr(referenced(request[1]), request[2])
    if kind == "set":
        setattr(referenced(request[1]), request[2], decode(request[3]))
        return None
    raise ValueError("malformed request")

broken = None
sys.addaudithook(hook)
try:
    scope = {"__name__": "__sandbox__"}
    exec(compile(task["code"], "solution.py", "exec"), scope)
    scope[task["entry_point"]]
except BaseException as e:
    broken = failure(e)
for line in requests:
    try:
        if broken:
            reply(*broken)
            continue
        try:
            value = encode(answer(json.loads(line)))
        except BaseException as e:
            reply(*failure(e))
        else:
            reply("ok", value)
    except BaseException as e:  # the reply itself failed (a value json cannot write): say so, go on
        reply(*failure(e))
"""

# The harness's side: the problem's own code and test, `check` called with a proxy of the candidate; the names
# the solution defines (a class the test's setup builds, a helper it calls) are proxies too. Its stdout (the
# verdict) is a pipe no other process holds; what the test prints goes to stderr.
_HARNESS = _CODEC + r"""
import builtins, os
verdict = os.fdopen(os.dup(1), "w")
os.dup2(2, 1)
task = json.loads(sys.stdin.read())
os.dup2(os.open(os.devnull, os.O_RDONLY), 0)
requests, replies = os.fdopen(int(sys.argv[1]), "w"), os.fdopen(int(sys.argv[2]), "r")
stopped = []
handles = {}
raised_types = {}
# Not rebuilt by name: a StopIteration out of a call would end the test's own loop (map, next) as if done.
UNRAISABLE = ("StopIteration", "StopAsyncIteration", "GeneratorExit")

class Stop(BaseException):
    # The candidate's process hit a limit or ended: the run's status, whatever the test catches.
    pass

class CandidateRaised(Exception):
    pass

class Remote:
    # An object of the candidate's: its attributes and calls are asked for; its identity is its own.
    __slots__ = ("_ref",)
    def __getattr__(self, name):
        if name.startswith("__"):
            raise AttributeError(name)
        return ask(["get", object.__getattribute__(self, "_ref"), name])
    def __setattr__(self, name, value):
        ask(["set", object.__getattribute__(self, "_ref"), name, encode(value)])
    def __call__(self, *args, **kwargs):
        return ask(["call", object.__getattribute__(self, "_ref"), encode(list(args)), encode(kwargs)])
    def __bool__(self):
        raise TypeError("an object of the solution's has no truth value in the test")
    def __repr__(self):
        return f"<the solution's object {object.__getattribute__(self, '_ref')}>"

class Named:
    # A name the solution defines (a function, a class), called from the test or its setup.
    def __init__(self, name):
        self.name = name
    def __call__(self, *args, **kwargs):
        return ask(["call", self.name, encode(list(args)), encode(kwargs)])
    def __bool__(self):
        return True

def reference(v):
    if type(v) is Remote:
        return object.__getattribute__(v, "_ref")
    raise TypeError(f"a {type(v).__name__} cannot be sent to the solution")

def referenced(n):
    if n not in handles:
        handle = object.__new__(Remote)
        object.__setattr__(handle, "_ref", n)
        handles[n] = handle
    return handles[n]

def raised(name, text):
    # The candidate's exception, rebuilt as the builtin type of its name (a test expecting ValueError catches
    # it) and as CandidateRaised (an uncaught one is an error, not an assertion).
    if name not in raised_types:
        base = getattr(builtins, name, None)
        ok = isinstance(base, type) and issubclass(base, Exception) and name not in UNRAISABLE
        try:
            raised_types[name] = type(name, (base, CandidateRaised) if ok else (CandidateRaised,), {})
        except TypeError:
            raised_types[name] = type(name, (CandidateRaised,), {})
    return raised_types[name](text)

def say(status, detail, claim=None):
    verdict.write(json.dumps({"status": status, "detail": str(detail)[:200], "claim": claim}) + "\n")
    verdict.flush()
    os._exit(0)

def stop(status, detail, claim=None):
    stopped.append((status, detail, claim))
    raise Stop(detail)

def ask(request):
    requests.write(json.dumps(request) + "\n")
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
    if kind == "raise" and type(value) is list and len(value) == 2 and all(type(x) is str for x in value):
        raise raised(*value)
    if kind in ("forbidden", "memory") and type(value) is str:
        stop("error", value[:200], kind)  # the code's own report: the evaluator decides what it was
    stop("error", "the code's process sent a malformed reply")

def candidate(*args, **kwargs):
    return ask(["call", task["entry_point"], encode(list(args)), encode(kwargs)])

try:
    names = ask(["names"])
    scope = {"__name__": "__check__"}
    if type(names) is list:  # never a builtin's name: the solution's `sorted` must not judge the test's asserts
        scope.update((n, Named(n)) for n in names if type(n) is str and n.isidentifier() and n not in vars(builtins))
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
"""


def run_tests(code: str, test: str, entry_point: str, limits: SandboxLimits = SandboxLimits(), *,
              context: str = "", isolation: Isolation = "bubblewrap",
              cancel: threading.Event | None = None) -> SandboxResult:
    """Define `code` in one sandbox, run the test's `check(entry_point)` (HumanEval's form) in another.

    `context` is trusted code of the problem the test may use (HumanEval/32's `poly`), run on the harness's
    side. `cancel`, once set, stops the run at once (status error). Refuses (JudgeAgentError) when
    `isolation` is bubblewrap and it does not work here."""
    start = time.perf_counter()
    walled = isolation == "bubblewrap"
    if walled:
        require_bubblewrap()
    with _folder(isolation) as cwd:
        run = _Run(limits, walled, cwd)
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


def _prefixes() -> tuple[str, ...]:
    """The interpreter's prefixes that /usr does not already hold."""
    found = {os.path.realpath(sys.base_prefix), os.path.realpath(sys.base_exec_prefix)}
    return tuple(sorted(p for p in found if p != "/usr" and not p.startswith("/usr/")))


def bwrap_prefix(limits: SandboxLimits, seccomp: int) -> tuple[list[str], tuple[int, ...]]:
    """bwrap's arguments up to the command, and the descriptors they name (the seccomp program's), which the
    process must inherit."""
    args = [shutil.which(BWRAP) or BWRAP, "--unshare-all", "--unshare-user", "--disable-userns",
            "--uid", str(SANDBOX_UID), "--gid", str(SANDBOX_UID),
            "--die-with-parent", "--new-session", "--clearenv", "--setenv", "PATH", "/usr/bin:/bin",
            "--setenv", "HOME", WORK, "--setenv", "TMPDIR", WORK, "--setenv", "LANG", "C.UTF-8", "--setenv", "PYTHONHASHSEED", "0",
            "--seccomp", str(seccomp),
            "--proc", "/proc", "--dev", "/dev", "--size", str(limits.tmpfs_mb * MB), "--tmpfs", "/tmp",
            "--ro-bind", "/usr", "/usr"]
    for top in ("/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32"):
        if os.path.islink(top):
            args += ["--symlink", os.readlink(top), top]
        elif os.path.isdir(top):
            args += ["--ro-bind", top, top]
    for prefix in _prefixes():
        args += ["--ro-bind", walls.prefix_source(prefix, interpreter()), prefix]
    if os.path.exists("/etc/ld.so.cache"):
        args += ["--ro-bind", "/etc/ld.so.cache", "/etc/ld.so.cache"]
    # Read-only last: the root and /dev (with /dev/shm) are tmpfs mounts with no size of their own.
    args += ["--dir", WORK, "--remount-ro", "/dev", "--remount-ro", "/", "--chdir", WORK, "--"]
    return args, (seccomp,)


@functools.lru_cache(maxsize=4)
def _probe(binary: str) -> tuple[str | None, str]:
    """(bubblewrap's version, "") when a sandboxed interpreter runs, else (None, why not)."""
    path = shutil.which(binary)
    if path is None:
        return None, f"bubblewrap ({binary}) is not installed"
    program = walls.seccomp_program()
    if isinstance(program, str):
        return None, program
    walls.remove_stale_cgroups()
    try:
        version = subprocess.run([path, "--version"], capture_output=True, text=True, timeout=10,
                                 check=False).stdout.strip()
        limits = SandboxLimits()
        run = _Run(limits, True, "/")
        try:
            side = run._start("print('ok')", (), stderr=subprocess.PIPE)
            out, err = side.process.communicate(timeout=20)
        finally:
            run.kill()
    except (OSError, subprocess.SubprocessError, JudgeAgentError) as e:
        return None, f"bubblewrap does not run here ({e})"
    if side.process.returncode != 0 or out.decode(errors="replace").strip() != "ok":
        why = (err.decode(errors="replace").strip().splitlines() or [f"exit code {side.process.returncode}"])[-1]
        who = " as an unprivileged user (are user namespaces disabled?)" if os.geteuid() == 0 else ""
        return None, f"bubblewrap does not work here{who} ({why[:120]})"
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
    cgroups: walls.Cgroups
    out: bytearray = field(default_factory=bytearray)
    err: bytearray = field(default_factory=bytearray)


class _Run:
    def __init__(self, limits: SandboxLimits, walled: bool, cwd: str) -> None:
        self.limits, self.walled, self.cwd = limits, walled, cwd
        self.sides: list[_Side] = []

    def go(self, candidate_task: dict[str, str], harness_task: dict[str, str],
           cancel: threading.Event | None) -> tuple[Status, str]:
        calls_r, calls_w = os.pipe()
        answers_r, answers_w = os.pipe()
        try:
            candidate = self._start(_CANDIDATE, (calls_r, answers_w), stderr=subprocess.STDOUT)
            harness = self._start(_HARNESS, (calls_w, answers_r), stderr=subprocess.PIPE)
        finally:
            for fd in (calls_r, calls_w, answers_r, answers_w):
                os.close(fd)  # each end now lives only in its sandbox: EOF reaches the other side when one dies
        self._feed(candidate, candidate_task)
        self._feed(harness, harness_task)
        stopped = self._watch(candidate, harness, time.monotonic() + self.limits.timeout_s, cancel)
        if stopped:
            return stopped
        return self._verdict(candidate, harness)

    def _start(self, script: str, fds: tuple[int, ...], stderr: int) -> _Side:
        limits = self.limits
        cgroups = walls.make_cgroups(limits.processes, (limits.memory_mb + limits.tmpfs_mb) * MB) if self.walled \
            else walls.Cgroups()
        seccomp = walls.seccomp_fd() if self.walled else None
        prefix, walled_fds = bwrap_prefix(limits, seccomp) if seccomp is not None else ([], ())
        argv = [*prefix, interpreter(), "-I", "-S", "-B", "-c", script, *map(str, fds)]
        # bwrap itself gets no more than the code: its init in the sandbox keeps the environment it was started
        # with, readable there at /proc/1/environ (the evaluator's API keys, were it inherited).
        env = {"PATH": "/usr/bin:/bin", "LANG": "C.UTF-8", "HOME": self.cwd, "TMPDIR": self.cwd, "PYTHONHASHSEED": "0"}
        # Where the limiter says what failed: subprocess reports only "Exception occurred in preexec_fn". Not
        # inheritable, so bwrap's exec closes it: nothing of it reaches the sandbox.
        why_r, why_w = os.pipe()
        try:
            process = subprocess.Popen(argv, cwd=self.cwd, env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                       stderr=stderr, pass_fds=(*fds, *walled_fds), start_new_session=True,
                                       # Safe with threads here: the function takes no lock and imports nothing.
                                       preexec_fn=_limiter(limits, cgroups, walls.host_uid() if self.walled else None,
                                                           why_w))  # noqa: PLW1509
        except (OSError, subprocess.SubprocessError) as e:
            cgroups.drop()
            os.close(why_w)
            why = os.read(why_r, 1024).decode("utf-8", "replace")  # the child is gone: at most what it wrote
            raise JudgeAgentError(f"the sandbox could not start: {why or e}") from None
        finally:
            if seccomp is not None:
                os.close(seccomp)
            with contextlib.suppress(OSError):
                os.close(why_w)
            os.close(why_r)
        side = _Side(process, cgroups)
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
        said = said if isinstance(said, dict) else {}
        status, detail, claim = said.get("status"), str(said.get("detail", "")), said.get("claim")
        if status not in STATUSES:
            return "error", _last_line(harness.err) or f"the test harness ended with code {harness.process.returncode}"
        if status == "error" and (claim == "memory" or detail == "the code's process ended"):
            return self._why_ended(candidate, detail)
        if claim == "forbidden":
            return "error", detail  # the audit hook's words: a diagnostic, the walls are what held
        return status, detail

    def _why_ended(self, candidate: _Side, detail: str) -> tuple[Status, str]:
        """What stopped the candidate, from what the kernel counted outside it (its exit status, the CPU time and
        memory its cgroups recorded), never from what it printed or claimed. Without cgroups (not root) there is
        nothing to confirm a claim with: it stays an error, in the code's own words."""
        claimed = detail != "the code's process ended"
        # A claimant lives on until its request pipe closes, which the harness's exit did: it ends by itself.
        try:
            code: int | None = candidate.process.wait(2)
        except subprocess.TimeoutExpired:
            code = None
        cpu, cpu_limit = candidate.cgroups.cpu_seconds(), int(self.limits.timeout_s) + 1
        if code in _CPU_KILLED and cpu is not None and cpu >= cpu_limit - 0.1:
            return "timeout", "CPU time limit reached"
        if candidate.cgroups.memory_reached(self.limits.memory_mb * MB):
            return "memory", "memory limit reached"
        if claimed:
            return "error", "MemoryError raised (not confirmed by a memory cgroup)"
        if code in _CPU_KILLED:
            return "error", f"the code's process ended by signal {code - 128 if code > 0 else -code} " \
                            "(no CPU limit reached by the kernel's count)" if cpu is not None else \
                            "the code's process ended by SIGXCPU or SIGKILL (not confirmed by a cpuacct cgroup)"
        return "error", f"the code's process ended (exit code {code})"

    def kill(self) -> None:
        for side in self.sides:
            _kill(side)


_CPU_KILLED = (-signal.SIGXCPU, 128 + signal.SIGXCPU, -signal.SIGKILL, 128 + signal.SIGKILL)
"""Exit statuses of RLIMIT_CPU (bwrap passes a signal on as 128 + its number)."""


def _last_line(data: bytearray) -> str:
    lines = data.decode(errors="replace").strip().splitlines()
    return lines[-1][:200] if lines else ""


def _kill(side: _Side) -> None:
    """SIGKILL bwrap's group (its sandbox dies with it) and anything left in its cgroups, then reap."""
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
    side.cgroups.drop()


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


def _limiter(limits: SandboxLimits, cgroups: walls.Cgroups, uid: int | None, why: int):  # type: ignore[no-untyped-def]
    """What the sandbox's first process does before bwrap runs; a step that fails writes what it was and the
    system's reason to the descriptor `why` (`_start` reads it: the sandbox does not start)."""
    parent = os.getpid()
    cpu = int(limits.timeout_s) + 1
    # RLIMIT_NPROC counts the host uid's processes everywhere: a fresh uid has none, the evaluator's own has some.
    nproc = None if cgroups.pids is not None else limits.processes + (0 if uid is not None else _processes_of_user())
    procs = cgroups.procs()

    def apply() -> None:
        try:
            for path in procs:  # as the evaluator, before the uid changes and before RLIMIT_NOFILE
                step = f"joining its cgroup {os.fsdecode(path)}"
                fd = os.open(path, os.O_WRONLY)
                os.write(fd, b"0")
                os.close(fd)
            step = "setting its resource limits"
            for kind, value in ((resource.RLIMIT_AS, limits.memory_mb * MB), (resource.RLIMIT_CPU, cpu),
                                (resource.RLIMIT_FSIZE, limits.file_mb * MB), (resource.RLIMIT_NOFILE, 64),
                                (resource.RLIMIT_CORE, 0), (resource.RLIMIT_MSGQUEUE, 0)):
                resource.setrlimit(kind, (value, value))
            if nproc is not None and (uid is not None or os.geteuid() != 0):
                resource.setrlimit(resource.RLIMIT_NPROC, (nproc, nproc))
            if uid is not None:  # a root evaluator: bwrap, and so the code, is an unprivileged host uid
                step = f"taking the unprivileged uid {uid}"
                os.setgroups([])
                os.setresgid(uid, uid, uid)
                os.setresuid(uid, uid, uid)
        except OSError as e:
            os.write(why, f"{step}: {e.strerror or e}".encode("utf-8", "replace"))
            raise
        # Killed when this thread's process dies, so the evaluator's SIGKILL takes the sandbox along; set after the
        # uid change, which clears it.
        _LIBC.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
        if os.getppid() != parent:
            os._exit(1)

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
