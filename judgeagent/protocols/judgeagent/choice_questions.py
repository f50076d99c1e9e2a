"""`setting=authors`' extension questions on a multiple-choice benchmark: 4 options, one right by the path text
(the authors' `SOG_PROMPT_MC`, prompt.py, re-expressed in our words), checked as options, graded by letter."""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel, Field

from ...grading.answers import AnswerChecker, normalise_answer
from ...models.base import Message
from ..runner import gather_all
from .checks import answer_in_question, jaccard, supported
from .config import EvalConfig
from .prompts import DIFFICULTY_RULES, answer_messages

LETTERS = ("A", "B", "C", "D")
"""The authors' multiple-choice questions, generated and in MedQA and QuALITY, have four options A-D."""

EXAMPLE = ('Text: "The probe was launched in 1977 from Cape Canaveral aboard a Titan IIIE rocket."\n'
           'Question: "From which launch site did the probe lift off in 1977?"\n'
           'Options: {"A": "Vandenberg", "B": "Baikonur", "C": "Cape Canaveral", "D": "Kourou"} Answer: "C"')


class GeneratedChoice(BaseModel):
    question: str
    options: dict[str, str] = Field(description="Exactly four options, keyed A, B, C and D.")
    answer: str = Field(description="The letter of the one correct option.")


class GeneratedChoices(BaseModel):
    generated_question: list[GeneratedChoice]


@dataclass(frozen=True)
class ChoiceQuestion:
    """A multiple-choice extension question that passed the checks: the gold is its right option's text."""

    question: str
    options: dict[str, str]
    letter: str

    @property
    def answer(self) -> str:
        return self.options[self.letter]


def choice_messages(fragments: str, entities: list[str], difficulty: str, count: int, attempt: int = 0) -> list[Message]:
    """The authors' multiple-choice generation prompt, in our words: questions on the path's fragments centred on
    its entities, four options of the same kind of which exactly one is right by the fragments, the right one at
    a random position, at one difficulty."""
    retry = ("" if attempt == 0 else
             f"\n(Attempt {attempt + 1}: earlier questions were rejected. Give exactly four different options "
             "A-D, the letter of the right one as the answer, and make the right option a phrase the fragments "
             "state or directly support.)")
    content = (
        "You are an interviewer writing multiple-choice questions from the text fragments below.\n"
        f"1. Centre the questions on these entities: {', '.join(entities)}.\n"
        "2. Give each question four options keyed A, B, C and D: exactly one is correct according to the "
        "fragments; the other three are wrong but of the same kind as the correct one (plausible to someone who "
        "has not read the fragments). Put the correct option at a random letter.\n"
        f"3. Difficulty: {DIFFICULTY_RULES[difficulty]}\n"
        "4. Each question must make sense on its own, without the fragments. The answer is the correct "
        "option's letter.\n\n"
        f"Example:\n{EXAMPLE}\n\n"
        f"Fragments:\n{fragments}\n\n"
        f"Write {count} multiple-choice question{'s' * (count > 1)}.{retry}"
    )
    return [{"role": "user", "content": content}]


def choice_rejection(candidate: GeneratedChoice, path_text: str, base_questions: Sequence[str],
                     accepted: Sequence[str], duplicate_jaccard: float = 0.6) -> str | None:
    """Why a generated multiple-choice question is unusable, or None when it passes."""
    question = candidate.question.strip()
    if len(question.split()) < 3:
        return "empty question"
    options = _options(candidate.options)
    if options is None:
        return "not exactly four options A-D"
    if len({normalise_answer(v) for v in options.values()}) < len(LETTERS):
        return "two options say the same"
    letter = gold_letter(candidate.answer, options)
    if letter is None:
        return "answer is not one option's letter"
    if answer_in_question(question, options[letter]):
        return "answer appears in the question"
    if not supported(options[letter], path_text):
        return "correct option not supported by the path text"
    for other in [*base_questions, *accepted]:
        if jaccard(question, other) >= duplicate_jaccard:
            return "near-duplicate of a question already asked"
    return None


def _options(raw: dict[str, str]) -> dict[str, str] | None:
    """The options keyed A-D in order ("a", "A.", "(A)" read as "A"), each with text; None otherwise."""
    keyed = {key.strip().strip("().:").upper(): str(text).strip() for key, text in raw.items()}
    if len(raw) != len(LETTERS) or set(keyed) != set(LETTERS) or not all(keyed.values()):
        return None
    return {k: keyed[k] for k in LETTERS}


def gold_letter(answer: str, options: dict[str, str]) -> str | None:
    """The letter the answer names ("C", "C.", "(C)", "Option C"), or the letter of the option it repeats word for
    word; None when it names no option or several."""
    text = answer.strip()
    bare = text.removeprefix("Option").removeprefix("option").strip().strip("().:").upper()
    if bare in options:
        return bare
    same = [k for k, v in options.items() if normalise_answer(v) == normalise_answer(text)]
    return same[0] if len(same) == 1 else None


async def generate_choices(interviewer: Any, checker: AnswerChecker, config: EvalConfig, text: str,
                           entities: list[str], tier: str, base: list[str]) -> tuple[list[ChoiceQuestion], list[str]]:
    """Ask the interviewer for multiple-choice questions until enough pass the checks (and, at the tiers in
    `config.self_check`, its own answer from the path text picks the gold option) or attempts run out."""
    accepted: list[ChoiceQuestion] = []
    rejected: list[str] = []
    want = config.questions_per_round
    for attempt in range(config.generation_attempts):
        reply = await interviewer.complete(choice_messages(text, entities, tier, want, attempt), schema=GeneratedChoices)
        if not reply.ok or not isinstance(reply.parsed, GeneratedChoices):
            rejected.append("unparseable")
            continue
        fresh: list[ChoiceQuestion] = []
        for candidate in reply.parsed.generated_question:
            asked = [q.question for q in (*accepted, *fresh)]
            why = choice_rejection(candidate, text, base, asked, config.duplicate_jaccard)
            if why:
                rejected.append(why)
                continue
            options = _options(candidate.options)
            assert options is not None
            letter = gold_letter(candidate.answer, options)
            assert letter is not None
            fresh.append(ChoiceQuestion(candidate.question.strip(), options, letter))
        fresh = fresh[: want - len(accepted)]
        if tier in config.self_check:
            fresh = await _self_checked(interviewer, checker, fresh, text, rejected)
        accepted.extend(fresh)
        if len(accepted) >= want:
            break
    return accepted, rejected


async def _self_checked(interviewer: Any, checker: AnswerChecker, candidates: list[ChoiceQuestion], text: str,
                        rejected: list[str]) -> list[ChoiceQuestion]:
    """Keep the questions whose gold option the interviewer picks itself, given the path text and the options."""
    replies = await gather_all(*(interviewer.complete(answer_messages(c.question, c.options, text))
                                 for c in candidates))
    kept = []
    for candidate, reply in zip(candidates, replies):
        verdict = await checker.check(candidate.question, candidate.answer, reply.text if reply.ok else "",
                                      options=candidate.options, gold_letter=candidate.letter)
        if verdict.correct:
            kept.append(candidate)
        else:
            rejected.append("interviewer's own answer disagrees with its gold")
    return kept
