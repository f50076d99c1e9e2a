"""The numbers of a run, computed from its records and feedback (never kept separately)."""
from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from typing import Any, NotRequired, TypedDict

from .authors import ALL_RIGHT
from .records import FeedbackEntry, QuestionRecord
from .scoring import overall


class Accuracy(TypedDict):
    n: int
    correct: int
    accuracy: float


class RoundCounts(TypedDict):
    run: int
    skipped: int
    rejected_questions: int
    rejected_by_reason: dict[str, int]
    by_generator: dict[str, int]


class LeakCounts(TypedDict):
    batches_with_leaks: int
    redacted: int


class Summary(TypedDict):
    """summary.json of a JudgeAgent run, less what the protocol and the runner add (`judge_calibration`, `usage`)."""

    overall_score: float
    questions: int
    batches: int
    accuracy: dict[str, Accuracy]
    trajectories: dict[str, list[str]]
    rounds: RoundCounts
    leakage: LeakCounts
    feedback_failures: int
    feedback_skipped: NotRequired[int]
    """setting=authors: batches all right, on which no feedback was asked (absent where none)."""
    target_failures: int
    judged_by: dict[str, int]


def summarise(records: list[QuestionRecord], feedback: list[FeedbackEntry]) -> Summary:
    feedback = sorted(feedback, key=lambda f: f.batch)
    rounds = [r for f in feedback for r in f.rounds]
    out: Summary = {
        "overall_score": overall((f.score for f in feedback), (f.asked for f in feedback)),
        "questions": len(records),
        "batches": len(feedback),
        "accuracy": _accuracy(records),
        "trajectories": {str(f.batch): f.trajectory for f in feedback},
        "rounds": {
            "run": sum(1 for r in rounds if "skipped" not in r),
            "skipped": sum(1 for r in rounds if "skipped" in r),
            "rejected_questions": sum(len(r["rejected"]) for r in rounds),
            "rejected_by_reason": _count(why for r in rounds for why in r["rejected"]),
            "by_generator": _count(r.get("generator", "llm") for r in rounds),
        },
        "leakage": {
            "batches_with_leaks": sum(1 for f in feedback if f.leakage.detected),
            "redacted": sum(1 for f in feedback if f.leakage.redacted),
        },
        "feedback_failures": sum(1 for f in feedback if f.feedback_error and f.feedback_error != ALL_RIGHT),
        "target_failures": sum(1 for r in records if r.target_error),
        "judged_by": _count(r.verdict.method for r in records),
    }
    skipped = sum(1 for f in feedback if f.feedback_error == ALL_RIGHT)
    if skipped:  # only setting=authors skips: the summaries of runs at `ours` keep their keys
        out["feedback_skipped"] = skipped
    return out


def _accuracy(records: list[QuestionRecord]) -> dict[str, Accuracy]:
    groups: dict[str, list[bool]] = defaultdict(list)
    for r in records:
        level = r.difficulty or "unlabelled"
        for key in ("all", r.stage, f"{r.stage}/{level}"):
            groups[key].append(r.correct)
    return {k: {"n": len(v), "correct": sum(v), "accuracy": sum(v) / len(v)}
            for k, v in sorted(groups.items())}


def _count(values: Iterable[str]) -> dict[str, int]:
    out: dict[str, int] = defaultdict(int)
    for v in values:
        out[v] += 1
    return dict(sorted(out.items()))


def render_summary(summary: dict[str, Any], folder: str, usage: dict[str, dict[str, Any]] | None = None) -> str:
    lines = [f"run {folder}", f"  overall score {summary['overall_score']:.3f} over {summary['questions']} questions "
             f"in {summary['batches']} batches"]
    for key, a in summary["accuracy"].items():
        lines.append(f"  accuracy {key:<24} {a['accuracy']:.3f}  ({a['correct']}/{a['n']})")
    for batch, tiers in summary["trajectories"].items():
        lines.append(f"  batch {batch}: tiers {' -> '.join(tiers)}")
    r, leak = summary["rounds"], summary["leakage"]
    lines.append(f"  extension rounds run {r['run']}, skipped {r['skipped']}, generated questions rejected "
                 f"{r['rejected_questions']} {r.get('rejected_by_reason') or ''}; feedback leaks caught in {leak['batches_with_leaks']} batches "
                 f"({leak['redacted']} redacted)")
    lines.append(f"  answers judged by: {summary['judged_by']}")
    if summary.get("feedback_skipped"):
        lines.append(f"  feedback not asked on {summary['feedback_skipped']} batches answered all right (setting=authors)")
    calibration = summary.get("judge_calibration")
    if calibration:
        lines.append(f"  judge: {calibration['note']}")
    if usage:
        for role, u in usage.items():
            lines.append(f"  {role:<12} calls {u['calls']:>5}  cached {u['cache_hits']:>5}  failed {u['failures']:>3}  "
                         f"tokens in {u['input_tokens']:>8} out {u['output_tokens']:>7}  ${u['cost']:.4f}")
    return "\n".join(lines)
