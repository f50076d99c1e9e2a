"""The learned answer-equivalence step: for a free-text reply that no rule decides, a logistic regression over
cheap features (token overlap with each gold, a gold as a phrase of the reply, numbers, negation, lengths, and the
packaged MiniLM's cosine between question+gold and question+the reply's first sentence) gives the probability that the reply says what
the gold says. It runs on the CPU in milliseconds and is gated like the judge: its weights file carries a
threshold chosen on a held-out split of its training data for a stated false-positive rate, and the step is off
when that calibration did not reach it (`load`). `scripts/train_equivalence.py` fits and calibrates the weights
from a labelled file; the weights are a small JSON file. A run uses the shipped `DEFAULT` weights unless told
other weights or `OFF`."""
from __future__ import annotations

import hashlib
import json
import math
import re
import threading
from collections.abc import Sequence
from dataclasses import dataclass, field
from difflib import SequenceMatcher
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar, TypedDict

import numpy as np

from ..config import DEFAULT_EMBEDDING_MODEL
from ..errors import JudgeAgentError
from .case import Reply
from .text import NEGATIONS, normalise_answer, numbers, token_f1
from .verdict import Verdict

if TYPE_CHECKING:
    from ..embedding import Encoder

NAMED = {"evouna-tq": Path(__file__).with_name("equivalence_evouna_tq.json")}
"""Weights that ship, chosen by name (`--equivalence-weights evouna-tq`): trained on EVOUNA's TriviaQA tuning half
(github wangcunxiang/QA-Eval, Apache-2.0) and measured on its other half (bench/README.md, #46)."""
DEFAULT = "evouna-tq"
"""The weights a run uses when given none (#46: the owner made the shipped EVOUNA weights the default)."""
SHIPPED = NAMED[DEFAULT]
"""The default weights' file."""
OFF = "none"
"""The weights name that turns the step off (`--equivalence-weights none`): what the checker did before #46, and
what a run whose manifest names no weights (one made before #46) re-grades and resumes with."""

FEATURES = ("f1", "gold_recall", "reply_precision", "gold_phrase", "first_recall", "first_f1", "numbers_agree",
            "numbers_clash", "negation", "hedge", "log_reply_words", "log_gold_words", "spelling", "cosine")
"""The feature vector, in order (`features`); a weights file names them, and a file naming others is refused."""

_HEDGES = frozenset({"or", "possibly", "perhaps", "maybe", "might", "unsure", "unclear", "either"})
_COSINE_CHARS = 240
"""How much of the reply's first sentence MiniLM reads (longer replies cost more than the rest of the check)."""
MAX_FPR = 0.05
"""The false-positive rate on the held-out split that a weights file must reach for the step to be used."""
MIN_NEGATIVES = 50
"""Fewer wrong answers than this in the held-out split bound no false-positive rate: calibration fails."""


class _Cosine:
    """The encoders, each loaded on first use and shared by every `Equivalence`."""

    _lock = threading.Lock()
    _encoders: ClassVar[dict[str, Encoder]] = {}

    @classmethod
    def pairs(cls, left: Sequence[str], right: Sequence[str], encoder: str = DEFAULT_EMBEDDING_MODEL) -> np.ndarray:
        with cls._lock:
            if encoder not in cls._encoders:  # the process's own encoder of that model if it holds one
                from ..embedding import Encoder, loaded

                cls._encoders[encoder] = loaded(encoder) or Encoder(encoder)
        vectors = cls._encoders[encoder].encode(list(left) + list(right))
        n = len(left)
        return np.sum(vectors[:n] * vectors[n:], axis=1)


def hedged(reply: str) -> bool:
    """Whether the reply's first sentence has a negation or a hedge ("either", "or", "maybe"): the step accepts
    no such reply. Its features weigh these words, but the EVOUNA weights saw few replies like "Either X or Y" or
    "Not X; it is Y" and accept them (13 of the 20 false accepts on bench/data/verdicts.jsonl, #46)."""
    return bool(set(Reply.of(reply).first.split()) & (NEGATIONS | _HEDGES))


def _recall(gold: str, said: set[str]) -> float:
    words = gold.split()
    return sum(w in said for w in words) / len(words) if words else 0.0


def features(question: str, golds: Sequence[str], reply: str, *, cosine: bool = True,
             encoder: str = DEFAULT_EMBEDDING_MODEL) -> np.ndarray:
    """The features of one (question, golds, reply), in `FEATURES` order. `cosine=False` leaves the MiniLM
    feature at 0 (for tests of the other features; a model is always fitted and used with it). `encoder` is the
    sentence-transformers model for the cosine (the packaged MiniLM; `static`: its model2vec distillation)."""
    return features_many([(question, golds, reply)], cosine=cosine, encoder=encoder)[0]


def features_many(rows: Sequence[tuple[str, Sequence[str], str]], *, cosine: bool = True,
                  encoder: str = DEFAULT_EMBEDDING_MODEL) -> np.ndarray:
    """`features` for many rows, the cosine's texts encoded in one call."""
    out = np.zeros((len(rows), len(FEATURES)), dtype=np.float64)
    left: list[str] = []
    right: list[str] = []
    for k, (question, golds, raw) in enumerate(rows):
        reply = Reply.of(raw)
        refs = [r for r in (normalise_answer(g) for g in golds) if r] or [""]
        said, first = set(reply.text.split()), set(reply.first.split())
        best = max(refs, key=lambda r: (_recall(r, said), token_f1(reply.text, r)))
        gold_numbers = {n for g in golds for n in numbers(g)}
        reply_numbers = set(numbers(raw))
        padded = f" {reply.text} "
        out[k] = [
            max(token_f1(reply.text, r) for r in refs),
            max(_recall(r, said) for r in refs),
            max((sum(w in said for w in r.split()) / max(1, len(said))) for r in refs),
            float(any(f" {r} " in padded for r in refs if r)),
            max(_recall(r, first) for r in refs),
            max(token_f1(reply.first, r) for r in refs),
            float(bool(gold_numbers & reply_numbers)),
            float(bool(gold_numbers) and bool(reply_numbers) and not gold_numbers & reply_numbers),
            float(bool(NEGATIONS & said)),
            float(bool(_HEDGES & said)),
            math.log1p(len(reply.text.split())),
            math.log1p(len(best.split())),
            max(SequenceMatcher(None, reply.first[:200], r).ratio() for r in refs),
            0.0,
        ]
        if cosine:  # the reply's first sentence: models answer first, and a short text keeps MiniLM fast
            question = " ".join(question.split())[:200]
            first = " ".join(Reply.of(raw).raw.split())
            first = re.split(r"(?<=[.!?])\s+(?=[A-Z])", first, maxsplit=1)[0][:_COSINE_CHARS]
            left.append(f"{question} {golds[0]}")
            right.append(f"{question} {first}")
    if cosine and rows:
        out[:, FEATURES.index("cosine")] = _Cosine.pairs(left, right, encoder)
    return out


@dataclass(frozen=True)
class Calibration:
    """How the threshold was chosen, on a held-out split of the training data."""

    threshold: float
    max_fpr: float
    fpr: float
    recall: float
    accuracy: float
    positives: int
    negatives: int
    passed: bool
    note: str

    def to_dict(self) -> dict[str, float | int | bool | str]:
        """The weights file's `calibration`, field by field."""
        return dict(self.__dict__)


def calibrate(scores: Sequence[float], labels: Sequence[bool], max_fpr: float = MAX_FPR,
              min_negatives: int = MIN_NEGATIVES) -> Calibration:
    """The lowest threshold whose false-positive rate on these held-out (score, label) pairs is at most `max_fpr`.
    Fails (`passed` False) with too few wrong answers to bound the rate, or when no threshold accepts any right
    answer at that rate."""
    s = np.asarray(scores, dtype=np.float64)
    y = np.asarray(labels, dtype=bool)
    pos, neg = int(y.sum()), int((~y).sum())
    if neg < min_negatives or pos == 0:
        return Calibration(1.0, max_fpr, float("nan"), 0.0, float("nan"), pos, neg, False,
                           f"calibration failed: {neg} wrong and {pos} right answers held out "
                           f"(needs >= {min_negatives} wrong and some right)")
    best = None
    for t in sorted(set(s.tolist()), reverse=True):
        accepted = s >= t
        fpr = float((accepted & ~y).sum() / neg)
        if fpr > max_fpr:
            break
        best = t
    if best is None:
        return Calibration(1.0, max_fpr, float("nan"), 0.0, float("nan"), pos, neg, False,
                           f"calibration failed: no threshold keeps the false-positive rate <= {max_fpr:g}")
    accepted = s >= best
    fpr, recall = float((accepted & ~y).sum() / neg), float((accepted & y).sum() / pos)
    accuracy = float((accepted == y).mean())
    passed = recall > 0
    note = (f"threshold {best:.3f}: false-positive rate {fpr:.3f} (<= {max_fpr:g}), recall {recall:.3f}, "
            f"accuracy {accuracy:.3f} on {pos + neg} held-out pairs")
    return Calibration(float(best), max_fpr, fpr, recall, accuracy, pos, neg, passed, note)


def fit(x: np.ndarray, y: Sequence[bool], l2: float = 1.0, steps: int = 50) -> tuple[np.ndarray, np.ndarray,
                                                                                     np.ndarray]:
    """Logistic regression by Newton's method on standardised features: (weights with the bias first, mean,
    scale). Deterministic: the same rows give the same weights."""
    t = np.asarray(y, dtype=np.float64)
    mean = x.mean(axis=0)
    scale = x.std(axis=0)
    scale[scale == 0] = 1.0
    z = np.hstack([np.ones((len(x), 1)), (x - mean) / scale])
    w = np.zeros(z.shape[1])
    penalty = np.full(z.shape[1], l2)
    penalty[0] = 0.0
    for _ in range(steps):
        p = 1 / (1 + np.exp(-(z @ w)))
        grad = z.T @ (p - t) + penalty * w
        hess = (z * (p * (1 - p))[:, None]).T @ z + np.diag(penalty) + 1e-9 * np.eye(len(w))
        step = np.linalg.solve(hess, grad)
        w -= step
        if np.max(np.abs(step)) < 1e-8:
            break
    return w, mean, scale


@dataclass(frozen=True)
class Equivalence:
    """A fitted, calibrated step: `probability` of equivalence, and the verdict at the calibrated threshold."""

    weights: np.ndarray
    mean: np.ndarray
    scale: np.ndarray
    calibration: Calibration
    trained_on: str = ""
    encoder: str = DEFAULT_EMBEDDING_MODEL
    """The model whose cosine the weights were fitted with (the same one must compute it)."""
    source: str = ""
    extra: dict[str, Any] = field(default_factory=dict)

    def probabilities(self, x: np.ndarray) -> np.ndarray:
        z = np.hstack([np.ones((len(x), 1)), (x - self.mean) / self.scale])
        return 1 / (1 + np.exp(-(z @ self.weights)))

    def probability(self, question: str, golds: Sequence[str], reply: str) -> float:
        return float(self.probabilities(features(question, golds, reply, encoder=self.encoder)[None, :])[0])

    def decide(self, question: str, golds: Sequence[str], reply: str) -> Verdict:
        p = self.probability(question, golds, reply)
        t = self.calibration.threshold
        said = "at or above" if p >= t else "below"
        reason = f"learned equivalence {p:.2f} {said} its calibrated threshold {t:.2f}"
        if p >= t and hedged(reply):
            return Verdict(False, "learned", normalise_answer(reply), p,
                           f"{reason}, but the reply's first sentence hedges or negates: not accepted")
        return Verdict(p >= t, "learned", normalise_answer(reply), p, reason)

    def to_dict(self) -> dict[str, Any]:
        return {"features": list(FEATURES), "weights": [round(float(v), 6) for v in self.weights],
                "mean": [round(float(v), 6) for v in self.mean], "scale": [round(float(v), 6) for v in self.scale],
                "calibration": self.calibration.to_dict(), "trained_on": self.trained_on, "encoder": self.encoder,
                **self.extra}

    def save(self, path: Path) -> None:
        path.write_text(json.dumps(self.to_dict(), indent=1) + "\n", encoding="utf-8")


def read(path: Path) -> Equivalence:
    """A weights file as written by `Equivalence.save`; a file that is not one is a `JudgeAgentError`."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        if data["features"] != list(FEATURES):
            raise JudgeAgentError(f"equivalence weights {path} name other features than this version computes: "
                                  "retrain them with scripts/train_equivalence.py")
        n = len(FEATURES)
        weights, mean, scale = (np.asarray(data[k], dtype=np.float64) for k in ("weights", "mean", "scale"))
        if weights.shape != (n + 1,) or mean.shape != (n,) or scale.shape != (n,):
            raise ValueError("wrong lengths")
        calibration = Calibration(**data["calibration"])
    except JudgeAgentError:
        raise
    except (OSError, ValueError, KeyError, TypeError) as e:
        raise JudgeAgentError(f"equivalence weights {path} unreadable ({type(e).__name__}: {e}): retrain them "
                              "with scripts/train_equivalence.py") from None
    extra = {k: v for k, v in data.items() if k not in ("features", "weights", "mean", "scale", "calibration",
                                                         "trained_on", "encoder")}
    return Equivalence(weights, mean, scale, calibration, data.get("trained_on", ""),
                       data.get("encoder", DEFAULT_EMBEDDING_MODEL), str(path), extra)


def load(path: Path | None = None, max_fpr: float = MAX_FPR) -> tuple[Equivalence | None, str]:
    """The step to use (None: the default weights, `SHIPPED`), or None with why not: no weights file, or a
    calibration that did not pass, or one made for a looser false-positive rate than `max_fpr`."""
    where = path or SHIPPED
    if not where.is_file():
        return None, f"learned step off: no weights at {where}"
    step = read(where)
    c = step.calibration
    if not c.passed:
        return None, f"learned step off: {c.note}"
    if not c.max_fpr <= max_fpr or not c.fpr <= max_fpr:
        return None, (f"learned step off: calibrated for a false-positive rate of {c.fpr:.3f} "
                      f"(bound {c.max_fpr:g}), above {max_fpr:g}")
    return step, f"learned step on ({c.note}; trained on {step.trained_on or 'unnamed data'})"


class WeightsRecord(TypedDict):
    """A run manifest's `equivalence`: the weights file a run's learned step was given, its content's sha256 (a
    resume with other weights is refused), whether the step is used and why (or why not)."""

    weights: str
    sha256: str
    used: bool
    note: str


def sha256_of(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


@dataclass(frozen=True)
class RunStep:
    """What a run does about the learned step: the step (None: off), the line saying so, and what its manifest
    records (None: the step is off by `OFF`, or the protocol grades no free text: the run's identity is what it
    was before #46)."""

    step: Equivalence | None
    note: str
    record: WeightsRecord | None


def for_run(path: Path | str | None = None, max_fpr: float = MAX_FPR) -> RunStep:
    """The learned step of a run given the weights file `path` (None: the default, `DEFAULT`; `OFF`: none). A
    given file that is missing or not a weights file is a `JudgeAgentError`; one whose calibration did not pass
    gives the step off, said in `note`."""
    if is_off(path):
        return RunStep(None, f"learned step off (equivalence weights {OFF})", None)
    where = named(DEFAULT if path is None else path)
    if not where.is_file():
        raise JudgeAgentError(f"equivalence weights {where} not found: give a weights file written by "
                              f"scripts/train_equivalence.py, a shipped name ({', '.join(NAMED)}), or {OFF}")
    step, note = load(where, max_fpr)
    record = WeightsRecord(weights=str(where), sha256=sha256_of(where), used=step is not None, note=note)
    return RunStep(step, note, record)


def is_off(path: Path | str | None) -> bool:
    """Whether `path` names no weights (`OFF`, any case) rather than a file."""
    return path is not None and str(path).lower() == OFF and not Path(path).exists()


def named(path: Path | str) -> Path:
    """A weights file, or the shipped weights of that name (`NAMED`) when no such file exists."""
    where = Path(path)
    return NAMED[str(path)] if not where.exists() and str(path) in NAMED else where


def for_manifest(record: WeightsRecord | None) -> Equivalence | None:
    """The learned step a run graded with, from its manifest's `equivalence` (for re-grading it as the run did):
    None when it had none or it was off; its weights file must still hold the same bytes."""
    if not record or not record.get("used"):
        return None
    where = Path(record["weights"])
    if not where.is_file() or sha256_of(where) != record["sha256"]:
        state = "is missing" if not where.is_file() else "has changed since (its sha256 differs)"
        raise JudgeAgentError(f"the run graded with the learned step's weights {where}, which {state}: restore "
                              "that file to grade as the run did")
    step, _ = load(where)
    return step
