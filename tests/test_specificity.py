"""Entity specificity (issue 29): stored with the graph, computed for old graphs, and what it keeps out of
seeds, cloze blanks and knowledge-gap rows on the demo corpus."""
from __future__ import annotations

import json

import numpy as np
import pyarrow.parquet as pq

from judgeagent import load_graph
from judgeagent.graph.specificity import GENERIC, name_rarity


def test_word_rarity_comes_from_general_english_frequencies():
    assert name_rarity("way") == 0.0 and name_rarity("first time") == 0.0  # the rarest word decides
    assert 0 < name_rarity("land") < 0.5 < name_rarity("crater") < 1.0
    assert name_rarity("heliopause") == 1.0 and name_rarity("ion engine") > 0.5  # not in the list: rare


def test_a_format_1_graph_loads_with_its_specificity_computed(demo_graph, tmp_path):
    from judgeagent import save_graph
    from judgeagent.graph.info import graph_info, render_info
    from judgeagent.graph.store import seal

    stored = demo_graph.specificity
    assert demo_graph.manifest["format_version"] == 2 and stored.dtype == np.float32
    assert stored.min() >= 0 and stored.max() <= 1
    old = save_graph(demo_graph, tmp_path / "v1")
    ents = pq.read_table(old / "entities.parquet")
    pq.write_table(ents.drop_columns(["specificity"]), old / "entities.parquet")
    manifest = json.loads((old / "manifest.json").read_text())
    manifest["format_version"] = 1
    (old / "manifest.json").unlink()
    seal(old, manifest)
    loaded = load_graph(old)
    assert "specificity" not in loaded.tables["entities"].column_names
    np.testing.assert_array_equal(loaded.specificity, stored)
    text = render_info(graph_info(loaded))
    assert "computed: a format-1 graph" in text
    generic = [e["name"] for e in graph_info(loaded)["specificity"]["most_mentioned_generic"]]
    assert "way" in generic and all(stored[demo_graph.entity_row[n]] < GENERIC for n in generic)
