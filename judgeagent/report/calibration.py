"""The judge's calibration in words, for the report of every protocol that vets its judge (JudgeAgent, the
Interviewer, KIEval): its accuracy and error rates on pairs built from the benchmark, and what its hard negative
probes bound."""
from __future__ import annotations

from typing import Any

from ..grading.hard_negatives import HARD_KINDS, hard_fpr


def calibration_line(c: dict[str, Any] | None) -> str:
    """One paragraph from a run's `judge_calibration` record (None: a run made before calibration existed)."""
    if not c:
        return "Judge calibration: not recorded (a run made before calibration existed)."
    if not c["pairs"]:
        return f"Judge calibration: not run ({c['note']})."
    iv = c["intervals"]

    def rate(key: str) -> str:
        value, bounds = c[key], iv.get(key) or []
        ci = f" [{100 * bounds[0]:.0f}, {100 * bounds[1]:.0f}]" if bounds else ""
        return "-" if value is None else f"{100 * value:.1f}%{ci}"

    return (f"Judge calibration on {c['pairs']} pairs built from the benchmark (policy `{c['policy']}`): accuracy "
            f"{rate('accuracy')}, false-positive rate {rate('fpr')}, false-negative rate {rate('fnr')} (95% Wilson "
            f"intervals; {c['failures']} unusable replies). **{c['note']}.** {hard_line(c)}")


def hard_line(c: dict[str, Any]) -> str:
    """What the calibration bounds: the judge's false-positive rate on its hard negative probes, with the interval
    whose upper end bounds it on wrong replies no harder than them; or that it had none."""
    bound = hard_fpr(c.get("by_kind") or {})
    if not bound.probes:
        return ("Its wrong answers were all easy ones (other items' golds): they bound no false-positive rate on "
                "plausible wrong replies.")
    kinds = ", ".join(sorted(k for k in (c.get("by_kind") or {}) if k in HARD_KINDS))
    return (f"Hard negatives ({kinds}): {bound.accepted} of {bound.probes} accepted, so at most "
            f"{100 * bound.interval[1]:.0f}% of wrong replies like them are accepted (95% Wilson upper bound).")
