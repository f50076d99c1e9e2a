"""Multiple-choice items built from free-text ones with distractors from real graphs (MultiHop-RAG and
HotpotQA small, real spaCy and encoder): one gold per item, distinct options, distractors that are
graph entities of the gold's kind, seeded and reproducible."""
import json

import pytest

from judgeagent.benchmark import Item, load_benchmark
from judgeagent.grading.answers import normalise_answer
from judgeagent.grading.mcq import DistractorBuilder, check_options, to_record
from tests.conftest import DATA


def converted(graph, name, seed=0):
    items = load_benchmark(DATA / name / "small.questions.jsonl").items
    return items, DistractorBuilder(graph, seed=seed).convert(items)


def surface_forms(graph):
    forms = graph.tables["entities"].column("surface_forms").to_pylist()
    return {f for fs in forms for f in fs}


@pytest.mark.parametrize("name, fixture", [("hotpotqa", "hotpot_graph"), ("multihop_rag", "mhr_slice_graph")])
def test_every_converted_item_has_one_gold_and_distinct_options(name, fixture, request):
    graph = request.getfixturevalue(fixture)  # by name: the HotpotQA case need not wait for MultiHop-RAG's graph
    items, results = converted(graph, name)
    known = surface_forms(graph)
    built = [(i, r) for i, r in zip(items, results) if r.item is not None]
    assert len(built) >= 0.7 * len(items), [r.reason for r in results if r.item is None]
    for item, r in built:
        options = r.item.options
        assert check_options(options, r.item.gold_letter, item.golds) == ""
        assert options[r.item.gold_letter] == item.gold.strip()
        assert len(options) == (2 if r.source == "yes_no" else 4)
        if r.source == "graph":  # distractors are the corpus's own entities
            wrong = [v for k, v in options.items() if k != r.item.gold_letter]
            assert all(w in known or w[0].lower() + w[1:] in known for w in wrong), wrong
            assert not any(normalise_answer(w) in normalise_answer(item.gold) for w in wrong)
    skipped = [r.reason for r in results if r.item is None]
    assert all(skipped), skipped  # every skip says why


def test_options_are_seeded_and_reproducible(hotpot_graph):
    _, first = converted(hotpot_graph, "hotpotqa", seed=0)
    _, again = converted(hotpot_graph, "hotpotqa", seed=0)
    _, other = converted(hotpot_graph, "hotpotqa", seed=1)
    opts = lambda rs: [r.item.options if r.item else None for r in rs]  # noqa: E731
    assert opts(first) == opts(again) and opts(first) != opts(other)


def test_numbers_years_and_binary_golds(hotpot_graph):
    builder = DistractorBuilder(hotpot_graph, seed=0)
    items = [Item(qid="y", question="In which year did it open?", gold="1993"),
             Item(qid="c", question="In which century was the breed developed?", gold="19th century"),
             Item(qid="b", question="Is it true?", gold="Yes"),
             Item(qid="n", question="Which source says so?", gold="Insufficient information.")]
    year, century, binary, missing = builder.convert(items)
    assert year.source == "numeric" and all(v.isdigit() and 1983 <= int(v) <= 2003 for v in year.item.options.values())
    assert century.source == "numeric" and all(v.endswith(("st century", "nd century", "rd century", "th century"))
                                               for v in century.item.options.values())
    assert "21th century" not in century.item.options.values()
    assert sorted(binary.item.options.values()) == ["No", "Yes"]
    assert missing.item is None and "missing" in missing.reason


def test_a_converted_item_round_trips_as_a_benchmark_file(hotpot_graph, tmp_path):
    items, results = converted(hotpot_graph, "hotpotqa")
    path = tmp_path / "mcq.jsonl"
    path.write_text("".join(json.dumps(to_record(r.item)) + "\n" for r in results if r.item))
    loaded = load_benchmark(path).items
    made = [r.item for r in results if r.item]
    assert [(i.qid, i.options, i.gold_letter) for i in loaded] == [(i.qid, i.options, i.gold_letter) for i in made]
    # What a run reads beside the question comes through too (HotpotQA's labels: JudgeAgent's tiers weigh by them).
    assert [(i.difficulty, i.question_type, i.passage) for i in loaded] == [
        (i.difficulty, i.question_type, i.passage) for i in made]
    assert {i.difficulty for i in loaded} >= {"hard"} and all(i.question_type for i in loaded)
    from dataclasses import replace

    (tmp_path / "one.jsonl").write_text(json.dumps(to_record(replace(made[0], passage="The passage it reads."))) + "\n")
    assert load_benchmark(tmp_path / "one.jsonl").items[0].passage == "The passage it reads."


def test_check_options_catches_duplicates_and_a_missing_gold():
    assert check_options({"A": "Paris", "B": "paris"}, "A", ["Paris"]) == "two options are the same"
    assert "none" in check_options({"A": "Rome", "B": "Berlin"}, "A", ["Paris"])


def test_make_mcq_writes_a_benchmark_and_never_overwrites_by_accident(hotpot_graph, tmp_path, capsys):
    from judgeagent.cli import main

    out = tmp_path / "mcq.jsonl"
    args = ["make-mcq", str(DATA / "hotpotqa" / "small.questions.jsonl"), "--graph", str(hotpot_graph.path),
            "--out", str(out)]
    assert main(args) == 0
    said = capsys.readouterr().out
    items = load_benchmark(out).items
    assert f"wrote {len(items)} of 25 items" in said and all(i.options and i.gold_letter for i in items)
    before = out.read_text()
    assert main(args) == 1 and "already exists" in capsys.readouterr().err and out.read_text() == before
    # A folder as --out is said at once, with or without --overwrite (it offered --overwrite, which then refused).
    for extra in ([], ["--overwrite"]):
        assert main([*args[:-1], str(tmp_path), *extra]) == 1
        assert f"cannot write {tmp_path}: it is a folder; give a file name" in capsys.readouterr().err
