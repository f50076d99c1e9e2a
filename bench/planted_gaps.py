"""Does the interview find what a model does not know? Planted-gap recovery on MultiHop-RAG and HotpotQA.

    .venv/bin/python bench/planted_gaps.py [--datasets multihop_rag hotpotqa] [--split small]
        [--shares 0.25 0.5 0.75] [--seeds 0 1 2] [--rounds 3] [--per-round 2]
    .venv/bin/python bench/planted_gaps.py --realistic [--limit 10] [--rounds 2] [--per-round 1]

The target is `judgeagent.protocols.judgeagent.validity.ExactTarget`: it knows whole topics of the corpus (MultiHop-RAG
categories; HotpotQA titles) up to a share of its documents, and nothing else. The interviewer is
SCRIPTED (`validity.ScriptedInterviewer`): medium and hard questions are path sentences with a path
entity asked for, easy ones the library's cloze questions. The figures therefore measure the
interview's sampling and adaptivity machinery (which documents its questions land on, at which
difficulty), not an LLM interviewer. The judge is off (deterministic answer rules only).

For each dataset, share and seed, four runs: the full protocol, `graph=False` (`--no-graph`),
`fixed_difficulty="medium"` and `extension=False`. Per run: precision@10 and recall@10 of the weak
documents the run names (questions ranked by failure rate, `validity.gaps`) against the planted unknown
documents, the AUC of per-document failure rate, questions needed for precision@10 >= 0.8, and the
ability estimate (Rasch EAP, default level difficulties) with its SE. Two attributions: `path_*` counts
extension questions only, over their knowledge paths' documents (what the report ranks; undefined for
`extension=False`); the plain metrics add base questions, over the documents of the graph entities
their question and gold name (for every configuration alike, so that `extension=False` is measured).
`--realistic` runs only the smaller confirmation with `validity.RagTarget` on the embedded model.
Finished runs are kept under .cache/validity/runs and reused: a second invocation only re-measures.
Printed: means with 95% intervals over shares x seeds, paired full-minus-ablation differences with
95% intervals, and whether ability ranks the three shares in order in every seed.
"""
from __future__ import annotations

import argparse
import itertools
import json
import sys
import time
from dataclasses import replace
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
from bench.shared_data import find_data, require

DATA = find_data()
CACHE = ROOT / ".cache" / "validity"
CONFIGS: dict[str, dict[str, Any]] = {"full": {}, "no-graph": {"graph": False},
                                      "fixed-difficulty": {"fixed_difficulty": "medium"},
                                      "no-extension": {"extension": False}}


def graph_for(dataset: str, split: str) -> Any:
    from judgeagent import build_graph, load_graph

    folder = CACHE / f"{'mhr' if dataset == 'multihop_rag' else 'hotpot'}_{split}"
    if (folder / "manifest.json").exists():
        return load_graph(folder)
    return build_graph(DATA / dataset / f"{split}.docs.jsonl", folder)


def base_entities(graph: Any, items: list[Any]) -> dict[str, list[str]]:
    """What the full protocol records for base questions (interview.engine._mentioned_entities), for
    every configuration: the graph entities the question and its gold name."""
    from judgeagent.entities import SpacyExtractor

    found = SpacyExtractor().extract([f"{i.question}\n{i.gold}" for i in items])
    return {i.qid: sorted({m.name for m in ms if m.name in graph.entity_row}) for i, ms in zip(items, found)}


def entity_documents(graph: Any) -> dict[str, list[str]]:
    docs = graph.doc_ids
    return {name: [docs[d] for d in graph.docs_of(e).tolist()] for e, name in enumerate(graph.entity_names)}


def one_run(graph: Any, bench: Any, known: Any, config: Any, folder: Path) -> list[dict[str, Any]]:
    from judgeagent.protocols.judgeagent.evaluate import evaluate
    from judgeagent.protocols.judgeagent.validity import (
        ExactTarget,
        ScriptedInterviewer,
        chat_reply,
        read_records,
        serve_roles,
    )

    if (folder / "summary.json").exists():  # finished before: re-measured, not re-run
        return read_records(folder)
    target = ExactTarget(graph, known)
    with serve_roles({"target": chat_reply(target), "interviewer": ScriptedInterviewer()}) as registry:
        evaluate(bench, graph, "target", interviewer="interviewer", judge="interviewer", config=config,
                 run_dir=folder, registry=registry, cache=False)
    return read_records(folder)


def measure(args: argparse.Namespace, dataset: str) -> list[dict[str, Any]]:
    from judgeagent.benchmark import load_benchmark
    from judgeagent.config import CheckerConfig
    from judgeagent.protocols.judgeagent.config import EvalConfig
    from judgeagent.protocols.judgeagent.validity import (
        recovery,
        run_ability,
        select_documents,
    )

    graph = graph_for(dataset, args.split)
    bench = load_benchmark(DATA / dataset / f"{args.split}.questions.jsonl")
    named, entity_docs = base_entities(graph, bench.items), entity_documents(graph)
    rows = []
    for share in args.shares:
        for seed in args.seeds:
            known = select_documents(graph, share, seed)
            unknown = set(known.topics) - known.doc_ids
            for name, knobs in CONFIGS.items():
                config = EvalConfig(checker=CheckerConfig(judge_policy="off"), seed=seed, rounds=args.rounds,
                                    questions_per_round=args.per_round, **knobs)
                folder = CACHE / "runs" / f"{dataset}-{args.split}-{share}-{seed}-{name}-r{args.rounds}q{args.per_round}"
                started = time.time()
                records = one_run(graph, bench, known, config, folder)
                records = [replace(r, entities=named.get(r.qid or "", []))
                           if r.stage == "grading" and not r.entities else r for r in records]
                rec = recovery(records, unknown, k=10, target_precision=0.8, entity_docs=entity_docs)
                path = recovery(records, unknown, k=10, target_precision=0.8)
                ability = run_ability(records)["overall"]
                rows.append({"dataset": dataset, "share": share, "seed": seed, "config": name,
                             "precision@10": rec.precision_at_k, "recall@10": rec.recall_at_k, "auc": rec.auc,
                             "questions": len(records), "questions_to_p80": rec.questions_to_precision,
                             "path_precision@10": path.precision_at_k if path.questions else None,
                             "path_auc": path.auc, "path_questions": path.questions,
                             "path_questions_to_p80": path.questions_to_precision,
                             "theta": ability.theta, "se": ability.se,
                             "accuracy": sum(r.correct for r in records) / len(records),
                             "seconds": round(time.time() - started, 1)})
                print(json.dumps(rows[-1]), flush=True)
    return rows


def realistic(args: argparse.Namespace) -> list[dict[str, Any]]:
    """The smaller confirmation: `validity.RagTarget` on the embedded SmolLM2-135M (top-3 known chunks in
    its prompt), full protocol, MultiHop-RAG, the first `--limit` questions, 25% vs 75% known, seed 0."""
    from judgeagent.benchmark import load_benchmark
    from judgeagent.config import CheckerConfig
    from judgeagent.models.local import local_server, local_spec
    from judgeagent.protocols.judgeagent.config import EvalConfig
    from judgeagent.protocols.judgeagent.evaluate import evaluate
    from judgeagent.protocols.judgeagent.validity import (
        ScriptedInterviewer,
        chat_reply,
        read_records,
        recovery,
        run_ability,
        select_documents,
        serve_roles,
    )
    from judgeagent.protocols.judgeagent.validity.rag import RagTarget

    graph = graph_for("multihop_rag", args.split)
    bench = load_benchmark(DATA / "multihop_rag" / f"{args.split}.questions.jsonl", limit=args.limit)
    rows = []
    with local_server(local_spec()) as spec:
        for share in (0.25, 0.75):
            known = select_documents(graph, share, 0)
            folder = CACHE / "runs" / f"realistic-{args.split}-{share}-l{args.limit}-r{args.rounds}q{args.per_round}"
            if not (folder / "summary.json").exists():
                target = RagTarget(graph, known, spec.base_url, spec.model)
                config = EvalConfig(checker=CheckerConfig(judge_policy="off"), rounds=args.rounds,
                                    questions_per_round=args.per_round)
                with serve_roles({"target": chat_reply(target), "interviewer": ScriptedInterviewer()},
                                 concurrency=1) as registry:
                    evaluate(bench, graph, "target", interviewer="interviewer", judge="interviewer",
                             config=config, run_dir=folder, registry=registry, cache=False)
            records = read_records(folder)
            path = recovery(records, set(known.topics) - known.doc_ids, k=10)
            ability = run_ability(records)["overall"]
            rows.append({"target": "rag-smollm2-135m", "share": share, "questions": len(records),
                         "accuracy": sum(r.correct for r in records) / len(records),
                         "path_precision@10": path.precision_at_k, "path_auc": path.auc,
                         "theta": ability.theta, "se": ability.se})
            print(json.dumps(rows[-1]), flush=True)
    return rows


def summarise(rows: list[dict[str, Any]]) -> dict[str, Any]:
    from judgeagent.metrics import mean_interval

    out: dict[str, Any] = {}
    for dataset in sorted({r["dataset"] for r in rows}):
        mine = [r for r in rows if r["dataset"] == dataset]
        by = {(r["share"], r["seed"], r["config"]): r for r in mine}
        table: dict[str, Any] = {}
        for name in CONFIGS:
            runs = [r for r in mine if r["config"] == name]
            table[name] = {m: mean_interval([r[m] if r[m] is not None else 0.5 for r in runs])
                           for m in ("precision@10", "auc", "recall@10", "theta")}
            table[name].update({m: mean_interval([r[m] for r in runs if r.get(m) is not None])
                                for m in ("path_precision@10", "path_auc")})
            if name != "full":
                keys = [(s, d) for s, d, c in by if c == "full" and (s, d, name) in by]
                table[name]["full_minus"] = {m: mean_interval([by[(s, d, "full")][m] - by[(s, d, name)][m]
                                                               for s, d in keys
                                                               if by[(s, d, name)][m] is not None
                                                               and by[(s, d, "full")][m] is not None])
                                             for m in ("precision@10", "auc", "path_precision@10", "path_auc")}
        ordered = {}
        for seed in sorted({r["seed"] for r in mine}):
            thetas = [by[(s, seed, "full")]["theta"] for s in sorted({r["share"] for r in mine})
                      if (s, seed, "full") in by]
            ordered[seed] = all(a < b for a, b in itertools.pairwise(thetas))
        table["ability_ordered_per_seed"] = ordered
        out[dataset] = table
    return out


def _fmt(m: dict[str, Any]) -> str:
    if m.get("mean") is None:
        return "-"
    return f"{m['mean']:.2f}" + (f" ± {m['half_width']:.2f}" if m.get("half_width") is not None else "")


def markdown(summary: dict[str, Any]) -> str:
    """The tables bench/README.md quotes: means ± 95% half-widths over shares x seeds."""
    out = []
    for dataset, table in summary.items():
        head = ("| configuration | precision@10 | AUC | path precision@10 | path AUC | "
                "full - this: precision@10 | full - this: AUC | full - this: path AUC |")
        out += [f"**{dataset}**", "", head, "|---|---|---|---|---|---|---|---|"]
        for name in CONFIGS:
            t = table[name]
            diff = t.get("full_minus", {})
            out.append(f"| {name} | {_fmt(t['precision@10'])} | {_fmt(t['auc'])} | {_fmt(t['path_precision@10'])} | "
                       f"{_fmt(t['path_auc'])} | {_fmt(diff.get('precision@10', {}))} | {_fmt(diff.get('auc', {}))} | "
                       f"{_fmt(diff.get('path_auc', {}))} |")
        out += ["", f"ability ordered 25% < 50% < 75% (full protocol) per seed: {table['ability_ordered_per_seed']}", ""]
    return "\n".join(out)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--datasets", nargs="+", default=["multihop_rag", "hotpotqa"])
    parser.add_argument("--split", default="small")
    parser.add_argument("--shares", nargs="+", type=float, default=[0.25, 0.5, 0.75])
    parser.add_argument("--seeds", nargs="+", type=int, default=[0, 1, 2])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--per-round", type=int, default=2)
    parser.add_argument("--out", type=Path, default=CACHE / "planted_gaps.json")
    parser.add_argument("--realistic", action="store_true",
                        help="only the confirmation with the embedded model as a RAG target")
    parser.add_argument("--limit", type=int, default=10, help="benchmark questions for --realistic")
    args = parser.parse_args()
    require(*(DATA / d for d in (["multihop_rag"] if args.realistic else args.datasets)))
    if args.realistic:
        rows = realistic(args)
        (CACHE / "planted_gaps_realistic.json").write_text(json.dumps(rows, indent=1))
        return
    rows = [row for dataset in args.datasets for row in measure(args, dataset)]
    summary = summarise(rows)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps({"rows": rows, "summary": summary}, indent=1))
    print(markdown(summary))


if __name__ == "__main__":
    main()
