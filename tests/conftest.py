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
