"""`Teach2EvalProtocol`: Teach2Eval (an indirect evaluation by judging how a model teaches) on the shared engine."""
from __future__ import annotations

from typing import Any, cast

from ...benchmark import Benchmark, Item
from ..base import (
    CallEstimate,
    Episode,
    EpisodeContext,
    Prepared,
    Protocol,
    RoleSpec,
    RunRequest,
    Seats,
    Section,
)
from ..record import RecordRow
from .config import Teach2EvalConfig
from .episode import teach
from .items import McqBenchmark, as_choice
from .report import ABILITIES, numbers, scoring_of, sections, shown
from .rows import Conversion, ItemRow, Summary


class Teach2EvalProtocol(Protocol[RecordRow, ItemRow, Summary]):
    name = "teach2eval"
    title = "Teach2Eval"
    paper = "Teach2Eval: An Indirect Evaluation Method for LLM by Judging How It Teaches: Sections 3-4, Appendix A"
    measures = ("how well the target teaches weak students multiple-choice items: application, judgment, "
                "guidance, reflection and comprehensive ability (student gain), each with an interval")
    Config = Teach2EvalConfig
    needs_note = "a benchmark; free-text items also need --graph (their distractors come from it)"
    roles = (RoleSpec("teacher", "the model under evaluation: judges the students' solutions and guides them",
                      "target"),
             RoleSpec("students", "weak models taught over T turns", many=True, model="local"))

    def check_inputs(self, request: RunRequest) -> None:
        # Items are made multiple choice (and checked) before the run folder exists: bad input writes nothing,
        # and the run's identity covers the options actually asked.
        if not isinstance(request.benchmark, McqBenchmark):
            request.benchmark = as_choice(request.benchmark, request.graph, request.config)
        super().check_inputs(request)

    added_later = {"scoring": "paper", "reflection": False, "history": "chat", "tell_answer": False}
    """scoring changes only the summary; reflection false and history chat ask what runs before them asked."""

    def episodes(self, benchmark: Benchmark, config: Any) -> list[Episode]:
        return [Episode(f"item-{i}-{item.qid}", (item,), i) for i, item in enumerate(benchmark.items)]

    def estimate_calls(self, config: Any, items: list[Item], seats: Seats) -> CallEstimate:
        """The teacher answers each item once; per student and item a right first answer takes 2 calls (the answer,
        the teacher's judgment), a wrong one up to 2T+1 (T+1 answers, T teacher turns): the recipe's counts."""
        students = sum(1 for k in seats if k.partition(".")[0] == "students")
        n = len(items)
        return CallEstimate(n + n * students * 2, n + n * students * (2 * config.turns + 1),
                            "fewest when every student answers right at once")

    async def prepare(self, ctx: EpisodeContext) -> Prepared:
        return Prepared(manifest={"mcq": getattr(ctx.benchmark, "conversion", {})})

    async def run_episode(self, ctx: EpisodeContext, episode: Episode) -> ItemRow:
        return await teach(ctx, episode)

    async def summarise(self, ctx: EpisodeContext, records: list[RecordRow],
                        episodes: list[ItemRow]) -> Summary:
        cfg = ctx.config
        summary = numbers(episodes, cfg.turns, cfg.resamples, cfg.seed, cfg.lessons_shown, cfg.scoring)
        summary["conversion"] = cast(Conversion, ctx.run.manifest.get("mcq") or {})
        if cfg.tell_answer:  # only then: a default run's summary stays as it was
            summary["tell_answer"] = True
        return summary

    def report_sections(self, summary: Summary) -> list[Section]:
        return sections(summary)

    def headline(self, summary: Summary) -> dict[str, float | None]:
        return {key: summary["abilities"][key]["value"] for key in ("AA", "JA", "GA", "RA", "CA")}

    def render_summary(self, summary: Summary, folder: str) -> str:
        a = summary["abilities"]

        def shown_(key: str) -> str:
            return shown(key, a[key]["value"], scoring_of(summary))

        base = summary["baseline"]
        lines = [f"run {folder}", f"  items {summary['items']}, students {summary['students']}, turns {summary['turns']}"
                 + ("" if base is None else f", students' baseline accuracy {100 * base:.1f}%"),
                 "  " + "  ".join(f"{key} {shown_(key)}" for key, _ in ABILITIES),
                 (f"  {'answers stated' if summary.get('tell_answer') else 'leaks redacted'} {summary['leaks']}, "
                  "teacher replies without a judgment "
                 f"{summary['unparsed_judgments']}/{summary['teacher_turns']}"),
                 f"  report: {folder}/report.md"]
        return "\n".join(lines)
