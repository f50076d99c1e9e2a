"""Entity specificity: how much a node names one particular thing ("Ariane 5", "ion engine") rather than
a generic concept ("way", "land", "country"), measured from the graph's own tables and word frequencies.

specificity = (1 + idf) / 2              for a named entity (a spaCy NER label, or capitalised in most mentions)
            = rarity * (1 + idf) / 2     for a concept (a noun chunk)
- idf: log(N / n_docs) / log(N), 1 for an entity in one document of N, 0 for one in every document;
- rarity: of the name's rarest word in general English (wordfreq's Zipf scale, 0 to about 8):
  1 at Zipf <= 3 (about one in a million words: "crater", "apoptosis"), 0 at Zipf >= 6 ("way", "state").
A section label (below) is 0: it structures documents and names nothing ("RESULTS:", "Photograph:").
A named entity is never below 1/2; a concept is below 1/2 (GENERIC) when its words are common English,
whatever the corpus: in a small corpus nearly every concept is in one document, so idf alone cannot tell
"home" from "crater", and rarity decides; in a large one a rare word spread over many documents loses. The weights and bounds are the ones measured in docs/concepts.md.
"""
from __future__ import annotations

import math
import re
from collections.abc import Sequence
from functools import lru_cache
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from ..entities import CONCEPT
from ..errors import JudgeAgentError

GENERIC = 0.5
"""Below this an entity is a generic concept: no seed, no cloze blank, no knowledge-gap row; a weak hop."""
PROPER_SHARE = 0.5
"""A noun chunk capitalised in at least this share of its mentions is a name spaCy did not label."""
ZIPF_COMMON = 6.0
"""Zipf frequency at and above which a word is as common as "way" or "state": rarity 0."""
ZIPF_RARE = 3.0
"""Zipf frequency at and below which a word is rare (once per million words or less): rarity 1."""
SECTION_LABEL_SHARE = 0.5
"""An entity is a section label when it stands as one (graph/link.py `is_section_label`: first on a line,
before a colon) in at least this share of the documents that mention it,"""
SECTION_LABEL_DOCS = 3
"""and in at least this many documents. Measured on the medium splits, 500 documents each (docs/concepts.md):
PubMedQA 16 entities ("method" 225 of its 302 documents, "result", "objective", "background", "purpose",
"study design"), all of them named (specificity 0.54-0.87) before; MultiHop-RAG 8 ("photograph",
"related pages", "mandatory credit"); HotpotQA none. "aim" (13 of 73) and "patient" (14 of 234) stay:
mostly words of the text."""
_WORD = re.compile(r"[^\W\d_]{2,}")


def specificity(entities: pa.Table, mentions: pa.Table, n_documents: int,
                section_label_docs: np.ndarray | None = None) -> np.ndarray:
    """Per entity row, its specificity in [0, 1] (float32), from the entities and mentions tables and,
    where the build counted them (`Linker.section_label_docs`), the documents where each is a section label."""
    n = entities.num_rows
    if n == 0:
        return np.zeros(0, dtype=np.float32)
    n_docs = entities.column("n_docs").to_numpy().astype(np.float64)
    idf = np.ones(n) if n_documents <= 1 else np.clip(np.log(n_documents / np.maximum(n_docs, 1))
                                                      / math.log(n_documents), 0.0, 1.0)
    named = (np.asarray(entities.column("label").to_pylist()) != CONCEPT) | (
        capitalised_share(mentions, n) >= PROPER_SHARE)
    rarity = np.fromiter((name_rarity(name) for name in entities.column("name").to_pylist()), np.float64, n)
    out = np.where(named, 1.0, rarity) * (1.0 + idf) / 2
    if section_label_docs is not None:
        out[is_section_label(section_label_docs, n_docs)] = 0.0
    return np.round(out, 4).astype(np.float32)


def is_section_label(section_label_docs: np.ndarray, n_docs: np.ndarray) -> np.ndarray:
    """Per entity, whether it structures the corpus's documents rather than naming something in them."""
    labelled = np.asarray(section_label_docs, np.float64)
    return (labelled >= SECTION_LABEL_DOCS) & (labelled >= SECTION_LABEL_SHARE * np.maximum(n_docs, 1))


def capitalised_share(mentions: pa.Table, n_entities: int) -> np.ndarray:
    """Per entity, the share of its mention rows whose surface starts with a capital letter."""
    if mentions.num_rows == 0:
        return np.zeros(n_entities)
    ids = mentions.column("entity_id").to_numpy(zero_copy_only=False).astype(np.int64)
    first = pc.utf8_slice_codeunits(mentions.column("surface"), 0, 1)
    upper = pc.fill_null(pc.utf8_is_upper(first), False).to_numpy(zero_copy_only=False).astype(np.float64)
    total = np.bincount(ids, minlength=n_entities)
    return np.bincount(ids, weights=upper, minlength=n_entities) / np.maximum(total, 1)


def name_rarity(name: str) -> float:
    """How rare the name's rarest word is in general English, 0 (common) to 1 (rare or unknown)."""
    words = _WORD.findall(name.casefold())
    if not words:
        return 1.0
    zipf = min(_zipf(w) for w in words)
    return float(min(1.0, max(0.0, (ZIPF_COMMON - zipf) / (ZIPF_COMMON - ZIPF_RARE))))


def _zipf(word: str) -> float:
    """The word's Zipf frequency (log10 of uses per billion words); 0 when the list lacks it."""
    freq = _frequencies().get(word, 0.0)
    return math.log10(freq * 1e9) if freq > 0 else 0.0


@lru_cache(maxsize=1)
def _frequencies() -> dict[str, float]:
    """wordfreq's small English list (the words down to Zipf 3, ZIPF_RARE: one missing from it is rare
    either way) as word -> frequency, read from its cBpack file without importing wordfreq, whose
    import (ftfy, langcodes, regex) costs more than the whole specificity stage."""
    import gzip
    import importlib.util

    import msgpack

    spec = importlib.util.find_spec("wordfreq")
    if spec is None or not spec.submodule_search_locations:
        raise JudgeAgentError("entity specificity needs the wordfreq package (pip install wordfreq)")
    file = Path(spec.submodule_search_locations[0]) / "data" / "small_en.msgpack.gz"
    with gzip.open(file, "rb") as f:
        header, *bins = msgpack.load(f, raw=False)
    if header != {"format": "cB", "version": 1}:  # wordfreq's documented format (`read_cBpack`)
        raise JudgeAgentError(f"{file}: not a cBpack word list of version 1 (wordfreq changed its format)")
    # Bin i holds the words of frequency 10 ** (-i / 100): i centibels below 1.
    return {word: 10 ** (-i / 100) for i, words in enumerate(bins) for word in words}


def is_generic(values: Sequence[float] | np.ndarray) -> np.ndarray:
    return np.asarray(values) < GENERIC


def with_specificity(entities: pa.Table, mentions: pa.Table, n_documents: int,
                     section_label_docs: np.ndarray | None = None) -> pa.Table:
    """The entities table with its `specificity` column (format version 2)."""
    values = specificity(entities, mentions, n_documents, section_label_docs)
    return entities.append_column(pa.field("specificity", pa.float32()), pa.array(values, pa.float32()))
