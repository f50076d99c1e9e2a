"""The paper's LLM entity extraction (its Prompt 4, in our words), normalised like the spaCy extractor."""
from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

from pydantic import BaseModel, Field

from .config import EntityConfig
from .entities import CONCEPT, Mention, _trim, load_spacy, normalise
from .errors import JudgeAgentError

PROMPT = """Label the entities in each numbered sentence below: people, organisations, places, \
events, works, products, and the key concepts or technical terms a reader would need to know. \
Use each entity's exact wording from its sentence. Leave out pronouns, dates and bare numbers.

Return one item per sentence, in order, with the sentence's text and its entities \
(each with its text and a short type such as PERSON, ORG, PLACE, EVENT, CONCEPT).

Sentences:
{sentences}"""


class LabeledEntity(BaseModel):
    entity_text: str
    entity_type: str = CONCEPT


class LabeledSentence(BaseModel):
    text: str = ""
    entity_list: list[LabeledEntity] = Field(default_factory=list)


class Labels(BaseModel):
    labeled_data: list[LabeledSentence]


class LLMExtractor:
    """Entities from the interviewer model; mentions not found verbatim in the text are dropped."""

    def __init__(self, config: EntityConfig, model: Any) -> None:
        self.config = config
        self.model = model
        self.nlp = load_spacy(config.spacy_model)  # sentences for the prompt; lemmas for node identity
        self.stats = {"requests": 0, "failed_requests": 0, "unfound_mentions": 0}

    def describe(self) -> dict[str, Any]:
        return {"extractor": "llm", "model": getattr(self.model, "name", "?"), **self.stats}

    def extract(self, texts: Sequence[str], progress: Callable[[int], None] | None = None) -> list[list[Mention]]:
        return asyncio.run(self.aextract(texts, progress))

    async def aextract(self, texts: Sequence[str],
                       progress: Callable[[int], None] | None = None) -> list[list[Mention]]:
        async def one(text: str) -> list[Mention]:
            found = await self._chunk(text)
            if progress:
                progress(1)
            return found

        try:
            return list(await asyncio.gather(*(one(t) for t in texts)))
        finally:
            close = getattr(self.model, "aclose", None)
            if close:
                await close()

    async def _chunk(self, text: str) -> list[Mention]:
        doc = self.nlp(text)
        sentences = [s.text.strip() for s in doc.sents if s.text.strip()]
        step = self.config.max_sentences
        labels: list[LabeledEntity] = []
        for start in range(0, len(sentences), step):
            labels.extend(await self._label(sentences[start:start + step]))
        return self._mentions(text, labels)

    async def _label(self, sentences: list[str]) -> list[LabeledEntity]:
        numbered = "\n".join(f"{i}. {s}" for i, s in enumerate(sentences, start=1))
        self.stats["requests"] += 1
        result = await self.model.complete([{"role": "user", "content": PROMPT.format(sentences=numbered)}],
                                           schema=Labels)
        if not result.ok or result.parsed is None:
            self.stats["failed_requests"] += 1  # recorded, and the chunk keeps what other parts found
            return []
        return [e for s in result.parsed.labeled_data for e in s.entity_list]

    def _mentions(self, text: str, labels: list[LabeledEntity]) -> list[Mention]:
        folded = text.casefold()
        spans, found = [], {}
        for label in labels:
            surface = " ".join(label.entity_text.split())
            at = folded.find(surface.casefold()) if surface else -1
            if at < 0:  # not in the text: an invented or reworded entity is not a node of this chunk
                self.stats["unfound_mentions"] += 1
                continue
            spans.append((at, at + len(surface), label.entity_type.upper() or CONCEPT))
        for (start, end, kind), parsed in zip(spans, self.nlp.pipe(text[s:e] for s, e, _ in spans)):
            name = normalise(_trim(list(parsed)))
            if kind in self.config.exclude_labels or name is None:
                continue
            found.setdefault((name, text[start:end]), Mention(name, text[start:end], kind, start, end))
        return list(found.values())


@contextlib.contextmanager
def open_llm_extractor(config: EntityConfig, registry: Any = None, cache_dir: str | Path | None = None,
                       cache: bool = True) -> Iterator[LLMExtractor]:
    """An extractor over `config.interviewer`, its model (and local server) open for the block."""
    if not config.interviewer:
        raise JudgeAgentError("--extractor llm needs a model: --interviewer NAME (a configured name, local, "
                              "or provider:model)")
    from .models import open_models

    with open_models(config.interviewer, registry=registry, cache_dir=cache_dir, cache=cache) as models:
        yield LLMExtractor(config, models.interviewer)
