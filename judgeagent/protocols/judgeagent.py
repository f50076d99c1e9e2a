"""The JudgeAgent protocol on the shared engine: it hands the whole run to `interview.evaluate`.

Delegating keeps its results identical by construction (verdicts, tiers, scores, validation);
tests/test_protocols.py checks that they are. Its batches are its episodes.
"""
from __future__ import annotations

from pathlib import Path
from typing import Any

from ..benchmark import Benchmark
from ..config import EvalConfig
from ..errors import JudgeAgentError
from .base import Episode, EpisodeContext, Protocol, RoleSpec, RunRequest, Section

OPTION_FLAGS = ("batch_size", "rounds", "hops", "questions_per_round", "seed", "fixed_difficulty", "adaptive",
                "max_passage_words", "holdout", "easy_generator")
"""The EvalConfig fields `-o KEY=VALUE` sets for judgeagent (each the flag of the same name); the rest are flags."""


class JudgeAgentProtocol(Protocol):
    name = "judgeagent"
    title = "JudgeAgent"
    paper = "JudgeAgent (Algorithms 1-2): grading, graph-driven extension, feedback, validation"
    measures = ("accuracy on a benchmark and on graph-driven follow-up questions at an adaptive difficulty, "
                "and whether the interviewer's feedback helps (validate)")
    Config = EvalConfig
    roles = (RoleSpec("target", "the model under evaluation"),
             RoleSpec("interviewer", "writes extension questions and feedback", "target"),
             RoleSpec("judge", "judges free-text answers no rule decides", "interviewer"))
    needs = frozenset({"benchmark", "graph"})
    needs_note = "a benchmark, and a graph unless --no-extension"
    options_note = "the flags of evaluate; -o KEY=VALUE sets " + ", ".join(OPTION_FLAGS)

    def needs_graph(self, config: Any) -> bool:
        return bool(config.extension)

    def run(self, request: RunRequest) -> Any:
        from ..interview.evaluate import evaluate

        models = self.resolve_roles(request.models)
        if not all(isinstance(v, str) for v in models.values()):
            raise JudgeAgentError("the judgeagent protocol takes model names (registry entries), not model objects")
        return evaluate(request.benchmark, request.graph, models["target"], interviewer=models["interviewer"],
                        judge=models["judge"], config=request.config, run_dir=request.run_dir,
                        runs_root=request.runs_root, registry=request.registry, cache_dir=request.cache_dir,
                        cache=request.cache, progress=request.progress, request=request.request,
                        notify=request.notify, max_cost=request.max_cost)

    def episodes(self, benchmark: Benchmark, config: Any) -> list[Episode]:
        size = config.batch_size
        return [Episode(f"batch-{b}", tuple(benchmark.items[i:i + size]), b)
                for b, i in enumerate(range(0, len(benchmark.items), size))]

    async def run_episode(self, ctx: EpisodeContext, episode: Episode) -> dict[str, Any]:
        raise NotImplementedError("JudgeAgent batches run inside interview.evaluate (see JudgeAgentProtocol.run)")

    async def summarise(self, ctx: EpisodeContext, records: list[dict[str, Any]],
                        episodes: list[dict[str, Any]]) -> dict[str, Any]:
        from ..interview.summary import summarise

        return summarise(records, ctx.run.feedback)

    def report_sections(self, summary: dict[str, Any]) -> list[Section]:
        rows = "\n".join(f"| {k} | {a['accuracy']:.3f} | {a['correct']}/{a['n']} |"
                         for k, a in summary["accuracy"].items())
        tiers = "\n".join(f"- batch {b}: {' -> '.join(t)}" for b, t in summary["trajectories"].items())
        return [Section("Scores", f"Overall score {summary['overall_score']:.3f} over {summary['questions']} "
                        f"questions.\n\n| group | accuracy | correct |\n|---|---|---|\n{rows}"),
                Section("Tier trajectories", tiers)]

    def compare(self, folders: list[Path]) -> str:
        from ..report import compare_runs  # validated runs: ACC1, ACC2, CR, CtE and the ablation columns

        return compare_runs(folders)

    def render_summary(self, summary: dict[str, Any], folder: str) -> str:
        from ..interview.summary import render_summary

        return render_summary(summary, folder, summary.get("usage"))
