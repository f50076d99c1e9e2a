"""Tests written at stop 71 against the survivors of the first mutation runs of benchmarks/formats.py (each
publisher's files read into items: the names users type, the fields, bad input) and benchmarks/item.py (one record
of the user's own file to a checked item), each on real files under tmp_path and named by the behaviour it pins; the
mutant it kills is in the comment above it."""
from __future__ import annotations

import json

import pytest

from judgeagent.benchmark import ItemFields, load_benchmark
from judgeagent.cli.main import main
from judgeagent.errors import JudgeAgentError


def _jsonl(path, *records):
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    return path


def _refused(spec: str) -> str:
    with pytest.raises(JudgeAgentError) as error:
        load_benchmark(spec)
    assert "\n" not in str(error.value)
    return str(error.value)


# --- formats.py ------------------------------------------------------------------------------------------------


# formats.py `_need(r.question, "question", ...)` in MMLU's and C-Eval's conversions (the name -> ""): the
# error names the field the row lacks
@pytest.mark.parametrize("name, text, line", [
    ("law_test.csv", ",a,b,c,d,A\n", 1),
    ("law_val.csv", "id,question,A,B,C,D,answer\n0,,a,b,c,d,A\n", 2),
])
def test_formats_a_csv_row_without_its_question_is_one_line_naming_the_field(tmp_path, name, text, line):
    file = tmp_path / name
    file.write_text(text, encoding="utf-8")
    fmt = "mmlu" if name.endswith("_test.csv") else "ceval"
    assert _refused(f"{fmt}:{file}") == f"{file}:{line}: no 'question' field; is this the right format?"


# formats.py `_arc_convert`'s "... are read" (-> ""): the error says what is read of an item of eleven choices
def test_formats_an_arc_item_of_eleven_choices_is_one_line_saying_ten_are_read(tmp_path):
    choices = [{"text": f"t{i}", "label": f"L{i}"} for i in range(11)]
    file = _jsonl(tmp_path / "ARC-Easy-Test.jsonl",
                  {"id": "Q1", "question": {"stem": "Which?", "choices": choices}, "answerKey": "L0"})
    assert _refused(f"arc:{file}") == f"{file}:1: 11 choices; at most 10 are read"


# formats.py `_hellaswag_convert`'s skip reason (-> ""): the note says why the unlabelled item was left out
def test_formats_an_unlabelled_hellaswag_item_is_left_out_with_the_reason(tmp_path):
    labelled = {"ind": 7, "ctx": "A man", "endings": ["runs", "sits", "eats", "reads"], "label": 2}
    file = _jsonl(tmp_path / "hellaswag_test.jsonl", labelled, {**labelled, "ind": 8, "label": ""})
    loaded = load_benchmark(f"hellaswag:{file}")
    assert [(i.qid, i.gold) for i in loaded.items] == [("hellaswag-7", "eats")]
    assert loaded.notes == ("skipped 1 item(s): no label (the test split has none)",)


# formats.py `_gsm8k_convert`'s `.replace(",", "")` (-> `.replace("", "")`): a gold written with thousands
# separators is the number without them; its meta key "solution" (-> ""): the reasoning above "####" is kept
def test_formats_a_gsm8k_gold_loses_its_thousands_separators(tmp_path):
    file = _jsonl(tmp_path / "test.jsonl", {"question": "How many?", "answer": "so\n#### 1,250,000"})
    assert [(i.gold, i.meta) for i in load_benchmark(f"gsm8k:{file}").items] == [("1250000", {"solution": "so"})]


# formats.py `_quality_convert`'s meta key "writer_label" (-> ""): a QuALITY item keeps every field of its record
# and question under its own name, and its tier from the speed validators (1 of 2 right: medium)
def test_formats_a_quality_item_keeps_its_records_fields_under_their_names(tmp_path):
    question = {"question": "Who?", "question_unique_id": "q7", "options": ["Ann", "Bob", "Cy", "Di"], "gold_label": 2,
                "writer_label": 2, "difficult": 1, "speed_validation": [{"speed_answer": 2}, {"speed_answer": 3}]}
    file = _jsonl(tmp_path / "QuALITY.dev", {"article_id": "a1", "set_unique_id": "s1", "title": "T", "source": "S",
                                             "topic": "P", "article": "Once.", "questions": [question]})
    item, = load_benchmark(f"quality:{file}").items
    assert (item.qid, item.gold, item.gold_letter, item.passage, item.difficulty) == ("q7", "Bob", "B", "Once.", "medium")
    assert item.meta == {"article_id": "a1", "set_unique_id": "s1", "title": "T", "source": "S", "topic": "P",
                         "difficult": 1, "speed_accuracy": 0.5, "writer_label": 2}


# formats.py the suffixes of hellaswag (".jsonl"), quality (".train") and teach2eval (".json") (-> ""): a folder
# given as PATH is searched for the format's files only, and the notes beside them are not read as records
@pytest.mark.parametrize("fmt, name, record, qid", [
    ("hellaswag", "hellaswag_val.jsonl", {"ind": 7, "ctx": "A man", "endings": ["runs", "sits"], "label": 1},
     "hellaswag-7"),
    ("quality", "QuALITY.v1.0.1.htmlstripped.train",
     {"article": "Once.", "set_unique_id": "s1", "questions": [{"question": "Who?", "options": ["Ann", "Bob"],
                                                                "gold_label": 1, "question_unique_id": "q1"}]}, "q1"),
    ("teach2eval", "Set.json", [{"index": 3, "question": "Which?", "options": ["A. x", "B. y"], "label": ["B"]}],
     "Set-3"),
])
def test_formats_a_folder_is_searched_for_the_formats_files_only(tmp_path, fmt, name, record, qid):
    (tmp_path / name).write_text(json.dumps(record) + "\n", encoding="utf-8")
    (tmp_path / "README.md").write_text("# notes\n", encoding="utf-8")
    assert [i.qid for i in load_benchmark(f"{fmt}:{tmp_path}").items] == [qid]


# formats.py `_answer_letter`'s `len(text) == 1 and ...` (-> `or`): an answer of two letters is no letter of the
# options, not two correct ones; `choice_item`'s "none" (-> ""): a gold among no options says there are none;
# `_need(r.options, "options", ...)` (-> ""): MedQA's missing options are named
@pytest.mark.parametrize("fmt, name, text, says", [
    ("mmlu", "law_test.csv", "Which?,a,b,c,d,AB\n", ":1: answer 'AB' is neither a letter nor an index of the 4 options"),
    ("medqa", "test.jsonl", '{"question": "Which?", "options": {"A": "", "B": " "}, "answer_idx": "B", "realidx": 3}\n',
     ":1: item 'medqa-3': gold 'B' is not among the options (none)"),
    ("medqa", "test.jsonl", '{"question": "Which?", "answer_idx": "B"}\n',
     ":1: no 'options' field; is this the right format?"),
])
def test_formats_a_gold_that_names_no_option_is_one_line(tmp_path, fmt, name, text, says):
    file = tmp_path / name
    file.write_text(text, encoding="utf-8")
    assert _refused(f"{fmt}:{file}") == f"{file}{says}"


# formats.py `_arc_convert`'s meta key "labels" (-> ""): an ARC item labelled 1-4 is lettered A-D and keeps the
# file's labels in its meta; one labelled A-D keeps none
def test_formats_an_arc_item_labelled_by_number_keeps_its_labels(tmp_path):
    def arc(qid, labels, key):
        choices = [{"text": t, "label": label} for t, label in zip(("iron", "oxygen"), labels)]
        return {"id": qid, "question": {"stem": "Which is a gas?", "choices": choices}, "answerKey": key}

    file = _jsonl(tmp_path / "ARC-Challenge-Test.jsonl", arc("NY_1", ["1", "2"], "2"), arc("NY_2", ["A", "B"], "B"))
    numbered, lettered = load_benchmark(f"arc:{file}").items
    assert (numbered.gold, numbered.gold_letter, numbered.difficulty) == ("oxygen", "B", "hard")
    assert numbered.meta == {"subset": "ARC-Challenge", "exam": "NY", "labels": ["1", "2"]}
    assert lettered.meta == {"subset": "ARC-Challenge", "exam": "NY"}


# formats.py `@dataclass(frozen=True)` of `Format` (-> False): the formats are one table every load reads; none
# can be changed in place
def test_formats_a_format_of_the_table_cannot_be_changed():
    import dataclasses

    from judgeagent.benchmarks.formats import FORMATS

    with pytest.raises(dataclasses.FrozenInstanceError):
        FORMATS["mmlu"].suffixes = (".txt",)  # type: ignore[misc]
    assert FORMATS["mmlu"].suffixes == (".csv",)


# formats.py C-Eval's suffix ".csv" (-> "") and its level "college" (-> ""): a C-Eval folder is its subjects' CSV
# files, with subject_mapping.json beside them read for the names, not as a subject; a subject's prefix is its level
def test_formats_a_ceval_folder_reads_its_csv_files_and_names_each_subjects_level(tmp_path):
    mapping = {"college_physics": ["College Physics", "大学物理", "STEM"]}  # tab-indented, as upstream's
    (tmp_path / "subject_mapping.json").write_text(json.dumps(mapping, indent="\t"), encoding="utf-8")
    for subject in ("college_physics", "high_school_physics", "law"):
        (tmp_path / f"{subject}_val.csv").write_text("id,question,A,B,C,D,answer\n0,Which?,a,b,c,d,B\n", encoding="utf-8")
    items = load_benchmark(f"ceval:{tmp_path}").items
    assert [(i.qid, i.gold, i.meta.get("level")) for i in items] == [
        ("college_physics-0", "b", "college"), ("high_school_physics-0", "b", "high school"), ("law-0", "b", None)]
    assert items[0].meta == {"subject": "college_physics", "split": "val", "subject_en": "College Physics",
                             "subject_zh": "大学物理", "category": "STEM", "level": "college"}


# Not a mutant (stop 71's review): a C-Eval row whose option B is empty keeps A, C and D, and its answer D was
# refused as "neither a letter nor an index of the 3 options"; the answer is read against the options' own letters
def test_formats_a_ceval_answer_past_an_empty_option_is_its_own_letter(tmp_path):
    (tmp_path / "law_val.csv").write_text("id,question,A,B,C,D,answer\n0,Which?,a,,c,d,D\n1,Then?,a,,c,d,B\n",
                                           encoding="utf-8")
    with pytest.raises(JudgeAgentError) as e:
        load_benchmark(f"ceval:{tmp_path}")
    assert str(e.value).endswith("law_val.csv:3: answer 'B' is neither a letter nor an index of the 3 options")
    (tmp_path / "law_val.csv").write_text("id,question,A,B,C,D,answer\n0,Which?,a,,c,d,D\n", encoding="utf-8")
    [item] = load_benchmark(f"ceval:{tmp_path}").items
    assert (item.options, item.gold_letter, item.gold) == ({"A": "a", "C": "c", "D": "d"}, "D", "d")


# formats.py:173 `int(text) < len(letters)` (-> `<=`): an index one past the last option is refused in one line, not
# an IndexError
def test_formats_an_answer_index_one_past_the_options_is_refused_in_one_line(tmp_path):
    (tmp_path / "x_test.csv").write_text("question,A,B,C,D,answer\nWhich?,a,b,c,d,4\n", encoding="utf-8")
    with pytest.raises(JudgeAgentError) as e:
        load_benchmark(f"mmlu:{tmp_path / 'x_test.csv'}")
    assert str(e.value).endswith("x_test.csv:2: answer '4' is neither a letter nor an index of the 4 options")


# Not a mutant (stop 71's review): a list of more than 26 options was lettered past Z ("[", "\\", ...), letters no
# reply can name; 26 are read, 27 are one line
def test_item_a_list_of_options_is_lettered_up_to_z_and_no_further(tmp_path):
    rows = [{"question": "Which?", "options": [f"o{i}" for i in range(n)], "answer_letter": "Z"} for n in (26, 27)]
    for row, name in zip(rows, ("ok.jsonl", "long.jsonl")):
        (tmp_path / name).write_text(json.dumps(row) + "\n", encoding="utf-8")
    [item] = load_benchmark(str(tmp_path / "ok.jsonl")).items
    assert (list(item.options)[-1], item.gold_letter, item.gold) == ("Z", "Z", "o25")
    with pytest.raises(JudgeAgentError) as e:
        load_benchmark(str(tmp_path / "long.jsonl"))
    assert str(e.value).endswith("long.jsonl:1: options (field 'options') is a list of 27; at most 26 (A-Z) are lettered")


# formats.py `lettered`'s " (A-" (-> ""): eleven endings are one line saying which ten letters are read; `_gsm8k_
# convert`'s `not sep or not gold.strip()` (-> `and`): a "####" line with no number after it is refused, not read as
# an empty gold
@pytest.mark.parametrize("fmt, record, says", [
    ("hellaswag", {"ind": 1, "ctx": "A man", "endings": [f"e{i}" for i in range(11)], "label": 1},
     ":1: field 'endings' has 11 options; at most 10 (A-J) are read"),
    ("gsm8k", {"question": "How many?", "answer": "so\n####  "}, ":1: answer has no '#### <number>' line"),
    ("arc", {"id": "Q1", "question": {"stem": "Which?", "choices": [{"text": "iron", "label": "A"}]}, "answerKey": "E"},
     ":1: answerKey 'E' is not one of the labels ['A']"),
    ("quality", {"article": "Once.", "set_unique_id": "s1"}, ":1: no 'questions' field; is this the right format?"),
])
def test_formats_a_record_no_item_can_be_made_of_is_one_line_word_for_word(tmp_path, fmt, record, says):
    file = _jsonl(tmp_path / "test.jsonl", record)
    assert _refused(f"{fmt}:{file}") == f"{file}{says}"


# Not a mutant, a real bug: a QuALITY article with an unlabelled question was skipped whole, its labelled questions
# with it, and the note counted it as one item whatever its number of questions (here it said "skipped 2 item(s)"
# and read q1 only)
def test_formats_each_unlabelled_quality_question_is_skipped_and_counted_alone(tmp_path):
    def article(name, *labels):
        return {"article": "Once.", "set_unique_id": name, "questions": [
            {"question": "Who?", "options": ["Ann", "Bob"], "gold_label": label, "question_unique_id": f"{name}-{n}"}
            for n, label in enumerate(labels, 1)]}

    file = _jsonl(tmp_path / "QuALITY.dev", article("s1", 1), article("s2", None, None, None), article("s3", 2, None))
    loaded = load_benchmark(f"quality:{file}")
    assert [(i.qid, i.gold) for i in loaded.items] == [("s1-1", "Ann"), ("s3-1", "Bob")]
    assert loaded.notes == ("skipped 4 item(s): no gold_label (the test split has none)",)


# formats.py `from_records`' `fields or ItemFields()` (-> `and`): Hugging Face records in the generic format are read
# with the user's column map; `_arc_convert`'s `ctx.hf_config or ""` (-> `and ""`): an ARC config names its set
def test_formats_hugging_face_records_keep_the_column_map_and_the_config_names_the_set(tmp_path):
    import datasets
    import pyarrow as pa
    import pyarrow.parquet as pq

    pq.write_table(pa.Table.from_pylist([{"prompt": "2+2?", "completion": "4"}]), tmp_path / "lm.parquet")
    item, = load_benchmark(f"hf:{tmp_path / 'lm.parquet'}", ItemFields(question="prompt", answer="completion")).items
    assert (item.qid, item.question, item.gold) == ("hf-1", "2+2?", "4")
    arc = {"id": "Q1", "question": "Which is a gas?", "choices": {"text": ["iron", "oxygen"], "label": ["A", "B"]},
           "answerKey": "B"}
    datasets.DatasetDict({"test": datasets.Dataset.from_list([arc])}).save_to_disk(str(tmp_path / "ai2"))
    hard, = load_benchmark(f"arc:hf:{tmp_path / 'ai2'}#ARC-Challenge/test").items
    assert (hard.gold, hard.difficulty, hard.meta["subset"]) == ("oxygen", "hard", "ARC-Challenge")

# --- item.py ---------------------------------------------------------------------------------------------------


# item.py `ItemFields`' default columns "aliases" and "passage" (-> ""), `question_type`'s `or None` (-> `and None`):
# a record in the default columns is read field by field, its aliases a list or a `;`-separated text (or
# `answers` where it has no `aliases`), the columns no field names kept in meta
def test_item_the_default_columns_are_read_field_by_field(tmp_path):
    file = _jsonl(tmp_path / "b.jsonl",
                  {"qid": "q1", "question": "Who?", "answer": "Ann", "aliases": ["Anne", "Ann"], "passage": "Ann came.",
                   "question_type": "bridge", "difficulty": "Hard", "supporting_doc_ids": ["d1", "d2"], "year": 1999},
                  {"question": "Where?", "answer": "Oslo", "answers": "Christiania; Kristiania"})
    first, second = load_benchmark(file).items
    assert (first.qid, first.question, first.gold, first.aliases, first.passage, first.question_type,
            first.difficulty, first.supporting_doc_ids, first.meta) == \
           ("q1", "Who?", "Ann", ("Anne",), "Ann came.", "bridge", "hard", ("d1", "d2"), {"year": 1999})
    assert (second.qid, second.aliases, second.passage, second.question_type) == \
           ("b-2", ("Christiania", "Kristiania"), None, None)


# item.py `_no_object`'s `expected == "text"` (-> `== ""`): a question given as a list is refused, not read as the
# list's Python text; item.py ANSWER_COLUMNS' "response" (-> ""): a record of other tools' columns is refused with
# the --field mapping that reads it
@pytest.mark.parametrize("record, says", [
    ({"qid": "q1", "question": ["Who?", "Why?"], "answer": "Ann"}, ":1: field 'question' should be text, got a list"),
    ({"prompt": "Who?", "response": "Ann"}, ":1: item 'b-1' has no question (field 'question'); its columns: prompt, "
     "response; read them with --field question=prompt --field answer=response"),
])
def test_item_a_record_the_default_columns_cannot_read_is_one_line_and_nothing_is_written(tmp_path, capsys, record,
                                                                                          says):
    file = _jsonl(tmp_path / "b.jsonl", record)
    assert _refused(str(file)) == f"{file}{says}"
    code = main(["evaluate", "--benchmark", str(file), "--target", "nobody:model", "--run-dir", str(tmp_path / "run"),
                 "-q"])
    err = capsys.readouterr().err.strip()
    assert code == 1 and err.splitlines() == [f"error: {file}{says}"] and not (tmp_path / "run").exists()


# item.py `_loose`'s `" ".join(text.split())` (-> `"".join`): an answer given as text is its option's letter
# whatever its spacing, case and end stop, and words run together are another option's text
def test_item_an_answer_text_names_the_option_written_alike_not_one_without_its_spaces(tmp_path):
    file = _jsonl(tmp_path / "b.jsonl", {"question": "Which?", "answer": "Ice  Cream.", "options": ["icecream", "ice cream"]})
    item, = load_benchmark(file).items
    assert (item.gold, item.gold_letter) == ("Ice  Cream.", "B")


# item.py `_several`'s `letter.replace(",", " ")` (-> `replace(",", "")`): several gold letters written with commas
# and stops between them ("A.,C.") are read as their set
def test_item_several_gold_letters_written_with_stops_and_commas_are_their_set(tmp_path):
    file = _jsonl(tmp_path / "b.jsonl", {"question": "Which?", "options": ["x", "y", "z"], "answer_letter": "C.,A."})
    item, = load_benchmark(file).items
    assert (item.gold_letter, item.gold) == ("AC", "x; z")


# item.py `_meta`'s `record.get("meta")` (-> `.get("")`): the record's own meta, an object or the JSON text of one
# (a CSV cell), is the item's meta beside the columns no field names; other text is kept as it is
@pytest.mark.parametrize("meta, expected", [
    ({"split": "dev"}, {"year": 1999, "split": "dev"}),
    ('{"split": "dev"}', {"year": 1999, "split": "dev"}),
    ("{not json", {"year": 1999, "meta": "{not json"}),
])
def test_item_the_records_own_meta_is_the_items(tmp_path, meta, expected):
    file = _jsonl(tmp_path / "b.jsonl", {"question": "Who?", "answer": "Ann", "year": 1999, "meta": meta})
    assert load_benchmark(file).items[0].meta == expected


# item.py QUESTION_COLUMNS' and ANSWER_COLUMNS' names ("query", "question_text", ... -> ""): a record that keeps its
# question or its answer under another tool's column is refused with the --field mapping that reads it, and that
# mapping reads it (a record with Inspect's `input` is read with Inspect's columns, and its missing `target` named)
@pytest.mark.parametrize("column", ["input", "prompt", "query", "problem", "instruction", "question_text", "text",
                                    "context"])
def test_item_another_tools_question_column_is_named_in_the_fix(tmp_path, column):
    file = _jsonl(tmp_path / "b.jsonl", {column: "Who?", "answer": "Ann"})
    missing = ("no gold answer (neither 'target' nor 'answer_letter')" if column == "input" else
               "no question (field 'question')")
    assert _refused(str(file)) == (f"{file}:1: item 'b-1' has {missing}; its columns: {column}, answer; read them "
                                   f"with --field question={column}")
    item, = load_benchmark(file, ItemFields(question=column)).items
    assert (item.question, item.gold) == ("Who?", "Ann")


@pytest.mark.parametrize("column", ["target", "gold", "label", "output", "completion", "solution", "response"])
def test_item_another_tools_answer_column_is_named_in_the_fix(tmp_path, column):
    file = _jsonl(tmp_path / "b.jsonl", {"question": "Who?", column: "Ann"})
    assert _refused(str(file)) == (f"{file}:1: item 'b-1' has no gold answer (neither 'answer' nor 'answer_letter'); "
                                   f"its columns: question, {column}; read them with --field answer={column}")
    item, = load_benchmark(file, ItemFields(answer=column)).items
    assert (item.question, item.gold) == ("Who?", "Ann")


# item.py `_parse_json_cell`'s message (its closing ")" -> ""): a CSV options cell that is no JSON names the cell,
# the row's line and why, in one line
def test_item_a_csv_options_cell_that_is_no_json_is_one_line_word_for_word(tmp_path):
    file = tmp_path / "b.csv"
    file.write_text('question,answer,options\nWho?,Ann,"[""Ann"",\n', encoding="utf-8")
    assert _refused(str(file)) == f"{file}:2: options is not valid JSON (Expecting value)"


# item.py `@dataclass(frozen=True)` of `Item` (-> False): an item read from a file cannot be changed in place (the
# protocols share one benchmark's items)
def test_item_an_item_read_from_a_file_cannot_be_changed(tmp_path):
    import dataclasses

    item, = load_benchmark(_jsonl(tmp_path / "b.jsonl", {"question": "Who?", "answer": "Ann"})).items
    with pytest.raises(dataclasses.FrozenInstanceError):
        item.gold = "Bob"  # type: ignore[misc]
    assert item.gold == "Ann"
