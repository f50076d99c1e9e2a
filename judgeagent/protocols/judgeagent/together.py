"""`setting=authors`: a batch's questions put to the target in one prompt, the answers parsed from a JSON list.

The authors' code (DataArcTech/JudgeAgent@2b1b921, judge_agent.py) asks this way everywhere it asks the target:
the base questions of a batch in one prompt (`stage_benchmark_grading`), each extension question in a prompt of
its own in the same list form (`stage_interactive_extension`), and the base questions again with the suggestions
(`stage_evaluation_feedback`, `PTYPE.REANSWER`). A reading-comprehension batch (QuALITY, `QTYPE.RMC`) carries its
article once, in every one of those prompts. The target is asked in JSON mode (their `LLMClient` sends
`response_format: json_object` for every chat model of `llm_params.py`), and `_process_llm_answers` reads
`{"response": [{"answer": ...}, ...]}`: a reply that does not parse gives no answer at all, and a question without an
answer is wrong. The prompts here say the same in our own words.
"""
from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, NamedTuple

from ...grading.verdict import Verdict
from ...models.base import Completion, Message
from ..record import call_id

JSON_MODE: dict[str, Any] = {"response_format": {"type": "json_object"}}
"""The setting every call of this module sends (the authors' client: `json_format=True`)."""

REPLY_FORM = ('Reply with a JSON object and nothing else. Its key "response" holds a list with one entry per '
              'question, in the order the questions are numbered, each entry of the form {"answer": "..."}: '
              '{"response": [{"answer": "..."}, {"answer": "..."}]}')

SUGGESTIONS = ("An interviewer who reviewed your earlier answers to these questions left these suggestions:\n"
               "{suggestions}\n\nKeep them in mind and answer the questions above again, in the same JSON form.")

NO_ANSWER = ("no answer for this question in the batch's JSON reply (unparsable, missing or not text): the "
             "authors' code counts it wrong")


@dataclass(frozen=True)
class Question:
    """A question as it goes into a batch prompt."""

    text: str
    options: dict[str, str] | None = None


@dataclass(frozen=True)
class Together:
    """A batch prompt, the target's reply to it, and the answer found in it for each question (None: none)."""

    messages: list[Message]
    reply: Completion
    answers: list[str | None]

    def answer(self, k: int) -> str | None:
        return self.answers[k]


def batch_messages(questions: Sequence[Question], article: str | None = None) -> list[Message]:
    """The authors' answer prompts (`ANSWER_PROMPT_MC`, `_QA`, `_RMC`) in our words: one user message, the article
    once, every question numbered with its options, and the JSON form the answers must take."""
    parts = [f"Read the article below, then answer the questions about it.\n\nArticle:\n{article}" if article
             else "Answer the questions below."]
    for k, q in enumerate(questions, start=1):
        parts.append(f"Question {k}: {q.text}" + "".join(f"\n{letter}. {text}" for letter, text in
                                                          (q.options or {}).items()))
    choice = [bool(q.options) for q in questions]
    rules = []
    if any(choice):
        rules.append("A multiple-choice question has exactly one right option: answer it with that option's letter "
                     "only.")
    if not all(choice):
        rules.append("Answer " + ("a question without options" if any(choice) else "each question") +
                     " as briefly as you can: one word or a short phrase.")
    parts.append(" ".join(rules) + "\n" + REPLY_FORM)
    return [{"role": "user", "content": "\n\n".join(parts)}]


def with_batch_suggestions(messages: list[Message], suggestions: str) -> list[Message]:
    """The authors' re-answer prompts (`REANSWER_PROMPT_*`): the batch prompt again, with the suggestions."""
    last = messages[-1]
    return [*messages[:-1], {**last, "content": f"{last['content']}\n\n{SUGGESTIONS.format(suggestions=suggestions)}"}]


def parse_answers(text: str, count: int) -> list[str | None]:
    """`count` answers from a reply, as the authors' client and `_process_llm_answers` read it: a leading ```json
    and a trailing ``` removed, then `json.loads(reply)["response"]` and each entry's `"answer"`; anything that
    fails on the way gives no answers at all; missing ones are None, extra ones ignored. An answer that is not
    text is None too (their comparison, `answer.lower()`, would raise on it: we count it wrong instead, as we do
    the None their padding gives, on which it raises the same way)."""
    body = text.removeprefix("```json").removesuffix("```").strip()
    try:
        found = [entry.get("answer") for entry in json.loads(body)["response"]]
    except Exception:  # noqa: BLE001 - as theirs: any failure, of the JSON or of its shape, loses the whole batch
        found = []
    answers = [a if isinstance(a, str) else None for a in found[:count]]
    return answers + [None] * (count - len(answers))


async def ask_together(target: Any, questions: Sequence[Question], article: str | None = None) -> Together:
    """One call for the whole batch, in JSON mode; a failed call gives no answers."""
    messages = batch_messages(questions, article)
    reply = await target.complete(messages, **JSON_MODE)
    return Together(messages, reply, parse_answers(reply.text if reply.ok else "", len(questions)))


class AskedAgain(NamedTuple):
    """A batch's answers asked again, and the call they came from (`record.call_id`; None: the call failed)."""

    answers: list[str | None]
    call: str | None


async def again_together(target: Any, messages: list[Message], count: int,
                         suggestions: str | None = None) -> AskedAgain:
    """The answers to a recorded batch prompt asked again, with the batch's suggestions when given (validation).
    Without them the prompt is the one the run sent, so the run's journal answers it as it did then."""
    sent = messages if suggestions is None else with_batch_suggestions(messages, suggestions)
    reply = await target.complete(sent, **JSON_MODE)
    return AskedAgain(parse_answers(reply.text if reply.ok else "", count),
                      call_id(sent, reply.text) if reply.ok else None)


def no_answer() -> Verdict:
    """The verdict on a question the batch reply gave no answer for."""
    return Verdict(False, "empty", None, None, NO_ANSWER)


def one_article(passages: Sequence[str | None]) -> str | None:
    """The article of a batch's questions (one batch per article under `setting=authors`); several, joined, when a
    batch holds questions of more than one."""
    distinct = list(dict.fromkeys(p for p in passages if p))
    return "\n\n".join(distinct) or None


def by_article(items: Sequence[Any], size: int) -> list[list[Any]]:
    """The batches under `setting=authors`: the multiple-choice questions on one article (QuALITY: options and a
    passage) make one batch, wherever they stand (`stage_benchmark_grading` with `QTYPE.RMC` batches by article);
    the other items go `size` at a time in their order, as `split_into_batches` does. Batches keep the order of
    their first item."""
    batches: list[list[Any]] = []
    articles: dict[str, list[Any]] = {}
    loose: list[Any] = []
    for item in items:
        if item.passage and item.options:
            if item.passage not in articles:
                batches.append(articles.setdefault(item.passage, []))
            articles[item.passage].append(item)
            continue
        if not loose or len(loose) == size:
            loose = []
            batches.append(loose)
        loose.append(item)
    return batches


def batch_count(items: Sequence[Any], size: int, setting: str) -> int:
    """How many batches `items` make (the episodes of `protocol.py`)."""
    return len(by_article(items, size)) if setting == "authors" else -(-len(items) // size)
