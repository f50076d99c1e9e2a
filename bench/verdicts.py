"""How often are verdicts right? The answer checker against a hand-labelled set of real answers.

    .venv/bin/python bench/verdicts.py [--file bench/data/verdicts.jsonl ...] [--judge local] [--no-judge]
    .venv/bin/python bench/verdicts.py --no-judge --file /tmp/evouna/TQ.json [--half tune|heldout|heldout-a|heldout-b|both]

The labelled file (see its header) names items of ../shared/data by dataset/split/qid and holds the
answers and their labels; questions and golds are read from the shared data, unless the record writes
its item out itself ("question" and "gold", a list whose first entry is the gold). A `.json` file in
EVOUNA's format (github wangcunxiang/QA-Eval, `EVOUNA/TQ.json`: one record per question with
`golden_answer`, its aliases joined by "/", and `answer_<system>` / `judge_<system>` for five systems) is
read too: each system's answer is a labelled pair, questions marked `improper` and unjudged answers
("nan") are left out, and the questions are split by a hash of their text into a tuning half and a
held-out half (`--half`), and the held-out half again, by another bit of the same hash, into two quarters:
`heldout-a` (read row by row while the rules were narrowed a second time, #46) and `heldout-b` (never read). Wrong
verdicts are listed only for the tuning half and `heldout-a`, so `heldout-b` is never read row by row. Prints, for the
rules alone, for the whole checker without a judge (the rules, then the learned equivalence step on what they leave
undecided: `--learned`, default the shipped evouna-tq weights; `--rules-only` leaves it out), and end to end with the
judge under each `--judge-policy`: accuracy, precision, recall and false-positive rate of "correct" verdicts, plus
each rule's decisions and their precision (with its 95% Wilson interval), and the time per pair of the rules and of
rules + step (their ratio, measured in the same run).
Without `--file`, both labelled files (development and held-out) are measured.
"""
from __future__ import annotations

import argparse
import asyncio
import hashlib
import json
import sys
import time
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.shared_data import find_data, require  # noqa: E402
from judgeagent.benchmark import Item, load_benchmark  # noqa: E402
from judgeagent.config import CheckerConfig  # noqa: E402
from judgeagent.errors import JudgeAgentError  # noqa: E402
from judgeagent.grading.answers import AnswerChecker, other_golds  # noqa: E402
from judgeagent.metrics import wilson  # noqa: E402

DATA = find_data()
UNDECIDED = ("undecided", "judge_failed", "learned")
"""Methods that are no rule's decision (the learned step is measured on its own line)."""


def load_triples(path: Path) -> list[tuple[dict[str, Any], Item]]:
    rows = [_row(path, k, line) for k, line in enumerate(path.read_text().splitlines(), 1)
            if line.strip() and not line.startswith("#")]
    files: dict[tuple[str, str], dict[str, Item]] = {}
    out = []
    for row in rows:
        if "question" in row:  # an item written out in the record itself: gold first, then aliases
            golds = [row["gold"]] if isinstance(row["gold"], str) else row["gold"]
            out.append((row, Item(row["qid"], row["question"], golds[0], aliases=tuple(golds[1:]))))
            continue
        key = (row["dataset"], row["split"])
        if key not in files:
            source = (ROOT / "corpora" / "demo" / "questions.jsonl" if row["dataset"] == "demo"
                      else DATA / row["dataset"] / f"{row['split']}.questions.jsonl")
            require(source)
            files[key] = {i.qid: i for i in load_benchmark(source).items}
        out.append((row, files[key][row["qid"]]))
    return out


def _row(path: Path, number: int, line: str) -> dict[str, Any]:
    """One labelled record, or one line naming what is wrong with it and the fix."""
    try:
        row = json.loads(line)
    except json.JSONDecodeError as e:
        raise JudgeAgentError(f"{path}:{number}: not JSON ({e.msg}); give one JSON object a line") from None
    wanted = ("answer", "correct", "qid") + (("gold",) if "question" in row else ("dataset", "split"))
    missing = [k for k in wanted if k not in row] if isinstance(row, dict) else list(wanted)
    if missing or not isinstance(row["correct"], bool):
        raise JudgeAgentError(f"{path}:{number}: a labelled answer needs {', '.join(wanted)} (\"correct\" true or "
                              f"false); missing or wrong: {', '.join(missing) or 'correct'}")
    return row


EVOUNA_SYSTEMS = ("fid", "gpt35", "chatgpt", "gpt4", "newbing")


def evouna_half(question: str) -> str:
    """`tune` or `heldout`: a fixed split of EVOUNA's questions by the SHA-256 of their text (about half each)."""
    return "tune" if int(hashlib.sha256(question.encode()).hexdigest(), 16) % 2 == 0 else "heldout"


def evouna_quarter(question: str) -> str:
    """`tune`, `heldout-a` or `heldout-b`: the held-out half split again by the hash's next bit (about a quarter
    of the questions each), so that one quarter can be read while the other stays unseen."""
    digest = int(hashlib.sha256(question.encode()).hexdigest(), 16)
    return "tune" if digest % 2 == 0 else ("heldout-a" if digest // 2 % 2 == 0 else "heldout-b")


HALVES = ("tune", "heldout", "heldout-a", "heldout-b", "both")
READ = ("tune", "heldout-a")
"""The parts whose wrong verdicts may be listed row by row; `heldout-b` (and so `heldout`) shows totals only."""


def _in_part(question: str, half: str) -> bool:
    return half == "both" or (evouna_half(question) if half in ("tune", "heldout") else evouna_quarter(question)) == half


def load_evouna(path: Path, half: str) -> list[tuple[dict[str, Any], Item]]:
    """EVOUNA's records as (row, item) pairs for one part (`tune`, `heldout`, `heldout-a`, `heldout-b` or `both`)."""
    if half not in HALVES:
        raise ValueError(f"unknown part {half!r}: use one of {', '.join(HALVES)}")
    try:
        records = json.loads(path.read_text())
    except json.JSONDecodeError as e:
        raise JudgeAgentError(f"{path}: not JSON ({e.msg}); a .json file is read as EVOUNA's format") from None
    if not isinstance(records, list) or not all(isinstance(r, dict) and {"question", "golden_answer"} <= r.keys()
                                                for r in records):
        raise JudgeAgentError(f"{path}: not EVOUNA's format (a list of records with question, golden_answer, "
                              "answer_<system> and judge_<system>); give a labelled .jsonl file instead")
    out = []
    for k, record in enumerate(records):
        if record.get("improper") or not _in_part(record["question"], half):
            continue
        golds = [g.strip() for g in record["golden_answer"].split("/") if g.strip()]
        item = Item(f"q{k}", record["question"], golds[0], aliases=tuple(golds[1:]))
        for system in EVOUNA_SYSTEMS:
            label = record.get(f"judge_{system}")
            if isinstance(label, bool) and isinstance(record.get(f"answer_{system}"), str):
                row = {"id": f"q{k}:{system}", "dataset": "evouna", "qid": item.qid,
                       "answer": record[f"answer_{system}"], "correct": label}
                out.append((row, item))
    return out


def rates(pairs: list[tuple[bool, bool]]) -> dict[str, float]:
    """(predicted correct, labelled correct) -> accuracy, precision, recall, false-positive rate."""
    tp = sum(p and t for p, t in pairs)
    fp = sum(p and not t for p, t in pairs)
    fn = sum(not p and t for p, t in pairs)
    tn = sum(not p and not t for p, t in pairs)
    div = lambda a, b: a / b if b else float("nan")  # noqa: E731
    return {"n": len(pairs), "accuracy": div(tp + tn, len(pairs)), "precision": div(tp, tp + fp),
            "recall": div(tp, tp + fn), "fpr": div(fp, fp + tn)}


async def verdicts(checker: AnswerChecker, triples: list[tuple[dict[str, Any], Item]]) -> list[Any]:
    return await asyncio.gather(*(checker.check(item.question, item.golds, row["answer"], options=item.options,
                                                gold_letter=item.gold_letter) for row, item in triples))


def report(name: str, triples: list[tuple[dict[str, Any], Item]], found: list[Any]) -> None:
    labels = [row["correct"] for row, _ in triples]
    r = rates([(v.correct, t) for v, t in zip(found, labels)])
    print(f"{name:<34} n {r['n']:>4}  accuracy {r['accuracy']:.3f}  precision {r['precision']:.3f}  "
          f"recall {r['recall']:.3f}  FPR {r['fpr']:.3f}")


def by_method(triples: list[tuple[dict[str, Any], Item]], found: list[Any]) -> None:
    """Each rule's decisions: how many, how many said "correct" / "wrong", and how many of them were right."""
    groups: dict[str, list[tuple[bool, bool]]] = defaultdict(list)
    for (row, _), v in zip(triples, found):
        groups[v.method].append((v.correct, v.correct == row["correct"]))
    decided = [ok for m, rows in groups.items() if m not in UNDECIDED for _, ok in rows]
    print(f"  decided without a model: {len(decided)} of {len(found)} ({100 * len(decided) / len(found):.1f}%), "
          f"right {sum(decided)} ({100 * sum(decided) / max(1, len(decided)):.2f}% precise)")
    print(f"    {'method':<16} {'n':>4}  {'said right':>10} {'said wrong':>10}  {'right':>5}  precision  "
          "95% interval")
    for method, rows in sorted(groups.items(), key=lambda kv: -len(kv[1])):
        yes, right = sum(c for c, _ in rows), sum(ok for _, ok in rows)
        low, high = wilson(right, len(rows))
        print(f"    {method:<16} {len(rows):>4}  {yes:>10} {len(rows) - yes:>10}  {right:>5}  "
              f"{100 * right / len(rows):>8.1f}%  {100 * low:.1f}-{100 * high:.1f}%")


def errors(triples: list[tuple[dict[str, Any], Item]], found: list[Any], limit: int = 12) -> None:
    wrong = [(row, item, v) for (row, item), v in zip(triples, found) if v.correct != row["correct"]
             and v.method not in UNDECIDED]
    for row, item, v in wrong[:limit]:
        print(f"    [{v.method}] gold {item.gold!r} answer {row['answer'][:90]!r} label {row['correct']} "
              f"({row['id']})")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--file", type=Path, action="append",
                        help="A labelled file (repeatable); default: the development set and the held-out set.")
    parser.add_argument("--judge", default="local", help="The judge model (registry name, local, provider:model).")
    parser.add_argument("--no-judge", action="store_true", help="Only the deterministic checker.")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--hard-probes", action="store_true",
                        help="Calibrate the judge with hard negatives (another gold of the asked kind, a near number, "
                             "part of the answer) and print the false-positive bound they give.")
    parser.add_argument("--show", type=int, default=12, help="How many wrong rule verdicts to list.")
    parser.add_argument("--learned", default="evouna-tq",
                        help="The learned equivalence step's weights (a file, or a shipped name; default evouna-tq, "
                             "the checker's default): the whole checker is measured with it, and the step alone on "
                             "what the rules leave undecided.")
    parser.add_argument("--rules-only", action="store_true",
                        help="Measure the rules alone (no learned step), as `--equivalence-weights none` grades.")
    parser.add_argument("--half", choices=HALVES, default="both",
                        help="For an EVOUNA file: which part of its questions to measure (both: the two halves in "
                             "turn; heldout-a and heldout-b: the held-out half's two quarters). Wrong verdicts are "
                             "listed for tune and heldout-a only.")
    args = parser.parse_args()
    paths = args.file or [ROOT / "bench" / "data" / "verdicts.jsonl", ROOT / "bench" / "data" / "verdicts_heldout.jsonl"]
    try:
        for path in paths:
            if not path.is_file():
                raise JudgeAgentError(f"{path}: no such file; give a labelled .jsonl file or EVOUNA's .json")
            measure(args, path)
            print()
    except JudgeAgentError as e:
        sys.exit(f"error: {e}")


def measure(args: argparse.Namespace, path: Path) -> None:
    if path.suffix == ".json":  # EVOUNA: the halves are measured apart, each with its own items' golds as others
        for half in (("tune", "heldout") if args.half == "both" else (args.half,)):
            # a quarter's other golds are its whole half's, so that its rules see the rivals the half's do
            pool = load_evouna(path, "heldout") if half.startswith("heldout-") else None
            measure_triples(args, f"{path.name}, {half} {'quarter' if pool else 'half'}", load_evouna(path, half),
                            show_errors=half in READ, pool=pool)
        return
    measure_triples(args, path.name, load_triples(path))


def measure_triples(args: argparse.Namespace, name: str, triples: list[tuple[dict[str, Any], Item]],
                    show_errors: bool = True, pool: list[tuple[dict[str, Any], Item]] | None = None) -> None:
    counts = Counter(row["correct"] for row, _ in triples)
    print(f"{name}: {len(triples)} labelled answers ({counts[True]} correct, {counts[False]} wrong), "
          f"{len({(r.get('dataset'), r['qid']) for r, _ in triples})} items")
    others = other_golds([g for _, item in {(r.get("dataset"), r["qid"]): i for r, i in pool or triples}.items()
                          for g in item.golds])
    start = time.perf_counter()
    alone = asyncio.run(verdicts(AnswerChecker(CheckerConfig(), None, others), triples))
    per_pair = 1000 * (time.perf_counter() - start) / max(1, len(triples))
    report("rules only, no judge", triples, alone)
    print(f"  {per_pair:.1f} ms per pair ({len(others)} other golds)")
    by_method(triples, alone)
    if show_errors:
        errors(triples, alone, args.show)
    if not args.rules_only:
        with_step = learned(args.learned, triples, others, alone)
        if with_step:
            print(f"  time per pair, rules + learned step / rules only: {with_step / max(per_pair, 1e-9):.2f}")
    if not args.no_judge:
        end_to_end(args, triples, others)


def learned(path: Path | str, triples: list[tuple[dict[str, Any], Item]], others: frozenset[str],
            alone: list[Any]) -> float | None:
    """The whole checker without a judge, with the learned step (its own row, `learned`: the default checker), and
    the step's precision where it decides; its time per pair in ms (None: the step is off)."""
    from judgeagent.grading.equivalence import load, named

    step, note = load(named(path))
    print(f"  {note}")
    if step is None:
        return None
    step.probability("warm-up", ["a"], "b")  # MiniLM's load is not a pair's time (a run loads it once too)
    start = time.perf_counter()
    found = asyncio.run(verdicts(AnswerChecker(CheckerConfig(), None, others, equivalence=step), triples))
    per_pair = 1000 * (time.perf_counter() - start) / max(1, len(triples))
    report("rules + learned step, no judge", triples, found)
    print(f"  {per_pair:.1f} ms per pair")
    by_method(triples, found)
    rows = [(v.correct, row["correct"]) for (row, _), v, w in zip(triples, found, alone) if w.method == "undecided"]
    r = rates(rows)
    print(f"  the learned step on the {r['n']} pairs the rules leave undecided: accuracy {r['accuracy']:.3f}, "
          f"precision {r['precision']:.3f}, recall {r['recall']:.3f}, FPR {r['fpr']:.3f}")
    return per_pair


def end_to_end(args: argparse.Namespace, triples: list[tuple[dict[str, Any], Item]], others: frozenset[str]) -> None:
    from judgeagent.grading.calibration import vetted_checker
    from judgeagent.grading.hard_negatives import hard_fpr
    from judgeagent.models import open_models

    items = list({(r.get("dataset"), r["qid"]): i for r, i in triples}.values())

    async def run(policy: str) -> tuple[Any, list[Any]]:
        settings = CheckerConfig(judge_policy=policy, hard_probes=args.hard_probes)  # type: ignore[arg-type]
        checker, calibration = await vetted_checker(settings, models.judge, items, args.seed)
        checker = AnswerChecker(settings, checker.judge, others, checker.judge_note)
        return calibration, await verdicts(checker, triples)

    with open_models(args.judge, cache_dir=ROOT / ".cache" / "bench-verdicts") as models:
        try:
            for policy in ("calibrated", "trust", "off"):
                start = time.perf_counter()
                calibration, found = asyncio.run(run(policy))
                report(f"end to end, judge {args.judge}, {policy}", triples, found)
                if calibration.pairs:
                    bound = hard_fpr(calibration.by_kind)
                    print(f"  calibration: {calibration.note}; {calibration.failures} unusable replies; "
                          f"by kind {calibration.by_kind}; hard negatives accepted {bound.accepted} of "
                          f"{bound.probes} (95% interval {', '.join(f'{x:.3f}' for x in bound.interval)})")
                by_method(triples, found)
                print(f"  ({time.perf_counter() - start:.0f} s)")
        finally:
            asyncio.run(models.aclose())


if __name__ == "__main__":
    main()
