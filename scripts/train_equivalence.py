"""Fit and calibrate the learned answer-equivalence step (judgeagent/grading/equivalence.py) from labelled pairs.

    .venv/bin/python scripts/train_equivalence.py DATA [DATA ...] --trained-on "NAME, LICENCE" --out FILE

Each DATA is a JSON-lines file of labelled (question, reference, candidate) pairs; these forms are read:
- this project's form: {"question", "gold" (a string or a list, gold first), "answer", "correct": bool};
- the Answer Equivalence dataset (Bulian et al. 2022, github google-research-datasets/answer-equivalence-dataset,
  Apache-2.0): {"question", "reference", "candidate", ...} with the raters' verdict as a boolean or 0/1 "label",
  or as a "score"/"rating" from 0 to 1 (>= 0.5 is equivalent; a "ratings"/"raters" list is averaged). Its files
  could not be fetched where this script was written, so these field names are not checked against them: a file
  labelled otherwise is refused with a line saying so, and is then best converted to this project's form;
- MOCHA (Chen et al. 2020, CC BY-SA 4.0): {"question", "reference", "candidate", "score" 1-5} (a file whose scores
  go above 1 is read on this scale): 4 or above is equivalent, 2 or below not; 3 is left out.
Never train on Natural Questions data (the project's independent check is drawn from it) or on data whose licence
does not allow it; say what was used with --trained-on (it is written into the weights file and the report).

The questions are split by a hash of their text: 80% fit the logistic regression, 20% are held out to choose the
threshold for the stated false-positive rate (--max-fpr, default 0.05). The weights file records that calibration;
the checker uses the step only if it passed. The data is read from the given paths and never copied into the repo.
"""
from __future__ import annotations

import argparse
import hashlib
import json
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from judgeagent.config import DEFAULT_EMBEDDING_MODEL  # noqa: E402
from judgeagent.errors import JudgeAgentError  # noqa: E402
from judgeagent.grading.equivalence import MAX_FPR, Equivalence, calibrate, features_many, fit  # noqa: E402


def _label(row: dict, five_point: bool) -> bool | None:
    for key in ("correct", "label", "equivalent"):
        if isinstance(row.get(key), bool):
            return row[key]
        if row.get(key) in (0, 1):
            return bool(row[key])
    for key in ("ratings", "raters"):
        if isinstance(row.get(key), list) and row[key] and all(isinstance(r, (int, float)) for r in row[key]):
            return sum(row[key]) / len(row[key]) >= 0.5
    score = row.get("score", row.get("rating"))
    if isinstance(score, (int, float)) and not isinstance(score, bool):
        if five_point:  # MOCHA's 1-5 scale
            return True if score >= 4 else False if score <= 2 else None
        return score >= 0.5
    return None


def read_pairs(path: Path) -> list[tuple[str, list[str], str, bool]]:
    """(question, golds, candidate, label) from one JSON-lines file in any of the forms above."""
    out = []
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except OSError as e:
        raise JudgeAgentError(f"cannot read {path}: {e.strerror}: give a JSON-lines file of labelled pairs") from None
    rows = []
    for n, line in enumerate(lines, 1):
        if not line.strip() or line.startswith("#"):
            continue
        try:
            rows.append(json.loads(line))
        except json.JSONDecodeError:
            raise JudgeAgentError(f"{path}:{n} is not JSON: give a JSON-lines file of labelled pairs") from None
    # A file whose scores go above 1 is on MOCHA's 1-5 scale (a score of 1 there is the worst, not "equivalent").
    five_point = any(isinstance(r.get("score"), (int, float)) and r["score"] > 1 for r in rows if isinstance(r, dict))
    for row in rows:
        if not isinstance(row, dict):
            continue
        gold = row.get("gold", row.get("reference", row.get("references")))
        golds = [gold] if isinstance(gold, str) else [g for g in (gold or []) if isinstance(g, str)]
        answer = row.get("answer", row.get("candidate"))
        label = _label(row, five_point)
        if isinstance(row.get("question"), str) and golds and isinstance(answer, str) and label is not None:
            out.append((row["question"], golds, answer, label))
    if not out:
        raise JudgeAgentError(f"{path} has no labelled pair (question, gold/reference, answer/candidate and a "
                              "correct/label/score field): see scripts/train_equivalence.py for the forms read")
    return out


def held_out(question: str) -> bool:
    return int(hashlib.sha256(question.encode()).hexdigest(), 16) % 5 == 0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("data", type=Path, nargs="+", help="JSON-lines files of labelled pairs")
    parser.add_argument("--trained-on", required=True, help="What the data is and its licence (kept in the file).")
    parser.add_argument("--out", type=Path, required=True,
                        help="Where to write the weights (the shipped default is "
                             "judgeagent/grading/equivalence_evouna_tq.json: replace it only on purpose).")
    parser.add_argument("--max-fpr", type=float, default=MAX_FPR)
    parser.add_argument("--l2", type=float, default=1.0)
    parser.add_argument("--encoder", default=DEFAULT_EMBEDDING_MODEL,
                        help="The model for the cosine feature: the packaged MiniLM (default) or `static`, its "
                             "model2vec distillation (about 50 times faster; needs judgeagent[static]).")
    args = parser.parse_args()
    try:
        pairs = [p for path in args.data for p in read_pairs(path)]
    except JudgeAgentError as e:
        sys.exit(f"error: {e}")
    start = time.perf_counter()
    x = features_many([(q, g, a) for q, g, a, _ in pairs], encoder=args.encoder)
    print(f"{len(pairs)} pairs, features in {time.perf_counter() - start:.0f} s")
    held = [held_out(q) for q, *_ in pairs]
    fit_rows = [k for k, h in enumerate(held) if not h]
    cal_rows = [k for k, h in enumerate(held) if h]
    labels = [p[3] for p in pairs]
    weights, mean, scale = fit(x[fit_rows], [labels[k] for k in fit_rows], args.l2)
    step = Equivalence(weights, mean, scale, calibrate([0.0], [False]), args.trained_on, args.encoder)
    scores = step.probabilities(x[cal_rows])
    calibration = calibrate(scores, [labels[k] for k in cal_rows], args.max_fpr)
    step = Equivalence(weights, mean, scale, calibration, args.trained_on, args.encoder,
                       extra={"pairs": {"fit": len(fit_rows), "held_out": len(cal_rows)}})
    step.save(args.out)
    print(f"{'passed' if calibration.passed else 'FAILED'}: {calibration.note}; written to {args.out}")


if __name__ == "__main__":
    main()
