"""Multiple-choice items from free-text ones, with distractors taken from the context graph.

Weak models cannot be graded on free text (Teach2Eval converts every task to multiple choice), and
a distractor is only useful if it is plausible: an entity of the same kind as the gold that occurs
near the question's own entities in the corpus. The graph knows both, so distractors come from it
rather than from a model: the gold's label (spaCy's, where the gold is a graph entity), the
neighbours of the question's entities ranked by similarity to the gold, then the gold's nearest
entities in the index. Numbers and years get numeric distractors; yes/no items get the two answers.
"""
from __future__ import annotations

import random
import re
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, NotRequired, TypedDict

import numpy as np

from .text import normalise_answer, numbers, token_f1

if TYPE_CHECKING:
    from ..benchmark import Item
    from ..embedding import Encoder
    from ..entities import EntityExtractor
    from ..graph.model import ContextGraph

LETTERS = "ABCDEFGH"
_OPPOSITE = {"yes": "no", "no": "yes", "agree": "disagree", "disagree": "agree", "true": "false", "false": "true"}
_MISSING = re.compile(r"\b(insufficient|not enough|cannot be determined|no information)\b", re.I)


@dataclass(frozen=True)
class Mcq:
    """A converted item (None when it could not be converted) and why, for the run's record."""

    item: Item | None
    source: str
    """`choice` (already multiple choice), `graph`, `numeric`, `yes_no`, or `skipped`."""
    reason: str = ""


class DistractorBuilder:
    """Builds options for the items of one benchmark from one graph (the encoder and spaCy loaded once)."""

    def __init__(self, graph: ContextGraph, encoder: Encoder | None = None, extractor: EntityExtractor | None = None,
                 *, count: int = 3, seed: int = 0) -> None:
        from ..config import EntityConfig
        from ..embedding import Encoder
        from ..entities import SpacyExtractor

        self.graph = graph
        self.encoder = encoder or Encoder(graph.manifest["embedding"]["model"])
        self.extractor = extractor or SpacyExtractor(EntityConfig(**graph.manifest["config"]["entities"]))
        self.count = count
        self.seed = seed
        entities = graph.tables["entities"]
        self.labels: list[str] = entities.column("label").to_pylist()
        self.surfaces: list[list[str]] = entities.column("surface_forms").to_pylist()

    def convert(self, items: Sequence[Item]) -> list[Mcq]:
        mentioned = self._question_entities(items)
        return [self._one(item, rows) for item, rows in zip(items, mentioned)]

    # --- one item ---------------------------------------------------------------------------------
    def _one(self, item: Item, question_rows: list[int]) -> Mcq:
        if item.is_choice:
            return Mcq(item, "choice")
        gold = item.gold.strip()
        norm = normalise_answer(gold)
        if norm in _OPPOSITE:  # a binary question has two options
            other = _OPPOSITE[norm]
            return self._finish(item, [other.capitalize() if gold[:1].isupper() else other], "yes_no")
        if _MISSING.search(gold):
            return Mcq(None, "skipped", "the gold says the information is missing: no options to build")
        if numbers(gold) and len(norm.split()) <= 3:
            wrong = _numeric_distractors(gold, self.count, self._rng(item))
            return self._finish(item, wrong, "numeric") if wrong else Mcq(None, "skipped", "no numeric distractors")
        wrong = self._graph_distractors(item, question_rows)
        if len(wrong) < self.count:
            return Mcq(None, "skipped", f"only {len(wrong)} distractors of the gold's kind in the graph")
        return self._finish(item, wrong, "graph")

    def _graph_distractors(self, item: Item, question_rows: list[int]) -> list[str]:
        graph = self.graph
        gold_vec = self.encoder.encode([item.gold])[0]
        label = self._gold_label(item.gold)
        near = set()
        for row in question_rows:
            near.update(graph.neighbours(int(row), kinds=("chunk",)).tolist())
        _, indexed = graph.entity_index.search(gold_vec[None, :].astype(np.float32), 50)
        pool = [r for r in near] + [int(r) for r in indexed[0] if r >= 0 and int(r) not in near]
        # Neighbours of the question's entities first (plausible in context), each group by similarity.
        sims = graph.entity_vectors[pool] @ gold_vec if pool else np.zeros(0)
        ranked = sorted(range(len(pool)), key=lambda i: (pool[i] not in near, -float(sims[i])))
        chosen: list[str] = []
        for i in ranked:
            row = pool[i]
            if not _same_kind(label, self.labels[row]):
                continue
            text = self._display(row, item.gold)
            if self._acceptable(text, item, chosen):
                chosen.append(text)
            if len(chosen) == self.count:
                break
        return chosen

    def _gold_label(self, gold: str) -> str | None:
        """The gold's kind: its graph entity's label, else spaCy's label for the gold itself; a
        capitalised gold is a name (`NAMED`: any named-entity label) even where spaCy saw a noun
        chunk; None (any kind) for the rest."""
        from ..entities import CONCEPT

        row = self.graph.entity_row.get(gold.strip().casefold())
        label = self.labels[row] if row is not None else None
        if label is None:
            (found,) = self.extractor.extract([gold])
            label = next((m.label for m in found if normalise_answer(m.surface) == normalise_answer(gold)), None)
        capitalised = gold.strip()[:1].isupper()
        if capitalised and label in (None, CONCEPT):
            return "NAMED"
        return label

    def _acceptable(self, text: str, item: Item, chosen: list[str]) -> bool:
        """Not the gold or an alias, no overlap with the gold, not in the question, not like another option."""
        norm = normalise_answer(text)
        golds = [normalise_answer(g) for g in item.golds]
        question = f" {normalise_answer(item.question)} "
        if not norm or len(norm) < 2 or f" {norm} " in question:
            return False
        if any(norm == g or norm in g or g in norm or token_f1(norm, g) > 0 for g in golds):
            return False
        return all(token_f1(norm, normalise_answer(c)) < 0.5 for c in chosen)

    def _display(self, row: int, gold: str) -> str:
        """The entity as the corpus writes it (its most frequent surface form), cased like the gold."""
        forms = self.surfaces[row] or [self.graph.entity_names[row]]
        text = forms[0]
        return text[0].upper() + text[1:] if gold[:1].isupper() and text[:1].islower() else text

    def _finish(self, item: Item, wrong: list[str], source: str) -> Mcq:
        options = [item.gold.strip(), *wrong]
        self._rng(item).shuffle(options)
        lettered = dict(zip(LETTERS, options))
        letter = next(k for k, v in lettered.items() if v == item.gold.strip())
        problem = check_options(lettered, letter, item.golds)
        if problem:
            return Mcq(None, "skipped", problem)
        meta = {**item.meta, "options_from": source}
        return Mcq(replace(item, options=lettered, gold_letter=letter, meta=meta), source)

    def _rng(self, item: Item) -> random.Random:
        return random.Random(f"{self.seed}:{item.qid}")  # per item: the same options whatever the batch

    def _question_entities(self, items: Sequence[Item]) -> list[list[int]]:
        found = self.extractor.extract([i.question for i in items])
        rows = self.graph.entity_row
        return [[rows[m.name] for m in mentions if m.name in rows] for mentions in found]


def _same_kind(gold_label: str | None, label: str) -> bool:
    from ..entities import CONCEPT

    if gold_label is None:
        return True
    if gold_label == "NAMED":
        return label != CONCEPT
    return label == gold_label


def check_options(options: dict[str, str], letter: str, golds: Sequence[str]) -> str:
    """'' when exactly one option is the gold and no two options are the same; else what is wrong."""
    norms = [normalise_answer(v) for v in options.values()]
    if len(set(norms)) != len(norms):
        return "two options are the same"
    gold_norms = {normalise_answer(g) for g in golds}
    matching = [k for k, v in options.items() if normalise_answer(v) in gold_norms]
    if matching != [letter]:
        return f"options matching the gold: {matching or 'none'}"
    return ""


def _numeric_distractors(gold: str, count: int, rng: random.Random) -> list[str]:
    """Nearby numbers written like the gold: a year stays a plausible year, a count stays positive."""
    match = re.search(r"\d[\d,]*(?:\.\d+)?", gold)
    if not match:
        return []
    raw = match.group(0)
    value = float(raw.replace(",", ""))
    decimals = len(raw.split(".")[1]) if "." in raw else 0
    is_year = decimals == 0 and 1000 <= value <= 2100 and "," not in raw
    # Small whole numbers (counts, ordinals, "19th century") move by a few; large ones by a factor.
    additive = is_year or (decimals == 0 and value <= 100)
    steps = ([1, 2, 3, 5, 10] if is_year else [1, 2, 3, 4, 5]) if additive else [0.5, 0.75, 1.25, 1.5, 2, 3]
    seen, out = {value}, []
    for step in rng.sample(steps, len(steps)):
        other = value + rng.choice([-1, 1]) * step if additive else value * step
        if decimals == 0:
            other = round(other)
        if other <= 0 or other in seen:
            continue
        seen.add(other)
        text = f"{other:,.{decimals}f}" if "," in raw else f"{other:.{decimals}f}"
        rest = gold[match.end():]
        if re.match(r"(st|nd|rd|th)\b", rest):  # "19th" -> "22nd", not "22th"
            rest = _ordinal(int(other)) + rest[2:]
        out.append(gold[:match.start()] + text + rest)
        if len(out) == count:
            break
    return out


def _ordinal(n: int) -> str:
    if 10 <= n % 100 <= 20:
        return "th"
    return {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")


class McqRecord(TypedDict):
    """A converted item as `make-mcq` writes it: a benchmark record the generic loader reads back."""

    qid: str
    question: str
    answer: str
    options: dict[str, str] | None
    answer_letter: str | None
    aliases: NotRequired[list[str]]
    supporting_doc_ids: NotRequired[list[str]]
    difficulty: NotRequired[str]
    question_type: NotRequired[str]
    passage: NotRequired[str]
    meta: NotRequired[dict[str, object]]


def to_record(item: Item) -> McqRecord:
    """The benchmark-file form of a converted item (what `make-mcq` writes)."""
    record = McqRecord(qid=item.qid, question=item.question, answer=item.gold, options=item.options,
                       answer_letter=item.gold_letter)
    if item.aliases:
        record["aliases"] = list(item.aliases)
    if item.supporting_doc_ids:
        record["supporting_doc_ids"] = list(item.supporting_doc_ids)
    # What a run reads beside the question (JudgeAgent's tiers weigh by difficulty): kept, not left behind.
    if item.difficulty:
        record["difficulty"] = item.difficulty
    if item.question_type:
        record["question_type"] = item.question_type
    if item.passage:
        record["passage"] = item.passage
    if item.meta:
        record["meta"] = item.meta
    return record
