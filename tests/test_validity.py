"""judgeagent.protocols.judgeagent.validity: gap metrics on hand-built runs, the exact target on a real graph, the IRT estimate
against simulated examinees of known ability, and one planted-gap run end to end."""
from __future__ import annotations

import json

import numpy as np
import pytest

from judgeagent import JudgeAgentError
from judgeagent.protocols.judgeagent.records import QuestionRecord
from judgeagent.protocols.judgeagent.validity import (
    DEFAULT_ITEMS,
    ExactTarget,
    Item,
    ScriptedInterviewer,
    calibrate,
    chat_reply,
    estimate,
    read_records,
    recovery,
    run_ability,
    select_documents,
    serve_roles,
    weak_documents,
    weak_entities,
)
from judgeagent.protocols.judgeagent.validity.gaps import auc, questions_to_precision
from judgeagent.protocols.judgeagent.validity.irt import probability


def _row(i: int, chunks: list[str], correct: bool, entities: list[str] | None = None,
         difficulty: str | None = "easy", batch: int = 0) -> dict:
    return {"record_id": f"r{i}", "batch": batch, "stage": "extension", "difficulty": difficulty,
            "correct": correct, "path": {"chunk_ids": chunks, "entities": entities or []}}


def _record(*args, **kwargs) -> QuestionRecord:
    return QuestionRecord.from_dict(_row(*args, **kwargs))


def _write_run(folder, records: list[dict]) -> None:
    folder.mkdir()
    (folder / "manifest.json").write_text("{}")
    lines = [json.dumps(r) for r in records]
    (folder / "records.jsonl").write_text("\n".join(lines) + "\n" + lines[0] + "\n" + '{"torn')


# --- gap metrics on hand-built runs ---------------------------------------------------------------
def test_weak_documents_ranks_by_failure_rate_with_weighted_counts(tmp_path):
    records = [
        _row(0, ["A#0", "B#1"], False, ["alpha", "beta"]),
        _row(1, ["A#2"], False, ["alpha"]),
        _row(2, ["B#0", "C#0"], True, ["beta", "gamma"]),
        _row(3, ["C#1", "C#2"], True, ["gamma"]),
        _row(4, ["D#0"], False, ["delta"]),
    ]
    _write_run(tmp_path / "run", records)
    loaded = read_records(tmp_path / "run")
    assert [r.record_id for r in loaded] == ["r0", "r1", "r2", "r3", "r4"]  # duplicate and torn line dropped
    ranked = weak_documents(loaded)
    by = {w.name: w for w in ranked}
    assert (by["A"].asked, by["A"].failed) == (1.5, 1.5)
    assert (by["B"].asked, by["B"].failed) == (1.0, 0.5)
    assert (by["C"].asked, by["C"].failed) == (1.5, 0.0)
    assert [w.name for w in ranked] == ["A", "D", "B", "C"]  # 1.5 of 1.5 outranks 1 of 1
    assert [w.name for w in weak_entities(loaded)][:2] == ["alpha", "delta"]


def test_recovery_metrics_against_planted_truth():
    records = [_record(0, ["A#0"], False), _record(1, ["B#0"], False), _record(2, ["C#0"], True),
               _record(3, ["D#0"], True), _record(4, ["E#0", "C#1"], False)]
    rec = recovery(records, unknown={"A", "B", "E", "F"}, k=3, target_precision=1.0)
    # Ranked: A, B (1 of 1), E and C (1/2 of 1/2 vs 1/2 of 1.5) ... top 3 = A, B, E.
    assert rec.precision_at_k == 1.0
    assert rec.recall_at_k == pytest.approx(3 / 4)
    # Rates: A 1, B 1, E 1 (unknown) vs C 0.25, D 0 (known): every pair ordered.
    assert rec.auc == 1.0
    assert rec.documents_seen == 5 and rec.questions == 5
    assert rec.questions_to_precision == 5  # E is ranked third only after the fifth question
    assert questions_to_precision(records, {"A", "B", "E"}, k=2, target=1.0) == 2


def test_auc_counts_ties_half_and_needs_both_kinds():
    from judgeagent.protocols.judgeagent.validity.gaps import Weak

    ranked = [Weak("u", 2, 1), Weak("k", 2, 1), Weak("k2", 1, 0)]
    assert auc(ranked, {"u"}) == pytest.approx((0.5 + 1) / 2)
    assert auc(ranked, {"u", "k", "k2"}) is None


def test_base_questions_count_through_their_entities_only_when_asked_to():
    base = QuestionRecord.from_dict({"record_id": "b", "stage": "grading", "correct": False, "path": None,
                                     "entities": ["x"]})
    assert weak_documents([base]) == []
    ranked = weak_documents([base], entity_docs={"x": ["D1", "D2"]})
    assert [(w.name, w.failed) for w in ranked] == [("D1", 0.5), ("D2", 0.5)]


# --- IRT ----------------------------------------------------------------------------------------
@pytest.mark.parametrize("method", ["eap", "mle"])
def test_ability_within_two_standard_errors_of_simulated_examinees(method):
    """Seeded examinees of known ability answer 80 items across the three levels; the estimate lies
    within 2 SE of the truth in about 95% of cases (at least 90% of 300)."""
    levels = [DEFAULT_ITEMS[level] for level in ("easy", "medium", "hard")]
    inside = 0
    trials = 300
    for seed in range(trials):
        rng = np.random.default_rng(seed)
        theta = float(rng.uniform(-1.5, 1.5))
        items = [levels[i % 3] for i in range(80)]
        answers = [(bool(rng.random() < probability(theta, it)), it) for it in items]
        est = estimate(answers, method)
        inside += abs(est.theta - theta) <= 2 * est.se
    assert inside / trials >= 0.90


def test_ability_orders_examinees_and_handles_perfect_scores():
    strong = estimate([(True, Item(1.0))] * 20)
    weak = estimate([(False, Item(-1.0))] * 20)
    assert np.isfinite(strong.theta) and np.isfinite(weak.theta)
    assert strong.theta > 1.0 > -1.0 > weak.theta and strong.se > 0
    assert estimate([(True, Item(0.0))] * 5, "mle").theta == float("inf")
    none = estimate([])
    assert none.theta == pytest.approx(0, abs=1e-9) and none.se == pytest.approx(1, abs=1e-3)


def test_run_ability_per_batch_and_overall():
    records = ([_record(i, [], True, batch=0, difficulty="hard") for i in range(6)]
               + [_record(10 + i, [], False, batch=1, difficulty="easy") for i in range(6)])
    result = run_ability(records)
    assert result["batches"][0].theta > result["overall"].theta > result["batches"][1].theta
    assert result["overall"].n == 12 and result["overall"].se < result["batches"][0].se


def test_calibration_recovers_level_difficulties():
    """Twenty simulated targets of spread abilities answer items of true difficulties -1.5, 0.2, 1.4;
    the calibrated levels come back in order and near the truth (the scale is centred on the targets)."""
    truth = {"easy": -1.5, "medium": 0.2, "hard": 1.4}
    rng = np.random.default_rng(3)
    thetas = np.linspace(-1.5, 1.5, 20)
    runs = []
    for theta in thetas:
        runs.append([QuestionRecord.from_dict({
            "record_id": f"{level}{k}", "stage": "grading", "difficulty": level,
            "correct": bool(rng.random() < probability(theta - thetas.mean(), Item(b)))})
            for level, b in truth.items() for k in range(40)])
    items = calibrate(runs)
    assert items["easy"].b < items["medium"].b < items["hard"].b
    for level, b in truth.items():
        assert items[level].b == pytest.approx(b, abs=0.35)


# --- the exact target on a real graph ---------------------------------------------------------------
def test_select_documents_takes_whole_topics_to_the_share(mhr_slice_graph):
    known = select_documents(mhr_slice_graph, 0.5, seed=1)
    assert len(known.doc_ids) == round(0.5 * len(mhr_slice_graph.doc_ids))
    topics = {}
    for doc, topic in known.topics.items():
        topics.setdefault(topic, []).append(doc in known.doc_ids)
    partial = [t for t, flags in topics.items() if 0 < sum(flags) < len(flags)]
    assert len(partial) <= 1  # whole topics, but for the one cut to hit the share
    assert select_documents(mhr_slice_graph, 0.5, seed=1) == known
    assert select_documents(mhr_slice_graph, 0.5, seed=2).doc_ids != known.doc_ids


# slow by hand: it needs the whole small split's graph (`mhr_graph`, ~100 CPU s to build), which no fast test takes (#47)
@pytest.mark.slow
def test_exact_target_answers_exactly_its_documents(mhr_graph):
    from judgeagent.protocols.judgeagent.cloze import cloze_questions
    from judgeagent.protocols.judgeagent.prompts import answer_messages

    known = select_documents(mhr_graph, 0.5, seed=0)
    target = ExactTarget(mhr_graph, known)
    chunk_docs = mhr_graph.tables["chunks"].column("doc_id").to_pylist()
    right = {True: 0, False: 0}
    asked = {True: 0, False: 0}
    for row in range(0, len(mhr_graph.chunk_ids), 9):
        for q in cloze_questions(mhr_graph, [mhr_graph.chunk_ids[row]], count=1, seed=row):
            is_known = chunk_docs[row] in known.doc_ids
            asked[is_known] += 1
            right[is_known] += target.reply(answer_messages(q.question)) == q.gold
    assert asked[True] >= 20 and asked[False] >= 20
    assert right[True] == asked[True]
    assert right[False] == 0


def test_exact_target_answers_other_questions_from_known_chunks_only(mhr_slice_graph):
    from judgeagent.protocols.judgeagent.prompts import answer_messages

    chunk_docs = mhr_slice_graph.tables["chunks"].column("doc_id").to_pylist()
    row = next(i for i, t in enumerate(mhr_slice_graph.chunk_texts) if "Betashares" in t)
    doc = chunk_docs[row]
    question = "Which ETF provider, managing $30 billion in funds, agreed to acquire a superannuation business?"
    knowing = ExactTarget(mhr_slice_graph, [doc])
    assert knowing.reply(answer_messages(question)) == "Betashares"
    others = [d for d in dict.fromkeys(chunk_docs) if d != doc][:5]
    assert ExactTarget(mhr_slice_graph, others, encoder=knowing.encoder).reply(answer_messages(question)) != "Betashares"
    assert ExactTarget(mhr_slice_graph, []).reply(answer_messages(question)) == "I don't know."


def test_planted_gap_run_end_to_end(mhr_slice_graph, tmp_path):
    """A real interview (real sampler, cloze, client, run folder) of the exact target by the scripted
    interviewer: extension questions on known documents are right, on unknown ones wrong, and the
    weak documents the run names are mostly unknown ones."""
    from judgeagent.benchmark import load_benchmark
    from judgeagent.config import CheckerConfig
    from judgeagent.protocols.judgeagent.config import EvalConfig
    from judgeagent.protocols.judgeagent.evaluate import evaluate

    from .conftest import DATA

    bench = load_benchmark(DATA / "multihop_rag" / "small.questions.jsonl", limit=20)
    known = select_documents(mhr_slice_graph, 0.5, seed=0)
    target = ExactTarget(mhr_slice_graph, known)
    config = EvalConfig(checker=CheckerConfig(judge_policy="off"), rounds=3, questions_per_round=2)
    with serve_roles({"target": chat_reply(target), "interviewer": ScriptedInterviewer()}) as registry:
        evaluate(bench, mhr_slice_graph, "target", interviewer="interviewer", judge="interviewer", config=config,
                 run_dir=tmp_path / "run", registry=registry, cache=False)
    records = read_records(tmp_path / "run")
    chunk_docs = dict(zip(mhr_slice_graph.chunk_ids, mhr_slice_graph.tables["chunks"].column("doc_id").to_pylist()))
    single = [r for r in records if r.stage == "extension" and len({chunk_docs[c] for c in r.chunk_ids}) == 1]
    for r in single:  # a cloze question is right exactly when its path's document is known
        is_known = chunk_docs[r.chunk_ids[0]] in known.doc_ids
        assert r.correct == is_known if r.generator == "cloze" else (r.correct <= is_known)
    assert any(r.stage == "extension" and r.difficulty in ("medium", "hard") for r in records)
    # Over the cloze questions (exact by construction), unknown documents fail more often than known ones.
    unknown = set(known.topics) - known.doc_ids
    ranked = weak_documents([r for r in records if r.generator == "cloze"])
    rate = {u: sum(w.failed for w in ranked if (w.name in unknown) == u)
               / sum(w.asked for w in ranked if (w.name in unknown) == u) for u in (True, False)}
    assert rate[True] > rate[False]
    assert recovery(records, unknown, k=5).documents_seen == len(weak_documents(records))
    # The report ranks the same documents, with their counts, and shows the ability with its interval.
    from judgeagent.protocols.judgeagent.report.build import build_report

    md, html = build_report(tmp_path / "run")
    text, page = md.read_text(), html.read_text()
    top = weak_documents(records)[0]
    row = next(line for line in text.splitlines() if line.startswith(f"| {top.name} | "))  # then its title (#29)
    assert row.endswith(f" | {top.asked:.1f} | {top.failed:.1f} | {100 * top.rate:.0f}% |")
    ability = run_ability(records)["overall"]
    assert f"{ability.theta:+.2f} ± {ability.se:.2f}" in text and f"{ability.theta:+.2f} ± {ability.se:.2f}" in page
    assert text.index("## Tier trajectory") < text.index("**Ability**") < text.index("## How answers")


def test_most_informative_level_follows_the_ability():
    from judgeagent.protocols.judgeagent.validity.irt import Ability, most_informative

    assert most_informative(Ability(-2.0, 0.5, 10)) == "easy"
    assert most_informative(Ability(0.1, 0.5, 10)) == "medium"
    assert most_informative(Ability(1.7, 0.5, 10)) == "hard"


def test_rag_target_prompts_with_known_chunks_only(mhr_slice_graph):
    """The realistic target puts the known chunks nearest the question before it, and nothing else."""
    from judgeagent.models.testserver import FakeServer
    from judgeagent.protocols.judgeagent.prompts import answer_messages
    from judgeagent.protocols.judgeagent.validity.rag import RagTarget

    chunk_docs = mhr_slice_graph.tables["chunks"].column("doc_id").to_pylist()
    row = next(i for i, t in enumerate(mhr_slice_graph.chunk_texts) if "Betashares" in t)
    question = "Which ETF provider, managing $30 billion in funds, agreed to acquire a superannuation business?"
    seen: list[str] = []
    with FakeServer(reply=lambda request: seen.append(request["messages"][-1]["content"]) or "Betashares") as server:
        knows = select_documents(mhr_slice_graph, 0.0, 0)
        knows = type(knows)(frozenset({chunk_docs[row]}), knows.topics, 0.0)
        assert RagTarget(mhr_slice_graph, knows, server.base_url, "m", k=2).reply(answer_messages(question)) == "Betashares"
        others = type(knows)(frozenset(d for d in chunk_docs if d != chunk_docs[row]), knows.topics, 0.0)
        RagTarget(mhr_slice_graph, others, server.base_url, "m", k=2).reply(answer_messages(question))
    assert mhr_slice_graph.chunk_texts[row] in seen[0] and seen[0].endswith(f"Question: {question}")
    doc_chunks = [t for t, d in zip(mhr_slice_graph.chunk_texts, chunk_docs) if d == chunk_docs[row]]
    assert seen[1].count("\n---\n") == 1 and not any(t in seen[1] for t in doc_chunks)


def test_read_records_names_a_line_damaged_before_the_last(tmp_path):
    """Only a last line can be torn by a kill; damage above it is reported by FILE:LINE, as every reader of a run
    does (`runs.read_rows`), not dropped from the gap report without a word."""
    records = [_row(i, ["A#0"], False, ["alpha"]) for i in range(3)]
    _write_run(tmp_path / "run", records)
    file = tmp_path / "run" / "records.jsonl"
    lines = file.read_text().split("\n")
    file.write_text("\n".join([lines[0], '{"record_id": "r1", "bat', *lines[2:]]))
    with pytest.raises(JudgeAgentError, match=f"^{file}:2: damaged line, malformed JSON"):
        read_records(tmp_path / "run")
