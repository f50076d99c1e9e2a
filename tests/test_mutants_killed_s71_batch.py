"""The tests written at stop 71 against the survivors of the first sample of JudgeAgent's online stage, one batch
(protocols/judgeagent/batch.py: grading, tiers, the extension rounds' paths and the feedback), seed 1: text word for
word, numbers and rows by hand. The mutant each kills is in the comment above it."""
from __future__ import annotations

import asyncio
import json
import threading
from collections import deque
from concurrent.futures import Future
from types import SimpleNamespace

from judgeagent.benchmark import Item, load_benchmark
from judgeagent.graph.sample import PathSampler
from judgeagent.models.testing import FunctionModel
from judgeagent.protocols.judgeagent.batch import (
    LEAD,
    BatchState,
    Context,
    _encode_next,
    _extension_round,
    _feedback,
    _help,
    _one_path,
    _path,
    _read_ahead,
    _seen,
    _starts,
    _walk_ahead,
    held_out,
    transcript,
)
from judgeagent.protocols.judgeagent.cloze import cloze_questions
from judgeagent.protocols.judgeagent.config import EvalConfig
from judgeagent.protocols.judgeagent.records import JudgedAs, QuestionRecord
from judgeagent.runs import open_run
from tests.conftest import DEMO


# batch.py:560 '(no answer)' emptied, and 555 `r.difficulty or 'unlabelled'` -> `and`: the transcript the interviewer
# reads for its feedback, word for word (a labelled question shows its level, an empty answer says there was none)
def test_the_feedback_transcript_word_for_word():
    records = [
        QuestionRecord("b0-base-q1", 0, "grading", 0, "q1", "hard", "Who wrote Dune?", "Frank Herbert",
                       "  Frank Herbert wrote it.  ", True, JudgedAs("exact"), 2.0),
        QuestionRecord("b0-base-q2", 0, "grading", 0, "q2", None, "Which city?", "Paris", "", False,
                       JudgedAs("empty"), 0.0, options={"A": "Lyon", "B": "Paris"}, gold_letter="B"),
        QuestionRecord("b0-r1-q0", 0, "extension", 1, None, "easy", "What river?", "Seine", "x" * 600, False,
                       JudgedAs("f1"), 0.0)]
    assert transcript(records).splitlines() == [
        "Q1 (grading, hard): Who wrote Dune?",
        "   correct answer: Frank Herbert",
        "   model's answer: Frank Herbert wrote it.",
        "   judged: correct",
        "Q2 (grading, unlabelled): Which city?",
        "   A. Lyon",
        "   B. Paris",
        "   correct answer: B. Paris",
        "   model's answer: (no answer)",
        "   judged: wrong",
        "Q3 (extension, easy): What river?",
        "   correct answer: Seine",
        f"   model's answer: {'x' * 500}",
        "   judged: wrong"]


def _demo_items(n: int) -> list[Item]:
    return load_benchmark(DEMO / "questions.jsonl", limit=n).items


# batch.py:186 `ctx.unwalked[0][0] in ctx.walking` -> `[0][1]` (a batch's question list looked up in the set of
# started batches: a TypeError in the reader's helper, whose future nobody reads, so the reader never encoded ahead)
def test_the_reader_encodes_the_second_batch_the_worker_has_not_started(demo_graph, extractor, encoder):
    sampler = PathSampler(demo_graph, extractor, encoder, reader="thread")
    questions = [[i.question] for i in _demo_items(4)]
    ctx = SimpleNamespace(taking=threading.Lock(), unwalked=deque(enumerate(questions)), walking={0, 1},
                          sampler=sampler)
    # batches 0 and 1 are the worker's: dropped; of 2 and 3, the worker encodes 2 and the reader takes 3
    assert _encode_next(ctx) is True  # type: ignore[arg-type]
    assert list(ctx.unwalked) == [(2, questions[2])]
    assert (*questions[3], 5) in sampler._batches and (*questions[2], 5) not in sampler._batches
    assert _encode_next(ctx) is False and list(ctx.unwalked) == [(2, questions[2])]  # type: ignore[arg-type]


# batch.py:221 `config.path != "dense"` -> `!= ""`: `setting=authors` with `--path dense` took the authors' windows
# of one rooted walk, not the top chunks the dense baseline names
def test_the_authors_setting_with_dense_paths_takes_the_top_chunks(demo_graph, extractor, encoder):
    items = _demo_items(3)
    config = EvalConfig(setting="authors", path="dense", rounds=2)
    ctx = SimpleNamespace(config=config, walking=set(), graph=demo_graph,
                          sampler=PathSampler(demo_graph, extractor, encoder, reader="thread"))
    read: Future[dict[str, list[str]]] = Future()
    read.set_result({})
    walked = _walk_ahead(ctx, 4, items, read)  # type: ignore[arg-type]
    assert ctx.walking == {4} and len(walked) == 2
    for path, info in walked:
        assert info["dense"] is True and "window" not in info and info["chunk_ids"] == path
        assert len(path) == config.hops == 2


# batch.py:399 `rec.stage == "extension"` -> `== ""`: the cloze avoided the batch's base questions only, and a later
# round whose path shares a sentence asked an earlier round's question again (issue 45). On the demo graph, the one
# chunk demo-05#3 gives one question under the seeds of rounds 1 and 2 unless the first is avoided.
def test_a_later_cloze_round_avoids_the_question_an_earlier_round_asked(tmp_path, demo_graph):
    target = FunctionModel(lambda messages: "the Space Telescope Science Institute", "target")
    with open_run(tmp_path / "run", {"config_id": "cloze"}) as run:
        ctx = Context(EvalConfig(rounds=2, fixed_difficulty="easy"), SimpleNamespace(target=target), run, graph=demo_graph)  # type: ignore[arg-type]
        try:
            state = BatchState(trajectory=["easy"])
            walked = (["demo-05#3"], {"entities": [], "entity_ids": [], "chunk_ids": ["demo-05#3"], "random": True})
            for r in (1, 2):
                asyncio.run(_extension_round(ctx, 0, r, walked, state, []))  # type: ignore[arg-type]
        finally:
            ctx.close()
    assert [(rec.record_id, rec.question.rsplit(": ", 1)[-1], rec.gold, rec.correct) for rec in state.records] == [
        ("b0-r1-q0", '"Like Hubble, Webb is operated by the ____ in Baltimore."', "Space Telescope Science Institute",
         True),
        ("b0-r2-q0", '"Like ____, Webb is operated by the Space Telescope Science Institute in Baltimore."', "Hubble",
         False)]
    assert [(info["tier"], info["generator"]) for info in state.rounds] == [("easy", "cloze")] * 2
    rows = [json.loads(line) for line in (tmp_path / "run" / "records.jsonl").read_text().splitlines()]
    assert [row["record_id"] for row in rows] == ["b0-r1-q0", "b0-r2-q0"]


# batch.py:438 `seed * 1_000_003 + b * 1009` -> `- b * 1009`: a cloze round's draw is seeded by the run's seed, the
# batch and the round, written out (3 * 1_000_003 + 1 * 1009 + 1 = 3_001_019 for seed 3, batch 1, round 1); on demo-05#3
# that seed blanks "Stephan", the mutant's 2_999_001 "Baltimore"
def test_a_cloze_rounds_draw_is_seeded_by_the_run_the_batch_and_the_round(tmp_path, demo_graph):
    target = FunctionModel(lambda messages: "Stephan", "target")
    with open_run(tmp_path / "run", {"config_id": "cloze"}) as run:
        ctx = Context(EvalConfig(rounds=1, seed=3, fixed_difficulty="easy"), SimpleNamespace(target=target), run,  # type: ignore[arg-type]
                      graph=demo_graph)
        try:
            state = BatchState(trajectory=["easy"])
            walked = (["demo-05#3"], {"entities": [], "entity_ids": [], "chunk_ids": ["demo-05#3"], "random": True})
            asyncio.run(_extension_round(ctx, 1, 1, walked, state, []))  # type: ignore[arg-type]
        finally:
            ctx.close()
    (record,) = state.records
    expected = cloze_questions(demo_graph, ["demo-05#3"], [], count=1, seed=3_001_019)
    assert (record.record_id, record.gold, record.correct) == ("b1-r1-q0", "Stephan", True)
    assert record.question == expected[0].question and "____'s Quintet" in record.question


# batch.py:311 `int(config.holdout * len(items))` -> `/`: the share of a batch held out of its feedback is of its
# questions (0.4 of 5 is 2, 0.39 of 5 rounds down to 1), the draw seeded by the run's seed and the batch
def test_a_batchs_held_out_questions_are_the_share_of_its_questions_drawn_by_seed_and_batch():
    items = _demo_items(5)
    assert held_out(EvalConfig(holdout=0.4), 3, items) == {"demo-q04", "demo-q05"}
    assert held_out(EvalConfig(holdout=0.4, seed=1), 3, items) == {"demo-q02", "demo-q04"}
    assert len(held_out(EvalConfig(holdout=0.39), 3, items)) == 1 and held_out(EvalConfig(), 3, items) == set()
    seen = _seen(EvalConfig(holdout=0.4), 3, items)
    assert [i.qid for i in seen] == ["demo-q01", "demo-q02", "demo-q03"]


# batch.py:447 `tuple(found[1]["chunk_ids"]) not in used` -> `in`: a round keeps its first try's path unless an earlier
# round of the batch walked it, then tries the next seeds, and takes the last try's even if it repeats
def test_a_round_takes_its_first_new_path_and_after_four_tries_a_repeat(demo_graph):
    items = _demo_items(1)
    ctx = SimpleNamespace(config=EvalConfig(rounds=1), graph=demo_graph, sampler=PathSampler(demo_graph, reader="thread"))
    tries = [_one_path(ctx, 0, 1, items, attempt)[1]["chunk_ids"] for attempt in range(4)]  # type: ignore[arg-type]
    assert len({tuple(t) for t in tries}) == 4  # four seeds, four walks: what each try took can be told apart
    used: set[tuple[str, ...]] = set()
    for k in range(2):
        path, info = _path(ctx, 0, 1, items, used)  # type: ignore[arg-type]
        assert path.chunk_ids == info["chunk_ids"] == tries[k] and 0 < info["relevance"] <= 1
    assert used == {tuple(tries[0]), tuple(tries[1])}
    assert _path(ctx, 0, 1, items, {tuple(t) for t in tries})[1]["chunk_ids"] == tries[3]  # type: ignore[arg-type]
    assert _path(ctx, 0, 1, items)[1]["chunk_ids"] == tries[0]  # type: ignore[arg-type]


def _feedback_reply(messages: list) -> str:
    """The interviewer's feedback: at first it names a gold; asked again without it, it says back the schema's
    description of `suggestions` (no advice)."""
    again = "do not write any of" in messages[0]["content"]
    suggestion = ("Guidance that helps the answerer do better on questions like these." if again else
                  "Recall the launch vehicles of each telescope. The answer is Ariane 5.")
    return json.dumps({"flaws_knowledge": "gaps", "flaws_capability": "rushes", "comprehensive_performance": "fair",
                       "suggestions": suggestion})


# A bug, not a mutant: the feedback asked again because it leaked a gold was kept even when it only said back the
# schema's description of `suggestions`, which the first reply is refused for (no advice, measuring nothing in
# validation). Such a second reply is now one that failed: the first is kept, its leaked strings redacted.
def test_feedback_asked_again_that_repeats_the_schema_keeps_the_first_redacted(tmp_path):
    items = _demo_items(1)
    interviewer = FunctionModel(_feedback_reply, "interviewer")
    with open_run(tmp_path / "run", {"config_id": "feedback"}) as run:
        ctx = Context(EvalConfig(rounds=0), SimpleNamespace(interviewer=interviewer, ledger=None), run)  # type: ignore[arg-type]
        try:
            entry = asyncio.run(_feedback(ctx, 0, items, BatchState(total=0.0, asked=1)))
        finally:
            ctx.close()
    assert len(interviewer.calls) == 2 and entry.feedback_error is None and entry.feedback is not None
    assert entry.feedback["suggestions"].startswith("Recall the launch vehicles of each telescope.")
    assert "Ariane 5" not in entry.feedback["suggestions"]
    assert (entry.leakage.detected, entry.leakage.regenerated, entry.leakage.redacted) == (["Ariane 5"], True, True)
    (row,) = [json.loads(line) for line in (tmp_path / "run" / "feedback.jsonl").read_text().splitlines()]
    assert row["feedback"]["suggestions"] == entry.feedback["suggestions"]


def _generator(replies: list[dict]) -> FunctionModel:
    """An interviewer whose k-th generation reply is replies[k] (one generated question)."""
    asked: list[int] = []

    def reply(messages: list) -> str:
        asked.append(1)
        return json.dumps({"generated_question": [replies[min(len(asked), len(replies)) - 1]]})

    return FunctionModel(reply, "interviewer")


def _skipped_round(tmp_path, graph, config: EvalConfig, trajectory: list[str]) -> tuple[dict, FunctionModel]:
    """One extension round on demo-05#3 whose two generated questions fail two different checks."""
    interviewer = _generator([{"question": "Who operates Webb from Baltimore?", "answer": "a very long answer " * 3},
                              {"question": "Who operates the Webb telescope?", "answer": "Atlantis"}])
    with open_run(tmp_path / "run", {"config_id": "round"}) as run:
        ctx = Context(config, SimpleNamespace(interviewer=interviewer), run, graph=graph)  # type: ignore[arg-type]
        try:
            state = BatchState(trajectory=trajectory)
            walked = (["demo-05#3"], {"entities": [], "entity_ids": [], "chunk_ids": ["demo-05#3"], "random": True})
            asyncio.run(_extension_round(ctx, 0, 1, walked, state, []))  # type: ignore[arg-type]
        finally:
            ctx.close()
    assert not state.records and state.trajectory == trajectory  # nothing asked: the round is skipped
    (info,) = state.rounds
    return dict(info), interviewer


# batch.py:405 `", ".join` -> `"".join` and 403 the round info's "round" key emptied: a skipped round names each
# reason its questions failed once, sorted, comma-separated
def test_a_round_whose_questions_all_fail_says_each_reason_once(tmp_path, demo_graph):
    config = EvalConfig(rounds=1, fixed_difficulty="hard", generation_attempts=3)
    info, _ = _skipped_round(tmp_path, demo_graph, config, ["hard"])
    reasons = "answer longer than 8 words, answer not supported by the path text"
    assert info == {"round": 1, "tier": "hard", "path": info["path"], "generator": "llm",
                    "rejected": ["answer longer than 8 words"] + ["answer not supported by the path text"] * 2,
                    "skipped": f"every generated question failed the checks ({reasons})"}


# batch.py:393 `state.trajectory[0]` -> `[1]`: setting=authors asks every round at the tier the grading gave (the
# trajectory's first), `ours` at the latest
def test_authors_rounds_keep_the_grading_tier_and_ours_take_the_latest(tmp_path, demo_graph):
    tiers = {}
    for setting in ("authors", "ours"):
        config = EvalConfig(rounds=3, setting=setting, easy_generator="llm", generation_attempts=2)
        info, interviewer = _skipped_round(tmp_path / setting, demo_graph, config, ["easy", "hard", "medium"])
        tiers[setting] = info["tier"], {m[0]["content"].split("3. Difficulty: ")[1].split(" -")[0]
                                        for m in interviewer.calls}
    assert tiers == {"authors": ("easy", {"EASY"}), "ours": ("medium", {"MEDIUM"})}


# batch.py:158 `ctx.sampler is not None` -> `is None`: the reader reads the seeds each round will start from (their
# mentions) ahead of the sampler's thread, except under setting=authors, whose rounds read no seeds (issue 50)
def test_the_reader_reads_the_rounds_first_seeds_ahead_but_not_for_the_authors_windows(demo_graph, extractor, encoder):
    items = _demo_items(3)
    for setting, read in (("ours", True), ("authors", False)):
        config = EvalConfig(rounds=2, setting=setting)
        sampler = PathSampler(demo_graph, extractor, encoder, reader="thread")
        ctx = SimpleNamespace(config=config, sampler=sampler, graph=demo_graph)
        named = _read_ahead(ctx, [(0, items)])  # type: ignore[arg-type]
        assert set(named) == {"demo-q01", "demo-q02", "demo-q03"} and named["demo-q01"] == ["ariane", "james webb space telescope"]
        starts = _starts(config, 0, items)
        assert len(starts) == 2 and all(((q, 5) in sampler._read) is read for q in starts)


# batch.py:176 `read is None` -> `is not None`: once everything is read (None) the reader encodes every batch left
# but the worker's next; before, only while the worker is more than LEAD batches from the end of what was read
def test_the_reader_helps_while_the_worker_is_far_behind_and_at_the_end(demo_graph, extractor, encoder):
    questions = [[i.question] for i in _demo_items(4)]
    ctx = SimpleNamespace(taking=threading.Lock(), unwalked=deque(enumerate(questions)), walking={0},
                          sampler=PathSampler(demo_graph, extractor, encoder, reader="thread"))
    _help(ctx, 1 + LEAD)  # type: ignore[arg-type]  # the worker is LEAD batches from the end: no help
    assert len(ctx.unwalked) == 4 and not ctx.sampler._batches
    _help(ctx, None)  # type: ignore[arg-type]
    assert list(ctx.unwalked) == [(1, questions[1])]
    assert set(ctx.sampler._batches) == {(*questions[2], 5), (*questions[3], 5)}
