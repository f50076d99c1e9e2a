"""Teach2Eval's abilities against hand-computed lessons: a teacher who never helps, one who always fixes,
students already right, and intervals that contain the value."""
import pytest

from judgeagent.protocols.teach2eval.teaching import (
    Lesson,
    abilities,
    comprehensive,
    guidance,
    judgment,
    reflection,
)


def lesson(item, correct, judged=None, student="s1"):
    return Lesson(item, student, tuple(correct), judged)


def test_a_teacher_who_never_helps():
    lessons = [lesson("a", [False, False, False, False], judged=False), lesson("b", [True, True, True, True], True)]
    assert guidance(lessons) == 0.0 and comprehensive(lessons) == 0.0 and reflection(lessons, "geometric") == 1.0
    assert reflection(lessons) == 0.0  # the paper's scoring: no change is 0 (%)
    assert judgment(lessons) == 1.0


def test_a_teacher_who_always_fixes_on_the_first_turn():
    lessons = [lesson(i, [False, True, True, True], judged=False) for i in "abc"] + [lesson("d", [True] * 4, True)]
    assert guidance(lessons) == 1.0
    assert comprehensive(lessons) == pytest.approx(3 / 4)  # accuracy 1/4 -> 4/4
    assert reflection(lessons, "geometric") == 1.0 and reflection(lessons) == 0.0  # nothing left after turn 1


def test_gradual_repair_is_reflection_above_one():
    lessons = [lesson("a", [False, True, True, True]), lesson("b", [False, False, True, True]),
               lesson("c", [False, False, False, True]), lesson("d", [False, False, False, False])]
    # accuracy by turn 0, 1/4, 2/4, 3/4: ratios 2 and 1.5, geometric mean sqrt(3); the paper's product - 1 is 2
    assert reflection(lessons, "geometric") == pytest.approx(3 ** 0.5)
    assert reflection(lessons) == pytest.approx(2 * 1.5 - 1)
    assert guidance(lessons) == pytest.approx(1 / 4)


def test_students_already_right_leave_guidance_undefined_and_judgment_counts_silence_as_wrong():
    lessons = [lesson("a", [True, True], judged=True), lesson("b", [True, True], judged=None)]
    assert guidance(lessons) is None and judgment(lessons, "geometric") == 0.5 and judgment(lessons) == 0.5
    assert reflection(lessons) is None  # one guidance turn: no turn-to-turn ratio


def test_comprehensive_is_averaged_over_students():
    lessons = [lesson("a", [False, True], student="s1"), lesson("b", [False, False], student="s1"),
               lesson("a", [True, True], student="s2"), lesson("b", [True, False], student="s2")]
    assert comprehensive(lessons) == pytest.approx((0.5 + -0.5) / 2)


def test_abilities_with_intervals():
    lessons = [lesson(f"q{i}", [i % 2 == 0, True, True], judged=i % 2 == 0) for i in range(20)]
    out = abilities(lessons, {f"q{i}": i < 15 for i in range(20)}, resamples=300)
    assert out["AA"]["value"] == 0.75 and out["JA"]["value"] == 1.0 and out["GA"]["value"] == 1.0
    lo, hi = out["AA"]["interval"]
    assert lo <= 0.75 <= hi and hi - lo > 0
    assert out["student_accuracy_by_turn"] == {"s1": [0.5, 1.0, 1.0]}


def test_several_students_average_their_abilities_rather_than_pool_them():
    # s1: 1 of 1 wrong answers repaired (GA 1); s2: 1 of 3 (GA 1/3). Pooled would be 2/4.
    lessons = [lesson("a", [False, True], judged=False, student="s1"), lesson("b", [True, True], True, "s1"),
               lesson("c", [True, True], True, "s1"), lesson("d", [True, True], False, "s1"),
               lesson("a", [False, True], judged=False, student="s2"), lesson("b", [False, False], False, "s2"),
               lesson("c", [False, False], True, "s2"), lesson("d", [True, True], True, "s2")]
    out = abilities(lessons, {i: True for i in "abcd"}, resamples=200)
    assert out["GA"]["value"] == pytest.approx((1 + 1 / 3) / 2)
    assert out["JA"]["value"] == pytest.approx((3 / 4 + 3 / 4) / 2)
    assert out["CA"]["value"] == pytest.approx((1 / 4 + 1 / 4) / 2)
    assert out["student_accuracy_by_turn"] == {"s1": [0.75, 1.0], "s2": [0.25, 0.5]}


# --- the paper's scoring: the authors' numbers --------------------------------------------------------------
# Source: zhiqix/Teach2Eval@dcdc43f, Teach2Eval/results/result_statistics.py: `judge_guide` reads a reply without
# a judgment as 0 ("wrong"); `reflect_ability` multiplies 1 + (wrong->right - right->wrong) / right(t-1) over
# turns 2..T, and the paper's tables show it as (product - 1) x 100.

def test_paper_reflection_is_the_authors_product_of_per_turn_ratios():
    # 100 lessons, right at turns 0..3: 40, 40, 44, 45 (turn 2: 5 repaired, 1 broken; turn 3: 2 repaired, 1 broken)
    pattern = ([[True] * 4] * 38 + [[True, True, False, False]] + [[True, True, True, False]]
               + [[False, False, True, True]] * 5 + [[False, False, False, True]] * 2 + [[False] * 4] * 53)
    lessons = [lesson(f"q{i}", p) for i, p in enumerate(pattern)]
    right = [sum(p[t] for p in pattern) for t in range(4)]
    assert right == [40, 40, 44, 45]
    authors = (1 + (5 - 1) / 40) * (1 + (2 - 1) / 44)
    assert reflection(lessons) == pytest.approx(authors - 1) and 100 * reflection(lessons) == pytest.approx(12.5)
    assert reflection(lessons, "geometric") == pytest.approx(authors ** 0.5)  # the same ratios, another summary


def test_table_2s_gpt_4o_reflection_as_the_report_shows_it():
    """Table 2 (seed paper, Section 4.2) gives GPT-4o-0806 an overall RA of 6.86 (Table 5's 10.14 is its Knowledge
    RA). Per-turn counts for which the authors' result_statistics.py gives 6.86: right at turn 1, 481 of 600; turn 2,
    30 repaired, 10 broken (501); turn 3, 15 repaired, 2 broken (514): (501/481)(514/501) - 1 = 6.86%. Through
    `abilities` and the report's `shown`. Seen to fail with `_combined` returning the geometric mean under `paper`
    (3.37%), and with the product without the `- 1` (106.86%)."""
    from judgeagent.protocols.teach2eval.report import shown

    pattern = ([[True] * 4] * 469 + [[True, True, False, False]] * 10 + [[True, True, True, False]] * 2
               + [[False, False, True, True]] * 30 + [[False, False, False, True]] * 15 + [[False] * 4] * 74)
    assert [sum(p[t] for p in pattern) for t in range(4)] == [481, 481, 501, 514]
    lessons = [lesson(f"q{i}", p) for i, p in enumerate(pattern)]
    out = abilities(lessons, {le.item: True for le in lessons}, resamples=50)
    assert round(100 * out["RA"]["value"], 2) == 6.86 and shown("RA", out["RA"]["value"]) == "+6.9"
    geometric = abilities(lessons, {le.item: True for le in lessons}, resamples=50, scoring="geometric")
    assert shown("RA", geometric["RA"]["value"], "geometric") == "1.034"  # the text's reading, as a ratio


def test_paper_judgment_reads_a_missing_judgment_as_wrong():
    lessons = [lesson("a", [False, False], judged=None), lesson("b", [True, True], judged=None),
               lesson("c", [True, True], judged=True)]
    assert judgment(lessons) == pytest.approx(2 / 3)  # silence on a wrong answer matches, as judge_guide's 0 does
    assert judgment(lessons, "geometric") == pytest.approx(1 / 3)


@pytest.mark.parametrize("scoring", ["paper", "geometric"])
def test_the_intervals_are_those_of_the_metrics_on_each_resample(scoring):
    """The bootstrap computes every resample from counts (`_Resampled`); its values must be, to the bit, the
    metric functions' on each resample's lesson list, as the intervals were computed before: here with students
    missing from some items, lessons of different lengths, missing judgments, and items only the teacher
    answered or only the students met."""
    import random

    from judgeagent.protocols.teach2eval.teaching import _percentiles, per_student

    rng = random.Random(7)
    lessons = []
    for i in range(40):
        for student in rng.sample(["s1", "s2", "s3"], rng.randint(0, 3)):
            turns = rng.choice([2, 3, 3, 4])
            lessons.append(lesson(f"q{i}", [rng.random() < 0.3 + 0.15 * t for t in range(turns)],
                                  rng.choice([True, False, None]), student))
    teacher = {f"q{i}": rng.random() < 0.7 for i in range(5, 45)}
    items = sorted({le.item for le in lessons} | set(teacher))
    out = abilities(lessons, teacher, resamples=200, seed=3, scoring=scoring)

    draws_rng = random.Random(3)
    draws = [[draws_rng.choice(items) for _ in items] for _ in range(200)]
    kept = [[le for i in draw for le in lessons if le.item == i] for draw in draws]
    expected = {
        "AA": [sum(teacher[i] for i in d if i in teacher) / n if (n := sum(i in teacher for i in d)) else None
               for d in draws],
        "JA": [per_student(lambda ls: judgment(ls, scoring), k) for k in kept],
        "GA": [per_student(guidance, k) for k in kept],
        "RA": [per_student(lambda ls: reflection(ls, scoring), k) for k in kept],
        "CA": [comprehensive(k) for k in kept],
    }
    for name, values in expected.items():
        assert out[name]["interval"] == _percentiles([v for v in values if v is not None]), name
