"""`InterviewerProtocol`: LLM-as-an-Interviewer (Kim et al., 2024) on the shared engine."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ...benchmark import Benchmark, Item
from ...grading.answers import AnswerChecker
from ...grading.calibration import unvetted
from ...grading.verdict import one_line
from ..base import CallEstimate, Episode, EpisodeContext, Prepared, Protocol, RoleSpec, Seats, Section
from ..record import CALL_KEY, RecordRow, call_id
from . import prompts
from .config import InterviewerConfig
from .episode import interview
from .report import describe_scoring, numbers, scoring, sections
from .rows import ItemRow, Summary


@dataclass(frozen=True)
class InterviewerState:
    """What every interview of a run uses: the answer checker, its judge vetted by calibration."""

    checker: AnswerChecker


class InterviewerProtocol(Protocol[RecordRow, ItemRow, Summary]):
    name = "interviewer"
    grades_free_text = True
    title = "LLM-as-an-Interviewer"
    paper = "Kim et al., LLM-as-an-Interviewer (2024): Sections 3 and 5, Algorithm 1, Appendix A"
    measures = ("Score@1..N with feedback and revision, adaptability, follow-up handling, error types, and "
                "accuracy on original vs modified items (contamination probe)")
    Config = InterviewerConfig
    # the values that reproduce runs written before these options: a run at them keeps its identity (and resumes);
    # the paper-faithful defaults (auto answers, outcome-dependent follow-ups) give a run a new identity
    added_later = {"answers": "text", "followup_policy": "rotate", "facts": False, "fact_threshold": 0.5,
                   "followup_tries": 1, "hard_probes": False}
    roles = (RoleSpec("target", "the interviewee, the model under evaluation"),
             RoleSpec("interviewer", "modifies items, gives feedback, asks follow-ups, writes the summary", "target"),
             RoleSpec("judge", "judges free-text answers and follow-up replies", "interviewer"))

    def episodes(self, benchmark: Benchmark, config: Any) -> list[Episode]:
        return [Episode(f"item-{i}-{item.qid}", (item,), i) for i, item in enumerate(benchmark.items)]

    def estimate_calls(self, config: Any, items: list[Item], seats: Seats) -> CallEstimate:
        """The judge's calibration, then per item the modification (and its check), one attempt, and each
        follow-up's question, answer and grade; the summary once. At the most: the probe of the original and
        the answer without the removed information, every attempt wrong until the last with feedback between,
        each graded answer sent to the judge, each interviewer turn asked twice (a leak refused), every
        follow-up asked its tries."""
        from ...grading.calibration import calibration_calls

        cfg = config
        modify = (2 if cfg.verify_modified else 1) if cfg.modify else 0
        answers = (1 if cfg.probe and cfg.modify else 0) + (cfg.modification == "unclarifying") + cfg.revisions + 1
        low = modify + 1 + 3 * cfg.followups
        high = 2 * modify + 2 * answers + 2 * cfg.revisions + cfg.followups * (2 + 2 * cfg.followup_tries)
        fewest, most = calibration_calls(items, cfg.judge_policy, cfg.seed)
        summary = 1 if cfg.summary else 0
        return CallEstimate(fewest + len(items) * low + summary, most + len(items) * high + summary,
                            f"{most} of them the judge's calibration at the most")

    async def prepare(self, ctx: EpisodeContext) -> Prepared:
        from ...config import CheckerConfig
        from ...grading.calibration import vetted_checker, warn_if_unvetted

        settings = CheckerConfig(judge_policy=ctx.config.judge_policy, hard_probes=ctx.config.hard_probes)
        checker, calibration = await vetted_checker(settings, ctx.roles["judge"], ctx.benchmark.items,
                                                    ctx.config.seed,
                                                    on_stage=ctx.request.on_stage if ctx.request else None,
                                                    equivalence=ctx.learned)
        warn_if_unvetted(calibration, ctx.request.notify if ctx.request else None)
        return Prepared(InterviewerState(checker),
                        {"checker": settings.model_dump(mode="json"), "judge_calibration": calibration.to_dict()})

    async def run_episode(self, ctx: EpisodeContext, episode: Episode) -> ItemRow:
        return await interview(ctx, episode)

    async def summarise(self, ctx: EpisodeContext, records: list[RecordRow],
                        episodes: list[ItemRow]) -> Summary:
        cfg = ctx.config
        summary = numbers(episodes, cfg.revisions, cfg.resamples, cfg.seed)
        summary["scoring"] = scoring(cfg)
        summary["judge_calibration"] = ctx.run.manifest.get("judge_calibration")
        # Follow-ups are graded by the judge whatever its calibration said: say so beside their score.
        summary["trust"] = {"followup": unvetted(summary["judge_calibration"])}
        if cfg.summary:
            summary["interviewer_summary"] = await self._written(ctx, summary, episodes)
        return summary

    async def _written(self, ctx: EpisodeContext, summary: Summary, episodes: list[ItemRow]) -> str:
        scores = (f"Score@n: {summary['score_at']}; adaptability {summary['adaptability']}; "
                  f"follow-up score {summary['followup']['all']['score']}; errors {summary['errors']['counts']}")
        transcripts = "\n\n".join(f"[item {e['qid']}, solved: {e['solved']}]\n{e['transcript'][:1200]}"
                                  for e in episodes[:ctx.config.summary_items])
        messages = prompts.summary_messages(scores, transcripts)
        result = await ctx.roles["interviewer"].complete(messages, **ctx.config.limit())
        text = result.text.strip() if result.ok else f"(the interviewer gave no summary: {one_line(result.error or '')})"
        ctx.record(Episode("run", ()), "summary", 0, "interviewer", messages[-1]["content"][:2000], text,
                   stage="summary", **({CALL_KEY: call_id(messages, result.text)} if result.ok else {}))
        return text

    def report_sections(self, summary: Summary) -> list[Section]:
        return sections(summary)

    def headline(self, summary: Summary) -> dict[str, float | None]:
        scores = list(summary["score_at"].values())
        return {"Score@1": scores[0], "Score@N": scores[-1], "adaptability": summary["adaptability"],
                "follow-up score": summary["followup"]["all"]["score"], "probe gap": summary["probe"].get("gap")}

    def render_summary(self, summary: Summary, folder: str) -> str:
        s, p, f = summary, summary["probe"], summary["followup"]
        lines = [f"run {folder}", f"  items {s['items']}, modified {s['modified']}",
                 "  " + "  ".join(f"Score{k} {v:.3f}" for k, v in s["score_at"].items() if v is not None)]
        if s["adaptability"] is not None:
            lines.append(f"  adaptability {s['adaptability']:+.3f}")
        if f["all"]["n"]:
            mark = (s.get("trust") or {}).get("followup")
            lines.append(f"  follow-up score {f['all']['score']:.3f} over {f['all']['n']} questions"
                         + (f" (UNVETTED: {mark})" if mark else ""))
        if p.get("n"):
            lines.append(f"  contamination probe: original {p['original_accuracy']:.3f} vs modified "
                         f"{p['modified_accuracy']:.3f}, gap {p['gap']:+.3f} [{p['gap_interval'][0]:+.3f}, "
                         f"{p['gap_interval'][1]:+.3f}], McNemar p {p['mcnemar_p']:.3g}")
        if "scoring" in s:
            lines.append("  scoring: " + describe_scoring(s["scoring"]))
        lines.append(f"  report: {folder}/report.md")
        return "\n".join(lines)
