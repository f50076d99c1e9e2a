"""bench/verdicts.py reads EVOUNA's format (split into a tuning and a held-out half by question), and the index
of other golds finds what a scan of them finds."""
from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import numpy as np

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
    # the held-out half splits again into two quarters, one read (heldout-a) and one never read (heldout-b)
    a, b = verdicts.load_evouna(path, "heldout-a"), verdicts.load_evouna(path, "heldout-b")
    assert a and b and sorted(r["id"] for r, _ in a + b) == sorted(r["id"] for r, _ in heldout)
    assert {r["qid"] for r, _ in a}.isdisjoint({r["qid"] for r, _ in b})
    assert "heldout-b" not in verdicts.READ and "heldout" not in verdicts.READ


def test_the_unread_quarter_prints_totals_and_no_row(tmp_path, capsys):
    questions = [f"Which city is number {k}?" for k in range(40)]
    cities = ("Paris", "Marseille")  # each answered by the other's name, labelled right: other_answer errs
    records = [_record(q, cities[k % 2], fid=(cities[1 - k % 2], True)) for k, q in enumerate(questions)]
    path = tmp_path / "TQ.json"
    path.write_text(json.dumps(records))
    args = verdicts.argparse.Namespace(half="heldout-b", show=50, learned=None, rules_only=True, no_judge=True)
    verdicts.measure(args, path)
    out = capsys.readouterr().out
    assert "heldout-b quarter" in out and "other_answer" in out and "[other_answer]" not in out
    args.half = "heldout-a"
    verdicts.measure(args, path)
    assert "[other_answer]" in capsys.readouterr().out  # the read quarter lists its wrong verdicts


def test_the_index_of_other_golds_finds_what_a_scan_finds():
    others = frozenset({"new york", "york", "paris", "city of light", "light", "war and peace", "peace"})
    index = rivals(others)
    for reply in ("war and peace in new york", "light", "the city of light", "nothing here", "peace and war"):
        words = set(reply.split())
        assert sorted(index.within(reply.split())) == sorted(o for o in others if set(o.split()) <= words)
    assert sorted(index.folded_with("york")) == ["new york", "york"]


def test_the_learned_step_gets_its_own_line_or_says_why_it_is_off(tmp_path, capsys, encoder):
    import asyncio

    from judgeagent.config import DEFAULT_EMBEDDING_MODEL, CheckerConfig
    from judgeagent.grading import equivalence
    from judgeagent.grading.answers import AnswerChecker, other_golds

    equivalence._Cosine._encoders.setdefault(DEFAULT_EMBEDDING_MODEL, encoder)
    reply = ("Justine Thornton is the wife of British politician Ed Miliband. They married in 2011 and Ed Miliband "
             "later led the Labour Party.")
    records = [_record(f"Which British politician is married to Justine Thornton (case {k})?", "Ed Miliband/Red Ed",
                       fid=(reply, True), gpt4=("The poem was written by Walter Scott in 1818.", False))
               for k in range(4)]
    path = tmp_path / "TQ.json"
    path.write_text(json.dumps(records))
    triples = verdicts.load_evouna(path, "both")
    others = other_golds([g for _, item in triples for g in item.golds]) | {"walter scott", "john keats"}
    alone = asyncio.run(verdicts.verdicts(AnswerChecker(CheckerConfig(), None, others), triples))
    assert {v.method for v in alone} == {"undecided"}
    verdicts.learned(tmp_path / "none.json", triples, others, alone)
    assert "learned step off: no weights" in capsys.readouterr().out
    # a step that accepts a reply naming the gold (weights on gold-word recall alone), calibrated as passing
    n = len(equivalence.FEATURES)
    weights = np.zeros(n + 1)
    weights[1 + equivalence.FEATURES.index("gold_recall")] = 10.0
    weights[0] = -5.0
    cal = equivalence.Calibration(0.5, 0.05, 0.0, 1.0, 1.0, 60, 60, True, "threshold 0.500")
    equivalence.Equivalence(weights, np.zeros(n), np.ones(n), cal, "test").save(tmp_path / "eq.json")
    verdicts.learned(tmp_path / "eq.json", triples, others, alone)
    out = capsys.readouterr().out
    assert "rules + learned step, no judge     n    8  accuracy 1.000" in out
    assert "learned             8" in out and "precision 1.000, recall 1.000, FPR 0.000" in out


def test_each_rule_is_listed_with_its_wilson_interval(capsys):
    # #46: each rule's precision with its 95% Wilson interval
    from judgeagent.grading.answers import check_free_text

    surname = check_free_text("Telemann", "Georg Philipp Telemann", question="Who composed it?")
    number = check_free_text("1,200", "1200", question="How many?")
    assert surname.method == "name_part" and number.method != "name_part"
    item = verdicts.Item("q1", "Who composed it?", "Georg Philipp Telemann")
    triples = [({"correct": True}, item), ({"correct": False}, item), ({"correct": True}, item)]
    verdicts.by_method(triples, [surname, surname, number])
    out = capsys.readouterr().out
    assert "name_part           2           2          0      1      50.0%  9.5-90.5%" in out
    assert f"{number.method:<16}    1           1          0      1     100.0%  20.7-100.0%" in out


def test_a_bad_labelled_file_is_one_line_naming_the_fix(tmp_path, monkeypatch, capsys):
    import pytest

    bad = tmp_path / "labels.jsonl"
    bad.write_text('{"qid": "q1", "question": "Who?", "gold": "Ada", "answer": "Ada"}\n')
    broken = tmp_path / "broken.json"
    broken.write_text('{"not": "a list"}')
    for path, said in ((bad, "labels.jsonl:1: a labelled answer needs answer, correct, qid, gold"),
                       (broken, "not EVOUNA's format"), (tmp_path / "absent.jsonl", "no such file")):
        monkeypatch.setattr(verdicts.sys, "argv", ["verdicts.py", "--no-judge", "--rules-only", "--file", str(path)])
        with pytest.raises(SystemExit) as exit_:
            verdicts.main()
        assert str(exit_.value).startswith("error: ") and said in str(exit_.value), exit_.value
        assert "\n" not in str(exit_.value)
    # a good file written out in the record itself is measured
    bad.write_text('{"qid": "q1", "question": "Who wrote Hamlet?", "gold": ["William Shakespeare", "Shakespeare"], '
                   '"answer": "Shakespeare", "correct": true}\n')
    monkeypatch.setattr(verdicts.sys, "argv", ["verdicts.py", "--no-judge", "--rules-only", "--file", str(bad)])
    verdicts.main()
    assert "accuracy 1.000" in capsys.readouterr().out
