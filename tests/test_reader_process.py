"""The question reader's process (graph/reader.py, issue 50): the same paths as reading in this process, a reader
that dies or cannot start costs only speed, and "auto" starts it only after READER_AFTER questions."""
import json

import numpy as np
import pytest

from judgeagent.graph import sample as sample_module
from judgeagent.graph.reader import ReaderProcess
from judgeagent.graph.sample import READER_AFTER, PathSampler
from tests.conftest import DATA

QUESTIONS = [json.loads(line)["question"] for line in
             (DATA / "hotpotqa" / "small.questions.jsonl").read_text(encoding="utf-8").splitlines()[:24]]


def _first_paths(sampler: PathSampler, questions: list[str], seed: int = 0) -> list[dict]:
    """Each question's first path, every cache emptied before it (as a run's new batch finds them)."""
    out = []
    for i, q in enumerate(questions):
        for memory in (sampler._pools, sampler._draws, sampler._bests, sampler._batches, sampler._lists,
                       sampler._vectors, sampler._read):
            memory.clear()
        out.append(sampler.sample(q, hops=3, seed=seed + i).to_dict())
    return out


@pytest.fixture(scope="module")
def pair(hotpot_graph, extractor, encoder):
    here = PathSampler(hotpot_graph, extractor, encoder, reader="thread")
    there = PathSampler(hotpot_graph, extractor, encoder, reader="process")
    assert there.reader is not None and there.reader.wait(180), "the reader's process did not start"
    yield here, there
    there.close()


def test_the_reader_process_reads_the_same_paths(pair):
    here, there = pair
    served = there.reader.served
    assert _first_paths(there, QUESTIONS[:12]) == _first_paths(here, QUESTIONS[:12])
    assert here.reader is None
    assert there.reader.served > served + 12  # it read the questions (and their mentions without a node)


def test_the_child_encodes_and_extracts_as_this_process(pair, extractor, encoder):
    _, there = pair
    texts = QUESTIONS[:3] + ["Paris", "the longest river in Europe"]
    assert there.reader.extract(texts) == extractor.extract(texts)
    vectors = there.reader.encode(texts)
    assert vectors is not None and vectors.tobytes() == encoder.encode(texts).tobytes()
    assert there.reader.encode([]) is None


def test_a_reader_that_dies_costs_only_speed(hotpot_graph, extractor, encoder, pair):
    here, _ = pair
    sampler = PathSampler(hotpot_graph, extractor, encoder, reader="process")
    assert sampler.reader.wait(180)
    sampler.reader._proc.kill()
    sampler.reader._proc.wait()
    assert _first_paths(sampler, QUESTIONS[12:18]) == _first_paths(here, QUESTIONS[12:18])
    assert not sampler.reader.ready and sampler.reader.served == 0
    assert sampler.reader.extract(QUESTIONS[:1]) is None


def test_a_child_with_other_weights_is_never_asked_for_vectors(encoder):
    reader = ReaderProcess(None, encoder.name, lambda: "another model's fingerprint")
    try:
        assert reader.wait(180)
        assert reader.encode(["Paris"]) is None
        assert reader.extract(["Paris"]) is None  # asked to load no extractor
        assert reader.served == 0
    finally:
        reader.close()
    assert reader._proc.poll() is not None  # closed: the child is gone, not left behind


def test_no_child_can_start_and_the_sampler_reads_here(hotpot_graph, extractor, encoder, monkeypatch, tmp_path):
    monkeypatch.setattr("sys.executable", str(tmp_path / "no-python-here"))
    sampler = PathSampler(hotpot_graph, extractor, encoder, reader="process")
    assert sampler.reader is None
    here = PathSampler(hotpot_graph, extractor, encoder, reader="thread")
    assert _first_paths(sampler, QUESTIONS[18:20]) == _first_paths(here, QUESTIONS[18:20])


def test_auto_starts_the_reader_after_READER_AFTER_questions(hotpot_graph, extractor, encoder, monkeypatch):
    started = []
    monkeypatch.setattr(sample_module, "ReaderProcess", lambda *a: started.append(a) or _NoReader())
    sampler = PathSampler(hotpot_graph, extractor, encoder)
    assert sampler._reader_now(READER_AFTER - 2) is None  # as if READER_AFTER - 2 questions were read here
    _first_paths(sampler, QUESTIONS[:1])
    assert sampler.reader is None
    _first_paths(sampler, QUESTIONS[1:2])
    assert isinstance(sampler.reader, _NoReader) and len(started) == 1
    entities, name, fingerprint = started[0]
    assert entities == extractor.config and name == encoder.name and fingerprint() == encoder.fingerprint
    assert PathSampler(hotpot_graph, extractor, encoder, reader="thread")._reader_now(10 * READER_AFTER) is None


class _NoReader:
    """A reader that never answers: the paths are read here, as when the child is still starting."""

    served = 0

    def extract(self, texts: list[str]) -> None:
        return None

    def encode(self, texts: list[str]) -> np.ndarray | None:
        return None
