"""The items a lesson is taught on: multiple choice, as given or built from the context graph.

Weak students cannot be graded on free text, so Teach2Eval asks only multiple-choice questions. A
choice item is used as it is (once checked); a free-text item gets distractors from our own graph
(`grading.mcq.DistractorBuilder`) where the paper collected weak models' wrong answers.
"""
from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import TYPE_CHECKING

from ...benchmark import Benchmark, Item
from ...errors import JudgeAgentError
from ...grading.text import normalise_answer
from .rows import Conversion

if TYPE_CHECKING:
    from ...graph.model import ContextGraph
    from .config import Teach2EvalConfig


@dataclass(frozen=True)
class McqBenchmark(Benchmark):
    """The benchmark as taught: every item multiple choice; `conversion` says where the options came from."""

    conversion: Conversion


def as_choice(benchmark: Benchmark, graph: ContextGraph | None, config: Teach2EvalConfig) -> McqBenchmark:
    """Every item as multiple choice, or a one-line error before anything is written."""
    for item in benchmark.items:
        if item.is_choice:
            check_choice_item(item)
    free = [i for i in benchmark.items if not i.is_choice]
    if free and graph is None:
        raise JudgeAgentError(f"benchmark {benchmark.path} has {len(free)} free-text items and teach2eval asks "
                              "multiple-choice questions: give --graph to build their distractors (or convert "
                              "it first with judgeagent make-mcq)")
    built: dict[str, Item] = {}
    skipped: Counter[str] = Counter()
    if free:
        from ...grading.mcq import DistractorBuilder

        builder = DistractorBuilder(graph, count=config.distractors, seed=config.seed)  # type: ignore[arg-type]
        for item, result in zip(free, builder.convert(free)):
            if result.item is None:
                skipped[result.reason] += 1
            else:
                built[item.qid] = result.item
    items = [i if i.is_choice else built[i.qid] for i in benchmark.items if i.is_choice or i.qid in built]
    if not items:
        reasons = "; ".join(f"{n} {r}" for r, n in skipped.most_common(3))
        raise JudgeAgentError(f"no item of {benchmark.path} could be made multiple choice ({reasons}); "
                              "use a benchmark with options or a graph built from its documents")
    # a make-mcq file keeps where its options came from (`meta.options_from`); a benchmark's own: `choice`
    sources = Counter(i.meta.get("options_from", "choice") for i in items)
    conversion = Conversion(items=len(benchmark.items), taught=len(items), options_from=dict(sorted(sources.items())),
                            skipped=dict(skipped.most_common()))
    return McqBenchmark(benchmark.path, items, conversion)


def check_choice_item(item: Item) -> None:
    """A choice item's gold must be one of its options, and no two options may read the same."""
    options = item.options or {}
    letters = item.gold_letter or ""
    if not letters or any(x not in options for x in (letters if letters not in options else [letters])):
        raise JudgeAgentError(f"item {item.qid!r}: its gold {item.gold!r} is not among its options "
                              f"({', '.join(options)}); give answer_letter or make the answer one option's text")
    norms = [normalise_answer(v) for v in options.values()]
    if len(set(norms)) != len(norms):
        raise JudgeAgentError(f"item {item.qid!r}: two of its options read the same; every option must differ")
