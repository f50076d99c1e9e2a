"""What a run will cost before it starts: model calls per role, tokens and dollars, as ranges.

Some of a run is fixed by its options (one target call per base question, one feedback call per
batch); the rest depends on the answers (a weak target gets easy cloze rounds that cost the
interviewer nothing; a rejected question is regenerated; the judge is asked only what no rule
decides, and not at all once it fails calibration). So every figure is a range: `low` assumes
nothing goes wrong and every rule decides, `high` assumes every attempt and every judge call is made.
Tokens are estimated at 4 characters a token from the prompts the run will send.
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict, dataclass
from typing import Any

from ...benchmark import Item
from ...models.spec import Prices
from .config import EvalConfig
from .prompts import answer_messages
from .together import batch_count

CHARS_PER_TOKEN = 4
# Typical reply lengths (tokens) of each kind of call, for the output side of the estimate.
OUTPUT_TOKENS = {"answer": 60, "generation": 150, "self_check": 40, "feedback": 350, "judge": 80}
PROMPT_TOKENS = {"generation": 250, "self_check": 60, "feedback": 600, "judge": 150}
"""Fixed parts of each prompt (instructions), on top of the path text or transcript."""


@dataclass(frozen=True)
class RoleEstimate:
    role: str
    calls_low: int
    calls_high: int
    input_tokens_high: int
    output_tokens_high: int
    cost_low: float
    cost_high: float

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def estimate_run(config: EvalConfig, items: Sequence[Item], prices: dict[str, Prices] | None = None, *,
                 chunk_words: int = 150, judge_used: bool = True) -> list[RoleEstimate]:
    """Calls, tokens and cost per role (target, interviewer, judge) for `items` under `config`."""
    prices = prices or {}
    batches = batch_count(items, config.batch_size, config.setting) if items else 0
    rounds = config.rounds if config.extension else 0
    extension_questions = batches * rounds * config.questions_per_round
    base_tokens = sum(_tokens(answer_messages(i.question, i.options, _passage(i, config))) for i in items)
    path_tokens = int(config.hops * chunk_words * 1.33)  # ~1.33 tokens a word of English

    # `setting=authors` asks a batch's base questions in one call, and each round's questions in one more.
    asked = batches * (1 + rounds) if config.setting == "authors" else len(items) + extension_questions
    target = _role("target", batches if config.setting == "authors" else len(items), asked,
                   base_tokens + extension_questions * (path_tokens // config.hops + 40),
                   (len(items) + extension_questions) * OUTPUT_TOKENS["answer"], prices.get("target"))

    per_round_high = config.generation_attempts * (1 + config.questions_per_round)
    llm_rounds_low = 0 if config.easy_generator == "cloze" and config.fixed_difficulty in (None, "easy") else 1
    generation_high = batches * rounds * per_round_high
    generation_low = batches * rounds * llm_rounds_low
    transcript = (base_tokens + extension_questions * 80) // max(1, batches) if batches else 0
    # setting=authors asks no feedback on a batch answered all right (authors.py): none at the low end
    feedback_low = 0 if config.setting == "authors" else batches
    interviewer = _role(
        "interviewer", generation_low + feedback_low, generation_high + 2 * batches,
        generation_high * (PROMPT_TOKENS["generation"] + path_tokens)
        + 2 * batches * (PROMPT_TOKENS["feedback"] + transcript),
        generation_high * OUTPUT_TOKENS["generation"] + 2 * batches * OUTPUT_TOKENS["feedback"],
        prices.get("interviewer"), low_share=(generation_low + feedback_low) / max(1, generation_high + 2 * batches))

    policy = config.checker.judge_policy
    calibration_high = 0 if policy == "off" else config.checker.calibration_pairs
    # Low: no call at all (a benchmark may give no calibration pairs, identical pairs share a call).
    calibration_low = 0
    free_text = sum(1 for i in items if not i.is_choice) + extension_questions
    self_checks = generation_high - batches * rounds * config.generation_attempts
    answers_high = (free_text + max(0, self_checks)) if (judge_used and policy != "off") else 0
    judge_high = calibration_high + answers_high
    judge = _role("judge", calibration_low, judge_high, judge_high * PROMPT_TOKENS["judge"],
                  judge_high * OUTPUT_TOKENS["judge"], prices.get("judge"),
                  low_share=calibration_low / max(1, judge_high))
    return [target, interviewer, judge]


def render_estimate(estimates: Sequence[RoleEstimate]) -> str:
    rows = [f"{'role':<12}{'calls':>14}{'in tok (max)':>14}{'out tok (max)':>15}{'cost $':>18}"]
    for e in estimates:
        calls = f"{e.calls_low}" if e.calls_low == e.calls_high else f"{e.calls_low}-{e.calls_high}"
        cost = f"{e.cost_low:.4f}" if e.cost_low == e.cost_high else f"{e.cost_low:.4f}-{e.cost_high:.4f}"
        rows.append(f"{e.role:<12}{calls:>14}{e.input_tokens_high:>14,}{e.output_tokens_high:>15,}{cost:>18}")
    low, high = sum(e.cost_low for e in estimates), sum(e.cost_high for e in estimates)
    rows.append(f"{'total':<12}{'':>14}{'':>14}{'':>15}{f'{low:.4f}-{high:.4f}':>18}")
    return "\n".join(rows)


def _role(role: str, low: int, high: int, input_tokens: int, output_tokens: int, prices: Prices | None,
          low_share: float | None = None) -> RoleEstimate:
    prices = prices or Prices()
    cost_high = (input_tokens * prices.input + output_tokens * prices.output) / 1e6
    share = low / high if low_share is None and high else (low_share or 0.0)
    return RoleEstimate(role, low, high, input_tokens, output_tokens, round(cost_high * share, 6), round(cost_high, 6))


def _tokens(messages: list[dict[str, str]]) -> int:
    return sum(len(m["content"]) for m in messages) // CHARS_PER_TOKEN


def _passage(item: Item, config: EvalConfig) -> str | None:
    if item.passage is None or config.max_passage_words is None:
        return item.passage
    return " ".join(item.passage.split()[: config.max_passage_words])
