"""LLM entity extraction: orchestration with a scripted server, then the real embedded model."""
import json
import re

from judgeagent import EntityConfig, GraphConfig, build_graph
from judgeagent.cli import main
from judgeagent.llm_entities import LLMExtractor
from judgeagent.models import ModelSpec, OpenAIChatModel
from judgeagent.models.testserver import FakeServer

TEXT = ("The Moon landing of Apollo 11 was watched by millions. Neil Armstrong stepped out first. "
        "Later, NASA sent more crews to the Moon.")


def capitalised_entities(request):
    """A scripted interviewer: capitalised phrases of each numbered sentence, plus one invented."""
    prompt = request["messages"][-1]["content"]
    sentences = re.findall(r"^\d+\. (.+)$", prompt, flags=re.M)
    data = []
    for s in sentences:
        names = re.findall(r"(?:The )?[A-Z][a-zA-Z]+(?: [A-Z0-9][a-zA-Z0-9]*)*", s)
        data.append({"text": s, "entity_list": [{"entity_text": n, "entity_type": "thing"} for n in names]})
    data[0]["entity_list"].append({"entity_text": "Atlantis", "entity_type": "PLACE"})
    return json.dumps({"labeled_data": data})


def extractor(server, **config):
    spec = ModelSpec(name="scripted", base_url=server.base_url, model="m", max_concurrency=4)
    return LLMExtractor(EntityConfig(extractor="llm", **config), OpenAIChatModel(spec))


def test_mentions_are_found_in_the_text_and_normalised():
    with FakeServer(reply=capitalised_entities) as server:
        x = extractor(server)
        (mentions,) = x.extract([TEXT])
    names = {m.name for m in mentions}
    assert {"moon", "apollo 11", "neil armstrong", "nasa"} <= names
    assert "atlantis" not in names and x.stats["unfound_mentions"] == 1
    for m in mentions:
        assert TEXT[m.start:m.end] == m.surface
    assert next(m for m in mentions if m.name == "nasa").label == "THING"


def test_long_chunks_are_sent_in_parts_and_failures_are_recorded():
    with FakeServer(reply=capitalised_entities) as server:
        x = extractor(server, max_sentences=1)
        x.extract([TEXT])
        assert server.counts["requests"] == 3
    with FakeServer(reply=lambda request: "not json") as server:
        x = extractor(server)
        assert x.extract([TEXT, "Mars is red."]) == [[], []]
    assert x.stats["failed_requests"] == 2 and x.describe()["extractor"] == "llm"


def test_build_graph_cli_with_llm_extractor(tmp_path, capsys):
    corpus = tmp_path / "c.jsonl"
    corpus.write_text(json.dumps({"doc_id": "a", "text": TEXT}) + "\n" +
                      json.dumps({"doc_id": "b", "text": "NASA built the Saturn V rocket for Apollo 11."}) + "\n")
    with FakeServer(reply=capitalised_entities) as server:
        config = tmp_path / "judgeagent.toml"
        config.write_text(f'[models.scripted]\nbase_url = "{server.base_url}"\nmodel = "m"\n')
        args = ["build-graph", str(corpus), "--out", str(tmp_path / "g"), "-q", "--extractor", "llm",
                "--interviewer", "scripted", "--config", str(config), "--cache-dir", str(tmp_path / "cache")]
        assert main(args) == 0
        sent = server.counts["requests"]
        assert main(args[:-2] + ["--cache-dir", str(tmp_path / "cache"), "--overwrite"]) == 0
        assert server.counts["requests"] == sent  # a rebuild is answered from the cache
    manifest = json.loads((tmp_path / "g" / "manifest.json").read_text())
    assert manifest["extractor"]["extractor"] == "llm" and manifest["config"]["entities"]["interviewer"] == "scripted"
    assert manifest["counts"]["entities"] >= 5


def test_llm_extractor_needs_a_model(tmp_path, capsys):
    corpus = tmp_path / "c.jsonl"
    corpus.write_text(json.dumps({"doc_id": "a", "text": TEXT}) + "\n")
    code = main(["build-graph", str(corpus), "--out", str(tmp_path / "g"), "-q", "--extractor", "llm"])
    assert code == 1 and "--extractor llm needs a model" in capsys.readouterr().err


def test_real_local_model_extracts_entities(tmp_path):
    corpus = tmp_path / "c.jsonl"
    corpus.write_text(json.dumps({"doc_id": "a", "text": "Neil Armstrong walked on the Moon in 1969."}) + "\n")
    config = GraphConfig(entities=EntityConfig(extractor="llm", interviewer="local"))
    graph = build_graph(corpus, tmp_path / "g", config)
    assert graph.manifest["extractor"]["requests"] == 1
    # A 135M model is weak: assert the machinery (entities found verbatim, linked), not its quality.
    text = graph.chunk_texts[0].casefold()
    for surfaces in graph.tables["entities"].column("surface_forms").to_pylist():
        assert all(s.casefold() in text for s in surfaces)
    mentions = graph.tables["mentions"].to_pylist()
    for m in mentions:  # every mention points at its surface form in its chunk
        assert graph.chunk_texts[graph.chunk_row[m["chunk_id"]]][m["start"]:m["end"]] == m["surface"]
