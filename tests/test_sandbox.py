"""Generated code runs only in the sandbox: real HumanEval problems pass with their canonical solutions,
and code that loops, hogs memory, reaches the network, spawns processes or writes outside its folder is
stopped and scored as not passing, without harming the caller."""
import json
import socket
import threading

import pytest

from judgeagent.protocols.dynaeval.sandbox import SandboxLimits, run_tests
from tests.conftest import DATA

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
    port = listener.getsockname()[1]
    reached = []
    threading.Thread(target=lambda: reached.append(listener.accept()), daemon=True).start()
    p = PROBLEMS[0]
    code = f"import socket\nsocket.create_connection(('127.0.0.1', {port}))\n" + solve(p, p["canonical_solution"])
    result = run_tests(code, p["test"], p["entry_point"], FAST)
    listener.close()
    assert result.status == "forbidden" and "socket" in result.detail and not reached


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
    assert result.status == "forbidden", result
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
    assert run_tests(code, p["test"], p["entry_point"], FAST).status == "forbidden"
