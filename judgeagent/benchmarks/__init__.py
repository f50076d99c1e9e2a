"""Loaders for benchmarks in their publishers' native formats (`--benchmark FORMAT:PATH`).

Each format reads a file or a folder as its publisher ships it and gives checked `Item`s, with subjects,
levels and difficulties in `Item.meta` (and `Item.difficulty` where the benchmark has tiers). The format is
named, never guessed: a plain path keeps the generic loader of `judgeagent.benchmark` (jsonl/json/csv/parquet
with `--field` mappings), so adding a format can never change how an existing file is read.

`FORMAT:PATH#SUBSET` passes a subset where the format has several (IWSLT's test year, a Hugging Face split).
`FORMAT:hf:SOURCE` reads the records through Hugging Face `datasets` (a hub id, or a local parquet/arrow file
or `save_to_disk` folder) and converts them with FORMAT's rules; `hf:SOURCE` alone uses the generic fields.
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from ..errors import JudgeAgentError
from .formats import FORMATS, Loaded

__all__ = ["FORMATS", "Loaded", "Spec", "is_spec", "load_native", "parse_spec"]


@dataclass(frozen=True)
class Spec:
    """A parsed `FORMAT:PATH[#SUBSET]` (`hf` true when PATH was `hf:SOURCE`)."""

    format: str
    path: str
    subset: str | None = None
    hf: bool = False


def is_spec(text: str) -> bool:
    """True when `text` starts with a format name (`mmlu:...`, `hf:...`, or an unknown `word:`, refused with
    the known names); a path that exists as given is never one, nor a one-letter drive (`C:`)."""
    head, sep, _ = text.partition(":")
    return bool(sep) and len(head) > 1 and head.replace("_", "").isalnum() and not Path(text).exists()


def parse_spec(text: str) -> Spec:
    head, _, rest = text.partition(":")
    if head == "hf":
        head, rest = "generic", f"hf:{rest}"
    if head not in FORMATS:
        raise JudgeAgentError(f"unknown benchmark format {head!r} in {text!r}; known: {', '.join(sorted(FORMATS))}")
    hf = rest.startswith("hf:")
    if hf:
        rest = rest[3:]
    path, _, subset = rest.partition("#")
    if not path:
        raise JudgeAgentError(f"benchmark {text!r} names no path: give FORMAT:PATH, e.g. mmlu:data/test")
    return Spec(head, path, subset or None, hf)


def load_native(text: str, fields: object = None) -> Loaded:
    """Every item of the benchmark `text` (`FORMAT:PATH[#SUBSET]` or `[FORMAT:]hf:SOURCE`), checked."""
    spec = parse_spec(text)
    fmt = FORMATS[spec.format]
    if spec.hf:
        from .hf import hf_records

        return fmt.from_records(hf_records(spec.path, spec.subset), spec.path, fields, spec.subset)
    path = Path(spec.path)
    if not path.exists():
        raise JudgeAgentError(f"benchmark not found: {path} (format {spec.format})")
    return fmt.load(path, spec.subset, fields)
