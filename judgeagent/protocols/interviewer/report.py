"""The Interview Report's numbers (paper Section 3.2) and the contamination probe, from episode rows."""
from __future__ import annotations

from collections import Counter, defaultdict
from typing import Any, cast

from ...metrics import bootstrap, mcnemar_exact
from ...report.calibration import calibration_line
from ...report.mdtext import md_lines, md_text
from ..base import Section
from .rows import ErrorExample, Errors, ItemRow, MeanScore, Probe, Scoring, Summary


def score_at(attempts: list[bool], n: int) -> float:
    """score_n of one item: once solved (or out of tries) the last score carries forward (paper 3.2)."""
    return 1.0 if attempts[min(n, len(attempts)) - 1] else 0.0


def numbers(rows: list[ItemRow], revisions: int, resamples: int = 2000, seed: int = 0) -> Summary:
    n = len(rows)
    tries = revisions + 1
    scores = {f"@{k}": sum(score_at(r["attempts"], k) for r in rows) / n if n else None for k in range(1, tries + 1)}
    first, last = scores["@1"], scores[f"@{tries}"]
    out: Summary = {"items": n, "score_at": scores,
            "adaptability": None if first is None or last is None else last - first,
            "followup": _followups(rows), "errors": _errors(rows), "probe": probe(rows, resamples, seed),
            "modified": sum(1 for r in rows if r["versions"]["changed"]),
            "modification_notes": dict(Counter(r["versions"]["note"] for r in rows)),
            "modification_methods": dict(Counter(r["versions"].get("method", "paraphrase" if r["versions"]["changed"]
                                                                       else "none") for r in rows))}
    scored = [r["fact_scores"] for r in rows if r.get("fact_scores")]
    if scored:  # facts=true: the mean atomic-fact score at each attempt, carried forward like Score@n
        out["fact_score_at"] = {"items": len(scored), **{f"@{k}": sum(f[min(k, len(f)) - 1] for f in scored)
                                                         / len(scored) for k in range(1, tries + 1)}}
    unclear = [r["unclarified"] for r in rows if "unclarified" in r]
    if unclear:  # unclarifying: how often the interviewee asked for the removed information before answering
        out["unclarified"] = {"items": len(unclear), "asked": sum(u["asked"] for u in unclear),
                              "given_by_clarification": sum(str(u["given_at"]).startswith("clarify") for u in unclear),
                              "answered_without": sum(u["right_without"] is not None for u in unclear),
                              "right_without": sum(bool(u["right_without"]) for u in unclear)}
    return out


def scoring(cfg: Any) -> Scoring:
    """Which choices produced the numbers (the summary's `scoring`; the report states them)."""
    return {"followups": cfg.followup_policy, "answers": cfg.answers, "modification": cfg.modification,
            "facts": cfg.facts}


def describe_scoring(s: Scoring) -> str:
    follow = ("by outcome, as the paper (rationale after a solve, clarification after a failure)"
              if s["followups"] == "paper" else "kinds rotated whatever the outcome")
    answers = {"auto": "MATH-normalised where the gold is LaTeX or the reply boxed", "math": "MATH-normalised",
               "text": "the shared checker"}[s["answers"]]
    facts = "; long answers scored by atomic facts" if s.get("facts") else ""
    return f"follow-ups {follow}; answers {answers}; modification {s['modification']}{facts}"


def _mean(values: list[float]) -> MeanScore:
    return {"n": len(values), "score": sum(values) / len(values) if values else None}


def _followups(rows: list[ItemRow]) -> dict[str, object]:
    every = [(f, r["solved"]) for r in rows for f in r["followups"]]
    kinds: dict[str, list[float]] = defaultdict(list)
    for f, _ in every:
        kinds[f["kind"]].append(f["score"])
    retried = [f for f, _ in every if f.get("tries", 1) > 1]
    extra = {"retried": {"questions": len(retried), "adequate": sum(f["score"] for f in retried)}} if retried else {}
    return {**extra, "all": _mean([f["score"] for f, _ in every]),
            "seed_solved": _mean([f["score"] for f, s in every if s]),
            "seed_failed": _mean([f["score"] for f, s in every if not s]),
            "by_kind": {k: _mean(v) for k, v in sorted(kinds.items())}}


def _errors(rows: list[ItemRow]) -> Errors:
    errors = [(r["qid"], e) for r in rows for e in r["errors"]]
    counts = Counter(e["error_type"] for _, e in errors)
    examples: dict[str, list[ErrorExample]] = defaultdict(list)
    for qid, e in errors:
        if len(examples[e["error_type"]]) < 2:
            examples[e["error_type"]].append({"qid": qid, **e})
    total = len(errors)
    return {"wrong_answers_with_feedback": total,
            "rates": {k: v / total for k, v in counts.most_common()}, "counts": dict(counts.most_common()),
            "examples": dict(examples)}


def probe(rows: list[ItemRow], resamples: int = 2000, seed: int = 0) -> Probe:
    """Original vs modified accuracy on the same items (first attempt), paired: gap, interval, McNemar p."""
    pairs = [(bool(r["original_correct"]), bool(r["attempts"][0])) for r in rows if r["original_correct"] is not None]
    if not pairs:
        return {"n": 0}
    n = len(pairs)
    only_original = sum(1 for a, b in pairs if a and not b)
    only_modified = sum(1 for a, b in pairs if b and not a)
    interval = bootstrap(pairs, resamples, seed)["delta"]  # delta = modified - original
    return {"n": n, "original_accuracy": sum(a for a, _ in pairs) / n,
            "modified_accuracy": sum(b for _, b in pairs) / n,
            "gap": (only_original - only_modified) / n,
            "gap_interval": None if interval is None else [-interval[1], -interval[0]],
            "only_original": only_original, "only_modified": only_modified,
            "mcnemar_p": mcnemar_exact(only_original, only_modified)}


def sections(summary: Summary) -> list[Section]:
    return [Section("Performance scores", _scores(summary)), Section("Error types and examples", _error_text(summary)),
            Section("Contamination probe", _probe_text(summary["probe"])),
            Section("Query modification", _modification_text(summary)),
            Section("Summary by the interviewer", "\n".join(md_lines(summary.get("interviewer_summary") or "(not written)"))),
            Section("Judge calibration", calibration_line(cast(dict[str, Any] | None, summary.get("judge_calibration"))))]


def _modification_text(s: Summary) -> str:
    methods = s.get("modification_methods") or {}
    how = ", ".join(f"{k} {v}" for k, v in sorted(methods.items()))
    return (f"{s['modified']} of {s['items']} items asked in a modified form" + (f" (by method: {how})" if how else "")
            + (". Changed quantities carry a gold recomputed from the interviewer's checked formula"
               if methods.get("quantities") else "") + ".\n\n" + _unclarified_text(s.get("unclarified"))
            + "\n".join(f"- {md_text(k or 'unchanged')}: {v}" for k, v in s["modification_notes"].items()))


def _unclarified_text(u: dict[str, int] | None) -> str:
    if not u:
        return ""
    return (f"Key information removed from {u['items']} items: the interviewee asked for it before answering in "
            f"{u['asked']} and got it in a clarification in {u['given_by_clarification']}; it answered without it "
            f"in {u['answered_without']} (not counted as attempts; then told the information), {u['right_without']} "
            "of them right, which suggests a recalled item.\n\n")


def _pct(value: float | None) -> str:
    return "-" if value is None else f"{100 * value:.1f}"


def _scores(s: Summary) -> str:
    head = " | ".join(f"Score{k}" for k in s["score_at"])
    row = " | ".join(_pct(v) for v in s["score_at"].values())
    f = s["followup"]
    kinds = "\n".join(f"| {k} | {_pct(v['score'])} | {v['n']} |" for k, v in f["by_kind"].items())
    adapt = "-" if s["adaptability"] is None else f"{100 * s['adaptability']:+.1f}"
    how = f"Scoring: {describe_scoring(s['scoring'])}.\n\n" if "scoring" in s else ""
    if s.get("fact_score_at"):
        fs = s["fact_score_at"]
        how += (f"Atomic-fact score over {fs['items']} long-answer items ((supported + 0.5 partially) / facts): "
                + ", ".join(f"{k} {_pct(v)}" for k, v in fs.items() if k != "items") + ".\n\n")
    return (how + f"Over {s['items']} items (%; Score@n keeps an item's score once it is solved).\n\n| {head} |\n|"
            + "---|" * len(s["score_at"]) + f"\n| {row} |\n\nAdaptability (Score@N - Score@1): {adapt}\n\n"
            + (f"**Unvetted:** the follow-up scores below are {mark}; read them as the judge's opinion, not a "
               "measurement.\n\n" if (mark := (s.get("trust") or {}).get("followup")) else "")
            + f"Follow-up score: {_pct(f['all']['score'])} over {f['all']['n']} questions; after a solved seed "
            f"{_pct(f['seed_solved']['score'])} (n={f['seed_solved']['n']}), after a failed seed "
            f"{_pct(f['seed_failed']['score'])} (n={f['seed_failed']['n']})."
            + (f" {f['retried']['questions']} follow-ups were asked again after an inadequate reply, "
               f"{f['retried']['adequate']:g} then answered adequately." if f.get("retried") else "")
            + "\n\n| kind | score | n |\n|---|---|---|\n"
            + kinds)


def _error_text(s: Summary) -> str:
    e = s["errors"]
    if not e["counts"]:
        return "No wrong answers received feedback."
    lines = [f"{e['wrong_answers_with_feedback']} wrong answers received feedback.", "",
             "| error type | share | count |", "|---|---|---|"]
    lines += [f"| {k} | {e['rates'][k]:.2f} | {v} |" for k, v in e["counts"].items()]
    for kind, examples in e["examples"].items():
        lines += ["", f"**{kind}**"]
        lines += [f"- `{md_text(x['qid'])}` attempt {x['attempt']}: answered \"{md_text(x['answer'])}\"; feedback: "
                  f"{md_text(x['feedback'])}"
                  for x in examples]
    return "\n".join(lines)


def _probe_text(p: Probe) -> str:
    if not p.get("n"):
        return "Not run (no item was asked in both forms)."
    lo, hi = p["gap_interval"]
    return (f"{p['n']} items asked in original and modified form (first attempt).\n\n"
            f"- accuracy original {_pct(p['original_accuracy'])}, modified {_pct(p['modified_accuracy'])}\n"
            f"- gap (original - modified) {100 * p['gap']:+.1f} points, 95% paired bootstrap interval "
            f"[{100 * lo:+.1f}, {100 * hi:+.1f}]\n"
            f"- right only in the original {p['only_original']}, only in the modified {p['only_modified']}; "
            f"exact McNemar p = {p['mcnemar_p']:.3g}\n\n"
            "A large positive gap suggests the original items (or their answers) were seen in training.")
