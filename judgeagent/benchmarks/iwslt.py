"""IWSLT 2017 TED test sets as WIT3 ships them: XML inside .tgz archives, source side only.

The reference for x->y is the source file of the reverse archive (y-x), which holds the same talks and
segment ids (how sacrebleu builds `iwslt17`); segments are paired by (docid, seg id), never by position.
"""
from __future__ import annotations

import tarfile
import xml.etree.ElementTree as ET
import zlib
from pathlib import Path
from typing import Any

from ..errors import JudgeAgentError
from .item import Item, Loaded

LANGUAGES = {"en": "English", "zh": "Chinese", "fr": "French", "de": "German", "ja": "Japanese", "ar": "Arabic",
             "ko": "Korean", "it": "Italian", "nl": "Dutch", "ro": "Romanian"}
TEST_SETS = ("tst2017", "tst2016")


def load_iwslt(path: Path, subset: str | None) -> Loaded:
    """Items of one direction: the source segments of `path` (`<src>-<tgt>.tgz`) with the references."""
    test_set = subset or "tst2017"
    if test_set not in TEST_SETS:
        raise JudgeAgentError(f"unknown IWSLT test set {test_set!r}: give #tst2017 or #tst2016")
    if not path.is_file() or not path.name.endswith(".tgz") or path.name.count("-") != 1:
        raise JudgeAgentError(f"iwslt reads one direction's archive, <src>-<tgt>.tgz (e.g. en-zh.tgz), not {path}")
    src, tgt = path.name[:-4].split("-")
    reverse = _reverse_archive(path, src, tgt)
    sources = _segments(path, f"{src}-{tgt}/IWSLT17.TED.{test_set}.{src}-{tgt}.{src}.xml")
    references = _segments(reverse, f"{tgt}-{src}/IWSLT17.TED.{test_set}.{tgt}-{src}.{tgt}.xml")
    items, missing = [], 0
    for key, (text, talk) in sources.items():
        reference = references.get(key)
        if reference is None or not reference[0]:
            missing += 1
            continue
        docid, seg = key
        items.append(Item(qid=f"{test_set}-{src}{tgt}-{docid}-{seg}", question=text, gold=reference[0],
                          meta={"docid": docid, "seg": seg, "title": talk.get("title"), "talkid": talk.get("talkid"),
                                "source_language": LANGUAGES.get(src, src), "target_language": LANGUAGES.get(tgt, tgt),
                                "test_set": test_set},
                          source=f"{path}[{test_set} doc {docid} seg {seg}]"))
    if not items:
        raise JudgeAgentError(f"no segment of {path} ({test_set}) has a reference in {reverse}")
    notes = (f"skipped {missing} segment(s) without a reference in {reverse.name}",) if missing else ()
    return Loaded(items, notes)


def _reverse_archive(path: Path, src: str, tgt: str) -> Path:
    name = f"{tgt}-{src}.tgz"
    # WIT3's layout is texts/<src>/<tgt>/<src>-<tgt>.tgz; a flat folder of archives works too.
    for candidate in (path.parent.parent.parent / tgt / src / name, path.parent / name):
        if candidate.is_file():
            return candidate
    raise JudgeAgentError(f"the references of {path.name} are the source side of {name}, which is not beside it "
                          f"nor at texts/{tgt}/{src}/{name}: put that archive there")


def _segments(archive: Path, member: str) -> dict[tuple[str, str], tuple[str, dict[str, Any]]]:
    """(docid, seg id) -> (segment text, the talk's title and id)."""
    try:
        with tarfile.open(archive, "r:gz") as tar:
            data = tar.extractfile(member)
            if data is None:
                raise KeyError(member)
            root = ET.fromstring(data.read())
    except KeyError:
        raise JudgeAgentError(f"{archive} has no {member}: is it a WIT3 test archive of that year?") from None
    except EOFError:  # a gzip stream cut short: click would take it for Ctrl-C ("aborted", exit 130)
        raise JudgeAgentError(f"{archive} is truncated (its compressed data ends early): download it again") from None
    except (tarfile.TarError, OSError, ET.ParseError) as e:
        raise JudgeAgentError(f"cannot read {member} in {archive}: {e}") from None
    except zlib.error as e:  # a byte changed inside the compressed data
        raise JudgeAgentError(f"{archive} is damaged (its compressed data does not decompress: {e}): "
                              "download it again") from None
    out: dict[tuple[str, str], tuple[str, dict[str, Any]]] = {}
    for doc in root.iter("doc"):
        talk = {"title": (doc.findtext("title") or "").strip(), "talkid": (doc.findtext("talkid") or "").strip()}
        for seg in doc.iter("seg"):
            out[(doc.get("docid", ""), seg.get("id", ""))] = (" ".join((seg.text or "").split()), talk)
    return out
