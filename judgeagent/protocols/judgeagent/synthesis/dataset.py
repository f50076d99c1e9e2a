"""The synthesised set on disk: items.jsonl and items.parquet (our benchmark format, which the Hugging Face
`datasets` library also loads), card.json, and README.md (the dataset card)."""
from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq

from ....files import write_atomic, write_json_atomic, write_text_atomic
from ....report.mdtext import md_cell

_LIST = pa.list_(pa.string())
SCHEMA = pa.schema([
    ("qid", pa.string()), ("question", pa.string()), ("answer", pa.string()), ("aliases", _LIST),
    ("difficulty", pa.string()), ("question_type", pa.string()), ("generator", pa.string()),
    ("supporting_doc_ids", _LIST), ("source_chunk_ids", _LIST), ("path_chunk_ids", _LIST),
    ("path_entities", _LIST), ("path_doc_ids", _LIST), ("seed_entity", pa.string()), ("checks", _LIST),
    ("anchor_doc_id", pa.string()), ("nearest_item_similarity", pa.float64()),
    ("nearest_asked_similarity", pa.float64()),
])
FILES = ("items.jsonl", "items.parquet", "card.json", "README.md")


def write_dataset(out: Path, items: list[dict[str, Any]], card: dict[str, Any]) -> None:
    """Each file atomically; the card last, so that a card on disk always describes the items beside it."""
    table = pa.Table.from_pylist([{name: item.get(name) for name in SCHEMA.names} for item in items], schema=SCHEMA)
    write_text_atomic(out / "items.jsonl", "".join(json.dumps(i, ensure_ascii=False) + "\n" for i in items))
    write_atomic(out / "items.parquet", lambda tmp: pq.write_table(table, tmp))
    write_json_atomic(out / "card.json", card)
    write_text_atomic(out / "README.md", render_card(card))


def render_card(card: dict[str, Any]) -> str:
    """A Hugging Face dataset card: YAML front matter naming the data files, then what the set is."""
    cov, checks = card["coverage"], card["checks"]
    lines = [
        "---", "configs:", "- config_name: default", "  data_files:", "  - split: train", "    path: items.parquet",
        "task_categories:", "- question-answering", "---", "",
        f"# {card['name']}", "",
        f"{card['items']} questions synthesised by judgeagent {card['judgeagent']} from the knowledge graph "
        f"`{card['graph']['graph_id']}` ({card['graph']['documents']} documents), along knowledge paths of "
        f"{card['config']['hops']} hops, seed {card['config']['seed']}."
        + (f" Aimed at the weak spots of run `{card['from_run']['path']}`." if card.get("from_run") else ""),
        "", "Load it with `datasets.load_dataset(\"parquet\", data_files=\"items.parquet\")`, or evaluate a model on "
        "it with `judgeagent evaluate --benchmark items.jsonl`.", "",
        "## Items", "", "| difficulty | question type | generator | wanted | kept | candidates | rejected |",
        "|---|---|---|---|---|---|---|",
    ]
    for row in checks:
        lines.append(f"| {row['difficulty']} | {row['question_type']} | {row['generator']} | {row['wanted']} | "
                     f"{row['kept']} | {row['candidates']} | {sum(row['rejected'].values())} |")
    if card["items"] < card["config"]["n"]:
        lines += ["", f"**Short of the {card['config']['n']} asked for**: {card['stopped']}"]
    lines += ["", "## Rejected candidates, by reason", "", "| difficulty | reason | count |", "|---|---|---|"]
    for row in checks:
        lines += [f"| {row['difficulty']} | {md_cell(r)} | {n} |" for r, n in row["rejected"].items()]
    lines += [
        "", "## Coverage", "",
        f"- documents holding an item's gold: {cov['documents']} of the {cov['reachable_documents']} the sampled "
        f"paths reached ({cov['documents_share_of_reachable']:.0%}; spread {cov['spread']:.0%}: covered over the most "
        f"{card['items']} items could cover); {cov['graph_documents']} in the graph",
        f"- entities on the items' paths: {cov['entities']} of {cov['graph_entities']}",
        "", "## Checks every item passed", "",
        "- `gold_in_source_chunk` (easy): the gold is the span blanked out of its source chunk's sentence",
        "- `answer_not_in_question`: neither the gold nor all of its content words are in the question",
        "- `answer_length`, `not_copied_sentence`, `supported_by_path` (medium, hard): a short answer, a question "
        "that does not copy a path sentence holding the answer, an answer stated in the path text",
        "- `self_check` (medium, hard): the interviewer, given the path text, answers its own question with the gold",
        f"- `not_near_duplicate`: question embedding cosine below {card['config']['duplicate_similarity']} to "
        "every item kept before it",
    ]
    if card.get("from_run"):
        lines.append(f"- `not_in_run`: no question of the run repeated, and cosine below "
                     f"{card['config']['contamination_similarity']} to every question the run asked "
                     f"({card['from_run']['excluded']} candidates excluded)")
        lines += ["", "## Weak spots aimed at", "", "| document | failed | asked | failure rate | items |",
                  "|---|---|---|---|---|"]
        lines += [f"| {md_cell(w['doc_id'])} | {w['failed']} | {w['asked']} | {w['failure_rate']:.2f} | {w['items']} |"
                  for w in card["from_run"]["documents"]]
    models = card.get("models") or {}
    lines += ["", "## Provenance", "", f"- interviewer: {md_cell(json.dumps(models.get('interviewer')))}"
              if models else "- no model: cloze items only", f"- created: {card['created_at']}", ""]
    return "\n".join(lines)
