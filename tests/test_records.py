"""JudgeAgent's typed records (issue 43): a stored record and feedback entry come back byte for byte through
`QuestionRecord` / `FeedbackEntry`, and a format-1 record, which lacks the keys added since, opens with the values
the readers took for a missing key."""
from __future__ import annotations

import json
from pathlib import Path

from judgeagent.protocols.judgeagent.records import FeedbackEntry, QuestionRecord, batch_row
from judgeagent.protocols.judgeagent.summary import summarise

REFERENCE = Path(__file__).parent / "data" / "layout_reference" / "judgeagent"


def test_stored_records_come_back_byte_for_byte():
    lines = (REFERENCE / "records.jsonl").read_text(encoding="utf-8").splitlines()
    assert len(lines) == 20
    for line in lines:
        record = QuestionRecord.from_dict(json.loads(line))
        assert json.dumps(record.to_dict(), ensure_ascii=False) == line



def test_a_feedback_entry_comes_back_byte_for_byte_and_gives_the_batch_row():
    row = {"batch": 3, "qids": ["a", "b"], "feedback": {"flaws_knowledge": "k", "flaws_capability": "c",
                                                       "comprehensive_performance": "p", "suggestions": "s"},
           "feedback_error": None, "leakage": {"detected": ["Paris"], "regenerated": True, "redacted": False},
           "score": 2.5, "asked": 4, "trajectory": ["medium", "hard"],
           "rounds": [{"round": 1, "tier": "hard", "path": {"entities": []}, "rejected": ["too long"],
                       "generator": "llm"}, {"round": 2, "tier": "hard", "path": {}, "rejected": [], "skipped": "x"}]}
    entry = FeedbackEntry.from_dict(row)
    assert json.dumps(entry.to_dict()) == json.dumps(row) and entry.suggestions == "s"
    assert batch_row(entry) == {"batch": 3, "qids": ["a", "b"], "score": 2.5, "asked": 4,
                                "trajectory": ["medium", "hard"], "rounds_run": 1, "rounds_skipped": 1,
                                "leaks_detected": 1, "feedback_error": None}


def test_a_format_1_record_opens_with_the_defaults_the_readers_took():
    old = {"record_id": "b0-base-q1", "batch": 0, "stage": "grading", "round": 0, "qid": "q1", "difficulty": "hard",
           "question": "Q?", "options": None, "gold": "A", "gold_letter": None, "path": None, "prompt": [
               {"role": "user", "content": "Q?"}], "answer": "B", "target_error": None, "correct": False,
           "verdict": {"method": "exact", "reason": "differs", "extracted": "b"}, "points": -0.5}
    record = QuestionRecord.from_dict(old)
    assert (record.tier, record.question_type, record.held_out, record.aliases, record.generator, record.entities,
            record.tokens, record.verdict.score) == (None, None, False, (), None, None, None, None)
    assert record.golds == ("A",) and record.path_entities == [] and record.chunk_ids == []
    summary = summarise([record], [])
    assert summary["accuracy"]["grading/hard"] == {"n": 1, "correct": 0, "accuracy": 0.0}
    assert summary["judged_by"] == {"exact": 1} and summary["questions"] == 1
