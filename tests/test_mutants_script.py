"""scripts/mutants.py's own logic: how long a mutant's tests may run before the mutant counts as killed."""
import importlib.util
import sys
from pathlib import Path

_SPEC = importlib.util.spec_from_file_location("mutants_script", Path(__file__).parents[1] / "scripts" / "mutants.py")
mutants = sys.modules["mutants_script"] = importlib.util.module_from_spec(_SPEC)  # its dataclasses look it up
_SPEC.loader.exec_module(mutants)


def test_a_mutant_s_timeout_scales_with_the_unmutated_run_unless_given():
    """3x the unmutated run's time, at least 60 s: a fixed 300 s counted a 120 s suite slowed past it under load as
    a kill. `--timeout` given: that, as before."""
    assert mutants.mutant_timeout(None, 150.0) == 450.0
    assert mutants.mutant_timeout(None, 5.0) == 60.0
    assert mutants.mutant_timeout(None, 20.0) == 60.0 and mutants.mutant_timeout(None, 21.0) == 63.0
    assert mutants.mutant_timeout(300.0, 150.0) == 300.0
    assert mutants.mutant_timeout(30.0, 150.0) == 30.0  # given: not raised to the floor


def test_a_mutant_that_times_out_runs_again_longer_before_it_counts():
    """A timeout on a loaded machine is not a hang: the mutant runs once more with RETRY_SCALE times the time,
    and that run's outcome counts (a survivor stays a survivor); only a second timeout counts as one."""
    calls = []

    def runner(outcomes):
        def run(mutant, tests, timeout):
            calls.append(timeout)
            return outcomes.pop(0)
        return run

    assert mutants.settle(None, [], 60.0, runner(["timeout", "survived"])) == "survived"
    assert calls == [60.0, 60.0 * mutants.RETRY_SCALE]
    calls.clear()
    assert mutants.settle(None, [], 60.0, runner(["timeout", "timeout"])) == "timeout"
    assert mutants.settle(None, [], 60.0, runner(["killed"])) == "killed"
    assert calls == [60.0, 240.0, 60.0]


def test_every_equivalent_key_names_a_mutation_point_of_its_module():
    """An EQUIVALENT key is `module:line:col:what` (or with its `#n`, for one piece of an f-string): when code above
    it moves, the key names nothing and its equivalent mutant counts as a survivor again (stop 60 found six such
    keys)."""
    import ast

    points: dict[str, set[str]] = {}
    for key in mutants.EQUIVALENT:
        module = key.split(":")[0]
        if module not in points:
            tree = ast.parse((mutants.ROOT / module).read_text())
            points[module] = {f"{module}:{node.lineno}:{node.col_offset}:{what}{n}"
                              for index, (node, what) in enumerate(mutants._points(tree)) for n in ("", f"#{index}")}
    stale = sorted(key for key in mutants.EQUIVALENT if key not in points[key.split(":")[0]])
    assert stale == []
