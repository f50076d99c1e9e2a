"""One turn's evaluation: the evaluator's structured reply, one repair turn, then a recorded failure.

Shared by the run and by `rescore`, so that a second evaluator is asked exactly what the first was.
"""
from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ...grading.verdict import one_line
from . import prompts
from .rows import EvaluationDump
from .rubric import TurnEvaluation, parse_evaluation


@dataclass(frozen=True)
class Evaluated:
    """An evaluation (as a dict, valid) or a failure (why), and the evaluator's last raw reply."""

    evaluation: EvaluationDump | None
    failure: str
    reply: str
    prompt: str
    repaired: bool

    @property
    def stop_reason(self) -> str:
        if self.evaluation is None or not self.evaluation["stop_conversation"]:
            return "none"
        # A stop without a reason is still a stop: the flag is the decision, the reason its label.
        return self.evaluation["stop_reason"] if self.evaluation["stop_reason"] != "none" else "unspecified"


async def evaluate_turn(model: Any, turns: Sequence[Mapping[str, str]],
                        previous: Sequence[EvaluationDump | None], round_: int) -> Evaluated:
    """Ask `model` to score the candidate's latest reply in `turns` (previous: its own earlier evaluations).

    An unparseable or out-of-range reply gets one repair turn, unless the model's client already gave
    it one (real endpoints do); a second failure is returned as such and never becomes a score.
    """
    messages = prompts.evaluator_messages(turns, previous, round_)
    result = await model.complete(messages, schema=TurnEvaluation)
    repaired = bool(result.extra.get("repaired"))
    if result.parsed is None and not repaired:
        problem = result.error or "no reply"
        result = await model.complete(prompts.repair_messages(messages, result.text, problem), schema=TurnEvaluation)
        repaired = True
    prompt = messages[-1]["content"]
    if isinstance(result.parsed, TurnEvaluation):
        # Range and reasons are checked again from the dict: what is stored is what `rescore` reads back.
        evaluation, why = parse_evaluation(result.parsed.model_dump(mode="json"))
        if evaluation is not None:
            dump: EvaluationDump = evaluation.model_dump(mode="json")  # type: ignore[assignment]  # its fields
            return Evaluated(dump, "", result.text, prompt, repaired)
        return Evaluated(None, why, result.text, prompt, repaired)
    why = one_line(result.error or "no reply", 200)
    return Evaluated(None, f"no valid evaluation after one repair: {why}", result.text, prompt, repaired)
