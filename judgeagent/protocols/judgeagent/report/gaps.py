"""Report sections from `judgeagent.protocols.judgeagent.validity`: weak documents and entities ranked by failure rate, and
the ability estimate with its interval per batch."""
from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from ....report.mdtext import md_cell
from ....runs import Manifest
from ..records import QuestionRecord

if TYPE_CHECKING:
    from ..validity.gaps import Weak
    from ..validity.irt import Ability

TOP = 15
TITLES = 2
"""Document titles shown per entity: the ones it is mentioned in, first in corpus order."""


@dataclass(frozen=True)
class Names:
    """What the run's graph says of the names in its records: each entity's kind (`CONCEPT` or a spaCy
    label), specificity and documents, and each document's title."""

    entities: dict[str, tuple[str, float, list[str]]]
    titles: dict[str, str]

    def generic(self, name: str) -> bool:
        from ....graph.specificity import GENERIC

        found = self.entities.get(name)
        return found is not None and found[1] < GENERIC

    def kind(self, name: str) -> str:
        found = self.entities.get(name)
        return "" if found is None else "concept" if found[0] == "CONCEPT" else found[0]

    def documents(self, name: str) -> str:
        """The titles of the first TITLES documents that mention the entity ("; " between them)."""
        docs = (self.entities.get(name) or ("", 0.0, []))[2]
        shown = [self.title(d) for d in docs[:TITLES]]
        return "; ".join(shown) + (f" (+{len(docs) - TITLES})" if len(docs) > TITLES else "")

    def title(self, doc_id: str) -> str:
        return self.titles.get(doc_id) or doc_id


def graph_names(manifest: Manifest) -> Names | None:
    """The run's graph's names, read from its tables (no vectors, no indexes); None when the run had no
    graph or it is gone or rebuilt since (its id differs): the report then lists bare names."""
    import pyarrow.parquet as pq

    from ....errors import JudgeAgentError
    from ....graph.specificity import specificity
    from ....graph.store import read_manifest

    recorded = manifest.get("graph") or {}
    if not recorded.get("path"):
        return None
    folder = Path(recorded["path"])
    try:
        if read_manifest(folder).get("graph_id") != recorded.get("graph_id"):
            return None
        ents = pq.read_table(folder / "entities.parquet")
        docs = pq.read_table(folder / "documents.parquet", columns=["doc_id", "title"])
        spec = (ents.column("specificity").to_numpy() if "specificity" in ents.column_names else
                specificity(ents, pq.read_table(folder / "mentions.parquet", columns=["entity_id", "surface"]),
                            docs.num_rows))
    except (JudgeAgentError, OSError):
        return None
    rows = zip(ents.column("name").to_pylist(), ents.column("label").to_pylist(), spec.tolist(),
               ents.column("doc_ids").to_pylist())
    return Names({name: (label, float(s), d) for name, label, s, d in rows},
                 dict(zip(docs.column("doc_id").to_pylist(), docs.column("title").to_pylist())))


@dataclass(frozen=True)
class Gap:
    """A knowledge-gap row: an entity behind failed questions, with what the graph says of it."""

    name: str
    failed: int
    kind: str = ""
    documents: str = ""


def knowledge_gaps(records: Sequence[QuestionRecord], names: Names | None, top: int = TOP) -> list[Gap]:
    """Entities most often behind questions the target failed: on the knowledge path of a failed
    extension question, or named by a failed base question and its gold. Generic concepts are left out
    (issue 29: "land" is no gap a trainer can act on)."""
    counts: Counter[str] = Counter()
    for r in records:
        if not r.correct:
            counts.update(set(r.path_entities) | set(r.entities or []))
    # Ties by name: a record's entities are a set, whose order changes with each process's string hashing, and
    # `most_common` would keep that order (and so which tied entity makes the top).
    ranked = sorted(counts.items(), key=lambda nc: (-nc[1], nc[0]))
    kept = [(n, c) for n, c in ranked if names is None or not names.generic(n)][:top]
    if names is None:
        return [Gap(n, c) for n, c in kept]
    return [Gap(n, c, names.kind(n), names.documents(n)) for n, c in kept]


@dataclass(frozen=True)
class GapSections:
    """Weak documents and entities (`validity.gaps`, generic concepts left out), ability overall and per batch
    (`validity.irt`), and the graph's names (None without the run's graph)."""

    weak_documents: list[Weak]
    weak_entities: list[Weak]
    ability: Ability
    batch_ability: dict[int, Ability]
    names: Names | None


def gap_sections(records: Sequence[QuestionRecord], names: Names | None = None) -> GapSections:
    """The data: weak documents and entities, ability overall and per batch."""
    from ..validity import run_ability, weak_documents, weak_entities

    ability = run_ability(records)
    entities = [w for w in weak_entities(records) if names is None or not names.generic(w.name)]
    return GapSections(weak_documents(records)[:TOP], entities[:TOP], ability["overall"], ability["batches"], names)


def ability_markdown(d: GapSections) -> list[str]:
    a = d.ability
    low, high = a.interval
    line = (f"**Ability** (Rasch, EAP over all {a.n} questions, default level difficulties "
            f"easy -1, medium 0, hard +1): {a.theta:+.2f} ± {a.se:.2f} (95% interval [{low:+.2f}, {high:+.2f}]).")
    return ["", line, ""] + [f"- batch {b}: ability {x.theta:+.2f} ± {x.se:.2f} over {x.n} questions"
                   for b, x in d.batch_ability.items()]


def weak_markdown(d: GapSections) -> list[str]:
    intro = ("Documents and entities ranked by failure rate (questions are spread evenly over the documents "
             "and entities of their knowledge path; base questions count for the entities they name):")
    out = ["", intro, ""]
    names = d.names
    for title, rows in (("document", d.weak_documents), ("entity", d.weak_entities)):
        if not rows:
            out += [f"- (no {title} was on a question's path)", ""]
            continue
        if names is None:
            out += [f"| {title} | questions | failed | failure rate |", "|---|---|---|---|"]
            out += [f"| {md_cell(w.name)} | {w.asked:.1f} | {w.failed:.1f} | {100 * w.rate:.0f}% |" for w in rows]
        elif title == "document":
            out += ["| document | title | questions | failed | failure rate |", "|---|---|---|---|---|"]
            out += [f"| {md_cell(w.name)} | {md_cell(names.title(w.name))} | {w.asked:.1f} | {w.failed:.1f} | "
                    f"{100 * w.rate:.0f}% |" for w in rows]
        else:
            out += ["| entity | kind | in documents | questions | failed | failure rate |", "|---|---|---|---|---|---|"]
            out += [f"| {md_cell(w.name)} | {md_cell(names.kind(w.name))} | {md_cell(names.documents(w.name))} | "
                    f"{w.asked:.1f} | {w.failed:.1f} | {100 * w.rate:.0f}% |" for w in rows]
        out.append("")
    return out


def gaps_markdown(gaps: Sequence[Gap], named: bool) -> list[str]:
    """The knowledge-gaps section's rows: a table with kinds and document titles when the graph was read."""
    if not gaps:
        return ["- (no failed question named a specific graph entity)"]
    if not named:
        return [f"- {md_cell(g.name)} ({g.failed})" for g in gaps]
    return (["| entity | kind | in documents | failed questions |", "|---|---|---|---|"]
            + [f"| {md_cell(g.name)} | {md_cell(g.kind)} | {md_cell(g.documents)} | {g.failed} |" for g in gaps])
