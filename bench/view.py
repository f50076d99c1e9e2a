"""The transcript viewer on a large run: file size, time to write it, and time to first render in headless Chromium.

    .venv/bin/python bench/view.py [--episodes 10000]

A scripted KIEval run (5 items, 3 rounds: 7-8 records an episode, as tests/test_kieval.py makes it) is copied into
a run of N episodes (ids renumbered, texts as they are), and the same for 100 episodes, so the ratios compare
the two in one run. Measured in Chromium (the suite's headless flags): the page's own clock when its first
rows are drawn (`performance.now()` at the end of the script, i.e. from navigation start: reading, parsing
the embedded JSON, drawing the first page of rows), then opening one transcript, a filter, and a first and
second text search. Targets: first render < 2 s for 10,000 episodes; a click < 100 ms.
"""
from __future__ import annotations

import argparse
import json
import shutil
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def seed_run(root: Path) -> Path:
    from judgeagent.protocols import run_protocol
    from tests import test_kieval

    return run_protocol("kieval", test_kieval.bench(), models=test_kieval.models(), config=test_kieval.OPTS,
                        run_dir=root / "seed", cache=False).folder


def scaled(seed: Path, n: int, out: Path) -> Path:
    """A copy of `seed` with `n` episodes: its episodes repeated, each copy renumbered."""
    rows = [json.loads(x) for x in (seed / "episodes.jsonl").read_text().splitlines()]
    records = [json.loads(x) for x in (seed / "records.jsonl").read_text().splitlines()]
    out.mkdir(parents=True)
    shutil.copy(seed / "manifest.json", out / "manifest.json")
    shutil.copy(seed / "summary.json", out / "summary.json")
    with open(out / "episodes.jsonl", "w") as e, open(out / "records.jsonl", "w") as r:
        for i in range(n):
            row = rows[i % len(rows)]
            new = f"{row['episode']}-{i:05d}"
            e.write(json.dumps({**row, "episode": new, "index": i, "qid": f"{row['qid']}-{i:05d}"}) + "\n")
            for rec in records:
                if rec["episode"] == row["episode"]:
                    step = rec["record_id"].split("/", 1)[1]
                    r.write(json.dumps({**rec, "episode": new, "record_id": f"{new}/{step}"}) + "\n")
    return out


def browser(profile: Path):
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = shutil.which("chromium")
    for flag in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--window-size=1300,900", f"--user-data-dir={profile}"):
        options.add_argument(flag)
    return webdriver.Chrome(service=Service(shutil.which("chromedriver")), options=options)


def measure(driver, page: Path) -> dict[str, float]:
    from selenium.webdriver.common.by import By

    driver.get(page.as_uri())
    first = float(driver.find_element(By.TAG_NAME, "body").get_attribute("data-ready"))
    clock = "const t = performance.now(); {}; return performance.now() - t;"
    rows = driver.find_elements(By.CSS_SELECTOR, "#rows tr")
    return {
        "first render ms": first, "rows drawn": len(rows),
        "open transcript ms": driver.execute_script(clock.format("select(5)")),
        "filter ms": driver.execute_script(clock.format(
            "state.filters.stop_reason = 'none'; refresh()")),
        "first search ms": driver.execute_script(clock.format("state.query = 'festival'; refresh()")),
        "second search ms": driver.execute_script(clock.format("state.query = 'jazz'; refresh()")),
        "shown after search": len(driver.execute_script("return state.shown")),
    }


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--episodes", type=int, default=10_000)
    args = parser.parse_args()
    from judgeagent.protocols import get_protocol
    from judgeagent.view.page import write_viewer

    kieval = get_protocol("kieval")
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        seed = seed_run(root)
        results = {}
        driver = browser(root / "profile")
        try:
            for n in (100, args.episodes):
                run = scaled(seed, n, root / f"run-{n}")
                start = time.perf_counter()
                page = write_viewer([(kieval, run)])
                written = time.perf_counter() - start
                records = sum(1 for _ in open(run / "records.jsonl"))
                results[n] = {"records": records, "records.jsonl MB": (run / "records.jsonl").stat().st_size / 1e6,
                              "viewer MB": page.stat().st_size / 1e6, "write s": written, **measure(driver, page)}
        finally:
            driver.quit()
    for n, r in results.items():
        print(f"{n} episodes: " + "  ".join(f"{k} {v:.3f}" if isinstance(v, float) else f"{k} {v}"
                                            for k, v in r.items()))
    small, large = results[100], results[args.episodes]
    print(f"RATIO first render {args.episodes} / 100 episodes: {large['first render ms'] / small['first render ms']:.2f} "
          f"(episodes x{args.episodes / 100:.0f}); viewer size / records.jsonl size: "
          f"{large['viewer MB'] / large['records.jsonl MB']:.2f}")


if __name__ == "__main__":
    main()
