"""Write tests/data/judgeagent_reference.json: what JudgeAgent gives on the equality test's configuration.

    PYTHONPATH=. .venv/bin/python tests/make_judgeagent_reference.py [--check]

20 MultiHop-RAG questions (batches of 5, no extension), the target right on every third question, the
scripted loopback servers of tests/scripted.py; then `validate`. The file holds exactly what
tests/test_protocols.py compares: verdicts (record id, correct, method), tier trajectories, overall score,
validation's acc1/acc2/cr/cte/delta/mcnemar_p and its intervals; and the run's identity hash and folder
name for a registry at fixed addresses. It was first written by the code before
JudgeAgent was ported onto the shared runner (protocols/runner.py), so the test keeps proving that the
port changed no result after the old path is gone. `--check` compares a fresh run with the file instead
of writing it (the loopback script is deterministic: two captures are equal).
"""
from __future__ import annotations

import argparse
import json
import sys
import tempfile
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
REFERENCE = ROOT / "tests" / "data" / "judgeagent_reference.json"
KEEP = ("acc1", "acc2", "cr", "cte", "delta", "mcnemar_p")


def outcome(folder: Path, validation: dict[str, Any]) -> dict[str, Any]:
    """What the equality test compares, as plain JSON (tuples become lists)."""
    rows = [json.loads(line) for line in (folder / "records.jsonl").read_text().splitlines() if line.strip()]
    summary = json.loads((folder / "summary.json").read_text())
    found = {
        "verdicts": sorted([r["record_id"], r["correct"], r["verdict"]["method"]] for r in rows),
        "trajectories": summary["trajectories"],
        "overall_score": summary["overall_score"],
        "validation": {k: validation["overall"][k] for k in KEEP},
        "intervals": validation["intervals"],
    }
    return json.loads(json.dumps(found))


def setup() -> tuple[Any, Any, set[str]]:
    """The benchmark (20 questions), the config, and the questions the scripted target knows."""
    from judgeagent.benchmark import load_benchmark
    from judgeagent.config import EvalConfig
    from tests.conftest import DATA

    bench = load_benchmark(DATA / "multihop_rag" / "small.questions.jsonl", limit=20)
    return bench, EvalConfig(batch_size=5, extension=False), {i.question for i in bench.items[::3]}


def fixed_registry() -> Any:
    """A registry at fixed addresses (the loopback servers' ports change from run to run)."""
    from judgeagent.models import ModelSpec
    from judgeagent.models.spec import Registry

    return Registry({"tgt": ModelSpec(name="tgt", base_url="http://127.0.0.1:9/v1", model="target-model"),
                     "int": ModelSpec(name="int", base_url="http://127.0.0.1:10/v1", model="interviewer-model")})


def identity() -> dict[str, str]:
    """The run's identity hash and default folder name with `fixed_registry`: runs started by the code
    before the port must resume under the same folder and identity."""
    bench, config, _ = setup()
    registry = fixed_registry()
    try:  # the code before the port
        from judgeagent.interview.evaluate import _identity, _name  # type: ignore[attr-defined]
    except ImportError:
        from judgeagent.protocols import PROTOCOLS, RunRequest
        from judgeagent.protocols.runner import default_folder
        from judgeagent.protocols.runner import identity as ident

        protocol = PROTOCOLS["judgeagent"]
        request = RunRequest(bench, None, protocol.resolve_roles({"target": "tgt", "interviewer": "int"}), config)
        found = ident(protocol, request, registry)
        return {"config_id": found, "folder": default_folder(protocol, request, found).name}
    specs = {role: registry.resolve(name) for role, name in (("target", "tgt"), ("interviewer", "int"),
                                                             ("judge", "int"))}
    found = _identity(bench, None, specs, config)
    return {"config_id": found, "folder": _name(bench, "tgt", found)}


def capture(folder: Path) -> dict[str, Any]:
    """Run JudgeAgent through `evaluate` on the loopback servers, validate, and return the outcome."""
    from judgeagent.interview.evaluate import evaluate
    from judgeagent.interview.validate import validate
    from tests.scripted import Roles, Script

    bench, config, known = setup()
    with Roles(Script(target_right=known)) as roles:
        for item in bench.items:
            roles.script.golds[item.question] = item.answer
        registry = roles.registry()
        result = evaluate(bench, None, "tgt", interviewer="int", config=config, run_dir=folder,
                          registry=registry, cache=False)
        return outcome(result.folder, validate(result.folder, registry=registry, cache=False))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--check", action="store_true", help="compare with the stored file instead of writing it")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        found = {**capture(Path(tmp) / "run"), "identity": identity()}
    if args.check:
        same = found == json.loads(REFERENCE.read_text())
        print("same as the reference" if same else "DIFFERENT from the reference")
        return 0 if same else 1
    REFERENCE.parent.mkdir(parents=True, exist_ok=True)
    REFERENCE.write_text(json.dumps(found, indent=1) + "\n")
    print(f"wrote {REFERENCE}")
    return 0


if __name__ == "__main__":
    sys.path.insert(0, str(ROOT))
    sys.exit(main())
