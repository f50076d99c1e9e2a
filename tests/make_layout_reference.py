"""Write tests/data/layout_reference/: what a scripted run of each of the five protocols writes.

    PYTHONPATH=. .venv/bin/python tests/make_layout_reference.py [--check]

Each protocol runs once on the scripted models of its own tests (JudgeAgent on the loopback servers of
tests/scripted.py, the others on in-process FunctionModels), and the run's `records.jsonl`,
`episodes.jsonl` and `summary.json` are stored byte for byte. The files were first written by the code
before the wave-3 layout move (each protocol in one folder, one `evaluate` route), so
tests/test_layout_reference.py keeps proving that the move changed no byte of what a run writes. `--check`
compares fresh runs with the stored files instead of writing them, byte for byte: it reports every run different
since the deliberate changes made after the references (the test's RENAMED, SCORING, TRUST and SERVED, which the test
applies before comparing).
"""
from __future__ import annotations

import argparse
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
REFERENCE = ROOT / "tests" / "data" / "layout_reference"
FILES = ("records.jsonl", "episodes.jsonl", "summary.json")
STEP = "none"
"""The learned answer-equivalence step, pinned off (#46 made the shipped weights the default after the references
were written): the references keep testing what they tested, the rules and the protocols' orchestration;
tests/test_learned_run.py tests the default step."""


def run_judgeagent(folder: Path) -> Path:
    from judgeagent.protocols import run_protocol
    from tests.make_judgeagent_reference import setup
    from tests.scripted import Roles, Script

    bench, config, known = setup()
    with Roles(Script(target_right=known)) as roles:
        for item in bench.items:
            roles.script.golds[item.question] = item.gold
        return run_protocol("judgeagent", bench, models={"target": "tgt", "interviewer": "int"}, config=config,
                            run_dir=folder, registry=roles.registry(), cache=False, equivalence_weights=STEP).folder


def run_interviewer(folder: Path) -> Path:
    from judgeagent.benchmark import Benchmark
    from judgeagent.models.testing import FunctionModel
    from judgeagent.protocols import run_protocol
    from tests.test_interviewer import APPLES, CAPITAL, MOON, interviewer, target

    models = {"target": FunctionModel(target, "tgt"), "interviewer": FunctionModel(interviewer, "int"),
              "judge": FunctionModel(lambda m: "{}", "jdg")}
    config = {"judge_policy": "off", "followups": 0, "summary": False, "resamples": 200, "modification": "quantities"}
    return run_protocol("interviewer", Benchmark(Path("q.jsonl"), [APPLES, MOON, CAPITAL]), models=models,
                        config=config, run_dir=folder, cache=False, equivalence_weights=STEP).folder


def run_kieval(folder: Path) -> Path:
    from judgeagent.protocols import run_protocol
    from tests.test_kieval import OPTS, bench, models

    return run_protocol("kieval", bench(), models=models(), config=OPTS, run_dir=folder, cache=False,
                        equivalence_weights=STEP).folder


def run_teach2eval(folder: Path) -> Path:
    from judgeagent.protocols import run_protocol
    from tests.test_teach2eval import OPTS, bench, models

    return run_protocol("teach2eval", bench(), models=models(), config=OPTS, run_dir=folder, cache=False).folder


def run_dynaeval(folder: Path) -> Path:
    from judgeagent.benchmark import Benchmark
    from judgeagent.models.testing import FunctionModel
    from judgeagent.protocols import run_protocol
    from tests.test_dynaeval import investor, round_of

    third = FunctionModel(lambda m: "I would rather not say." if round_of(m) == 1 else
                          '{"reason": "greedy", "coins": 11}' if round_of(m) == 2 else
                          '{"reason": "fine", "coins": 2}', name="gamma")
    players = [investor([10, 10, 4], "alpha"), investor([0, 0, 0], "beta"), third]
    config = {"rounds": 3, "multiplier": 1.5, "endowment": 10, "max_runs": 2, "min_runs": 2}
    return run_protocol("dynaeval", Benchmark(Path("none"), []), models={"players": players}, config=config,
                        run_dir=folder, cache=False).folder


RUNS: dict[str, Callable[[Path], Path]] = {"judgeagent": run_judgeagent, "interviewer": run_interviewer,
                                           "kieval": run_kieval, "teach2eval": run_teach2eval,
                                           "dynaeval": run_dynaeval}


def capture(name: str, tmp: Path) -> dict[str, bytes]:
    """The three files of a fresh scripted run of protocol `name`, as bytes."""
    folder = RUNS[name](tmp / name)
    return {f: (folder / f).read_bytes() for f in FILES}


def stored(name: str) -> dict[str, bytes]:
    return {f: (REFERENCE / name / f).read_bytes() for f in FILES}


def write_or_check(name: str, found: dict[str, bytes], folder: Path, check: bool) -> bool:
    """Writes a run's files into `folder`, or with `check` compares them with those stored there (a missing one
    differs); True when some differ. tests/make_report_reference.py writes and checks its own this way."""
    if check:
        bad = [f for f, data in found.items() if not (folder / f).is_file() or (folder / f).read_bytes() != data]
        print(f"{name}: " + (f"DIFFERENT ({', '.join(bad)})" if bad else "same as the reference"))
        return bool(bad)
    folder.mkdir(parents=True, exist_ok=True)
    for f, data in found.items():
        (folder / f).write_bytes(data)
    print(f"wrote {', '.join(found)} in {folder}")
    return False


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--check", action="store_true", help="compare with the stored files instead of writing them")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        differ = [write_or_check(name, capture(name, Path(tmp)), REFERENCE / name, args.check) for name in RUNS]
    return 1 if any(differ) else 0

if __name__ == "__main__":
    sys.path.insert(0, str(ROOT))
    sys.exit(main())
