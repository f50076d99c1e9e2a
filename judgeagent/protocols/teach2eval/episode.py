"""One item's lessons (paper Section 3.2): the teacher's own answer, then a T-turn lesson per student.

A lesson: the student answers from the question and options (turn 0); each turn t = 1..T the teacher,
who sees the question without options and the whole history, judges the latest solution and guides;
the student answers again from its previous answer and that guidance. The leakage guard redacts a
teacher that states the answer (with `tell_answer`, the authors' setting, it only counts it); it does not ask again, since a second request would tell the teacher
its answer was right and so feed its judgment.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

from ...grading.choice import check_choice
from ...grading.leakage import leaked_strings, redact
from ...models.dialogue import Dialogue
from ..record import Score
from ..runner import gather_all
from . import prompts
from .rows import ItemRow, LessonRow, Step

if TYPE_CHECKING:
    from ...benchmark import Item
    from ...grading.verdict import Verdict
    from ...models.usage import RoleModel
    from ..base import Episode, EpisodeContext


async def teach(ctx: EpisodeContext, episode: Episode) -> ItemRow:
    item = episode.items[0]
    # The teacher's own test and the lessons are independent: they run together.
    teacher_correct, *lessons = await gather_all(_application(ctx, episode, item),
                                                 *(_lesson(ctx, episode, item, s) for s in ctx.roles.group("students")))
    return {"qid": item.qid, "question": item.question, "options": item.options, "gold_letter": item.gold_letter,
            "options_from": item.meta.get("options_from", "choice"), "teacher_correct": teacher_correct,
            "lessons": lessons}


def _settings(ctx: EpisodeContext) -> dict[str, int]:
    return {} if ctx.config.max_tokens is None else {"max_tokens": ctx.config.max_tokens}


def several(item: Item) -> bool:
    """An item with more than one correct option (gold letters "AC")."""
    return len(item.gold_letter or "") > 1


def _chosen(options: dict[str, str], letters: str | None) -> str | None:
    """The option text(s) a reply chose, as the teacher is shown them (it never sees the letters)."""
    if not letters:
        return None
    keys = [letters] if letters in options else list(letters)
    return "; ".join(options[k] for k in keys if k in options) or None


async def _application(ctx: EpisodeContext, episode: Episode, item: Item) -> bool:
    """AA: the teacher answers the item zero-shot, as the students first do."""
    messages = prompts.answer_messages(item.question, item.options or {}, several(item))
    result = await ctx.roles["teacher"].complete(messages, **_settings(ctx))
    verdict = check_choice(result.text if result.ok else "", item)
    ctx.record(episode, "application", 0, "teacher", messages[-1]["content"], result.text,
               {"correct": Score.of(verdict)}, stage="application", error=result.error)
    return verdict.correct


async def _answer(ctx: EpisodeContext, episode: Episode, item: Item, student: RoleModel, turn: int,
                  messages: list[dict[str, str]]) -> tuple[str, Verdict]:
    result = await student.complete(messages, **_settings(ctx))
    reply = result.text if result.ok else ""
    verdict = check_choice(reply, item)
    ctx.record(episode, f"{student.role}/{turn}/student", turn, student.role, messages[-1]["content"], reply,
               {"correct": Score.of(verdict)}, stage="student", student=student.role, error=result.error)
    return reply, verdict


async def _lesson(ctx: EpisodeContext, episode: Episode, item: Item, student: RoleModel) -> LessonRow:
    options, many = item.options or {}, several(item)
    # every gold option of a several-answer item is guarded, each with its own letter
    guard = ([(options[x], options, x) for x in item.gold_letter or ""] if many else
             [(g, options, item.gold_letter) for g in item.golds])
    system = prompts.teacher_system(ctx.config.tell_answer)
    dialogue = Dialogue(("teacher", "student"), {"teacher": system})
    solutions: list[tuple[str | None, str]] = []
    guides: list[str] = []
    reply, verdict = await _answer(ctx, episode, item, student, 0,
                                   prompts.answer_messages(item.question, options, many))
    steps = [_step(0, reply, verdict)]
    for turn in range(1, ctx.config.turns + 1):
        chosen = _chosen(options, verdict.extracted)
        reflect = ctx.config.reflection and turn > 1
        solutions.append((chosen, reply))
        if ctx.config.history == "transcript":
            shown = prompts.transcript_for_teacher(item.question, solutions, guides, reflect)
            messages = [{"role": "system", "content": system}, {"role": "user", "content": shown}]
        else:
            shown = prompts.solution_for_teacher(item.question if turn == 1 else None, chosen, reply, turn - 1,
                                                 reflect)
            dialogue.say("student", shown)
            messages = dialogue.view("teacher")
        result = await ctx.roles["teacher"].complete(messages, **_settings(ctx))
        said = result.text if result.ok else ""
        judged = prompts.parse_judgment(said)
        found = leaked_strings(said, guard)
        kept = said if ctx.config.tell_answer or not found else redact(said, found)  # tell_answer: counted only
        guidance = kept.strip() or prompts.NO_GUIDANCE
        if ctx.config.history == "chat":
            dialogue.say("teacher", said)  # the teacher's history holds what it said, the student gets `guidance`
        guides.append(said)  # the transcript shows the teacher its own words, as the chat does
        ctx.record(episode, f"{student.role}/{turn}/teacher", turn, "teacher", shown, said,
                   stage="teacher", student=student.role, judged_right=judged, student_right=verdict.correct,
                   leaked=found, guidance=guidance, error=result.error)
        steps[-1].update(judged_right=judged, teacher=said, guidance=guidance, leaked=found)
        reply, verdict = await _answer(ctx, episode, item, student, turn,
                                       prompts.revise_messages(item.question, options, reply, guidance, many))
        steps.append(_step(turn, reply, verdict))
    return {"student": student.role, "model": student.name, "correct": [s["correct"] for s in steps],
            "judgments": [s["judged_right"] for s in steps[:-1]],
            "leaks": [{"turn": s["turn"] + 1, "strings": s["leaked"], "student_right": s["correct"]}
                      for s in steps if s.get("leaked")],
            "no_letter": sum(s["reply_letter"] is None for s in steps), "steps": steps}


def _step(turn: int, reply: str, verdict: Verdict) -> Step:
    """One student answer and (once the teacher has spoken) the judgment and guidance that followed it."""
    return {"turn": turn, "reply": reply, "reply_letter": verdict.extracted, "correct": verdict.correct}
