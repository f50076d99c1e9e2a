"""`report`, `validate`, `compare` and `rescore` on runs of every protocol, through the CLI: real run folders
made with scripted roles (FunctionModel, orchestration only) and, for rescore, a registry model served by the
loopback server through the real client."""
import json
import re

import pytest

from judgeagent.cli import main
from judgeagent.models.testing import FunctionModel
from judgeagent.protocols import run_protocol
from tests import test_dynaeval, test_kieval, test_protocols, test_teach2eval
from tests.scripted import kill_after


def cli(argv, capsys):
    code = main([str(a) for a in argv])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def one_line_error(code, err, fragment):
    assert code == 1 and fragment in err, err
    assert "Traceback" not in err and len(err.strip().splitlines()) == 1


def interviewer_run(tmp_path, name="iv", script=None, **options):
    config = {**test_protocols.OPTS, "summary": False, **options}
    return run_protocol("interviewer", test_protocols.items(), models=test_protocols.roles(script or
                        test_protocols.Script()), config=config, run_dir=tmp_path / name, cache=False).folder


def kieval_run(tmp_path, name="kv"):
    return run_protocol("kieval", test_kieval.bench(), models=test_kieval.models(), config=test_kieval.OPTS,
                        run_dir=tmp_path / name, cache=False).folder


def html_text(html):
    """The page's visible text, tags dropped (entities left as they are)."""
    return re.sub(r"<[^>]+>", " ", html)


# --- report ------------------------------------------------------------------------------------------------

def test_report_on_an_interviewer_run_rewrites_report_md_and_writes_report_html(tmp_path, capsys):
    run = interviewer_run(tmp_path)
    written = (run / "report.md").read_text()
    (run / "report.md").unlink()
    code, out, err = cli(["report", run], capsys)
    assert code == 0, err
    assert out.splitlines() == [f"report: {run / 'report.html'}", f"markdown: {run / 'report.md'}",
                                f"viewer: {run / 'viewer.html'}"]
    assert (run / "report.md").read_text() == written  # the same report, from summary.json alone
    html = (run / "report.html").read_text()
    summary = json.loads((run / "summary.json").read_text())
    for title in ("Performance scores", "Error types and examples", "Contamination probe", "Query modification"):
        assert f"## {title}" in written and f"<h2>{title}</h2>" in html
    # the numbers of summary.json, as the Markdown shows them, are on the page
    assert f"{100 * summary['score_at']['@2']:.1f}" in html_text(html)
    assert "<table" in html and html.startswith("<!doctype html>") and "<style>" in html
    assert "<script" not in html and "http" not in html  # self-contained
    assert not (run / "weaknesses.parquet").exists()  # the trainer export is JudgeAgent's
    # the frame around the sections, word for word: the page's title, each role's usage row, one final newline
    assert f"<h1>LLM-as-an-Interviewer run: {run.name}</h1>" in html
    assert f"<title>judgeagent: LLM-as-an-Interviewer run {run.name}</title>" in html
    assert "- benchmark: `scripted.jsonl` (5 items)" in written.splitlines()
    assert summary["usage"]
    for role, u in summary["usage"].items():
        assert (f"| {role} | {u['calls']} | {u['cache_hits']} | {u['failures']} | {u['input_tokens']} | "
                f"{u['output_tokens']} | {u['cost']:.4f} |") in written.splitlines()
    assert written.endswith(" |\n") and not written.endswith("\n\n")


def test_report_on_teach2eval_and_dynaeval_runs_shows_their_sections(tmp_path, capsys):
    teach = run_protocol("teach2eval", test_teach2eval.bench(), models=test_teach2eval.models(),
                         config=test_teach2eval.OPTS, run_dir=tmp_path / "t2e", cache=False).folder
    players = {"players.1": test_dynaeval.investor([10, 10, 4], "alpha"),
               "players.2": test_dynaeval.investor([0, 0, 0], "beta")}
    games = test_dynaeval.run(players, tmp_path, name="dyn", rounds=3, max_runs=2, min_runs=2).folder
    for run, titles in ((teach, ("Teaching abilities", "Student accuracy by turn", "Lessons")),
                        (games, ("Scores", "Convergence", "A game (repetition 1)"))):
        (run / "report.md").unlink()
        code, _, err = cli(["report", run], capsys)
        assert code == 0, err
        md, html = (run / "report.md").read_text(), (run / "report.html").read_text()
        assert all(f"## {t}" in md and f"<h2>{t}</h2>" in html for t in titles)
    # fenced blocks (the accuracy chart, the game transcript) and quoted lessons keep their lines
    t2e = (teach / "report.html").read_text()
    assert "<pre>" in t2e and "<blockquote>" in t2e and "```" not in t2e
    summary = json.loads((games / "summary.json").read_text())
    dyn = (games / "report.html").read_text()
    assert f"{summary['players']['players.2']['mean']:.3f}" in dyn and "<pre>" in dyn


def test_report_on_an_unfinished_run_or_a_folder_that_is_no_run_is_one_line(tmp_path, capsys):
    with pytest.raises(RuntimeError, match="killed"):
        run_protocol("interviewer", test_protocols.items(), models=kill_after(test_protocols.roles(test_protocols.Script()),
                     ("target", "interviewer", "judge"), 3), config=test_protocols.OPTS, run_dir=tmp_path / "half", cache=False)
    code, _, err = cli(["report", tmp_path / "half"], capsys)
    one_line_error(code, err, f"is unfinished: complete it first with judgeagent evaluate --resume {tmp_path / 'half'}")
    assert not (tmp_path / "half" / "report.html").exists() and not (tmp_path / "half" / "report.md").exists()
    (tmp_path / "other").mkdir()
    (tmp_path / "other" / "notes.txt").write_text("not a run")
    code, _, err = cli(["report", tmp_path / "other"], capsys)
    one_line_error(code, err, "is not a run folder (no manifest.json); give a folder judgeagent evaluate wrote")
    code, _, err = cli(["report", tmp_path / "missing"], capsys)
    one_line_error(code, err, "run not found")
    assert sorted(p.name for p in (tmp_path / "other").iterdir()) == ["notes.txt"]


# --- validate and rescore are their protocol's -------------------------------------------------------------

def test_validate_refuses_a_kieval_run_in_one_line(tmp_path, capsys):
    run = kieval_run(tmp_path)
    before = sorted(p.name for p in run.iterdir())
    code, _, err = cli(["validate", run, "--no-cache"], capsys)
    one_line_error(code, err, f"validate re-answers with JudgeAgent's feedback; {run} is a kieval run "
                              f"(its report: judgeagent report {run})")
    assert sorted(p.name for p in run.iterdir()) == before


# --- compare -----------------------------------------------------------------------------------------------

class Forgetful(test_protocols.Script):
    """Knows nothing about jazz: a second interviewer run with other numbers."""

    def target(self, messages):
        first = next(m["content"] for m in messages if m["role"] == "user")
        return "Paris" if "jazz" in first else super().target(messages)


def test_compare_two_interviewer_runs_shows_each_with_its_summary_numbers(tmp_path, capsys):
    a = interviewer_run(tmp_path, "a")
    b = interviewer_run(tmp_path, "b", Forgetful())
    code, out, err = cli(["compare", a, b], capsys)
    assert code == 0, err
    lines = [line for line in out.splitlines() if line.startswith("| ")]
    head = [c.strip() for c in lines[0].strip("|").split("|")]
    assert head == ["run", "models", "Score@1", "Score@N", "adaptability", "follow-up score", "probe gap"]
    rows = {cells[0]: cells for cells in ([c.strip() for c in line.strip("|").split("|")] for line in lines[1:])}
    assert list(rows) == ["a", "b"]
    for name, folder in (("a", a), ("b", b)):
        s = json.loads((folder / "summary.json").read_text())
        expected = [s["score_at"]["@1"], s["score_at"]["@3"], s["adaptability"], s["followup"]["all"]["score"],
                    s["probe"]["gap"]]
        assert rows[name][2:] == [f"{v:.3f}" for v in expected]
        assert rows[name][1] == "target=tgt, interviewer=int, judge=jdg"
    assert rows["a"][2:] != rows["b"][2:]  # the second target does worse: the table tells them apart


def test_compare_refuses_runs_of_two_protocols(tmp_path, capsys):
    a, k = interviewer_run(tmp_path, "a"), kieval_run(tmp_path)
    code, out, err = cli(["compare", a, k], capsys)
    one_line_error(code, err, "compare puts runs of one protocol side by side; these are runs of 2 "
                              f"(interviewer: {a}; kieval: {k})")
    assert out == ""


def test_compare_kieval_teach2eval_and_dynaeval_runs_by_their_headlines(tmp_path, capsys):
    k = kieval_run(tmp_path)
    code, out, _ = cli(["compare", k], capsys)
    s = json.loads((k / "summary.json").read_text())
    assert code == 0 and "| KIEval overall | KIEval accuracy | benchmark accuracy | valid rounds |" in out
    assert f"| {s['kieval']['overall']:.3f} | {s['kieval']['accuracy']:.3f} | {s['benchmark_accuracy']:.3f} | " \
           f"{s['valid_rounds']:.3f} |" in out
    teach = run_protocol("teach2eval", test_teach2eval.bench(), models=test_teach2eval.models(),
                         config=test_teach2eval.OPTS, run_dir=tmp_path / "t2e", cache=False).folder
    code, out, _ = cli(["compare", teach], capsys)
    a = json.loads((teach / "summary.json").read_text())["abilities"]
    assert code == 0 and "| AA | JA | GA | RA | CA |" in out
    assert " | ".join(f"{a[key]['value']:.3f}" for key in ("AA", "JA", "GA", "RA", "CA")) in out
    players = {"players.1": test_dynaeval.investor([10, 10, 4], "alpha"),
               "players.2": test_dynaeval.investor([0, 0, 0], "beta")}
    games = test_dynaeval.run(players, tmp_path, name="dyn", rounds=3, max_runs=2, min_runs=2).folder
    code, out, _ = cli(["compare", games], capsys)
    p = json.loads((games / "summary.json").read_text())["players"]
    assert code == 0 and "public_goods: players.1 (coins) | public_goods: players.1 ±95%" in out
    assert f"| {p['players.1']['mean']:.3f} |" in out and "players.1=alpha, players.2=beta" in out


# --- KIEval: rescore through the CLI, and its agreement in the report ----------------------------------------

def test_rescore_through_the_cli_with_a_registry_model_and_the_report_shows_the_agreement(tmp_path, capsys):
    from judgeagent.models.testserver import FakeServer

    run = kieval_run(tmp_path)
    stored = ("records.jsonl", "episodes.jsonl", "summary.json", "manifest.json")
    before = {name: (run / name).read_bytes() for name in stored}
    second = test_kieval.evaluator({"Strong": 3})
    with FakeServer(reply=lambda request: second(request["messages"])) as server:
        toml = tmp_path / "judgeagent.toml"
        toml.write_text(f'[models.other]\nbase_url = "{server.base_url}"\nmodel = "o"\n')
        code, out, err = cli(["rescore", run, "--evaluator", "other", "--config", toml, "--no-cache", "-q"], capsys)
        assert code == 0, err
        assert server.counts["requests"] == 3 + 3 + 2  # one per stored candidate turn
    assert f"written: {run / 'rescore-other.json'}" in out and "eval vs other" in out
    result = json.loads((run / "rescore-other.json").read_text())
    assert result["second"]["evaluator"] == "other" and result["agreement"]["accuracy"]["n"] == 8
    assert {name: (run / name).read_bytes() for name in stored} == before  # the run itself is untouched

    code, _, err = cli(["report", run], capsys)
    assert code == 0, err
    md, html = (run / "report.md").read_text(), (run / "report.html").read_text()
    section = md.split("## Evaluator agreement", 1)[1].split("\n## ", 1)[0]
    a = result["agreement"]["accuracy"]
    row = (f"| accuracy | {100 * result['first']['kieval']['accuracy']:.1f} | "
           f"{100 * result['second']['kieval']['accuracy']:.1f} | {a['pearson']['r']:.3f} | "
           f"{a['spearman']['r']:.3f} | {a['kendall']['r']:.3f} | {a['kappa']:.3f} |")
    assert row in section and "rescore-other.json" in section and "**eval** (the run's) vs **other**" in section
    assert "<h2>Evaluator agreement</h2>" in html and f"{a['pearson']['r']:.3f}" in html
    assert md.index("## Evaluator agreement") < md.index("## Usage")


def test_a_second_rescore_of_a_run_at_once_is_refused_and_repeats_no_call(tmp_path):
    """rescore writes the run's folder (its journal under rescore/, its file): a second one started while the first
    is asking is refused by the run's writer lock, as a second validate is, rather than asking every question again."""
    import threading

    from judgeagent.errors import JudgeAgentError
    from judgeagent.models import ModelSpec
    from judgeagent.models.spec import Registry
    from judgeagent.models.testserver import FakeServer
    from judgeagent.protocols.kieval.rescore import rescore

    run = kieval_run(tmp_path)
    second = test_kieval.evaluator({"Strong": 3})
    outcomes = []

    def one(registry):
        try:
            outcomes.append(rescore(run, "other", registry=registry, cache=False)["file"])
        except JudgeAgentError as e:
            outcomes.append(str(e))

    with FakeServer(reply=lambda request: second(request["messages"]), latency=0.3) as server:
        registry = Registry({"other": ModelSpec(name="other", base_url=server.base_url, model="o")})
        first = threading.Thread(target=one, args=(registry,))
        first.start()
        while server.counts["requests"] == 0 and first.is_alive():  # the first is asking: its calls are in flight
            pass
        one(registry)
        first.join()
        assert server.counts["requests"] == 3 + 3 + 2  # each stored candidate turn scored once
    assert outcomes[0].startswith(f"run {run} is being written by another judgeagent process"), outcomes
    assert outcomes[1] == str(run / "rescore-other.json")


def test_rescore_refuses_a_run_cut_short_before_asking_anything(tmp_path):
    """rescore read episodes.jsonl itself and opened the run only at the end: on a copy cut short it paid for every
    evaluator call, then refused (found in review, stop 69)."""
    from judgeagent.errors import JudgeAgentError
    from judgeagent.protocols.kieval.rescore import rescore

    run = kieval_run(tmp_path)
    rows = (run / "episodes.jsonl").read_bytes().splitlines(keepends=True)
    (run / "episodes.jsonl").write_bytes(rows[0])
    calls = []

    def second(messages):
        calls.append(messages)
        return test_kieval.evaluator({"Strong": 3})(messages)

    with pytest.raises(JudgeAgentError, match="episodes.jsonl is cut short"):
        rescore(run, FunctionModel(second, "other"), cache=False)
    assert calls == [] and not (run / "rescore").exists()


def test_a_runs_usage_log_damaged_or_lost(tmp_path, capsys):
    """usage.jsonl (each call's accounting, stop 69): a finished run without it is still whole (its summary holds the
    sum); a damaged row is named by file and row when a resume reads it, not a TypeError mid-resume."""
    import json

    from judgeagent.errors import JudgeAgentError

    run = kieval_run(tmp_path)
    rows = (run / "usage.jsonl").read_text().splitlines()
    assert len(rows) == sum(u["calls"] + u["cache_hits"] + u["failures"]
                            for u in json.loads((run / "summary.json").read_text())["usage"].values())
    (run / "usage.jsonl").unlink()
    assert cli(["report", run], capsys)[0] == 0
    first = json.loads(rows[0])
    (run / "usage.jsonl").write_text("\n".join([json.dumps({**first, "calls": "1"}), *rows[1:]]) + "\n")
    (run / "summary.json").unlink()  # replayed from the records on resume: the usage rows are read
    with pytest.raises(JudgeAgentError, match=r"usage.jsonl: row 1: field 'calls' should be a whole number; the file "
                                              "was left as it is"):
        kieval_run(tmp_path)


def test_a_kieval_report_without_rescores_has_no_agreement_section(tmp_path, capsys):
    run = kieval_run(tmp_path)
    assert cli(["report", run], capsys)[0] == 0
    assert "Evaluator agreement" not in (run / "report.md").read_text()
    second = FunctionModel(test_kieval.evaluator({"Strong": 3}), "other")
    from judgeagent.protocols.kieval.rescore import rescore

    rescore(run, second, cache=False)
    (run / "rescore-broken.json").write_text("{")
    assert cli(["report", run], capsys)[0] == 0
    md = (run / "report.md").read_text()
    assert "**eval** (the run's) vs **other**" in md and "`rescore-broken.json` could not be read" in md


# --- judgeagent protocols: what each needs, from the declarations ----------------------------------------------

def test_protocols_lists_each_protocols_inputs_in_one_phrase(capsys):
    code, out, _ = cli(["protocols"], capsys)
    flat = " ".join(out.split())
    assert code == 0 and max(len(line) for line in out.splitlines()) <= 80
    assert "needs: a benchmark; free-text items also need --graph (their distractors come from it)" in flat
    assert "needs: a benchmark, and a graph unless --no-extension" in flat
    assert "options: evaluate's flags set them too (--batch-size is batch_size," in flat and "    holdout=0.0" in out
    assert "needs: no benchmark: the task reads its own items" in flat
    assert "needs: a benchmark; --graph optional" in flat
    # An option's help is its first paragraph whole, not its first line (it stopped at "the paper's score
    # thresholds on the").
    assert "`tiers` (the paper's score thresholds on the batch's running score) or `irt`" in flat


# --- what cannot be written, or read, is one line --------------------------------------------------------------

def judgeagent_cli_run(tmp_path, roles, capsys, name="ja", limit=5):
    """A JudgeAgent run through the CLI (no extension stage, so no graph), with the loopback roles' registry."""
    from tests.conftest import DATA

    toml = roles.write_config(tmp_path / "judgeagent.toml")
    run = tmp_path / name
    code, _, err = cli(["evaluate", "--target", "tgt", "--interviewer", "int", "--benchmark",
                        DATA / "multihop_rag" / "small.questions.jsonl", "--limit", limit, "--no-extension",
                        "--run-dir", run, "--config", toml, "--no-cache", "-q"], capsys)
    return code, err, run, toml


def test_commands_on_a_finished_run_in_a_read_only_folder_are_one_line(tmp_path, capsys, read_only):
    from judgeagent.models.testserver import FakeServer
    from tests.scripted import Roles, Script

    with Roles(Script()) as roles:
        code, err, run, toml = judgeagent_cli_run(tmp_path, roles, capsys)
        assert code == 0, err
        kv = kieval_run(tmp_path)
        before = {folder: sorted(p.name for p in folder.iterdir()) for folder in (run, kv)}
        read_only(run), read_only(kv)
        code, _, err = cli(["report", run], capsys)
        one_line_error(code, err, f"cannot write {run / 'report.md'}: ")
        assert f"{run} does not take new files: make it writable or choose another place" in err
        for command in (["validate", run, "--config", toml, "--no-cache"],
                        ["evaluate", "--resume", run, "--config", toml, "--no-cache", "-q"]):
            code, _, err = cli(command, capsys)
            one_line_error(code, err, f"run {run} cannot be written (")
            assert "make the folder writable, or copy it somewhere writable and give that folder" in err
        calls = roles.calls()
    code, _, err = cli(["report", kv], capsys)
    one_line_error(code, err, f"cannot write {kv / 'report.md'}: ")
    with FakeServer() as server:
        (tmp_path / "other.toml").write_text(f'[models.other]\nbase_url = "{server.base_url}"\nmodel = "o"\n')
        code, _, err = cli(["rescore", kv, "--evaluator", "other", "--config", tmp_path / "other.toml", "--no-cache",
                            "-q"], capsys)
        one_line_error(code, err, f"run {kv} cannot be written (")  # its writer lock, as validate's
        assert "make the folder writable, or copy it somewhere writable and give that folder" in err
        assert server.counts["requests"] == 0
    assert roles.calls() == calls  # refused before asking anything
    assert {folder: sorted(p.name for p in folder.iterdir()) for folder in (run, kv)} == before


def test_report_on_a_finished_run_without_its_summary_is_one_line_and_a_resume_writes_it_again(tmp_path, capsys):
    from tests.scripted import Roles, Script

    iv = interviewer_run(tmp_path)
    (iv / "summary.json").unlink()
    code, _, err = cli(["report", iv], capsys)
    one_line_error(code, err, f"run {iv} has no summary.json; judgeagent evaluate --resume {iv} writes it again "
                              "from the run's records (no model calls)")
    with Roles(Script()) as roles:
        code, err, run, toml = judgeagent_cli_run(tmp_path, roles, capsys)
        assert code == 0, err
        written = json.loads((run / "summary.json").read_text())
        (run / "summary.json").write_text("[1, 2]")
        code, _, err = cli(["report", run], capsys)
        one_line_error(code, err, f"run {run} has a summary.json holding an array, not a JSON object; judgeagent "
                                  f"evaluate --resume {run} writes it again")
        calls = roles.calls()
        for damage in ("[1, 2]", None):
            if damage is None:
                (run / "summary.json").unlink()
                code, _, err = cli(["report", run], capsys)
                one_line_error(code, err, f"run {run} has no summary.json; judgeagent evaluate --resume {run} writes")
            else:
                (run / "summary.json").write_text(damage)
            code, _, err = cli(["evaluate", "--resume", run, "--config", toml, "--no-cache", "-q"], capsys)
            assert code == 0, err
            again = json.loads((run / "summary.json").read_text())
            assert {k: v for k, v in again.items() if k != "usage"} == {k: v for k, v in written.items() if k != "usage"}
        assert roles.calls() == calls  # from the records and the journal
    assert cli(["report", run], capsys)[0] == 0


def test_a_full_disk_during_evaluate_is_one_line_and_the_run_resumes(tmp_path, capsys, small_disk):
    import os

    from tests.scripted import Roles, Script

    filler = small_disk / "filler"
    stats = os.statvfs(small_disk)
    filler.write_bytes(b"x" * (stats.f_bavail * stats.f_frsize - 128 * 1024))  # room for the start, not the run
    with Roles(Script()) as roles:
        code, err, run, toml = judgeagent_cli_run(small_disk, roles, capsys)
        one_line_error(code, err, "the disk is full: free some space there, then ")
        assert "resume" in err and not (run / "summary.json").exists()
        filler.unlink()
        code, _, err = cli(["evaluate", "--resume", run, "--config", toml, "--no-cache", "-q"], capsys)
        assert code == 0, err
    summary = json.loads((run / "summary.json").read_text())
    assert summary["questions"] == 5


# --- model and corpus text in report.md is text, never HTML ------------------------------------------------------

PAYLOAD = "<script>alert(1)</script> <img src=x onerror=alert(2)> a | b & c"
SHOWN = "&lt;script&gt;alert(1)&lt;/script&gt; &lt;img src=x onerror=alert(2)&gt;"


def assert_text_not_html(run):
    md, html = (run / "report.md").read_text(), (run / "report.html").read_text()
    for page in (md, html):
        assert "<script" not in page and "<img" not in page
        assert SHOWN in page and "&amp;lt;" not in page  # escaped once: the page shows the text as written
    return md


def test_judgeagent_report_md_escapes_what_the_models_wrote(tmp_path, capsys):
    from tests.scripted import Roles, Script

    class Hostile(Script):
        def target(self, request):
            return f"{super().target(request)} {PAYLOAD}"

        def _feedback(self, prompt):
            return json.dumps({**json.loads(super()._feedback(prompt)), "flaws_knowledge": f"line one\n{PAYLOAD}"})

    with Roles(Hostile()) as roles:
        code, err, run, _ = judgeagent_cli_run(tmp_path, roles, capsys)
        assert code == 0, err
    assert cli(["report", run], capsys)[0] == 0
    md = assert_text_not_html(run)
    assert f"- **flaws knowledge**: line one {SHOWN} a | b &amp; c" in md  # a bullet stays one line
    rows = [line for line in md.splitlines() if line.startswith("| grading | - |")]
    assert len(rows) == 5 and all(f"{SHOWN} a \\| b &amp; c" in row for row in rows)  # a pipe ends no cell


def test_kieval_report_md_escapes_what_the_models_wrote(tmp_path, capsys):
    models = test_kieval.models()
    models["candidate"] = FunctionModel(lambda messages: f"{test_kieval.candidate(messages)}\n{PAYLOAD}", "cand")
    run = run_protocol("kieval", test_kieval.bench(), models=models, config=test_kieval.OPTS, run_dir=tmp_path / "kv",
                       cache=False).folder
    written = (run / "report.md").read_text()  # as the run wrote it
    assert cli(["report", run], capsys)[0] == 0
    md = assert_text_not_html(run)
    assert md == written and f"> {SHOWN} a | b &amp; c" in md  # a quoted reply keeps its lines, each escaped
