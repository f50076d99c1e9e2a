"""`KIEvalProtocol`: KIEval (Yu et al., 2024) on the shared engine."""
from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ...benchmark import Benchmark, Item
from ...errors import JudgeAgentError
from ...grading.answers import AnswerChecker
from ...grading.calibration import unvetted
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
from .config import KIEvalConfig
from .episode import dialogue
from .report import SCORED, numbers, sections
from .rows import DialogueRow, Summary


@dataclass
class KIEvalState:
    """What every dialogue of a run uses: the vetted answer checker, and with a graph the path sampler and the one
    thread it runs on (spaCy and the encoder are not thread-safe); `close` shuts the thread."""

    checker: AnswerChecker
    sampler: Any = None
    sampler_thread: ThreadPoolExecutor | None = None


class KIEvalProtocol(Protocol[RecordRow, DialogueRow, Summary]):
    name = "kieval"
    grades_free_text = True
    title = "KIEval"
    paper = "Yu et al., KIEval (ACL 2024): Section 3, Algorithm 1, Appendix K"
    measures = ("knowledge-grounded multi-round dialogue: per-turn accuracy, logic, relevance, coherence and "
                "conciseness (1-4), the decay-weighted KIEval score, valid rounds, early stops, beside benchmark "
                "accuracy on the same items")
    Config = KIEvalConfig
    needs_note = "a benchmark; --graph optional (grounds the interactor's questions in a knowledge path)"
    roles = (RoleSpec("candidate", "the model under evaluation", "target"),
             RoleSpec("interactor", "asks the knowledge-grounded follow-up questions", ("interviewer", "candidate")),
             RoleSpec("evaluator", "scores each candidate turn and may stop the dialogue; grades free-text answers",
                      ("judge", "interactor")))

    # Scoring and decay change only the summary; early_stop=True is how every earlier run talked.
    added_later = {"scoring": "paper", "decay": True, "early_stop": True, "shots": 0, "hard_probes": False}

    def check_inputs(self, request: RunRequest) -> None:
        super().check_inputs(request)
        shots, items = request.config.shots, len(request.benchmark.items)
        if shots and items <= shots:
            raise JudgeAgentError(f"kieval shots={shots} draws its examples from the benchmark's other items, and "
                                  f"{request.benchmark.path} has {items}: give more items or fewer shots")

    def episodes(self, benchmark: Benchmark, config: Any) -> list[Episode]:
        return [Episode(f"item-{i}-{item.qid}", (item,), i) for i, item in enumerate(benchmark.items)]

    def estimate_calls(self, config: Any, items: list[Item], seats: Seats) -> CallEstimate:
        """The judge's calibration, then per item the two verification answers and the candidate's answer, and per
        round a question, a reply and an evaluation (fewest: an early stop after round 1). At the most each answer
        also goes to the judge and each evaluation is repaired once."""
        from ...grading.calibration import calibration_calls

        answers = 1 + (2 if config.verify else 0)
        fewest, most = calibration_calls(items, config.judge_policy, config.seed)
        low = len(items) * (answers + 3 * (1 if config.early_stop else config.rounds))
        high = len(items) * (2 * answers + 4 * config.rounds)
        return CallEstimate(fewest + low, most + high, f"{most} of them the judge's calibration at the most")

    async def prepare(self, ctx: EpisodeContext) -> Prepared:
        from ...config import CheckerConfig
        from ...grading.calibration import vetted_checker, warn_if_unvetted

        settings = CheckerConfig(judge_policy=ctx.config.judge_policy, hard_probes=ctx.config.hard_probes)
        checker, calibration = await vetted_checker(settings, ctx.roles["evaluator"], ctx.benchmark.items,
                                                    ctx.config.seed,
                                                    on_stage=ctx.request.on_stage if ctx.request else None,
                                                    equivalence=ctx.learned)
        warn_if_unvetted(calibration, ctx.request.notify if ctx.request else None)
        state = KIEvalState(checker)
        if ctx.graph is not None:
            from ...graph.sample import PathSampler

            state.sampler = PathSampler(ctx.graph)
            state.sampler_thread = ThreadPoolExecutor(max_workers=1, thread_name_prefix="kieval-paths")
        return Prepared(state, {"checker": settings.model_dump(mode="json"),
                                "judge_calibration": calibration.to_dict()})

    async def run_episode(self, ctx: EpisodeContext, episode: Episode) -> DialogueRow:
        return await dialogue(ctx, episode)

    async def summarise(self, ctx: EpisodeContext, records: list[RecordRow],
                        episodes: list[DialogueRow]) -> Summary:
        cfg = ctx.config
        summary = numbers(episodes, cfg.rounds, cfg.scoring, cfg.decay, cfg.early_stop)
        summary["evaluator"] = ctx.run.manifest["models"]["evaluator"]["name"]
        summary["judge_calibration"] = ctx.run.manifest.get("judge_calibration")
        # The KIEval scores are the evaluator's: a failed or skipped calibration is said beside them.
        summary["trust"] = {"kieval": unvetted(summary["judge_calibration"])}
        return summary

    async def close(self, ctx: EpisodeContext) -> None:
        # Here, not in summarise: a run that fails in an episode releases the thread too.
        if ctx.state is not None and ctx.state.sampler_thread is not None:
            ctx.state.sampler_thread.shutdown()

    def report_sections(self, summary: Summary) -> list[Section]:
        return sections(summary)

    def report_extras(self, folder: Path) -> list[Section]:
        if not any(Path(folder).glob("rescore-*.json")):  # the usual case: no rescore, no scipy import (~1 s)
            return []
        from .rescore import agreement_section

        section = agreement_section(folder)
        return [section] if section else []

    def headline(self, summary: Summary) -> dict[str, float | None]:
        k = summary["kieval"]
        return {"KIEval overall": k["overall"], "KIEval accuracy": k["accuracy"],
                "benchmark accuracy": summary["benchmark_accuracy"], "valid rounds": summary["valid_rounds"]}

    def render_summary(self, summary: Summary, folder: str) -> str:
        s = summary
        lines = [f"run {folder}", f"  items {s['items']}: {s['conversations']} verified, {s['dropped']} dropped "
                 f"{s['dropped_by_reason'] or ''}".rstrip()]
        k = s["kieval"]
        if k["overall"] is not None:
            lines.append("  KIEval " + "  ".join(f"{key} {100 * k[key]:.1f}" for key in SCORED))
            if (s.get("trust") or {}).get("kieval"):
                lines.append(f"  UNVETTED: these scores are {s['trust']['kieval']}")
        else:
            lines.append("  KIEval: no conversation was scored")
        if s["valid_rounds"] is not None:
            lines.append(f"  valid rounds {s['valid_rounds']:.2f} of {s['rounds']}; early stops "
                         f"{s['early_stops']} {s['early_stops_by_reason'] or ''}".rstrip())
        if s["benchmark_accuracy"] is not None:
            lines.append(f"  benchmark accuracy on the same items {100 * s['benchmark_accuracy']:.1f}")
        if s["failed_evaluations"]:
            lines.append(f"  failed evaluations {s['failed_evaluations']} of {s['evaluations']}")
        lines.append(f"  report: {folder}/report.md")
        return "\n".join(lines)
