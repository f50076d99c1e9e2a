"""One item's interview (paper Algorithm 1): probe, solve (with clarification), feedback and revise, follow-ups."""
from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, NamedTuple

from ...grading.judge import echoes
from ...grading.leakage import leaked_strings, redact
from ...grading.verdict import Verdict, one_line
from ...models.dialogue import Dialogue
from ..record import CALL_KEY, Score, call_id
from . import prompts
from .facts import ATOMIC_FACTS
from .grade import check_reply
from .modify import Version, describe, modify
from .rewrite import section_share
from .rows import ErrorRow, FollowupRow, ItemRow, Leakage

if TYPE_CHECKING:
    from ..base import Episode, EpisodeContext

GIVEN_SHARE = 0.6
"""A clarification holding this share of the removed information's words gives it back (else the interviewer states
it after the interviewee's answer)."""
WITHHELD_FEEDBACK = "Your answer is not correct. Read the question again carefully and revise your answer."


@dataclass
class Track:
    """What an interview notes beside its attempts."""

    asked: bool = False
    """unclarifying: the interviewee asked a clarifying question before answering."""
    given_at: str | None = None
    """unclarifying: the step that gave the removed information back (a clarification, or the interviewer's
    statement after an answer without it)."""
    right_without: bool | None = None
    """unclarifying: whether its answer without the removed information was right (None: it asked first)."""
    fact_scores: list[float] = field(default_factory=list)
    """facts=true: each attempt's atomic-fact score."""


async def interview(ctx: EpisodeContext, episode: Episode) -> ItemRow:
    item = episode.items[0]
    version = await modify(ctx, episode, item)
    original_correct = None
    if ctx.config.probe and version.changed:
        original_correct = await _probe(ctx, episode, item)
    dialogue = Dialogue(("interviewer", "interviewee"), {"interviewee": prompts.interviewee_system(item.is_choice)})
    track = Track()
    attempts, errors = await _main(ctx, episode, version, dialogue, track)
    followups = await _followups(ctx, episode, version, dialogue, attempts[-1],
                                 errors[-1]["error_type"] if errors else None)
    row: ItemRow = {"qid": item.qid, "versions": describe(version, item), "original_correct": original_correct,
           "attempts": attempts, "solved": attempts[-1], "errors": errors, "followups": followups,
           "transcript": dialogue.transcript()}
    if version.withheld:  # unclarifying: did the interviewee ask for what was removed, and when was it given
        row["unclarified"] = {"asked": track.asked, "given_at": track.given_at, "right_without": track.right_without}
    if track.fact_scores:  # facts=true on a long gold: each attempt's atomic-fact score
        row["fact_scores"] = track.fact_scores
    return row


async def _grade(ctx: EpisodeContext, version: Version, reply: str, episode: Episode | None = None) -> Verdict:
    return await check_reply(ctx, version.question, version.golds, reply, options=version.options,
                             gold_letter=version.gold_letter, episode=episode)


async def _probe(ctx: EpisodeContext, episode: Episode, item: Any) -> bool:
    """The original item, single turn, in the same format as the first attempt: only the wording differs."""
    from .modify import original

    version = original(item)
    messages = [{"role": "system", "content": prompts.interviewee_system(item.is_choice)},
                {"role": "user", "content": version.text()}]
    result = await ctx.roles["target"].complete(messages, **ctx.config.limit())
    verdict = await _grade(ctx, version, result.text, episode)
    ctx.record(episode, "probe", 0, "target", version.text(), result.text, {"correct": Score.of(verdict)},
               stage="probe", error=result.error)
    return verdict.correct


async def _main(ctx: EpisodeContext, episode: Episode, version: Version, dialogue: Dialogue,
                track: Track) -> tuple[list[bool], list[ErrorRow]]:
    """Solve, then while wrong and revisions remain: feedback (guarded), revise. Stops once solved. With removed
    information (unclarifying), the attempts start once it has been given back (`_unclarified`)."""
    attempts: list[bool] = []
    errors: list[ErrorRow] = []
    dialogue.say("interviewer", version.text(), stage="question")
    first = await _unclarified(ctx, episode, version, dialogue, track) if version.withheld else None
    for n in range(1, ctx.config.revisions + 2):
        reply = first if n == 1 and first is not None else await _answer(ctx, episode, version, dialogue, n, track)
        verdict = await _grade(ctx, version, reply, episode)
        if verdict.method == ATOMIC_FACTS:
            track.fact_scores.append(verdict.score or 0.0)
        prompt = dialogue.turns[-1].content
        dialogue.say("interviewee", reply, stage="answer", attempt=n)
        ctx.record(episode, f"attempt/{n}", len(dialogue.turns), "target", prompt, reply,
                   {"correct": Score.of(verdict)}, stage="attempt", attempt=n)
        attempts.append(verdict.correct)
        if verdict.correct or n == ctx.config.revisions + 1:
            break
        error_type, (text, leak, call) = await _feedback(ctx, version, reply)
        dialogue.say("interviewer", text, stage="feedback")
        ctx.record(episode, f"feedback/{n}", len(dialogue.turns), "interviewer", reply, text,
                   stage="feedback", attempt=n, error_type=error_type, leakage=leak, **{CALL_KEY: call})
        errors.append({"attempt": n, "error_type": error_type, "answer": one_line(reply, 160),
                       "feedback": one_line(text, 200)})
    return attempts, errors


async def _unclarified(ctx: EpisodeContext, episode: Episode, version: Version, dialogue: Dialogue,
                       track: Track) -> str | None:
    """Before the attempts (the authors' CLARIFICATION_NEEDED state): the interviewee may ask for the removed
    information and get it; an answer given without it is not an attempt. It is graded (right without the
    information suggests a recalled item), and the interviewer then gives the information back. Returns the
    interviewee's answer when it already has the information (attempt 1), else None."""
    reply = await _answer(ctx, episode, version, dialogue, 0, track)
    if track.given_at is not None:
        return reply
    verdict = await _grade(ctx, version, reply, episode)
    track.right_without = verdict.correct
    prompt = dialogue.turns[-1].content
    dialogue.say("interviewee", reply, stage="answer_without_information")
    ctx.record(episode, "unclarified/answer", len(dialogue.turns), "target", prompt, reply,
               {"correct": Score.of(verdict)}, stage="answer_without_information")
    text = prompts.withheld_feedback(version.withheld)  # rewrite.py refused removed information stating the gold
    dialogue.say("interviewer", text, stage="withheld_information")
    ctx.record(episode, "unclarified/information", len(dialogue.turns), "interviewer", reply, text,
               stage="withheld_information")
    track.given_at = "unclarified/information"
    return None


async def _answer(ctx: EpisodeContext, episode: Episode, version: Version, dialogue: Dialogue, n: int,
                  track: Track) -> str:
    """The interviewee's answer; a clarifying question first gets a guarded reply (up to the option's limit); with
    removed information (unclarifying), the reply gives it back when asked for."""
    asked = 0
    while True:
        result = await ctx.roles["target"].complete(dialogue.view("interviewee"), **ctx.config.limit())
        reply = result.text if result.ok else ""
        if not reply.strip().upper().startswith("CLARIFY") or asked >= ctx.config.clarifications:
            return reply
        asked += 1
        request = reply.strip()[len("CLARIFY"):].lstrip(": ")
        dialogue.say("interviewee", reply, stage="clarification_request", attempt=n)
        if version.withheld:
            track.asked = track.asked or n == 0
            answer, leak, call = await _guarded(ctx, version, lambda forbidden, request=request:
                                          prompts.withheld_clarify_messages(version.text(), version.withheld, request,
                                                                            forbidden), None)
            if track.given_at is None and section_share(version.withheld, answer) >= GIVEN_SHARE:
                track.given_at = f"clarify/{n}/{asked}"
        else:
            answer, leak, call = await _guarded(ctx, version, lambda forbidden, request=request:
                                                prompts.clarify_messages(version.text(), version.gold, request,
                                                                         forbidden), None)
        dialogue.say("interviewer", answer, stage="clarification")
        ctx.record(episode, f"clarify/{n}/{asked}", len(dialogue.turns), "interviewer", reply, answer,
                   stage="clarification", attempt=n, leakage=leak, **{CALL_KEY: call})


async def _feedback(ctx: EpisodeContext, version: Version, reply: str) -> tuple[str, Guarded]:
    parsed: dict[str, str] = {}

    def messages(forbidden: list[str]) -> list[dict[str, str]]:
        return prompts.feedback_messages(version.text(), version.gold, reply, forbidden)

    guarded = await _guarded(ctx, version, messages, prompts.Feedback, parsed)
    return parsed.get("error_type", "other"), guarded


class Guarded(NamedTuple):
    """The interviewer's text after the leakage guard, what the guard did, and the call it came from (`call_id`;
    "" when the call failed and is in no journal)."""

    text: str
    leak: Leakage
    call: str


async def _guarded(ctx: EpisodeContext, version: Version, messages: Any, schema: Any = None,
                   parsed: dict[str, str] | None = None) -> Guarded:
    """The interviewer's text with the leakage guard: detect, regenerate once naming the strings, redact."""
    leak: Leakage = {"detected": [], "regenerated": False, "redacted": False}
    forbidden: list[str] = []
    text = call = ""
    for attempt in range(2):
        limit = ctx.config.limit() if schema is None else {}  # a cut JSON reply would not parse
        sent = messages(forbidden)
        result = await ctx.roles["interviewer"].complete(sent, schema=schema, **limit)
        call = call_id(sent, result.text) if result.ok else ""
        text = result.text if schema is None else _field(result.parsed, parsed)
        text = text.strip() or WITHHELD_FEEDBACK
        found = leaked_strings(text, version.guard_golds())
        if not found:
            return Guarded(text, leak, call)
        leak["detected"] = sorted(set(leak["detected"]) | set(found))
        leak["regenerated"] = attempt == 0 or leak["regenerated"]
        forbidden = leak["detected"]
    leak["redacted"] = True
    return Guarded(redact(text, leaked_strings(text, version.guard_golds())), leak, call)


def _field(reply: Any, parsed: dict[str, str] | None) -> str:
    if isinstance(reply, prompts.Feedback):
        if parsed is not None:
            parsed["error_type"] = reply.error_type
        return reply.feedback
    if isinstance(reply, prompts.FollowUp):
        return reply.question
    return ""


CLARIFIABLE = ("misinterpretation", "knowledge")
"""Error types after which a failed item gets clarification questions (followup_policy=paper): the authors' code
asks them only after a "misinterpret" or "concept" error (experiments/src/base_state.py, SOLVE_FAIL)."""


def followup_kinds(cfg: Any, episode_id: str, solved: bool, last_error: str | None = None) -> list[str]:
    """The kinds of an item's follow-up questions: by outcome (paper Section 6.2: rationale after a solve,
    clarification after a failure whose last error is one of `CLARIFIABLE`, none after another error), or
    `followup_kinds` in turn from a seeded start (followup_policy=rotate)."""
    if cfg.followup_policy == "paper":
        if not solved and last_error is not None and last_error not in CLARIFIABLE:
            return []
        return ["rationale" if solved else "clarification"] * cfg.followups
    kinds = cfg.followup_kinds
    start = int(hashlib.sha256(f"{cfg.seed}:{episode_id}".encode()).hexdigest(), 16) % len(kinds)
    return [kinds[(start + k) % len(kinds)] for k in range(cfg.followups)]


async def _followups(ctx: EpisodeContext, episode: Episode, version: Version, dialogue: Dialogue,
                     solved: bool, last_error: str | None) -> list[FollowupRow]:
    paper = ctx.config.followup_policy == "paper"
    out: list[FollowupRow] = []
    for k, kind in enumerate(followup_kinds(ctx.config, episode.id, solved, last_error)):
        transcript = dialogue.transcript()
        question, leak, _ = await _guarded(ctx, version, lambda forbidden, kind=kind, transcript=transcript:
                                        prompts.followup_messages(kind, transcript, version.gold, solved, forbidden,
                                                                  paper), prompts.FollowUp)
        if question == WITHHELD_FEEDBACK:  # no usable question: the paper's example for the kind
            question = prompts.KIND_RULES[kind][1]
        tries = ctx.config.followup_tries
        for t in range(tries):  # Algorithm 1: asked until answered adequately, at most M times
            asked = question if t == 0 else prompts.followup_retry(question)
            dialogue.say("interviewer", asked, stage="followup", kind=kind)
            result = await ctx.roles["target"].complete(dialogue.view("interviewee"), **ctx.config.limit())
            reply = result.text if result.ok else ""
            dialogue.say("interviewee", reply, stage="followup_answer", kind=kind)
            score = await _grade_followup(ctx, kind, transcript, version.gold, question, reply)
            ctx.record(episode, f"followup/{k}" + (f"/try/{t + 1}" if t else ""), len(dialogue.turns), "target",
                       asked, reply, {"followup": score}, stage="followup", kind=kind, seed_solved=solved,
                       leakage=leak, **({"try": t + 1} if tries > 1 else {}))
            if score.value >= 1.0:
                break
        out.append({"kind": kind, "score": score.value, "question": one_line(question, 160),
                    **({"tries": t + 1} if tries > 1 else {})})
    return out


async def _grade_followup(ctx: EpisodeContext, kind: str, transcript: str, gold: str, question: str,
                          reply: str) -> Score:
    if not reply.strip():
        return Score(0.0, "empty", "no reply")
    result = await ctx.roles["judge"].complete(
        prompts.followup_grade_messages(kind, transcript, gold, question, reply), schema=prompts.FollowUpGrade)
    if not isinstance(result.parsed, prompts.FollowUpGrade):
        return Score(0.0, "judge_failed", one_line(result.error or "no decision"))
    reason = one_line(result.parsed.reasoning)
    if echoes(reason, prompts.FollowUpGrade, prompts.FOLLOWUP_GRADE_SYSTEM):
        reason = "(the judge gave no reasoning: it repeated its instructions)"
    return Score(1.0 if result.parsed.adequate else 0.0, "followup_judge", reason)
