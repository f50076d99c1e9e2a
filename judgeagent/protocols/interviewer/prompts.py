"""The Interviewer protocol's prompts (paper Section 3, Appendix A in our own words) and reply schemas."""
from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field

from ...models.base import Message

ERROR_TYPES = ("misinterpretation", "knowledge", "reasoning", "calculation", "incomplete", "format", "other")
ErrorType = Literal["misinterpretation", "knowledge", "reasoning", "calculation", "incomplete", "format", "other"]

KIND_RULES = {  # Appendix A.2, with its examples as the fallback question
    "rationale": ("a question about the reasoning or justification behind the answer",
                  "What was your reasoning for this answer?"),
    "elaboration": ("a question asking for a more detailed explanation of the answer or its topic",
                    "Could you elaborate on how you reached this answer?"),
    "clarification": (("a question that resolves an ambiguity or checks that a concept in the answer is "
                       "fully understood"), "What exactly do you mean by the key term in your answer?"),
    "additional_information": ("a question seeking related facts or background beyond what was said",
                               "Are there any other facts relevant to this question?"),
}

INTERVIEWEE_SYSTEM = ("You are being interviewed. Answer the interviewer's questions. Put your final answer "
                      "alone on the first line{choice}, then at most two sentences of reasoning. If a question is "
                      "too ambiguous to answer, you may instead reply with one line starting with CLARIFY: and "
                      "your clarifying question.")
CHOICE_NOTE = " (for a multiple-choice question: the option letter, e.g. \"B\")"


class Paraphrase(BaseModel):
    question: str = Field(description="The rewritten question.")


class QuantityChange(BaseModel):
    question: str = Field(description="The original question with only some numbers changed.")
    formula: str = Field(description="Arithmetic with the ORIGINAL question's numbers that gives the original "
                                     "answer, e.g. (12 - 4) * 3.")
    gold: str = Field(description="The answer to the changed question, a number.")


class Unclarified(BaseModel):
    revised_question: str = Field(description="The question with the key information removed or made vague.")
    deleted_information: str = Field(description="The removed information, stated so that it can be given back, "
                                                 "e.g. x = 6, or: the phone charges 1 percentage point per 3 minutes.")


class NewQuestion(BaseModel):
    new_question: str = Field(description="A new question, different from the original one.")
    new_solution: str = Field(description="The section of the reference answer that answers it, copied from it.")


class AtomicFacts(BaseModel):
    facts: list[str] = Field(description="The atomic facts, one piece of information each.")


class FactLabel(BaseModel):
    fact: int = Field(description="The fact's number.")
    label: Literal["supported", "partially supported", "not supported"]


class FactLabels(BaseModel):
    labels: list[FactLabel] = Field(description="One label per fact, in the facts' order.")


class Feedback(BaseModel):
    error_type: ErrorType = Field(description="The main kind of error in the answer.")
    feedback: str = Field(description="One or two sentences pointing at the error, never giving the answer.")


class FollowUp(BaseModel):
    question: str = Field(description="The follow-up question.")


class FollowUpGrade(BaseModel):
    reasoning: str = Field(description="One or two sentences on the reply.")
    adequate: bool = Field(description="True if the reply answers the follow-up question correctly and fully.")


def interviewee_system(choice: bool) -> str:
    return INTERVIEWEE_SYSTEM.format(choice=CHOICE_NOTE if choice else "")


def question_text(question: str, options: dict[str, str] | None) -> str:
    if not options:
        return question
    return question + "\n" + "\n".join(f"{k}. {v}" for k, v in options.items())


def paraphrase_messages(question: str, answer: str, problem: str = "") -> list[Message]:
    retry = f"\nYour previous attempt was rejected: {problem}. Try again." if problem else ""
    user = (f"Original question: {question}\nIts answer (keep it the answer; do not write it in the question): "
            f"{answer}\n\nRewrite the question so that it asks for exactly the same answer with different "
            f"wording and sentence structure. Keep every fact needed to answer it.{retry}")
    return [{"role": "system", "content": "You prepare interview questions from benchmark items. You rewrite a "
             "question so that a model that memorised the original cannot recognise it."},
            {"role": "user", "content": user}]


def quantities_messages(question: str, answer: str, problem: str = "") -> list[Message]:
    retry = f"\nYour previous attempt was rejected: {problem}. Try again." if problem else ""
    user = (f"Original question: {question}\nIts answer: {answer}\n\nWrite the same question with one or more of "
            "its numbers changed so that the answer changes; keep every other word exactly as it is. Also give "
            "the formula that computes the ORIGINAL answer from the ORIGINAL question's numbers (numbers, + - * / "
            f"and parentheses only), and the new answer.{retry}")
    return [{"role": "system", "content": "You prepare interview questions from benchmark items. You change the "
             "quantities in a question so that a model that memorised the original answer cannot reuse it."},
            {"role": "user", "content": user}]


def unclarify_messages(question: str, answer: str, problem: str = "") -> list[Message]:
    retry = f"\nYour previous attempt was rejected: {problem}. Try again." if problem else ""
    user = (f"Original question: {question}\nIts answer (for you only; never write it): {answer}\n\nRemove one key "
            "piece of information that the solution needs (a value, a rate, a condition): turn a value into an "
            "unknown such as x, or a statement into vague words such as \"a certain rate\". Keep every other word, "
            "the structure and the operations as they are, so that the question cannot be solved without asking for "
            f"the removed information. State the removed information so that it can be given back.{retry}")
    return [{"role": "system", "content": "You prepare interview questions from benchmark items. You remove key "
             "information from a question so that the interviewee has to ask for it."},
            {"role": "user", "content": user}]


def modifying_messages(question: str, reference: str, problem: str = "") -> list[Message]:
    retry = f"\nYour previous attempt was rejected: {problem}. Try again." if problem else ""
    user = (f"Original question: {question}\nReference answer: {reference}\n\nWrite one new question, different "
            "from the original, that the reference answer answers; it should not be about a minor detail. Give "
            f"the section of the reference answer that answers it, copied word for word.{retry}")
    return [{"role": "system", "content": "You prepare interview questions from benchmark items. You write a new "
             "question from a question and its reference answer."},
            {"role": "user", "content": user}]


def withheld_clarify_messages(question: str, withheld: str, request: str, forbidden: list[str]) -> list[Message]:
    avoid = f" Do not write any of these: {'; '.join(forbidden)}." if forbidden else ""
    user = (f"Question as asked: {question}\nInformation removed from it: {withheld}\nThe interviewee asks: "
            f"{request}\n\nIf the interviewee asks for the removed information or a part of it, give it, saying "
            "where it fits in the question. If it asks for something else, say briefly that this is not needed. "
            f"Never give a hint towards the solution.{avoid}")
    return [{"role": "system", "content": "You are an interviewer answering a clarifying question."},
            {"role": "user", "content": user}]


def withheld_feedback(withheld: str) -> str:
    """After an answer given without the removed information (the authors' fallback wording, in ours)."""
    return (f"The question left out information you need: {withheld}. Put it back into the question and solve "
            "the problem.")


def atomic_facts_messages(text: str) -> list[Message]:
    user = (f"Text: {text}\n\nBreak the text down into atomic facts: short sentences that each state one piece "
            "of information, each a different one, together covering everything the text states.")
    return [{"role": "system", "content": "You split a reference answer into atomic facts."},
            {"role": "user", "content": user}]


def fact_check_messages(question: str, facts: list[str], reply: str) -> list[Message]:
    listed = "\n".join(f"{i}. {f}" for i, f in enumerate(facts, 1))
    user = (f"Question: {question}\nFacts of the reference answer:\n{listed}\n\nThe interviewee answered:\n"
            f"{reply}\n\nFor each fact, in order, say whether the answer states it (supported), states part of it "
            "(partially supported) or does not state it (not supported).")
    return [{"role": "system", "content": "You check which facts of a reference answer an answer covers."},
            {"role": "user", "content": user}]


def self_check_messages(question: str) -> list[Message]:
    return [{"role": "system", "content": "Answer the question. Give only the answer."},
            {"role": "user", "content": f"Question: {question}"}]


def feedback_messages(question: str, gold: str, reply: str, forbidden: list[str]) -> list[Message]:
    avoid = f"\nDo not write any of these: {'; '.join(forbidden)}." if forbidden else ""
    user = (f"Question: {question}\nReference answer (for you only): {gold}\nThe interviewee answered:\n{reply}\n\n"
            "The answer is wrong. Say what kind of error it is and give feedback that points at the error so "
            "that the interviewee can revise, without revealing the reference answer, the correct option or any "
            f"words of the reference answer.{avoid}")
    return [{"role": "system", "content": "You are an interviewer giving feedback on a wrong answer."},
            {"role": "user", "content": user}]


def clarify_messages(question: str, gold: str, request: str, forbidden: list[str]) -> list[Message]:
    avoid = f" Do not write any of these: {'; '.join(forbidden)}." if forbidden else ""
    user = (f"Question: {question}\nReference answer (for you only): {gold}\nThe interviewee asks: {request}\n\n"
            f"Answer the clarifying question briefly, without revealing the reference answer.{avoid}")
    return [{"role": "system", "content": "You are an interviewer answering a clarifying question."},
            {"role": "user", "content": user}]


OUTCOME_RULES = {  # followup_policy=paper: what the question is for, after a solve or a failure (paper 6.2)
    True: (" The interviewee solved the problem: ask about the reasoning of its own solution (why a step holds, "
           "how it found a quantity), so as to tell understanding from a recalled answer."),
    False: (" The interviewee did not solve the problem: ask it to explain how it reads the question, or what a "
            "concept the problem needs means, so as to find why it failed."),
}


def followup_messages(kind: str, transcript: str, gold: str, solved: bool, forbidden: list[str],
                      paper: bool = False) -> list[Message]:
    rule = KIND_RULES[kind][0]
    purpose = OUTCOME_RULES[solved] if paper else ""
    guard = "" if solved else " The interviewee did not find the answer: do not reveal it."
    avoid = f" Do not write any of these: {'; '.join(forbidden)}." if forbidden else ""
    user = (f"Interview so far:\n{transcript}\n\nReference answer (for you only): {gold}\n\nWrite one follow-up "
            f"question of this kind: {kind}, {rule}.{purpose}{guard}{avoid}")
    return [{"role": "system", "content": "You are an interviewer asking follow-up questions."},
            {"role": "user", "content": user}]


def followup_retry(question: str) -> str:
    """The same follow-up asked again after a reply that did not answer it (followup_tries > 1)."""
    return f"That does not fully answer my question yet. Please try again: {question}"


def followup_grade_messages(kind: str, transcript: str, gold: str, followup: str, reply: str) -> list[Message]:
    user = (f"Interview so far:\n{transcript}\n\nReference answer of the original question: {gold}\n"
            f"Follow-up question ({kind}): {followup}\nReply: {reply}\n\nIs the reply a correct, relevant and "
            "complete answer to the follow-up question? First write your reasoning, then the verdict.")
    return [{"role": "system", "content": FOLLOWUP_GRADE_SYSTEM}, {"role": "user", "content": user}]


FOLLOWUP_GRADE_SYSTEM = "You grade an interviewee's answer to a follow-up question."


def summary_messages(scores: str, transcripts: str) -> list[Message]:
    user = (f"Scores:\n{scores}\n\nInterview transcripts:\n{transcripts}\n\nWrite a comprehensive summary of the "
            "interviewee: what it can and cannot do, its strengths and weaknesses, how it handled feedback and "
            "follow-up questions, with short examples. At most 200 words.")
    return [{"role": "system", "content": "You are an interviewer writing an interview report."},
            {"role": "user", "content": user}]
