"""`setting=authors`' path shape: one walk per batch from its most frequent entity, cut into one window per
extension round (DataArcTech/JudgeAgent@2b1b921, judge_agent.py:268 and 480-536)."""
from __future__ import annotations

from ...graph.rooted import most_frequent, rooted_walk, windows
from ...graph.sample import KnowledgePath, PathSampler
from .config import EvalConfig
from .records import PathInfo

WINDOW_SEED = 104_729
"""Keeps the walk's draw apart from `batch._round_seed`'s (rounds count from 1, so b * 1009 + 0 is no round's)."""


def batch_windows(sampler: PathSampler, config: EvalConfig, b: int,
                  questions: list[str]) -> list[tuple[KnowledgePath, PathInfo]]:
    """Each round's path: the batch's walk of `hops + rounds - 1` hops (the authors lengthen `sample_hop` by
    `max_extend_rounds - 1`: `hops + rounds` entities), one window of `hops` entities per round. Fewer rounds when
    the walk stops early, none when the batch names no entity or the walk is no longer than one window, as the
    authors' code (their windows are of `sample_hop` entries, 2 by default: `hops`=2 under this setting)."""
    root = most_frequent(sampler, questions)
    if root is None:
        return []
    seed = config.seed * 1_000_003 + b * 1009 + WINDOW_SEED
    whole = rooted_walk(sampler, root, questions, config.hops + config.rounds, seed)
    found = []
    for k, part in enumerate(windows(whole, config.hops, config.rounds)):
        info: PathInfo = {"entities": part.entities, "entity_ids": part.entity_ids, "chunk_ids": part.chunk_ids,
                          "seed": part.seed, "seed_kind": part.seed_kind, "similarities": part.similarities,
                          "stopped_early": whole.stopped_early, "window": k, "walk": whole.entities}
        # `PathSampler.relevance`'s measure (each chunk's similarity to its closest question, averaged), from the
        # walk's own similarities: the same up to rounding, without encoding the questions again per window.
        info["relevance"] = round(sum(part.similarities) / len(part.similarities), 4)
        found.append((part, info))
    return found
