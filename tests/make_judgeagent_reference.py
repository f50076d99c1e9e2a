"""Write tests/data/judgeagent_reference.json: what JudgeAgent gives on the equality test's configuration.

    PYTHONPATH=. .venv/bin/python tests/make_judgeagent_reference.py [--check] [--extension GRAPH]

20 MultiHop-RAG questions (batches of 5, no extension), the target right on every third question, the
scripted loopback servers of tests/scripted.py; then `validate`. The file holds exactly what
tests/test_protocols.py compares: verdicts (record id, correct, method), tier trajectories, overall score,
validation's acc1/acc2/cr/cte/delta/mcnemar_p and its intervals; and the run's identity hash and folder
name for a registry at fixed addresses. It was first written by the code before
JudgeAgent was ported onto the shared runner (protocols/runner.py), so the test keeps proving that the
port changed no result after the old path is gone. `--check` compares a fresh run with the file instead
of writing it (the loopback script is deterministic: two captures are equal).

`--extension GRAPH` writes tests/data/judgeagent_reference_extension.json instead: the same 20 questions
with the extension stage on (3 rounds a batch, paths sampled from GRAPH, a graph of MultiHop-RAG small
with the default GraphConfig), so the comparison covers tiers, paths, generated questions and their
verdicts too. It was first written by the code before the port (commit 4d3ff80), and written again by
the code of issue 29 (entity specificity), which changes path selection by design: seeds drawn by
weight, generic concepts no seeds and weaker hops. That re-capture changed the extension rows (12 of
12: other paths, so other questions), 7 of 32 verdicts (extension ones only; the 20 base verdicts and
validation are the same), batches 0 and 3's tier trajectories and the overall score (0.75 -> 0.703).
Written a third time by issue 29's second pass, which again changes paths by design (each path drawn from
a pool of the best walks, hops linked through the question): the extension rows changed (12 of 12), 8 of
32 verdicts (extension ones only; base verdicts, validation and its intervals are the same), the tier
trajectories of batches 0 and 3 (0 stays medium, 3 goes easy), the overall score stayed 0.703.
Written a fourth time by issue 29's fifth pass (documents the question names by their metadata, and the
pool's document floor in place of the per-hop penalty): the extension rows changed (11 of 12), 6 of 32
verdicts (extension ones only; base verdicts, validation and its intervals are the same), batch 0's tier
trajectory, the overall score 0.703 -> 0.609.
Written a fifth time by issue 48 (a stand-in for a question mention chosen by its name before its fit; the walk
links the question's best chunk whenever it does not start there; homes only for unambiguous names), which
changes paths by design: 3 of 12 extension rows changed; verdicts, tier trajectories, the overall score,
validation and its intervals are the same.
Written a sixth time by issue 48's ninth pass (a pool's walk drawn by score at a point the seed spreads, and chunks
of documents holding the question's mentions weighing more in the walk), which changes paths by design: the
extension rows changed (12 of 12), 4 of 32 verdicts (extension ones only; base verdicts, validation and its
intervals are the same), batch 3's tier trajectory (it stays medium) and the overall score (0.609 -> 0.703).
Written a seventh time by issue 48's tenth pass (chunks of the documents whose metadata holds a day the question
names weigh NAMED_SOURCE more in the walk, `graph/dates.py`): 1 of 12 extension rows changed its path and question
(round 12's); verdicts, tier trajectories, the overall score, validation and its intervals are the same.
It holds no identity: the graph's id is part of it, and a rebuilt graph has a new one.
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
REFERENCE_EXTENSION = ROOT / "tests" / "data" / "judgeagent_reference_extension.json"
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
    extension = [r for r in rows if r.get("stage") == "extension"]
    if extension:  # what the rounds asked, at which difficulty, from which path
        found["extension"] = sorted([r["record_id"], r["difficulty"], r["question"], r["gold"],
                                     r["path"]["seed"], r["path"]["chunk_ids"]] for r in extension)
    return json.loads(json.dumps(found))


def setup(extension: bool = False) -> tuple[Any, Any, set[str]]:
    """The benchmark (20 questions), the config, and the questions the scripted target knows."""
    from judgeagent.benchmark import load_benchmark
    from judgeagent.protocols.judgeagent.config import EvalConfig
    from tests.conftest import DATA

    bench = load_benchmark(DATA / "multihop_rag" / "small.questions.jsonl", limit=20)
    known = {i.question for i in bench.items[::3]}
    if extension:  # the target also knows the scripted questions about some fragments: mixed verdicts
        known |= {f"fragment {n} " for n in range(0, 97, 3)}
    return bench, EvalConfig(batch_size=5, extension=extension), known


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
        from judgeagent.protocols.judgeagent.evaluate import _identity, _name  # type: ignore[attr-defined]
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


def capture(folder: Path, graph: Any = None) -> dict[str, Any]:
    """Run JudgeAgent through `evaluate` on the loopback servers, validate, and return the outcome. With a
    graph, the extension stage runs on it."""
    from judgeagent.protocols.judgeagent.evaluate import evaluate
    from judgeagent.protocols.judgeagent.validate import validate
    from tests.scripted import Roles, Script

    bench, config, known = setup(extension=graph is not None)
    with Roles(Script(target_right=known)) as roles:
        for item in bench.items:
            roles.script.golds[item.question] = item.gold
        registry = roles.registry()
        result = evaluate(bench, graph, "tgt", interviewer="int", config=config, run_dir=folder,
                          registry=registry, cache=False)
        return outcome(result.folder, validate(result.folder, registry=registry, cache=False))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--check", action="store_true", help="compare with the stored file instead of writing it")
    parser.add_argument("--extension", type=Path, metavar="GRAPH",
                        help="the extension configuration, on this graph of MultiHop-RAG small")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        if args.extension:
            from judgeagent import load_graph

            reference, found = REFERENCE_EXTENSION, capture(Path(tmp) / "run", load_graph(args.extension))
        else:
            reference, found = REFERENCE, {**capture(Path(tmp) / "run"), "identity": identity()}
    if args.check:
        same = found == json.loads(reference.read_text())
        print("same as the reference" if same else "DIFFERENT from the reference")
        return 0 if same else 1
    reference.parent.mkdir(parents=True, exist_ok=True)
    reference.write_text(json.dumps(found, indent=1) + "\n")
    print(f"wrote {reference}")
    return 0


if __name__ == "__main__":
    sys.path.insert(0, str(ROOT))
    sys.exit(main())
