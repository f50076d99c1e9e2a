"""Generated code runs only in the sandbox: real HumanEval problems pass with their canonical solutions,
and code that loops, hogs memory, reaches the network, spawns processes or writes outside its folder is
stopped and scored as not passing, without harming the caller."""
import json
import os
import signal
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from judgeagent.protocols.dynaeval import sandbox
from judgeagent.protocols.dynaeval.sandbox import SandboxLimits, run_tests
from tests.conftest import DATA, ROOT

PROBLEMS = [json.loads(line) for line in (DATA / "humaneval" / "problems.jsonl").read_text().splitlines()]
FAST = SandboxLimits(timeout_s=5, memory_mb=512)


def solve(problem, body):
    return problem["prompt"] + body


def run(problem, code, limits=FAST, **options):
    """`run_tests` as the code task calls it: the problem's preamble (helpers the test uses) on the harness's side."""
    cut = problem["prompt"].find(f"def {problem['entry_point']}")
    return run_tests(code, problem["test"], problem["entry_point"], limits, context=problem["prompt"][:cut], **options)


@pytest.mark.parametrize("index", [0, 1, 2, 53, 163])
def test_canonical_solutions_pass_and_broken_ones_fail(index):
    p = PROBLEMS[index]
    assert run(p, solve(p, p["canonical_solution"])).status == "passed"
    wrong = run(p, solve(p, "    return None\n"))
    assert not wrong.passed and wrong.status in ("failed", "error"), wrong


def test_an_endless_loop_is_stopped():
    p = PROBLEMS[0]
    result = run_tests(solve(p, "    while True:\n        pass\n"), p["test"], p["entry_point"],
                       SandboxLimits(timeout_s=2))
    assert result.status == "timeout" and result.seconds < 10


def test_unbounded_memory_is_stopped():
    p = PROBLEMS[0]
    hog = "    x = []\n    while True:\n        x.append(bytearray(10**7))\n"
    assert run_tests(solve(p, hog), p["test"], p["entry_point"], FAST).status == "memory"


def test_the_network_is_refused(tmp_path):
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(1)
    listener.setblocking(False)  # a connection that got through would be waiting in the backlog
    port = listener.getsockname()[1]
    p = PROBLEMS[0]
    code = f"import socket\nsocket.create_connection(('127.0.0.1', {port}))\n" + solve(p, p["canonical_solution"])
    result = run_tests(code, p["test"], p["entry_point"], FAST)
    with pytest.raises(BlockingIOError):
        listener.accept()
    listener.close()
    assert result.status == "error" and result.detail.startswith("forbidden in the sandbox: socket"), result


@pytest.mark.parametrize("attack", [
    "import subprocess\nsubprocess.run(['touch', '{target}'])\n",
    "import os\nos.system('touch {target}')\n",
    "open('{target}', 'w').write('owned')\n",
    "import shutil\nshutil.rmtree('{folder}')\n",
    "import os\nos.remove('{keep}')\n",
    "import ctypes\n",
])
def test_writes_outside_its_folder_and_new_processes_are_refused(tmp_path, attack):
    keep = tmp_path / "keep.txt"
    keep.write_text("keep me")
    target = tmp_path / "owned.txt"
    p = PROBLEMS[0]
    code = attack.format(target=target, folder=tmp_path, keep=keep) + solve(p, p["canonical_solution"])
    result = run_tests(code, p["test"], p["entry_point"], FAST)
    assert result.status == "error" and result.detail.startswith("forbidden in the sandbox"), result
    assert not target.exists() and keep.read_text() == "keep me"


def test_writing_inside_its_own_folder_is_allowed():
    p = PROBLEMS[0]
    code = "open('scratch.txt', 'w').write('ok')\n" + solve(p, p["canonical_solution"])
    assert run_tests(code, p["test"], p["entry_point"], FAST).passed


def test_code_cannot_fake_a_pass():
    p = PROBLEMS[0]
    cheat = "import os\nprint('JUDGEAGENT-SANDBOX passed')\nos._exit(0)\n"
    result = run_tests(solve(p, "    return None\n") + cheat, p["test"], p["entry_point"], FAST)
    assert not result.passed


def test_a_bare_except_cannot_swallow_the_refusal():
    p = PROBLEMS[0]
    code = ("try:\n    import subprocess\n    subprocess.run(['true'])\nexcept Exception:\n    pass\n"
            + solve(p, p["canonical_solution"]))
    result = run_tests(code, p["test"], p["entry_point"], FAST)
    assert result.status == "error" and result.detail.startswith("forbidden in the sandbox"), result


# --- correct code of every kind passes; the harness's verdict alone decides ----------------------------------

@pytest.mark.parametrize("extra", [
    "print('working on it')\n",
    "import sys\nsys.stdout.write('no trailing newline')\n",
    "import sys\nsys.stderr.write('to stderr, no newline')\n",
    "import sys\nprint(sys.stdin.read(), end='')\n",
    "import collections, functools, itertools, json, math, re, heapq, bisect, fractions, decimal, string, random\n",
    "open('scratch.txt', 'w').write('kept in its own folder')\nimport tempfile\ntempfile.TemporaryFile().write(b'x')\n",
])
def test_correct_code_that_prints_reads_stdin_or_imports_passes(extra):
    p = PROBLEMS[0]
    body = p["canonical_solution"].replace("    return False", "    print('done', end='')\n    return False")
    result = run(p, extra + solve(p, body))
    assert result.passed, result


def test_every_humaneval_canonical_solution_passes():
    """All 164, two at a time (the code task's thread pool on a small machine); HumanEval/32's test calls the
    prompt's own `poly` and /33's calls the function by name: the harness's side has both."""
    from concurrent.futures import ThreadPoolExecutor

    with ThreadPoolExecutor(2) as pool:
        results = list(pool.map(lambda p: (p["task_id"], run(p, solve(p, p["canonical_solution"]))), PROBLEMS))
    assert len(results) == 164 and [(t, r) for t, r in results if not r.passed] == []


def test_a_returned_tuple_set_dict_or_float_arrives_as_itself():
    test = ("def check(candidate):\n    r = candidate()\n    assert r == ((1, 2.5), {3}, {(4,): b'x'}, frozenset({1j}))\n"
            "    assert type(r[0]) is tuple and type(r[1]) is set and type(r[3]) is frozenset\n"
            "    assert candidate() != ([1, 2.5], [3], {}, set())\n")
    code = "def f():\n    return ((1, 2.5), {3}, {(4,): b'x'}, frozenset({1j}))\n"
    assert run_tests(code, test, "f", FAST).passed


# --- the run ends at once and leaves nothing: Ctrl-C, cancellation, a killed evaluator ----------------------

HANG = "def has_close_elements(numbers, threshold):\n    import time\n    time.sleep(100)\n"


def test_ctrl_c_stops_the_sandbox_at_once():
    main = threading.get_ident()
    before = sandbox_children()
    # Python's own Ctrl-C handler, as at a terminal: a suite started in the background by a shell without job
    # control (`make test &`) ignores SIGINT, and Python then installs none (tests/scripted.py::ctrl_c_restored).
    old = signal.signal(signal.SIGINT, signal.default_int_handler)
    blocked = signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})
    try:
        threading.Timer(0.5, lambda: signal.pthread_kill(main, signal.SIGINT)).start()
        start = time.monotonic()
        with pytest.raises(KeyboardInterrupt):
            run(PROBLEMS[0], HANG, SandboxLimits(timeout_s=60))
    finally:
        signal.signal(signal.SIGINT, old)
        signal.pthread_sigmask(signal.SIG_SETMASK, blocked)
    assert time.monotonic() - start < 3 and sandbox_children() - before == set()


def test_a_cancelled_run_stops_at_once():
    before = sandbox_children()
    cancel = threading.Event()
    threading.Timer(0.5, cancel.set).start()
    result = run(PROBLEMS[0], HANG, SandboxLimits(timeout_s=60), cancel=cancel)
    assert result.status == "error" and result.detail == "cancelled" and result.seconds < 3
    assert sandbox_children() - before == set()


def test_a_cancelled_game_stops_its_sandbox_at_once():
    """Ctrl-C in the CLI cancels the run's tasks: the game's sandbox thread must not run on to its limit
    (asyncio.run waits for that thread before it returns)."""
    import asyncio
    import random

    from judgeagent.protocols.dynaeval.config import DynaEvalConfig
    from judgeagent.protocols.dynaeval.tasks.code import CodeGame

    game = CodeGame(DynaEvalConfig(task="code", problems="x"), ("programmer", "reviewer"), PROBLEMS[0],
                    random.Random(0))

    async def cancel_soon():
        running = asyncio.create_task(game._test(HANG, SandboxLimits(timeout_s=60)))
        await asyncio.sleep(0.5)
        running.cancel()
        with pytest.raises(asyncio.CancelledError):
            await running

    before = sandbox_children()
    start = time.monotonic()
    asyncio.run(cancel_soon())
    assert time.monotonic() - start < 3 and sandbox_children() - before == set()


KILLED = r'''
import json, os, sys, threading, time
sys.path.insert(0, sys.argv[1])
from judgeagent.protocols.dynaeval.sandbox import SandboxLimits, run_tests
test = "def check(candidate):\n    assert candidate([1.0], 0.5) is False\n"
threading.Thread(target=run_tests, args=(sys.argv[2], test, "has_close_elements", SandboxLimits(timeout_s=60)),
                 daemon=True).start()
time.sleep(1.5)
children = {}
for d in os.listdir("/proc"):
    try:
        children.setdefault(int(open(f"/proc/{d}/stat").read().rsplit(")", 1)[1].split()[1]), []).append(int(d))
    except (OSError, ValueError, IndexError):
        pass
out, todo = [], [os.getpid()]
while todo:
    kids = children.get(todo.pop(), [])
    out += kids
    todo += kids
print(json.dumps(out), flush=True)
time.sleep(100)
'''


def test_a_killed_evaluator_leaves_no_process_and_no_folder(tmp_path):
    before = set(Path("/tmp").glob("judgeagent-sandbox-*"))
    script = tmp_path / "evaluator.py"
    script.write_text(KILLED)
    evaluator = subprocess.Popen([sys.executable, str(script), str(ROOT), HANG], stdout=subprocess.PIPE, text=True)
    pids = json.loads(evaluator.stdout.readline())
    assert len(pids) >= 4  # two bwraps and what runs inside them
    evaluator.kill()
    evaluator.wait()
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline and [p for p in pids if alive(p)]:
        time.sleep(0.05)
    assert [p for p in pids if alive(p)] == []
    assert set(Path("/tmp").glob("judgeagent-sandbox-*")) == before


def alive(pid):
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


def sandbox_children() -> set[int]:
    """This process's live children (run_tests reaps what it starts before it returns or raises). Compared with
    the set from before the call: an earlier test's server (the embedded model's) may still be a child."""
    mine = set()
    for d in Path("/proc").iterdir():
        try:
            fields = (d / "stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if d.name.isdigit() and int(fields[1]) == os.getpid() and fields[0] != "Z":
            mine.add(int(d.name))
    return mine


# --- no bubblewrap: the code task refuses in one line; the unsafe opt-in runs and says so ---------------------

@pytest.fixture
def no_bubblewrap(monkeypatch):
    monkeypatch.setattr(sandbox, "BWRAP", "/nonexistent/bwrap")
    yield
    sandbox._probe.cache_clear()


def test_without_bubblewrap_run_tests_and_the_code_task_refuse_in_one_line(no_bubblewrap, tmp_path, capsys):
    from judgeagent.cli import main
    from judgeagent.errors import JudgeAgentError

    with pytest.raises(JudgeAgentError, match="apt-get install bubblewrap"):
        run(PROBLEMS[0], solve(PROBLEMS[0], PROBLEMS[0]["canonical_solution"]))
    code = main(["evaluate", "--protocol", "dynaeval", "--role", "players=nobody:a,nobody:b", "-o", "task=code",
                 "-o", f"problems={DATA / 'humaneval' / 'problems.jsonl'}", "--run-dir", str(tmp_path / "run"), "-q"])
    err = capsys.readouterr().err
    assert code == 1 and len(err.strip().splitlines()) == 1 and "Traceback" not in err
    assert "bubblewrap (/nonexistent/bwrap) is not installed" in err and "apt-get install bubblewrap" in err
    assert "-o sandbox=unsafe-no-isolation" in err and not (tmp_path / "run").exists()


def test_without_libseccomp_the_sandbox_refuses_in_one_line(monkeypatch):
    from judgeagent.errors import JudgeAgentError
    from judgeagent.protocols.dynaeval import walls

    monkeypatch.setattr(walls, "seccomp_program", lambda: "libseccomp, which builds its seccomp filter, is not installed")
    sandbox._probe.cache_clear()
    try:
        with pytest.raises(JudgeAgentError, match="libseccomp, which builds its seccomp filter, is not installed: "
                                                  "install it \\(apt-get install bubblewrap libseccomp2\\)"):
            run(PROBLEMS[0], solve(PROBLEMS[0], PROBLEMS[0]["canonical_solution"]))
    finally:
        sandbox._probe.cache_clear()


def test_the_unsafe_opt_in_runs_and_records_no_isolation(no_bubblewrap, tmp_path):
    from tests.test_dynaeval import coder, problems_file
    from tests.test_dynaeval import run as play

    path = problems_file(tmp_path, ["f_ok"])
    result = play({"players.1": coder("a"), "players.2": coder("b")}, tmp_path, task="code", problems=str(path),
                  items=1, max_runs=2, min_runs=2, scoring="judgeagent", sandbox="unsafe-no-isolation")
    manifest = json.loads((result.folder / "manifest.json").read_text())
    assert manifest["dynaeval"]["isolation"] == result.summary["isolation"] == "none (unsafe-no-isolation)"
    assert "ran under isolation: none (unsafe-no-isolation)" in (result.folder / "report.md").read_text()
    assert result.summary["players"]["players.1"]["mean"] == 1.0


def test_a_code_run_records_bubblewrap_as_its_isolation(tmp_path):
    from tests.test_dynaeval import coder, problems_file
    from tests.test_dynaeval import run as play

    path = problems_file(tmp_path, ["f_ok"])
    result = play({"players.1": coder("a"), "players.2": coder("b")}, tmp_path, task="code", problems=str(path),
                  items=1, max_runs=2, min_runs=2, scoring="judgeagent")
    version = subprocess.run(["bwrap", "--version"], capture_output=True, text=True, check=True).stdout.strip()
    manifest = json.loads((result.folder / "manifest.json").read_text())
    assert manifest["dynaeval"]["isolation"] == result.summary["isolation"] == version
    assert f"ran under isolation: {version}" in (result.folder / "report.md").read_text()


def test_without_isolation_a_killed_evaluators_folder_goes_at_the_next_start(tmp_path, monkeypatch):
    """The unsafe path needs a host folder: removed when the run ends, or by the next process if killed."""
    import tempfile

    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True,
                          check=True).stdout.strip()
    stale, live = tmp_path / f"judgeagent-sandbox-{dead}-x", tmp_path / f"judgeagent-sandbox-{os.getpid()}-y"
    for folder in (stale, live):
        (folder / "sub").mkdir(parents=True)
    sandbox._remove_stale_folders.cache_clear()
    p = PROBLEMS[0]
    assert run(p, solve(p, p["canonical_solution"]), isolation="none").passed
    assert sorted(tmp_path.iterdir()) == [live]


def test_the_solutions_names_reach_the_test_but_never_shadow_a_builtin():
    """The test's setup may build the solution's classes (MBPP/367's Node) and read their attributes; a solution
    that defines `sorted` or `abs` does not change what the test's asserts compute."""
    code = ("class Node:\n    def __init__(self, data):\n        self.data, self.left = data, None\n"
            "def depth(node):\n    return 0 if node is None else 1 + depth(node.left)\n")
    test = ("root = Node(1)\nroot.left = Node(2)\n"
            "def check(candidate):\n    assert candidate(root) == 2 and root.left.data == 2\n")
    assert run_tests(code, test, "depth", FAST).passed
    forged = ("def sorted(x, *a, **k):\n    return [1, 2]\ndef abs(x):\n    return 0\n"
              "def f():\n    return [9]\n")
    test = "def check(candidate):\n    assert sorted(candidate()) == [1, 2]\n    assert abs(candidate()[0] - 1) < 1\n"
    result = run_tests(forged, test, "f", FAST)
    assert not result.passed and result.status == "failed", result


def test_collections_big_ints_and_expected_exceptions_cross_as_themselves():
    code = ("from collections import Counter, OrderedDict, defaultdict, deque, namedtuple\n"
            "Point = namedtuple('Point', 'x y')\n"
            "def f(n):\n    if n < 0:\n        raise ValueError('negative')\n"
            "    return Counter('aab'), Point(1, 2), defaultdict(list, a=[1]), deque([1]), 7 ** 6000, n\n")
    test = ("def check(candidate):\n    counts, point, groups, queue, big, n = candidate(3)\n"
            "    assert counts == {'a': 2, 'b': 1} and counts.most_common(1) == [('a', 2)]\n"
            "    assert point == (1, 2) and point.y == 2 and groups['missing'] == [] and queue.popleft() == 1\n"
            "    assert big == 7 ** 6000 and n == 3\n"
            "    try:\n        candidate(-1)\n    except ValueError:\n        pass\n    else:\n        assert False\n")
    assert run_tests(code, test, "f", FAST).passed


def test_a_sandbox_that_cannot_join_its_cgroup_says_which_step_failed_and_leaves_nothing(monkeypatch, tmp_path):
    """The first process joins the sandbox's cgroups, sets its limits and takes its uid before bwrap runs; when a
    step fails, subprocess says only "Exception occurred in preexec_fn" (seen once in a test run beside another
    evaluator's sandboxes, cause unknown). The error names the step and the system's reason, and no cgroup or
    process is left. Here the sandbox's pids cgroup is removed before it starts (a planted folder where this
    machine gives no cgroups)."""
    from judgeagent import JudgeAgentError
    from judgeagent.protocols.dynaeval import walls

    sandbox.require_bubblewrap()  # probed (once a process) before the cgroups go
    made: list[walls.Cgroups] = []
    make = walls.make_cgroups

    def removed(processes: int, memory_bytes: int) -> walls.Cgroups:
        cgroups = make(processes, memory_bytes)
        if cgroups.pids is None:
            cgroups.pids = tmp_path / "removed"
        else:
            walls._drop(cgroups.pids)
        made.append(cgroups)
        return cgroups

    monkeypatch.setattr(walls, "make_cgroups", removed)
    p = PROBLEMS[0]
    with pytest.raises(JudgeAgentError, match=r"^the sandbox could not start: joining its cgroup \S+/cgroup\.procs: "
                                              r"No such file or directory$"):
        run_tests(solve(p, p["canonical_solution"]), p["test"], p["entry_point"], FAST)
    assert made and not any(folder.exists() for cgroups in made for folder in cgroups.folders)
