"""The protocol engine: JudgeAgent through it gives exactly the current results; the Interviewer protocol end
to end with scripted in-process models (FunctionModel); bad input through the CLI."""
import json
import re
from pathlib import Path

import pytest

from judgeagent.benchmark import Benchmark, Item
from judgeagent.models.testing import FunctionModel
from judgeagent.protocols import PROTOCOLS, run_protocol
from judgeagent.protocols.interviewer.modify import shuffled
from judgeagent.protocols.interviewer.report import probe, score_at
from tests.scripted import kill_then_resume

# --- the Interviewer protocol with scripted models -------------------------------------------------------

THINGS = {"q-strong": ("jazz", "Montreux"), "q-reviser": ("film", "Cannes"), "q-hopeless": ("book", "Frankfurt"),
          "q-memorised": ("lantern", "Pingxi")}


def question(thing):
    return f"Which city hosts the famous {thing} festival every year?"


def paraphrase(thing):
    return f"Name the place where an annual {thing} gathering takes place."


def items():
    out = [Item(qid, question(thing), gold) for qid, (thing, gold) in THINGS.items()]
    out.append(Item("q-choice", "Which planet is known as the red planet of the solar system?", "Mars",
                    options={"A": "Venus", "B": "Mars", "C": "Jupiter", "D": "Saturn"}, gold_letter="B"))
    return Benchmark(Path("scripted.jsonl"), out)


class Script:
    """Replies as a function of the messages alone (as a model at temperature 0), so journals replay."""

    def __init__(self, leak=False, clarify=False):
        self.leak, self.clarify = leak, clarify

    def target(self, messages):
        first = next(m["content"] for m in messages if m["role"] == "user")
        tries = sum(1 for m in messages if m["role"] == "assistant")
        last = messages[-1]["content"]
        if "follow" in last.lower() or last.endswith("?") and tries >= 1 and "festival" not in last:
            return "Because the festival is held there every year."
        options = dict(re.findall(r"^([A-Z])\. (.+)$", first, flags=re.MULTILINE))
        if options:
            return next(k for k, v in options.items() if v == "Mars") + "\nIt looks red."
        thing = next(t for t, _ in THINGS.values() if t in first)
        gold = next(g for t, g in THINGS.values() if t == thing)
        if self.clarify and tries == 0 and "thing" not in first:
            return "CLARIFY: which country do you mean?"
        if thing == "jazz" or (thing == "film" and "revise" in last.lower()):
            return f"{gold}\nIt is well known."
        if thing == "lantern" and "hosts" in first:  # knows the original wording only
            return f"{gold}\nI remember this one."
        return "Paris"

    def interviewer(self, messages):
        system, user = messages[0]["content"], messages[-1]["content"]
        if "prepare interview questions" in system:
            original = user.split("Original question: ", 1)[1].split("\n")[0]
            thing = next((t for t, _ in THINGS.values() if t in original), None)
            if thing is None:
                return json.dumps({"question": "Name the planet people call red within our solar system."})
            return json.dumps({"question": paraphrase(thing)})
        if system.startswith("Answer the question"):
            asked = user.removeprefix("Question: ")
            return next((g for t, g in THINGS.values() if t in asked), "Mars")
        if "feedback" in system:
            gold = user.split("Reference answer (for you only): ", 1)[1].split("\n")[0]
            text = "Check which city the festival is in; revise your answer."
            if self.leak:
                text += f" The answer is {gold}."
            return json.dumps({"error_type": "knowledge", "feedback": text})
        if "clarifying" in system:
            return "Any country; think of the best known one. Please answer now, thing."
        if "follow-up" in system:
            kind = user.split("question of this kind: ", 1)[1].split(",")[0]
            return json.dumps({"question": f"For the {kind} follow-up: what makes you sure?"})
        if "interview report" in system:
            return "The interviewee knows famous festivals but rarely revises well."
        return "{}"

    def judge(self, messages):
        user = messages[-1]["content"]
        reply = user.rsplit("Reply: ", 1)[-1]
        ok = "because" in reply.lower()
        return json.dumps({"reasoning": "it gives a reason" if ok else "no reason given", "adequate": ok})


def roles(script):
    return {"target": FunctionModel(script.target, "tgt"), "interviewer": FunctionModel(script.interviewer, "int"),
            "judge": FunctionModel(script.judge, "jdg")}


def records(folder):
    return [json.loads(x) for x in (folder / "records.jsonl").read_text().splitlines()]


def episodes(folder):
    return {r["qid"]: r for r in map(json.loads, (folder / "episodes.jsonl").read_text().splitlines())}


OPTS = {"judge_policy": "off", "resamples": 200}


def test_interviewer_protocol_end_to_end(tmp_path):
    models = roles(Script())
    result = run_protocol("interviewer", items(), models=models, config=OPTS, run_dir=tmp_path / "run", cache=False)
    rows = episodes(result.folder)
    # the revise loop stops once solved; Score@n carries an item's score forward
    assert rows["q-strong"]["attempts"] == [True]
    assert rows["q-reviser"]["attempts"] == [False, True]
    assert rows["q-hopeless"]["attempts"] == [False, False, False]
    assert rows["q-choice"]["attempts"] == [True]
    s = result.summary
    assert s["score_at"] == {"@1": 2 / 5, "@2": 3 / 5, "@3": 3 / 5} and s["adaptability"] == pytest.approx(0.2)
    # both versions are recorded; the paraphrase is not a copy
    assert rows["q-strong"]["versions"]["modified"]["question"] == paraphrase("jazz")
    assert rows["q-strong"]["versions"]["original"]["question"] == question("jazz")
    choice = rows["q-choice"]["versions"]["modified"]
    assert choice["options"][choice["gold_letter"]] == "Mars" and list(choice["options"].values()) != ["Venus", "Mars",
                                                                                                  "Jupiter", "Saturn"]
    # follow-ups, two per item, recorded with their type and judged
    follow = [r for r in records(result.folder) if r["meta"].get("stage") == "followup"]
    assert len(follow) == 10 and {r["meta"]["kind"] for r in follow} <= set(PROTOCOLS["interviewer"].Config().followup_kinds)
    assert all(r["scores"]["followup"]["value"] == 1.0 for r in follow)
    assert s["followup"]["seed_solved"]["n"] == 6 and s["followup"]["seed_failed"]["n"] == 4
    # errors typed, with examples; the contamination probe sees the memorised item
    assert s["errors"]["counts"] == {"knowledge": 5} and len(s["errors"]["examples"]["knowledge"]) == 2
    p = s["probe"]
    assert p["n"] == 5 and p["only_original"] == 1 and p["only_modified"] == 0 and p["mcnemar_p"] == 1.0
    assert p["original_accuracy"] == 3 / 5 and p["modified_accuracy"] == 2 / 5
    assert s["interviewer_summary"].startswith("The interviewee")
    report = (result.folder / "report.md").read_text()
    assert "Score@3" in report and "Contamination probe" in report and "McNemar" in report
    manifest = json.loads((result.folder / "manifest.json").read_text())
    assert manifest["protocol"] == "interviewer" and manifest["status"] == "finished"
    assert manifest["checker"]["judge_policy"] == "off"
    # the follow-up scores rest on a judge nobody calibrated: said in the summary, on screen and in the report
    mark = s["trust"]["followup"]
    assert mark.startswith("graded by a judge that was not calibrated")
    assert f"(UNVETTED: {mark})" in PROTOCOLS["interviewer"].render_summary(s, "run")
    assert f"**Unvetted:** the follow-up scores below are {mark}" in report


def test_a_judges_reason_that_repeats_its_instructions_is_recorded_as_none(tmp_path):
    script = Script()
    models = {**roles(script), "judge": FunctionModel(
        lambda messages: json.dumps({"reasoning": "One or two sentences on the reply.", "adequate": True}), "jdg")}
    result = run_protocol("interviewer", items(), models=models, config=OPTS, run_dir=tmp_path / "run", cache=False)
    follow = [r for r in records(result.folder) if r["meta"].get("stage") == "followup"]
    assert follow and all(r["scores"]["followup"]["reason"] ==
                          "(the judge gave no reasoning: it repeated its instructions)" for r in follow)


def test_unvetted_says_why_a_judges_numbers_are_not_measured():
    from judgeagent.grading.calibration import unvetted

    assert unvetted({"passed": True, "pairs": 40, "accuracy": 0.95, "fpr": 0.0}) is None
    assert unvetted({"passed": False, "pairs": 40, "accuracy": 0.5, "fpr": 1.0}) == \
        "graded by a judge that failed calibration (accuracy 0.50, false-positive rate 1.00)"
    assert unvetted(None) is None


def test_feedback_never_shows_the_gold(tmp_path):
    models = roles(Script(leak=True))
    result = run_protocol("interviewer", items(), models=models, config=OPTS, run_dir=tmp_path / "run", cache=False)
    feedback = [r for r in records(result.folder) if r["meta"].get("stage") == "feedback"]
    assert feedback and all(r["meta"]["leakage"]["redacted"] for r in feedback)
    assert all("Frankfurt" not in r["reply"] and "[withheld]" in r["reply"] for r in feedback if "hopeless" in r["episode"])
    # what the interviewee was shown after its first answer never holds its gold
    for messages in models["target"].calls:
        first = next(m["content"] for m in messages if m["role"] == "user")
        later = " ".join(m["content"] for m in messages[2:] if m["role"] == "user")
        for thing, gold in THINGS.values():
            if thing in first:
                assert gold not in later


def test_clarification_is_answered_and_recorded(tmp_path):
    result = run_protocol("interviewer", items(), models=roles(Script(clarify=True)),
                          config={**OPTS, "followups": 0, "probe": False}, run_dir=tmp_path / "run", cache=False)
    asked = [r for r in records(result.folder) if r["meta"].get("stage") == "clarification"]
    assert len(asked) == 4 and episodes(result.folder)["q-strong"]["attempts"] == [True]


def test_resume_after_a_kill_mid_dialogue_repeats_no_call(tmp_path):
    def go(m, folder):
        return run_protocol("interviewer", items(), models=m, config=OPTS, run_dir=folder, cache=False)

    k = kill_then_resume(tmp_path, go, lambda: roles(Script()), "target", 6)
    assert "records.jsonl" in k.left
    assert k.killed >= 1  # calls that were killed never finished: only they are made again
    assert k.repeated == 0
    assert k.resumed.summary["score_at"] == run_protocol("interviewer", items(), models=roles(Script()), config=OPTS,
                                                      run_dir=tmp_path / "clean", cache=False).summary["score_at"]


def test_score_at_and_probe_by_hand():
    assert [score_at([False, True], n) for n in (1, 2, 3)] == [0.0, 1.0, 1.0]
    assert [score_at([True], n) for n in (1, 2, 3)] == [1.0, 1.0, 1.0]
    rows = [{"original_correct": a, "attempts": [b]} for a, b in
            [(True, False)] * 6 + [(True, True)] * 3 + [(False, False)] + [(None, True)]]
    p = probe(rows, resamples=500)
    assert p["n"] == 10 and p["gap"] == pytest.approx(0.6) and p["mcnemar_p"] == pytest.approx(2 / 64)
    assert p["gap_interval"][0] > 0


def test_options_are_shuffled_deterministically_with_the_gold_remapped():
    item = items().items[-1]
    options, letter = shuffled(item, 0)
    assert options[letter] == "Mars" and shuffled(item, 0) == (options, letter)
    assert sorted(options.values()) == sorted(item.options.values()) and options != item.options


# --- JudgeAgent on the shared runner: the results of the code before the port ---------------------------


def test_judgeagent_through_the_engine_gives_the_current_results(tmp_path):
    """20 MultiHop-RAG questions on the loopback servers: the verdicts, tiers, score and validation that the
    code before the port gave (tests/data/judgeagent_reference.json, from tests/make_judgeagent_reference.py),
    by every way in: Python `evaluate` and `run_protocol`, the CLI's `evaluate` with and without --protocol."""
    from judgeagent.cli import main
    from judgeagent.protocols.judgeagent.evaluate import evaluate
    from judgeagent.protocols.judgeagent.validate import validate
    from tests.conftest import DATA
    from tests.make_judgeagent_reference import REFERENCE, identity, outcome, setup
    from tests.scripted import Roles
    from tests.scripted import Script as LoopbackScript

    reference = json.loads(REFERENCE.read_text())
    assert identity() == reference.pop("identity")  # runs started before the port resume under their folder
    bench, config, known = setup()
    with Roles(LoopbackScript(target_right=known)) as roles:
        for item in bench.items:
            roles.script.golds[item.question] = item.gold
        registry = roles.registry()
        runs = [evaluate(bench, None, "tgt", interviewer="int", config=config, run_dir=tmp_path / "python",
                         registry=registry, cache=False).folder,
                run_protocol("judgeagent", bench, None, models={"target": "tgt", "interviewer": "int"},
                             config=config, run_dir=tmp_path / "ported", registry=registry, cache=False).folder]
        outcomes = [outcome(folder, validate(folder, registry=registry, cache=False)) for folder in runs]
        toml = roles.write_config(tmp_path / "judgeagent.toml")
        common = ["--target", "tgt", "--interviewer", "int", "--benchmark", str(DATA / "multihop_rag" /
                  "small.questions.jsonl"), "--limit", "20", "--no-extension", "--config", str(toml), "--no-cache",
                  "-q", "--validate"]
        assert main(["evaluate", *common, "--run-dir", str(tmp_path / "cli")]) == 0
        assert main(["evaluate", "--protocol", "judgeagent", *common, "--run-dir", str(tmp_path / "cli-p")]) == 0
        for name in ("cli", "cli-p"):
            runs.append(tmp_path / name)
            outcomes.append(outcome(tmp_path / name, json.loads((tmp_path / name / "validation.json").read_text())))
    assert len(reference["verdicts"]) == 20 and 0 < reference["overall_score"] < 1
    for found in outcomes:
        for key, value in reference.items():
            assert found[key] == value, key
        assert found == outcomes[0]
    for folder in runs:  # run format 2: the protocol named, a row per batch, every record marked
        manifest = json.loads((folder / "manifest.json").read_text())
        assert manifest["format_version"] == 2 and manifest["protocol"] == "judgeagent"
        assert manifest["judge_calibration"] and manifest["versions"]["python"]
        rows = sorted(map(json.loads, (folder / "episodes.jsonl").read_text().splitlines()), key=lambda r: r["index"])
        assert [r["episode"] for r in rows] == [f"batch-{b}" for b in range(4)]
        assert [r["trajectory"] for r in rows] == list(reference["trajectories"].values())
        assert {r["protocol"] for r in records(folder)} == {"judgeagent"}


# slow by hand: it needs the whole small split's graph (`mhr_graph`, ~100 CPU s to build), which no fast test takes (#47)
@pytest.mark.slow
def test_judgeagent_extension_rounds_give_the_results_of_the_code_before_the_port(tmp_path, mhr_graph):
    """The same 20 questions with the extension stage on (3 rounds a batch on MultiHop-RAG small's graph):
    tiers, sampled paths, generated questions and every verdict, then validation, as the code before the
    port gave them on this graph (tests/data/judgeagent_reference_extension.json)."""
    from judgeagent.protocols.judgeagent.validate import validate
    from tests.make_judgeagent_reference import REFERENCE_EXTENSION, outcome, setup
    from tests.scripted import Roles
    from tests.scripted import Script as LoopbackScript

    reference = json.loads(REFERENCE_EXTENSION.read_text())
    bench, config, known = setup(extension=True)
    with Roles(LoopbackScript(target_right=known)) as roles:
        for item in bench.items:
            roles.script.golds[item.question] = item.gold
        registry = roles.registry()
        folder = run_protocol("judgeagent", bench, mhr_graph, models={"target": "tgt", "interviewer": "int"},
                              config=config, run_dir=tmp_path / "ported", registry=registry, cache=False).folder
        found = outcome(folder, validate(folder, registry=registry, cache=False))
    assert len(reference["verdicts"]) > 20  # the extension questions are there too
    for key, value in reference.items():
        assert found[key] == value, key


# --- the CLI: protocols listed, bad input refused in one line -------------------------------------------

def _cli(argv, capsys):
    from judgeagent.cli import main

    code = main(argv)
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_protocols_are_listed_with_roles_and_options(capsys):
    code, out, _ = _cli(["protocols"], capsys)
    assert code == 0 and "interviewer: LLM-as-an-Interviewer" in out and "revisions=2" in out
    assert "judge: judges free-text answers and follow-up replies (default: the" in out
    assert max(len(line) for line in out.splitlines()) <= 80


@pytest.mark.parametrize("extra, message", [
    (["--protocol", "nosuch"], "unknown protocol 'nosuch'; choose one of judgeagent, interviewer"),
    (["--protocol", "interviewer", "-o", "revision=3"], "has no option 'revision'; valid options: revisions,"),
    (["--protocol", "interviewer", "-o", "revisions=many"], "option revisions of protocol interviewer:"),
    (["--protocol", "interviewer", "-o", "revisions=9"], "less than or equal to 5"),
    (["--protocol", "interviewer", "-o", "followup_kinds=gossip"], "option followup_kinds"),
    (["--protocol", "interviewer", "-o", "revisions"], "-o expects KEY=VALUE"),
    (["--protocol", "interviewer", "--validate"], "--validate is JudgeAgent's; protocol interviewer has no"),
    (["--protocol", "interviewer", "-o", "revisions=9", "--dry-run"], "less than or equal to 5"),
    (["--rounds", "2", "-o", "rounds=3"], "option rounds of protocol judgeagent is given twice"),
    (["--protocol", "interviewer", "--batch-size", "3"], "--batch-size is not an option of protocol interviewer"),
    (["--fixed-difficulty", "extreme"], "option fixed_difficulty of protocol judgeagent: Input should be 'easy'"),
    (["--judge-policy", "sometimes"], "option checker.judge_policy of protocol judgeagent: Input should be"),
    (["--hard-probes", "-o", "checker.hard_probes=false"], "option checker.hard_probes of protocol judgeagent is "
     "given twice"),
    (["--protocol", "teach2eval", "--hard-probes"], "--hard-probes is not an option of protocol teach2eval"),
    (["-o", "batch_size=0"], "option batch_size of protocol judgeagent"),
    (["--protocol", "interviewer", "-o", "modify=false", "-o", "modification=quantities"],
     "options of protocol interviewer contradict: modification=quantities changes each item, but modify=false"),
    (["--no-graph", "--path", "dense"], "options of protocol judgeagent contradict: path=dense (--path dense) takes "
     "extension chunks by similarity over the graph, but graph=false (--no-graph) draws them at random: drop one of the two"),
    (["--no-extension", "--fixed-difficulty", "hard"], "options of protocol judgeagent contradict: fixed_difficulty "
     "(--fixed-difficulty hard) sets the difficulty of extension questions, but extension=false (--no-extension) asks none"),
    (["--rounds", "0", "--fixed-difficulty", "easy"], "but rounds=0 (--rounds 0) asks none"),
    ([], "the extension stage needs a graph (--graph)"),
    (["--role", "students=local"], "protocol judgeagent has no role students"),
    (["--protocol", "interviewer", "--role", "referee=local"], "protocol interviewer has no role referee"),
    (["--protocol", "interviewer", "--role", "judge"], "--role expects NAME=MODEL"),
    (["--protocol", "interviewer", "--judge", "a,b"], "role judge of protocol interviewer takes one model"),
])
def test_bad_protocol_input_is_one_line(tmp_path, capsys, extra, message):
    bench = tmp_path / "b.jsonl"
    bench.write_text(json.dumps({"qid": "1", "question": "Who?", "answer": "Ann"}) + "\n")
    code, _, err = _cli(["evaluate", "--target", "nobody:model", "--benchmark", str(bench),
                         "--run-dir", str(tmp_path / "run"), "-q", *extra], capsys)
    assert code == 1 and message in err and "Traceback" not in err and len(err.strip().splitlines()) == 1
    assert not (tmp_path / "run" / "records.jsonl").exists()


def test_a_protocol_that_needs_a_graph_is_refused_without_one(tmp_path):
    from judgeagent.errors import JudgeAgentError
    from judgeagent.protocols.base import Protocol

    class NeedsGraph(type(PROTOCOLS["interviewer"])):
        name = "graphy"
        needs = frozenset({"benchmark", "graph"})

    assert issubclass(NeedsGraph, Protocol)
    with pytest.raises(JudgeAgentError, match="protocol graphy needs a graph: give --graph"):
        run_protocol(NeedsGraph(), items(), models=roles(Script()), config=OPTS, run_dir=tmp_path / "r", cache=False)


def test_roles_default_to_the_shared_flags_and_a_many_role_opens_each_model():
    from judgeagent.errors import JudgeAgentError
    from judgeagent.models.roles import open_roles
    from judgeagent.protocols.base import RoleSpec

    class Seats(type(PROTOCOLS["interviewer"])):
        name = "seats"
        roles = (RoleSpec("teacher", "taught", "target"), RoleSpec("students", "learn", many=True),
                 RoleSpec("grader", "grades", "interviewer"))

    seats = Seats()
    out = seats.resolve_roles({"target": "t", "interviewer": "i", "students": "a, b,a"})
    assert out == {"teacher": "t", "students.1": "a", "students.2": "b", "students.3": "a", "grader": "i"}
    assert seats.resolve_roles({"teacher": "x", "students": ["s"], "grader": "g"}) == \
        {"teacher": "x", "students.1": "s", "grader": "g"}
    with pytest.raises(JudgeAgentError, match="protocol seats has no role judge"):
        seats.resolve_roles({"target": "t", "students": "a", "judge": "j", "grader": "g"})
    with pytest.raises(JudgeAgentError, match=r"needs a model for its students role \(--role students=MODEL\)"):
        seats.resolve_roles({"target": "t", "interviewer": "i"})
    with pytest.raises(JudgeAgentError, match="needs one or more models"):
        seats.resolve_roles({"target": "t", "interviewer": "i", "students": "a,,b"})
    models = {k: FunctionModel(lambda messages, k=k: k, name=k) for k in ("teacher", "students.2", "students.10")}
    models["students.1"] = FunctionModel(lambda messages: "s1", name="students.1")
    with open_roles(models, cache=False) as opened:
        assert [m.name for m in opened.group("students")] == ["students.1", "students.2", "students.10"]
        assert [m.name for m in opened.group("teacher")] == ["teacher"] and opened.group("nobody") == []


def test_interviewer_through_the_cli_on_loopback_servers(tmp_path, capsys):
    """The real client, cache and journal; `--resume` of a finished run does nothing."""
    from judgeagent.models.testserver import FakeServer

    script = Script()

    def interviewer(request):
        messages = request["messages"]
        return script.judge(messages) if "grade an interviewee" in messages[0]["content"] else \
            script.interviewer(messages)

    bench = tmp_path / "b.jsonl"
    bench.write_text("".join(json.dumps({"qid": i.qid, "question": i.question, "answer": i.gold}) + "\n"
                             for i in items().items[:4]))
    with FakeServer(reply=lambda r: script.target(r["messages"])) as tgt, FakeServer(reply=interviewer) as itv:
        toml = tmp_path / "judgeagent.toml"
        toml.write_text(f'[models.tgt]\nbase_url = "{tgt.base_url}"\nmodel = "t"\n'
                        f'[models.int]\nbase_url = "{itv.base_url}"\nmodel = "i"\n')
        argv = ["evaluate", "--protocol", "interviewer", "--target", "tgt", "--interviewer", "int", "--benchmark",
                str(bench), "--config", str(toml), "--no-cache", "-q", "-o", "judge_policy=off", "-o", "followups=1",
                "--run-dir", str(tmp_path / "run"), "--temperature", "0.5", "-M", "seed=7", "--max-connections", "2"]
        code, out, err = _cli(argv, capsys)
        assert code == 0, err
        # the generation settings given on the command line reach every request of every role, and the manifest
        assert all(b["temperature"] == 0.5 and b["seed"] == 7 for b in tgt.bodies + itv.bodies)
        assert "Score@1 0.250  Score@2 0.500  Score@3 0.500" in out and "contamination probe" in out
        # Where the time went, on stderr: the run's stages and the seconds inside each role's calls.
        timing = next(line for line in err.splitlines() if line.startswith("time: "))
        assert "loading graph and benchmark" in timing and "run " in timing and "(setup " in timing
        inside = dict(part.rsplit(" ", 2)[:2] for part in timing.split("inside model calls: ")[1].split(", "))
        # judge_policy=off: the judge role is never called, so only the other two spent time in calls
        assert set(inside) >= {"target", "interviewer"} and all(float(inside[r]) > 0 for r in ("target", "interviewer"))
        calls = tgt.counts["requests"] + itv.counts["requests"]
        code, out, _ = _cli(["evaluate", "--resume", str(tmp_path / "run"), "--config", str(toml), "-q"], capsys)
        assert code == 0 and "nothing to do" in out
        assert tgt.counts["requests"] + itv.counts["requests"] == calls
    manifest = json.loads((tmp_path / "run" / "manifest.json").read_text())
    assert manifest["request"]["option"] == ["judge_policy=off", "followups=1"]
    assert manifest["models"]["target"]["generation"] == {"temperature": 0.5, "top_p": None, "max_tokens": 512,
                                                          "seed": 7}
    usage = json.loads((tmp_path / "run" / "summary.json").read_text())["usage"]
    assert usage["target"]["served"] == ["t"] and usage["interviewer"]["served"] == ["i"]  # as the servers said


def test_a_run_killed_between_its_summary_and_its_report_gets_the_report_on_resume(tmp_path, capsys, monkeypatch):
    """A kill after `Run.finish` (manifest finished, summary written) but before report.md: `--resume` writes the
    report from the summary, calling no model, rather than returning a finished run that never gets one."""
    from judgeagent.models.testserver import FakeServer
    from judgeagent.protocols import runner

    script = Script()
    bench = tmp_path / "b.jsonl"
    bench.write_text("".join(json.dumps({"qid": i.qid, "question": i.question, "answer": i.gold}) + "\n"
                             for i in items().items[:2]))

    def interviewer(request):
        messages = request["messages"]
        return script.judge(messages) if "grade an interviewee" in messages[0]["content"] else \
            script.interviewer(messages)

    def killed(*args):
        raise KeyboardInterrupt  # the process dies here: what is on disk is what `finish` wrote

    with FakeServer(reply=lambda r: script.target(r["messages"])) as tgt, FakeServer(reply=interviewer) as itv:
        toml = tmp_path / "judgeagent.toml"
        toml.write_text(f'[models.tgt]\nbase_url = "{tgt.base_url}"\nmodel = "t"\n'
                        f'[models.int]\nbase_url = "{itv.base_url}"\nmodel = "i"\n')
        run = tmp_path / "run"
        argv = ["evaluate", "--protocol", "interviewer", "--target", "tgt", "--interviewer", "int", "--benchmark",
                str(bench), "--config", str(toml), "--no-cache", "-q", "-o", "judge_policy=off", "--equivalence-weights",
                "none", "--run-dir", str(run)]
        with monkeypatch.context() as patched:
            patched.setattr(runner, "write_report", killed)
            assert _cli(argv, capsys)[0] == 130
        assert json.loads((run / "manifest.json").read_text())["status"] == "finished"
        assert not (run / "report.md").exists()
        calls = tgt.counts["requests"] + itv.counts["requests"]
        code, _, err = _cli(["evaluate", "--resume", str(run), "--config", str(toml), "--no-cache", "-q"], capsys)
        assert code == 0, err
        assert tgt.counts["requests"] + itv.counts["requests"] == calls
    assert (run / "report.md").read_text().startswith("# LLM-as-an-Interviewer run")


def test_feedback_whose_suggestions_repeat_the_schema_is_no_feedback(tmp_path):
    """An interviewer that says back the schema's description of `suggestions` gave no advice: the batch's
    feedback is recorded as failed, and validation measures nothing with it."""
    from judgeagent.protocols.judgeagent.evaluate import evaluate
    from judgeagent.protocols.judgeagent.validate import validate
    from tests.make_judgeagent_reference import setup
    from tests.scripted import Roles
    from tests.scripted import Script as LoopbackScript

    class Echo(LoopbackScript):
        def _feedback(self, prompt):
            return json.dumps({"flaws_knowledge": "gaps", "flaws_capability": "rushes", "comprehensive_performance":
                               "fair", "suggestions": "Guidance that helps the answerer do better on questions like "
                               "these."})

    bench, config, known = setup()
    with Roles(Echo(target_right=known)) as roles:
        folder = evaluate(bench, None, "tgt", interviewer="int", config=config, run_dir=tmp_path / "run",
                          registry=roles.registry(), cache=False).folder
        result = validate(folder, registry=roles.registry(), cache=False)
    entries = [json.loads(line) for line in (folder / "feedback.jsonl").read_text().splitlines()]
    assert entries and all(e["feedback"] is None and "repeat the schema" in e["feedback_error"] for e in entries)
    assert not (folder / "validation.jsonl").read_text().strip() and result["overall"]["n"] == 0


def test_a_judge_that_fails_calibration_is_said_on_screen_and_beside_its_scores(tmp_path):
    """A judge that accepts every answer (false-positive rate 1.0): the interviewer protocol warns when the run
    begins, as JudgeAgent does, and marks the follow-up scores it graded."""
    yes = FunctionModel(lambda messages: json.dumps({"reasoning": "The reply states the answer plainly.",
                                                     "correct": True, "adequate": True}), "jdg")
    heard = []
    result = run_protocol("interviewer", items(), models={**roles(Script()), "judge": yes},
                          config={"judge_policy": "calibrated", "resamples": 200}, run_dir=tmp_path / "run",
                          cache=False, notify=heard.append)
    assert len(heard) == 1 and heard[0].startswith("warning: ") and "calibration" in heard[0]
    assert "failed calibration" in result.summary["trust"]["followup"]


def test_every_protocols_progress_hears_one_kind_of_event(tmp_path):
    """One progress signature for every protocol (issue 43): the interviewer protocol's progress hears each episode
    finished, JudgeAgent's each question judged and each batch's feedback written, all as a `ProgressEvent`."""
    from judgeagent.protocols.base import ProgressEvent
    from tests.make_judgeagent_reference import setup
    from tests.scripted import Roles
    from tests.scripted import Script as LoopbackScript

    heard: list[ProgressEvent] = []
    run_protocol("interviewer", items(), models=roles(Script()), config=OPTS, run_dir=tmp_path / "i", cache=False,
                 progress=heard.append)
    assert [(e.done, e.listed, e.question) for e in heard] == [(k, 5, None) for k in range(1, 6)]
    bench, config, known = setup()
    heard.clear()
    with Roles(LoopbackScript(target_right=known)) as scripted:
        run_protocol("judgeagent", Benchmark(bench.path, bench.items[:10]), None,
                     models={"target": "tgt", "interviewer": "int"}, config=config, run_dir=tmp_path / "j",
                     registry=scripted.registry(), cache=False, progress=heard.append)
    assert all(isinstance(e, ProgressEvent) and e.ledger is not None for e in heard)
    asked = [e.question for e in heard if e.question is not None]
    assert len(asked) == 10 and {q.stage for q in asked} == {"grading"} and {q.round for q in asked} == {0}
    assert len(heard) - len(asked) == 2  # two batches of five, each heard once its feedback is written


def test_hard_probes_ask_the_judge_plausible_wrong_answers_and_bound_its_false_positives(tmp_path):
    """#46: `hard_probes` makes a run's wrong calibration probes hard negatives (here another festival city for a
    question asking for a city, `same_kind`), where by default they are any other item's gold; a judge that accepts
    everything then fails on them, and the run records its acceptances on the hard kinds with their bound."""
    yes = FunctionModel(lambda messages: json.dumps({"reasoning": "The reply states the answer plainly.",
                                                     "correct": True, "adequate": True}), "jdg")

    def calibration(options, name):
        result = run_protocol("interviewer", items(), models={**roles(Script()), "judge": yes},
                              config={"resamples": 200, **options}, run_dir=tmp_path / name, cache=False,
                              notify=lambda line: None)
        return result.summary["judge_calibration"]

    from judgeagent.grading.hard_negatives import hard_fpr

    plain, hard = calibration({}, "plain"), calibration({"hard_probes": True}, "hard")
    # the Interviewer's report says what the probes bound (its last section), as JudgeAgent's does
    report = (tmp_path / "hard" / "report.md").read_text()
    section = report[report.index("## Judge calibration"):report.index("## Usage")]
    assert "Judge calibration on 8 pairs built from the benchmark (policy `calibrated`): accuracy 50.0% [22, 78]" in section
    assert ("Hard negatives (other_option, same_kind): 4 of 4 accepted, so at most 100% of wrong replies like them "
            "are accepted (95% Wilson upper bound).") in section
    assert "same_kind" not in plain["by_kind"] and plain["by_kind"]["other_gold"]["n"] == 3
    assert hard["by_kind"]["same_kind"] == {"n": 3, "right": 0} and "other_gold" not in hard["by_kind"]
    assert not hard["passed"] and not plain["passed"]  # stopped after 8 pairs: it could no longer pass
    assert hard_fpr(hard["by_kind"])[:2] == (4, 4) and hard_fpr(plain["by_kind"])[:2] == (1, 1)
