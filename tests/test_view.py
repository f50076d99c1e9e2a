"""`judgeagent view` in real headless Chromium and `judgeagent export --format inspect` read back by inspect_ai:
a run of each protocol (scripted roles: FunctionModel in process, JudgeAgent's through the loopback server)."""
import json
import os
import re
from pathlib import Path

import pytest

from judgeagent.cli import main
from judgeagent.protocols import run_protocol
from tests import test_dynaeval, test_kieval, test_protocols, test_teach2eval
from tests.test_run_reports import Forgetful

from .browser import chromium

SCRIPT = "<script>window.pwned = 1</script></script><!-- x"


class Injecting(test_protocols.Script):
    """A target whose reply to one question carries markup that would run if the page trusted it."""

    def target(self, messages):
        reply = super().target(messages)
        first = next(m["content"] for m in messages if m["role"] == "user")
        return f"{SCRIPT} {reply}" if "book" in first else reply


def judgeagent_run(root):
    """JudgeAgent on 10 MultiHop-RAG questions without the extension stage (no graph): two batches, validated."""
    from judgeagent.benchmark import load_benchmark
    from judgeagent.protocols.judgeagent.config import EvalConfig
    from tests.conftest import DATA
    from tests.scripted import Roles
    from tests.test_validate import Helpful

    bench = load_benchmark(DATA / "multihop_rag" / "small.questions.jsonl", limit=10)
    from judgeagent.protocols.judgeagent.validate import validate

    with Roles(Helpful(target_right={i.question for i in bench.items[::3]})) as roles:
        for item in bench.items:
            roles.script.golds[item.question] = item.gold
        folder = run_protocol("judgeagent", bench, None, models={"target": "tgt", "interviewer": "int"},
                              config=EvalConfig(batch_size=5, extension=False), run_dir=root / "ja",
                              registry=roles.registry(), cache=False).folder
        validate(folder, registry=roles.registry(), cache=False)
    return folder


SUBJECTS = {"q-strong": "music", "q-reviser": "arts", "q-hopeless": "arts", "q-memorised": "arts",
            "q-choice": "astronomy"}


def with_subjects(root):
    """The Interviewer's scripted items as a benchmark file with a `subject` column (the viewer reads it back)."""
    from judgeagent.benchmark import load_benchmark

    path = root / "items.jsonl"
    path.write_text("".join(json.dumps({"qid": i.qid, "question": i.question, "answer": i.gold, "options": i.options,
                                        "answer_letter": i.gold_letter, "subject": SUBJECTS[i.qid]}) + "\n"
                            for i in test_protocols.items().items))
    return load_benchmark(path)


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    root = tmp_path_factory.mktemp("view-runs")
    iv = lambda name, script, bench=test_protocols.items(): run_protocol(  # noqa: E731
        "interviewer", bench, models=test_protocols.roles(script),
        config={**test_protocols.OPTS, "summary": False}, run_dir=root / name, cache=False).folder
    players = {"players.1": test_dynaeval.investor([10, 10, 4], "alpha"),
               "players.2": test_dynaeval.investor([0, 0, 0], "beta")}
    return {
        "interviewer": iv("iv", Injecting()),
        "interviewer-b": iv("iv-b", Forgetful(), with_subjects(root)),
        "kieval": run_protocol("kieval", test_kieval.bench(), models=test_kieval.models(), config=test_kieval.OPTS,
                               run_dir=root / "kv", cache=False).folder,
        "teach2eval": run_protocol("teach2eval", test_teach2eval.bench(), models=test_teach2eval.models(),
                                   config=test_teach2eval.OPTS, run_dir=root / "t2e", cache=False).folder,
        "dynaeval": test_dynaeval.run(players, root, name="dyn", rounds=3, max_runs=2, min_runs=2).folder,
        "judgeagent": judgeagent_run(root),
    }


def lines(path):
    return [json.loads(x) for x in path.read_text().splitlines()]


def episodes_of(folder):
    """What the viewer must list: JudgeAgent a row per question asked, the others a row per episode."""
    if folder.name == "ja":  # by batch, round and question number, not the order episodes finished writing
        rows = lines(folder / "records.jsonl")
        return [r["record_id"] for r in sorted(rows, key=lambda r: (r["batch"], r["round"], natural(r["record_id"])))]
    return [r["episode"] for r in sorted(lines(folder / "episodes.jsonl"), key=lambda r: r["index"])]


def natural(text):
    """`b0-r2-q10` after `b0-r2-q9`: the numbers in an id compare as numbers."""
    return [int(p) if p.isdigit() else p for p in re.split(r"(\d+)", text)]


def turns_of(folder, episode):
    """The turns the transcript must show: the episode's records (JudgeAgent: its answer, its batch's feedback and
    its answer again with that feedback)."""
    if folder.name == "ja":
        return 3
    return sum(r["episode"] == episode for r in lines(folder / "records.jsonl"))


def wrong_episodes(folder):
    """Episodes whose verdict is wrong, from the records: the last `correct` score of each episode."""
    if folder.name == "ja":
        return sum(not r["correct"] for r in lines(folder / "records.jsonl"))
    last = {}
    for r in lines(folder / "records.jsonl"):
        if "correct" in r["scores"]:
            last[r["episode"]] = r["scores"]["correct"]["value"]
    return sum(v < 0.5 for v in last.values())


def screenshot(browser, path, name):
    """A screenshot of the page; with JUDGEAGENT_SCREENSHOTS=FOLDER also a small copy there (docs/viewing.md's
    come from `JUDGEAGENT_SCREENSHOTS=docs/images pytest tests/test_view.py`)."""
    assert browser.save_screenshot(str(path)) and path.stat().st_size > 10_000  # something was drawn
    folder = os.environ.get("JUDGEAGENT_SCREENSHOTS")
    if folder:  # a JPEG from Chromium itself: a third of the PNG's size
        import base64

        shot = browser.execute_cdp_cmd("Page.captureScreenshot", {"format": "jpeg", "quality": 40})
        Path(folder).mkdir(parents=True, exist_ok=True)
        (Path(folder) / name).write_bytes(base64.b64decode(shot["data"]))


def cli(argv, capsys):
    code = main([str(a) for a in argv])
    out = capsys.readouterr()
    assert code == 0, out.err
    return out.out


@pytest.fixture(scope="module")
def browser(tmp_path_factory):
    with chromium(tmp_path_factory.mktemp('profile'), "1300,900") as driver:
        yield driver


def test_every_protocols_run_renders_filters_and_opens_its_transcripts(runs, browser, capsys):
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import Select

    find = browser.find_element
    for name in ("interviewer", "kieval", "teach2eval", "dynaeval", "judgeagent"):
        folder = runs[name]
        assert cli(["view", folder], capsys) == f"viewer: {folder / 'viewer.html'}\n"
        browser.get((folder / "viewer.html").as_uri())
        expected = episodes_of(folder)
        rows = browser.find_elements(By.CSS_SELECTOR, "#rows tr")
        assert [r.find_elements(By.TAG_NAME, "td")[0].text for r in rows] == expected, name
        assert find(By.ID, "count").text == f"{len(expected)} of {len(expected)} episodes"
        rows[0].click()
        assert len(browser.find_elements(By.CSS_SELECTOR, "#transcript .turn")) == turns_of(folder, expected[0])
        wrong = wrong_episodes(folder)
        if 0 < wrong < len(expected):  # the verdict filter narrows the list to the wrong ones
            Select(find(By.CSS_SELECTOR, "select[data-facet=verdict]")).select_by_value("wrong")
            assert find(By.ID, "count").text == f"{wrong} of {len(expected)} episodes"
            assert len(browser.find_elements(By.CSS_SELECTOR, "#rows tr")) == wrong
        if name == "judgeagent":  # validation: the base questions the feedback turned from wrong to right
            helped = sum(not v["before"] and v["after"] for v in lines(folder / "validation.jsonl"))
            Select(find(By.CSS_SELECTOR, "select[data-facet=verdict]")).select_by_value("")
            Select(find(By.CSS_SELECTOR, "select[data-facet=validation]")).select_by_value("wrong -> right")
            assert helped > 0 and find(By.ID, "count").text == f"{helped} of {len(expected)} episodes"
        errors = [e for e in browser.get_log("browser") if e["level"] in ("SEVERE", "ERROR")]
        assert errors == [], name
        screenshot(browser, folder / "viewer.png", f"viewer-{name}.jpg")


def test_model_text_with_markup_shows_as_text_search_keys_and_two_runs_compare(runs, browser, capsys):
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys
    from selenium.webdriver.support.ui import Select

    a, b = runs["interviewer"], runs["interviewer-b"]
    out = a / "viewer-vs-iv-b.html"
    assert cli(["view", a, b], capsys) == f"viewer: {out}\n"
    browser.get(out.as_uri())
    find = browser.find_element
    search = find(By.ID, "search")
    search.send_keys("window.pwned")  # only the episode whose reply holds the markup
    browser.implicitly_wait(0)
    import time

    time.sleep(0.4)  # the search waits 150 ms for typing to pause
    assert find(By.ID, "count").text == "1 of 5 episodes"
    search.send_keys(Keys.ESCAPE)
    find(By.TAG_NAME, "body").send_keys("j")  # the keyboard opens the first listed episode
    replies = [e.text for e in browser.find_elements(By.CSS_SELECTOR, "#transcript pre.reply")]
    assert any(SCRIPT in r for r in replies)  # shown, character for character, as text
    assert browser.execute_script("return window.pwned === undefined")
    assert browser.find_elements(By.CSS_SELECTOR, "#transcript script") == []

    find(By.CSS_SELECTOR, "nav button[data-view=compare]").click()
    pairs = browser.find_elements(By.CSS_SELECTOR, "#pairs tr")
    first = {r["episode"]: r for r in lines(a / "episodes.jsonl")}
    second = {r["qid"]: r for r in lines(b / "episodes.jsonl")}
    assert len(pairs) == len(first) == len(second)
    marked = {p.find_elements(By.TAG_NAME, "td")[0].text for p in pairs if "diff" in p.get_attribute("class")}
    assert "q-strong" in marked  # the forgetful target lost the jazz question
    next(p for p in pairs if p.find_elements(By.TAG_NAME, "td")[0].text == "q-strong").click()
    screenshot(browser, a / "compare.png", "viewer-compare.jpg")
    assert browser.find_elements(By.CSS_SELECTOR, "#side-a .turn") and browser.find_elements(By.CSS_SELECTOR,
                                                                                          "#side-b .turn")
    # a knowledge path's chunk: its entities marked, whatever their case, and the text kept as text
    marks = browser.execute_script("const d = highlighted('The CEO met the world <b>press</b>; a ceo (x+', "
                                   "['ceo', 'world', 'x+']); return [d.textContent, [...d.querySelectorAll('mark')]"
                                   ".map((m) => m.textContent), d.querySelectorAll('b').length]")
    assert marks == ["The CEO met the world <b>press</b>; a ceo (x+", ["CEO", "world", "ceo", "x+"], 0]
    find(By.CSS_SELECTOR, "nav button[data-view=episodes][data-run='1']").click()  # the second run's own list
    Select(find(By.CSS_SELECTOR, "select[data-facet=subject]")).select_by_value("arts")  # from the benchmark file
    assert find(By.ID, "count").text == f"{sum(v == 'arts' for v in SUBJECTS.values())} of 5 episodes"
    find(By.CSS_SELECTOR, "nav button[data-view=manifest]").click()
    assert "tgt" in find(By.ID, "manifest").text and "judge_policy" in find(By.ID, "manifest").text
    raw = out.read_text()
    assert "<script>window.pwned" not in raw  # the embedded JSON cannot close its script element
    assert "http://" not in raw.replace("http://127.0.0.1", "") and "https://" not in raw  # nothing fetched


def test_the_report_and_the_viewer_link_each_other(runs, capsys):
    folder = runs["kieval"]
    assert cli(["report", folder], capsys).splitlines()[-1] == f"viewer: {folder / 'viewer.html'}"
    assert "<a href='viewer.html'>" in (folder / "report.html").read_text()
    assert "[viewer.html](viewer.html)" in (folder / "report.md").read_text()
    assert "<a href='report.html'>report of kv</a>" in (folder / "viewer.html").read_text()


def test_inspect_export_of_each_protocol_is_read_back_by_inspect_ai(runs, capsys, tmp_path):
    from inspect_ai.log import read_eval_log

    for name in ("interviewer", "kieval", "teach2eval", "dynaeval", "judgeagent"):
        folder = runs[name]
        out = tmp_path / f"{name}.json"
        expected = episodes_of(folder)
        assert cli(["export", folder, "--format", "inspect", "--out", out], capsys) == \
            f"inspect log ({len(expected)} samples): {out}\n"
        log = read_eval_log(str(out))
        assert log.status == "success" and log.eval.task == f"judgeagent/{name}"
        assert [s.id for s in log.samples] == expected
        records = lines(folder / "records.jsonl")
        for sample in log.samples:
            if name == "judgeagent":
                record = next(r for r in records if r["record_id"] == sample.id)
                assert sample.scores["correct"].value == (1.0 if record["correct"] else 0.0)
                assert record["verdict"]["method"] in sample.scores["correct"].explanation
                continue
            mine = [r for r in records if r["episode"] == sample.id]
            turns = [m for m in sample.messages if m.role != "system"]
            assert len(turns) == 2 * len(mine)  # each turn: its prompt and its reply (and the system prompts)
            assert len(sample.events) == len(mine)  # each turn a model event, in Inspect's transcript
            row = next(r for r in lines(folder / "episodes.jsonl") if r["episode"] == sample.id)
            for score, value in sample.scores.items():
                if name == "dynaeval" and score.startswith("players."):  # a player's coins, whichever seat it had
                    assert value.value == next(row["scores"][seat] for seat, p in row["cast"].items() if p == score)
                    continue
                values = [r["scores"][score]["value"] for r in mine if score in r["scores"]]
                assert value.value == pytest.approx(sum(values) / len(values))
            if name == "dynaeval":
                assert {"players.1", "players.2"} <= set(sample.scores)
        usage = json.loads((folder / "summary.json").read_text())["usage"]
        assert {role: u.input_tokens for role, u in log.stats.role_usage.items()} == \
            {role: u["input_tokens"] for role, u in usage.items()}
    kv = read_eval_log(str(tmp_path / "kieval.json"))
    assert {"overall", "accuracy", "logic"} <= {s.name for s in kv.results.scores}


def test_inspect_lists_the_default_export_and_shows_system_prompts_transcript_and_tokens(runs, capsys):
    """Named as Inspect names its logs, so that `inspect view --log-dir RUN` (Inspect's own listing) lists it; each
    call's whole conversation as sent (the system prompts from the run's journal) in the transcript."""
    from inspect_ai.log import list_eval_logs, read_eval_log

    from judgeagent.protocols.kieval.prompts import EVALUATOR_SYSTEM, INTERACTOR_SYSTEM

    folder = runs["kieval"]
    said = cli(["export", folder, "--format", "inspect"], capsys)
    path = Path(said.split(": ", 1)[1].strip())
    assert path.parent == folder and re.match(r"^\d{4}-\d{2}-\d{2}T\d{2}-\d{2}-\d{2}.*_judgeagent-kieval_\w+\.json$",
                                              path.name)
    listed = list_eval_logs(str(folder))
    assert [Path(info.name.removeprefix("file://")).name for info in listed] == [path.name]
    assert listed[0].task == "judgeagent-kieval"
    log = read_eval_log(str(path))
    sample = next(s for s in log.samples if s.events)
    systems = {m.content for s in log.samples for m in s.messages if m.role == "system"}
    assert INTERACTOR_SYSTEM in systems or EVALUATOR_SYSTEM in systems
    events = [e for e in sample.events if e.event == "model"]
    assert len(events) == sum(1 for m in sample.messages if m.role == "assistant")
    assert any(e.input[0].role == "system" for e in events) and all(e.output.choices for e in events)
    assert sum(u.total_tokens for u in sample.model_usage.values()) > 0
    # the clock from the journal: each call's own seconds, the sample from its first call's start to its last's end
    assert all(e.working_time is not None and e.working_time >= 0 for e in events)
    assert sample.working_time == pytest.approx(sum(e.working_time for e in events), abs=0.01)
    assert sample.total_time >= sample.working_time - 0.01 and sample.started_at <= sample.completed_at



def test_every_exported_turn_of_each_protocol_is_marked_journaled_with_its_call(runs, tmp_path):
    """Each turn's model event says `journaled: true` and carries the journal's own call (its messages as sent and
    its reply as received): the Interviewer's feedback (shown after the answer it is on, parsed from a JSON reply)
    and JudgeAgent's batch feedback and validation answers included. Seen failing with the turns looked up only by
    the prompt and reply they show (those turns all `journaled: false`)."""
    from judgeagent.models.cache import journal_calls
    from judgeagent.protocols import get_protocol
    from judgeagent.view.inspect_log import write_inspect_log

    seen = set()
    for name, folder in runs.items():
        out, _ = write_inspect_log(get_protocol(name.split("-")[0]), folder, tmp_path / f"{name}.json")
        calls = {(json.dumps(c["messages"]), c["text"]) for c in journal_calls(folder)}
        for sample in json.loads(out.read_text())["samples"]:
            for event in sample["events"]:
                sent = json.dumps([{"role": m["role"], "content": m["content"]} for m in event["input"]])
                said = event["output"]["choices"][0]["message"]["content"]
                assert event["metadata"]["journaled"] and (sent, said) in calls, (name, event["metadata"]["step"])
                seen.add((name, event["role"], event["metadata"]["step"].split(" ")[0]))
    assert {("interviewer", "interviewer", "feedback/1"),
            ("judgeagent", "interviewer", "batch"), ("judgeagent", "target", "validation:")} <= seen

def test_a_stored_knowledge_path_keeps_a_text_per_chunk_or_the_path_s_text_as_one():
    from judgeagent.protocols.episodes import path_of

    kieval = {"seed": "jazz", "entities": ["jazz", "Montreux"], "chunk_ids": ["d1#0", "d2#3"], "text": "Jazz in Montreux"}
    assert path_of(kieval).chunks == [{"id": "d1#0, d2#3", "text": "Jazz in Montreux"}]
    graph = {"d1#0": "first chunk", "d2#3": "second chunk"}
    assert [c["text"] for c in path_of({"entities": [], "chunk_ids": ["d1#0", "d2#3"]}, graph).chunks] == \
        ["first chunk", "second chunk"]
    assert path_of(None) is None and path_of({}) is None


def test_an_unfinished_run_is_viewed_with_what_it_has_and_refused_for_export(tmp_path, capsys):
    from judgeagent.protocols.episodes import generic_episodes
    from judgeagent.runs import load_run
    from tests.scripted import kill_after

    with pytest.raises(RuntimeError, match="killed"):
        run_protocol("interviewer", test_protocols.items(), models=kill_after(test_protocols.roles(
                     test_protocols.Script()), ("target", "interviewer", "judge"), 6), config=test_protocols.OPTS,
                     run_dir=tmp_path / "half", cache=False)
    records = lines(tmp_path / "half" / "records.jsonl")
    shown = generic_episodes(load_run(tmp_path / "half"))
    assert [e.id for e in shown] == list(dict.fromkeys(r["episode"] for r in records))
    assert sum(len(e.turns) for e in shown) == len(records)
    assert cli(["view", tmp_path / "half"], capsys) == f"viewer: {tmp_path / 'half' / 'viewer.html'}\n"
    code = main(["export", str(tmp_path / "half")])
    err = capsys.readouterr().err
    assert code == 1 and "is unfinished: complete it first with judgeagent evaluate --resume" in err


def test_view_and_export_refuse_bad_input_in_one_line(runs, tmp_path, capsys):
    for argv, fragment in ((["view", tmp_path / "missing"], "run not found"),
                           (["export", runs["kieval"], "--format", "csv"], "unknown export format 'csv'; choose one "
                                                                          "of inspect")):
        code = main([str(a) for a in argv])
        err = capsys.readouterr().err
        assert code == 1 and fragment in err and "Traceback" not in err and len(err.strip().splitlines()) == 1


def test_view_export_and_report_never_replace_what_is_not_theirs_nor_read_a_run_short(runs, tmp_path, capsys):
    """--out naming a user's file, a report over a damaged episode, a finished run that lost its records: each one
    line and exit 1, with every file as it was (they were overwritten, half-written, or read as a shorter run)."""
    import shutil

    mine = tmp_path / "notes.txt"
    mine.write_text("keep me")
    (tmp_path / "folder").mkdir()
    for argv, fragment in ((["view", runs["kieval"], "--out", mine], "is not a judgeagent viewer page"),
                           (["export", runs["kieval"], "--out", mine], "is not an Inspect log judgeagent wrote"),
                           (["view", runs["kieval"], "--out", tmp_path / "folder"], "it is a folder")):
        code = main([str(a) for a in argv])
        err = capsys.readouterr().err
        assert code == 1 and fragment in err and len(err.strip().splitlines()) == 1, err
    assert mine.read_text() == "keep me"
    for command in ("view", "export"):  # their own earlier output they replace
        out = tmp_path / f"again.{command}"
        assert cli([command, runs["kieval"], "--out", out], capsys) == cli([command, runs["kieval"], "--out", out], capsys)
    # Each branch of `report` (the protocols' reports; JudgeAgent's own, whose viewer reads the validation rows).
    for protocol, log in (("kieval", "episodes.jsonl"), ("judgeagent", "validation.jsonl")):
        damaged = shutil.copytree(runs[protocol], tmp_path / f"damaged-{protocol}")
        text = (damaged / log).read_text()
        (damaged / log).write_text("{oops " + text)
        before = {p.name: p.read_bytes() for p in damaged.iterdir() if p.is_file()}
        assert main(["report", str(damaged)]) == 1 and f"{log}:1: damaged line" in capsys.readouterr().err
        assert {p.name: p.read_bytes() for p in damaged.iterdir() if p.is_file()} == before
    short = shutil.copytree(runs["kieval"], tmp_path / "short")
    (short / "records.jsonl").unlink()
    for command in ("view", "export", "report"):
        assert main([command, str(short)]) == 1
        assert f"run {short} is incomplete: records.jsonl is missing though it finished" in capsys.readouterr().err
    # A copy cut short (here to nothing, and to its first row) is as incomplete as a lost file.
    for keep in (0, 1):
        cut = shutil.copytree(runs["kieval"], tmp_path / f"cut-{keep}")
        rows = (cut / "episodes.jsonl").read_bytes().splitlines(keepends=True)
        (cut / "episodes.jsonl").write_bytes(b"".join(rows[:keep]))
        for command in ("view", "export", "report"):
            assert main([command, str(cut)]) == 1
            err = capsys.readouterr().err
            assert f"run {cut} is incomplete: episodes.jsonl is cut short ({keep} of the " in err, err
            assert "move its .jsonl" in err


def _serve_inspect_view(log_dir):
    """Inspect's own viewer (`inspect view`, the CLI a user runs) on a free loopback port; its URL once it answers."""
    import socket
    import subprocess
    import sys
    import time
    import urllib.request

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    inspect = Path(sys.executable).with_name("inspect")
    server = subprocess.Popen([str(inspect), "view", "--log-dir", str(log_dir), "--host", "127.0.0.1",
                               "--port", str(port)], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    url = f"http://127.0.0.1:{port}/"
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        try:
            urllib.request.urlopen(url + "api/logs", timeout=2).read()
            return server, url
        except OSError:
            time.sleep(0.3)
    server.kill()
    pytest.fail("inspect view did not answer on loopback within 60 s")


def test_inspect_view_lists_our_logs_and_shows_a_sample_s_answer_and_whole_transcript(runs, browser, capsys,
                                                                                        tmp_path):
    """Two runs exported into one folder, served by Inspect's own `inspect view` and read in headless Chromium as a
    user would: both logs listed with their tokens; a KIEval sample shows the candidate's answer (not the evaluator's
    verdict, the last call), a duration, and a transcript whose model calls carry their system prompts."""
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait

    from judgeagent.protocols.kieval.prompts import INTERACTOR_SYSTEM

    for name in ("kieval", "teach2eval"):
        cli(["export", runs[name], "--format", "inspect", "--out", tmp_path], capsys)
    server, url = _serve_inspect_view(tmp_path)
    try:
        browser.get(url)
        wait = WebDriverWait(browser, 30)
        body = lambda: browser.find_element(By.TAG_NAME, "body").text  # noqa: E731
        wait.until(lambda _: "judgeagent/kieval" in body() and "judgeagent/teach2eval" in body())
        assert "2 rows" in body()
        browser.find_element(By.XPATH, "//span[text()='judgeagent/kieval']").click()
        wait.until(lambda _: browser.find_elements(By.CSS_SELECTOR, ".sample-answer"))
        episodes = lines(runs["kieval"] / "episodes.jsonl")
        first = next(e for e in episodes if e["episode"] == "item-0-q-strong")
        answers = [a.text for a in browser.find_elements(By.CSS_SELECTOR, ".sample-answer")]
        last_candidate = [t["content"] for t in first["turns"] if t["speaker"] == "candidate"][-1]
        assert last_candidate in answers and not any(a.startswith("{") for a in answers), answers
        browser.find_element(By.XPATH, "//*[text()='item-0-q-strong']").click()
        wait.until(lambda _: "MODEL CALL" in body())
        shown = body()
        assert "TRANSCRIPT" in shown and INTERACTOR_SYSTEM.split(".")[0] in shown
        assert "MODEL CALL (CANDIDATE)" in shown and "MODEL CALL (EVALUATOR)" in shown
    finally:
        server.kill()
        server.wait()
