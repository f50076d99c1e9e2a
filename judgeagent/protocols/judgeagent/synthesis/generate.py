"""One slot: a knowledge path from its anchor chunk, then one candidate item at the slot's difficulty.

Easy items are cloze questions (no model: the gold is the blanked span of a path sentence); medium and
hard ones come from the interviewer (the paper's Prompt 5) and must pass the run's question checks and,
by default, the interviewer's own answer from the path text (the self-check).
"""
from __future__ import annotations

from typing import Any

from ....grading.answers import AnswerChecker
from ....grading.text import normalise_answer
from ....graph.model import ContextGraph
from ....graph.sample import KnowledgePath, PathSampler
from ..checks import rejection
from ..cloze import cloze_questions
from ..prompts import GeneratedQuestions, answer_messages, generation_messages
from .config import QUESTION_TYPE, SynthesisConfig
from .rows import Candidate, SlotPath

SELF_CHECK_FAILED = "interviewer's own answer disagrees with its gold"
CLOZE_CHECKS = ("gold_in_source_chunk", "answer_not_in_question")
LLM_CHECKS = ("answer_length", "answer_not_in_question", "not_copied_sentence", "supported_by_path")


def slot_seed(config: SynthesisConfig, slot: int) -> int:
    return config.seed * 1_000_003 + slot


def walk(sampler: PathSampler, graph: ContextGraph, anchor: str, config: SynthesisConfig, slot: int) -> KnowledgePath:
    """The slot's path, seeded from the anchor chunk's text as if it were a question about it."""
    return sampler.sample([graph.chunk_texts[graph.chunk_row[anchor]]], hops=config.hops, seed=slot_seed(config, slot))


def path_row(path: KnowledgePath) -> SlotPath:
    return {"entities": path.entities, "entity_ids": path.entity_ids, "chunk_ids": path.chunk_ids,
            "seed": path.seed, "seed_kind": path.seed_kind}


def cloze_item(graph: ContextGraph, path: KnowledgePath, config: SynthesisConfig, slot: int,
               doc_of: dict[str, str], anchor_doc: str) -> tuple[Candidate | None, str | None]:
    """(item, None), or (None, why there is none). A sentence of the anchor document first: anchors visit
    every document in turn, so taking the gold from there is what spreads the set over the corpus."""
    from ..checks import answer_in_question

    found: list[Any] = []
    own = [c for c in path.chunk_ids if doc_of[c] == anchor_doc]
    for chunks in ([own] if own else []) + [path.chunk_ids]:
        found = cloze_questions(graph, chunks, path.entity_ids, count=1, seed=slot_seed(config, slot))
        if found:
            break
    if not found:
        return None, "no sentence of the path makes a cloze question"
    c = found[0]
    if c.gold not in graph.chunk_texts[graph.chunk_row[c.chunk_id]]:  # by construction; checked, not assumed
        return None, "gold not in its source chunk"
    if answer_in_question(c.question, c.gold):
        return None, "answer appears in the question"
    return _item("easy", "cloze", c.question, c.gold, c.aliases, [c.chunk_id], path, doc_of, CLOZE_CHECKS), None


async def llm_item(interviewer: Any, checker: AnswerChecker, path: KnowledgePath, tier: str,
                   config: SynthesisConfig, doc_of: dict[str, str]) -> tuple[Candidate | None, list[str]]:
    """(item or None, the reasons candidates were turned down): up to `generation_attempts` requests."""
    rejected: list[str] = []
    for attempt in range(config.generation_attempts):
        reply = await interviewer.complete(generation_messages(path.text, path.entities, tier, 1, attempt),
                                           schema=GeneratedQuestions)
        if not reply.ok or not isinstance(reply.parsed, GeneratedQuestions) or not reply.parsed.generated_question:
            rejected.append("unparseable reply")
            continue
        candidate = reply.parsed.generated_question[0]
        why = rejection(candidate, path.text, [], [], config.max_answer_words, duplicate_jaccard=1.01)
        if why:
            rejected.append(why)
            continue
        checks = LLM_CHECKS
        if config.self_check:
            own = await interviewer.complete(answer_messages(candidate.question, passage=path.text))
            verdict = await checker.check(candidate.question, candidate.answer, own.text if own.ok else "")
            if not verdict.correct:
                rejected.append(SELF_CHECK_FAILED)
                continue
            checks = (*checks, "self_check")
        sources = _holding(path, candidate.answer) or list(dict.fromkeys(path.chunk_ids))
        item = _item(tier, "llm", candidate.question.strip(), candidate.answer.strip(), (), sources, path, doc_of, checks)
        return item, rejected
    return None, rejected


def _holding(path: KnowledgePath, answer: str) -> list[str]:
    """The path chunks that state the answer (its normalised words in order)."""
    gold = f" {normalise_answer(answer)} "
    return [c for c, text in dict(zip(path.chunk_ids, path.chunk_texts)).items()
            if gold.strip() and gold in f" {normalise_answer(text)} "]


def _item(tier: str, generator: str, question: str, gold: str, aliases: tuple[str, ...] | list[str],
          sources: list[str], path: KnowledgePath, doc_of: dict[str, str], checks: tuple[str, ...]) -> Candidate:
    return {
        "question": question, "answer": gold, "aliases": list(aliases), "difficulty": tier,
        "question_type": QUESTION_TYPE[tier], "generator": generator,
        "supporting_doc_ids": list(dict.fromkeys(doc_of[c] for c in sources)), "source_chunk_ids": sources,
        "path_chunk_ids": list(dict.fromkeys(path.chunk_ids)), "path_entities": path.entities,
        "path_doc_ids": list(dict.fromkeys(doc_of[c] for c in path.chunk_ids)), "seed_entity": path.seed,
        "checks": list(checks),
    }
