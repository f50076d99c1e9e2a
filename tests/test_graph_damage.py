"""A damaged or hand-edited graph folder is refused in one line naming the file and the fix (#49)."""
import json
import shutil

import numpy as np
import pyarrow.parquet as pq
import pytest

from judgeagent import JudgeAgentError, load_graph
from judgeagent.cli.main import main
from judgeagent.graph import check
from judgeagent.graph.store import seal

FIX = "rebuild it with build-graph --overwrite"


@pytest.fixture
def copy(demo_graph, tmp_path):
    """A fresh copy of the demo graph (12 documents) to damage."""
    return shutil.copytree(demo_graph.path, tmp_path / "g")


def graph_info_error(folder, capsys):
    code = main(["graph-info", str(folder)])
    out, err = capsys.readouterr()
    assert code == 1 and out == "" and len(err.strip().splitlines()) == 1 and "Traceback" not in err
    return err.strip()


def reseal(folder):
    """What a hand edit that also rewrites the checksums leaves: files the manifest vouches for."""
    manifest = json.loads((folder / "manifest.json").read_text())
    (folder / "manifest.json").unlink()
    seal(folder, manifest)


def test_truncated_and_missing_files_name_the_file_and_the_fix(copy, capsys):
    data = (copy / "chunks.parquet").read_bytes()
    (copy / "chunks.parquet").write_bytes(data[: len(data) // 2])
    err = graph_info_error(copy, capsys)
    assert err.startswith(f"error: graph {copy} is damaged: chunks.parquet has {len(data) // 2:,} bytes where "
                          f"{len(data):,} were written") and err.endswith(FIX)
    (copy / "entities.faiss").unlink()
    (copy / "chunks.parquet").write_bytes(data)
    assert graph_info_error(copy, capsys) == f"error: graph {copy} is incomplete: entities.faiss is missing; {FIX}"


def test_a_manifest_without_config_checksums_or_of_another_version_is_refused(copy, capsys):
    original = json.loads((copy / "manifest.json").read_text())
    for edit, says in ((lambda m: m.pop("config"), "manifest.json has no dict at 'config'"),
                       (lambda m: m["config"]["index"].pop("hnsw_ef_search"), "at 'config.index.hnsw_ef_search'"),
                       (lambda m: m.pop("files"), "manifest.json has no dict at 'files'"),
                       (lambda m: m["files"].pop("edges.parquet"), "records no checksum for edges.parquet"),
                       (lambda m: m["files"]["mentions.parquet"].pop("sha256"), "no checksum for mentions.parquet"),
                       (lambda m: m["files"].update({"notes.txt": "mine"}), "records no checksum for notes.txt"),
                       (lambda m: m.update(format_version=3), "has format version 3; this judgeagent reads version 2")):
        manifest = json.loads(json.dumps(original))
        edit(manifest)
        (copy / "manifest.json").write_text(json.dumps(manifest))
        err = graph_info_error(copy, capsys)
        assert says in err and err.endswith(FIX), err


def test_resealed_files_with_a_dropped_column_or_swapped_indexes_are_refused(copy, capsys):
    table = pq.read_table(copy / "entities.parquet")
    pq.write_table(table.drop_columns(["doc_ids"]), copy / "entities.parquet")
    reseal(copy)
    assert graph_info_error(copy, capsys) == (f"error: graph {copy} is damaged: entities.parquet has no column "
                                              f"'doc_ids'; {FIX}")
    pq.write_table(table.set_column(1, "name", table.column("n_docs")), copy / "entities.parquet")
    reseal(copy)
    assert "entities.parquet column 'name' holds int32, not text" in graph_info_error(copy, capsys)
    pq.write_table(table, copy / "entities.parquet")
    (copy / "entities.faiss").rename(copy / "swap")
    (copy / "chunks.faiss").rename(copy / "entities.faiss")
    (copy / "swap").rename(copy / "chunks.faiss")
    reseal(copy)
    assert graph_info_error(copy, capsys) == (f"error: graph {copy} is damaged: entities.faiss indexes 42 vectors of "
                                              f"384 dimensions where entities.parquet and the manifest want 568 of "
                                              f"384; {FIX}")


def test_resealed_garbage_and_wrong_vectors_are_one_line(demo_graph, copy, capsys):
    (copy / "edges.parquet").write_bytes(b"PAR1 not a parquet file PAR1")
    reseal(copy)
    err = graph_info_error(copy, capsys)
    assert err.startswith(f"error: graph {copy} is damaged: edges.parquet cannot be read (") and err.endswith(FIX)
    shutil.copy(demo_graph.path / "edges.parquet", copy / "edges.parquet")
    vectors = np.load(copy / "chunk_vectors.npy")
    np.save(copy / "chunk_vectors.npy", vectors[:-1])
    reseal(copy)
    assert "chunk_vectors.npy holds float32 [41, 384] where chunks.parquet and the manifest want float32 [42, 384]" \
        in graph_info_error(copy, capsys)
    np.save(copy / "chunk_vectors.npy", vectors[::-1].copy())  # the right shape, rows out of order
    reseal(copy)
    assert graph_info_error(copy, capsys) == (f"error: graph {copy} is damaged: chunks.faiss does not index "
                                              f"chunk_vectors.npy's vectors (its first or last entry differs); {FIX}")


def test_large_files_are_checked_by_size_and_blocks(demo_graph, tmp_path, monkeypatch):
    """Above FULL_HASH_MAX a file is not hashed whole on load: damage in its first, middle or last MiB is caught."""
    from judgeagent import save_graph

    monkeypatch.setattr(check, "FULL_HASH_MAX", 100_000)  # the two 872 KB entity files count as large
    monkeypatch.setattr(check, "BLOCK", 4096)
    folder = save_graph(demo_graph, tmp_path / "g")
    files = json.loads((folder / "manifest.json").read_text())["files"]
    assert "blocks_sha256" in files["entity_vectors.npy"] and "blocks_sha256" not in files["chunks.parquet"]
    load_graph(folder)
    size = files["entity_vectors.npy"]["bytes"]
    with open(folder / "entity_vectors.npy", "r+b") as f:
        f.seek(size // 4)  # between the blocks: the price of not hashing it whole, as check.py says
        f.write(b"\xff\xff\xff\xff")
    load_graph(folder)
    with open(folder / "entity_vectors.npy", "r+b") as f:
        f.seek(size // 2)
        f.write(b"\xff\xff\xff\xff")
    with pytest.raises(JudgeAgentError, match="entity_vectors.npy does not match its checksum"):
        load_graph(folder)


def test_a_full_disk_leaves_no_half_graph_and_one_line(demo_graph, small_disk, capsys):
    from judgeagent import save_graph

    (small_disk / "filler").write_bytes(b"x" * 1_000_000)  # the demo graph needs 1.9 MB of the 2 MiB
    with pytest.raises(JudgeAgentError) as caught:
        save_graph(demo_graph, small_disk / "g")
    assert str(caught.value).startswith(f"cannot write {small_disk / 'g'}") and str(caught.value).endswith(
        "No space left on device; the disk is full: free some space there, then run build-graph again")
    assert sorted(p.name for p in small_disk.iterdir()) == ["filler"]
