"""The DynaEval protocol's options (`-o key=value`)."""
from __future__ import annotations

from typing import Literal, Self

from pydantic import BaseModel, ConfigDict, Field, model_validator

TaskName = Literal["public_goods", "code", "translation", "idiom"]


PAPER_RUNS = {"public_goods": 10, "idiom": 30}
"""The paper's repetitions (Section 3.1): 10 public goods games per mode, 30 start idioms; code and
translation play every item once (per role assignment)."""
CONVERGE_RUNS = 10
"""max_runs under repeat=converge when not given (judgeagent's earlier default)."""


class DynaEvalConfig(BaseModel):
    """DynaEval (dynamic interaction games): one task, repeated a fixed number of times as the paper does, or
    until every player's score converges."""

    model_config = ConfigDict(frozen=True, extra="forbid", use_attribute_docstrings=True)

    task: TaskName = "public_goods"
    """The game: public_goods, code (generation and review), translation or idiom (solitaire)."""
    repeat: Literal["fixed", "converge"] = "fixed"
    """fixed: exactly max_runs repetitions, as the paper's tables (public goods 10 per mode, idiom 30 start idioms,
    code and translation every item); converge: judgeagent's stopping rule, from min_runs until every player's
    95% interval half-width is below epsilon, or max_runs."""
    scoring: Literal["paper", "judgeagent"] = "paper"
    """code and translation: paper: the referee rates each role 1-10 from the dialogue (Appendix A.8's judge
    prompts; the code reviewer comments and the programmer revises), with Pass@1 of the programmer's code per
    round (code) and BLEU beside chrF (translation); judgeagent: the earlier games, one shared score (the final
    code's pass/fail; the referee's blind rating of the final translation) and chrF."""
    idiom_play: Literal["pairwise", "all"] = "pairwise"
    """idiom: pairwise: every ordered pair of players plays from each start idiom, so each pair plays both
    orders (the paper's Table 1); all: every player in one game, seats shuffled (judgeagent's earlier game)."""
    epsilon: float | None = Field(None, gt=0)
    """repeat=converge: stop once every player's mean score (asymmetric: each model x role cell's) has a 95% half-width below this.

    In the task's score unit; None: the task's own (public_goods 1 coin, code 0.1, translation 0.5, idiom 0.1)."""
    max_runs: int | None = Field(None, ge=1, le=1000)
    """fixed: the repetitions played; converge: the most played. None: the paper's count under fixed (public
    goods 10, idiom 30, code and translation one per item), 10 under converge."""
    min_runs: int = Field(3, ge=2, le=1000)
    """repeat=converge: repetitions before convergence is first checked (an interval needs two scores at least)."""
    wave: int = Field(1, ge=1, le=100)
    """repeat=converge: repetitions added at a time once min_runs are done: larger waves run together but may overshoot the stop."""
    seed: int = Field(0, ge=0)
    """Seed of the seat shuffles, the problem order and the start idioms."""
    max_tokens: int | None = Field(None, ge=1)
    """The players' reply length limit (None: each model's own setting)."""
    rounds: int = Field(5, ge=1, le=50)
    """public_goods: rounds per game."""
    mode: int = Field(1, ge=1, le=2)
    """public_goods: 1 tells each player its income after a round, 2 the sorted list of all investments."""
    endowment: int = Field(10, ge=1)
    """public_goods: coins each player gets at the start of each round."""
    multiplier: float = Field(1.5, gt=0)
    """public_goods: the pool is multiplied by this and shared equally among all players."""
    problems: str | None = None
    """code: MBPP's mbpp.jsonl (the paper's data; its test split) or a HumanEval-format JSONL file (task_id, prompt,
    entry_point, test), e.g. HumanEval's problems.jsonl."""
    items: int = Field(20, ge=1)
    """code, translation: items used, a seeded sample of the file; repetition r plays item r modulo this."""
    review_rounds: int = Field(2, ge=1, le=10)
    """code: reviewer turns at most before the referee ends the game (consensus ends it earlier)."""
    timeout_s: float = Field(10.0, gt=0, le=120)
    """code: wall-clock limit of one test run in the sandbox."""
    memory_mb: int = Field(512, ge=64, le=8192)
    """code: address-space limit of one test run in the sandbox."""
    sandbox: Literal["bubblewrap", "unsafe-no-isolation"] = "bubblewrap"
    """code: how model-written code runs: under bubblewrap (OS isolation; the task refuses where it does not work),
    or unsafe-no-isolation, plain child processes that can read and write what the evaluator can (docs/security.md)."""
    sources: str | None = None
    """translation: JSON lines with `text` (or `source`) and an optional `reference` (e.g. a corpus docs.jsonl), or
    an IWSLT 2017 test archive (`texts/en/zh/en-zh.tgz`, the paper's data: paragraphs with their references)."""
    source_language: str = "English"
    """translation: the language of the sources."""
    target_language: str = "French"
    """translation: the language to translate into."""
    polish_rounds: int = Field(1, ge=1, le=10)
    """translation: proofreader turns at most; 1 is the paper's single pass, more lets the translator answer each
    polish with a revision or `over` (consensus ends the game earlier)."""
    max_words: int = Field(120, ge=10, le=2000)
    """translation: a source without a reference is cut to its first paragraph of this many words at most."""
    idiom_moves: int = Field(30, ge=2, le=500)
    """idiom: moves at most; a game that reaches it is a draw."""

    @model_validator(mode="after")
    def _runs_in_order(self) -> Self:
        # Both given and contradicting: a max_runs alone below the default min_runs is a short run, as before.
        if ({"min_runs", "max_runs"} <= self.model_fields_set and self.max_runs is not None
                and self.min_runs > self.max_runs):
            raise ValueError(f"min_runs ({self.min_runs}) is more than max_runs ({self.max_runs}): "
                             "raise max_runs or lower min_runs")
        return self


def planned_runs(config: DynaEvalConfig, task: str, items: int) -> int:
    """The repetitions to play (fixed) or to play at most (converge): max_runs, else the paper's count."""
    if config.max_runs is not None:
        return config.max_runs
    if config.repeat == "converge":
        return CONVERGE_RUNS
    return PAPER_RUNS.get(task, items or CONVERGE_RUNS)
