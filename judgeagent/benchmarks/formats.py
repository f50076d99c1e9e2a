"""The native formats: how each publisher's files are found, read and turned into `Item`s."""
from __future__ import annotations

import csv
import io
import re
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar, cast

from ..errors import JudgeAgentError
from ..files import json_kind, json_records, jsonl_records, read_text
from .item import Item, ItemFields, Loaded, to_item
from .records import (
    ArcQuestion,
    ArcRecord,
    CevalRecord,
    Gsm8kRecord,
    HellaswagRecord,
    MathRecord,
    MbppRecord,
    MedqaRecord,
    MmluRecord,
    QualityRecord,
    Record,
    Teach2EvalRecord,
    parse,
    text_of,
)

Records = Iterable[tuple[Any, str]]
LETTERS = "ABCDEFGHIJ"


@dataclass(frozen=True)
class FileContext:
    """What a record's file (or its Hugging Face config) says about every record in it; each format sets its own."""

    subject: str | None = None
    """MMLU and C-Eval: the subject, from the file's name."""
    split: str | None = None
    """MMLU and C-Eval: the split the file's name ends with (test, dev, val, ...)."""
    stem: str | None = None
    """MMLU: the file's name without its suffix (the items' id prefix)."""
    subset: str | None = None
    """ARC: ARC-Challenge or ARC-Easy, from the file's name."""
    subject_en: str | None = None
    subject_zh: str | None = None
    category: str | None = None
    """C-Eval: the subject's English and Chinese names and its category (subject_mapping.json)."""
    file_id: str | None = None
    """MATH's one file a problem: `<subject folder>-<number>`."""
    dataset: str | None = None
    ability: str | None = None
    """Teach2Eval: the dataset (file name) and the ability (its folder under dataset_test)."""
    hf_config: str | None = None
    """Records from Hugging Face: the config they came from (ARC's names the set, C-Eval's the subject)."""
    fields: ItemFields | None = None
    """Records from Hugging Face: the user's column map (`--field`), for the generic format."""


Convert = Callable[[dict[str, Any], str, FileContext], "Sequence[Item | str] | str"]
"""A raw record (a JSON object or a CSV row, not checked yet), where it was read, its file's context -> its items,
or why it was skipped (the whole record, or in place of one of its items: a QuALITY article's unlabelled question)."""
R = TypeVar("R", bound=Record)


def typed(model: type[R], convert: Callable[[R, str, FileContext], Sequence[Item | str] | str]) -> Convert:
    """A format's conversion of its typed record: the raw one is checked against `model` first (one line per
    malformed field); keys that are not text (csv's extra cells, key None) are dropped."""
    def run(raw: dict[str, Any], source: str, ctx: FileContext) -> Sequence[Item | str] | str:
        return convert(parse(model, {k: v for k, v in raw.items() if isinstance(k, str)}, source), source, ctx)
    return run


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
    context: Callable[[Path, Path], FileContext] = field(default=lambda file, root: FileContext())
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
        context = FileContext(fields=fields or ItemFields(), hf_config=(subset or "").rpartition("/")[0] or None)
        return _convert_all(((r, s, context) for r, s in records), self.convert, origin)


def _files(path: Path, suffixes: tuple[str, ...], name: str) -> list[Path]:
    if path.is_file():
        return [path]
    found = sorted(p for p in path.rglob("*") if p.is_file() and p.name.endswith(suffixes))
    if not found:
        raise JudgeAgentError(f"no {name} file ({', '.join(suffixes)}) under {path}: give the file or the folder "
                              "that holds them")
    return found


def _convert_all(records: Iterable[tuple[Any, str, FileContext]], convert: Convert, origin: str) -> Loaded:
    items: list[Item] = []
    skipped: Counter[str] = Counter()
    for record, source, context in records:
        if not isinstance(record, dict):
            raise JudgeAgentError(f"{source}: expected an object, got {json_kind(record)}")
        out = convert(record, source, context)
        for one in [out] if isinstance(out, str) else out:
            if isinstance(one, str):
                skipped[one] += 1
            else:
                items.append(one)
    if not items:
        raise JudgeAgentError(f"benchmark {origin} has no items")
    notes = tuple(f"skipped {n} item(s): {why}" for why, n in skipped.most_common())
    return Loaded(items, notes)


# --- shared pieces ------------------------------------------------------------------------------------


def _text(value: Any) -> str:
    return "" if value is None else str(value).strip()


def _need(value: Any, key: str, source: str) -> Any:
    """`value` of the record's field `key`, which must be there."""
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


def lettered(texts: Iterable[Any], source: str = "", name: str = "options") -> dict[str, str]:
    texts = list(texts)
    if len(texts) > len(LETTERS):
        raise JudgeAgentError(f"{source}: field {name!r} has {len(texts)} options; at most {len(LETTERS)} "
                              f"(A-{LETTERS[-1]}) are read")
    return {LETTERS[i]: _text(t) for i, t in enumerate(texts)}


def _number(text: str) -> bool:
    """Digits 0-9 only (`str.isdigit` takes "²", which `int` refuses)."""
    return text.isascii() and text.isdigit()


def _answer_letter(value: Any, letters: list[str], source: str) -> str:
    """One of the options' letters (C-Eval's may skip an empty option's), or a 0-based index made its letter."""
    text = _text(value).upper()
    if _number(text) and int(text) < len(letters):
        return letters[int(text)]
    if len(text) == 1 and text in letters:
        return text
    raise JudgeAgentError(f"{source}: answer {value!r} is neither a letter nor an index of the {len(letters)} options")


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
    rows = _csv_rows(file, csv.reader)
    start = 1 if rows and rows[0] and rows[0][0].strip().lower() == "question" and rows[0][-1].strip().lower() == "answer" else 0
    for number, row in enumerate(rows[start:], start=start + 1):
        if not any(c.strip() for c in row):
            continue
        if len(row) != 6:
            raise JudgeAgentError(f"{file}:{number}: expected 6 columns (question, 4 options, answer), got {len(row)}")
        yield {"question": row[0], "choices": row[1:5], "answer": row[5], "_row": number - start}, f"{file}:{number}"


def _mmlu_context(file: Path, root: Path) -> FileContext:
    return FileContext(subject=_stem_subject(file), split=_split_of(file), stem=file.stem)


def _mmlu_convert(r: MmluRecord, source: str, ctx: FileContext) -> list[Item]:
    options = lettered(_need(r.choices, "choices", source), source, "choices")
    subject = ctx.subject or _text(r.subject) or "mmlu"
    letter = _answer_letter(r.answer, list(options), source)
    qid = f"{subject if ctx.stem is None else ctx.stem}-{r.row or _hf_index(source)}"
    meta = {"subject": subject, **({"split": ctx.split} if ctx.split else {})}
    return [choice_item(qid, _text(_need(r.question, "question", source)), options, letter, source, meta=meta)]


def _hf_index(source: str) -> str:
    match = re.search(r"\[(?:row )?(\d+)\]$", source)
    return str(int(match.group(1)) + 1) if match else source


# --- ARC ----------------------------------------------------------------------------------------------


def _arc_convert(r: ArcRecord, source: str, ctx: FileContext) -> list[Item]:
    question = _need(r.question, "question", source)
    if isinstance(question, dict):  # native: {"stem", "choices": [{"text", "label"}]}
        native = parse(ArcQuestion, question, source, ("question",))
        stem, choices = native.stem, native.choices or []
        labels, texts = [_text(c.label) for c in choices], [c.text for c in choices]
    else:  # Hugging Face allenai/ai2_arc: question text, choices {"text": [...], "label": [...]}
        stem = text_of(question, source, "question")
        labels, texts = [_text(x) for x in (r.choices and r.choices.label) or []], list((r.choices and r.choices.text) or [])
    if len(labels) > len(LETTERS):
        raise JudgeAgentError(f"{source}: {len(labels)} choices; at most {len(LETTERS)} are read")
    # Some items label their choices 1-4: lettered A-D here, so every reply reads the same way.
    letters = {label: LETTERS[i] for i, label in enumerate(labels)}
    key = _text(_need(r.answerKey, "answerKey", source))
    if key not in letters:
        raise JudgeAgentError(f"{source}: answerKey {key!r} is not one of the labels {labels}")
    qid = _text(r.id) or source
    named = f"{source} {ctx.hf_config or ''}".lower()
    subset = ctx.subset or ("ARC-Challenge" if "challenge" in named else "ARC-Easy")
    meta = {"subset": subset, "exam": qid.split("_")[0], **({"labels": labels} if labels != list(letters.values()) else {})}
    return [choice_item(qid, _text(stem), lettered(texts, source, "choices"), letters[key], source,
                        difficulty="hard" if subset == "ARC-Challenge" else "easy", meta=meta)]


def _arc_context(file: Path, root: Path) -> FileContext:
    return FileContext(subset="ARC-Challenge" if "challenge" in file.name.lower() else "ARC-Easy")


# --- HellaSwag ----------------------------------------------------------------------------------------


def _hellaswag_convert(r: HellaswagRecord, source: str, ctx: FileContext) -> list[Item] | str:
    if _text(r.label) == "":
        return "no label (the test split has none)"
    options = lettered(_need(r.endings, "endings", source), source, "endings")
    source_id = _text(r.source_id)
    meta = {"subject": _text(r.activity_label), "source": source_id.split("~")[0] or None,
            "split_type": r.split_type}
    qid = f"hellaswag-{_text(r.ind) or _hf_index(source)}"
    return [choice_item(qid, _text(_need(r.ctx, "ctx", source)), options,
                        _answer_letter(r.label, list(options), source), source, meta=meta)]


# --- C-Eval -------------------------------------------------------------------------------------------

_CEVAL_LEVELS = (("middle_school_", "middle school"), ("high_school_", "high school"), ("college_", "college"))


def _ceval_context(file: Path, root: Path) -> FileContext:
    import json

    subject = _stem_subject(file)
    mapping: dict[str, object] = {}
    for folder in (file.parent, file.parent.parent, root if root.is_dir() else root.parent):
        candidate = folder / "subject_mapping.json"
        if candidate.is_file():
            try:
                mapping = json.loads(read_text(candidate))
            except json.JSONDecodeError as e:
                raise JudgeAgentError(f"{candidate}:{e.lineno}: malformed JSON ({e.msg}, column {e.colno})") from None
            if not isinstance(mapping, dict):
                raise JudgeAgentError(f"{candidate} should be an object of subject -> [English name, Chinese name, "
                                      f"category], got {json_kind(mapping)}")
            break
    names = mapping.get(subject) or []
    bad = names if not isinstance(names, list) else next((n for n in names if not isinstance(n, (str, type(None)))), None)
    if bad is not None:
        got = json_kind(bad) if bad is names else f"a list holding {json_kind(bad)}"
        raise JudgeAgentError(f"{candidate}: subject {subject!r} should be [English name, Chinese name, category], "
                              f"got {got}")
    english, chinese, category = (cast("list[str | None]", names) + [None, None, None])[:3]
    return FileContext(subject=subject, split=_split_of(file), subject_en=english, subject_zh=chinese,
                       category=category)


def _csv_dicts(file: Path) -> Records:
    for number, row in enumerate(_csv_rows(file, csv.DictReader), start=2):
        yield row, f"{file}:{number}"


def _csv_rows(file: Path, reader: Callable[[io.StringIO], Iterable[Any]]) -> list[Any]:
    """Every row of a CSV file. csv refuses a cell over 131,072 characters (a long passage, a whole article):
    its limit is raised, while this file is read, to the file's own length, which no cell can pass."""
    text = read_text(file)
    limit = csv.field_size_limit()
    csv.field_size_limit(max(limit, len(text) + 1))
    try:
        return list(reader(io.StringIO(text, newline="")))
    except csv.Error as e:
        raise JudgeAgentError(f"{file}: not a CSV file csv can read ({e})") from None
    finally:
        csv.field_size_limit(limit)


def _ceval_convert(r: CevalRecord, source: str, ctx: FileContext) -> list[Item]:
    options = {k: _text(getattr(r, k)) for k in "ABCD" if _text(getattr(r, k))}
    subject = ctx.subject or ctx.hf_config or _text(r.subject) or "ceval"
    level = next((name for prefix, name in _CEVAL_LEVELS if subject.startswith(prefix)), None)
    known = {"hf_config": ctx.hf_config, "subject": subject, "split": ctx.split, "subject_en": ctx.subject_en,
             "subject_zh": ctx.subject_zh, "category": ctx.category, "level": level}
    meta: dict[str, object] = {k: v for k, v in known.items() if v}
    if _text(r.explanation):
        meta["explanation"] = _text(r.explanation)
    qid = f"{subject}-{_text(r.id) or _hf_index(source)}"
    return [choice_item(qid, _text(_need(r.question, "question", source)), options,
                        _answer_letter(r.answer, list(options), source), source, meta=meta)]


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


def _math_convert(r: MathRecord, source: str, ctx: FileContext) -> list[Item] | str:
    solution = _text(_need(r.solution, "solution", source))
    gold = last_boxed(solution)
    if not gold:
        return "no \\boxed{} answer in the solution"
    level_text = _text(r.level)
    level = int(level_text.split()[-1]) if level_text.split() and _number(level_text.split()[-1]) else None
    meta = {"subject": _text(r.type), "level": level, "solution": solution}
    where = ctx.file_id or (_hf_index(source) if "[" in source else source.rsplit(":", 1)[-1])
    qid = _text(r.unique_id) or f"math-{where}"
    return [Item(qid=qid, question=_text(_need(r.problem, "problem", source)), gold=gold, meta=meta, source=source)]


def _gsm8k_convert(r: Gsm8kRecord, source: str, ctx: FileContext) -> list[Item]:
    answer = _text(_need(r.answer, "answer", source))
    solution, sep, gold = answer.rpartition("####")
    if not sep or not gold.strip():
        raise JudgeAgentError(f"{source}: answer has no '#### <number>' line")
    qid = f"gsm8k-{_hf_index(source) if '[' in source else source.rsplit(':', 1)[-1]}"
    return [Item(qid=qid, question=_text(_need(r.question, "question", source)), gold=gold.strip().replace(",", ""),
                 meta={"solution": solution.strip()}, source=source)]


# --- MBPP ---------------------------------------------------------------------------------------------


def mbpp_split(task_id: int) -> str:
    """The paper's split by task id: 1-10 prompt, 11-510 test, 511-600 validation, 601-974 train."""
    return "prompt" if task_id <= 10 else "test" if task_id <= 510 else "validation" if task_id <= 600 else "train"


def _mbpp_convert(r: MbppRecord, source: str, ctx: FileContext) -> list[Item]:
    text = _text(r.text or r.prompt)
    if not text:
        raise JudgeAgentError(f"{source}: no 'text' field; is this MBPP?")
    tests = [str(t) for t in r.test_list or []]
    raw_id = _need(r.task_id, "task_id", source)
    if not _number(str(raw_id).strip()):  # HumanEval's "HumanEval/0", say
        raise JudgeAgentError(f"{source}: task_id {raw_id!r} is not a number as MBPP's are; is this MBPP's mbpp.jsonl?")
    task_id = int(raw_id)
    # The paper's prompt: the task, then its tests, so the function's name and signature are known.
    question = text + "\nYour code should pass these tests:\n\n" + "\n".join(tests)
    meta = {"task_id": task_id, "split": mbpp_split(task_id), "test_list": tests,
            "test_setup_code": _text(r.test_setup_code),
            "challenge_test_list": [str(t) for t in r.challenge_test_list or []]}
    code = str(_need(r.code, "code", source)).replace("\r\n", "\n")
    return [Item(qid=f"mbpp-{task_id}", question=question, gold=code, meta=meta, source=source)]


# --- MedQA --------------------------------------------------------------------------------------------


def _medqa_convert(r: MedqaRecord, source: str, ctx: FileContext) -> list[Item]:
    # options: letter -> text, or (some copies) [{"key": "A", "value": ...}]
    raw = _need(r.options, "options", source)
    options = {str(k).strip().upper(): _text(v) for k, v in raw.items() if _text(v)}
    letter = _text(r.answer_idx).upper()
    index = r.realidx if "realidx" in r.model_fields_set else (_hf_index(source) if "[" in source else source.rsplit(":", 1)[-1])
    meta: dict[str, object] = {"exam": _text(r.meta_info) or None}
    if r.metamap_phrases:
        meta["metamap_phrases"] = list(r.metamap_phrases)
    return [choice_item(f"medqa-{index}", _text(_need(r.question, "question", source)), options, letter, source, meta=meta)]


# --- QuALITY ------------------------------------------------------------------------------------------


def quality_tier(speed_accuracy: float) -> str:
    """JudgeAgent's three tiers from the speed validators' accuracy, with its 20% and 60% thresholds
    (our reading: hard at or below 20%, easy above 60%, medium between)."""
    return "hard" if speed_accuracy <= 0.2 else "easy" if speed_accuracy > 0.6 else "medium"


def _quality_convert(r: QualityRecord, source: str, ctx: FileContext) -> list[Item | str]:
    article = _text(_need(r.article, "article", source))
    out: list[Item | str] = []
    for n, q in enumerate(_need(r.questions, "questions", source), start=1):
        where = f"{source} question {n}"
        if q.gold_label is None:  # this question left out, not its article: the others may have theirs
            out.append("no gold_label (the test split has none)")
            continue
        options = lettered(q.options or [], where, "options")
        if not 1 <= q.gold_label <= len(options):  # 1-based in the file
            raise JudgeAgentError(f"{where}: gold_label {q.gold_label} is not an option's number "
                                  f"(1-{len(options)})")
        letter = LETTERS[q.gold_label - 1]
        speed = [v.speed_answer for v in q.speed_validation or []]
        accuracy = sum(a == q.gold_label for a in speed) / len(speed) if speed else None
        meta = {"article_id": r.article_id, "set_unique_id": r.set_unique_id,
                "title": r.title, "source": r.source, "topic": r.topic,
                "difficult": q.difficult, "speed_accuracy": accuracy, "writer_label": q.writer_label}
        tier = quality_tier(accuracy) if accuracy is not None else ("hard" if q.difficult else "easy")
        out.append(choice_item(_text(q.question_unique_id) or f"{r.set_unique_id}_{n}",
                               _text(q.question), options, letter, where, passage=article,
                               difficulty=tier, meta=meta))  # type: ignore[arg-type]
    return out


# --- Teach2Eval ---------------------------------------------------------------------------------------

_OPTION_PREFIX = re.compile(r"^\s*\(?([A-J])[.)．、:]\s*")


def _teach2eval_context(file: Path, root: Path) -> FileContext:
    parts = file.parent.parts
    ability = "/".join(parts[parts.index("dataset_test") + 1:]) if "dataset_test" in parts else file.parent.name
    return FileContext(dataset=file.stem, ability=ability)


def _teach2eval_convert(r: Teach2EvalRecord, source: str, ctx: FileContext) -> list[Item] | str:
    labels = sorted({_text(x).upper() for x in (r.label or [])})
    if not labels:
        return "no label"
    raw_options = r.options or []
    if len(raw_options) > len(LETTERS):
        raise JudgeAgentError(f"{source}: field 'options' has {len(raw_options)} options; at most {len(LETTERS)} are read")
    options = {}
    for i, text in enumerate(raw_options):
        match = _OPTION_PREFIX.match(str(text))
        letter = match.group(1) if match else LETTERS[i]
        options[letter] = _text(str(text)[match.end():] if match else text)
    if any(x not in options for x in labels):
        return "gold letter not among its options (options broken in the authors' file)"
    dataset = ctx.dataset or _text(r.dataset) or "teach2eval"
    meta = {"dataset": dataset, "ability": ctx.ability, "level": r.level,
            "source": r.source, "answer": r.answer, "analysis": r.analysis}
    index = r.index if "index" in r.model_fields_set else _hf_index(source)
    return [choice_item(f"{dataset}-{index}", _text(_need(r.question, "question", source)),
                        options, "".join(labels), source, passage=_text(r.passage) or None,
                        meta={k: v for k, v in meta.items() if v not in (None, "")})]


# --- the generic fields (Hugging Face records without a native format) --------------------------------


def _generic_convert(record: dict[str, Any], source: str, ctx: FileContext) -> list[Item]:
    return [to_item(record, source, ctx.fields or ItemFields(), default_qid=f"hf-{_hf_index(source)}")]


def _no_files(path: Path, subset: str | None) -> Loaded:
    raise JudgeAgentError(f"format 'generic' reads Hugging Face records only: give hf:{path}")


def _iwslt_load(path: Path, subset: str | None) -> Loaded:
    from .iwslt import load_iwslt

    return load_iwslt(path, subset)


FORMATS: dict[str, Format] = {f.name: f for f in [
    Format("mmlu", "MMLU", "a <subject>_test.csv or a folder of them (with or without a header row)", (".csv",),
           _mmlu_read, typed(MmluRecord, _mmlu_convert), _mmlu_context),
    Format("arc", "ARC (AI2 Reasoning Challenge)", "ARC-*-Test.jsonl or a folder of them", (".jsonl",),
           _jsonl, typed(ArcRecord, _arc_convert), _arc_context),
    Format("hellaswag", "HellaSwag", "hellaswag_val.jsonl", (".jsonl",), _jsonl, typed(HellaswagRecord, _hellaswag_convert)),
    Format("ceval", "C-Eval", "<subject>_val.csv or the folder of them (subject_mapping.json beside or above)",
           (".csv",), _csv_dicts, typed(CevalRecord, _ceval_convert), _ceval_context),
    Format("math", "MATH (Hendrycks)", "jsonl of the per-problem objects, or the folder of <subject>/<n>.json",
           (".jsonl", ".json"), lambda f: _jsonl(f) if f.suffix == ".jsonl" else _json(f), typed(MathRecord, _math_convert),
           # upstream is one file a problem: its subject folder and number are its id
           lambda file, root: FileContext(file_id=f"{file.parent.name}-{file.stem}" if file.suffix == ".json" else None)),
    Format("gsm8k", "GSM8K", "test.jsonl", (".jsonl",), _jsonl, typed(Gsm8kRecord, _gsm8k_convert)),
    Format("mbpp", "MBPP", "mbpp.jsonl", (".jsonl",), _jsonl, typed(MbppRecord, _mbpp_convert)),
    Format("iwslt", "IWSLT 2017 TED (WIT3 XML)", "<src>-<tgt>.tgz of the test archive (reverse archive found in "
           "texts/<tgt>/<src>/); #tst2016 for the other year", (".tgz",), _jsonl, lambda r, s, c: [],
           custom_load=_iwslt_load),
    Format("teach2eval", "Teach2Eval unified JSON", "a <Dataset>.json or the dataset_test folder", (".json",),
           _json, typed(Teach2EvalRecord, _teach2eval_convert), _teach2eval_context),
    Format("medqa", "MedQA (USMLE)", "test.jsonl (4 or 5 options)", (".jsonl",), _jsonl, typed(MedqaRecord, _medqa_convert)),
    Format("quality", "QuALITY", "QuALITY.v1.0.1.htmlstripped.dev (JSON lines; any name)", (".dev", ".train",
           ".jsonl"), _jsonl, typed(QualityRecord, _quality_convert)),
    Format("generic", "Hugging Face records, generic fields", "hf:SOURCE only (--field maps columns)", (),
           _jsonl, _generic_convert, custom_load=_no_files),
]}
