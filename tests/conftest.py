"""Shared fixtures: real data from ../shared/data, graphs built once per session with the real models."""
from __future__ import annotations

import os
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
DEMO = ROOT / "corpora" / "demo"


def _data_dir() -> Path | None:
    candidates = [os.environ.get("JUDGEAGENT_DATA", ""), ROOT.parent / "shared" / "data", "/work/shared/data"]
    for c in candidates:
        if c and (Path(c) / "multihop_rag").is_dir():
            return Path(c)
    return None


# Under pytest-xdist (`make test-fast` runs two workers) each worker serves the embedded model on its own port:
# the port lock (judgeagent/models/local.py) would also part them, but fixed ports keep each worker's server apart.
_WORKER = os.environ.get("PYTEST_XDIST_WORKER", "")
if _WORKER.startswith("gw") and "JUDGEAGENT_LOCAL_PORT" not in os.environ:
    os.environ["JUDGEAGENT_LOCAL_PORT"] = str(8765 + 20 * int(_WORKER[2:] or 0))

# ... and its numeric libraries on its share of the cores (tests/worker_threads.py): set before torch, numpy or
# FAISS is imported, which read these once.
def _share_cores() -> None:
    from tests.worker_threads import cores, worker_threads

    os.environ.update(worker_threads(os.environ, cores()))


_share_cores()

FOUND = _data_dir()
DATA = FOUND or ROOT.parent / "shared" / "data"
"""The shared datasets (../shared/data, or $JUDGEAGENT_DATA). Where they are missing, the test modules that read
them are not collected (`collect_ignore` below) and the run says so in one line; the others run."""

collect_ignore = [] if FOUND else sorted(
    path.name for path in Path(__file__).parent.glob("test_*.py")
    if "DATA" in path.read_text(encoding="utf-8") or "demo_graph" in path.read_text(encoding="utf-8"))


def pytest_report_header(config):  # type: ignore[no-untyped-def]
    if FOUND is None:
        return (f"shared datasets not found: {len(collect_ignore)} test modules that read them are skipped; set "
                "JUDGEAGENT_DATA to the folder holding multihop_rag/ (../shared/data by default) to run them")
    return None


# --- one test run's graphs, shared by its workers (tests/graph_cache.py): each built once a run, not once a worker --

def pytest_configure(config):  # type: ignore[no-untyped-def]
    import tempfile

    from tests.graph_cache import ENV, RUN_ENV

    if hasattr(config, "workerinput") or os.environ.get(ENV) or os.environ.get(RUN_ENV):
        return  # a worker inherits the controller's folder; the edit loop's cache serves the same end
    os.environ[RUN_ENV] = config.stash[_RUN_GRAPHS] = tempfile.mkdtemp(prefix="judgeagent-test-graphs-")


def pytest_unconfigure(config):  # type: ignore[no-untyped-def]
    import shutil

    from tests.graph_cache import RUN_ENV

    folder = config.stash.get(_RUN_GRAPHS, None)
    if folder:
        shutil.rmtree(folder, ignore_errors=True)
        os.environ.pop(RUN_ENV, None)


_RUN_GRAPHS = pytest.StashKey[str]()


# --- markers (tests/README in docs/testing.md): `make test-fast` leaves out slow, model, browser and ray ---------

SLOW_FILE = Path(__file__).parent / "slow.txt"
"""Tests measured at 8 s or more on a quiet 2-core machine (scripts/slow_tests.py writes it from a timed run)."""


def _marks(item) -> set[str]:  # type: ignore[no-untyped-def]
    import inspect

    from tests.groups import is_ray, is_sandbox

    try:
        source = inspect.getsource(item.function)
    except (OSError, TypeError):
        source = ""
    fixtures = set(getattr(item, "fixturenames", ()))
    name = item.path.name
    marks = set()
    if is_sandbox(name, source):
        marks.add("sandbox")
    if is_ray(name, source):
        marks.add("ray")
    if "browser" in fixtures or "chromium(" in source:
        marks.add("browser")
    if "served" in fixtures or "local_server" in source or '"local"' in source or "llama_cpp_python" in fixtures:
        marks.add("model")
    return marks


def pytest_collection_modifyitems(config, items):  # type: ignore[no-untyped-def]
    slow = set(SLOW_FILE.read_text().split()) if SLOW_FILE.is_file() else set()
    for item in items:
        for mark in _marks(item):
            item.add_marker(getattr(pytest.mark, mark))
        if item.nodeid in slow or item.nodeid.split("[")[0] in slow:
            item.add_marker(pytest.mark.slow)


try:
    import xdist  # noqa: F401  (the dev extra's; without it the suite runs in one process and needs no groups)
except ImportError:
    pass
else:
    # Optional: xdist installed but turned off (`-p no:xdist`) leaves its hooks unknown, and pytest would stop with
    # an INTERNALERROR on a hook it cannot check.
    @pytest.hookimpl(optionalhook=True)
    def pytest_xdist_make_scheduler(config, log):  # type: ignore[no-untyped-def]
        """Whole groups to a worker (tests/groups.py), none waiting on the MultiHop-RAG graph's build
        (tests/schedule.py)."""
        from tests.schedule import ByGroup

        return ByGroup(config, log)


@pytest.fixture(scope="session")
def demo_graph(tmp_path_factory):
    from tests.graph_cache import build  # build_graph, or a copy kept by the last run of `make test-fast`

    return build(DEMO / "docs.jsonl", tmp_path_factory.mktemp("graphs") / "demo")


@pytest.fixture(scope="session")
def mhr_graph(tmp_path_factory):
    """MultiHop-RAG small (60 news articles), stored and loaded back: what users sample from."""
    from tests.graph_cache import build

    return build(DATA / "multihop_rag" / "small.docs.jsonl", tmp_path_factory.mktemp("graphs") / "mhr")


MHR_SLICE = 10
"""`mhr_slice_graph` holds the supporting articles of MultiHop-RAG small's first MHR_SLICE questions (the most any
test that takes it reads) and mhr-0001, the first article (the sample tests' "Betashares" questions)."""


@pytest.fixture(scope="session")
def mhr_slice_graph(tmp_path_factory):
    """A MultiHop-RAG graph of 17 of the small split's 60 articles (a quarter of its text): for the tests that need a
    real news graph holding their questions' evidence, not the whole split's counts. Its build is a quarter of
    `mhr_graph`'s (about 100 CPU s of spaCy and MiniLM), which was the critical path of `make test-fast` (#47). The
    articles are written to a file in the test run's own folder, in the split's order, and built like any corpus."""
    from tests.graph_cache import build

    return build(mhr_slice_docs(tmp_path_factory.mktemp("corpora")), tmp_path_factory.mktemp("graphs") / "mhr-slice")


def mhr_slice_docs(folder: Path) -> Path:
    """The slice's articles, written under `folder` in the split's order (tests/make_report_reference.py builds
    the same graph)."""
    import json

    split = DATA / "multihop_rag"
    questions = [json.loads(line) for line in (split / "small.questions.jsonl").read_text(encoding="utf-8").splitlines()]
    wanted = {d for q in questions[:MHR_SLICE] for d in q["supporting_doc_ids"]} | {"mhr-0001"}
    lines = [line for line in (split / "small.docs.jsonl").read_text(encoding="utf-8").splitlines()
             if json.loads(line)["doc_id"] in wanted]
    (folder / "multihop_rag").mkdir()
    docs = folder / "multihop_rag" / f"small-first{MHR_SLICE}.docs.jsonl"  # its own name in the graph cache
    docs.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return docs


@pytest.fixture(scope="session")
def hotpot_graph(tmp_path_factory):
    """HotpotQA small: 60 Wikipedia paragraphs, one chunk each (built once for every module that uses it)."""
    from tests.graph_cache import build

    return build(DATA / "hotpotqa" / "small.docs.jsonl", tmp_path_factory.mktemp("graphs") / "hotpot")


@pytest.fixture(scope="session")
def extractor():
    from judgeagent.entities import SpacyExtractor

    return SpacyExtractor()


@pytest.fixture(scope="session")
def encoder():
    from judgeagent.embedding import Encoder

    return Encoder()


@pytest.fixture
def read_only():
    """`read_only(folder)`: the folder takes no writes for the rest of the test, for root too.

    Root writes through permission bits, so as root the folder is bind-mounted read-only over itself (what a
    read-only share or mount is); as anyone else its bits are cleared. Skipped where neither can be done."""
    import stat
    import subprocess

    undo: list[list[str] | tuple[Path, int]] = []

    def make(folder: Path) -> Path:
        if os.geteuid() != 0:
            for path in [folder, *folder.rglob("*")]:
                undo.append((path, path.stat().st_mode))
                path.chmod(path.stat().st_mode & ~(stat.S_IWUSR | stat.S_IWGRP | stat.S_IWOTH))
            return folder
        for command in (["mount", "--bind", str(folder), str(folder)],
                        ["mount", "-o", "remount,bind,ro", str(folder)]):
            done = subprocess.run(command, capture_output=True, text=True, check=False)
            if done.returncode != 0:
                pytest.skip(f"a read-only folder as root needs a read-only bind mount, and {' '.join(command[:3])} "
                            f"was refused: {done.stderr.strip()}")
            if command[1] == "--bind":
                undo.append(["umount", str(folder)])
        return folder

    yield make
    for step in reversed(undo):
        if isinstance(step, list):
            subprocess.run(step, check=True)
        else:
            step[0].chmod(step[1])


@pytest.fixture
def small_disk(tmp_path):
    """A folder on a 2 MiB file system of its own (tmpfs, root only), to fill up; skipped where it cannot be mounted."""
    import subprocess

    folder = tmp_path / "small"
    folder.mkdir()
    done = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=2m", "tmpfs", str(folder)], capture_output=True,
                          text=True, check=False)
    if done.returncode != 0:
        pytest.skip(f"a full disk is simulated with a small tmpfs, and mounting one was refused: {done.stderr.strip()}")
    yield folder
    subprocess.run(["umount", str(folder)], check=True)
