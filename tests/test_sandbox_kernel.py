"""Attacks on kernel state that mount and network namespaces do not cover (issue 42), each observed from
outside the sandbox: the host's sysctls, its keyrings (/proc/keys), its cgroup trees, its shared memory
(Shmem in /proc/meminfo), the host uid of every sandboxed process, the evaluator's own per-user quotas, and
the processes left in other pid namespaces. Each runs with judgeagent as root (as CI does) and as an
unprivileged user the test creates; run by an ordinary user, the suite runs each as that user (its "root" half
skipped). Every attack first switches off the candidate's audit hook, so the OS walls are what is tested."""
import ast
import contextlib
import ctypes
import errno
import json
import os
import pwd
import shutil
import subprocess
import sys
import tempfile
import textwrap
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from judgeagent.protocols.dynaeval import sandbox, walls
from judgeagent.protocols.dynaeval.sandbox import SandboxLimits, run_tests

LIMITS = SandboxLimits(timeout_s=4, memory_mb=128, tmpfs_mb=16, output_kb=64, processes=16)
USER = "judgeagent-sandbox-test"
LIBC = ctypes.CDLL(None, use_errno=True)
LIBC.syscall.restype = ctypes.c_long
NR = {"add_key": 248, "keyctl": 250}  # x86_64; the suite is skipped elsewhere (see `host`)

# Switches the audit hook off (its code replaced), then runs the attack; the function reports what it got.
PRELUDE = '''import __main__
__main__.hook.__code__ = (lambda event, args: None).__code__
import ctypes, os, time
libc = ctypes.CDLL(None, use_errno=True)
libc.syscall.restype = ctypes.c_long
def err():
    return os.strerror(ctypes.get_errno())
def attack():
{body}
try:
    REPORT = attack()
except BaseException as e:
    REPORT = "raised " + repr(e)
def f():
    raise ValueError("REPORT " + str(REPORT))
'''
TEST = "def check(candidate):\n    candidate()\n"


def submission(body: str) -> str:
    return PRELUDE.format(body=textwrap.indent(textwrap.dedent(body), "    "))


ROOT = os.geteuid() == 0


@pytest.fixture(scope="module")
def host():
    """The uid judgeagent runs as in the suite's "user" half: a user made for it when the suite runs as root,
    otherwise the one running it."""
    if os.uname().machine != "x86_64":
        pytest.skip("the syscall numbers here are x86_64's")
    sandbox.require_bubblewrap()  # probes as root: the interpreter's mirror exists before the user runs
    if not ROOT:
        return os.getuid()
    try:
        uid = pwd.getpwnam(USER).pw_uid
    except KeyError:
        subprocess.run(["useradd", "--system", "--no-create-home", "--shell", "/usr/sbin/nologin", USER], check=True)
        uid = pwd.getpwnam(USER).pw_uid
    return uid


@pytest.fixture(params=["root", "user"])
def who(request, host):
    if request.param == "root" and not ROOT:
        pytest.skip("judgeagent as root needs the suite run as root (CI does)")
    return request.param


def host_gid(uid: int) -> int:
    """The gid the suite's "user" half runs with: the made user's own (`as_user` sets it), or the running user's."""
    return uid if ROOT else os.getgid()


def as_user(uid: int, work):  # type: ignore[no-untyped-def]
    """work() in a child of this process that became `uid` first (everything it needs is loaded): its JSON."""
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: an ordinary user from here on, with no way back
        try:
            os.close(read)
            if os.geteuid() != uid:
                os.setgroups([])
                os.setresgid(uid, uid, uid)
                os.setresuid(uid, uid, uid)
            os.write(write, json.dumps(work()).encode())
        finally:
            os._exit(0)
    os.close(write)
    with os.fdopen(read) as pipe:
        text = pipe.read()
    os.waitpid(pid, 0)
    assert text, "the user's process died"
    return json.loads(text)


def run_as(who: str, uid: int, code: str, limits: SandboxLimits = LIMITS, setup=lambda: None) -> sandbox.SandboxResult:
    """run_tests with judgeagent as root (this process) or as the test's user; `setup` runs first, as that user."""
    def work():  # type: ignore[no-untyped-def]
        setup()
        result = run_tests(code, TEST, "f", limits)
        return [result.status, result.detail, result.seconds]
    return sandbox.SandboxResult(*(work() if who == "root" else as_user(uid, work)))


def listed(result) -> list:  # type: ignore[type-arg]
    return ast.literal_eval(report(result))


class Watch:
    """Samples the host while an attack runs: Shmem, and the host uids, gids and supplementary groups of every
    process in another pid namespace under this one (its sandboxes', not those of other tests running alongside)."""

    def __init__(self) -> None:
        self.shmem_kb: list[int] = []
        self.uids: set[int] = set()
        self.gids: set[int] = set()
        self.groups: set[int] = set()
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self._loop, daemon=True)

    def __enter__(self) -> "Watch":
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop.set()
        self.thread.join()

    def _loop(self) -> None:
        while not self.stop.is_set():
            self.shmem_kb.append(shmem_kb())
            for pid in sandbox_pids():
                try:
                    status = Path(f"/proc/{pid}/status").read_text()
                    for found, field in ((self.uids, "Uid"), (self.gids, "Gid"), (self.groups, "Groups")):
                        found.update(int(x) for x in status.split(f"\n{field}:")[1].split("\n")[0].split())
                except (OSError, IndexError):
                    pass
            time.sleep(0.02)


def shmem_kb() -> int:
    line = next(x for x in Path("/proc/meminfo").read_text().splitlines() if x.startswith("Shmem:"))
    return int(line.split()[1])


OWN_PIDNS = os.readlink("/proc/self/ns/pid")


def foreign_pids() -> set[int]:
    """Live processes in another pid namespace than this one's: the sandboxes' (found by namespace, so exec'd or
    renamed children count too)."""
    found = set()
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            if os.readlink(entry / "ns" / "pid") != OWN_PIDNS and \
                    (entry / "stat").read_text().rsplit(")", 1)[1].split()[0] != "Z":
                found.add(int(entry.name))
        except OSError:
            pass
    return found


PR_SET_CHILD_SUBREAPER = 36


def sandbox_pids() -> set[int]:
    """This process's live sandboxed processes: those in another pid namespace than its own, under it. Inside
    `subreaper()` a process a sandbox leaves behind is re-parented to this one, not to the machine's init, and still
    counted; another worker's or checkout's sandboxes on the machine are not (they made two test runs at once fail
    each other's checks)."""
    reap_orphans()
    return foreign_pids() & descendants(os.getpid())


@contextlib.contextmanager
def subreaper() -> Iterator[None]:
    """This process a child subreaper while a sandbox test runs, and no longer after: a detached process another
    test starts later (the local model server) is then init's again, as in any run."""
    if LIBC.prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) != 0:
        raise OSError(ctypes.get_errno(), "prctl(PR_SET_CHILD_SUBREAPER)")
    try:
        yield
    finally:
        LIBC.prctl(PR_SET_CHILD_SUBREAPER, 0, 0, 0, 0)
        reap_orphans()


def reap_orphans() -> None:
    """Reaps the ended sandboxed processes re-parented to this subreaper (init would have): only those of another
    pid namespace, so that no exit status a `subprocess.Popen` of this process waits for is taken from it."""
    me = os.getpid()
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            status = (entry / "status").read_text()
        except OSError:
            continue
        fields = dict(line.split(":", 1) for line in status.splitlines() if ":" in line)
        if fields.get("State", "").split()[:1] == ["Z"] and int(fields.get("PPid", 0)) == me \
                and len(fields.get("NSpid", "").split()) > 1:
            try:
                os.waitpid(int(entry.name), os.WNOHANG)
            except ChildProcessError:
                pass


def descendants(root: int) -> set[int]:
    """The processes under `root` (its children, theirs, ...): while a run lasts, each of its sandboxed processes
    is, under bwrap; another test's or evaluator's sandboxes on the machine (pytest -n, another checkout) are not."""
    children: dict[int, list[int]] = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            parent = int(next(x for x in (entry / "status").read_text().splitlines() if x.startswith("PPid:")).split()[1])
        except (OSError, ValueError, StopIteration):
            continue
        children.setdefault(parent, []).append(int(entry.name))
    found: set[int] = set()
    todo = [root]
    while todo:
        for child in children.get(todo.pop(), []):
            if child not in found:
                found.add(child)
                todo.append(child)
    return found


@pytest.fixture
def nothing_left():
    with subreaper():
        before = sandbox_pids()
        yield
        deadline = time.monotonic() + 3
        while sandbox_pids() - before and time.monotonic() < deadline:
            time.sleep(0.05)
        assert not sandbox_pids() - before, "a sandboxed process outlived its run"


def report(result) -> str:
    assert not result.passed and result.status == "error", result
    assert result.detail.startswith("ValueError: REPORT "), result
    return result.detail.removeprefix("ValueError: REPORT ")


# --- the code is never host root, and reaches no host-wide kernel state ---------------------------------------

def test_the_code_runs_as_an_unprivileged_host_uid(who, host, nothing_left):
    """Seen from the host (/proc/PID/status of every process in the sandbox's pid namespace): an unprivileged
    uid and gid, the user's own when judgeagent runs as that user, and no supplementary group (root's would let
    the code write what group root may). (The code's own uid_map is relative to the nested namespace bwrap makes
    for --disable-userns, so the host view is the one that counts.)"""
    code = submission("""
        time.sleep(0.5)
        return open('/proc/self/uid_map').read().split()[:1] + [os.getuid()]""")
    groups = os.getgroups()
    if ROOT:
        os.setgroups([0, 4])  # root's supplementary groups in many images (root, adm): none may reach the code
    try:
        with Watch() as watch:
            inside = listed(run_as(who, host, code))
    finally:
        if ROOT:
            os.setgroups(groups)
    assert inside == ["65534", 65534]
    assert watch.uids, "no sandboxed process was seen"
    assert 0 not in watch.uids
    assert watch.uids == {host} if who == "user" else watch.uids <= set(walls.HOST_UIDS), watch.uids
    assert watch.gids == {host_gid(host)} if who == "user" else watch.gids <= set(walls.HOST_UIDS), watch.gids
    # An ordinary user cannot drop its own groups (nor can the sandbox, in a user namespace it makes): the code
    # keeps at most those; none of root's reaches it.
    assert not watch.groups if ROOT else watch.groups <= set(groups) - {0}, watch.groups


SYSCTL = Path("/proc/sys/vm/vfs_cache_pressure")


def test_host_sysctls_and_core_pattern_stay_unwritable(who, host, nothing_left):
    before = SYSCTL.read_text()
    code = submission(f"""
        out = []
        for path, value in (('{SYSCTL}', '{int(before) + 7}'), ('/proc/sys/kernel/core_pattern', '|/tmp/x')):
            try:
                open(path, 'w').write(value)
                out.append('wrote ' + path)
            except OSError as e:
                out.append(e.strerror)
        return out""")
    try:
        got = report(run_as(who, host, code))
        assert "wrote" not in got, got
        assert SYSCTL.read_text() == before
    finally:
        if SYSCTL.read_text() != before:
            SYSCTL.write_text(before)


def add_canary_key(name: str, secret: str) -> None:
    key = LIBC.syscall(NR["add_key"], b"user", name.encode(), secret.encode(), len(secret), ctypes.c_int(-4))
    if key < 0:  # KEY_SPEC_USER_KEYRING refused to the evaluator itself (some container profiles)
        raise OSError(ctypes.get_errno(), os.strerror(ctypes.get_errno()))


STEAL_KEYS = submission("""
    out = []
    # Plant a key that would outlive the run; then link and read every key /proc/keys shows (keyrings are
    # not namespaced: the evaluator's are listed here too).
    out.append(libc.syscall(248, b'user', b'planted', b'x', 1, ctypes.c_int(-4)) >= 0 or err())
    buffer = ctypes.create_string_buffer(256)
    keys = [(int(line.split()[0], 16), 'canary' in line) for line in open('/proc/keys')]
    read = set()
    # First as a possessor through the user-session keyring; then each linked into a session keyring of its own
    # (which ends that first route, so it comes second).
    for link in (False, True):
        for serial, canary in keys:
            if link:
                libc.syscall(250, 8, serial, ctypes.c_int(-3))  # KEYCTL_LINK
            n = libc.syscall(250, 11, serial, buffer, 256)  # KEYCTL_READ
            if n > 0 and canary and serial not in read:
                read.add(serial)
                out.append(buffer.raw[:n].decode(errors='replace')[:40])
    out.append(err())
    return out""")


def test_the_evaluators_keyring_is_out_of_reach(who, host, nothing_left):
    secret = "canary-" + os.urandom(6).hex()
    try:
        if who == "root":
            add_canary_key("judgeagent-canary", secret)
    except OSError as e:
        pytest.skip(f"this host refuses keyrings to the evaluator too ({e})")
    before = keys_listed()
    try:
        got = report(run_as(who, host, STEAL_KEYS, setup=lambda: add_canary_key("judgeagent-canary", secret)
                            if who == "user" else None))
    finally:
        remove_keys("judgeagent-canary")
    assert secret not in got and "Operation not permitted" in got, got
    new = keys_listed() - before
    assert all(description.startswith("judgeagent-canary") for _, description in new), new  # nothing planted


def cgroup_tree() -> set[str]:
    return {str(p) for p in Path("/sys/fs/cgroup").rglob("*") if p.is_dir() and not p.name.startswith(walls.PREFIX)}


def test_no_nested_namespace_and_no_cgroup_change(who, host, nothing_left):
    before = cgroup_tree()
    code = submission("""
        out = []
        for flags in (0x10000000, 0x10000000 | 0x00020000):  # CLONE_NEWUSER, with CLONE_NEWNS
            out.append(libc.unshare(flags) == 0 or err())
        os.makedirs('/tmp/work/cg', exist_ok=True)
        out.append(libc.mount(b'cgroup', b'/tmp/work/cg', b'cgroup', 0, b'pids') == 0 or err())
        out.append(os.path.exists('/sys/fs/cgroup'))
        return out""")
    got = report(run_as(who, host, code))
    assert "True" not in got, got
    assert cgroup_tree() == before


def test_shared_memory_anonymous_files_and_tmpfs_stay_bounded(who, host, nothing_left):
    """200 MB tried through every route that RLIMIT_AS does not count; Shmem on the host may not grow by more
    than the work folder's tmpfs and some slack."""
    base = shmem_kb()
    code = submission("""
        out, block = [], b'x' * (8 << 20)  # under RLIMIT_FSIZE: files of 8 MB until the place is full
        for folder in ('/dev/shm', '', '/tmp/work'):
            written = 0
            try:
                for i in range(25):
                    with open(f'{folder}/fill{i}', 'wb') as f:
                        f.write(block)
                    written += 1
            except OSError:
                pass
            out.append(written)
        try:
            fd = os.memfd_create('fill')
            for _ in range(25):
                os.write(fd, block)
            out.append('memfd')
        except OSError as e:
            out.append(e.strerror)
        shm = libc.syscall(29, 0, 200 << 20, 0o1600)  # shmget(IPC_PRIVATE, 200 MB, IPC_CREAT | 0600)
        out.append('shm' if shm >= 0 else err())
        time.sleep(1)
        return out""")
    with Watch() as watch:
        got = listed(run_as(who, host, code))
    grew_mb = (max(watch.shmem_kb) - base) / 1024
    assert grew_mb < LIMITS.tmpfs_mb + 48, (grew_mb, got)
    assert got[:2] == [0, 0] and got[2] <= LIMITS.tmpfs_mb // 8, got  # /dev/shm and / read-only, /tmp sized
    assert not {"memfd", "shm"} & set(got), got


def test_memory_process_descriptor_and_file_size_caps_hold(who, host, nothing_left):
    """A gigabyte in 10 MB blocks, forty children, two hundred descriptors, a 14 MB file, a core dump, each tried
    to the end: RLIMIT_AS, the pids cgroup (as root) or RLIMIT_NPROC (as a user), RLIMIT_NOFILE and RLIMIT_FSIZE
    stop each below its cap (the tmpfs, 16 MB, is not yet full when the file is stopped at 10 MB), and RLIMIT_CORE
    (hard 0) leaves no core file where core_pattern names one (a relative path: the crashing process's folder)."""
    code = submission("""
        blocks, kids, fds, written = [], [], [], 0
        try:
            while len(blocks) < 100:
                blocks.append(bytearray(10 ** 7))
        except MemoryError:
            pass
        held = len(blocks)
        del blocks[:]
        for _ in range(40):
            try:
                pid = os.fork()
            except OSError:
                break
            if pid == 0:
                time.sleep(5)
                os._exit(0)
            kids.append(pid)
        for pid in kids:
            os.kill(pid, 9)
            os.waitpid(pid, 0)
        try:
            while len(fds) < 200:
                fds.append(os.open('/dev/null', os.O_RDONLY))
        except OSError:
            pass
        for fd in fds:
            os.close(fd)
        with open('/tmp/work/big', 'wb', buffering=0) as f:
            try:
                while written < 14:
                    f.write(b'x' * (1 << 20))
                    written += 1
            except OSError:
                pass
        os.remove('/tmp/work/big')
        pid = os.fork()
        if pid == 0:  # a crash with the core limit as high as it may go
            import resource
            resource.setrlimit(resource.RLIMIT_CORE, (resource.getrlimit(resource.RLIMIT_CORE)[1],) * 2)
            os.kill(os.getpid(), 11)
        os.waitpid(pid, 0)
        cores = [name for name in os.listdir('/tmp/work') if name.startswith('core')]
        return [held, len(kids), len(fds), written, cores]""")
    blocks, children, descriptors, megabytes, cores = got = listed(run_as(who, host, code))
    assert 0 < blocks * 10 < LIMITS.memory_mb and 0 < children < LIMITS.processes and 0 < descriptors < 64, got
    assert megabytes == LIMITS.file_mb and cores == [], got


def test_a_killed_evaluators_cgroups_go_and_a_live_ones_stay(host):
    """A cgroup named for an evaluator whose pid is gone (pid_max is never a pid) is removed at the next start;
    one named for a live evaluator (this one) stays. The name is written out here, not read from walls.PREFIX."""
    if not ROOT:
        pytest.skip("the sandbox makes cgroups only as root")
    pid_max = Path("/proc/sys/kernel/pid_max").read_text().strip()
    made = {}
    for line in Path("/proc/self/cgroup").read_text().splitlines():
        _, controllers, path = line.split(":", 2)
        for controller in {"pids", "memory", "cpuacct"} & set(controllers.split(",")):
            own = Path("/sys/fs/cgroup", controller, path.lstrip("/"))
            made[own / f"judgeagent-sandbox-{pid_max}-0"] = False
            made[own / f"judgeagent-sandbox-{os.getpid()}-0"] = True
    if not made:
        pytest.skip("no cgroup v1 hierarchy of pids, memory or cpuacct here")
    try:
        for folder in made:
            folder.mkdir()
        walls.remove_stale_cgroups()
        assert {folder: folder.is_dir() for folder in made} == made
    finally:
        for folder in made:
            if folder.is_dir():
                folder.rmdir()


def test_a_root_evaluator_mirrors_a_private_python_without_its_packages_or_tests(host, monkeypatch):
    """A Python only root can walk to (pyenv's, under /root) runs in the sandbox from a mirror, made with the
    folders above it where they are missing, and made again in the folder that is left when the mirror is gone
    (as a second Python's first run finds it): the interpreter and its standard library, not site-packages (the
    evaluator's packages) nor the test suite."""
    if not ROOT:
        pytest.skip("a root evaluator's case")
    prefix = os.path.realpath(sys.base_prefix)
    if all(os.stat(folder).st_mode & 0o005 == 0o005 for folder in (prefix, *Path(prefix).parents)):
        pytest.skip("every user can read this Python: there is no mirror to make")
    cache = Path(tempfile.mkdtemp(dir="/var/tmp"))
    cache.chmod(0o755)
    mirrors = cache / "var" / "judgeagent"
    monkeypatch.setattr(walls, "MIRRORS", mirrors)
    try:
        for _ in range(2):
            walls._mirror.cache_clear()
            assert run_tests("def f():\n    return 1\n", "def check(f):\n    assert f() == 1\n", "f", LIMITS).passed
            mirror = next(mirrors.iterdir())
            library = mirror / "lib" / f"python{sys.version_info[0]}.{sys.version_info[1]}"
            assert (library / "json" / "__init__.py").is_file()
            assert not (library / "site-packages").exists() and not (library / "test").exists()
            shutil.rmtree(mirror)
    finally:
        walls._mirror.cache_clear()
        shutil.rmtree(cache)


def inotify_works() -> bool:
    fd = LIBC.inotify_init1(0)
    if fd >= 0:
        os.close(fd)
    return fd >= 0


def test_the_evaluators_inotify_quota_is_untouched(who, host, nothing_left):
    code = submission("""
        held = []
        while len(held) < 2000:
            fd = libc.inotify_init1(0)
            if fd < 0:
                break
            held.append(fd)
        time.sleep(1.5)
        return [len(held), err()]""")
    outcome = {}
    thread = threading.Thread(target=lambda: outcome.update(result=run_as(who, host, code)))
    thread.start()
    time.sleep(0.8)  # the attack holds what it got: the evaluator's user asks for one now
    works = inotify_works() if who == "root" else as_user(host, inotify_works)
    thread.join()
    assert works
    assert listed(outcome["result"])[0] == 0


# Each syscall the filter refuses, with arguments that give anything but EPERM without it (success, EFAULT, EBADF,
# ENOENT, or ENOSYS where the kernel lacks it): x86_64's numbers, written out here rather than read from DENIED.
REFUSED = {
    "keyctl": "250, 0, ctypes.c_int(-3), 0", "add_key": "248, b'user', b'judgeagent', b'x', 1, ctypes.c_int(-3)",
    "request_key": "249, b'user', b'judgeagent-none', None, 0", "memfd_create": "319, b'x', 0",
    "memfd_secret": "447, 0", "shmget": "29, 0, 4096, 0o1600", "msgget": "68, 0, 0o1600", "semget": "64, 0, 1, 0o1600",
    "mq_open": "240, b'judgeagent-none', 0, 0, None", "inotify_init": "253", "inotify_init1": "294, 0",
    "fanotify_init": "300, 0x200, 0", "perf_event_open": "298, None, 0, -1, -1, 0", "bpf": "321, 0xffff, None, 0",
    "userfaultfd": "323, 1", "io_uring_setup": "425, 1, None", "io_uring_enter": "426, -1, 0, 0, 0, None, 0",
    "io_uring_register": "427, -1, 0, None, 0", "kexec_load": "246, 0, 0, None, 0xdead0000",
    "kexec_file_load": "320, -1, -1, 0, None, 0xdead0000", "init_module": "175, None, 0, None",
    "finit_module": "313, -1, b'', 0xdead", "delete_module": "176, b'judgeagent-none', 0o4000",
    "open_by_handle_at": "304, -1, None, 0", "name_to_handle_at": "303, -100, b'/', None, None, 0",
}


def test_every_refused_syscall_fails_with_eperm(who, host, nothing_left):
    """Each syscall of the filter's list, tried from the sandbox: every one EPERM (without the filter, the same
    calls make keys, IPC objects, anonymous files, inotify and userfaultfd descriptors, or fail otherwise)."""
    # A success is the word, not `True`: True == errno.EPERM (1), so a call that got through passed for refused.
    calls = "".join(f"out.append('succeeded' if libc.syscall({args}) >= 0 else ctypes.get_errno())\n"
                    for args in REFUSED.values())
    got = dict(zip(REFUSED, listed(run_as(who, host, submission("out = []\n" + calls + "return out")))))
    assert got == dict.fromkeys(REFUSED, errno.EPERM), {k: v for k, v in got.items() if v != errno.EPERM}


def test_a_foreign_abi_kills_the_code(who, host, nothing_left):
    """x32's getpid (0x40000000 | 39): killed by the filter, so the harness sees the code's process end."""
    code = "import __main__\n__main__.hook.__code__ = (lambda event, args: None).__code__\nimport ctypes\n" \
           "def f():\n    ctypes.CDLL(None).syscall(0x40000000 | 39)\n    return 'alive'\n"
    result = run_as(who, host, code)
    assert result.status == "error" and "ended" in result.detail, result


# --- the code cannot choose its own failure label -----------------------------------------------------------

UNHOOK = "import __main__\n__main__.hook.__code__ = (lambda event, args: None).__code__\n"
LABELS = {
    "prints MemoryError and exits": "import sys\ndef f():\n    print('MemoryError')\n    sys.stdout.flush()\n"
                                    "    import os\n    os._exit(1)\n",
    "raises MemoryError": "def f():\n    raise MemoryError\n",
    "kills itself with SIGXCPU": f"{UNHOOK}import os, signal\ndef f():\n    os.kill(os.getpid(), signal.SIGXCPU)\n",
    "kills itself with SIGSEGV": f"{UNHOOK}import os, signal\ndef f():\n    os.kill(os.getpid(), signal.SIGSEGV)\n",
    "replies forbidden": "import __main__\ndef f():\n    raise __main__.Forbidden('forbidden in the sandbox: nothing')\n",
}


@pytest.mark.parametrize("name", LABELS)
def test_a_wrong_answer_cannot_name_its_own_failure(who, host, nothing_left, name):
    result = run_as(who, host, LABELS[name])
    assert result.status == "error", result


def test_a_real_memory_hog_keeps_its_label_where_a_cgroup_counts_it(host, nothing_left):
    """As root the memory cgroup confirms the hog's MemoryError; an ordinary user's sandbox has no cgroup, so the
    same hog is an error, as any code that raises MemoryError is (docs/security.md)."""
    hog = "def f():\n    x = []\n    while True:\n        x.append(bytearray(10 ** 7))\n"
    result = run_as("root" if ROOT else "user", host, hog)
    assert (result.status, result.detail) == ("memory", "memory limit reached") if ROOT else \
        ("error", "MemoryError raised (not confirmed by a memory cgroup)"), result


def test_the_walls_bite_without_them(host):
    """The suite can fail: without isolation the same submission reads the evaluator's key and plants its own."""
    secret = "canary-" + os.urandom(6).hex()
    try:
        add_canary_key("judgeagent-canary-bite", secret)
    except OSError as e:
        pytest.skip(f"this host refuses keyrings to the evaluator too ({e})")
    try:
        result = run_tests(STEAL_KEYS, TEST, "f", LIMITS, isolation="none")
    finally:
        remove_keys("planted", "judgeagent-canary-bite")
    assert secret in result.detail, result


def keys_listed() -> set[tuple[str, str]]:
    """(serial, description) of every key /proc/keys shows this process (not the link counts, which change)."""
    return {(line.split()[0], line.split()[8].rstrip(":")) for line in Path("/proc/keys").read_text().splitlines()}


def remove_keys(*names: str) -> None:
    """This process's user keyring without the keys of these descriptions (what the tests put or let be put)."""
    for line in Path("/proc/keys").read_text().splitlines():
        if line.split()[-2].rstrip(":") in names:
            LIBC.syscall(NR["keyctl"], 9, int(line.split()[0], 16), ctypes.c_int(-4))  # KEYCTL_UNLINK


def orphan_in_a_pid_namespace() -> tuple[int, int]:
    """(the process a shell started in a new pid namespace and left, its host pid), as a bwrap killed or lost
    leaves a sandbox's: `unshare` is orphaned at once and re-parented to the nearest subreaper."""
    shell = subprocess.run(["sh", "-c", "unshare --user --pid --fork sleep 60 >/dev/null 2>&1 & echo $!"],
                           capture_output=True, text=True, check=True)
    unshare = int(shell.stdout)
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline:
        children = Path(f"/proc/{unshare}/task/{unshare}/children").read_text().split()
        if children:
            return unshare, int(children[0])
        time.sleep(0.01)
    raise AssertionError("unshare started no process")


def test_the_leak_check_counts_what_this_process_left_and_not_other_runs_sandboxes():
    """`sandbox_pids` (the suites' "outlived its run" checks) counts a process this test process's children left in
    another pid namespace, though its parent ended, and not one another run left (made while this process was no
    subreaper, so re-parented to the machine's init): two checkouts testing at once no longer fail each other."""
    left: list[int] = []
    try:
        with subreaper():
            mine = orphan_in_a_pid_namespace()
            left += mine
        theirs = orphan_in_a_pid_namespace()  # as another run's: this process is no subreaper now
        left += theirs
        counted, machine = sandbox_pids(), foreign_pids()
    finally:
        for pid in left:
            os.kill(pid, 9)
        if left:
            os.waitpid(left[0], 0)  # re-parented here; the other run's `unshare` is init's to reap
    assert mine[1] in counted and theirs[1] in machine and theirs[1] not in counted
    assert mine[0] not in counted  # `unshare` itself is in this pid namespace: no sandbox
