"""Malformed fields in the native formats (#49): each is one line naming the file, the line and the field,
never a traceback, and never a string read as a list of one-character options or tests."""
from __future__ import annotations

import json

import pytest

from judgeagent.benchmark import load_benchmark
from judgeagent.errors import JudgeAgentError

from .conftest import DATA

ARC = {"id": "Q1", "question": {"stem": "Which is a gas?", "choices": [{"text": "iron", "label": "A"},
                                                                    {"text": "oxygen", "label": "B"}]},
       "answerKey": "B"}
HELLASWAG = {"ind": 1, "ctx": "A man", "endings": ["runs", "sits", "eats", "reads"], "label": 1}
MBPP = {"task_id": 11, "text": "Write f.", "code": "def f(): pass", "test_list": ["assert f() is None"]}
MEDQA = {"question": "Which?", "options": {"A": "x", "B": "y"}, "answer_idx": "B", "realidx": 3}
QUALITY = {"article": "Text.", "set_unique_id": "s1", "questions": [
    {"question": "What?", "options": ["a", "b", "c", "d"], "gold_label": 2, "question_unique_id": "q1"}]}
T2E = {"index": 0, "question": "Which?", "options": ["A. x", "B. y"], "label": ["B"]}
GSM8K = {"question": "1+1?", "answer": "so\n#### 2"}


def _with(record, **changes):
    out = json.loads(json.dumps(record))
    for key, value in changes.items():
        target = out
        *path, last = key.split("__")
        for step in path:
            target = target[int(step)] if step.isdigit() else target[step]
        target[int(last) if last.isdigit() else last] = value
    return out


def _write(tmp_path, fmt, records):
    if fmt == "teach2eval":
        file = tmp_path / "Set.json"
        file.write_text(json.dumps(records), encoding="utf-8")
    else:
        file = tmp_path / "test.jsonl"
        file.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    return file


CASES = [
    ("medqa", _with(MEDQA, options="A: x; B: y"), ":1: field 'options' should be an object of letter -> text, got a string"),
    ("medqa", _with(MEDQA, options=["x", "y"]), ":1: field 'options' should be an object of letter -> text or a list of"),
    ("medqa", _with(MEDQA, metamap_phrases="abc"), ":1: field 'metamap_phrases' should be a list of texts, got a string"),
    ("hellaswag", _with(HELLASWAG, endings="abcd"), ":1: field 'endings' should be a list of texts, got a string"),
    ("hellaswag", _with(HELLASWAG, endings=[f"e{i}" for i in range(11)]), "field 'endings' has 11 options; at most 10"),
    ("mbpp", _with(MBPP, test_list="assert f() is None"), ":1: field 'test_list' should be a list of texts, got a string"),
    ("mbpp", _with(MBPP, task_id="²"), "task_id '²' is not a number"),
    ("teach2eval", _with(T2E, options="AB"), "[0]: field 'options' should be a list of texts, got a string"),
    ("teach2eval", _with(T2E, label=1), "[0]: field 'label' should be a list of letters, got a number"),
    ("teach2eval", _with(T2E, label="B"), "[0]: field 'label' should be a list of letters, got a string"),
    ("arc", _with(ARC, question__choices="A) iron B) oxygen"), ":1: field 'question.choices' should be a list, got a string"),
    ("arc", _with(ARC, question__choices__0="iron"), ":1: field 'question.choices[0]' should be an object, got a string"),
    ("arc", _with(ARC, question__stem={"text": "x"}), ":1: field 'question.stem' should be text, got an object"),
    ("arc", {"id": "Q", "question": "Which?", "choices": ["iron", "oxygen"], "answerKey": "A"},
     ":1: field 'choices' should be an object, got an array"),
    ("quality", _with(QUALITY, questions__0__gold_label="two"), ":1: field 'questions[0].gold_label' should be a whole number, got a string"),
    ("quality", _with(QUALITY, questions__0__gold_label=9), ":1 question 1: gold_label 9 is not an option's number (1-4)"),
    ("quality", _with(QUALITY, questions__0__gold_label=0), "gold_label 0 is not an option's number"),
    ("quality", _with(QUALITY, questions=["What?"]), ":1: field 'questions[0]' should be an object, got a string"),
    ("quality", _with(QUALITY, questions__0__options="abcd"), "field 'questions[0].options' should be a list of texts"),
    ("gsm8k", _with(GSM8K, answer={"text": "#### 2"}), ":1: field 'answer' should be text, got an object"),
    ("gsm8k", [1, 2], ":1: expected an object, got an array"),
]


@pytest.mark.parametrize("fmt,record,message", CASES, ids=[f"{c[0]}-{i}" for i, c in enumerate(CASES)])
def test_a_malformed_field_is_one_line_naming_it(tmp_path, fmt, record, message):
    file = _write(tmp_path, fmt, [record])
    with pytest.raises(JudgeAgentError) as error:
        load_benchmark(f"{fmt}:{file}")
    assert message in str(error.value) and str(file) in str(error.value) and "\n" not in str(error.value)


@pytest.mark.parametrize("fmt,record", [("medqa", MEDQA), ("hellaswag", HELLASWAG), ("mbpp", MBPP), ("arc", ARC),
                                        ("quality", QUALITY), ("teach2eval", T2E), ("gsm8k", GSM8K)])
def test_the_well_formed_records_above_load(tmp_path, fmt, record):
    """The cases above differ from these in the one field they break."""
    assert len(load_benchmark(f"{fmt}:{_write(tmp_path, fmt, [record])}")) == 1


def test_medqa_options_as_key_value_objects_still_read(tmp_path):
    record = _with(MEDQA, options=[{"key": "A", "value": "x"}, {"key": "B", "value": "y"}])
    item = load_benchmark(f"medqa:{_write(tmp_path, 'medqa', [record])}").items[0]
    assert (item.options, item.gold) == ({"A": "x", "B": "y"}, "y")


def test_a_csv_cell_over_the_csv_modules_limit_is_read(tmp_path):
    """csv refuses cells over 131,072 characters unless told; the limit is raised to the file's length."""
    import csv

    long = "x" * 200_000
    mmlu = tmp_path / "long_test.csv"
    mmlu.write_text(f'"{long}",a,b,c,d,B\n', encoding="utf-8")
    ceval = tmp_path / "long_val.csv"
    ceval.write_text(f'id,question,A,B,C,D,answer\n0,"{long}",a,b,c,d,C\n', encoding="utf-8")
    before = csv.field_size_limit()
    assert load_benchmark(f"mmlu:{mmlu}").items[0].question == long
    assert load_benchmark(f"ceval:{ceval}").items[0].gold == "c"
    assert csv.field_size_limit() == before  # put back


@pytest.mark.parametrize("mapping,message", [
    ("{not json", "subject_mapping.json:1: malformed JSON"),
    ('["law"]', "subject_mapping.json should be an object of subject -> [English name, Chinese name, category], got an array"),
    ('{"law": "Law"}', "subject 'law' should be [English name, Chinese name, category], got a string"),
    ('{"law": [{"en": "Law"}]}', "got a list holding an object"),
])
def test_a_damaged_ceval_subject_mapping_is_one_line(tmp_path, mapping, message):
    (tmp_path / "law_val.csv").write_text("id,question,A,B,C,D,answer\n0,Q?,a,b,c,d,C\n", encoding="utf-8")
    (tmp_path / "subject_mapping.json").write_text(mapping, encoding="utf-8")
    with pytest.raises(JudgeAgentError, match="subject_mapping") as error:
        load_benchmark(f"ceval:{tmp_path}")
    assert message in str(error.value)


def test_a_short_ceval_subject_mapping_entry_is_padded(tmp_path):
    (tmp_path / "law_val.csv").write_text("id,question,A,B,C,D,answer\n0,Q?,a,b,c,d,C\n", encoding="utf-8")
    (tmp_path / "subject_mapping.json").write_text('{"law": ["Law"]}', encoding="utf-8")
    assert load_benchmark(f"ceval:{tmp_path}").items[0].meta["subject_en"] == "Law"


@pytest.mark.parametrize("record,message", [
    ({"question": "Q?", "answer": {"text": "Paris"}}, "field 'answer' should be text or a list of texts, got an object"),
    ({"question": "Q?", "answer": ["Paris", {"alias": "x"}]}, "got a list holding an object"),
    ({"question": {"text": "Q?"}, "answer": "Paris"}, "field 'question' should be text, got an object"),
])
def test_a_gold_or_question_that_is_an_object_is_refused(tmp_path, record, message):
    file = tmp_path / "b.jsonl"
    file.write_text(json.dumps(record) + "\n", encoding="utf-8")
    with pytest.raises(JudgeAgentError, match=message):
        load_benchmark(str(file))


def test_json_nested_deeper_than_python_reads_is_one_line(tmp_path):
    file = tmp_path / "test.jsonl"
    file.write_text("[" * 100_000 + "]" * 100_000 + "\n", encoding="utf-8")
    with pytest.raises(JudgeAgentError, match=r"test\.jsonl:1: JSON nested too deeply"):
        load_benchmark(f"gsm8k:{file}")


def test_hf_on_a_local_file_that_is_not_utf8_is_one_line(tmp_path):
    file = tmp_path / "b.jsonl"
    file.write_bytes(b'{"question": "caf\xe9", "answer": "1"}\n')
    with pytest.raises(JudgeAgentError, match=r"b\.jsonl:1: not valid UTF-8"):
        load_benchmark(f"hf:{file}")


@pytest.mark.parametrize("data", [
    "caf\u00e9\n".encode() * 3 + b"bad \xe9\n",  # a later line, after whole characters
    b"x\n\n" + "\u20ac".encode() + b"\n\xe2\x82",  # a character cut by the end of the file
    b"ok\n\xc3\xa9\xff\n",
])
def test_checking_utf8_in_chunks_names_the_line_and_byte_that_reading_whole_does(tmp_path, data):
    """hf: checks a file before Arrow reads it without holding it in memory; chunks of 1-3 bytes cut
    multi-byte characters, so a wrong carry-over of the decoder's held bytes shows as another line or byte."""
    from judgeagent.files import check_utf8, read_text
    file = tmp_path / "b.jsonl"
    file.write_bytes(data)
    with pytest.raises(JudgeAgentError) as whole:
        read_text(file)
    for chunk in (1, 2, 3, 1 << 20):
        with pytest.raises(JudgeAgentError) as chunked:
            check_utf8(file, chunk)
        assert str(chunked.value) == str(whole.value)


def test_an_iwslt_archive_with_a_changed_byte_is_one_line(tmp_path):
    """Found by tests/test_fuzz_loaders.py: zlib's own error escaped (a byte changed, not the end cut)."""
    texts = DATA / "papers" / "iwslt2017" / "archive" / "2017-01-ted-test" / "texts"
    data = bytearray((texts / "de" / "en" / "de-en.tgz").read_bytes())
    data[3886] = 0
    (tmp_path / "de-en.tgz").write_bytes(bytes(data))
    (tmp_path / "en-de.tgz").write_bytes((texts / "en" / "de" / "en-de.tgz").read_bytes())
    with pytest.raises(JudgeAgentError, match=r"de-en\.tgz is damaged \(its compressed data does not decompress"):
        load_benchmark(f"iwslt:{tmp_path / 'de-en.tgz'}#tst2016")
