"""Prompts of a lesson (after the paper's Appendix D): the student's, the teacher's, and the teacher's own test."""
from __future__ import annotations

import re

from ...models.base import Message

ANSWER_SYSTEM = "Answer the multiple-choice question."
"""The same for the students and for the teacher's own test (AA): only the model differs."""

TEACHER_SYSTEM = (
    "You are a teacher helping a weaker student answer a question correctly. You see the question and the "
    "student's solution, but not the answer options the student chooses from. Each turn, first judge whether the "
    "student's latest solution is correct, then guide the student. Do not state the final answer in any way: point "
    "at what is wrong (where and why) and explain how to reason, so that the student finds the answer. If the "
    "solution is correct, briefly confirm its reasoning.\n"
    "Write exactly:\n"
    "Correctness of the latest solution: Correct or Wrong\n"
    "Guidance: your guidance")

TEACHER_SYSTEM_TELLING = (
    "You are a teacher helping a weaker student answer a question correctly. You see the question and the "
    "student's solution, but not the answer options the student chooses from. Each turn, first judge whether the "
    "student's latest solution is correct, then guide the student in whatever way helps it most; you may state "
    "the answer. If the solution is correct, briefly confirm its reasoning.\n"
    "Write exactly:\n"
    "Correctness of the latest solution: Correct or Wrong\n"
    "Guidance: your guidance")
"""`tell_answer=true`: the authors' runs (can_tell_answer=True) add no instruction to withhold the answer."""


def teacher_system(tell_answer: bool = False) -> str:
    return TEACHER_SYSTEM_TELLING if tell_answer else TEACHER_SYSTEM


NO_GUIDANCE = "(your teacher gave no guidance this time)"


def options_text(question: str, options: dict[str, str]) -> str:
    return f"Question: {question}\nOptions:\n" + "\n".join(f"{k}. {v}" for k, v in options.items())


_FINISH = "Think briefly, then end with a line 'Answer: X' where X is the letter of your choice."
_FINISH_SEVERAL = ("One or more options are correct. Think briefly, then end with a line 'Answer: X, Y' listing the "
                   "letter of every correct option.")
"""For an item with several correct options (the authors' question type 1: `set(answer) == set(label)`)."""


def _finish(several: bool) -> str:
    return _FINISH_SEVERAL if several else _FINISH


def answer_messages(question: str, options: dict[str, str], several: bool = False) -> list[Message]:
    """A first answer from the question and options alone (the student's turn 0; the teacher's own test)."""
    return [{"role": "system", "content": ANSWER_SYSTEM},
            {"role": "user", "content": f"{options_text(question, options)}\n\n{_finish(several)}"}]


def revise_messages(question: str, options: dict[str, str], previous: str, guidance: str,
                    several: bool = False) -> list[Message]:
    """The student revises from its previous answer and the teacher's latest guidance (paper, Section 3.2)."""
    user = (f"{options_text(question, options)}\n\nYour previous answer:\n{previous.strip() or '(none)'}\n\n"
            f"Your teacher's guidance:\n{guidance}\n\nAnswer the question again, using the guidance. "
            f"{_finish(several)}")
    return [{"role": "system", "content": ANSWER_SYSTEM}, {"role": "user", "content": user}]


REFLECT = ("If you judge it wrong, first reflect on whether your previous guidance was at fault (where it misled "
           "or fell short), then guide anew.")
"""From the second guidance turn (paper Section 3.3, reflection; the authors' `prompt_teacher_template`)."""


def solution_for_teacher(question: str | None, chosen: str | None, reply: str, turn: int,
                         reflect: bool = False) -> str:
    """What the teacher is shown of one student turn: the question (first turn only, without options), the
    option text the student chose (the teacher never sees the letters' meaning otherwise), its reasoning;
    `reflect` (turn >= 1) asks it to reflect on its previous guidance."""
    head = f"Question: {question}\n\n" if question is not None else ""
    ask = "Judge whether this latest solution is correct, then guide the student." + (f" {REFLECT}" if reflect else "")
    return f"{head}{_solution(chosen, reply, turn)}\n\n{ask}"


def _solution(chosen: str | None, reply: str, turn: int) -> str:
    answer = chosen if chosen is not None else "(the student named no option)"
    which = "first solution" if turn == 0 else f"revised solution (after your guidance {turn})"
    return f"The student's {which}.\nAnswer chosen: {answer}\nThe student wrote:\n{reply.strip() or '(nothing)'}"


_THINK = re.compile(r"<think>.*?</think>", re.DOTALL | re.IGNORECASE)


def transcript_for_teacher(question: str, solutions: list[tuple[str | None, str]], guides: list[str],
                           reflect: bool = False) -> str:
    """`history=transcript`: the whole lesson in one prompt, as the authors' dialogue_teacher.py builds it (the
    question without options, then each solution and the guidance that followed, the guidance without its
    <think> reasoning: their `remove_think_content`). `solutions` holds (chosen option text, reply) per turn."""
    lines = [f"Question: {question}", "", "The lesson so far:"]
    for turn, (chosen, reply) in enumerate(solutions):
        lines += ["", _solution(chosen, reply, turn)]
        if turn < len(guides):
            lines += ["", f"Your guidance {turn + 1}:\n{_THINK.sub('', guides[turn]).strip() or '(none)'}"]
    ask = "Judge whether the latest solution is correct, then guide the student." + (f" {REFLECT}" if reflect else "")
    return "\n".join(lines) + f"\n\n{ask}"


_LABELLED = re.compile(r"^.*\b(?:correctness|latest solution|judgment|judgement|verdict)\b[^:\n]*:(.*)$",
                       re.IGNORECASE | re.MULTILINE)
_OPENING = re.compile(r"^\W*(correct|right|wrong|incorrect)\b", re.IGNORECASE)
_VERDICT = re.compile(r"\b(not\s+correct|incorrect|wrong|correct|right)\b", re.IGNORECASE)
# Unlabelled, as weak teachers write it: "The student's solution is correct", "the answer is not right".
_STATED = re.compile(r"\b(?:solution|answer|student|response|it)\s+(?:is|was)\s+(not\s+correct|not\s+right|"
                     r"incorrect|wrong|correct|right)\b", re.IGNORECASE)


def parse_judgment(reply: str) -> bool | None:
    """The teacher's judgment of the latest solution: True ("correct"), False ("wrong"), None when the
    reply states none or both (a teacher that copies the template's "Correct or Wrong" has not judged).

    The labelled line decides; without one, a reply that opens with the verdict or first states that
    the solution "is correct" / "is wrong"."""
    for line in _LABELLED.finditer(reply):
        said = {w.lower().split()[0] in ("correct", "right") for w in _VERDICT.findall(line.group(1))}
        if len(said) == 1:
            return said.pop()
        if said:
            return None
    opening = _OPENING.match(reply.strip()) or _STATED.search(reply)
    return None if opening is None else opening.group(1).lower() in ("correct", "right")
