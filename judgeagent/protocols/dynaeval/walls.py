"""The operating-system walls around model-written code: who it runs as, what the kernel lets it call, and
the cgroups that bound it (docs/security.md says why each one is there).

- **Never host root.** bubblewrap maps the sandbox's uid to the uid that starts it. When the evaluator is
  root, bwrap is started as a fresh unprivileged host uid (one per sandbox, from `HOST_UIDS`), so the code is
  nobody on the host too: host sysctls, `core_pattern`, cgroup trees and root-owned files are out of reach.
  A Python under a private home (`/root`, mode 0700), which that uid cannot reach, runs from a mirror of
  its standard library (`MIRRORS`, hard links).
- **A seccomp filter** (libseccomp builds it, bwrap loads it): the syscalls in `DENIED` fail with EPERM, and
  any other ABI than the native one (i386 or x32 on x86_64) kills the process.
- **cgroups where they can be had** (cgroup v1, as root): a pids cgroup caps processes, a memory cgroup caps
  everything the sandbox's processes and its tmpfs hold, and records, outside the code's reach, whether
  the limit was met.
"""
from __future__ import annotations

import ctypes
import ctypes.util
import errno
import functools
import hashlib
import os
import secrets
import shutil
import signal
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

DENIED = {
    # Kernel keyrings are not namespaced: the evaluator's keys (and the code's own, outliving the run).
    "keyring": ("keyctl", "add_key", "request_key"),
    # Memory that RLIMIT_AS does not count: anonymous files, SysV and POSIX IPC objects.
    "memory outside the address-space limit": ("memfd_create", "memfd_secret", "shmget", "msgget", "semget",
                                               "mq_open"),
    # Per-user kernel quotas shared with the evaluator when it is not root (same host uid).
    "per-user quotas": ("inotify_init", "inotify_init1", "fanotify_init"),
    # Large kernel interfaces test code never needs: the usual routes of kernel exploits.
    "kernel attack surface": ("perf_event_open", "bpf", "userfaultfd", "io_uring_setup", "io_uring_enter",
                              "io_uring_register", "kexec_load", "kexec_file_load", "init_module",
                              "finit_module", "delete_module", "open_by_handle_at", "name_to_handle_at"),
}
"""What the seccomp filter refuses (EPERM), by why."""

HOST_UIDS = range(0x7000_0000, 0x7000_0000 + (1 << 20))
"""Host uids a root evaluator starts bwrap as, one drawn per sandbox: no account or file owns them."""
CGROUPS = Path("/sys/fs/cgroup")
PREFIX = "judgeagent-sandbox"
MB = 1024 * 1024


# --- seccomp: a BPF program from libseccomp, made once per process -------------------------------------------

_ALLOW, _KILL_PROCESS = 0x7FFF0000, 0x80000000
_ATTR_ACT_BADARCH = 2  # enum scmp_filter_attr: SCMP_FLTATR_ACT_BADARCH


@functools.cache
def seccomp_program() -> bytes | str:
    """The filter as bwrap reads it (raw `struct sock_filter`s), or why it cannot be made here."""
    name = ctypes.util.find_library("seccomp") or "libseccomp.so.2"
    try:
        lib = ctypes.CDLL(name, use_errno=True)
    except OSError:
        return "libseccomp, which builds its seccomp filter, is not installed"
    lib.seccomp_init.restype = ctypes.c_void_p
    lib.seccomp_init.argtypes = [ctypes.c_uint32]
    lib.seccomp_syscall_resolve_name.argtypes = [ctypes.c_char_p]
    lib.seccomp_rule_add.argtypes = [ctypes.c_void_p, ctypes.c_uint32, ctypes.c_int, ctypes.c_uint]
    lib.seccomp_attr_set.argtypes = [ctypes.c_void_p, ctypes.c_int, ctypes.c_uint32]
    lib.seccomp_export_bpf.argtypes = [ctypes.c_void_p, ctypes.c_int]
    lib.seccomp_release.argtypes = [ctypes.c_void_p]
    context = lib.seccomp_init(_ALLOW)
    if not context:
        return "libseccomp could not start a filter"
    try:
        if lib.seccomp_attr_set(context, _ATTR_ACT_BADARCH, _KILL_PROCESS) != 0:
            return "libseccomp cannot kill on a foreign ABI"
        for call in (c for calls in DENIED.values() for c in calls):
            number = lib.seccomp_syscall_resolve_name(call.encode())
            if number < 0:
                continue  # not a syscall on this architecture (kexec_file_load on some): nothing to refuse
            if lib.seccomp_rule_add(context, 0x00050000 | errno.EPERM, number, 0) != 0:
                return f"libseccomp refused a rule for {call}"
        fd = os.memfd_create("judgeagent-seccomp")
        try:
            if lib.seccomp_export_bpf(context, fd) != 0:
                return "libseccomp could not export the filter"
            os.lseek(fd, 0, os.SEEK_SET)
            return os.read(fd, 1 << 20)
        finally:
            os.close(fd)
    finally:
        lib.seccomp_release(context)


def seccomp_fd() -> int:
    """A fresh descriptor holding the filter at offset 0: bwrap reads it to the end (one per sandbox, so two
    starting at once never share an offset)."""
    program = seccomp_program()
    assert isinstance(program, bytes), program
    fd = os.memfd_create("judgeagent-seccomp")
    os.write(fd, program)
    os.lseek(fd, 0, os.SEEK_SET)
    return fd


# --- who bwrap runs as --------------------------------------------------------------------------------------

def host_uid() -> int | None:
    """The unprivileged uid to start bwrap as, when the evaluator is root; None otherwise (bwrap runs as the
    evaluator's own uid, which is not root)."""
    if os.geteuid() != 0:
        return None
    return HOST_UIDS[secrets.randbelow(len(HOST_UIDS))]


MIRRORS = Path("/var/cache/judgeagent")
"""Where a root evaluator keeps hard-linked mirrors of an interpreter's prefix that an unprivileged uid cannot
walk to (a Python under /root, mode 0700): the same files, reachable by the sandbox's uid."""


def _walkable(path: str, by_others: bool) -> bool:
    """Whether the uid bwrap runs as can reach `path`: its own (os.access), or any (every folder o+x)."""
    if not by_others:
        return os.access(path, os.R_OK | os.X_OK)
    here = Path(path)
    return all(os.stat(folder).st_mode & 0o005 == 0o005 for folder in (here, *here.parents))


def prefix_source(prefix: str, interpreter: str) -> str:
    """The folder to bind at `prefix` in the sandbox: the prefix itself where bwrap's uid can reach it, else a
    mirror of what the sandboxed interpreter needs (its binary, libpython, the standard library without
    site-packages and tests), hard links where the file system allows, made once by a root evaluator."""
    if _walkable(prefix, by_others=os.geteuid() == 0):
        return prefix
    return str(_mirror(prefix, interpreter))


@functools.cache
def _mirror(prefix: str, interpreter: str) -> Path:
    from ...errors import JudgeAgentError

    if not Path(interpreter).is_relative_to(prefix):
        raise JudgeAgentError(f"the sandbox's uid cannot read this Python ({interpreter}), which is outside its own "
                              f"prefix ({prefix}): run judgeagent with a Python every user can read")
    binary = os.stat(interpreter)
    key = hashlib.sha256(f"{prefix}\0{interpreter}\0{binary.st_ino}\0{binary.st_mtime_ns}".encode()).hexdigest()[:16]
    mirror = MIRRORS / f"python-{key}"
    if mirror.is_dir():
        _owned_by_root(MIRRORS, mirror)
        return mirror
    if os.geteuid() != 0:
        raise JudgeAgentError(f"the sandbox's uid cannot read this Python ({prefix}) and there is no mirror of it: "
                              "run judgeagent with a Python every user can read, or once as root")
    MIRRORS.mkdir(mode=0o755, parents=True, exist_ok=True)
    _owned_by_root(MIRRORS)
    temp = Path(tempfile.mkdtemp(prefix=".python-", dir=MIRRORS))
    os.chmod(temp, 0o755)
    root = Path(prefix)
    library = f"python{sys.version_info[0]}.{sys.version_info[1]}"
    skip = {root / "lib" / library / name for name in ("site-packages", "test", "idlelib", "tkinter", "turtledemo")}
    wanted = [Path(interpreter), *(root / "lib").glob("libpython*.so*")]
    for folder, dirs, files in os.walk(root / "lib" / library):
        dirs[:] = [d for d in dirs if Path(folder, d) not in skip]
        wanted += [Path(folder, f) for f in files]
    for source in wanted:
        target = temp / source.relative_to(root)
        target.parent.mkdir(mode=0o755, parents=True, exist_ok=True)
        try:
            os.link(source, target, follow_symlinks=False)
        except OSError:  # another file system, or links not allowed: a copy
            shutil.copy2(source, target, follow_symlinks=False)
    try:
        temp.rename(mirror)
    except OSError:  # another evaluator made it first
        shutil.rmtree(temp, ignore_errors=True)
    return mirror


def _owned_by_root(*folders: Path) -> None:
    """The mirror runs the trusted harness too: a folder another user could have written is refused."""
    from ...errors import JudgeAgentError

    for folder in folders:
        info = folder.lstat()
        if info.st_uid != 0 or info.st_mode & 0o022 or not folder.is_dir() or folder.is_symlink():
            raise JudgeAgentError(f"{folder} is not a folder only root can write: remove it, and judgeagent makes it "
                                  "anew")


# --- cgroups (v1, where the evaluator may write them) ---------------------------------------------------------

@dataclass
class Cgroups:
    """The per-sandbox cgroups this evaluator could make: bwrap joins them before it starts. Their counters are
    the kernel's, kept outside the sandbox: what a failure is called is read from them, never from the code."""
    pids: Path | None = None
    memory: Path | None = None
    cpuacct: Path | None = None

    @property
    def folders(self) -> list[Path]:
        return [p for p in (self.pids, self.memory, self.cpuacct) if p is not None]

    def procs(self) -> list[bytes]:
        return [os.fsencode(p / "cgroup.procs") for p in self.folders]

    def memory_reached(self, limit_bytes: int) -> bool | None:
        """Whether the sandbox's memory came near `limit_bytes` (half of it at its peak) or met its cgroup's cap;
        None where there is no memory cgroup to tell."""
        if self.memory is None:
            return None
        try:
            peak = int((self.memory / "memory.max_usage_in_bytes").read_text())
            failed = int((self.memory / "memory.failcnt").read_text())
            kills = [int(line.split()[1]) for line in (self.memory / "memory.oom_control").read_text().splitlines()
                     if line.startswith("oom_kill ")]
        except (OSError, ValueError):
            return None
        return peak >= limit_bytes // 2 or failed > 0 or any(kills)

    def cpu_seconds(self) -> float | None:
        """CPU time of everything that ran in the sandbox; None where there is no cpuacct cgroup."""
        if self.cpuacct is None:
            return None
        try:
            return int((self.cpuacct / "cpuacct.usage").read_text()) / 1e9
        except (OSError, ValueError):
            return None

    def drop(self) -> None:
        for folder in self.folders:
            _drop(folder)


def _own(controller: str) -> Path | None:
    root = CGROUPS / controller
    if not os.access(root, os.W_OK):
        return None
    try:
        for line in Path("/proc/self/cgroup").read_text().splitlines():
            _, controllers, path = line.split(":", 2)
            if controller in controllers.split(","):
                return root / path.lstrip("/")
    except OSError:
        return None
    return None


def make_cgroups(processes: int, memory_bytes: int) -> Cgroups:
    made = Cgroups()
    name = f"{PREFIX}-{os.getpid()}-{secrets.token_hex(4)}"
    for controller, settings in (("pids", {"pids.max": processes}),
                                 ("memory", {"memory.limit_in_bytes": memory_bytes,
                                             "memory.memsw.limit_in_bytes": memory_bytes}),
                                 ("cpuacct", {})):
        base = _own(controller)
        if base is None:
            continue
        path = base / name
        try:
            path.mkdir()
            for file, value in settings.items():
                if (path / file).exists():  # memsw only where swap accounting is on
                    (path / file).write_text(str(value))
        except OSError:
            _drop(path)
            continue
        setattr(made, controller, path)
    return made


def _drop(path: Path) -> None:
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


def remove_stale_cgroups() -> None:
    """Empty cgroups of evaluators that were killed (their pid is gone); a busy one refuses rmdir."""
    for controller in ("pids", "memory", "cpuacct"):
        base = _own(controller)
        if base is None or not base.is_dir():
            continue
        for path in base.glob(f"{PREFIX}-*"):
            pid = path.name.split("-")[2]
            if pid.isdigit() and not Path(f"/proc/{pid}").exists():
                try:
                    path.rmdir()
                except OSError:
                    pass
