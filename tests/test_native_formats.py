"""Native-format loaders (`--benchmark FORMAT:PATH`) on the publishers' own files in shared/data/papers.

Each case reads the shared sample and checks one or two items field by field against the raw record, read
by hand (the expected values below are copied from the files, not from the loader)."""
from __future__ import annotations

import json

import pytest

from judgeagent.benchmark import load_benchmark
from judgeagent.benchmarks.formats import last_boxed
from judgeagent.errors import JudgeAgentError

from .conftest import DATA

P = DATA / "papers"
T2E = P / "teach2eval" / "Teach2Eval" / "dataset" / "dataset_test"
WIT3 = P / "iwslt2017" / "archive" / "2017-01-ted-test" / "texts"

CASES = [
    # spec, item count, qid, expected fields
    (f"mmlu:{P}/mmlu/data/mmlu/test", 3096, "virology_test-1",
     {"question": "How many human polyomaviruses are known at present?", "gold": "100", "gold_letter": "A",
      "options": {"A": "100", "B": "1", "C": "10", "D": "unknown"}, "meta.subject": "virology", "meta.split": "test"}),
    (f"arc:{P}/arc", 2376 + 1172, "NYSEDREGENTS_2015_8_28",  # labelled 1-4 in the file, answerKey "2"
     {"question": "All living and nonliving material is composed of", "gold": "elements", "gold_letter": "B",
      "difficulty": "easy", "meta.subset": "ARC-Easy", "meta.exam": "NYSEDREGENTS"}),
    (f"arc:{P}/arc/ARC-Easy/ARC-Easy-Test.jsonl", 2376, "Mercury_417466",
     {"gold": "Sunlight is the source of energy for nearly all ecosystems.", "gold_letter": "A"}),
    (f"hellaswag:{P}/hellaswag/data/hellaswag.jsonl", 1000, "hellaswag-2533",
     {"question": "A woman in a dress holding a violin addresses an audience. The woman plays the violin as other "
                  "musicians look on. the woman", "gold_letter": "C", "meta.subject": "Playing violin",
      "meta.source": "activitynet", "meta.split_type": "zeroshot"}),
    (f"ceval:{P}/ceval/val", 1346, "law-1",
     {"question": "某住宅小区业主从事的下列行为中，不必将相关情况告知物业服务人的情形是____。",
      "gold": "业主丁在其住宅上设立地役权", "gold_letter": "D", "meta.subject": "law", "meta.subject_zh": "法学",
      "meta.category": "Humanities"}),
    (f"ceval:{P}/ceval/val/middle_school_physics_val.csv", None, "middle_school_physics-0",
     {"meta.level": "middle school", "meta.category": "STEM"}),
    (f"math:{P}/math/data/math/test.jsonl", 1000, "math-3",
     {"gold": "\\frac{1}{10}", "meta.level": 5, "meta.subject": "Counting & Probability"}),
    (f"gsm8k:{P}/gsm8k/grade_school_math/data/test.jsonl", 1319, "gsm8k-5", {"gold": "20"}),
    (f"mbpp:{P}/mbpp/mbpp.jsonl", 974, "mbpp-1",
     {"meta.task_id": 1, "meta.split": "prompt",
      "meta.test_list": ["assert min_cost([[1, 2, 3], [4, 8, 2], [1, 5, 3]], 2, 2) == 8",
                         "assert min_cost([[2, 3, 4], [5, 9, 3], [2, 6, 4]], 2, 2) == 12",
                         "assert min_cost([[3, 4, 5], [6, 10, 4], [3, 7, 5]], 2, 2) == 16"]}),
    (f"iwslt:{WIT3}/en/zh/en-zh.tgz", 1459, "tst2017-enzh-2455-1",
     {"question": "So, this is a story about how we know what we know.",
      "gold": "好吧，我要讲个故事， 是关于我们如何了解自己所知的事物。", "meta.target_language": "Chinese",
      "meta.title": "Latif Nasser: You have no idea where camels really come from"}),
    (f"teach2eval:{T2E}/understanding/rte.json", 64, "rte-0",
     {"gold": "text 1 entails Text 2", "gold_letter": "B", "meta.answer": "entailment", "meta.level": 1,
      "options": {"A": "text 1 and text 2 are unrelated or contradict each other", "B": "text 1 entails Text 2"}}),
    (f"teach2eval:{T2E}/multilanguage/ceval.json", 311, "ceval-0",
     {"gold": "作为机动气源的混气站不能与气源厂、城市煤气储配站合设", "gold_letter": "D", "meta.ability": "multilanguage"}),
    (f"medqa:{P}/medqa/data/medqa/test.jsonl", 1273, "medqa-0",
     {"gold": "Tell the attending that he cannot fail to disclose this mistake", "gold_letter": "B",
      "meta.exam": "step1"}),
]


def _field(item, name):
    if name.startswith("meta."):
        return item.meta.get(name[5:])
    return getattr(item, name)


@pytest.mark.parametrize("spec,count,qid,expected", CASES, ids=[c[0].split(":")[0] + "-" + c[2] for c in CASES])
def test_native_item_field_by_field(spec, count, qid, expected):
    benchmark = load_benchmark(spec)
    if count is not None:
        assert len(benchmark) == count
    item = {i.qid: i for i in benchmark.items}[qid]
    assert {k: _field(item, k) for k in expected} == expected
    if item.options:
        assert item.options[item.gold_letter] == item.gold


def test_mmlu_without_a_header_reads_the_letters(tmp_path):
    """Upstream MMLU: no header, the answer a letter; the shared copy's header variant gives the same items."""
    shared = P / "mmlu" / "data" / "mmlu" / "test" / "virology_test.csv"
    lines = shared.read_text(encoding="utf-8").splitlines(keepends=True)
    native = tmp_path / "virology_test.csv"
    rows = [line.rstrip("\n") for line in lines[1:]]
    # Map the index to the letter in the last column (FORMAT.md: answer = "ABCD"[index]).
    native.write_text("".join(r[: r.rfind(",") + 1] + "ABCD"[int(r[r.rfind(",") + 1:])] + "\n" for r in rows),
                      encoding="utf-8")
    ours, theirs = load_benchmark(f"mmlu:{native}").items, load_benchmark(f"mmlu:{shared}").items
    assert [(i.qid, i.question, i.gold_letter, i.options) for i in ours] == \
           [(i.qid, i.question, i.gold_letter, i.options) for i in theirs]


def test_quality_article_and_three_difficulty_tiers():
    items = load_benchmark(f"quality:{P}/quality/data/v1.0.1/QuALITY.v1.0.1.htmlstripped.dev").items
    # speed validators right: 4/5, 0/5, 1/5, 2/5, 1/5, 3/5 (gold_label 2, 2, 3, 4, 1, 4; 1-based)
    assert [i.gold_letter for i in items] == ["B", "B", "C", "D", "A", "D"]
    assert [i.difficulty for i in items] == ["easy", "hard", "hard", "medium", "hard", "medium"]
    assert [i.meta["difficult"] for i in items] == [0, 1, 1, 1, 1, 0]
    assert items[0].gold == "10 hours" and items[0].passage.startswith("THE GIRL IN HIS MIND")
    assert len({i.passage for i in items}) == 1


def test_teach2eval_folder_keeps_multi_answer_items_and_says_what_it_skips():
    benchmark = load_benchmark(f"teach2eval:{T2E}")
    assert len(benchmark) == 4519 + 117  # JEC-QA's 117 items with 2-4 gold letters kept, graded as the set
    several = [i for i in benchmark.items if len(i.gold_letter) > 1]
    assert len(several) == 117 and all(list(i.gold_letter) == sorted(i.gold_letter) for i in several)
    assert all(i.gold == "; ".join(i.options[x] for x in i.gold_letter) for i in several)
    assert benchmark.notes == ("skipped 10 item(s): gold letter not among its options (options broken in the authors' file)",)
    assert {i.meta["ability"] for i in benchmark.items} >= {"knowledge/domain/law", "reasoning/Logical Reasoning"}


def test_iwslt_pairs_by_segment_id_and_picks_the_year():
    items = load_benchmark(f"iwslt:{WIT3}/de/en/de-en.tgz#tst2016").items
    first = items[0]
    assert (first.qid, first.meta["source_language"], first.meta["target_language"]) == \
           ("tst2016-deen-2227-1", "German", "English")
    assert first.gold.startswith("We're at a tipping point in human history")


def test_math_upstream_folder_of_one_file_a_problem(tmp_path):
    """Upstream MATH is MATH/test/<subject>/<n>.json: the shared jsonl's lines written back that way."""
    lines = (P / "math" / "data" / "math" / "test.jsonl").read_text(encoding="utf-8").splitlines()[:3]
    for n, line in enumerate(lines, 1):
        folder = tmp_path / "test" / json.loads(line)["type"].lower().replace(" & ", "_").replace(" ", "_")
        folder.mkdir(parents=True, exist_ok=True)
        (folder / f"{n}.json").write_text(line, encoding="utf-8")
    items = load_benchmark(f"math:{tmp_path / 'test'}").items
    assert sorted(i.qid for i in items) == ["math-counting_probability-1", "math-counting_probability-2",
                                            "math-counting_probability-3"]
    assert {i.gold for i in items} == {"1000000", "262144", "\\frac{1}{10}"}


@pytest.mark.parametrize("solution,gold", [
    ("so $x=\\boxed{\\frac{1}{10}}$.", "\\frac{1}{10}"),
    ("first \\boxed{2}, then \\boxed{\\sqrt{\\frac{a}{b}}}", "\\sqrt{\\frac{a}{b}}"),
    ("\\fbox{7}", "7"),
    ("no box", None),
    ("\\boxed{unclosed", None),
])
def test_last_boxed_matches_nested_braces(solution, gold):
    assert last_boxed(solution) == gold


def test_hugging_face_route_on_local_parquet_and_saved_dataset(tmp_path):
    import datasets
    import pyarrow as pa
    import pyarrow.parquet as pq

    rows = [json.loads(line) for line in
            (P / "gsm8k" / "grade_school_math" / "data" / "test.jsonl").read_text(encoding="utf-8").splitlines()[:3]]
    pq.write_table(pa.Table.from_pylist(rows), tmp_path / "test.parquet")
    items = load_benchmark(f"gsm8k:hf:{tmp_path / 'test.parquet'}").items
    assert [i.gold for i in items] == ["18", "3", "70000"]
    # allenai/ai2_arc's layout (choices as {text: [...], label: [...]}) through save_to_disk
    arc = [{"id": "Q1", "question": "Which is a gas?", "choices": {"text": ["iron", "oxygen"], "label": ["1", "2"]},
            "answerKey": "2"}]
    datasets.DatasetDict({"test": datasets.Dataset.from_list(arc)}).save_to_disk(str(tmp_path / "arc"))
    item = load_benchmark(f"arc:hf:{tmp_path / 'arc'}#test").items[0]
    assert (item.gold, item.gold_letter, item.options) == ("oxygen", "B", {"A": "iron", "B": "oxygen"})
    assert item.meta["subset"] == "ARC-Easy"
    generic = load_benchmark(f"hf:{tmp_path / 'test.parquet'}").items  # generic fields: answer column as is
    assert generic[0].question.startswith("Janet")


@pytest.mark.parametrize("spec,message", [
    ("mmlu:/nonexistent/dir", "benchmark not found"),
    ("nosuch:/x", "unknown benchmark format 'nosuch'"),
    (f"iwslt:{P}/iwslt2017/archive/2017-01-ted-test/texts/en/zh/en-zh.tgz#tst2015", "unknown IWSLT test set"),
    (f"gsm8k:{P}/mbpp/mbpp.jsonl", "no 'answer' field; is this the right format"),
    (f"mbpp:{DATA}/humaneval/problems.jsonl", "task_id 'HumanEval/0' is not a number as MBPP's are"),
])
def test_bad_specs_fail_with_one_line(spec, message):
    with pytest.raises(JudgeAgentError, match=message) as error:
        load_benchmark(spec)
    assert "\n" not in str(error.value)


def test_evaluate_takes_a_native_benchmark_and_says_what_it_left_out(capsys):
    from judgeagent.cli.main import main

    jec = T2E / "knowledge" / "domain" / "law" / "jecQA.json"
    assert main(["evaluate", "--benchmark", f"teach2eval:{jec}", "--target", "local", "--no-extension", "--dry-run",
                 "--limit", "3"]) == 0
    out, err = capsys.readouterr()
    assert "estimate for 3 items" in out


def test_a_truncated_iwslt_archive_is_one_line_not_an_abort(tmp_path, capsys):
    """A gzip stream cut short raises EOFError, which click takes for Ctrl-C ("aborted", exit 130)."""
    from judgeagent.cli.main import main

    source = WIT3 / "en" / "zh" / "en-zh.tgz"
    cut = tmp_path / "texts" / "en" / "zh" / "en-zh.tgz"
    cut.parent.mkdir(parents=True)
    cut.write_bytes(source.read_bytes()[: source.stat().st_size // 2])
    other = tmp_path / "texts" / "zh" / "en" / "zh-en.tgz"  # the references' archive, whole
    other.parent.mkdir(parents=True)
    other.write_bytes((WIT3 / "zh" / "en" / "zh-en.tgz").read_bytes())
    with pytest.raises(JudgeAgentError, match=r"en-zh\.tgz is truncated \(its compressed data ends early\)"):
        load_benchmark(f"iwslt:{cut}")
    code = main(["evaluate", "--benchmark", f"iwslt:{cut}", "--target", "local", "--dry-run"])
    err = capsys.readouterr().err
    assert code == 1 and "is truncated" in err and "aborted" not in err and len(err.strip().splitlines()) == 1


def test_ceval_from_hugging_face_keeps_its_meta_json_and_in_order(tmp_path):
    """The file's context (`FileContext`) feeds the item's meta: through the Hugging Face route a C-Eval item
    names its config as its subject, and its meta stays JSON (the column map is no meta)."""
    import datasets

    row = {"id": 0, "question": "1+1=____", "A": "1", "B": "2", "C": "3", "D": "4", "answer": "B", "explanation": ""}
    datasets.DatasetDict({"val": datasets.Dataset.from_list([row])}).save_to_disk(str(tmp_path / "ceval"))
    item = load_benchmark(f"ceval:hf:{tmp_path / 'ceval'}#high_school_physics/val").items[0]
    assert (item.qid, item.gold_letter) == ("high_school_physics-0", "B")
    assert json.dumps(item.meta) == '{"hf_config": "high_school_physics", "subject": "high_school_physics", ' \
                                    '"level": "high school"}'
    local = load_benchmark(f"ceval:{P}/ceval/val/middle_school_physics_val.csv").items[0]
    assert list(local.meta) == ["subject", "split", "subject_en", "subject_zh", "category", "level"]
