"""The survivors of stop 61's fresh mutation sample (seed 63, bench/mutants.md), each killed by the outcome its
defect changes (#47). Written after the sample was scored (it ran in clones frozen at its commits)."""
from __future__ import annotations

import os
import subprocess
import tempfile

import pytest

from judgeagent.errors import JudgeAgentError


def test_a_missing_bubblewrap_is_named_with_the_fix(monkeypatch):
    """sandbox.py:469: without the binary the probe says so (and does not crash on its own answer)."""
    from judgeagent.protocols.dynaeval import sandbox

    monkeypatch.setattr(sandbox, "BWRAP", "judgeagent-no-such-bwrap")
    with pytest.raises(JudgeAgentError, match=r"bubblewrap \(judgeagent-no-such-bwrap\) is not installed: install it"):
        sandbox.require_bubblewrap()
    assert sandbox.bubblewrap() is None


def test_only_the_folders_of_ended_evaluators_are_removed(tmp_path, monkeypatch):
    """sandbox.py:699: a sandbox folder is stale when the process named in it has ended; a live one's is kept."""
    from judgeagent.protocols.dynaeval.sandbox import _remove_stale_folders

    ended = subprocess.Popen(["true"])
    ended.wait()
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    stale, live = tmp_path / f"judgeagent-sandbox-{ended.pid}-ab", tmp_path / f"judgeagent-sandbox-{os.getpid()}-cd"
    for folder in (stale, live):
        (folder / "work").mkdir(parents=True)
    _remove_stale_folders.__wrapped__()
    assert not stale.exists() and (live / "work").is_dir()


# --- grading/choice.py, grading/phrase_rules.py ----------------------------------------------------------------

def test_a_reply_opening_with_an_option_text_then_naming_another_letter_chose_the_letter():
    """choice.py:163: only a whole reply is read as an option's text before the letters; its opening words are
    the last resort, after every letter tier."""
    from judgeagent.grading.choice import check_options

    v = check_options("Paris is wrong; the answer is B.", {"A": "Paris", "B": "Berlin"}, "B", "Berlin")
    assert (v.correct, v.method, v.extracted) == (True, "letter", "B")


def _case(raw: str, gold: str, question: str):  # type: ignore[no-untyped-def]
    from tests.test_mutants_killed_s62 import _case

    return _case(raw, gold, question)


HESSE = "Which novelist won the Nobel Prize in 1929, after Hermann Hesse turned it down?"
LUBECK = "Which novelist born in Lübeck later lived in Mannheim?"


def test_a_gold_inside_a_word_of_the_question_is_not_in_the_question():
    """phrase_rules.py:36 and :292: "Mann" is not asked by a question naming Hermann or Mannheim, so a reply
    stating it is read (`contained`, `corrected`): the question's words are compared whole."""
    from judgeagent.grading.phrase_rules import contained, corrected

    for question in (HESSE, LUBECK):
        v = contained(_case("Mann.", "Mann", question))
        assert v is not None and (v.correct, v.method) == (True, "exact"), question
        v = corrected(_case("Many think it was Hesse, but it was Mann.", "Mann", question))
        assert v is not None and (v.correct, v.method) == (True, "corrected"), question


def test_a_gold_the_question_names_is_read_in_the_questions_word_order_in_every_process():
    """phrase_rules.py:292: `corrected` leaves a gold the question names to the other rules; it read the question as
    a set joined in hash order, so "Thomas Mann" was found in it in some processes and not in others."""
    import subprocess
    import sys

    script = ("from tests.test_mutants_killed_s63 import _case\nfrom judgeagent.grading.phrase_rules import corrected\n"
              "print(corrected(_case('Many think it was Hesse, but it was Thomas Mann.', 'Thomas Mann', "
              "'Did Thomas Mann or Hermann Hesse write the novel Buddenbrooks in the year 1901?')))")
    for seed in ("1", "2", "3", "4"):
        out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True,
                             env={**__import__("os").environ, "PYTHONHASHSEED": seed})
        assert out.stdout.strip() == "None", seed


# --- grading/answers.py, grading/calibration.py -------------------------------------------------------------

def test_an_open_question_reads_another_items_kind_in_lower_case_as_no_other_answer():
    """answers.py:47: without options the other golds are other items' answers, not this item's options: "A frog."
    for "Toad" may be the gold's near kind and is left undecided; only a bare "frog" is that answer."""
    import asyncio

    from judgeagent.config import CheckerConfig
    from judgeagent.grading.answers import AnswerChecker

    checker = AnswerChecker(CheckerConfig(judge_policy="off"), None, frozenset({"frog", "newt"}))
    verdicts = {reply: asyncio.run(checker.check("Which amphibian is in the fable?", "Toad", reply))
                for reply in ("A frog.", "It is a frog.", "frog")}
    assert {r: (v.correct, v.method) for r, v in verdicts.items()} == {
        "A frog.": (False, "undecided"), "It is a frog.": (False, "undecided"), "frog": (False, "other_answer")}


def test_a_hard_negative_that_is_the_gold_of_the_same_question_elsewhere_is_not_asked():
    """calibration.py:144: a same-subject wrong answer that another item asking the same question has as its gold
    is disputable, like the other kinds; one that no such item has is not."""
    from judgeagent.benchmark import Item
    from judgeagent.grading.calibration import _ambiguous

    item = Item("a", "Who painted the Sistine Chapel ceiling?", "Michelangelo")
    twin = Item("b", "Who painted the Sistine Chapel ceiling?", "Raphael")
    for kind in ("other_gold", "near_miss", "same_kind", "same_subject"):
        assert _ambiguous("Raphael", item, [item, twin], kind), kind
        assert not _ambiguous("Donatello", item, [item, twin], kind), kind


@pytest.mark.parametrize("exit_code", [3, 0])
def test_a_bubblewrap_works_here_only_when_the_interpreter_says_ok_and_it_exits_cleanly(monkeypatch, exit_code):
    """sandbox.py:486: the probe needs both a clean exit and the interpreter's "ok". A `bwrap` on PATH that prints
    "ok" and exits 3 (a real binary can fail on the way out) does not work here; one that prints "ok" and exits 0
    does. Its folder is world-readable: as root the probe starts it as the sandbox's unprivileged uid."""
    import shutil
    import stat

    from judgeagent.protocols.dynaeval import sandbox

    folder = tempfile.mkdtemp(prefix="judgeagent-fake-bwrap-")
    try:
        os.chmod(folder, 0o755)
        fake = os.path.join(folder, "bwrap")
        with open(fake, "w") as f:
            f.write(f"#!/bin/sh\necho ok\nexit {exit_code}\n")
        os.chmod(fake, stat.S_IRWXU | stat.S_IRGRP | stat.S_IXGRP | stat.S_IROTH | stat.S_IXOTH)
        monkeypatch.setenv("PATH", f"{folder}:{os.environ.get('PATH', '')}")
        version, why = sandbox._probe.__wrapped__("bwrap")
        if exit_code:
            assert version is None and why.startswith("bubblewrap does not work here") and "exit code 3" in why, why
        else:
            assert (version, why) == ("ok", "")  # `bwrap --version` printed "ok" too
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def test_the_users_processes_are_counted_from_zero():
    """sandbox.py:742: RLIMIT_NPROC's cap is what the user runs now plus the sandbox's share; counted again by hand
    around the call until nothing started or ended meanwhile (other processes come and go on a shared machine)."""
    from judgeagent.protocols.dynaeval.sandbox import _processes_of_user

    def by_hand() -> int:
        uid, n = os.getuid(), 0
        for name in os.listdir("/proc"):
            try:
                n += name.isdigit() and os.stat(f"/proc/{name}").st_uid == uid
            except OSError:
                pass
        return n

    for _ in range(50):
        before, counted, after = by_hand(), _processes_of_user(), by_hand()
        if before == after:
            assert counted == before
            return
    pytest.fail("the user's processes never held still for one count")


# --- grading/judge.py, grading/equivalence.py --------------------------------------------------------------------

def test_a_reason_of_three_instruction_words_that_matches_no_instruction_is_the_judges_own():
    """judge.py:142: one or two words of the instructions ("Correct.") are copied whatever they match; three words
    are copied only if they match one instruction sentence closely enough."""
    from judgeagent.grading.judge import echoes

    instructions = ("X X X X X X", "Y Y Y Y Y Y", "Z Z Z Z Z Z")
    assert echoes("X Y.", None, *instructions)
    assert not echoes("X Y Z.", None, *instructions)


def test_the_learned_steps_fit_is_sklearns_l2_logistic_regression_at_c_1():
    """equivalence.py:186: `fit`'s default penalty is 1 on standardised features, the bias unpenalised: the same
    weights as scikit-learn's LogisticRegression(C=1), an implementation we did not write."""
    import numpy as np
    from sklearn.linear_model import LogisticRegression

    from judgeagent.grading.equivalence import fit

    rng = np.random.default_rng(3)
    x = rng.normal(size=(80, 4)) * [1.0, 3.0, 0.5, 2.0] + [0.0, 1.0, -2.0, 5.0]
    y = (x @ [1.0, -0.5, 2.0, 0.3] + rng.normal(size=80) > 1.2).tolist()
    w, mean, scale = fit(x, y)
    ours = LogisticRegression(C=1.0, tol=1e-12, max_iter=10_000).fit((x - mean) / scale, y)
    assert np.allclose(w, [ours.intercept_[0], *ours.coef_[0]], atol=1e-5)


# --- runs.py ---------------------------------------------------------------------------------------------------

def test_a_reproduce_runs_summary_is_written_again_by_its_own_command(tmp_path):
    """runs.py:369: `evaluate --resume` refuses a reproduce run, so its hint is the reproduce command again."""
    from judgeagent.runs import rewrite_hint

    assert rewrite_hint(tmp_path, {"kind": "reproduce"}) == (
        f"run the same reproduce command again (same --run-dir {tmp_path}): it writes it again from the run's records "
        "(no model calls)")
    assert rewrite_hint(tmp_path, {"kind": "run"}).startswith(f"judgeagent evaluate --resume {tmp_path} writes it")


def test_a_synthesis_folder_that_is_a_file_names_synthesizes_own_flag(tmp_path):
    """runs.py:387: synthesize names its folder with --out, every other command with --run-dir."""
    from judgeagent.runs import open_run

    taken = tmp_path / "taken"
    taken.write_text("not a folder")
    for kind, flag in (("synthesis", "--out"), ("run", "--run-dir")):
        with pytest.raises(JudgeAgentError, match=f"run folder {taken} is a file; choose another {flag}$"):
            open_run(taken, {"kind": kind})


def test_a_resume_with_other_learned_step_weights_names_both():
    """runs.py:436-437: the manifests differ only in the learned step's weights (their sha256)."""
    from judgeagent.runs import _differences

    old = {"config": {}, "models": {}, "equivalence": {"weights": "a.json", "sha256": "1" * 64}}
    new = {"config": {}, "models": {}, "equivalence": {"weights": "b.json", "sha256": "2" * 64}}
    assert _differences(old, new) == ("learned-step weights a.json (sha256 111111111111) there, "
                                      "b.json (sha256 222222222222) now")
    assert _differences(old, {**new, "equivalence": None}) == (
        "learned-step weights a.json (sha256 111111111111) there, none now")


def test_a_run_named_by_its_protocol_takes_its_article():
    """runs.py:498."""
    from judgeagent.runs import a_run_of

    assert [a_run_of(p) for p in ("kieval", "interviewer", "judgeagent", "Other")] == [
        "a kieval run", "an interviewer run", "a judgeagent run", "an Other run"]


# --- protocols/judgeagent/report/gaps.py ---------------------------------------------------------------------------

def test_a_graph_written_before_specificity_was_stored_gives_the_report_the_same_names(mhr_slice_graph, tmp_path):
    """gaps.py:71: a graph whose entities have no `specificity` column (built before it was stored) has it computed
    from its mentions, the same as the stored one."""
    import shutil
    from pathlib import Path

    import pyarrow.parquet as pq

    from judgeagent.protocols.judgeagent.report.gaps import graph_names

    older = tmp_path / "older"
    shutil.copytree(Path(mhr_slice_graph.path), older)
    pq.write_table(pq.read_table(older / "entities.parquet").drop(["specificity"]), older / "entities.parquet")
    graph_id = mhr_slice_graph.manifest["graph_id"]
    stored = graph_names({"graph": {"path": str(mhr_slice_graph.path), "graph_id": graph_id}})
    computed = graph_names({"graph": {"path": str(older), "graph_id": graph_id}})
    assert stored is not None and computed is not None and len(stored.entities) > 1000
    assert computed == stored


# --- view/inspect_log.py ---------------------------------------------------------------------------------------------

def test_an_inspect_samples_clock_comes_from_its_timed_calls_only():
    """inspect_log.py:200 and :205: a call without the time it was stored has no place on the clock; the durations
    are rounded to the millisecond."""
    from datetime import datetime, timezone

    from judgeagent.view.inspect_log import _times

    calls = [{"seconds": 1.23456, "stored": 100.0}, {"seconds": 2.0, "stored": 105.5}, {"seconds": 9.0}]
    assert _times(calls) == {  # type: ignore[arg-type]
        "started_at": datetime.fromtimestamp(98.76544, timezone.utc).isoformat(),
        "completed_at": datetime.fromtimestamp(105.5, timezone.utc).isoformat(),
        "total_time": 6.735, "working_time": 3.235}
    assert _times([{"seconds": 9.0}]) == {}  # type: ignore[list-item]


def test_a_call_that_reports_no_output_tokens_counts_none():
    """inspect_log.py:178: a journaled call whose usage names no output tokens adds 0 to its model's, not 1."""
    from judgeagent.protocols.episodes import EpisodeView, Turn
    from judgeagent.view.inspect_log import _sample

    turn = Turn("target", "answer", "2+2?", "4", model="model-a", call=("2+2?", "4"))
    call = {"messages": [{"role": "user", "content": "2+2?"}], "text": "4", "usage": {"input_tokens": 7}}
    episode = EpisodeView("e1", "2+2?", "q1", {}, {}, [], [turn], gold="4")
    sample = _sample(episode, "model-a", {("2+2?", "4"): call}, "2026-11-28T00:00:00+00:00", "target")  # type: ignore[dict-item]
    assert sample["model_usage"] == {"model-a": {"input_tokens": 7, "output_tokens": 0, "total_tokens": 7}}
