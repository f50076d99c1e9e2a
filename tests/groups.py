"""Which worker group a test runs in when the suite runs on two pytest-xdist workers (`make test`, `make
test-fast`). Worked out from the test files' source alone, since xdist's scheduler sees node ids, not items:

- the sandbox tests (bubblewrap) run in one group, so that another worker's sandboxes never use the per-user
  quotas of the uid their checks watch (their "no sandbox process outlived its run" checks count only their own
  process's sandboxes: tests/test_sandbox_kernel.py's `sandbox_pids`);
- the Ray tests in one group, so that their cluster is started once;
- the rest by module, so that a module's fixtures are made once.

`takes_mhr_graph` says which tests take a MultiHop-RAG graph (`MHR_GRAPHS`: directly, through a fixture of their module, or by
name through `request.getfixturevalue`): the scheduler (tests/schedule.py) hands one of their groups out first and
holds the others back until the graph is built, so that neither worker waits on the build (the graph is built once
a run all the same: tests/graph_cache.py).

xdist's own `loadgroup` mode would read `xdist_group` marks, but it rewrites node ids in a way pytest 9 ignores."""
from __future__ import annotations

import ast
import functools
from pathlib import Path

TESTS = Path(__file__).parent

SANDBOX_SIGNS = ("run_tests(", 'task="code"')
RAY_SIGNS = ('engine="ray"', '"ray"')
MHR_GRAPHS = ("mhr_graph", "mhr_slice_graph")
"""The MultiHop-RAG session graphs (tests/conftest.py): the small split's, and the slice of it most fast tests take."""


def is_sandbox(file: str, source: str) -> bool:
    return file.startswith("test_sandbox") or any(sign in source for sign in SANDBOX_SIGNS)


def is_ray(file: str, source: str) -> bool:
    return file == "test_ray_build.py" or any(sign in source for sign in RAY_SIGNS)


@functools.cache
def _functions(file: str) -> dict[str, tuple[set[str], str]]:
    """Each top-level function (and method) of a test file: its argument names and its source."""
    path = TESTS / file
    try:
        text = path.read_text(encoding="utf-8")
    except OSError:
        return {}
    out: dict[str, tuple[set[str], str]] = {}
    for node in ast.walk(ast.parse(text)):
        if isinstance(node, ast.FunctionDef):  # its decorators too: a parametrize may name a fixture to request
            source = "\n".join(ast.get_source_segment(text, n) or "" for n in (*node.decorator_list, node))
            out.setdefault(node.name, ({a.arg for a in node.args.args}, source))
    return out


def _takes_graph(file: str, name: str, seen: frozenset[str] = frozenset()) -> bool:
    functions = _functions(file)
    args, source = functions.get(name, (set(), ""))
    if any(g in args or f'"{g}"' in source for g in MHR_GRAPHS):  # taken, or requested by name (`getfixturevalue`)
        return True
    return any(_takes_graph(file, a, seen | {name}) for a in args if a in functions and a not in seen | {name})


OTHER_GRAPHS = ("hotpot_graph", "demo_graph")


def _names_another_graph(file: str, name: str, param: str) -> bool:
    """A case of a test that requests its graph by name (`getfixturevalue`) from its parameters, whose
    parameters name another session graph: it does not need the MultiHop-RAG one (test_paths' HotpotQA cases)."""
    args, _ = _functions(file).get(name, (set(), ""))
    by_arg = any(g in args for g in MHR_GRAPHS) or any(_takes_graph(file, a, frozenset({name})) for a in args
                                                       if a in _functions(file))
    return not by_arg and not any(g in param for g in MHR_GRAPHS) and any(g in param for g in OTHER_GRAPHS)


def takes_mhr_graph(nodeid: str) -> bool:
    """The test takes the MultiHop-RAG graph, and is not a case that asks for another graph by name."""
    path, _, rest = nodeid.partition("::")
    file = Path(path).name
    name, _, param = rest.split("::")[-1].partition("[")
    return _takes_graph(file, name) and not _names_another_graph(file, name, param)


def group_of(nodeid: str) -> str:
    path, _, rest = nodeid.partition("::")
    file = Path(path).name
    name = rest.split("::")[-1].partition("[")[0]
    _, source = _functions(file).get(name, (set(), ""))
    if is_sandbox(file, source):
        return "sandbox"
    if is_ray(file, source):
        return "ray"
    return path
