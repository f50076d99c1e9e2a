"""IWSLT 2017 (TED) test sets for the translation task, read from the official WIT3 archives unmodified.

The paper translates IWSLT 2017 documents split into paragraph-level segments (Section 3.1; Cettolo et al.
2017) for en-zh, en-fr and de-en. `-o sources=.../texts/en/zh/en-zh.tgz` gives the source side; its
reference is the source side of the reverse archive (`texts/zh/en/zh-en.tgz`: same talks, same segment ids),
as sacrebleu builds `iwslt17`. The paper does not say how it made paragraphs: here consecutive segments of
one talk are joined until the next would pass `max_words` source words, so a paragraph never crosses a talk
and its reference is the same segments' translations. tst2017 is used (tst2016 is the other test set).
"""
from __future__ import annotations

import hashlib
import io
import tarfile
import xml.etree.ElementTree as ET
from pathlib import Path

from ....errors import JudgeAgentError
from .base import Stamp, TranslationSource

NAMES = {"en": "English", "zh": "Chinese", "fr": "French", "de": "German"}
"""The language names of the archives' codes (the options `source_language`, `target_language`)."""
TEST_SET = "tst2017"


def is_archive(path: str) -> bool:
    return path.endswith(".tgz")


def _segments(archive: Path, pair: str, lang: str) -> dict[str, list[tuple[str, str]]]:
    """docid -> [(seg id, text)] of `<pair>/IWSLT17.TED.tst2017.<pair>.<lang>.xml` in `archive`."""
    member = f"{pair}/IWSLT17.TED.{TEST_SET}.{pair}.{lang}.xml"
    try:
        with tarfile.open(archive, "r:gz") as tar:
            found = tar.extractfile(member)
            data = found.read() if found else b""
    except EOFError:  # a gzip stream cut short: click would take it for Ctrl-C ("aborted", exit 130)
        raise JudgeAgentError(f"{archive} is truncated (its compressed data ends early): download it again") from None
    except (OSError, tarfile.TarError, KeyError) as e:
        raise JudgeAgentError(f"cannot read {member} from {archive}: {e}") from None
    if not data:
        raise JudgeAgentError(f"{archive} holds no {member} (an IWSLT 2017 test archive, e.g. texts/en/zh/en-zh.tgz)")
    root = ET.parse(io.BytesIO(data)).getroot()
    return {doc.get("docid", ""): [(seg.get("id", ""), " ".join((seg.text or "").split())) for seg in doc.iter("seg")]
            for doc in root.iter("doc")}


def load(path: str, max_words: int) -> tuple[list[TranslationSource], Stamp, tuple[str, str]]:
    """Paragraph items (id, source, reference), the stamp of both archives' bytes, and (source, target) codes."""
    archive = Path(path)
    if not archive.is_file():
        raise JudgeAgentError(f"sources file not found: {archive} (give -o sources=FILE)")
    pair = archive.name.removesuffix(".tgz")
    src, _, tgt = pair.partition("-")
    reverse = archive.parent.parent.parent / tgt / src / f"{tgt}-{src}.tgz"
    if not reverse.is_file():
        raise JudgeAgentError(f"the references of {archive.name} are the reverse archive, not found: {reverse}")
    sources, references = _segments(archive, pair, src), _segments(reverse, f"{tgt}-{src}", tgt)
    joiner = "" if tgt in ("zh", "ja") else " "
    items: list[TranslationSource] = []
    for doc, segs in sources.items():
        ref = dict(references.get(doc, []))
        block: list[tuple[str, str]] = []
        for seg in [*segs, None]:
            words = sum(len(text.split()) for _, text in block)
            if block and (seg is None or words + len(seg[1].split()) > max_words):
                items.append(TranslationSource(id=f"{doc}:{block[0][0]}-{block[-1][0]}",
                                               source=" ".join(t for _, t in block),
                                               reference=joiner.join(ref.get(i, "") for i, _ in block)))
                block = []
            if seg is not None:
                block.append(seg)
    digest = hashlib.sha256(archive.read_bytes() + reverse.read_bytes()).hexdigest()
    return items, Stamp("sources", path, digest), (src, tgt)
