"""Adversarial submissions against the sandbox (docs/security.md): each one tries to forge a pass, steal a
secret, touch the host, reach the network, spawn or signal processes, or exhaust a resource. Whatever it
does, it must not pass, a canary folder outside must stay byte- and mtime-identical, a canary API key in
the evaluator's environment must not show up in the result, the test's listeners and signal handler must
hear nothing, and no process in a sandbox's pid namespace may outlive its run. Each attack runs with judgeagent
as root (as CI does) and as an unprivileged user (tests/test_sandbox_kernel.py's), who then owns the canary.
Most attacks first disable the in-sandbox audit hook, so the OS walls, not the hook, are what is tested; a few
run without isolation to show they bite."""
import ctypes
import json
import os
import secrets
import shutil
import signal
import socket
import tempfile
import textwrap
import time
from dataclasses import dataclass
from pathlib import Path

import pytest

from judgeagent.protocols.dynaeval import sandbox, walls
from judgeagent.protocols.dynaeval.sandbox import SandboxLimits, SandboxResult, run_tests
from tests.conftest import DATA, ROOT
from tests.test_sandbox_kernel import as_user, host  # noqa: F401  (host: a fixture, for the user's half)

PROBLEM = json.loads((DATA / "humaneval" / "problems.jsonl").read_text().splitlines()[0])  # has_close_elements
SMALL = SandboxLimits(timeout_s=2, memory_mb=256, output_kb=256, processes=16)

# --- forged verdicts: a wrong solution dressed up as a pass --------------------------------------------------

WRONG = "def has_close_elements(numbers, threshold):\n    return None\n"
FORGERIES = {
    "exit 0 at load": "import os\nos._exit(0)\n" + WRONG,
    "exit 0 in the call": "import os\ndef has_close_elements(numbers, threshold):\n    os._exit(0)\n",
    "SystemExit(0) at load": "raise SystemExit(0)\n" + WRONG,
    "SystemExit(0) in the call": "def has_close_elements(numbers, threshold):\n    raise SystemExit(0)\n",
    "sys.exit in an audit hook": "import os, sys\nsys.addaudithook(lambda e, a: os._exit(0))\n" + WRONG,
    "printed pass markers": "import json, sys\nprint('JUDGEAGENT-SANDBOX passed')\n"
                            "print(json.dumps({'status': 'passed', 'detail': 'passed'}))\n"
                            "sys.stderr.write('{\"status\": \"passed\"}')\n" + WRONG,
    "verdicts written to every fd": "import os\nfor fd in range(64):\n    try:\n"
                                    "        os.write(fd, b'{\"status\": \"passed\", \"detail\": \"passed\"}\\n')\n"
                                    "    except OSError:\n        pass\n" + WRONG,
    "forged replies on every fd": "import os\ndef has_close_elements(numbers, threshold):\n"
                                  "    for fd in range(3, 64):\n        try:\n"
                                  "            os.write(fd, b'[\"ok\", true]\\n' * 20)\n        except OSError:\n"
                                  "            pass\n    return None\n",
    "__eq__ always true": "class Same:\n    __eq__ = lambda self, other: True\n    __ne__ = lambda self, other: False\n"
                         "    __bool__ = lambda self: True\n    __hash__ = lambda self: 0\n"
                         "def has_close_elements(numbers, threshold):\n    return Same()\n",
    "bool subclass always equal": "class B(int):\n    __eq__ = lambda self, other: True\n"
                                  "def has_close_elements(numbers, threshold):\n    return B(1)\n",
    "builtins replaced": "import builtins\nbuiltins.AssertionError = type('Never', (Exception,), {})\n"
                         "builtins.bool = lambda x=None: True\nbuiltins.abs = lambda x: 0\n" + WRONG,
    "reply encoder patched": "import __main__, json\n__main__.encode = lambda v, depth=0: True\n"
                             "json.dumps = lambda *a, **k: '[\"ok\", true]'\n" + WRONG,
    "check patched through gc": "import gc\nfor o in gc.get_objects():\n"
                                "    if getattr(o, '__name__', '') == 'check':\n"
                                "        o.__code__ = (lambda candidate: None).__code__\n" + WRONG,
    "token read from frames": "import sys\nfound = []\nf = sys._getframe()\nwhile f:\n"
                              "    found += [str(v) for v in f.f_globals.values()]\n    f = f.f_back\n"
                              "for value in found:\n    print('JUDGEAGENT-SANDBOX', value[:64], 'passed')\n" + WRONG,
    "kill every process it can": "import os\ndef has_close_elements(numbers, threshold):\n    os.kill(-1, 9)\n",
    "kill its process group": "import os\ndef has_close_elements(numbers, threshold):\n    os.killpg(0, 9)\n",
    "AssertionError with pass text": "def has_close_elements(numbers, threshold):\n"
                                     "    raise AssertionError('passed')\n",
    "KeyboardInterrupt in the call": "def has_close_elements(numbers, threshold):\n    raise KeyboardInterrupt\n",
    "reply nested too deep": "def has_close_elements(numbers, threshold):\n    x = []\n    for _ in range(100000):\n"
                             "        x = [x]\n    return x\n",
}

# --- side effects: run with the audit hook disabled, what they get becomes the error's text -------------------

SIDE = {
    "environment": "return dict(os.environ)",
    "parent /proc environ": "return open('/proc/{pid}/environ').read()",
    "every /proc environ": "return ''.join(open('/proc/' + p + '/environ', errors='replace').read()\n"
                           "               for p in os.listdir('/proc') if p.isdigit())",
    "parent cwd via /proc": "return os.listdir('/proc/{pid}/cwd')",
    "canary file read": "return open('{file}').read()",
    "canary folder listed": "return os.listdir('{canary}')",
    "read through dir_fd": "fd = os.open('{canary}', os.O_RDONLY)\n"
                           "return os.read(os.open('a.txt', os.O_RDONLY, dir_fd=fd), 100)",
    "project files read": "return open('{project}/README.md').read() + str(os.listdir('{project}'))",
    "home listed": "return [os.listdir(d) for d in ('/root', '/home', '/work', '/etc') if os.path.isdir(d)]",
    "new file outside": "open('{canary}/new.txt', 'w').write('owned')",
    "file overwritten": "open('{file}', 'w').write('owned')",
    "file appended": "open('{file}', 'a').write('owned')",
    "file removed": "os.remove('{file}')",
    "file renamed": "os.rename('{file}', '{canary}/moved.txt')",
    "rename target outside": "open('local', 'w').write('owned')\nos.rename('local', '{canary}/new.txt')",
    "create through dir_fd": "fd = os.open('{canary}', os.O_RDONLY)\n"
                             "os.close(os.open('new.txt', os.O_CREAT | os.O_WRONLY, dir_fd=fd))",
    "create through an opener": "open('new.txt', 'w', opener=lambda p, f: os.open(os.path.join('{canary}', p), f,"
                                " 0o644)).write('owned')",
    "utime": "os.utime('{file}', (0, 0))",
    "mkfifo": "os.mkfifo('{canary}/fifo')",
    "mknod": "os.mknod('{canary}/node')",
    "write through a symlink": "os.symlink('{file}', 'link')\nopen('link', 'w').write('owned')",
    "write through a hard link": "os.link('{file}', 'hard')\nopen('hard', 'w').write('owned')",
    "rmtree": "import shutil\nshutil.rmtree('{canary}')",
    "chmod": "os.chmod('{file}', 0o777)",
    "truncate": "os.truncate('{file}', 0)",
    "udp sendmsg to loopback": "import socket\ns = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)\n"
                               "s.sendmsg([b'leak'], [], 0, ('127.0.0.1', {udp}))",
    "udp sendto to loopback": "import socket\n"
                              "socket.socket(socket.AF_INET, socket.SOCK_DGRAM).sendto(b'leak', ('127.0.0.1', {udp}))",
    "tcp connect to loopback": "import socket\nsocket.create_connection(('127.0.0.1', {tcp}), timeout=1).send(b'leak')",
    "dns lookup": "import socket\nreturn socket.getaddrinfo('example.com', 80)",
    "_posixsubprocess": "import _posixsubprocess\nr, w = os.pipe()\n"
                        "_posixsubprocess.fork_exec([b'/bin/sh', b'-c', b'touch {canary}/spawned; kill -USR1 {pid}'],"
                        " [b'/bin/sh'], True, (), None, None, -1, -1, -1, -1, -1, -1, r, w, False, False, -1, None,"
                        " None, None, -1, None, False)\nimport time; time.sleep(0.3)",
    "os.system": "os.system('touch {canary}/spawned; kill -USR1 {pid}')",
    "posix_spawn": "os.posix_spawn('/bin/sh', ['sh', '-c', 'touch {canary}/spawned'], {{}})\n"
                   "import time; time.sleep(0.3)",
    "fork then write": "if os.fork() == 0:\n    open('{canary}/forked.txt', 'w').write('owned')\n    os._exit(0)\n"
                       "os.wait()",
    "signal the evaluator": "os.kill({pid}, signal.SIGUSR1)",
    "signal the evaluator's group": "os.killpg(os.getpgid({pid}), signal.SIGUSR1)",
    "signal everyone": "os.kill(-1, signal.SIGUSR1)",
}

# --- resources: small limits, the run must end on its own and leave nothing -----------------------------------

FLOODS = {
    "fork bomb": "while True:\n    os.fork()",
    "thread bomb": "import threading, time\nwhile True:\n    threading.Thread(target=time.sleep, args=(60,)).start()",
    "memory": "blocks = []\nwhile True:\n    blocks.append(bytearray(10 ** 7))",
    "disk": "for i in range(10 ** 4):\n    open(f'f{{i}}', 'wb').write(b'x' * 10 ** 6)",
    "one huge file": "open('big', 'wb').write(b'x' * 50 * 2 ** 20)",
    "file count": "i = 0\nwhile True:\n    open(f'e{{i}}', 'w').close()\n    i += 1",
    "stdout flood": "import sys\nfor _ in range(800):\n    sys.stdout.write('x' * 10 ** 6)",
    "stderr flood": "import sys\nfor _ in range(800):\n    sys.stderr.write('x' * 10 ** 6)",
    "raw fd 1 flood": "for _ in range(800):\n    os.write(1, b'x' * 10 ** 6)",
    "hang": "import time\ntime.sleep(100)",
    "hang ignoring SIGTERM": "signal.signal(signal.SIGTERM, signal.SIG_IGN)\nwhile True:\n    pass",
    "grandchild holds the pipes": "if os.fork() == 0:\n    os.setsid()\n    if os.fork() == 0:\n        import time\n"
                                  "        time.sleep(100)\n    os._exit(0)\nos.wait()",
    "grandchild and a hang": "if os.fork() == 0:\n    os.setsid()\n    import time\n    time.sleep(100)\n"
                             "import time\ntime.sleep(100)",
}

SUBMISSION = '''import __main__, os, signal, sys
__main__.BLOCKED, __main__.HOME, __main__.WRITE_FLAGS = ("\\0",), "", 0  # the audit hook disabled
LEAK = None
def attack():
{body}
try:
    LEAK = attack()
except BaseException as e:
    LEAK = repr(e)
def has_close_elements(numbers, threshold):
    text = str(LEAK)
    at = max(text.find("canary"), 0)
    raise ValueError(text[at:at + 150])
'''


def side_submission(body, env):
    return SUBMISSION.format(body=textwrap.indent(body.format(**env), "    "))


@pytest.fixture(params=["root", "user"])
def who(request):
    """judgeagent as this process (root, as CI runs it), and as an unprivileged user (as most users run it): the uid
    of that user, created by tests/test_sandbox_kernel.py's `host`. Run by an ordinary user, the first half is
    already that, and the second is skipped."""
    if request.param == "user" and os.geteuid() != 0:
        pytest.skip("this process is an ordinary user already: the other half runs each attack as it")
    return None if request.param == "root" else request.getfixturevalue("host")


@dataclass
class World:
    """The host as an attacker would like it (`world`), and how a submission is run against it."""
    env: dict
    key: str
    uid: int | None
    """None: the evaluator is this process; else a child of it that became this uid."""
    base: Path
    """A folder the evaluator's uid owns (the canary's), where a test can make more victims."""
    signalled: int = 0
    """Signals the user's evaluator heard (the root evaluator's are `world`'s handler's)."""

    def attack(self, code_for, limits=SMALL, **options):
        """The sandbox's result for the submission `code_for(env)`, `env`'s "pid" being the evaluator's own."""
        if self.uid is None:
            return attack(code_for({**self.env, "pid": os.getpid()}), limits, **options)

        # Unwalled, the user runs the interpreter itself: this suite's is under /root, so the user runs its mirror.
        python = _mirrored_python() if options.get("isolation") == "none" else None

        def work():  # as the user: its own pid is what the attacks aim at, its own handler what they must not reach
            if python:
                sandbox.interpreter = lambda: python
            # A process that changed its uid is not dumpable (its /proc files stay root's); one a user starts is:
            # so is this evaluator, or its /proc/PID/environ would be kept from the attacks by that, not the walls.
            ctypes.CDLL(None, use_errno=True).prctl(PR_SET_DUMPABLE, 1, 0, 0, 0)
            heard = []
            signal.signal(signal.SIGUSR1, lambda *_: heard.append(1))
            result = attack(code_for({**self.env, "pid": os.getpid()}), limits, **options)
            time.sleep(0.1)  # a signal in flight
            return [result.status, result.detail, result.seconds, len(heard)]

        status, detail, seconds, heard = as_user(self.uid, work)
        self.signalled += heard
        return SandboxResult(status, detail, seconds)


PR_SET_DUMPABLE = 4  # linux/prctl.h


def _mirrored_python() -> str:
    """The interpreter as an unprivileged uid can run it: the sandbox's mirror of its prefix where that uid cannot
    walk to it (walls.prefix_source; a user's own Python needs none)."""
    python = sandbox.interpreter()
    prefix = next(p for p in sandbox._prefixes() if python.startswith(p + "/"))
    return str(Path(walls.prefix_source(prefix, python)) / Path(python).relative_to(prefix))


@pytest.fixture
def world(who, tmp_path, monkeypatch, request):
    """The host as an attacker would like it: a canary folder, a key in the environment, listeners, a handler. As
    a user, the canary is that user's (under a folder it can reach): its permissions are no wall, so only the
    sandbox's can keep it."""
    key = secrets.token_hex(8)  # the value the attacks look for is "sk-canary-<key>": the key alone is what must not leak
    monkeypatch.setenv("OPENAI_API_KEY", "sk-canary-" + key)
    base = tmp_path if who is None else Path(tempfile.mkdtemp(prefix="judgeagent-attack-"))
    if who is not None:  # removed however the setup below ends (a chown refused left 69 behind in /tmp)
        request.addfinalizer(lambda: shutil.rmtree(base, ignore_errors=True))
    canary = base / "canary"
    (canary / "sub").mkdir(parents=True)
    for name in ("a.txt", "b.txt", "sub/c.txt"):
        (canary / name).write_text(f"canary-file-{name}-{key}")
    if who is not None:
        base.chmod(0o755)
        for path in (base, *base.rglob("*")):
            os.chown(path, who, who)
    udp = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    udp.bind(("127.0.0.1", 0))
    udp.setblocking(False)
    tcp = socket.socket()
    tcp.bind(("127.0.0.1", 0))
    tcp.listen(4)
    tcp.setblocking(False)
    signals = []
    old = signal.signal(signal.SIGUSR1, lambda *_: signals.append(1))
    env = {"canary": canary, "file": canary / "a.txt", "udp": udp.getsockname()[1], "tcp": tcp.getsockname()[1],
           "project": ROOT}
    from tests.test_sandbox_kernel import subreaper

    reaping = subreaper()  # what a sandbox leaves behind is re-parented here, and counted
    reaping.__enter__()
    request.addfinalizer(lambda: reaping.__exit__(None, None, None))  # after the checks below, however setup ends
    before = (snapshot(canary), set(sandbox_processes()))
    world = World(env, key, who, base)
    yield world
    time.sleep(0.1)  # a signal or datagram in flight
    try:
        assert snapshot(canary) == before[0], "the canary folder changed"
        assert not signals and not world.signalled, "the evaluator was signalled"
        with pytest.raises(BlockingIOError):
            udp.recv(100)
        with pytest.raises(BlockingIOError):
            tcp.accept()
        # A killed sandbox's processes take a moment to be reaped on a busy machine: wait as `nothing_left` does.
        deadline = time.monotonic() + 3
        while not set(sandbox_processes()) <= before[1] and time.monotonic() < deadline:
            time.sleep(0.05)
        assert set(sandbox_processes()) <= before[1], "a sandbox process outlived its run"
    finally:
        signal.signal(signal.SIGUSR1, old)
        udp.close()
        tcp.close()


def snapshot(folder):
    return {str(p.relative_to(folder)): (p.read_bytes() if p.is_file() else None, p.stat().st_mtime_ns,
                                         p.stat().st_mode) for p in sorted(folder.rglob("*"))} | {
        ".": (None, folder.stat().st_mtime_ns, folder.stat().st_mode)}


def sandbox_processes():
    """Live processes in another pid namespace than the test's, under it: every sandboxed process of this test
    process, forks and exec'd children included, whatever their command line, and any it left behind."""
    from tests.test_sandbox_kernel import sandbox_pids

    return sandbox_pids()


def attack(code, limits=SMALL, **options):
    cut = PROBLEM["prompt"].find("def has_close_elements")
    return run_tests(code, PROBLEM["test"], PROBLEM["entry_point"], limits, context=PROBLEM["prompt"][:cut],
                     **options)


# An entry of this process's environment as exec'd (what /proc/PID/environ shows; monkeypatch cannot add to it).
HOST_ENV = next(e for e in Path("/proc/self/environ").read_bytes().decode(errors="replace").split("\0") if len(e) > 12)


def assert_contained(result, key):
    assert not result.passed, result
    assert key not in result.detail and "canary-file" not in result.detail and HOST_ENV not in result.detail, result
    assert result.seconds < SMALL.timeout_s + 3, result


@pytest.mark.parametrize("name", FORGERIES)
def test_a_forged_pass_fails(world, name):
    result = world.attack(lambda env: FORGERIES[name])
    assert_contained(result, world.key)


@pytest.mark.parametrize("name", SIDE)
def test_nothing_outside_is_read_or_changed(world, name):
    result = world.attack(lambda env: side_submission(SIDE[name], env))
    assert_contained(result, world.key)
    assert result.status == "error" and result.detail.startswith("ValueError"), result


@pytest.mark.parametrize("name", FLOODS)
def test_floods_and_hangs_end_at_their_limits(world, name):
    result = world.attack(lambda env: side_submission(FLOODS[name], env))
    assert_contained(result, world.key)
    if "flood" in name:
        assert result.status == "error" and "output limit" in result.detail, result
    if name.startswith("hang"):
        assert result.status == "timeout", result
    if name == "grandchild holds the pipes":  # the verdict does not wait for the pipes' last holder
        assert result.seconds < 1.5, result


def test_the_attacks_bite_without_isolation(world):
    """The suite can fail: without the walls the same submissions (the audit hook disabled as above) read the
    evaluator's environment and files and write outside their folder, as root and as the user (whose canary's
    permissions let them: the walls are what the other tests see holding)."""
    leaked = world.attack(lambda env: side_submission(SIDE["parent /proc environ"], env), isolation="none")
    read = world.attack(lambda env: side_submission(SIDE["canary file read"], env), isolation="none")
    assert HOST_ENV in leaked.detail and "canary-file" in read.detail
    victim = world.base / "victim"
    victim.mkdir()
    (victim / "a.txt").write_text("keep")
    if world.uid is not None:
        for path in (victim, victim / "a.txt"):
            os.chown(path, world.uid, world.uid)
    target = {"canary": victim, "file": victim / "a.txt"}
    world.attack(lambda env: side_submission(SIDE["file overwritten"], {**env, **target}), isolation="none")
    world.attack(lambda env: side_submission(SIDE["create through dir_fd"], {**env, **target}), isolation="none")
    assert (victim / "a.txt").read_text() == "owned" and (victim / "new.txt").exists()
