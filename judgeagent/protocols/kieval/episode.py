"""One item's KIEval dialogue (paper Algorithm 1): verify, answer, then up to R rounds of interactor
question, candidate reply and evaluation, stopping early when the evaluator says so.

Every step is a record with a stable id; an item run again after an interruption reads its finished
steps back from the records (a failed evaluation is not in the call journal, but it is recorded), so
no finished model call is made twice.
"""
from __future__ import annotations

import asyncio
import hashlib
import random
from typing import TYPE_CHECKING, Any

from ...grading.verdict import one_line
from ...models.dialogue import Dialogue
from ..record import Record, Score
from . import prompts
from .evaluator import evaluate_turn
from .rows import DialogueRow, EvaluationDump, PathRow, RoundRow, VerifiedBy
from .rubric import ASPECTS, normalise

if TYPE_CHECKING:
    from ...benchmark import Item
    from ...grading.verdict import Verdict
    from ..base import Episode, EpisodeContext

FALLBACK_QUESTION = "Why is that so? Explain the reasoning behind your last answer in more depth."
"""Asked when the interactor gives no question, so that the round still tests the candidate."""


async def dialogue(ctx: EpisodeContext, episode: Episode) -> DialogueRow:
    item = episode.items[0]
    row: DialogueRow = {"qid": item.qid, "question": item.question, "options": item.options, "gold": item.gold,
                           "gold_letter": item.gold_letter}
    if ctx.config.verify:
        verification = await _verify(ctx, episode, item)
        row["verification"] = verification
        wrong = [role for role in ("interactor", "evaluator") if not verification[role]["correct"]]
        if wrong:
            return {**row, "verified": False, "dropped": "both_wrong" if len(wrong) == 2 else f"{wrong[0]}_wrong"}
    path = await _path(ctx, episode, item)
    talk = Dialogue(("interactor", "candidate"), {"candidate": prompts.CANDIDATE_SYSTEM})
    correct, method = await _answer(ctx, episode, item, talk)
    rounds = await _rounds(ctx, episode, item, talk, path["text"] if path else "")
    stopped = next((r for r in rounds if r["stop_reason"] != "none"), None)
    return {**row, "verified": True, "correct": correct, "answer_method": method, "path": path,
            "turns": [{"speaker": t.speaker, "content": t.content, "round": t.meta.get("round", 0)}
                      for t in talk.turns],
            "rounds": rounds, "stop_reason": stopped["stop_reason"] if stopped else "none",
            "valid_rounds": len(rounds) - (1 if stopped else 0)}


async def _ask(ctx: EpisodeContext, episode: Episode, step: str, role: str, messages: list[dict[str, str]],
               turn: int, **meta: Any) -> str:
    """A plain-text call, read back from the records when this step was done before."""
    async def call() -> Record:
        result = await ctx.roles[role].complete(messages, **_limit(ctx))
        reply = result.text if result.ok else ""
        return ctx.record(episode, step, turn, role, messages[-1]["content"], reply, error=result.error, **meta)

    return (await ctx.recorded(episode, step, call)).reply


async def _verify(ctx: EpisodeContext, episode: Episode, item: Item) -> dict[str, VerifiedBy]:
    """The interactor and the evaluator answer the item themselves; each answer is checked against the gold."""
    out: dict[str, VerifiedBy] = {}
    for role in ("interactor", "evaluator"):
        async def call(role: str = role) -> Record:
            messages = prompts.verify_messages(item.question, item.options)
            result = await ctx.roles[role].complete(messages, **_limit(ctx))
            reply = result.text if result.ok else ""
            verdict = await _check(ctx, item, reply)
            return ctx.record(episode, f"verify/{role}", 0, role, messages[-1]["content"], reply,
                              {"correct": Score.of(verdict)}, stage="verify", error=result.error)

        done = await ctx.recorded(episode, f"verify/{role}", call)
        correct = done.scores["correct"]
        out[role] = {"answer": one_line(done.reply, 120), "correct": correct.value == 1.0, "method": correct.method}
    return out


async def _check(ctx: EpisodeContext, item: Item, reply: str) -> Verdict:
    return await ctx.state.checker.check(item.question, list(item.golds), answer_of(reply), options=item.options,
                                            gold_letter=item.gold_letter)


def answer_of(reply: str) -> str:
    """The final answer: the reply's first non-empty line, without an "Answer:" label."""
    line = next((x.strip() for x in reply.splitlines() if x.strip()), "")
    return line.split(":", 1)[1].strip() if line.lower().startswith("answer:") else line


async def _path(ctx: EpisodeContext, episode: Episode, item: Item) -> PathRow | None:
    """With a graph: a knowledge path seeded by the question, to ground the interactor (recorded in the row)."""
    sampler = ctx.state.sampler
    if sampler is None:
        return None
    seed = int(hashlib.sha256(f"{ctx.config.seed}:{episode.id}".encode()).hexdigest(), 16) % 2**32
    # spaCy and the encoder are not thread-safe: every path is sampled on the one sampler thread.
    path = await asyncio.get_running_loop().run_in_executor(
        ctx.state.sampler_thread, lambda: sampler.sample(item.question, hops=ctx.config.hops, seed=seed))
    return {"seed": path.seed, "entities": path.entities, "chunk_ids": path.chunk_ids, "text": path.text[:1500]}


async def _answer(ctx: EpisodeContext, episode: Episode, item: Item, talk: Dialogue) -> tuple[bool, str]:
    """The candidate answers the benchmark question (round 0): benchmark accuracy on the same items."""
    talk.say("interactor", prompts.benchmark_prompt(item.question, item.options), round=0)

    async def call() -> Record:
        messages = talk.view("candidate")
        examples = shots(ctx, item)
        messages = [*messages[:1], *examples, *messages[1:]]  # after the system prompt, before the question
        result = await ctx.roles["candidate"].complete(messages, **_limit(ctx))
        reply = result.text if result.ok else ""
        verdict = await _check(ctx, item, reply)
        extra = {"shots": [m["content"] for m in examples[::2]]} if examples else {}
        return ctx.record(episode, "answer", 1, "candidate", talk.turns[-1].content, reply,
                          {"correct": Score.of(verdict)}, stage="answer", error=result.error, **extra)

    done = await ctx.recorded(episode, "answer", call)
    talk.say("candidate", done.reply, round=0)
    return done.scores["correct"].value == 1.0, done.scores["correct"].method


def shots(ctx: EpisodeContext, item: Item) -> list[dict[str, str]]:
    """`shots` solved examples from the benchmark's other items (a draw seeded by the run's seed and the item), as
    question / answer message pairs: the answer on a first line, as the candidate is asked to give its own."""
    if not ctx.config.shots:
        return []
    others = [x for x in ctx.benchmark.items if x.qid != item.qid]
    seed = int(hashlib.sha256(f"{ctx.config.seed}:shots:{item.qid}".encode()).hexdigest(), 16) % 2**32
    chosen = random.Random(seed).sample(others, min(ctx.config.shots, len(others)))
    out: list[dict[str, str]] = []
    for x in chosen:
        out += [{"role": "user", "content": prompts.benchmark_prompt(x.question, x.options)},
                {"role": "assistant", "content": x.gold_letter or x.gold}]
    return out


async def _rounds(ctx: EpisodeContext, episode: Episode, item: Item, talk: Dialogue,
                  background: str) -> list[RoundRow]:
    rounds: list[RoundRow] = []
    for r in range(1, ctx.config.rounds + 1):
        turns = _turns(talk)
        question = await _ask(ctx, episode, f"round/{r}/question", "interactor",
                              prompts.interactor_messages(item.question, item.options, item.gold, turns, background),
                              len(talk.turns), stage="question", round=r)
        fallback = not question.strip()
        talk.say("interactor", FALLBACK_QUESTION if fallback else question.strip(), round=r)
        reply = await _ask(ctx, episode, f"round/{r}/reply", "candidate", talk.view("candidate"), len(talk.turns),
                           stage="reply", round=r)
        talk.say("candidate", reply, round=r)
        evaluation, failure, stop = await _evaluate(ctx, episode, talk, [x["evaluation"] for x in rounds], r)
        rounds.append({"round": r, "question": talk.turns[-2].content, "fallback_question": fallback, "reply": reply,
                       "evaluation": evaluation, "failure": failure, "stop_reason": stop})
        if stop != "none" and ctx.config.early_stop:
            break
    return rounds


async def _evaluate(ctx: EpisodeContext, episode: Episode, talk: Dialogue, previous: list[EvaluationDump | None],
                    r: int) -> tuple[EvaluationDump | None, str, str]:
    step = f"round/{r}/evaluation"

    async def call() -> Record:
        out = await evaluate_turn(ctx.roles["evaluator"], _turns(talk), previous, r)
        scores = {} if out.evaluation is None else {
            a: Score(normalise(out.evaluation[a]["score"]), "kieval_evaluator", one_line(out.evaluation[a]["comment"]))
            for a in ASPECTS}
        if out.evaluation is not None:
            scores["overall"] = Score(normalise(out.evaluation["overall_score"]), "kieval_evaluator",
                                      one_line(out.evaluation["overall_comment"]))
        return ctx.record(episode, step, len(talk.turns), "evaluator", out.prompt, out.reply, scores,
                          stage="evaluation", round=r, evaluation=out.evaluation, failure=out.failure,
                          repaired=out.repaired, stop_reason=out.stop_reason)

    meta = (await ctx.recorded(episode, step, call)).meta
    return meta["evaluation"], meta["failure"], meta["stop_reason"]


def _limit(ctx: EpisodeContext) -> dict[str, int]:
    """The reply cap as a call setting; none when unset, so that the call (and its journal key) is unchanged."""
    return {} if ctx.config.reply_tokens is None else {"max_tokens": ctx.config.reply_tokens}


def _turns(talk: Dialogue) -> list[dict[str, str]]:
    return [{"speaker": t.speaker, "content": t.content} for t in talk.turns]
