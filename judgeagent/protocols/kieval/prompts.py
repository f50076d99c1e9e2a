"""KIEval's prompts (paper Appendix K, Figure 5, adapted to any question-answer benchmark) and transcripts."""
from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from ...models.base import Message
from .rubric import ASPECTS

CANDIDATE_SYSTEM = ("You are a helpful assistant that follows the instructions of the user. You must output in "
                    "less than 200 words and your responses should be concise and accurate.")

ANSWER_NOTE = ("\n\nPut your final answer alone on the first line{choice}, then explain your reasoning briefly.")
CHOICE_NOTE = " (the option letter, e.g. \"B\")"

INTERACTOR_SYSTEM = (
    "As an expert interviewer, hold a reflective dialogue with the user about the question below and their "
    "answer to it. You must output in less than 200 words. Ask questions that probe deeper knowledge of the "
    "topic: the rationale behind the answer, related facts, applications, and why things are so. Avoid "
    "prompting the user to merely explain their choice; challenge their assumptions instead. The user's answer "
    "may be wrong: do not validate misinformation or incorrect logic, use it as a point of assessment. You are "
    "not the evaluator: be neutral, do not comment or teach, and never state the reference answer. Ask one "
    "question at a time, with no greetings or other words.")

EVALUATOR_SYSTEM = (
    "You are an objective evaluator in an interview. Your task is to evaluate a candidate's performance during "
    "a series of interactions with an interactor; both parties are AI models. The candidate is asked to solve a "
    "problem, and the interactor asks questions accordingly. The conversation alternates between the "
    "interactor (marked [BEGIN INTERACTOR]) and the candidate (marked [BEGIN CANDIDATE]). Evaluate the "
    "candidate's latest response, in that round and in context, on each aspect independently, from 1 (Poor) "
    "to 4 (Good):\n"
    "accuracy: truthfulness and factual correctness.\n"
    "logic: logical structure and soundness of reasoning; conclusions well supported, free of fallacies.\n"
    "relevance: how the response relates to the topic, within the scope of the assistant role, without "
    "unpermitted role shifts.\n"
    "coherence: how well the response fits the context; consistency with earlier statements and the flow.\n"
    "conciseness: brevity and clarity, free of extraneous elaboration or repetition.\n"
    "Scoring guide: 1 (Poor) significant deficiencies or inaccuracies; 2 (Below Average) noticeable "
    "weaknesses, partially on target; 3 (Above Average) solid and competent, a few minor shortcomings; "
    "4 (Good) strong, fully meets and often surpasses expectations.\n"
    "Rules: score consistently and objectively, integers only; a low score in one aspect must not influence "
    "another. Write a brief comment before each score. Then a brief overall comment and an overall score "
    "(same guide) for the performance throughout the interaction. Set stop_conversation to true to end the "
    "conversation early only when the response is off topic, empty, breaks the rules, repeats itself, shifts "
    "role without permission, or states a serious hallucination; then choose stop_reason from off_topic, "
    "empty_response, rule_violation, repetition, unpermitted_role_shift, hallucination; otherwise stop_reason "
    "is none.")

REPAIR = ("Your previous reply was not valid: {problem}. Reply again with only a JSON object that matches the "
          "schema, every score an integer from 1 to 4, nothing else.")


def question_text(question: str, options: Mapping[str, str] | None) -> str:
    if not options:
        return question
    return question + "\n" + "\n".join(f"{k}. {v}" for k, v in options.items())


def benchmark_prompt(question: str, options: Mapping[str, str] | None) -> str:
    """The item as the candidate first sees it: the question, then how to give the answer."""
    return question_text(question, options) + ANSWER_NOTE.format(choice=CHOICE_NOTE if options else "")


def verify_messages(question: str, options: Mapping[str, str] | None) -> list[Message]:
    note = "Give only the option letter." if options else "Give only the answer, in a few words."
    return [{"role": "system", "content": f"Answer the question. {note}"},
            {"role": "user", "content": question_text(question, options)}]


def marked(turns: Sequence[Mapping[str, Any]]) -> str:
    """The conversation with the paper's speaker marks (turns: {speaker, content})."""
    out = []
    for t in turns:
        who = "INTERACTOR" if t["speaker"] == "interactor" else "CANDIDATE"
        out.append(f"[BEGIN {who}]\n{t['content']}\n[END {who}]")
    return "\n".join(out)


def interactor_messages(question: str, options: Mapping[str, str] | None, gold: str,
                        turns: Sequence[Mapping[str, Any]], background: str = "") -> list[Message]:
    knowledge = f"\nBackground knowledge to ground your questions:\n{background}\n" if background else ""
    user = (f"Question: {question_text(question, options)}\nReference answer (for you only; never reveal it): "
            f"{gold}\n{knowledge}\nConversation so far:\n{marked(turns)}\n\nAsk your next question.")
    return [{"role": "system", "content": INTERACTOR_SYSTEM}, {"role": "user", "content": user}]


def evaluator_messages(turns: Sequence[Mapping[str, Any]], previous: Sequence[Mapping[str, Any] | None],
                       round_: int) -> list[Message]:
    """The evaluator sees the conversation up to the candidate's latest reply and its own earlier verdicts.

    No reference answer: as in the paper, the evaluator judges from its own knowledge, which is why the
    items are verified against it first.
    """
    earlier = "\n".join(f"round {k}: " + (_brief(e) if e else "(no valid evaluation)")
                        for k, e in enumerate(previous, 1))
    history = f"\n\nYour evaluations of the earlier rounds:\n{earlier}" if earlier else ""
    user = (f"Conversation:\n{marked(turns)}{history}\n\nEvaluate the candidate's latest response (round "
            f"{round_}).")
    return [{"role": "system", "content": EVALUATOR_SYSTEM}, {"role": "user", "content": user}]


def _brief(evaluation: Mapping[str, Any]) -> str:
    scores = ", ".join(f"{a} {evaluation[a]['score']}" for a in ASPECTS)
    return f"{scores}, overall {evaluation['overall_score']}"


def repair_messages(messages: list[Message], reply: str, problem: str) -> list[Message]:
    return [*messages, {"role": "assistant", "content": reply},
            {"role": "user", "content": REPAIR.format(problem=problem)}]

