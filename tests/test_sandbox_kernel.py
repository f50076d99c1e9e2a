"""Attacks on kernel state that mount and network namespaces do not cover (issue 42), each observed from
outside the sandbox: the host's sysctls, its keyrings (/proc/keys), its cgroup trees, its shared memory
(Shmem in /proc/meminfo), the host uid of every sandboxed process, the evaluator's own per-user quotas, and
the processes left in other pid namespaces. Each runs with judgeagent as root (as CI does) and as an
unprivileged user the test creates. Every attack first switches off the candidate's audit hook, so the OS
walls are what is tested."""
import ast
import ctypes
import json
import os
import pwd
import subprocess
import textwrap
import threading
import time
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


@pytest.fixture(scope="module")
def host():
    if os.uname().machine != "x86_64":
        pytest.skip("the syscall numbers here are x86_64's")
    if os.geteuid() != 0:
        pytest.skip("the suite runs judgeagent as root and as a user it creates: it needs root (CI has it)")
    sandbox.require_bubblewrap()  # probes as root: the interpreter's mirror exists before the user runs
    try:
        uid = pwd.getpwnam(USER).pw_uid
    except KeyError:
        subprocess.run(["useradd", "--system", "--no-create-home", "--shell", "/usr/sbin/nologin", USER], check=True)
        uid = pwd.getpwnam(USER).pw_uid
    return uid


@pytest.fixture(params=["root", "user"])
def who(request, host):
    return request.param


def as_user(uid: int, work):  # type: ignore[no-untyped-def]
    """work() in a child of this process that became `uid` first (everything it needs is loaded): its JSON."""
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: an ordinary user from here on, with no way back
        try:
            os.close(read)
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
    """Samples the host while an attack runs: Shmem, and the host uid of every process in another pid namespace."""

    def __init__(self) -> None:
        self.shmem_kb: list[int] = []
        self.uids: set[int] = set()
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
            for pid in foreign_pids():
                try:
                    status = Path(f"/proc/{pid}/status").read_text()
                    self.uids.update(int(x) for x in status.split("\nUid:")[1].split("\n")[0].split())
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


@pytest.fixture
def nothing_left():
    before = foreign_pids()
    yield
    deadline = time.monotonic() + 3
    while foreign_pids() - before and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not foreign_pids() - before, "a sandboxed process outlived its run"


def report(result) -> str:
    assert not result.passed and result.status == "error", result
    assert result.detail.startswith("ValueError: REPORT "), result
    return result.detail.removeprefix("ValueError: REPORT ")


# --- the code is never host root, and reaches no host-wide kernel state ---------------------------------------

def test_the_code_runs_as_an_unprivileged_host_uid(who, host, nothing_left):
    """Seen from the host (/proc/PID/status of every process in the sandbox's pid namespace): an unprivileged
    uid, the user's own when judgeagent runs as that user. (The code's own uid_map is relative to the nested
    namespace bwrap makes for --disable-userns, so the host view is the one that counts.)"""
    code = submission("""
        time.sleep(0.5)
        return open('/proc/self/uid_map').read().split()[:1] + [os.getuid()]""")
    with Watch() as watch:
        inside = listed(run_as(who, host, code))
    assert inside == ["65534", 65534]
    assert watch.uids, "no sandboxed process was seen"
    assert 0 not in watch.uids
    assert watch.uids == {host} if who == "user" else watch.uids <= set(walls.HOST_UIDS), watch.uids


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
    hog = "def f():\n    x = []\n    while True:\n        x.append(bytearray(10 ** 7))\n"
    assert run_as("root", host, hog).status == "memory"


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
