"""PEDANTS (PyPI qa-metrics, MIT) on EVOUNA's TriviaQA file, split into the halves bench/verdicts.py uses, for the
comparison in bench/README.md (#46). It loads third-party pickles, so it runs ONLY in a throwaway venv, never in
the project's:

    python -m venv /tmp/pedants-venv
    /tmp/pedants-venv/bin/pip install qa-metrics==0.2.42 nltk regex tqdm      # scikit-learn 1.3.2 comes with it
    for f in lr_classifier rule_classifier type_classifier tf-idf_vectorizer; do
        git -C MIRROR show 12b835a:$f > /tmp/pedants/$f.pkl; done   # MIRROR: zli12321/pedant_models' git folder
    /tmp/pedants-venv/bin/python bench/pedants.py --file /tmp/evouna/TQ.json --classifiers /tmp/pedants

qa-metrics 0.2.42 downloads its four classifiers from github zli12321/pedant_models at the head of `main`, where
the rule and type classifiers are missing. The repository's last commit with all four is 12b835a (2024-12-16:
lr_classifier, rule_classifier, type_classifier, tf-idf_vectorizer, without the .pkl suffix); an older complete
set is at 6ecc301 (2024-10-31, the same names; the set zli12321/PEDANTS-LLM-Evaluation ships). Each lr classifier's
width checks against its set's: tf-idf vocabulary + 7 rule + 8 type probabilities + 3 F1 features.
`--classifiers` is a folder holding
`lr_classifier.pkl`, `rule_classifier.pkl`, `type_classifier.pkl` and `tf-idf_vectorizer.pkl` of one set; the
scorer is built from them without its download step (nothing is fetched). Prints, per half (and per quarter of
the held-out half, bench/verdicts.py's `heldout-a` / `heldout-b`), PEDANT's own verdict (`evaluate`, its threshold),
then two scores with a threshold chosen on the tuning half to hold its false-positive rate <= `--fpr` (5%), applied
unchanged to the held-out half: `get_score`'s (1.0 whenever a normalised gold lies inside the normalised reply,
else the classifier's probability of "correct"), and the classifier's probability alone, past that shortcut (the
best over the golds). This file imports nothing of judgeagent (the hash is bench/verdicts.py's, repeated).
"""
from __future__ import annotations

import argparse
import hashlib
import json
import time
import warnings
from pathlib import Path

SYSTEMS = ("fid", "gpt35", "chatgpt", "gpt4", "newbing")


def half_of(question: str) -> str:
    return "tune" if int(hashlib.sha256(question.encode()).hexdigest(), 16) % 2 == 0 else "heldout"


def rows(path: Path) -> list[tuple[str, str, list[str], str, bool]]:
    """(half, question, golds, answer, human label) as bench/verdicts.py's `load_evouna` reads them."""
    out = []
    for record in json.loads(path.read_text()):
        if record.get("improper"):
            continue
        golds = [g.strip() for g in record["golden_answer"].split("/") if g.strip()]
        for system in SYSTEMS:
            label, answer = record.get(f"judge_{system}"), record.get(f"answer_{system}")
            if isinstance(label, bool) and isinstance(answer, str):
                out.append((half_of(record["question"]), record["question"], golds, answer, label))
    return out


def rates(pairs: list[tuple[bool, bool]]) -> str:
    tp = sum(p and t for p, t in pairs)
    fp = sum(p and not t for p, t in pairs)
    neg = sum(not t for _, t in pairs)
    pos = len(pairs) - neg
    return (f"n {len(pairs)}  accuracy {(tp + neg - fp) / len(pairs):.3f}  FPR {fp / neg:.3f}  "
            f"recall {tp / pos:.3f}")


def part_of(question: str) -> str:
    """`heldout-a` or `heldout-b` for a held-out question: bench/verdicts.py's `evouna_quarter`, repeated."""
    return "heldout-a" if int(hashlib.sha256(question.encode()).hexdigest(), 16) // 2 % 2 == 0 else "heldout-b"


def scores(scorer, data: list[tuple[str, str, list[str], str, bool]]) -> tuple[list[float], list[bool]]:
    """Per pair: the classifier's probability of "correct", the best over the golds (as `get_score` computes it
    past its shortcut), and whether a normalised gold lies inside the normalised reply (the shortcut, where
    `get_score` returns 1.0 and `evaluate` True). Batched: one feature matrix for every (pair, gold)."""
    from qa_metrics.utils.tools import normalize_answer

    rows, owner, inside = [], [], []
    for k, (_, question, golds, answer, _) in enumerate(data):
        reply, asked = normalize_answer(answer), normalize_answer(question)
        refs = [normalize_answer(g) for g in golds]
        inside.append(bool(reply) and any(r and r in reply for r in refs))
        for ref in refs:
            if ref and reply:
                rows.append({"reference": ref, "candidate": reply, "question": asked})
                owner.append(k)
    best = [0.0] * len(data)
    for lo in range(0, len(rows), 2000):
        chunk = rows[lo:lo + 2000]
        probability = scorer.model.predict_proba(scorer.construct_features(chunk))[:, 0]  # classes: correct, incorrect
        for k, p in zip(owner[lo:lo + 2000], probability):
            best[k] = max(best[k], float(p))
    return best, inside


def at_fpr(pairs: list[tuple[float, bool]], fpr: float = 0.05) -> float | None:
    """The lowest score threshold whose false-positive rate on `pairs` (score, label) is at most `fpr`."""
    negatives = sum(not lab for _, lab in pairs)
    threshold, accepted = None, 0
    ordered = sorted(pairs, key=lambda p: -p[0])
    for k, (score, label) in enumerate(ordered):
        accepted += not label
        if accepted / negatives > fpr:
            break
        if k + 1 == len(ordered) or ordered[k + 1][0] < score:
            threshold = score  # every pair at this score is in
    return threshold


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--file", type=Path, required=True, help="EVOUNA's TQ.json")
    parser.add_argument("--classifiers", type=Path, required=True, help="A folder of one consistent set of pickles")
    parser.add_argument("--limit", type=int, help="Only the first N pairs (a quick check).")
    parser.add_argument("--fpr", type=float, default=0.05, help="The false-positive rate the threshold holds on the "
                        "tuning half (default 0.05).")
    args = parser.parse_args()
    warnings.filterwarnings("ignore")
    import joblib
    from qa_metrics.pedant import PEDANT

    scorer = PEDANT.__new__(PEDANT)  # its __init__ downloads the classifiers from the repository's head
    folder = args.classifiers
    scorer.model = joblib.load(folder / "lr_classifier.pkl")
    scorer.rule_model = joblib.load(folder / "rule_classifier.pkl")
    scorer.type_model = joblib.load(folder / "type_classifier.pkl")
    scorer.tokenizer = joblib.load(folder / "tf-idf_vectorizer.pkl")
    scorer.fast_eval, scorer.fast_model = True, False
    data = rows(args.file)[: args.limit]
    parts = ["tune", "heldout", "heldout-a", "heldout-b"]
    part = [(h, part_of(q) if h == "heldout" else h) for h, q, *_ in data]
    verdicts = [bool(scorer.evaluate(golds, answer, question)) for _, question, golds, answer, _ in data]
    start = time.perf_counter()
    best, inside = scores(scorer, data)
    per_pair = 1000 * (time.perf_counter() - start) / len(data)
    labels = [row[4] for row in data]

    def of(name: str, values: list) -> list[tuple]:
        return [(v, lab) for v, lab, (h, q) in zip(values, labels, part) if name in (h, q)]

    print(f"PEDANT, classifiers {folder}: {len(data)} pairs; batched scores {per_pair:.1f} ms a pair")
    for name in parts:
        print(f"  {name:<9} its own verdict (evaluate)            {rates(of(name, verdicts))}")
    # the score `get_score` gives (1.0 when a gold lies inside the reply), and the classifier's alone
    for label, values in (("get_score", [1.0 if i else b for i, b in zip(inside, best)]), ("classifier alone", best)):
        threshold = at_fpr(of("tune", values), args.fpr)
        if threshold is None:
            tune = of("tune", values)
            fpr = sum(v >= 1.0 and not lab for v, lab in tune) / sum(not lab for _, lab in tune)
            print(f"  {label}: no threshold holds the tuning half's FPR <= {args.fpr:g} (score 1.0 alone: FPR {fpr:.3f})")
            continue
        print(f"  {label}: threshold {threshold:.4f}, chosen on the tuning half for FPR <= {args.fpr:g}")
        for name in parts:
            print(f"    {name:<9} {rates([(v >= threshold, lab) for v, lab in of(name, values)])}")


if __name__ == "__main__":
    main()
