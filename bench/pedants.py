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
scorer is built from them without its download step (nothing is fetched). Prints, per half, PEDANT's own verdict
(`evaluate`, its threshold) and, at the score threshold that keeps the tuning half's false-positive rate <= 5%, the
same on both halves; and the time per pair. This file imports nothing of judgeagent (the halves' hash is
bench/verdicts.py's `evouna_half`, repeated).
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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--file", type=Path, required=True, help="EVOUNA's TQ.json")
    parser.add_argument("--classifiers", type=Path, required=True, help="A folder of one consistent set of pickles")
    parser.add_argument("--limit", type=int, help="Only the first N pairs (a quick check).")
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
    verdicts: dict[str, list[tuple[bool, bool]]] = {}
    scores: dict[str, list[tuple[float, bool]]] = {}
    start = time.perf_counter()
    for half, question, golds, answer, label in data:
        verdicts.setdefault(half, []).append((bool(scorer.evaluate(golds, answer, question)), label))
    per_pair = 1000 * (time.perf_counter() - start) / len(data)
    for half, question, golds, answer, label in data:
        best = max(float(scorer.get_score(g, answer, question)) for g in golds)
        scores.setdefault(half, []).append((best, label))
    print(f"PEDANT evaluate(): {per_pair:.1f} ms per pair")
    for half in ("tune", "heldout"):
        print(f"  {half:<8} its own verdict       {rates(verdicts[half])}")
    threshold = None
    for t in sorted({s for s, _ in scores["tune"]}, reverse=True):
        fpr = sum(s >= t and not lab for s, lab in scores["tune"]) / sum(not lab for _, lab in scores["tune"])
        if fpr > 0.05:
            break
        threshold = t
    if threshold is None:
        print("  no score threshold keeps the tuning half's FPR <= 0.05")
        return
    for half in ("tune", "heldout"):
        print(f"  {half:<8} score >= {threshold:.4f} {rates([(s >= threshold, lab) for s, lab in scores[half]])}")


if __name__ == "__main__":
    main()
