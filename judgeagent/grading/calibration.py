"""Judge calibration: probe the judge on pairs whose verdict is known by construction, before any
figure rests on it. No human labels: the pairs come from the run's own benchmark (and graph)."""
from __future__ import annotations

import asyncio
import math
import random
import re
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, replace
from typing import TYPE_CHECKING, Any, TypedDict, cast

from ..config import CheckerConfig
from ..metrics import wilson
from .answers import AnswerChecker, other_golds
from .hard_negatives import partial, same_kind, same_subject
from .judge import judge_answer
from .text import normalise_answer, numbers, token_f1

if TYPE_CHECKING:
    from ..benchmark import Item
    from ..models.base import ChatModel
    from .equivalence import Equivalence

# Restatements: the answer inside a sentence, as a model would write it.
_SAYINGS = ("{}.", "It is {}.", "The answer is {}, as far as I know.", "Based on the information, {}.",
            "I believe the answer is {}.", "{}: that is what the sources indicate.")


@dataclass(frozen=True)
class Pair:
    """One calibration probe: the judge must accept it (`accept`) or reject it."""

    question: str
    gold: str
    answer: str
    accept: bool
    kind: str
    """`restated` or `alias` (accept); `other_gold`, `other_option`, `changed_number`, `near_miss`, `same_kind`,
    `partial`, `same_subject` (reject)."""
    golds: tuple[str, ...] = ()
    """The golds the probe was built from, when more than `gold`: an alias probe is judged against the
    item's gold and aliases, since in open-QA sets an alias is often another acceptable answer ("Rockwell"
    for "Jermaine Jackson") that a faithful judge rejects against the main gold alone."""

    @property
    def reference(self) -> list[str]:
        """What the judge compares the probe with."""
        return list(self.golds) or [self.gold]


class CalibrationError(TypedDict):
    """A probe the judge got wrong (or gave no decision on), as the report lists it."""

    kind: str
    question: str
    gold: str
    answer: str
    accepted: bool
    reason: str | None


class CalibrationRecord(TypedDict, total=False):
    """`Calibration` as JSON: the manifest's and the summary's `judge_calibration` (all keys are written; older
    runs may lack some, hence not total)."""

    pairs: int
    accuracy: float | None
    fpr: float | None
    fnr: float | None
    intervals: dict[str, list[float]]
    failures: int
    passed: bool
    used: bool
    policy: str
    note: str
    by_kind: dict[str, dict[str, int]]
    errors: list[CalibrationError]


@dataclass(frozen=True)
class Calibration:
    """How the judge did on the pairs, and whether this run uses it."""

    pairs: int
    accuracy: float | None
    fpr: float | None
    """Wrong answers accepted, over the pairs that must be rejected."""
    fnr: float | None
    """Right answers rejected, over the pairs that must be accepted."""
    intervals: dict[str, list[float]]
    """95% Wilson intervals of accuracy, fpr, fnr."""
    failures: int
    """Pairs on which the judge gave no usable decision (counted as errors)."""
    passed: bool
    used: bool
    policy: str
    note: str
    by_kind: dict[str, dict[str, int]]
    errors: list[CalibrationError]
    """Up to 10 pairs the judge got wrong, for the report."""

    def to_dict(self) -> CalibrationRecord:
        return cast(CalibrationRecord, asdict(self))


def pairs_from_items(items: Sequence[Item], n: int = 40, seed: int = 0,
                     near_miss: Callable[[str], str | None] | None = None, hard: bool = False) -> list[Pair]:
    """`n` pairs, half to accept and half to reject, drawn with `seed` from the items' gold answers.

    Free-text golds and multiple-choice gold option texts both serve; yes/no golds do not (the judge
    never sees them: they are decided by rule). `near_miss(gold)` may name a similar but different
    entity (from the graph) to use as a wrong answer. With `hard`, wrong answers are those a careless judge
    accepts (`hard_negatives`: a near number, another gold of the kind the question asks for, part of the
    answer, another question's gold about the same subject) before another item's gold of any kind, so that
    passing bounds the false-positive rate (`hard_fpr`).
    """
    rng = random.Random(seed)
    pool = [i for i in items if _usable(i.gold)]
    if len(pool) < 2:
        return []
    golds = list(dict.fromkeys(i.gold for i in pool))
    accept, reject = [], []
    for k in range(n):
        item = rng.choice(pool)
        saying = rng.choice(_SAYINGS)
        if k % 2 == 0:
            accept.append(_positive(item, saying, rng))
        else:
            wrong = _hard_negative(item, pool, rng) if hard else None
            wrong = wrong or _negative(item, golds, rng, near_miss)
            if wrong is not None and not _ambiguous(wrong[0], item, pool, wrong[1]):
                reject.append(Pair(item.question, item.gold, saying.format(wrong[0]), False, wrong[1]))
    return [p for pair in zip(accept, reject) for p in pair]


def _ambiguous(answer: str, item: Item, pool: Sequence[Item], kind: str = "") -> bool:
    """A wrong answer whose verdict a careful person could dispute does not count (it is not asked): a
    changed number that one of the item's golds states (or golds that disagree on their
    numbers), or a wrong answer that is the gold of another item asking the same question."""
    if kind == "changed_number":
        stated = [numbers(g) for g in item.golds if numbers(g)]
        return any(numbers(answer) == n for n in stated) or any(n != stated[0] for n in stated)
    if kind in ("other_gold", "near_miss", "same_kind", "same_subject"):
        asked = normalise_answer(item.question)
        return any(normalise_answer(i.question) == asked and not _distinct(answer, i.golds) for i in pool)
    return False


def _usable(gold: str) -> bool:
    norm = normalise_answer(gold)
    return bool(norm) and norm not in ("yes", "no", "maybe") and len(norm.split()) <= 12


def _positive(item: Item, saying: str, rng: random.Random) -> Pair:
    # A yes/no alias of a free-text gold is no probe whose right verdict is clear: it is never drawn.
    aliases = [a for a in item.aliases if normalise_answer(a) not in ("", "yes", "no", "maybe")]
    if aliases and rng.random() < 0.5:
        return Pair(item.question, item.gold, saying.format(rng.choice(aliases)), True, "alias", item.golds)
    return Pair(item.question, item.gold, saying.format(item.gold), True, "restated")


def _negative(item: Item, golds: list[str], rng: random.Random,
              near_miss: Callable[[str], str | None] | None) -> tuple[str, str] | None:
    """A wrong answer for `item` and its kind, trying the most telling kinds first."""
    if numbers(item.gold) and rng.random() < 0.7:
        return _changed_number(item.gold, rng), "changed_number"
    if item.options:
        others = [t for k, t in item.options.items() if k != item.gold_letter and _distinct(t, item.golds)]
        if others:
            return rng.choice(others), "other_option"
    if near_miss is not None and rng.random() < 0.5:
        similar = near_miss(item.gold)
        if similar and _distinct(similar, item.golds):
            return similar, "near_miss"
    others = [g for g in golds if _distinct(g, item.golds)]
    return (rng.choice(others), "other_gold") if others else None


def _hard_negative(item: Item, pool: Sequence[Item], rng: random.Random) -> tuple[str, str] | None:
    """A plausible wrong answer: the gold's number moved a little, else another gold of the kind the question
    asks for, part of the answer, or another question's gold about the same subject, whichever exists (drawn
    with `rng`)."""
    if numbers(item.gold):
        return _changed_number(item.gold, rng), "changed_number"
    drawn = ((same_kind(item, pool, rng), "same_kind"), (partial(item, rng), "partial"),
             (same_subject(item, pool, rng), "same_subject"))
    found = [(a, k) for a, k in drawn if a]
    return rng.choice(found) if found else None


def _distinct(answer: str, golds: Sequence[str]) -> bool:
    """Certainly another answer: shares no more than a third of its words with any gold."""
    return all(token_f1(answer, g) < 0.34 for g in golds)


def _changed_number(gold: str, rng: random.Random) -> str:
    """The gold with its first number moved by 1-9 (years stay plausible years)."""
    match = re.search(r"\d+(?:\.\d+)?", gold)
    if match is None:  # a number written in words: add a numeral that certainly differs
        return f"{gold} plus {rng.randint(2, 9)}"
    value = float(match.group(0))
    changed = value + rng.choice([-1, 1]) * rng.randint(1, 9)
    if changed < 0 or changed == value:
        changed = value + rng.randint(1, 9)
    text = f"{changed:g}" if "." in match.group(0) else str(int(changed))
    return gold[: match.start()] + text + gold[match.end():]


async def vetted_checker(settings: CheckerConfig, judge: ChatModel | None, items: Sequence[Item], seed: int = 0,
                         near_miss: Callable[[str], str | None] | None = None,
                         on_stage: Callable[[str], None] | None = None,
                         equivalence: Equivalence | None = None) -> tuple[AnswerChecker, Calibration]:
    """The run's answer checker, with the judge only if the policy (and its calibration) allows it; the settings'
    `hard_probes` probes it with hard negatives (`pairs_from_items`). `on_stage` hears the calibration start (a
    progress line: it may take minutes). `equivalence` (the run's calibrated learned step, `RunRequest.learned`) decides
    what no rule decides when no judge is used."""
    others = other_golds([g for item in items for g in item.golds])
    if judge is None or settings.judge_policy == "off":
        calibration = skipped(settings, "judge policy off: deterministic rules only")
    else:
        pairs = pairs_from_items(items, settings.calibration_pairs, seed, near_miss, settings.hard_probes)
        if pairs and on_stage:
            on_stage(f"calibrating the judge on up to {len(pairs)} pairs")
        calibration = (await calibrate(judge, pairs, settings) if pairs else
                       skipped(settings, "no calibration pairs could be built (fewer than 2 usable gold answers)",
                               judge=True))
    note = "the judge is off" if settings.judge_policy == "off" else "the judge is not calibrated"
    if equivalence is not None and _BY_F1 in calibration.note:  # the step settles them, not token F1
        calibration = replace(calibration, note=calibration.note.replace(_BY_F1, _BY_STEP))
    return AnswerChecker(settings, judge if calibration.used else None, others, note, equivalence), calibration


def calibration_calls(items: Sequence[Item], judge_policy: str, seed: int = 0) -> tuple[int, int]:
    """The judge's calibration calls before a run of `items` (fewest, most), for a dry run: none when the judge is
    off; every pair the items give under `trust`; under `calibrated` the first wave at the fewest (a judge that
    cannot pass stops there). Duplicate pairs share a call, so a run may make fewer."""
    if judge_policy == "off":
        return 0, 0
    drawn = pairs_from_items(items, CheckerConfig().calibration_pairs, seed)
    pairs = len({(p.question, p.gold, p.answer) for p in drawn})
    return (pairs if judge_policy == "trust" else min(pairs, WAVE)), pairs


# Pairs are asked in waves: a judge that can no longer pass stops costing calls (the embedded 135M
# model fails within the first wave or two instead of paying for all 40 pairs on every run).
WAVE = 8


async def calibrate(judge: ChatModel, pairs: Sequence[Pair], settings: CheckerConfig) -> Calibration:
    """Ask the judge the pairs (a wave at a time, each wave concurrently) and decide whether to use it.

    Under the `calibrated` policy, asking stops once the judge cannot pass whatever it answers next;
    waves are in a fixed order, so where it stops depends on the replies alone (a resumed run stops
    at the same pair)."""
    decisions: list[tuple[bool, bool, str]] = []
    for start in range(0, len(pairs), WAVE):
        # A failure lets the wave's other calls finish (and be journaled) before it is raised, as in
        # the engine: a resumed run then repeats no finished calibration call.
        verdicts = await asyncio.gather(*(judge_answer(judge, p.question, p.reference, p.answer)
                                          for p in pairs[start:start + WAVE]), return_exceptions=True)
        for v in verdicts:
            if isinstance(v, BaseException):
                raise v
        decisions += [(v.correct, v.method == "judge_failed", v.reason) for v in verdicts]
        if settings.judge_policy == "calibrated" and _cannot_pass(pairs, decisions, settings):
            break
    result = summarise(pairs[:len(decisions)], decisions, settings)
    if len(decisions) < len(pairs):
        note = f"{result.note} (stopped after {len(decisions)} of {len(pairs)} pairs: it could no longer pass)"
        result = replace(result, note=note)
    return result


def _cannot_pass(pairs: Sequence[Pair], decisions: Sequence[tuple[bool, bool, str]],
                 settings: CheckerConfig) -> bool:
    """True when the errors so far exceed what passing over all the pairs allows."""
    errors = sum(1 for p, (acc, failed, _) in zip(pairs, decisions) if failed or acc != p.accept)
    fps = sum(1 for p, (acc, failed, _) in zip(pairs, decisions) if not p.accept and acc and not failed)
    negatives = sum(1 for p in pairs if not p.accept)
    allowed_errors = math.floor((1 - settings.min_judge_accuracy) * len(pairs) + 1e-9)
    allowed_fps = math.floor(settings.max_judge_fpr * negatives + 1e-9)
    return errors > allowed_errors or fps > allowed_fps


def summarise(pairs: Sequence[Pair], decisions: Sequence[tuple[bool, bool, str]],
              settings: CheckerConfig) -> Calibration:
    """Rates from (accepted, failed, reason) per pair; the policy decides `used`."""
    pos = [(p, d) for p, d in zip(pairs, decisions) if p.accept]
    neg = [(p, d) for p, d in zip(pairs, decisions) if not p.accept]
    right = sum(1 for p, (acc, failed, _) in zip(pairs, decisions) if not failed and acc == p.accept)
    fp = sum(1 for _, (acc, failed, _) in neg if acc and not failed)
    fn = sum(1 for _, (acc, failed, _) in pos if not acc or failed)
    accuracy, fpr, fnr = _ratio(right, len(pairs)), _ratio(fp, len(neg)), _ratio(fn, len(pos))
    passed = (accuracy is not None and fpr is not None and accuracy >= settings.min_judge_accuracy
              and fpr <= settings.max_judge_fpr)
    used = settings.judge_policy == "trust" or (settings.judge_policy == "calibrated" and passed)
    return Calibration(
        pairs=len(pairs), accuracy=accuracy, fpr=fpr, fnr=fnr,
        intervals={"accuracy": wilson(right, len(pairs)), "fpr": wilson(fp, len(neg)), "fnr": wilson(fn, len(pos))},
        failures=sum(1 for _, failed, _ in decisions if failed), passed=passed, used=used,
        policy=settings.judge_policy, note=_note(settings, passed, accuracy, fpr, len(pairs)),
        by_kind=_by_kind(pairs, decisions),
        errors=[CalibrationError(kind=p.kind, question=p.question, gold=p.gold, answer=p.answer, accepted=acc,
                                 reason=reason) for p, (acc, failed, reason) in zip(pairs, decisions)
                if failed or acc != p.accept][:10])


def skipped(settings: CheckerConfig, why: str, *, judge: bool = False) -> Calibration:
    """No calibration ran (policy off, no judge needed, or no pairs could be built); `judge`: there is a judge to
    use, which the `trust` policy uses uncalibrated."""
    used = settings.judge_policy == "trust" and judge
    return Calibration(0, None, None, None, {}, 0, False, used, settings.judge_policy, why, {}, [])


def _note(settings: CheckerConfig, passed: bool, accuracy: float | None, fpr: float | None, n: int) -> str:
    measured = f"accuracy {_pct(accuracy)}, false-positive rate {_pct(fpr)} on {n} pairs"
    bar = f"needs accuracy >= {_pct(settings.min_judge_accuracy)} and false positives <= {_pct(settings.max_judge_fpr)}"
    if passed:
        return f"judge passed calibration ({measured})"
    if settings.judge_policy == "trust":
        return f"judge FAILED calibration ({measured}; {bar}) but is trusted (--judge-policy trust)"
    return f"judge FAILED calibration ({measured}; {bar}): not used, {_BY_F1}"


_BY_F1 = "undecided answers settled by token F1"
_BY_STEP = "undecided answers settled by the learned equivalence step"


def _by_kind(pairs: Sequence[Pair], decisions: Sequence[tuple[bool, bool, str]]) -> dict[str, dict[str, int]]:
    out: dict[str, dict[str, int]] = {}
    for p, (acc, failed, _) in zip(pairs, decisions):
        row = out.setdefault(p.kind, {"n": 0, "right": 0})
        row["n"] += 1
        row["right"] += int(not failed and acc == p.accept)
    return out


def _ratio(k: int, n: int) -> float | None:
    return k / n if n else None


def _pct(x: float | None) -> str:
    return "-" if x is None else f"{100 * x:.0f}%"


def unvetted(calibration: CalibrationRecord | None) -> str | None:
    """Why numbers graded by this judge are not to be trusted as measured (None: it passed calibration): the
    mark a summary, its terminal lines and its report carry beside every number that rests on the judge."""
    if not calibration or calibration.get("passed"):
        return None
    if not calibration.get("pairs"):
        return f"graded by a judge that was not calibrated ({calibration.get('note') or calibration.get('policy')})"
    accuracy, fpr = calibration.get("accuracy"), calibration.get("fpr")
    measured = ", ".join(f"{name} {value:.2f}" for name, value in (("accuracy", accuracy), ("false-positive rate", fpr))
                         if value is not None)
    return f"graded by a judge that failed calibration ({measured})"


def warn_if_unvetted(calibration: Calibration, notify: Any) -> None:
    """A judge that failed calibration is said on screen when the run begins, whatever the protocol."""
    if notify and calibration.policy != "off" and not calibration.passed:
        notify(f"warning: {calibration.note}")
