"""`build_graph(engine=RayConfig(...))` on a real local Ray cluster: the same graph as the local engine."""
import numpy as np
import pytest

from judgeagent import GraphConfig, JudgeAgentError, build_graph, load_graph
from judgeagent.config import RayConfig
from tests.conftest import DATA

ray = pytest.importorskip("ray")  # the `ray` extra; `make test` installs it

SMALL = DATA / "multihop_rag" / "small.docs.jsonl"


@pytest.fixture(scope="module")
def cluster():
    """One local cluster for the module: starting Ray costs seconds, a build joins it."""
    ray.init(num_cpus=5, include_dashboard=False, object_store_memory=512 * 1024 * 1024,
             log_to_driver=False, configure_logging=False)
    yield
    ray.shutdown()


def test_ray_engine_builds_the_same_graph_as_the_local_engine(cluster, mhr_graph, tmp_path):
    graph = build_graph(SMALL, tmp_path / "ray", GraphConfig(), engine=RayConfig(workers=2, block_docs=8))
    stored = load_graph(tmp_path / "ray")
    for table in ("documents", "chunks", "entities", "mentions", "edges"):
        assert stored.tables[table].equals(mhr_graph.tables[table]), table
    np.testing.assert_allclose(stored.chunk_vectors, mhr_graph.chunk_vectors, atol=1e-5)
    np.testing.assert_allclose(stored.entity_vectors, mhr_graph.entity_vectors, atol=1e-5)
    assert graph.manifest["counts"] == mhr_graph.manifest["counts"]
    assert graph.manifest["config"] == mhr_graph.manifest["config"]
    assert "document stages (ray)" in graph.manifest["timings"]


def test_a_corpus_error_in_one_block_fails_the_build_with_file_and_line(cluster, tmp_path):
    lines = SMALL.read_text().splitlines()[:20]
    lines[13] = '{"doc_id": "broken", "text": '  # line 14, in the second block of 8
    corpus = tmp_path / "docs.jsonl"
    corpus.write_text("\n".join(lines) + "\n")
    with pytest.raises(JudgeAgentError, match=rf"^{corpus}:14: malformed JSON"):
        build_graph(corpus, tmp_path / "out", GraphConfig(), engine=RayConfig(workers=2, block_docs=8))
    assert not (tmp_path / "out").exists()
    assert [p.name for p in tmp_path.iterdir()] == ["docs.jsonl"]  # no partial graph, no temporary folder
