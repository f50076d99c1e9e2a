"""The report's "How answers were judged": verdict methods, the judge's calibration, what rests on
an uncalibrated or undecided decision, and judge decisions for a person to spot-check."""
from __future__ import annotations

import random
from collections import Counter
from dataclasses import dataclass
from typing import Any

from ....grading.verdict import METHODS
from ....report.calibration import calibration_line
from ....report.mdtext import md_cell
from ....runs import Manifest
from ..records import QuestionRecord

SPOT_CHECKS = 10


@dataclass(frozen=True)
class Judging:
    """The section as data: verdicts per method, the judge's calibration, how many verdicts rest on an uncalibrated
    or undecided decision (of `total`), and judge decisions to spot-check."""

    methods: dict[str, int]
    calibration: dict[str, Any] | None
    shaky: int
    total: int
    sample: list[QuestionRecord]
    learned: dict[str, Any] | None = None
    """The manifest's `equivalence`: the learned step's weights file, its sha256, and whether it was used."""


def judging(records: list[QuestionRecord], manifest: Manifest) -> Judging:
    """The section as data (both renderings read this)."""
    calibration = manifest.get("judge_calibration")
    methods = Counter(r.verdict.method for r in records)
    shaky = methods.get("undecided", 0)
    if calibration is not None and calibration.get("used") and not calibration.get("passed"):
        shaky += methods.get("judge", 0)  # trusted although it failed (or never had) calibration
    judged = [r for r in records if r.verdict.method in ("judge", "judge_failed")]
    rng = random.Random((manifest.get("config") or {}).get("seed", 0))
    sample = rng.sample(judged, min(SPOT_CHECKS, len(judged)))
    learned = manifest.get("equivalence")
    return Judging(dict(methods.most_common()), calibration, shaky, len(records), sample,
                   dict(learned) if learned else None)


def judging_markdown(j: Judging) -> list[str]:
    out = ["## How answers were judged", "", "| method | verdicts | meaning |", "|---|---|---|"]
    out += [f"| {m} | {n} | {METHODS.get(m, '')} |" for m, n in j.methods.items()]
    out += ["", calibration_line(j.calibration), ""]
    if j.learned:
        w = j.learned
        state = "on" if w.get("used") else "off"
        out += [(f"Learned equivalence step ({state}): {w.get('note', '')}; weights `{w.get('weights')}`, sha256 "
                 f"`{str(w.get('sha256', ''))[:16]}`."), ""]
    share = j.shaky / j.total if j.total else 0.0
    out.append(f"**{j.shaky} of {j.total} verdicts ({100 * share:.1f}%) rest on an uncalibrated or undecided "
               "decision.**" if j.shaky else "No verdict rests on an uncalibrated or undecided decision.")
    out += ["", f"### {len(j.sample)} judge decisions to spot-check", ""]
    if not j.sample:
        return [*out, "The judge decided no answer in this run."]
    out += ["| question | gold | answer | verdict | reason |", "|---|---|---|---|---|"]
    for r in j.sample:
        cells = [r.question, r.gold, r.answer.strip(), "correct" if r.correct else "wrong", r.verdict.reason]
        out.append("| " + " | ".join(md_cell(c, 200) for c in cells) + " |")
    return out
