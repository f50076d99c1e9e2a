"""KIEval's numbers (paper Section 3.3) from episode rows, and the report sections."""
from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from statistics import mean
from typing import Any, cast

from ...metrics import mean_interval
from ...report.calibration import calibration_line
from ...report.mdtext import md_quote, md_text
from ..base import Section
from .rows import DialogueRow, EvaluationDump, Example, Summary
from .rubric import ASPECTS, dialogue_score

SCORED = (*ASPECTS, "overall")
"""What the evaluator scores per turn: the five aspects and its overall score."""


def scored_rounds(evaluations: Sequence[EvaluationDump | None], early_stop: bool = True) -> list[EvaluationDump | None]:
    """The evaluations that count: up to and including the first that stops the conversation (all of them when
    the early stop is off)."""
    out = []
    for e in evaluations:
        out.append(e)
        if early_stop and e is not None and e["stop_conversation"]:
            break
    return out


def conversation_scores(evaluations: Sequence[EvaluationDump | None], rounds: int, scoring: str = "paper",
                        decay: bool = True, early_stop: bool = True) -> dict[str, float] | None:
    """Per aspect and overall, the decay-weighted KIEval score of one conversation (0..1, `rubric.dialogue_score`),
    or None when no turn of it was evaluated (an evaluator that never answered says nothing about the candidate)."""
    counted = scored_rounds(evaluations, early_stop)
    if all(e is None for e in counted):
        return None
    out = {}
    for key in SCORED:
        turn = [None if e is None else (e["overall_score"] if key == "overall" else e[key]["score"]) for e in counted]
        out[key] = dialogue_score(turn, rounds, scoring, decay)
    return out


def numbers(rows: list[DialogueRow], rounds: int, scoring: str = "paper", decay: bool = True,
            early_stop: bool = True) -> Summary:
    """The run's figures over its conversations (verified items), with the dropped items counted.

    Valid rounds: with `paper` scoring, a conversation's length (the authors' `conversation_completeness`, the
    stopping turn included); with `linear`, the turns before the stop (judgeagent's earlier count)."""
    kept = [r for r in rows if r.get("verified", True)]
    dropped = Counter(r["dropped"] for r in rows if not r.get("verified", True))
    scored = [(r, conversation_scores([x["evaluation"] for x in r["rounds"]], rounds, scoring, decay, early_stop))
              for r in kept]
    with_scores = [(r, s) for r, s in scored if s is not None]
    evaluations = [x for r in kept for x in r["rounds"]]
    turn_scores = {key: [(x["evaluation"]["overall_score"] if key == "overall" else x["evaluation"][key]["score"])
                         for x in evaluations if x["evaluation"] is not None] for key in SCORED}
    stops = Counter(r["stop_reason"] for r in kept if r["stop_reason"] != "none")
    lengths = [len(r["rounds"]) if scoring == "paper" else r["valid_rounds"] for r in kept]
    overall = [s["overall"] for _, s in with_scores]
    return {
        "items": len(rows), "conversations": len(kept), "scored_conversations": len(with_scores),
        "dropped": sum(dropped.values()), "dropped_by_reason": dict(dropped.most_common()),
        "kieval": {k: _avg([s[k] for _, s in with_scores]) for k in SCORED},
        "turn_means": {k: _avg(v) for k, v in turn_scores.items()},
        "valid_rounds": _avg(lengths),
        "rounds": rounds, "scoring": {"scoring": scoring, "decay": decay, "early_stop": early_stop},
        "early_stops": sum(stops.values()), "early_stops_by_reason": dict(stops.most_common()),
        "evaluations": len(evaluations), "failed_evaluations": sum(1 for x in evaluations if x["evaluation"] is None),
        "benchmark_accuracy": _avg([1.0 if r["correct"] else 0.0 for r in kept]),
        # 95% intervals over conversations (the paper gives none; reproduce.md prints them beside ours)
        "intervals": {"kieval": mean_interval(overall)["interval"],
                      "valid_rounds": mean_interval(lengths)["interval"]},
        "examples": examples(with_scores),
    }


def examples(scored: list[tuple[DialogueRow, dict[str, float | None]]]) -> dict[str, Example]:
    """The best, median and worst conversations by overall KIEval score (ties: benchmark order)."""
    if not scored:
        return {}
    ranked = sorted(scored, key=lambda pair: -pair[1]["overall"])
    shown: dict[str, int] = {}
    for name, at in (("best", 0), ("worst", len(ranked) - 1), ("median", len(ranked) // 2)):
        if at not in shown.values():  # fewer than three conversations: each is shown once
            shown[name] = at
    shown = dict(sorted(shown.items(), key=lambda pair: pair[1]))
    return {name: {"qid": r["qid"], "scores": s, "turns": r["turns"], "rounds": r["rounds"], "path": r.get("path"),
                   "stop_reason": r["stop_reason"], "correct": r["correct"]}
            for name, (r, s) in ((name, ranked[at]) for name, at in shown.items())}


def _avg(values: Sequence[float]) -> float | None:
    return mean(values) if values else None


def _pct(value: float | None) -> str:
    return "-" if value is None else f"{100 * value:.1f}"


def bar(value: float | None, width: int = 30) -> str:
    """A text bar for a 0..1 value."""
    if value is None:
        return ""
    filled = round(value * width)
    return "█" * filled + "·" * (width - filled)


def sections(summary: Summary) -> list[Section]:
    mark = (summary.get("trust") or {}).get("kieval")
    scores = (f"**Unvetted:** these scores are {mark}; read them as the evaluator's opinion, not a measurement."
              f"\n\n{_scores(summary)}" if mark else _scores(summary))
    out = [Section("KIEval scores", scores), Section("Verification and early stops", _stops(summary))]
    for name, conv in summary["examples"].items():
        out.append(Section(f"The {name} conversation ({md_text(conv['qid'])})", _conversation(conv)))
    # Last: what the evaluator's verdicts on the benchmark answers rest on (its calibration, with the hard probes' bound)
    return [*out, Section("Judge calibration",
                          calibration_line(cast(dict[str, Any] | None, summary.get("judge_calibration"))))]


def _scores(s: Summary) -> str:
    k, t = s["kieval"], s["turn_means"]
    lines = [(f"{s['scored_conversations']} conversations scored (of {s['conversations']} verified items; "
             f"{s['items']} items in all), at most {s['rounds']} rounds each. {scoring_note(s)}"), "",
             "| aspect | KIEval score | mean turn score (1-4) | |", "|---|---|---|---|"]
    lines += [f"| {key} | {_pct(k[key])} | {'-' if t[key] is None else f'{t[key]:.2f}'} | `{bar(k[key])}` |"
              for key in SCORED]
    rounds = "-" if s["valid_rounds"] is None else f"{s['valid_rounds']:.2f}"
    lines += ["", f"- mean valid rounds: {rounds} of {s['rounds']}",
              f"- benchmark accuracy on the same items: {_pct(s['benchmark_accuracy'])}",
              (f"- evaluations: {s['evaluations']}, failed (no valid scores after one repair): "
              f"{s['failed_evaluations']}")]
    return "\n".join(lines)


def scoring_note(s: Summary) -> str:
    """Which scoring produced the numbers, in one sentence (runs summarised before 0.2 were scored `linear`)."""
    how = s.get("scoring") or {"scoring": "linear", "decay": True, "early_stop": True}
    weights = "w_i = exp(-i/n)" if how["decay"] else "w_i = 1 (no decaying weights: the paper's DW ablation)"
    if how["scoring"] == "paper":
        weights = weights if not how["decay"] else "w_j = exp(-0.2 j) for the j-th turn, j = 0.."
        text = (f"Scoring `paper`, as the paper's tables (the authors' get_scores.py): KIEval score = "
                f"sum(s_i w_i) / sum(w_i) over the turns the conversation had, {weights}, turn scores 1/2/3/4 "
                "counted 10/30/70/100; failed evaluations left out; valid rounds count the stopping turn.")
    else:
        text = (f"Scoring `linear`: KIEval score = sum(s_i w_i) / sum(w_i) over the n planned rounds, {weights}, "
                "turn scores 1..4 mapped evenly onto 0..100; rounds after an early stop and failed evaluations "
                "count as the poorest score.")
    return text + ("" if how["early_stop"] else " Early stop off (the paper's ES ablation): every conversation "
                   "ran all its rounds.")


def _stops(s: Summary) -> str:
    lines = [f"Verification kept {s['conversations']} of {s['items']} items; dropped {s['dropped']}."]
    lines += [f"- {reason}: {n}" for reason, n in s["dropped_by_reason"].items()]
    lines += ["", f"Early stops: {s['early_stops']} of {s['conversations']} conversations."]
    if s["early_stops_by_reason"]:
        lines += ["", "| reason | conversations |", "|---|---|"]
        lines += [f"| {reason} | {n} |" for reason, n in s["early_stops_by_reason"].items()]
    return "\n".join(lines)


def _conversation(c: Example) -> str:
    scores = ", ".join(f"{key} {_pct(c['scores'][key])}" for key in SCORED)
    lines = [(f"KIEval: {scores}; benchmark answer {'correct' if c['correct'] else 'wrong'}; "
             f"early stop: {c['stop_reason']}.")]
    if c.get("path"):
        lines.append(f"Knowledge path: {md_text(' -> '.join(c['path']['entities']))}")
    evaluations = {x["round"]: x for x in c["rounds"]}
    for turn in c["turns"]:
        lines += ["", f"**{turn['speaker']}** (round {turn['round']}):", "", md_quote(turn["content"])]
        x = evaluations.get(turn["round"])
        if turn["speaker"] == "candidate" and x is not None:
            e = x["evaluation"]
            if e is None:
                lines += ["", f"*evaluation failed: {md_text(x['failure'])}*"]
            else:
                marks = ", ".join(f"{a} {e[a]['score']}" for a in ASPECTS)
                lines += ["", (f"*evaluator: {marks}, overall {e['overall_score']}; stop: {x['stop_reason']}. "
                          f"{md_text(e['overall_comment'])}*")]
    return "\n".join(lines)

