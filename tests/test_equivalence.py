"""The learned answer-equivalence step (grading/equivalence.py): its features, its calibration gate, its weights
file, and its decisions inside the checker on pairs that no rule decides."""
from __future__ import annotations

import asyncio
import json

import numpy as np
import pytest

from judgeagent.config import DEFAULT_EMBEDDING_MODEL, CheckerConfig
from judgeagent.errors import JudgeAgentError
from judgeagent.grading import equivalence
from judgeagent.grading.answers import AnswerChecker
from judgeagent.grading.equivalence import (
    FEATURES,
    SHIPPED,
    Equivalence,
    calibrate,
    features,
    fit,
    load,
    read,
)
from judgeagent.grading.free_text import check_free_text
from judgeagent.grading.verdict import METHODS

# Real replies of the kind EVOUNA holds (written here; EVOUNA itself stays outside the repository) that no rule
# decides: the gold named inside a longer sentence with other names, or another person of the asked kind.
UNDECIDED = [
    ("Which British politician is married to Justine Thornton?", ["Ed Miliband", "Red Ed"],
     ("Justine Thornton is the wife of British politician Ed Miliband. They married in 2011 and Ed Miliband later "
      "led the Labour Party."), True),
    ("Who was the last British man to reach a Grand Slam singles final before 2000?", ["Greg Rusedski"],
     ("The last British male to reach the final of a Grand Slam singles tournament was Andy Murray, who reached "
      "the US Open final."), False),
    ("Who succeeded Khrushchev as leader of the Soviet Union in 1964?", ["Alexei Kosygin", "Premier Kosygin"],
     "The leader who succeeded Nikita Khrushchev in 1964 was Leonid Brezhnev.", False),
    ("Who wrote the poem Written in the Cottage Where Burns Was Born?", ["John Keats", "Keats"],
     "The poem was written by Walter Scott in 1818.", False),
]
OTHERS = frozenset({"greg rusedski", "ed miliband", "john keats", "alexei kosygin", "andy murray", "walter scott",
                    "leonid brezhnev"})

# Training pairs for a small fitted step: the gold said inside a sentence (right), another name (wrong).
_TRAIN = [
    ("Who painted the Mona Lisa?", ["Leonardo da Vinci"], "It was painted by Leonardo da Vinci around 1503.", True),
    ("Who painted the Mona Lisa?", ["Leonardo da Vinci"], "It was painted by Raphael in Florence.", False),
    ("Which planet is known as the Red Planet?", ["Mars"], "Mars is called the Red Planet for its iron oxide.", True),
    ("Which planet is known as the Red Planet?", ["Mars"], "Jupiter is the planet people call red.", False),
    ("Who wrote Hamlet?", ["William Shakespeare"], "Hamlet was written by William Shakespeare about 1600.", True),
    ("Who wrote Hamlet?", ["William Shakespeare"], "Hamlet was written by Christopher Marlowe.", False),
    ("What is the capital of Australia?", ["Canberra"], "The capital city of Australia is Canberra, not Sydney.", True),
    ("What is the capital of Australia?", ["Canberra"], "The capital of Australia is Melbourne, in Victoria.", False),
    ("Who discovered penicillin?", ["Alexander Fleming"], "Penicillin was discovered in 1928 by Alexander Fleming.",
     True),
    ("Who discovered penicillin?", ["Alexander Fleming"], "Penicillin was discovered by Louis Pasteur in Paris.",
     False),
    ("Which composer wrote the Messiah?", ["George Frideric Handel", "Handel"],
     "The Messiah is an oratorio by Handel, first performed in Dublin.", True),
    ("Which composer wrote the Messiah?", ["George Frideric Handel", "Handel"],
     "The Messiah was composed by Johann Sebastian Bach.", False),
]


@pytest.fixture(scope="module")
def fitted(encoder) -> Equivalence:
    """A step fitted on `_TRAIN` with the real features (the packaged MiniLM the session loaded)."""
    equivalence._Cosine._encoders.setdefault(DEFAULT_EMBEDDING_MODEL, encoder)
    x = equivalence.features_many([(q, g, a) for q, g, a, _ in _TRAIN])
    y = [label for *_, label in _TRAIN]
    weights, mean, scale = fit(x, y)
    probe = Equivalence(weights, mean, scale, calibrate([0.0], [False]))
    cal = calibrate(probe.probabilities(x), y, max_fpr=0.05, min_negatives=5)
    return Equivalence(weights, mean, scale, cal, "test pairs")


def test_features_read_overlap_phrase_numbers_and_negation():
    f = dict(zip(FEATURES, features(*UNDECIDED[0][:3], cosine=False)))
    assert f["gold_recall"] == 1.0 and f["gold_phrase"] == 1.0 and f["negation"] == 0.0
    wrong = dict(zip(FEATURES, features(*UNDECIDED[2][:3], cosine=False)))
    assert wrong["gold_recall"] == 0.0 and wrong["gold_phrase"] == 0.0
    year = dict(zip(FEATURES, features("When did it end?", ["1945"], "It did not end in 1944.", cosine=False)))
    assert year["numbers_clash"] == 1.0 and year["numbers_agree"] == 0.0 and year["negation"] == 1.0


def test_calibration_keeps_the_false_positive_rate_and_fails_without_enough_wrong_answers():
    scores = [0.9, 0.8, 0.7, 0.6, 0.5] * 20 + [0.65] * 4 + [0.55] * 6 + [0.3] * 90
    labels = [True] * 100 + [False] * 100
    c = calibrate(scores, labels, max_fpr=0.05)
    assert c.passed and c.fpr == 0.04 and c.threshold == 0.6 and c.recall == 0.8
    few = calibrate([0.9, 0.1, 0.2], [True, False, False], max_fpr=0.05)
    assert not few.passed and "calibration failed" in few.note
    hopeless = calibrate([0.9] * 60 + [0.1] * 5, [False] * 60 + [True] * 5, max_fpr=0.05)
    assert not hopeless.passed


@pytest.fixture(scope="module")
def plain() -> Equivalence:
    """The same fit without the MiniLM feature (it stays 0): for the tests of the gate and the file."""
    x = equivalence.features_many([(q, g, a) for q, g, a, _ in _TRAIN], cosine=False)
    weights, mean, scale = fit(x, [label for *_, label in _TRAIN])
    return Equivalence(weights, mean, scale, calibrate([0.0], [False]), "test pairs")


def _write(path, fitted: Equivalence, **calibration) -> None:
    data = fitted.to_dict()
    data["calibration"].update(calibration)
    path.write_text(json.dumps(data))


def test_the_gate_turns_the_step_off_when_calibration_failed_or_is_too_loose(tmp_path, plain):
    fitted = plain
    path = tmp_path / "eq.json"
    _write(path, fitted, passed=True, fpr=0.0, max_fpr=0.05)
    step, note = load(path)
    assert step is not None and "learned step on" in note and "test pairs" in note
    _write(path, fitted, passed=False, note="calibration failed: 3 wrong answers held out")
    step, note = load(path)
    assert step is None and "calibration failed" in note
    _write(path, fitted, passed=True, fpr=0.08, max_fpr=0.10)
    step, note = load(path, max_fpr=0.05)
    assert step is None and "above 0.05" in note


def test_weights_files_round_trip_and_bad_ones_say_how_to_fix(tmp_path, plain):
    fitted = plain
    path = tmp_path / "eq.json"
    fitted.save(path)
    back = read(path)
    assert np.allclose(back.weights, fitted.weights, atol=1e-5) and back.encoder == DEFAULT_EMBEDDING_MODEL
    data = json.loads(path.read_text())
    data["features"] = data["features"][:-1]
    path.write_text(json.dumps(data))
    with pytest.raises(JudgeAgentError, match="retrain"):
        read(path)
    path.write_text("{not json")
    with pytest.raises(JudgeAgentError, match="unreadable"):
        read(path)


def test_the_default_weights_ship_calibrated_and_load_on():
    # #46: the EVOUNA TriviaQA tuning half's weights (Apache-2.0) are the default; their calibration passed on
    # that half's held-out fifth at the stated false-positive rate, and they name where they came from.
    step, note = load()
    assert SHIPPED.is_file() and step is not None and note.startswith("learned step on")
    c = step.calibration
    assert c.passed and c.fpr <= c.max_fpr == 0.05 and c.negatives >= 50 and "Apache-2.0" in step.trained_on


def test_the_fitted_step_decides_what_no_rule_decides(fitted):
    assert "learned" in METHODS
    for question, golds, answer, _ in UNDECIDED:
        assert check_free_text(answer, golds, question=question, others=OTHERS) is None
    with_step = AnswerChecker(CheckerConfig(), None, OTHERS, equivalence=fitted)
    without = AnswerChecker(CheckerConfig(), None, OTHERS)
    for question, golds, answer, label in UNDECIDED:
        v = asyncio.run(with_step.check(question, golds, answer))
        assert v.method == "learned" and v.correct is label, (answer, v)
        assert asyncio.run(without.check(question, golds, answer)).method == "undecided"


def _train_module():
    import importlib.util
    from pathlib import Path

    path = Path(__file__).resolve().parents[1] / "scripts" / "train_equivalence.py"
    spec = importlib.util.spec_from_file_location("train_equivalence", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module, path


def test_the_training_script_reads_each_labelled_form_and_refuses_a_file_without_labels(tmp_path):
    train, script = _train_module()
    data = tmp_path / "pairs.jsonl"
    rows = [
        {"question": "Who wrote Hamlet?", "gold": ["William Shakespeare", "Shakespeare"], "answer": "Shakespeare",
         "correct": True},  # this project's form
        {"question": "q", "reference": "light scattering", "candidate": "scattering of light", "label": 1},  # AE
        {"question": "q", "reference": "a dog", "candidate": "a cat", "score": 1},  # MOCHA: 1-5, 2 or below wrong
        {"question": "q", "reference": "a dog", "candidate": "a puppy", "score": 3},  # MOCHA's middle: left out
        {"question": "q", "reference": "a dog", "candidate": "the dog", "score": 5},
    ]
    data.write_text("\n".join(json.dumps(r) for r in rows) + "\n")
    pairs = train.read_pairs(data)
    assert [(p[2], p[3]) for p in pairs] == [("Shakespeare", True), ("scattering of light", True),
                                             ("a cat", False), ("the dog", True)]
    assert pairs[0][1] == ["William Shakespeare", "Shakespeare"]
    empty = tmp_path / "empty.jsonl"
    empty.write_text(json.dumps({"question": "q", "answer": "a"}) + "\n")
    with pytest.raises(JudgeAgentError, match="no labelled pair"):
        train.read_pairs(empty)
    import subprocess
    import sys

    done = subprocess.run([sys.executable, str(script), str(tmp_path / "missing.jsonl"), "--trained-on", "x",
                           "--out", str(tmp_path / "w.json")], capture_output=True, text=True, check=False)
    assert done.returncode != 0 and "Traceback" not in done.stderr
    assert done.stderr.strip().startswith("error: cannot read") and len(done.stderr.strip().splitlines()) == 1
