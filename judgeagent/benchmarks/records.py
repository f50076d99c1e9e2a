"""The native formats' records as typed models: each field's shape checked before it is read, so a malformed
field is one line (`FILE:LINE: field 'options' should be an object of letter -> text, got a string`) and never a
traceback, nor a string read as a list of one-character options."""
from __future__ import annotations

from collections.abc import Sequence
from typing import Annotated, Any, TypeVar

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field, ValidationError
from pydantic_core import PydanticCustomError

from ..errors import JudgeAgentError
from ..files import json_kind

M = TypeVar("M", bound=BaseModel)


def _refuse(expected: str, value: Any) -> PydanticCustomError:
    return PydanticCustomError("judgeagent", "{expected}, got {got}", {"expected": expected, "got": _kind(value)})


def _kind(value: Any) -> str:
    if isinstance(value, (tuple, set)):
        return "an array"
    if isinstance(value, bytes):
        return "bytes"
    if value is None or isinstance(value, (bool, dict, list, str, int, float)):
        return json_kind(value)
    return type(value).__name__


def _scalar(value: Any) -> str | None:
    """Text as the loaders always read it (`str(value)`; numbers are text too); None stays None (absent)."""
    if value is None or isinstance(value, str):
        return value
    if isinstance(value, (int, float)):  # bool included: "True" as it always read
        return str(value)
    raise _refuse("should be text", value)


def _texts(value: Any) -> list[str | None] | None:
    """A list of texts; a string is refused (read as a list it would be one option or test per character)."""
    if value is None:
        return None
    if not isinstance(value, (list, tuple)):
        raise _refuse("should be a list of texts", value)
    return [_scalar(v) for v in value]


def _letter_texts(value: Any) -> dict[str, str | None] | None:
    if value is None:
        return None
    if not isinstance(value, dict):
        raise _refuse("should be an object of letter -> text", value)
    return {str(k): _scalar(v) for k, v in value.items()}


def _whole(value: Any) -> int | None:
    """A whole number, as a number or as digits in a string ("2"); None stays None."""
    if value is None or value == "":
        return None
    if isinstance(value, int) and not isinstance(value, bool):
        return value
    if isinstance(value, str) and value.strip().isdigit():
        return int(value.strip())
    if isinstance(value, float) and value.is_integer():
        return int(value)
    raise _refuse("should be a whole number", value)


Text = Annotated[str | None, BeforeValidator(_scalar)]
"""A text field: a string or a number (read as text); an object or a list is refused."""
Texts = Annotated[list[str | None] | None, BeforeValidator(_texts)]
"""A list of texts: a string is refused, never split into characters."""
LetterTexts = Annotated[dict[str, str | None] | None, BeforeValidator(_letter_texts)]
Whole = Annotated[int | None, BeforeValidator(_whole)]


class Record(BaseModel):
    """A native record's fields that are read; the others are kept out of the model (publishers add many)."""

    model_config = ConfigDict(extra="ignore", frozen=True, arbitrary_types_allowed=True)


_EXPECTED = {"model_type": "should be an object", "model_attributes_type": "should be an object",
             "dict_type": "should be an object", "list_type": "should be a list", "string_type": "should be text",
             "int_type": "should be a whole number", "int_parsing": "should be a whole number",
             "bool_type": "should be true or false", "bool_parsing": "should be true or false",
             "float_type": "should be a number", "float_parsing": "should be a number"}


def parse(model: type[M], value: Any, source: str, within: Sequence[str | int] = ()) -> M:
    """`value` as `model`, or a one-line error naming `source`, the field and what it should be."""
    if not isinstance(value, dict):
        where = f"field {_path(within)!r} " if within else ""
        raise JudgeAgentError(f"{source}: {where}should be an object, got {_kind(value)}")
    try:
        return model.model_validate(value)
    except ValidationError as e:
        error = e.errors(include_url=False)[0]
        path = _path((*within, *error["loc"]))
        if error["type"] == "judgeagent":
            what = error["msg"]
        elif error["type"] == "missing":
            what = "is missing"
        else:
            what = f"{_EXPECTED.get(error['type'], error['msg'][:1].lower() + error['msg'][1:])}, got {_kind(error['input'])}"
        raise JudgeAgentError(f"{source}: field {path!r} {what}") from None


def _path(loc: Sequence[str | int]) -> str:
    """('questions', 2, 'options') -> 'questions[2].options' (lists counted from 0 as in the file)."""
    out = ""
    for step in loc:
        out += f"[{step}]" if isinstance(step, int) else (f".{step}" if out else str(step))
    return out


def text_of(value: Any, source: str, name: str) -> str | None:
    """One text field outside a model (a value whose shape decides its model, as ARC's question)."""
    try:
        return _scalar(value)
    except PydanticCustomError as e:
        raise JudgeAgentError(f"{source}: field {name!r} {e.message()}") from None


def _labels(value: Any) -> list[str | None] | None:
    if isinstance(value, str):  # "AC" read letter by letter would be a guess: the authors' files hold lists
        raise _refuse("should be a list of letters", value)
    if value is not None and not isinstance(value, (list, tuple)):
        raise _refuse("should be a list of letters", value)
    return _texts(value)


def _key_values(value: Any) -> Any:
    """MedQA's options: an object of letter -> text, or (some copies) a list of {"key", "value"} objects."""
    if isinstance(value, (list, tuple)):
        if not all(isinstance(o, dict) for o in value):
            bad = next(o for o in value if not isinstance(o, dict))
            raise PydanticCustomError("judgeagent", "should be an object of letter -> text or a list of "
                                      "{{\"key\", \"value\"}} objects, got a list holding {got}", {"got": _kind(bad)})
        value = {_scalar(o.get("key")): o.get("value") for o in value}
    try:
        return _letter_texts(value)
    except PydanticCustomError:
        raise _refuse("should be an object of letter -> text", value) from None


Labels = Annotated[list[str | None] | None, BeforeValidator(_labels)]
KeyValues = Annotated[dict[str, str | None] | None, BeforeValidator(_key_values)]


# --- each format's record ------------------------------------------------------------------------------


class MmluRecord(Record):
    question: Text = None
    choices: Texts = None
    answer: Text = None
    subject: Text = None
    row: Whole = Field(None, alias="_row")


class ArcChoice(Record):
    text: Text = None
    label: Text = None


class ArcQuestion(Record):
    """ARC's native question: its stem and lettered (or numbered) choices."""

    stem: Text = None
    choices: list[ArcChoice] | None = None


class ArcChoices(Record):
    """allenai/ai2_arc on Hugging Face: the choices as two parallel lists."""

    text: Texts = None
    label: Texts = None


class ArcRecord(Record):
    question: Any = None
    """Text (Hugging Face) or an `ArcQuestion` (the native files): parsed by shape."""
    choices: ArcChoices | None = None
    answerKey: Text = None
    id: Text = None


class HellaswagRecord(Record):
    ctx: Text = None
    endings: Texts = None
    label: Text = None
    ind: Text = None
    source_id: Text = None
    activity_label: Text = None
    split_type: Any = None


class CevalRecord(Record):
    question: Text = None
    A: Text = None
    B: Text = None
    C: Text = None
    D: Text = None
    answer: Text = None
    id: Text = None
    explanation: Text = None
    subject: Text = None


class MathRecord(Record):
    problem: Text = None
    solution: Text = None
    level: Text = None
    type: Text = None
    unique_id: Text = None


class Gsm8kRecord(Record):
    question: Text = None
    answer: Text = None


class MbppRecord(Record):
    text: Text = None
    prompt: Text = None
    code: Text = None
    task_id: Text = None
    test_list: Texts = None
    challenge_test_list: Texts = None
    test_setup_code: Text = None


class MedqaRecord(Record):
    question: Text = None
    options: KeyValues = None
    answer_idx: Text = None
    realidx: Text = None
    meta_info: Text = None
    metamap_phrases: Texts = None


class QualitySpeed(Record):
    speed_answer: Whole = None


class QualityQuestion(Record):
    question: Text = None
    question_unique_id: Text = None
    options: Texts = None
    gold_label: Whole = None
    """1-based in the file."""
    speed_validation: list[QualitySpeed] | None = None
    difficult: Any = None
    writer_label: Any = None


class QualityRecord(Record):
    article: Text = None
    questions: list[QualityQuestion] | None = None
    article_id: Any = None
    set_unique_id: Any = None
    title: Any = None
    source: Any = None
    topic: Any = None


class Teach2EvalRecord(Record):
    question: Text = None
    options: Texts = None
    label: Labels = None
    passage: Text = None
    index: Text = None
    dataset: Text = None
    level: Any = None
    source: Any = None
    answer: Any = None
    analysis: Any = None
