"""Answer checking and token F1 on Chinese (text without spaces): C-Eval items and Teach2Eval's Chinese set
read from shared/data/papers, with replies as Chinese models write them."""
from __future__ import annotations

import asyncio

import pytest

from judgeagent.benchmark import load_benchmark
from judgeagent.grading.answers import check_answer
from judgeagent.grading.text import normalise_answer, numbers, token_f1

from .conftest import DATA

P = DATA / "papers"


@pytest.fixture(scope="module")
def law_item():
    """C-Eval law 1: gold D, 业主丁在其住宅上设立地役权."""
    return next(i for i in load_benchmark(f"ceval:{P}/ceval/val/law_val.csv").items if i.qid == "law-1")


def _check(item, reply):
    return asyncio.run(check_answer(item.question, item.gold, reply, options=item.options, gold_letter=item.gold_letter))


@pytest.mark.parametrize("reply,correct,method", [
    ("答案是D", True, "letter"),
    ("D。", True, "letter"),
    ("正确答案为：（D）", True, "letter"),
    ("我选D，因为设立地役权无需告知物业服务人。", True, "letter"),
    ("不选A，选D", True, "letter"),
    ("答案是A", False, "letter"),
    ("Ｄ", True, "letter"),  # full-width letter
    ("答案是A或D", False, None),  # a hedge commits to no option (then read as text: not the gold)
    ("业主丁在其住宅上设立地役权", True, "option_text"),
])
def test_ceval_choice_replies(law_item, reply, correct, method):
    verdict = _check(law_item, reply)
    assert verdict.correct is correct
    assert verdict.method == method if method else verdict.method not in ("letter", "option_text")


@pytest.mark.parametrize("reply,gold,correct", [
    ("北京", "北京", True),
    ("答案是北京。", "北京", True),
    ("中国的首都是北京", "北京", True),
    ("不是北京", "北京", None),      # negated: no rule accepts it (a judge reads it)
    ("北京或上海", "北京", None),    # a hedge
    ("答案：18元", "18", True),
    ("１８", "18", True),             # full-width digits
    ("答案是25元", "18", False),      # another number
])
def test_free_text_rules_on_chinese(reply, gold, correct):
    verdict = asyncio.run(check_answer("中国的首都是哪里？", gold, reply))
    if correct is None:
        assert verdict.method == "undecided" and verdict.correct is False
    else:
        assert verdict.correct is correct


def test_token_f1_is_character_level_on_chinese():
    assert normalise_answer("北京，中国的首都。") == "北 京 中 国 的 首 都"
    assert token_f1("北京市", "北京") == pytest.approx(0.8)  # 2 of 3 characters, both of the gold's
    assert token_f1("上海", "北京") == 0.0
    # Mixed text: Latin words stay whole, CJK characters split; English alone is unchanged.
    assert normalise_answer("GPT-4是模型") == "gpt4 是 模 型"
    assert normalise_answer("The Answer — is: Paris!") == "answer — is paris"
    assert numbers("共有1,200人，答案是18") == {1200.0, 18.0}


def test_iwslt_chinese_reference_scores_by_characters():
    item = next(iter(load_benchmark(f"iwslt:{P}/iwslt2017/archive/2017-01-ted-test/texts/en/zh/en-zh.tgz").items))
    # the reference with its commas and spaces changed, as another translator would write it
    variant = item.gold.replace("，", "").replace(" ", "")
    assert token_f1(variant, item.gold) == 1.0
    assert 0.3 < token_f1("我要讲一个故事", item.gold) < 0.7


def test_teach2eval_chinese_items_grade(tmp_path):
    items = load_benchmark(f"teach2eval:{P}/teach2eval/Teach2Eval/dataset/dataset_test/multilanguage/ceval.json",
                           limit=3).items
    for item in items:
        right = _check(item, f"答案是{item.gold_letter}。")
        wrong = _check(item, "答案是" + next(k for k in item.options if k != item.gold_letter))
        assert (right.correct, wrong.correct) == (True, False)
