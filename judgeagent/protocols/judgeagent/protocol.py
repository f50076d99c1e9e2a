"""The JudgeAgent protocol, run by the shared runner (protocols/runner.py) like every other protocol.

- `prepare`: the judge's calibration (`grading/calibration.py::vetted_checker`, with wrong answers from
  the graph's near misses), recorded in the manifest as `judge_calibration`; a judge that fails it is
  reported through the request's `notify`.
- `run_episode`: one batch (`batch.py::run_batch`: grading, extension rounds, feedback); the
  batch's full feedback goes to feedback.jsonl, and a summary of it (score, tiers, rounds) is its row
  in episodes.jsonl.
- `summarise`: `summary.py::summarise` of the records and feedback, with the calibration.
- `close`: the batches' worker threads (spaCy, sampler) are shut down (the runner closes the models).
  `prepare` queues every batch's CPU work on those threads (`batch.py::plan_ahead`).

Its records keep JudgeAgent's own flat schema (validate, report, export and the report browser read
it), not the `Record` envelope; each carries `"protocol": "judgeagent"`. Its identity payload and folder
name are those it had before it ran on the runner, so runs started by an earlier version still resume.
tests/test_protocols.py checks the results against tests/data/judgeagent_reference.json, captured from
the code before the port (tests/make_judgeagent_reference.py).
"""
from __future__ import annotations

import json
import threading
from collections.abc import Callable
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ...benchmark import Benchmark
from ...errors import JudgeAgentError
from ...threads import load_in_background
from ...version import versions
from ..base import Episode, EpisodeContext, Prepared, Protocol, RoleSpec, RunRequest, Section
from .config import EvalConfig

if TYPE_CHECKING:
    from ...graph.model import ContextGraph
    from ...models.spec import Registry
    from ...runs import Manifest
    from .batch import Context

# Options added after runs were first written: left out of a run's identity while at their default,
# so a run started by an earlier version keeps its identity and still resumes.
_ADDED_LATER = {"adaptive": "tiers", "path": "graph", "unlabelled_points": 1.5, "setting": "ours"}
_CHECKER_ADDED_LATER = {"hard_probes": False}


class JudgeAgentProtocol(Protocol):
    name = "judgeagent"
    grades_free_text = True
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
    options_note = ("evaluate's flags set them too (--batch-size is batch_size, --no-graph is graph=false, "
                    "--judge-policy is checker.judge_policy)")
    writes_report = False  # its report needs its validation: `judgeagent report` writes report.md and .html

    def view_episodes(self, run: Any) -> list[Any]:  # a row per question: its records are not the envelope
        from .view import view_episodes

        return view_episodes(run)

    def needs_graph(self, config: Any) -> bool:
        return bool(config.extension)

    def check_inputs(self, request: RunRequest) -> None:
        if request.graph is None and request.config.extension:  # JudgeAgent's own wording, asked first
            raise JudgeAgentError("the extension stage needs a graph (--graph), or use --no-extension")
        super().check_inputs(request)
        # `validate` reopens the roles by their registry names from the manifest: a Python object has none.
        if not all(isinstance(v, str) for v in request.models.values() if v):
            raise JudgeAgentError("the judgeagent protocol takes model names (registry entries), not model objects")

    def identity_payload(self, request: RunRequest, registry: Registry) -> dict[str, Any]:
        """The payload JudgeAgent's runs had before the runner (no `protocol` key, options added later left
        out at their default): a run started by an earlier version keeps its folder name and resumes."""
        payload = super().identity_payload(request, registry)
        del payload["protocol"]
        payload["config"] = _identity_config(request.config)
        return payload

    def folder_stem(self, request: RunRequest) -> str:
        return f"{Path(request.benchmark.path).stem}-{request.models['target']}"

    def manifest_fields(self, request: RunRequest) -> Manifest:
        graph = request.graph
        return {"graph": None if graph is None else {"path": str(graph.path), "graph_id": graph.manifest.get("graph_id"),
                                                     "embedding_model": graph.manifest["embedding"]["model"]},
                "versions": versions()}

    def episode_progress(self, request: RunRequest) -> None:
        return None  # JudgeAgent's progress hears every question and batch from the batches: see `prepare`

    def episodes(self, benchmark: Benchmark, config: Any) -> list[Episode]:
        size = config.batch_size
        if config.setting == "authors":  # one batch per article (QuALITY), the rest `size` at a time
            from .together import by_article

            return [Episode(f"batch-{b}", tuple(items), b) for b, items in enumerate(by_article(benchmark.items, size))]
        return [Episode(f"batch-{b}", tuple(benchmark.items[i:i + size]), b)
                for b, i in enumerate(range(0, len(benchmark.items), size))]

    def preload(self, request: RunRequest) -> None:
        graph, config = request.graph, request.config
        if _sampler_needed(graph, config):
            load_in_background(_question_models_of, graph, name="question-models")

    async def prepare(self, ctx: EpisodeContext) -> Prepared:
        """The batches' shared context, and the judge vetted on pairs from the benchmark (Algorithm 1's setup)."""
        from ...grading.calibration import vetted_checker, warn_if_unvetted
        from .batch import Context, plan_ahead

        config: EvalConfig = ctx.config
        request = ctx.request
        on_stage = request.on_stage if request else None
        notify = request.notify if request else None
        store = _feature_store(request)
        try:
            shared = Context(config, ctx.roles.trio(), ctx.run, ctx.graph, _sampler(ctx.graph, config, store),
                             progress=request.progress if request else None, store=store)
        except BaseException:
            if store is not None:
                store.close()
            raise
        try:
            # The batches' CPU work starts now, on the worker threads, while the judge is calibrated.
            plan_ahead(shared, [(e.index, list(e.items)) for e in self.episodes(ctx.benchmark, config)])
            if on_stage and config.checker.judge_policy != "off":
                on_stage(f"calibrating the judge on up to {config.checker.calibration_pairs} pairs")
            shared.checker, calibration = await vetted_checker(config.checker, shared.models.judge,
                                                               ctx.benchmark.items, config.seed, _near_miss(shared),
                                                               equivalence=ctx.learned)
        except BaseException:  # no run follows (the endpoint is down, Ctrl-C): drop the queued work, close the store
            shared.close()
            raise
        warn_if_unvetted(calibration, notify)
        return Prepared(shared, {"judge_calibration": calibration.to_dict()})

    async def run_episode(self, ctx: EpisodeContext, episode: Episode) -> dict[str, Any]:
        from .batch import run_batch
        from .records import batch_row

        return dict(batch_row(await run_batch(ctx.state, episode.index, list(episode.items))))

    async def summarise(self, ctx: EpisodeContext, records: list[dict[str, Any]],
                        episodes: list[dict[str, Any]]) -> dict[str, Any]:
        from .records import as_records, entries
        from .summary import summarise

        # From records and feedback.jsonl, not episodes.jsonl: a run begun by format version 1 lacks the
        # rows of the batches it finished before it was resumed.
        summary = summarise(as_records(records), entries(ctx.state.feedback))
        return {**summary, "judge_calibration": ctx.run.manifest.get("judge_calibration")}

    async def close(self, ctx: EpisodeContext) -> None:
        if ctx.state is not None:  # the batches' Context: its worker threads, and work queued for batches not run
            ctx.state.close()

    def report_sections(self, summary: dict[str, Any]) -> list[Section]:
        rows = "\n".join(f"| {k} | {a['accuracy']:.3f} | {a['correct']}/{a['n']} |"
                         for k, a in summary["accuracy"].items())
        tiers = "\n".join(f"- batch {b}: {' -> '.join(t)}" for b, t in summary["trajectories"].items())
        return [Section("Scores", f"Overall score {summary['overall_score']:.3f} over {summary['questions']} "
                        f"questions.\n\n| group | accuracy | correct |\n|---|---|---|\n{rows}"),
                Section("Tier trajectories", tiers)]

    def own_comparison(self, folders: list[Path]) -> str:
        from .report import compare_runs  # validated runs: ACC1, ACC2, CR, CtE and the ablation columns

        return compare_runs(folders)

    def render_summary(self, summary: dict[str, Any], folder: str) -> str:
        from .summary import render_summary

        return render_summary(summary, folder, summary.get("usage"))


def _identity_config(config: EvalConfig) -> dict[str, Any]:
    dumped = config.model_dump(mode="json")
    dumped["checker"] = {k: v for k, v in dumped["checker"].items()
                         if not (k in _CHECKER_ADDED_LATER and v == _CHECKER_ADDED_LATER[k])}
    return {k: v for k, v in dumped.items() if not (k in _ADDED_LATER and v == _ADDED_LATER[k])}


def _feature_store(request: Any) -> Any:
    """The questions' vectors and mentions kept across runs, beside the model responses; none with --no-cache."""
    if request is None or not request.cache:
        return None
    from ...features import FeatureStore

    return FeatureStore(request.cache_dir)


def _sampler(graph: ContextGraph | None, config: EvalConfig, store: Any = None) -> Any:
    if not _sampler_needed(graph, config):
        return None
    from ...graph.sample import PathSampler

    assert graph is not None
    # The run's questions are read on a thread (issue 31's reader reads ahead of the sampler's thread), not in the
    # sampler's child process (graph/reader.py): on 200 questions (bench/evaluate.py) the child's start, about
    # 5 s of CPU on two cores, cost more wall than it saved (wall / ideal 3.83-4.44 with it, 3.37-3.82 without).
    return PathSampler(graph, *_question_models_of(graph), store=store, reader="thread")


def _sampler_needed(graph: ContextGraph | None, config: EvalConfig) -> bool:
    # With --no-graph too: the sampler's encoder measures how on topic the random chunks are.
    return graph is not None and config.extension and graph.n_entities > 0


_loading = threading.Lock()


def _question_models_of(graph: ContextGraph) -> tuple[Any, Any]:
    with _loading:  # one load, whichever thread asks first (`preload`'s or `prepare`'s)
        return _question_models(json.dumps(graph.manifest["config"]["entities"], sort_keys=True),
                                graph.manifest["embedding"]["model"])


@lru_cache(maxsize=2)
def _question_models(entity_config: str, embedding_model: str) -> tuple[Any, Any]:
    """spaCy and the encoder for the batches' questions, loaded once per process (seconds each, which
    the first batch would wait for): `validate` after `evaluate`, or a benchmark's runs, reuse them.
    The encoder serialises its own calls; spaCy runs on one run's `reader` thread."""
    from ...config import EntityConfig
    from ...embedding import Encoder
    from ...entities import SpacyExtractor

    return SpacyExtractor(EntityConfig(**json.loads(entity_config))), Encoder(embedding_model)


def _near_miss(ctx: Context) -> Callable[[str], str | None] | None:
    """Wrong answers for calibration: the graph entity most like the gold that is not the gold."""
    from ...grading.text import token_f1

    sampler, graph = ctx.sampler, ctx.graph
    if sampler is None or graph is None:
        return None

    def find(gold: str) -> str | None:
        _, rows = graph.entity_index.search(sampler.vector(gold)[None, :], 8)
        names = [graph.entity_names[r] for r in rows[0] if r >= 0]
        return next((n for n in names if token_f1(n, gold) < 0.34), None)

    return find


