"""The HTML report in headless Chromium: plots and tables render, no console errors, a screenshot."""
import json

import pytest

from judgeagent.cli import main
from judgeagent.protocols.judgeagent.records import FeedbackEntry, as_records
from judgeagent.protocols.judgeagent.summary import summarise
from judgeagent.protocols.judgeagent.validate import validate
from tests.test_validate import make_run

from .browser import chromium


@pytest.fixture()
def browser(tmp_path):
    with chromium(tmp_path / 'profile', "1200,1600") as driver:
        yield driver


def test_report_renders_without_console_errors(tmp_path, mhr_graph, browser):
    roles, result = make_run(tmp_path, mhr_graph)
    try:
        validate(result.folder, registry=roles.registry(), cache=False)
    finally:
        roles.__exit__(None, None, None)
    assert main(["report", str(result.folder)]) == 0
    browser.get((result.folder / "report.html").as_uri())
    from selenium.webdriver.common.by import By

    svgs = browser.find_elements(By.TAG_NAME, "svg")
    assert len(svgs) == 3 and all(s.size["width"] > 100 and s.size["height"] > 100 for s in svgs)
    assert len(browser.find_elements(By.CSS_SELECTOR, "svg rect")) >= 4  # the bars were drawn
    rows = browser.find_elements(By.CSS_SELECTOR, "#accuracy tbody tr")
    records = [json.loads(x) for x in (result.folder / "records.jsonl").read_text().splitlines()]
    feedback = [json.loads(x) for x in (result.folder / "feedback.jsonl").read_text().splitlines()]
    recomputed = summarise(as_records(records), [FeedbackEntry.from_dict(f) for f in feedback])
    assert len(rows) == len(recomputed["accuracy"])
    shown = {r.find_elements(By.TAG_NAME, "td")[0].text: r.find_elements(By.TAG_NAME, "td")[3].text for r in rows}
    assert shown == {k: f"{100 * a['accuracy']:.1f}%" for k, a in recomputed["accuracy"].items()}
    assert browser.find_element(By.ID, "overall-score").text == f"{recomputed['overall_score']:.3f}"
    errors = [e for e in browser.get_log("browser") if e["level"] in ("SEVERE", "ERROR")]
    assert errors == []
    shot = tmp_path / "report.png"
    assert browser.save_screenshot(str(shot)) and shot.stat().st_size > 10_000
