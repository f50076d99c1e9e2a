"""Pre-interview query modification: a paraphrased stem, changed quantities with a recomputed gold, removed
information or a new question from the reference (rewrite.py); options shuffled in code, each version checked."""
from __future__ import annotations

import random
from dataclasses import dataclass
from typing import TYPE_CHECKING

from ...benchmark import Item
from ...grading.leakage import leaked_strings
from ...grading.text import normalise_answer, token_f1
from . import prompts
from .grade import check_reply
from .quantities import Rejected, eligibility, recompute
from .rewrite import rewrite
from .rows import Versions

if TYPE_CHECKING:
    from ..base import Episode, EpisodeContext


@dataclass(frozen=True)
class Version:
    """The question as asked: its stem, options and gold letter (choice items) and gold answers."""

    question: str
    options: dict[str, str] | None
    gold_letter: str | None
    golds: tuple[str, ...]
    changed: bool = False
    note: str = ""
    method: str = "none"
    """How it was modified: none, shuffle (options only), paraphrase or quantities."""
    gold_source: str = "item"
    """Where `golds` come from: the item, "recomputed: <formula>" for changed quantities, or "reference section"
    for a new question (modifying)."""
    withheld: str = ""
    """unclarifying: the information removed from the question, given back when the interviewee asks for it."""

    @property
    def gold(self) -> str:
        return self.options[self.gold_letter] if self.options and self.gold_letter in self.options else self.golds[0]

    def guard_golds(self) -> list[tuple[str, dict[str, str] | None, str | None]]:
        """What the leakage guard searches for: every gold, the gold option's text and letter."""
        return [(g, self.options, self.gold_letter) for g in self.golds]

    def text(self) -> str:
        return prompts.question_text(self.question, self.options)


def original(item: Item) -> Version:
    return Version(item.question, item.options, item.gold_letter, item.golds)


def shuffled(item: Item, seed: int) -> tuple[dict[str, str] | None, str | None]:
    """The options in a seeded new order (never the original one), and where the gold letter went."""
    if not item.options:
        return None, None
    letters = list(item.options)
    order = list(range(len(letters)))
    random.Random(f"{seed}:{item.qid}").shuffle(order)
    if order == sorted(order) and len(order) > 1:
        order = order[1:] + order[:1]
    options = {letters[i]: item.options[letters[j]] for i, j in enumerate(order)}
    gold_index = letters.index(item.gold_letter) if item.gold_letter in letters else None
    letter = letters[order.index(gold_index)] if gold_index is not None else None
    return options, letter


def problem(candidate: str, item: Item, max_copy_f1: float) -> str:
    """Why a modified question is unusable ('' when it is fine)."""
    if len(candidate.split()) < 3:
        return "empty or too short"
    if normalise_answer(candidate) == normalise_answer(item.question):
        return "a copy of the original"
    overlap = token_f1(candidate, item.question)
    if overlap >= max_copy_f1:
        return f"too close to the original (token F1 {overlap:.2f} >= {max_copy_f1:g})"
    golds = [(g, None, None) for g in item.golds]
    revealed = set(leaked_strings(candidate, golds)) - set(leaked_strings(item.question, golds))
    if revealed:
        return f"states the answer ({'; '.join(sorted(revealed))})"
    return ""


async def modify(ctx: EpisodeContext, episode: Episode, item: Item) -> Version:
    """Changed quantities where asked for and allowed, else two tries at a paraphrase that passes the checks;
    else the original stem (options still shuffled)."""
    cfg = ctx.config
    if not cfg.modify:
        return original(item)
    fallback = ""
    if cfg.modification == "quantities":
        changed, fallback = await _quantities(ctx, episode, item)
        if changed is not None:
            return changed
        fallback = f"quantities not changed ({fallback}); "
    elif cfg.modification in ("unclarifying", "modifying"):
        got, why = await rewrite(ctx, episode, item, cfg.modification)
        if got is not None:
            unclear = cfg.modification == "unclarifying"
            return Version(got.question, None, None, got.golds, True,
                           "key information removed" if unclear else "new question from the reference",
                           cfg.modification, "item" if unclear else "reference section", got.withheld)
        fallback = f"{cfg.modification} not applied ({why}); "
    options, letter = shuffled(item, cfg.seed)
    why = ""
    for attempt in range(2):
        messages = prompts.paraphrase_messages(item.question, item.gold, why)
        result = await ctx.roles["interviewer"].complete(messages, schema=prompts.Paraphrase)
        candidate = result.parsed.question.strip() if isinstance(result.parsed, prompts.Paraphrase) else ""
        why = problem(candidate, item, cfg.max_copy_f1) if result.ok else f"no usable reply ({result.error})"
        if not why and cfg.verify_modified and not item.is_choice:
            why = await _self_check(ctx, candidate, item.golds)
        ctx.record(episode, f"modify/{attempt}", 0, "interviewer", messages[-1]["content"], result.text,
                   stage="modify", method="paraphrase", original=item.question, modified=candidate,
                   rejected=why or None)
        if not why:
            return Version(candidate, options, letter, item.golds, True, fallback + "paraphrased", "paraphrase")
    note = fallback + f"paraphrase rejected ({why}); original stem kept" + (", options shuffled" if options else "")
    return Version(item.question, options, letter, item.golds, options is not None, note,
                   "shuffle" if options else "none")


async def _quantities(ctx: EpisodeContext, episode: Episode, item: Item) -> tuple[Version | None, str]:
    """Two tries at changed numbers whose gold we can recompute (quantities.py); else why not."""
    why = eligibility(item)
    if why:
        return None, why
    for attempt in range(2):
        messages = prompts.quantities_messages(item.question, item.gold, why)
        result = await ctx.roles["interviewer"].complete(messages, schema=prompts.QuantityChange)
        proposal = result.parsed if isinstance(result.parsed, prompts.QuantityChange) else None
        recomputed = None
        if proposal is None:
            why = f"no usable reply ({result.error or 'not the requested fields'})"
        else:
            try:
                recomputed = recompute(item, proposal.question, proposal.formula, proposal.gold)
                why = ""
            except Rejected as e:
                why = str(e)
        if recomputed is not None and ctx.config.verify_modified:
            why = await _self_check(ctx, recomputed.question, (recomputed.gold,))
        ctx.record(episode, f"modify/quantities/{attempt}", 0, "interviewer", messages[-1]["content"], result.text,
                   stage="modify", method="quantities", original=item.question,
                   modified=proposal.question if proposal else "", original_gold=item.gold,
                   gold=recomputed.gold if recomputed else None,
                   formula=proposal.formula if proposal else None, rejected=why or None)
        if recomputed is not None and not why:
            return Version(recomputed.question, None, None, (recomputed.gold,), True, "quantities changed",
                           "quantities", f"recomputed: {recomputed.formula}"), ""
    return None, why


async def _self_check(ctx: EpisodeContext, question: str, golds: tuple[str, ...]) -> str:
    """The interviewer answers the modified question in a separate call: if it cannot reach the gold, the gold
    may no longer hold."""
    result = await ctx.roles["interviewer"].complete(prompts.self_check_messages(question), **ctx.config.limit())
    verdict = await check_reply(ctx, question, golds, result.text, first_line=False)
    return "" if verdict.correct else f"the interviewer's own answer to it is not the gold ({verdict.method})"


def describe(version: Version, item: Item) -> Versions:
    """Both versions, for the episode row and the report."""
    return {"original": {"question": item.question, "options": item.options, "gold_letter": item.gold_letter,
                         "golds": list(item.golds)},
            "modified": {"question": version.question, "options": version.options, "gold_letter": version.gold_letter,
                         "golds": list(version.golds)},
            "changed": version.changed, "note": version.note, "method": version.method,
            "gold_source": version.gold_source, **({"withheld": version.withheld} if version.withheld else {})}
