"""Tests written against surviving mutants (scripts/mutants.py, #47 part 2: the modules run whole): the hard negative
probes' subjects and first names, JudgeAgent's run summary, DynaEval's stability, KIEval's evaluator agreement
and the protocols' base (progress events, the learned step, the judge flag).
Each reads an outcome through the public function or the text a user reads."""
from __future__ import annotations

import random
from pathlib import Path

import pytest

from judgeagent.protocols.judgeagent.authors import ALL_RIGHT
from judgeagent.protocols.judgeagent.records import FeedbackEntry, JudgedAs, Leakage, QuestionRecord
from judgeagent.protocols.judgeagent.summary import render_summary, summarise

# --- grading/hard_negatives.py ----------------------------------------------------------------------------------


def test_a_capitalised_question_word_or_pronoun_is_no_part_of_a_subject():
    """A question put after a label ("Quiz: When did ...") has its question word capitalised past the first word:
    it neither opens a subject nor joins the name after it."""
    from judgeagent.grading.hard_negatives import subjects

    for word in ("I", "What", "Which", "Who", "Whom", "Whose", "When", "Where", "Why", "How", "In", "On", "Of", "Is",
                 "Was", "Did", "Does", "Do"):
        assert subjects(f"Quiz: {word} Gene Vincent sang?") == {"gene vincent"}, word
    assert subjects("Quiz: Gene Vincent Did sing?") == {"gene vincent"}  # it ends a name, too
    assert subjects("Was Microsoft founded by Bill Gates?") == {"microsoft", "bill gates"}  # the second word on


def test_a_name_whose_first_word_is_not_capitalised_gives_no_first_name():
    from judgeagent.benchmarks.item import Item
    from judgeagent.grading.hard_negatives import partial

    assert partial(Item("vg", "Who painted Sunflowers?", "van Gogh"), random.Random(0)) is None  # "van" no name
    assert partial(Item("vv", "Who painted Sunflowers?", "Vincent van Gogh"), random.Random(0)) == "Vincent"


def test_a_two_word_question_asks_for_its_second_word():
    from judgeagent.grading.hard_negatives import asked_kind

    assert [asked_kind(q) for q in ("Which river?", "How many?", "In which?", "Who?")] == [
        "which river", "how many", "in which", "who"]


# --- protocols/judgeagent/summary.py ----------------------------------------------------------------------------


def _record(n: int, batch: int, stage: str, difficulty: str | None, correct: bool, method: str,
            target_error: str | None = None) -> QuestionRecord:
    return QuestionRecord(f"r{n}", batch, stage, 0, f"q{n}", difficulty, f"Question {n}?", "gold", "answer", correct,
                          JudgedAs(method), 1.0 if correct else 0.0, target_error=target_error)


RECORDS = [_record(1, 0, "grading", "hard", True, "exact"),
           _record(2, 0, "grading", None, False, "judge", target_error="timed out"),
           _record(3, 1, "extension", "medium", True, "exact"),
           _record(4, 1, "extension", "medium", False, "f1")]


def _feedback(batch: int, score: float, asked: int, trajectory: list[str], rounds: list, *, error: str | None = None,
              leak: Leakage | None = None) -> FeedbackEntry:
    return FeedbackEntry(batch, [], None, error, leak or Leakage(), score, asked, trajectory, rounds)


FEEDBACK = [  # out of batch order: the summary sorts them
    _feedback(1, 1.5, 2, ["medium", "hard"], [
        {"round": 1, "tier": "hard", "path": {}, "rejected": ["too long", "leaks the gold"], "generator": "graph"},
        {"round": 2, "tier": "hard", "path": {}, "rejected": ["too long"], "skipped": "no path"}],
        leak=Leakage(["Paris"], regenerated=True, redacted=True)),
    _feedback(0, 2.0, 2, ["easy"], [{"round": 1, "tier": "easy", "path": {}, "rejected": []}], error="timed out",
              leak=Leakage([], regenerated=True)),
    _feedback(2, 2.0, 2, ["hard"], [], error=ALL_RIGHT)]


def test_a_runs_summary_by_hand():
    summary = summarise(RECORDS, FEEDBACK)
    assert summary == {
        "overall_score": 5.5 / 6, "questions": 4, "batches": 3,
        "accuracy": {"all": {"n": 4, "correct": 2, "accuracy": 0.5},
                     "extension": {"n": 2, "correct": 1, "accuracy": 0.5},
                     "extension/medium": {"n": 2, "correct": 1, "accuracy": 0.5},
                     "grading": {"n": 2, "correct": 1, "accuracy": 0.5},
                     "grading/hard": {"n": 1, "correct": 1, "accuracy": 1.0},
                     "grading/unlabelled": {"n": 1, "correct": 0, "accuracy": 0.0}},
        "trajectories": {"0": ["easy"], "1": ["medium", "hard"], "2": ["hard"]},
        "rounds": {"run": 2, "skipped": 1, "rejected_questions": 3,
                   "rejected_by_reason": {"leaks the gold": 1, "too long": 2}, "by_generator": {"graph": 1, "llm": 2}},
        "leakage": {"batches_with_leaks": 1, "redacted": 1},
        "feedback_failures": 1, "target_failures": 1, "judged_by": {"exact": 2, "f1": 1, "judge": 1},
        "feedback_skipped": 1}
    # sorted, as summary.json is written and read: batches in order, counts by name
    assert list(summary["trajectories"]) == ["0", "1", "2"]
    assert list(summary["accuracy"]) == ["all", "extension", "extension/medium", "grading", "grading/hard",
                                         "grading/unlabelled"]
    assert list(summary["rounds"]["rejected_by_reason"]) == ["leaks the gold", "too long"]
    assert list(summary["judged_by"]) == ["exact", "f1", "judge"]
    # a run at setting=ours asks feedback on every batch: the key stays out
    ours = summarise(RECORDS, FEEDBACK[:2])
    assert "feedback_skipped" not in ours and ours["feedback_failures"] == 1  # batch 0's error is a failure
    nothing = summarise([], [])
    assert (nothing["overall_score"], nothing["accuracy"], nothing["rounds"]["run"]) == (0.0, {}, 0)


def test_a_runs_summary_as_printed_word_for_word():
    summary = {**summarise(RECORDS, FEEDBACK), "judge_calibration": {"note": "judge passed calibration"}}
    usage = {"target": {"calls": 12, "cache_hits": 3, "failures": 1, "input_tokens": 4567, "output_tokens": 890,
                        "cost": 0.01234},
             "interviewer": {"calls": 4, "cache_hits": 0, "failures": 0, "input_tokens": 100, "output_tokens": 20,
                             "cost": 0.0}}
    assert render_summary(summary, "runs/demo", usage).splitlines() == [
        "run runs/demo",
        "  overall score 0.917 over 4 questions in 3 batches",
        "  accuracy all                      0.500  (2/4)",
        "  accuracy extension                0.500  (1/2)",
        "  accuracy extension/medium         0.500  (1/2)",
        "  accuracy grading                  0.500  (1/2)",
        "  accuracy grading/hard             1.000  (1/1)",
        "  accuracy grading/unlabelled       0.000  (0/1)",
        "  batch 0: tiers easy",
        "  batch 1: tiers medium -> hard",
        "  batch 2: tiers hard",
        ("  extension rounds run 2, skipped 1, generated questions rejected 3 {'leaks the gold': 1, 'too long': 2}; "
         "feedback leaks caught in 1 batches (1 redacted)"),
        "  answers judged by: {'exact': 2, 'f1': 1, 'judge': 1}",
        "  feedback not asked on 1 batches answered all right (setting=authors)",
        "  judge: judge passed calibration",
        "  target       calls    12  cached     3  failed   1  tokens in     4567 out     890  $0.0123",
        "  interviewer  calls     4  cached     0  failed   0  tokens in      100 out      20  $0.0000"]
    plain = render_summary(summarise(RECORDS[:1], FEEDBACK[1:2]), "runs/one")
    assert plain.splitlines()[-2:] == [
        ("  extension rounds run 1, skipped 0, generated questions rejected 0 ; feedback leaks caught in 0 batches "
         "(0 redacted)"),
        "  answers judged by: {'exact': 1}"]


# --- protocols/dynaeval/stability.py ----------------------------------------------------------------------------

GAMES = [{"repetition": 0, "cast": {"coder": "m1", "reviewer": "m2"}, "scores": {"coder": 1.0, "reviewer": None}},
         {"repetition": 0, "cast": {"coder": "m2", "reviewer": "m1"}, "scores": {"coder": 3.0, "reviewer": 2.0}},
         {"repetition": 1, "cast": {"coder": "m1", "reviewer": "m2"}, "scores": {"coder": 5.0, "reviewer": 4.0}}]


def test_the_cells_a_run_is_judged_on_and_their_running_means_by_hand():
    from judgeagent.metrics import mean_interval
    from judgeagent.protocols.dynaeval import stability

    assert stability.cells(GAMES, True) == {"m1": [1.0, 2.0, 5.0], "m2": [3.0, 4.0]}  # a seat without score: none
    assert stability.cells(GAMES, False) == {"m1/coder": [1.0, 5.0], "m2/reviewer": [4.0], "m2/coder": [3.0],
                                             "m1/reviewer": [2.0]}
    unscored = [{"repetition": 0, "cast": {"A": "p"}, "scores": {"A": None}}]
    assert stability.cells(unscored, True) == {"p": []}  # the player is still a cell (it never converges)
    assert (stability.repetitions_done([]), stability.repetitions_done(GAMES)) == (0, 2)
    estimates = stability.estimates(GAMES, False)
    assert list(estimates) == ["m1/coder", "m1/reviewer", "m2/coder", "m2/reviewer"]
    assert estimates["m1/coder"] == mean_interval([1.0, 5.0]) and estimates["m2/reviewer"]["n"] == 1
    assert stability.running(GAMES, True) == [{"repetition": 1, "m1": 1.5, "m2": 3.0},
                                              {"repetition": 2, "m1": 8 / 3, "m2": 3.5}]
    assert stability.running([], True) == []


def _reps(n: int, a: float, b: float) -> list[dict]:
    return [{"repetition": r, "cast": {"A": "p", "B": "q"} if r % 2 else {"A": "q", "B": "p"},
             "scores": {"A": a, "B": b}} for r in range(n)]


def test_the_next_wave_at_each_bound():
    from judgeagent.protocols.dynaeval.stability import next_wave

    def wave(rows, symmetric=True, **kw):
        return next_wave(rows, symmetric, **{"epsilon": 0.5, "min_runs": 3, "max_runs": 10, "wave": 2, **kw})

    assert wave([]) == range(3) and wave([], max_runs=2) == range(2)  # the first wave: min_runs, at most max
    assert wave(_reps(2, 5.0, 1.0), fixed=True) == range(2, 10) and wave([], fixed=True) == range(10)
    # each player sits in A and B in turn: as players the scores vary (5, 1, 5, ...), per player/seat they do not
    assert wave(_reps(6, 5.0, 1.0), symmetric=False) == range(6, 6)  # converged: three equal scores a cell
    assert wave(_reps(6, 5.0, 1.0)) == range(6, 8)
    assert wave(_reps(6, 5.0, 1.0), max_runs=7) == range(6, 7)  # the last wave stops at max_runs
    assert wave(_reps(6, 5.0, 1.0), max_runs=6) == range(6, 6)  # done == max_runs
    assert wave(_reps(6, 5.0, 5.0), min_runs=7) == range(6, 8)  # too few repetitions to have converged
    assert wave(_reps(6, 5.0, 5.0)) == range(6, 6)


def test_seats_follow_the_seed_and_the_repetition_apart_and_every_cast_of_an_asymmetric_task():
    from judgeagent.protocols.dynaeval.stability import asymmetric_casts, symmetric_cast

    seats, players = [f"Seat {k}" for k in range(8)], [f"p.{k}" for k in range(8)]
    # seed 7 at repetition 11 and seed 71 at repetition 1 are different draws (8! orders: alike by chance 1 in 40320)
    assert symmetric_cast(seats, players, 7, 11) != symmetric_cast(seats, players, 71, 1)
    assert symmetric_cast(seats, players, 7, 11) == symmetric_cast(seats, players, 7, 11)
    assert asymmetric_casts(["coder", "reviewer"], ["m1", "m2", "m3"]) == [
        (("coder", "m1"), ("reviewer", "m2")), (("coder", "m1"), ("reviewer", "m3")),
        (("coder", "m2"), ("reviewer", "m1")), (("coder", "m2"), ("reviewer", "m3")),
        (("coder", "m3"), ("reviewer", "m1")), (("coder", "m3"), ("reviewer", "m2"))]


# --- protocols/kieval/agreement.py ------------------------------------------------------------------------------


def test_agreement_is_defined_from_two_pairs_and_undefined_when_either_rater_is_constant():
    import math

    from sklearn.metrics import cohen_kappa_score

    from judgeagent.protocols.kieval.agreement import agreement, cohen_kappa

    two = agreement([1, 2], [1, 3])  # two points lie on a line: the correlations are 1
    assert two["pearson"] == {"r": 1.0, "p": 1.0} and two["kendall"] == {"r": 1.0, "p": 1.0}
    assert math.isclose(two["spearman"]["r"], 1.0)
    assert two["kappa"] == cohen_kappa_score([1, 2], [1, 3])
    undefined = {"r": None, "p": None}
    for first, second in (([1, 2, 3], [2, 2, 2]), ([2, 2, 2], [1, 2, 3]), ([4], [4])):
        out = agreement(first, second)
        assert (out["pearson"], out["spearman"], out["kendall"]) == (undefined,) * 3, (first, second)
    # one pair that disagrees: chance agreement is 0 and so is the agreement, kappa 0 (sklearn's too)
    assert cohen_kappa([1], [2]) == cohen_kappa_score([1], [2]) == 0.0
    assert cohen_kappa([1], [1]) is None  # one category: chance agreement is perfect
    with pytest.raises(ValueError) as error:
        agreement([1, 2, 3], [1])
    assert str(error.value) == "paired scores differ in length: 3 vs 1"


# --- protocols/base.py ------------------------------------------------------------------------------------------


def test_a_progress_event_is_frozen_and_counts_nothing_unless_told():
    import dataclasses

    from judgeagent.protocols.base import ProgressEvent

    event = ProgressEvent()  # JudgeAgent's "a batch is done": no question, no counts
    assert (event.done, event.listed, event.question, event.ledger) == (0, 0, None, None)
    with pytest.raises(dataclasses.FrozenInstanceError):
        event.done = 3  # type: ignore[misc]


def test_the_learned_step_an_episode_reads_is_the_requests():
    from judgeagent.grading.equivalence import RunStep
    from judgeagent.protocols.base import EpisodeContext, RunRequest

    step = object()

    def context(learned: RunStep | None, with_request: bool = True) -> EpisodeContext:
        request = RunRequest(benchmark=None, graph=None, models={}, config=None, learned=learned)  # type: ignore[arg-type]
        return EpisodeContext(protocol=None, config=None, roles=None, run=None, benchmark=None,  # type: ignore[arg-type]
                              request=request if with_request else None)

    assert context(RunStep(step, "on", None)).learned is step  # type: ignore[arg-type]
    assert context(None).learned is None and context(RunStep(step, "on", None), False).learned is None  # type: ignore[arg-type]


def test_a_role_takes_the_judge_flag_and_a_missing_judge_role_names_that_flag():
    from judgeagent.errors import JudgeAgentError
    from judgeagent.protocols import PROTOCOLS
    from judgeagent.protocols.base import RoleSpec

    class Graded(type(PROTOCOLS["interviewer"])):  # type: ignore[misc]
        name = "graded"
        roles = (RoleSpec("candidate", "answers", "target"), RoleSpec("grader", "grades", "judge"))

    assert Graded().resolve_roles({"target": "t", "judge": "j"}) == {"candidate": "t", "grader": "j"}

    class Judged(type(PROTOCOLS["interviewer"])):  # type: ignore[misc]
        name = "judged"
        roles = (RoleSpec("judge", "judges"),)

    with pytest.raises(JudgeAgentError) as error:
        Judged().resolve_roles({})
    assert str(error.value) == "protocol judged needs a model for its judge role (--judge)"


def test_a_run_folder_is_named_after_the_first_model_and_a_protocol_has_no_headline_unless_it_says():
    from types import SimpleNamespace

    from judgeagent.protocols import PROTOCOLS
    from judgeagent.protocols.base import Protocol, RunRequest

    kieval = PROTOCOLS["kieval"]

    def stem(model: object) -> str:
        bench = SimpleNamespace(path="data/hotpot_small.jsonl")
        return kieval.folder_stem(RunRequest(benchmark=bench, graph=None, models={"target": model}, config=None))  # type: ignore[arg-type]

    assert stem("gpt-4o") == "hotpot_small-kieval-gpt-4o"
    assert stem(SimpleNamespace(name="local")) == "hotpot_small-kieval-local"  # a ready model: its name
    assert stem(object()) == "hotpot_small-kieval-model"  # a model without a name
    assert Protocol.headline(kieval, {}) == {}  # the base's: no numbers for `judgeagent compare`


def test_a_runs_identity_names_its_graph_and_a_run_caches_unless_told():
    from types import SimpleNamespace

    from judgeagent.benchmark import Benchmark, Item
    from judgeagent.protocols import PROTOCOLS
    from judgeagent.protocols.base import RunRequest

    kieval = PROTOCOLS["kieval"]
    bench = Benchmark(Path("b.jsonl"), [Item("q1", "Who wrote Hamlet?", "Shakespeare")])
    graph = SimpleNamespace(manifest={"graph_id": "g-1234"})
    request = RunRequest(benchmark=bench, graph=graph, models={}, config=kieval.Config())  # type: ignore[arg-type]
    payload = kieval.identity_payload(request, registry=None)  # type: ignore[arg-type]
    assert payload["graph"] == "g-1234" and payload["benchmark"] == [("q1", "Who wrote Hamlet?", "Shakespeare",
                                                                      None, None, False)]
    assert kieval.identity_payload(RunRequest(benchmark=bench, graph=None, models={}, config=kieval.Config()),
                                   registry=None)["graph"] is None  # type: ignore[arg-type]
    assert request.cache is True  # responses are cached unless the caller says not to
