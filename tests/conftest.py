"""Shared fixtures: real data from ../shared/data, graphs built once per session with the real models."""
from __future__ import annotations

import os
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
DEMO = ROOT / "corpora" / "demo"


def _data_dir() -> Path:
    candidates = [os.environ.get("JUDGEAGENT_DATA", ""), ROOT.parent / "shared" / "data", "/work/shared/data"]
    for c in candidates:
        if c and (Path(c) / "multihop_rag").is_dir():
            return Path(c)
    raise RuntimeError("shared datasets not found: set JUDGEAGENT_DATA to the folder holding multihop_rag/")


DATA = _data_dir()


@pytest.fixture(scope="session")
def demo_graph(tmp_path_factory):
    from judgeagent import build_graph

    return build_graph(DEMO / "docs.jsonl", tmp_path_factory.mktemp("graphs") / "demo")


@pytest.fixture(scope="session")
def mhr_graph(tmp_path_factory):
    """MultiHop-RAG small (60 news articles), stored and loaded back: what users sample from."""
    from judgeagent import build_graph

    return build_graph(DATA / "multihop_rag" / "small.docs.jsonl", tmp_path_factory.mktemp("graphs") / "mhr")


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
