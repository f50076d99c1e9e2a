"""One benchmark item (`Item`), the column map of the user's records (`ItemFields`), and one record to a
checked `Item` (`to_item`): shared by the generic loader (`judgeagent.benchmark`) and the native formats."""
from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict

from ..errors import JudgeAgentError
from ..files import field_value

Difficulty = Literal["easy", "medium", "hard"]
DIFFICULTIES: tuple[Difficulty, ...] = ("easy", "medium", "hard")
# CSV files may spread options over columns named A, B, C, ... instead of one JSON column.
_LETTER_COLUMNS = tuple("ABCDEFGHIJ")


@dataclass(frozen=True)
class Item:
    """One benchmark question with its gold answer."""

    qid: str
    question: str
    gold: str
    """The gold answer text; for multiple choice the gold option's text when the file gives only a letter (the
    file's `answer` column: `ItemFields` names the file's columns, `Item` the things they hold)."""
    options: dict[str, str] | None = None
    gold_letter: str | None = None
    """The gold option's letter (the file's `answer_letter`); None for free text."""
    aliases: tuple[str, ...] = ()
    """Other acceptable gold answers (free text): a reply matching any of them is correct."""
    difficulty: Difficulty | None = None
    question_type: str | None = None
    supporting_doc_ids: tuple[str, ...] = ()
    passage: str | None = None
    """A reference passage to put into the prompt (e.g. the QuALITY article)."""
    meta: dict[str, Any] = field(default_factory=dict)
    source: str = ""
    """Where it was read from (`file:line`, `file[index]`, `file[row n]`), for error messages."""

    @property
    def golds(self) -> tuple[str, ...]:
        """The gold answer and its aliases."""
        return (self.gold, *self.aliases)

    @property
    def is_choice(self) -> bool:
        return bool(self.options)


@dataclass(frozen=True)
class Loaded:
    """A format's items and notes on what it left out (one line each, for the user)."""

    items: list[Item]
    notes: tuple[str, ...] = ()


class ItemFields(BaseModel):
    """Which column of the user's records holds each field of an `Item`."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    qid: str = "qid"
    question: str = "question"
    answer: str = "answer"
    """A string, or a list whose first entry is the gold and the rest aliases."""
    aliases: str = "aliases"
    """Other acceptable answers (a list, or a string separated by `;`); `answers` is read when absent."""
    options: str = "options"
    answer_letter: str = "answer_letter"
    difficulty: str = "difficulty"
    question_type: str = "question_type"
    supporting_doc_ids: str = "supporting_doc_ids"
    passage: str = "passage"



# --- one record to an Item ---------------------------------------------------------------------------


def to_item(record: Any, source: str, fields: ItemFields = ItemFields(), default_qid: str = "") -> Item:
    """One record (a dict) to a checked `Item`; errors name the record and the field."""
    if not isinstance(record, dict):
        raise JudgeAgentError(f"{source}: expected a JSON object, got {type(record).__name__}")
    qid = _text(field_value(record, fields.qid)) or default_qid
    question = _text(_no_object(field_value(record, fields.question), source, fields.question, "text"))
    if not question:
        raise JudgeAgentError(f"{source}: item {qid!r} has no question (field {fields.question!r}){_hint(record)}")
    options = _options(record, fields, source)
    letter = _several(_letter(field_value(record, fields.answer_letter)), options)
    answers = _answers(record, fields, source)
    answer = answers[0] if answers else ""
    if not answer and not letter:
        raise JudgeAgentError(f"{source}: item {qid!r} has no gold answer "
                              f"(neither {fields.answer!r} nor {fields.answer_letter!r}){_hint(record)}")
    if letter and any(x not in (options or {}) for x in (letter if len(letter) > 1 else [letter])):
        known = ", ".join(options or {}) or "none"
        raise JudgeAgentError(
            f"{source}: item {qid!r}: answer_letter {letter!r} is not among the options ({known})")
    if options and letter and (not answer or (fields.answer == fields.answer_letter and answer == letter)):
        answer = "; ".join(options[x] for x in letter) if len(letter) > 1 else options[letter]
    if options and answer and not letter:
        letter = option_letter(answer, options)
    return Item(
        qid=qid, question=question, gold=answer or "", options=options, gold_letter=letter,
        aliases=tuple(a for a in dict.fromkeys(answers[1:]) if a != answer),
        difficulty=normalise_difficulty(field_value(record, fields.difficulty)),
        question_type=_text(field_value(record, fields.question_type)) or None,
        supporting_doc_ids=_doc_ids(field_value(record, fields.supporting_doc_ids), source, fields.supporting_doc_ids),
        passage=_text(field_value(record, fields.passage)) or None,
        meta=_meta(record, fields), source=source,
    )


QUESTION_COLUMNS = ("input", "prompt", "query", "problem", "instruction", "question_text", "text", "context")
ANSWER_COLUMNS = ("target", "gold", "label", "output", "completion", "solution", "answers", "response")
"""Where other tools keep the question and the answer (Inspect, lm-evaluation-harness, Hugging Face sets)."""


def _hint(record: dict[str, Any]) -> str:
    """The record's columns, and the --field mapping that would read it where its columns say so."""
    columns = [str(k) for k in record]
    shown = ", ".join(columns[:12]) + (", ..." if len(columns) > 12 else "")
    question = next((c for c in QUESTION_COLUMNS if c in record), None)
    answer = next((c for c in ANSWER_COLUMNS if c in record), None)
    mapping = " ".join(f"--field {name}={column}" for name, column in (("question", question), ("answer", answer))
                       if column)
    return f"; its columns: {shown}" + (f"; read them with {mapping}" if mapping else
                                        "; name yours with --field question=COLUMN --field answer=COLUMN")


def _answers(record: dict[str, Any], fields: ItemFields, source: str) -> list[str]:
    """The gold followed by its aliases: a list in `answer`, plus the `aliases` (or `answers`) field."""
    out = _strings(_no_object(field_value(record, fields.answer), source, fields.answer, "text or a list of texts"))
    name, extra = fields.aliases, field_value(record, fields.aliases)
    if extra is None and fields.aliases == "aliases":
        name, extra = "answers", record.get("answers")
    return [a for a in out + _strings(_no_object(extra, source, name, "text or a list of texts"), split=";") if a]


def _no_object(value: Any, source: str, name: str, expected: str) -> Any:
    """`value`, unless it is (or holds) a JSON object, whose Python text would pass for an answer or a question."""
    held = value if isinstance(value, dict) else next(
        (v for v in _flat(value) if isinstance(v, dict)), None) if isinstance(value, (list, tuple)) else None
    if held is not None:
        got = "an object" if held is value else "a list holding an object"
        raise JudgeAgentError(f"{source}: field {name!r} should be {expected}, got {got}")
    if expected == "text" and isinstance(value, (list, tuple)):
        raise JudgeAgentError(f"{source}: field {name!r} should be text, got a list")
    return value


def _flat(value: Any) -> list[Any]:
    """The leaves of nested lists, in order (without recursion: a file may nest a thousand deep)."""
    out, stack = [], [iter(value)]
    while stack:
        for v in stack[-1]:
            if isinstance(v, (list, tuple)):
                stack.append(iter(v))
                break
            out.append(v)
        else:
            stack.pop()
    return out


def _strings(value: Any, split: str | None = None) -> list[str]:
    if isinstance(value, (list, tuple)):  # nested lists (BioASQ's [["CFTR", "synonym"], ...]) flatten
        return [_text(v) for v in _flat(value)]
    text = _text(value)
    return [t.strip() for t in text.split(split)] if split and text else [text]


def normalise_difficulty(value: Any) -> Difficulty | None:
    """easy / medium / hard in any case; anything else (labels of other schemes, numbers) is None."""
    text = value.strip().lower() if isinstance(value, str) else None
    return next((level for level in DIFFICULTIES if level == text), None)


def option_letter(answer: str, options: Mapping[str, str]) -> str | None:
    """The letter of the one option whose text equals `answer` (ignoring case, spacing, end punctuation)."""
    key = _loose(answer)
    matches = [letter for letter, text in options.items() if _loose(text) == key]
    return matches[0] if len(matches) == 1 else None


def _loose(text: str) -> str:
    return " ".join(text.split()).rstrip(" .!;,").casefold()


def _text(value: Any) -> str:
    """Cell value as stripped text; None and NaN-like empties are ''."""
    if value is None or (isinstance(value, float) and value != value):
        return ""
    return str(value).strip()


def _letter(value: Any) -> str | None:
    # Tolerate "(B)", "b." and the like: files written by hand or exported from spreadsheets. Several correct
    # options ("AC", "A, C", ["A", "C"] as Teach2Eval's label) are kept as their letters in order: "AC".
    if isinstance(value, (list, tuple)):
        value = ",".join(_text(v) for v in value)
    text = _text(value).strip("()[]. ").upper()
    return text or None


def _several(letter: str | None, options: Mapping[str, str] | None) -> str | None:
    """A gold letter that is no option's key but names several ("AC", "A, C"): their letters in order ("AC")."""
    if not letter or not options or letter in options:
        return letter
    parts = "".join(p.strip("()[]. ") for p in letter.replace(",", " ").split())
    return "".join(sorted(set(parts))) if len(parts) > 1 and all(p in options for p in parts) else letter


def _options(record: dict[str, Any], fields: ItemFields, source: str) -> dict[str, str] | None:
    raw = field_value(record, fields.options)
    if isinstance(raw, str):
        raw = _parse_json_cell(raw, source, fields.options)
    if raw is None or raw == {} or raw == []:
        raw = {c: record[c] for c in _LETTER_COLUMNS if _text(record.get(c))}
    if isinstance(raw, list):
        if len(raw) > 26:  # past Z the letters are punctuation no reply can name
            raise JudgeAgentError(f"{source}: options (field {fields.options!r}) is a list of {len(raw)}; at most 26 "
                                  "(A-Z) are lettered")
        raw = {chr(ord("A") + i): v for i, v in enumerate(raw)}
    if not isinstance(raw, dict):
        raise JudgeAgentError(f"{source}: options (field {fields.options!r}) must be a mapping or a list, "
                              f"got {type(raw).__name__}")
    # Parquet stores options as a struct: letters an item does not use come back as None.
    options = {str(k).strip().upper(): _text(v) for k, v in raw.items() if _text(v)}
    return options or None


def _parse_json_cell(cell: str, source: str, name: str) -> Any:
    if not cell.strip():
        return None
    try:
        return json.loads(cell)
    except json.JSONDecodeError as e:
        raise JudgeAgentError(f"{source}: {name} is not valid JSON ({e.msg})") from None


def _doc_ids(value: Any, source: str, name: str) -> tuple[str, ...]:
    if isinstance(value, str):
        text = value.strip()
        value = _parse_json_cell(text, source, name) if text.startswith("[") else re.split(r"\s*;\s*", text)
    if value is None:
        return ()
    if not isinstance(value, (list, tuple)):
        value = [value]
    return tuple(t for t in (_text(v) for v in value) if t)


def _meta(record: dict[str, Any], fields: ItemFields) -> dict[str, Any]:
    mapped = set(fields.model_dump().values()) | {"meta"}
    extra = {k: v for k, v in record.items() if k not in mapped and k not in _LETTER_COLUMNS}
    own = record.get("meta")
    if isinstance(own, str) and own.strip().startswith("{"):
        try:
            own = json.loads(own)
        except json.JSONDecodeError:
            pass  # meta is informational: a malformed one is kept as text rather than refused
    if isinstance(own, dict):
        return {**extra, **own}
    return extra if own in (None, "") else {**extra, "meta": own}
