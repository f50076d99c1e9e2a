"""The native formats: how each publisher's files are found, read and turned into `Item`s."""
from __future__ import annotations

import csv
import io
import re
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..errors import JudgeAgentError
from ..files import json_records, jsonl_records, read_text
from .item import Item, ItemFields, Loaded, to_item

Records = Iterable[tuple[Any, str]]
Convert = Callable[[Any, str, dict[str, Any]], "list[Item] | str"]
"""A record, where it was read, the file's context (subject, ...) -> its items, or why it was skipped."""
LETTERS = "ABCDEFGHIJ"


@dataclass(frozen=True)
class Format:
    name: str
    title: str
    path_help: str
    """What PATH is (shown by `judgeagent recipes` and docs/reproduce.md)."""
    suffixes: tuple[str, ...]
    """The files a folder is searched for (recursively, in name order)."""
    read: Callable[[Path], Records]
    convert: Convert
    context: Callable[[Path, Path], dict[str, Any]] = field(default=lambda file, root: {})
    custom_load: Callable[[Path, str | None], Loaded] | None = None

    def load(self, path: Path, subset: str | None, fields: Any = None) -> Loaded:
        if self.custom_load is not None:
            return self.custom_load(path, subset)
        files = _files(path, self.suffixes, self.name)
        records = ((record, source, self.context(file, path)) for file in files for record, source in self.read(file))
        return _convert_all(records, self.convert, str(path))

    def from_records(self, records: Records, origin: str, fields: Any = None, subset: str | None = None) -> Loaded:
        """Records read elsewhere (Hugging Face `datasets`) through the same conversion; `subset` is the
        `CONFIG/SPLIT` they came from (ARC's config names the set, C-Eval's the subject)."""
        context = {"fields": fields or ItemFields(), "hf_config": (subset or "").rpartition("/")[0] or None}
        return _convert_all(((r, s, context) for r, s in records), self.convert, origin)


def _files(path: Path, suffixes: tuple[str, ...], name: str) -> list[Path]:
    if path.is_file():
        return [path]
    found = sorted(p for p in path.rglob("*") if p.is_file() and p.name.endswith(suffixes))
    if not found:
        raise JudgeAgentError(f"no {name} file ({', '.join(suffixes)}) under {path}: give the file or the folder "
                              "that holds them")
    return found


def _convert_all(records: Iterable[tuple[Any, str, dict[str, Any]]], convert: Convert, origin: str) -> Loaded:
    items: list[Item] = []
    skipped: Counter[str] = Counter()
    for record, source, context in records:
        if not isinstance(record, dict):
            raise JudgeAgentError(f"{source}: expected an object, got {type(record).__name__}")
        out = convert(record, source, context)
        if isinstance(out, str):
            skipped[out] += 1
        else:
            items.extend(out)
    if not items:
        raise JudgeAgentError(f"benchmark {origin} has no items")
    notes = tuple(f"skipped {n} item(s): {why}" for why, n in skipped.most_common())
    return Loaded(items, notes)


# --- shared pieces ------------------------------------------------------------------------------------


def _text(value: Any) -> str:
    return "" if value is None else str(value).strip()


def _need(record: dict[str, Any], key: str, source: str) -> Any:
    value = record.get(key)
    if value is None or value == "":
        raise JudgeAgentError(f"{source}: no {key!r} field; is this the right format?")
    return value


def choice_item(qid: str, question: str, options: dict[str, str], letter: str, source: str, **rest: Any) -> Item:
    """A multiple-choice item whose gold is `letter` (checked to be one of the options), or several letters in
    order ("CD": items with more than one correct option, graded as the set, as Teach2Eval's authors do)."""
    if letter not in options and not (len(letter) > 1 and all(x in options for x in letter)):
        raise JudgeAgentError(f"{source}: item {qid!r}: gold {letter!r} is not among the options "
                              f"({', '.join(options) or 'none'})")
    gold = options[letter] if letter in options else "; ".join(options[x] for x in letter)
    return Item(qid=qid, question=question, gold=gold, options=options, gold_letter=letter, source=source, **rest)


def lettered(texts: Iterable[Any]) -> dict[str, str]:
    return {LETTERS[i]: _text(t) for i, t in enumerate(texts)}


def _answer_letter(value: Any, count: int, source: str) -> str:
    """A letter (A-D), or a 0-based index (as int or digit string) made a letter."""
    text = _text(value).upper()
    if text.isdigit() and int(text) < count:
        return LETTERS[int(text)]
    if len(text) == 1 and text in LETTERS[:count]:
        return text
    raise JudgeAgentError(f"{source}: answer {value!r} is neither a letter nor an index of the {count} options")


def _jsonl(file: Path) -> Records:
    return jsonl_records(file, read_text(file))


def _json(file: Path) -> Records:
    return json_records(file, read_text(file))


def _stem_subject(file: Path) -> str:
    """`abstract_algebra_test.csv` -> `abstract_algebra` (the split suffix dropped)."""
    return re.sub(r"_(test|dev|val|validation|train)$", "", file.stem)


def _split_of(file: Path) -> str | None:
    match = re.search(r"_(test|dev|val|validation|train)$", file.stem)
    return match.group(1) if match else None


# --- MMLU ---------------------------------------------------------------------------------------------


def _mmlu_read(file: Path) -> Records:
    """Upstream CSV (no header: question, A, B, C, D, letter) or the header variant (answer an index)."""
    rows = list(csv.reader(io.StringIO(read_text(file), newline="")))
    start = 1 if rows and rows[0] and rows[0][0].strip().lower() == "question" and rows[0][-1].strip().lower() == "answer" else 0
    for number, row in enumerate(rows[start:], start=start + 1):
        if not any(c.strip() for c in row):
            continue
        if len(row) != 6:
            raise JudgeAgentError(f"{file}:{number}: expected 6 columns (question, 4 options, answer), got {len(row)}")
        yield {"question": row[0], "choices": row[1:5], "answer": row[5], "_row": number - start}, f"{file}:{number}"


def _mmlu_context(file: Path, root: Path) -> dict[str, Any]:
    return {"subject": _stem_subject(file), "split": _split_of(file), "stem": file.stem}


def _mmlu_convert(record: dict[str, Any], source: str, ctx: dict[str, Any]) -> list[Item]:
    options = lettered(_need(record, "choices", source))
    subject = ctx.get("subject") or _text(record.get("subject")) or "mmlu"
    letter = _answer_letter(record.get("answer"), len(options), source)
    qid = f"{ctx.get('stem', subject)}-{record.get('_row') or _hf_index(source)}"
    meta = {"subject": subject, **({"split": ctx["split"]} if ctx.get("split") else {})}
    return [choice_item(qid, _text(_need(record, "question", source)), options, letter, source, meta=meta)]


def _hf_index(source: str) -> str:
    match = re.search(r"\[(?:row )?(\d+)\]$", source)
    return str(int(match.group(1)) + 1) if match else source


# --- ARC ----------------------------------------------------------------------------------------------


def _arc_convert(record: dict[str, Any], source: str, ctx: dict[str, Any]) -> list[Item]:
    question = _need(record, "question", source)
    if isinstance(question, dict):  # native: {"stem", "choices": [{"text", "label"}]}
        stem, choices = question.get("stem"), question.get("choices") or []
        labels, texts = [_text(c.get("label")) for c in choices], [c.get("text") for c in choices]
    else:  # Hugging Face allenai/ai2_arc: question text, choices {"text": [...], "label": [...]}
        stem, choices = question, record.get("choices") or {}
        labels, texts = [_text(x) for x in choices.get("label", [])], list(choices.get("text", []))
    # Some items label their choices 1-4: lettered A-D here, so every reply reads the same way.
    letters = {label: LETTERS[i] for i, label in enumerate(labels)}
    key = _text(_need(record, "answerKey", source))
    if key not in letters:
        raise JudgeAgentError(f"{source}: answerKey {key!r} is not one of the labels {labels}")
    qid = _text(record.get("id")) or source
    named = f"{source} {ctx.get('hf_config') or ''}".lower()
    subset = ctx.get("subset") or ("ARC-Challenge" if "challenge" in named else "ARC-Easy")
    meta = {"subset": subset, "exam": qid.split("_")[0], **({"labels": labels} if labels != list(letters.values()) else {})}
    return [choice_item(qid, _text(stem), lettered(texts), letters[key], source,
                        difficulty="hard" if subset == "ARC-Challenge" else "easy", meta=meta)]


def _arc_context(file: Path, root: Path) -> dict[str, Any]:
    return {"subset": "ARC-Challenge" if "challenge" in file.name.lower() else "ARC-Easy"}


# --- HellaSwag ----------------------------------------------------------------------------------------


def _hellaswag_convert(record: dict[str, Any], source: str, ctx: dict[str, Any]) -> list[Item] | str:
    if _text(record.get("label")) == "":
        return "no label (the test split has none)"
    options = lettered(_need(record, "endings", source))
    source_id = _text(record.get("source_id"))
    meta = {"subject": _text(record.get("activity_label")), "source": source_id.split("~")[0] or None,
            "split_type": record.get("split_type")}
    qid = f"hellaswag-{_text(record.get('ind')) or _hf_index(source)}"
    return [choice_item(qid, _text(_need(record, "ctx", source)), options,
                        _answer_letter(record["label"], len(options), source), source, meta=meta)]


# --- C-Eval -------------------------------------------------------------------------------------------

_CEVAL_LEVELS = (("middle_school_", "middle school"), ("high_school_", "high school"), ("college_", "college"))


def _ceval_context(file: Path, root: Path) -> dict[str, Any]:
    import json

    subject = _stem_subject(file)
    mapping: dict[str, Any] = {}
    for folder in (file.parent, file.parent.parent, root if root.is_dir() else root.parent):
        candidate = folder / "subject_mapping.json"
        if candidate.is_file():
            mapping = json.loads(read_text(candidate))
            break
    english, chinese, category = (mapping.get(subject) or [None, None, None])[:3]
    return {"subject": subject, "split": _split_of(file), "subject_en": english, "subject_zh": chinese,
            "category": category}


def _csv_dicts(file: Path) -> Records:
    reader = csv.DictReader(io.StringIO(read_text(file), newline=""))
    for number, row in enumerate(reader, start=2):
        yield row, f"{file}:{number}"


def _ceval_convert(record: dict[str, Any], source: str, ctx: dict[str, Any]) -> list[Item]:
    options = {k: _text(record.get(k)) for k in "ABCD" if _text(record.get(k))}
    subject = ctx.get("subject") or ctx.get("hf_config") or _text(record.get("subject")) or "ceval"
    level = next((name for prefix, name in _CEVAL_LEVELS if subject.startswith(prefix)), None)
    meta = {k: v for k, v in {**ctx, "subject": subject, "level": level}.items() if v}
    if _text(record.get("explanation")):
        meta["explanation"] = _text(record["explanation"])
    qid = f"{subject}-{_text(record.get('id')) or _hf_index(source)}"
    return [choice_item(qid, _text(_need(record, "question", source)), options,
                        _answer_letter(record.get("answer"), len(options), source), source, meta=meta)]


# --- MATH and GSM8K -----------------------------------------------------------------------------------


def last_boxed(text: str) -> str | None:
    """The content of the last `\\boxed{...}` (or `\\fbox{...}`), matching braces so nested ones stay whole."""
    start = max(text.rfind("\\boxed"), text.rfind("\\fbox"))
    if start < 0:
        return None
    i = text.find("{", start)
    if i < 0:
        return None
    depth = 0
    for j in range(i, len(text)):
        if text[j] == "{":
            depth += 1
        elif text[j] == "}":
            depth -= 1
            if depth == 0:
                return text[i + 1:j].strip()
    return None


def _math_convert(record: dict[str, Any], source: str, ctx: dict[str, Any]) -> list[Item] | str:
    solution = _text(_need(record, "solution", source))
    gold = last_boxed(solution)
    if not gold:
        return "no \\boxed{} answer in the solution"
    level_text = _text(record.get("level"))
    level = int(level_text.split()[-1]) if level_text.split() and level_text.split()[-1].isdigit() else None
    meta = {"subject": _text(record.get("type")), "level": level, "solution": solution}
    where = ctx.get("file_id") or (_hf_index(source) if "[" in source else source.rsplit(":", 1)[-1])
    qid = _text(record.get("unique_id")) or f"math-{where}"
    return [Item(qid=qid, question=_text(_need(record, "problem", source)), gold=gold, meta=meta, source=source)]


def _gsm8k_convert(record: dict[str, Any], source: str, ctx: dict[str, Any]) -> list[Item]:
    answer = _text(_need(record, "answer", source))
    solution, sep, gold = answer.rpartition("####")
    if not sep or not gold.strip():
        raise JudgeAgentError(f"{source}: answer has no '#### <number>' line")
    qid = f"gsm8k-{_hf_index(source) if '[' in source else source.rsplit(':', 1)[-1]}"
    return [Item(qid=qid, question=_text(_need(record, "question", source)), gold=gold.strip().replace(",", ""),
                 meta={"solution": solution.strip()}, source=source)]


# --- MBPP ---------------------------------------------------------------------------------------------


def mbpp_split(task_id: int) -> str:
    """The paper's split by task id: 1-10 prompt, 11-510 test, 511-600 validation, 601-974 train."""
    return "prompt" if task_id <= 10 else "test" if task_id <= 510 else "validation" if task_id <= 600 else "train"


def _mbpp_convert(record: dict[str, Any], source: str, ctx: dict[str, Any]) -> list[Item]:
    text = _text(record.get("text") or record.get("prompt"))
    if not text:
        raise JudgeAgentError(f"{source}: no 'text' field; is this MBPP?")
    tests = [str(t) for t in record.get("test_list") or []]
    raw_id = _need(record, "task_id", source)
    if not str(raw_id).strip().isdigit():  # HumanEval's "HumanEval/0", say
        raise JudgeAgentError(f"{source}: task_id {raw_id!r} is not a number as MBPP's are; is this MBPP's mbpp.jsonl?")
    task_id = int(raw_id)
    # The paper's prompt: the task, then its tests, so the function's name and signature are known.
    question = text + "\nYour code should pass these tests:\n\n" + "\n".join(tests)
    meta = {"task_id": task_id, "split": mbpp_split(task_id), "test_list": tests,
            "test_setup_code": _text(record.get("test_setup_code")),
            "challenge_test_list": [str(t) for t in record.get("challenge_test_list") or []]}
    code = str(_need(record, "code", source)).replace("\r\n", "\n")
    return [Item(qid=f"mbpp-{task_id}", question=question, gold=code, meta=meta, source=source)]


# --- MedQA --------------------------------------------------------------------------------------------


def _medqa_convert(record: dict[str, Any], source: str, ctx: dict[str, Any]) -> list[Item]:
    raw = _need(record, "options", source)
    if isinstance(raw, list):  # some copies store [{"key": "A", "value": ...}]
        raw = {o.get("key"): o.get("value") for o in raw}
    options = {str(k).strip().upper(): _text(v) for k, v in raw.items() if _text(v)}
    letter = _text(record.get("answer_idx")).upper()
    index = record.get("realidx", _hf_index(source) if "[" in source else source.rsplit(":", 1)[-1])
    meta = {"exam": _text(record.get("meta_info")) or None}
    if record.get("metamap_phrases"):
        meta["metamap_phrases"] = list(record["metamap_phrases"])
    return [choice_item(f"medqa-{index}", _text(_need(record, "question", source)), options, letter, source, meta=meta)]


# --- QuALITY ------------------------------------------------------------------------------------------


def quality_tier(speed_accuracy: float) -> str:
    """JudgeAgent's three tiers from the speed validators' accuracy, with its 20% and 60% thresholds
    (our reading: hard at or below 20%, easy above 60%, medium between)."""
    return "hard" if speed_accuracy <= 0.2 else "easy" if speed_accuracy > 0.6 else "medium"


def _quality_convert(record: dict[str, Any], source: str, ctx: dict[str, Any]) -> list[Item] | str:
    article = _text(_need(record, "article", source))
    out = []
    for n, q in enumerate(_need(record, "questions", source), start=1):
        where = f"{source} question {n}"
        if q.get("gold_label") in (None, ""):
            return "no gold_label (the test split has none)"
        options = lettered(q.get("options") or [])
        letter = LETTERS[int(q["gold_label"]) - 1]  # 1-based in the file
        speed = [v.get("speed_answer") for v in q.get("speed_validation") or []]
        accuracy = sum(a == q["gold_label"] for a in speed) / len(speed) if speed else None
        meta = {"article_id": record.get("article_id"), "set_unique_id": record.get("set_unique_id"),
                "title": record.get("title"), "source": record.get("source"), "topic": record.get("topic"),
                "difficult": q.get("difficult"), "speed_accuracy": accuracy, "writer_label": q.get("writer_label")}
        tier = quality_tier(accuracy) if accuracy is not None else ("hard" if q.get("difficult") else "easy")
        out.append(choice_item(_text(q.get("question_unique_id")) or f"{record.get('set_unique_id')}_{n}",
                               _text(q.get("question")), options, letter, where, passage=article,
                               difficulty=tier, meta=meta))  # type: ignore[arg-type]
    return out


# --- Teach2Eval ---------------------------------------------------------------------------------------

_OPTION_PREFIX = re.compile(r"^\s*\(?([A-J])[.)．、:]\s*")


def _teach2eval_context(file: Path, root: Path) -> dict[str, Any]:
    parts = file.parent.parts
    ability = "/".join(parts[parts.index("dataset_test") + 1:]) if "dataset_test" in parts else file.parent.name
    return {"dataset": file.stem, "ability": ability}


def _teach2eval_convert(record: dict[str, Any], source: str, ctx: dict[str, Any]) -> list[Item] | str:
    labels = sorted({_text(x).upper() for x in (record.get("label") or [])})
    if not labels:
        return "no label"
    options = {}
    for i, text in enumerate(record.get("options") or []):
        match = _OPTION_PREFIX.match(str(text))
        letter = match.group(1) if match else LETTERS[i]
        options[letter] = _text(str(text)[match.end():] if match else text)
    if any(x not in options for x in labels):
        return "gold letter not among its options (options broken in the authors' file)"
    dataset = ctx.get("dataset") or _text(record.get("dataset")) or "teach2eval"
    meta = {"dataset": dataset, "ability": ctx.get("ability"), "level": record.get("level"),
            "source": record.get("source"), "answer": record.get("answer"), "analysis": record.get("analysis")}
    return [choice_item(f"{dataset}-{record.get('index', _hf_index(source))}", _text(_need(record, "question", source)),
                        options, "".join(labels), source, passage=_text(record.get("passage")) or None,
                        meta={k: v for k, v in meta.items() if v not in (None, "")})]


# --- the generic fields (Hugging Face records without a native format) --------------------------------


def _generic_convert(record: dict[str, Any], source: str, ctx: dict[str, Any]) -> list[Item]:
    return [to_item(record, source, ctx.get("fields") or ItemFields(), default_qid=f"hf-{_hf_index(source)}")]


def _no_files(path: Path, subset: str | None) -> Loaded:
    raise JudgeAgentError(f"format 'generic' reads Hugging Face records only: give hf:{path}")


def _iwslt_load(path: Path, subset: str | None) -> Loaded:
    from .iwslt import load_iwslt

    return load_iwslt(path, subset)


FORMATS: dict[str, Format] = {f.name: f for f in [
    Format("mmlu", "MMLU", "a <subject>_test.csv or a folder of them (with or without a header row)", (".csv",),
           _mmlu_read, _mmlu_convert, _mmlu_context),
    Format("arc", "ARC (AI2 Reasoning Challenge)", "ARC-*-Test.jsonl or a folder of them", (".jsonl",),
           _jsonl, _arc_convert, _arc_context),
    Format("hellaswag", "HellaSwag", "hellaswag_val.jsonl", (".jsonl",), _jsonl, _hellaswag_convert),
    Format("ceval", "C-Eval", "<subject>_val.csv or the folder of them (subject_mapping.json beside or above)",
           (".csv",), _csv_dicts, _ceval_convert, _ceval_context),
    Format("math", "MATH (Hendrycks)", "jsonl of the per-problem objects, or the folder of <subject>/<n>.json",
           (".jsonl", ".json"), lambda f: _jsonl(f) if f.suffix == ".jsonl" else _json(f), _math_convert,
           # upstream is one file a problem: its subject folder and number are its id
           lambda file, root: {"file_id": f"{file.parent.name}-{file.stem}"} if file.suffix == ".json" else {}),
    Format("gsm8k", "GSM8K", "test.jsonl", (".jsonl",), _jsonl, _gsm8k_convert),
    Format("mbpp", "MBPP", "mbpp.jsonl", (".jsonl",), _jsonl, _mbpp_convert),
    Format("iwslt", "IWSLT 2017 TED (WIT3 XML)", "<src>-<tgt>.tgz of the test archive (reverse archive found in "
           "texts/<tgt>/<src>/); #tst2016 for the other year", (".tgz",), _jsonl, lambda r, s, c: [],
           custom_load=_iwslt_load),
    Format("teach2eval", "Teach2Eval unified JSON", "a <Dataset>.json or the dataset_test folder", (".json",),
           _json, _teach2eval_convert, _teach2eval_context),
    Format("medqa", "MedQA (USMLE)", "test.jsonl (4 or 5 options)", (".jsonl",), _jsonl, _medqa_convert),
    Format("quality", "QuALITY", "QuALITY.v1.0.1.htmlstripped.dev (JSON lines; any name)", (".dev", ".train",
           ".jsonl"), _jsonl, _quality_convert),
    Format("generic", "Hugging Face records, generic fields", "hf:SOURCE only (--field maps columns)", (),
           _jsonl, _generic_convert, custom_load=_no_files),
]}
