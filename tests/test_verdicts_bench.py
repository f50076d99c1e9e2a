"""bench/verdicts.py reads EVOUNA's format (split into a tuning and a held-out half by question), and the index
of other golds finds what a scan of them finds."""
from __future__ import annotations

import importlib.util
import json
from pathlib import Path

from judgeagent.grading.rivals import rivals

_SPEC = importlib.util.spec_from_file_location("bench_verdicts", Path(__file__).parents[1] / "bench" / "verdicts.py")
assert _SPEC and _SPEC.loader
verdicts = importlib.util.module_from_spec(_SPEC)
_SPEC.loader.exec_module(verdicts)


def _record(question, gold, improper=False, **judged):
    record = {"question": question, "golden_answer": gold, "improper": improper}
    for system in verdicts.EVOUNA_SYSTEMS:
        answer, label = judged.get(system, ("x", "nan"))
        record[f"answer_{system}"], record[f"judge_{system}"] = answer, label
    return record


def test_evouna_records_become_labelled_pairs_with_aliases(tmp_path):
    questions = [f"Question number {k}?" for k in range(40)]
    records = [_record(q, "Paris/City of Light", fid=("Paris", True), gpt4=("Lyon", False)) for q in questions]
    records.append(_record("An improper one?", "X", improper=True, fid=("X", True)))
    path = tmp_path / "TQ.json"
    path.write_text(json.dumps(records))
    tune, heldout = verdicts.load_evouna(path, "tune"), verdicts.load_evouna(path, "heldout")
    both = verdicts.load_evouna(path, "both")
    # unjudged ("nan") answers and improper questions are left out; the halves split the questions
    assert len(both) == 80 and len(tune) + len(heldout) == 80 and tune and heldout
    assert {r["qid"] for r, _ in tune}.isdisjoint({r["qid"] for r, _ in heldout})
    row, item = both[0]
    assert (row["answer"], row["correct"], item.golds) == ("Paris", True, ("Paris", "City of Light"))
    assert [verdicts.evouna_half(q) for q in questions] == [verdicts.evouna_half(q) for q in questions]


def test_the_index_of_other_golds_finds_what_a_scan_finds():
    others = frozenset({"new york", "york", "paris", "city of light", "light", "war and peace", "peace"})
    index = rivals(others)
    for reply in ("war and peace in new york", "light", "the city of light", "nothing here", "peace and war"):
        words = set(reply.split())
        assert sorted(index.within(reply.split())) == sorted(o for o in others if set(o.split()) <= words)
    assert sorted(index.folded_with("york")) == ["new york", "york"]
