"""The tests written at stop 71 against the survivors of the first samples of JudgeAgent's validation stage
(protocols/judgeagent/validate.py: Algorithm 2's ACC1, ACC2, Correction Rate and Correct-to-Error rate) and its typed
records (records.py), seed 1: numbers by hand, text word for word, rows written. The mutant each kills is in the
comment above it."""
from __future__ import annotations

import asyncio
import json
from dataclasses import FrozenInstanceError, fields
from types import SimpleNamespace

import pytest

from judgeagent.errors import JudgeAgentError
from judgeagent.metrics import bootstrap
from judgeagent.models.cache import CachedModel, ResponseCache
from judgeagent.models.testing import FunctionModel
from judgeagent.protocols.judgeagent.authors import ALL_RIGHT
from judgeagent.protocols.judgeagent.batch import transcript
from judgeagent.protocols.judgeagent.prompts import Feedback, feedback_messages
from judgeagent.protocols.judgeagent.records import (
    FeedbackEntry,
    JudgedAs,
    Leakage,
    QuestionRecord,
    Tokens,
    batch_row,
)
from judgeagent.protocols.judgeagent.validate import (
    AtRound,
    _batch_at_round,
    render_validation,
    summarise_validation,
    validate,
    with_suggestions,
)

FEEDBACK = {"flaws_knowledge": "k", "flaws_capability": "c", "comprehensive_performance": "p", "suggestions": "s"}


def _row(batch: int, difficulty: str | None, question_type: str | None, held_out: bool, before: bool, after: bool,
         reused: str | None = None) -> dict:
    row = {"qid": f"q{batch}{difficulty}{before}", "batch": batch, "difficulty": difficulty,
           "question_type": question_type, "held_out": held_out, "question": "Q?", "gold": "A", "answer_before": "",
           "answer_after": "", "before": before, "after": after, "method_before": "exact", "method_after": "exact"}
    return {**row, "reused": reused} if reused else row


def _validation() -> tuple[list[dict], list[FeedbackEntry]]:
    """Three batches at setting=authors: batch 0 with feedback (two leaked strings caught, asked again and redacted),
    batch 1 whose feedback failed and batch 2 all right (both with their first answers reused); 5 rows, 2 fixed by
    the suggestions, none broken, one held out."""
    rows = [_row(0, "easy", "inference_query", False, True, True), _row(0, "easy", None, False, False, True),
            _row(0, "hard", "inference_query", False, False, True),
            _row(1, "hard", "inference_query", True, False, False, "feedback failed"),
            _row(2, None, "comparison_query", False, True, True, "all right")]
    leaked = Leakage(["Paris", "Lyon"], True, True)
    feedback = [FeedbackEntry(0, ["a"], FEEDBACK, None, leaked, 1.0, 2, [], []),  # type: ignore[arg-type]
                FeedbackEntry(1, ["b"], None, "the reply was no JSON", Leakage(), 0.0, 1, [], []),
                FeedbackEntry(2, ["c"], None, ALL_RIGHT, Leakage(), 1.0, 1, [], [])]
    return rows, feedback


# validate.py:364 `not f.feedback` -> `f.feedback` (batches_without_feedback counting the batches with feedback)
def test_a_validations_summary_by_hand():
    rows, feedback = _validation()
    v = summarise_validation(rows, feedback, resamples=50, seed=3)  # type: ignore[arg-type]
    o = v["overall"]
    # 5 questions: 2 right before, 4 after; 2 wrong -> right, none right -> wrong (all over N, as Algorithm 2)
    assert (o["n"], o["acc1"], o["acc2"], o["cr"], o["cte"], o["delta"]) == (5, 0.4, 0.8, 0.4, 0.0, 0.4)
    assert (o["cr_given_wrong"], o["cte_given_right"], o["mcnemar_p"]) == (2 / 3, 0.0, 0.5)
    assert (v["seen"]["n"], v["seen"]["delta"], v["held_out"]["n"], v["held_out"]["acc2"]) == (4, 0.5, 1, 0.0)
    assert (v["batches"], v["batches_without_feedback"]) == (3, 2)
    assert v["leakage"] == {"batches_with_leaks": 1, "regenerated": 1, "redacted": 1, "strings_caught": 2}
    assert v["batches_reused"] == {"all right": 1, "feedback failed": 1}
    assert {k: g["n"] for k, g in v["by_difficulty"].items()} == {"easy": 2, "hard": 2, "unlabelled": 1}
    hard = v["by_difficulty"]["hard"]
    assert (hard["acc1"], hard["acc2"], hard["cr"]) == (0.0, 0.5, 0.5)
    assert hard["intervals"] == bootstrap([(False, True), (False, False)], 50, 3)  # each group's own resampling
    assert v["by_difficulty"]["unlabelled"]["intervals"] == {"acc1": (1.0, 1.0), "acc2": (1.0, 1.0),
                                                            "cr": (0.0, 0.0), "cte": (0.0, 0.0), "delta": (0.0, 0.0)}
    # setting=ours: nothing reused, nothing held out
    fresh = [{**r, "held_out": False} for r in rows if "reused" not in r]
    ours = summarise_validation(fresh, feedback[:1], 50, 3)  # type: ignore[arg-type]
    assert "batches_reused" not in ours and ours["held_out"] is None and ours["held_out_intervals"] is None


# validate.py:407 ' delta ' emptied in the held-out line (and the rest of the printed validation, word for word)
def test_a_validation_as_printed_word_for_word():
    rows, feedback = _validation()
    v = summarise_validation(rows, feedback, resamples=50, seed=3)  # type: ignore[arg-type]
    v["by_round"] = [{"round": 0, "feedback_failed": 1, "n": 5, "acc2": 0.6, "cr": 0.2, "cte": 0.0, "delta": 0.2},
                     {"round": 1, "feedback_failed": 0, "n": 5, "acc2": 0.8, "cr": 0.4, "cte": 0.0, "delta": 0.4}]
    # the intervals by hand, not the seeded draw's: the text is then the figures above, each to one decimal
    v["intervals"] = {"acc1": (0.1, 0.7), "acc2": (0.4, 1.0), "cr": (0.2, 0.6), "cte": (0.0, 0.05), "delta": (0.0, 0.8)}
    assert render_validation(v).splitlines() == [
        "validation (percent; 95% bootstrap intervals)",
        "  n 5  ACC1 40.0 [10.0, 70.0]  ACC2 80.0 [40.0, 100.0]",
        "  CR 40.0 [20.0, 60.0]  CtE 0.0 [0.0, 5.0]  delta 40.0 [0.0, 80.0]  McNemar p 0.5",
        "  CR | initially wrong 66.7  CtE | initially right 0.0",
        "  difficulty easy               n    2  ACC1 50.0  ACC2 100.0  CR 50.0  CtE 0.0",
        "  difficulty hard               n    2  ACC1 0.0  ACC2 50.0  CR 50.0  CtE 0.0",
        "  difficulty unlabelled         n    1  ACC1 100.0  ACC2 100.0  CR 0.0  CtE 0.0",
        "  question type comparison_query   n    1  ACC1 100.0  ACC2 100.0  CR 0.0  CtE 0.0",
        "  question type inference_query    n    3  ACC1 33.3  ACC2 66.7  CR 33.3  CtE 0.0",
        "  question type unlabelled         n    1  ACC1 0.0  ACC2 100.0  CR 100.0  CtE 0.0",
        "  seen by the interviewer: n 4 delta 50.0; held out: n 1 delta 0.0",
        "  after round 0: n 5  ACC2 60.0  CR 20.0  CtE 0.0  delta 20.0  (1 batches without feedback)",
        "  after round 1: n 5  ACC2 80.0  CR 40.0  CtE 0.0  delta 40.0",
        "  first answers reused (setting=authors): 1 batches all right (no feedback asked), 1 whose feedback failed",
        "  leakage guard: 1 of 3 batches caught, 1 redacted"]


def _base(qid: str, correct: bool) -> QuestionRecord:
    return QuestionRecord(f"b0-base-{qid}", 0, "grading", 0, qid, "easy", f"Question {qid}?", "Paris", "Lyon",
                          correct, JudgedAs("exact"), 1.0 if correct else -0.5,
                          prompt=[{"role": "user", "content": f"Question {qid}?"}])


# validate.py:252 `reply.ok and isinstance(reply.parsed, Feedback)` -> `or`: a journaled feedback reply whose text no
# longer reads as Feedback (the journal edited, or a validator changed under the same JSON schema, which the key holds)
# comes back from the journal as a reply without error and without `parsed` (`CachedModel` parses a hit again); it is
# a batch without feedback at that round, not an AttributeError on `parsed.suggestions`
def test_a_journaled_feedback_that_no_longer_reads_as_feedback_is_a_batch_without_feedback(tmp_path):
    records = [_base("q1", False), _base("q2", True)]
    entry = FeedbackEntry(0, ["q1", "q2"], FEEDBACK, None, Leakage(), 0.5, 2, [], [])  # type: ignore[arg-type]
    plain = {(0, "q1"): {"before": False}, (0, "q2"): {"before": True}}
    journal = ResponseCache(tmp_path)
    interviewer = CachedModel(FunctionModel(lambda messages: json.dumps(FEEDBACK), "interviewer"), journal)
    try:
        asked = asyncio.run(interviewer.complete(feedback_messages(transcript(records)), schema=Feedback))
        assert asked.ok and isinstance(asked.parsed, Feedback) and len(journal) == 1
        for key, value, _ in list(journal.entries()):
            journal.put(key, {**value, "text": '{"suggestions": "read the question twice"}'})  # no flaws: no Feedback
        models = SimpleNamespace(interviewer=interviewer, target=None)  # no target call: nothing to ask again with
        for authors, pairs in ((False, []), (True, [(False, False), (True, True)])):
            at = asyncio.run(_batch_at_round(records, models, None, entry, 0, plain, authors))  # type: ignore[arg-type]
            assert at == AtRound(pairs, failed=True)  # the first answers reused at setting=authors
    finally:
        journal.close()


# records.py:109 and the other typed records' `frozen=True` as False: a record read back cannot be changed, and a
# verdict or token count can be counted in a set
def test_the_typed_records_cannot_be_changed_and_a_verdict_can_be_counted_in_a_set():
    typed = [JudgedAs("exact"), Tokens(3, 4, False), _base("q1", False), Leakage(),
             FeedbackEntry(0, [], None, "none", Leakage(), 0.0, 0, [], [])]
    for record in typed:
        with pytest.raises(FrozenInstanceError):
            setattr(record, fields(record)[0].name, None)
    assert len({JudgedAs("exact", "same"), JudgedAs("exact", "same"), Tokens(3, 4, False), Tokens(3, 4, False)}) == 2


# records.py:223 `row.get("options") or None` -> `and None` (every record read without its options), 224
# 'gold_letter' emptied (read without its letter), 228 'cached' emptied (every record read as answered afresh)
def test_a_records_options_and_cached_tokens_come_back_and_empty_options_are_none():
    row = _base("q1", True).to_dict()
    record = QuestionRecord.from_dict({**row, "options": {"A": "Paris", "B": "Lyon"}, "gold_letter": "A",
                                       "tokens": {"input": 12, "output": 3, "cached": True}})
    assert record.options == {"A": "Paris", "B": "Lyon"} and record.gold_letter == "A"
    assert record.tokens == Tokens(12, 3, True)
    assert QuestionRecord.from_dict({**row, "options": {}}).options is None  # an empty mapping is an open question


# records.py:217 `row.get("round", 0)` as 1: a row without its batch or round (no version wrote one; the readers
# took 0 before the records were typed) is a base question of batch 0, round 0
def test_a_row_without_batch_or_round_reads_as_batch_0_round_0():
    row = {k: v for k, v in _base("q1", True).to_dict().items() if k not in ("batch", "round")}
    record = QuestionRecord.from_dict(row)
    assert (record.batch, record.round) == (0, 0)


# records.py:305 `"skipped" in r` -> `not in` (rounds skipped counted as the rounds run: the same for one of each)
def test_a_batch_rows_rounds_run_and_skipped_are_counted_apart():
    rounds = [{"round": 1, "tier": "hard"}, {"round": 2, "tier": "hard"}, {"round": 3, "tier": "hard", "skipped": "x"}]
    entry = FeedbackEntry(4, ["a"], None, "none", Leakage(["Paris"]), 2.0, 3, ["hard"], rounds)  # type: ignore
    row = batch_row(entry)
    assert (row["rounds_run"], row["rounds_skipped"], row["leaks_detected"]) == (2, 1, 1)


# validate.py:78 `resamples=2000` as 2001 (validate's intervals drawn over another count than its documented 2000),
# 304 'call_after' emptied (the row's call named under no key: the Inspect export finds no call for the answer after)
def test_a_validated_runs_rows_name_the_call_after_and_its_intervals_are_2000_resamples(tmp_path, mhr_slice_graph):
    from judgeagent import EvalConfig
    from judgeagent.models.cache import journal_calls
    from judgeagent.protocols.record import call_id
    from tests.test_validate import make_run

    roles, result = make_run(tmp_path, mhr_slice_graph, config=EvalConfig(rounds=0, seed=1), limit=10)
    try:
        v = validate(result.folder, registry=roles.registry(), cache=False)
    finally:
        roles.__exit__(None, None, None)
    read = lambda name: [json.loads(x) for x in (result.folder / name).read_text().splitlines()]  # noqa: E731
    prompts = {r["qid"]: r["prompt"] for r in read("records.jsonl") if r["stage"] == "grading"}
    suggestions = {f["batch"]: f["feedback"]["suggestions"] for f in read("feedback.jsonl")}
    journaled = {call_id(c["messages"], c["text"]) for c in journal_calls(result.folder) if c.get("messages")}
    rows = read("validation.jsonl")
    assert len(rows) == 10
    for row in rows:
        sent = with_suggestions(prompts[row["qid"]], suggestions[row["batch"]])
        assert row["call_after"] == call_id(sent, row["answer_after"]) and row["call_after"] in journaled
    pairs = [(r["before"], r["after"]) for r in rows]
    # the run's seed; at seed 1 (not at most seeds) 2001 resamples of these ten pairs give other intervals than 2000
    assert v["intervals"] == bootstrap(pairs, 2000, 1) != bootstrap(pairs, 2001, 1)


# A real bug: validate() inside a running event loop told the user to `await asyncio.to_thread(validate, ...)(...)`,
# which calls the coroutine (TypeError); the hint is now the call to await, and following it validates (here: the
# one-line error of a folder that holds no run). Also validate.py:93 'validate' emptied (the refusal naming `()`).
def test_validate_inside_a_running_loop_says_which_call_to_await_and_that_call_works(tmp_path):
    async def inside() -> None:
        validate(tmp_path / "run")

    with pytest.raises(JudgeAgentError, match=r"^validate\(\) was called inside a running event loop \(a notebook or "
                                              r"an async program\): use `await asyncio\.to_thread\(validate, \.\.\.\)` "
                                              r"there, which runs it on a worker thread$"):
        asyncio.run(inside())
    with pytest.raises(JudgeAgentError, match=r"^run not found: "):
        asyncio.run(asyncio.to_thread(validate, tmp_path / "run"))
    assert not (tmp_path / "run").exists()


# validate.py:208 'extension' emptied (`config.get("", True)`): a --no-extension run (its feedback from the base
# answers alone, the paper's w/o interactive extension) validated after every round has one round, its own, not
# `rounds` more asked again from the same base answers
def test_every_round_of_a_run_without_extension_is_its_one_round(tmp_path, mhr_slice_graph):
    from judgeagent import EvalConfig
    from tests.test_validate import make_run

    roles, result = make_run(tmp_path, mhr_slice_graph, config=EvalConfig(rounds=2, extension=False), limit=5)
    try:
        asked = len(roles.interviewer.bodies)
        v = validate(result.folder, registry=roles.registry(), cache=False, all_rounds=True)
        assert len(roles.interviewer.bodies) == asked  # no feedback asked again
    finally:
        roles.__exit__(None, None, None)
    assert v["by_round"] == [{"round": 0, "feedback_failed": 0, **v["overall"]}] and v["overall"]["n"] == 5


# records.py:229 'batch_reply' emptied: a setting=authors record read back without the batch's whole reply (written
# again without it, and validated as a run at setting=ours would be, one question a prompt)
def test_a_records_batch_reply_comes_back_and_is_written_last():
    row = {**_base("q1", True).to_dict(), "batch_reply": '{"answers": ["Paris"]}'}
    record = QuestionRecord.from_dict(row)
    assert record.batch_reply == '{"answers": ["Paris"]}'
    assert json.dumps(record.to_dict()) == json.dumps(row) and list(record.to_dict())[-1] == "batch_reply"
