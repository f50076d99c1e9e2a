"""`Protocol`: how one interview method unfolds, declared once and run by the shared runner."""
from __future__ import annotations

import threading
import typing
from abc import ABC, abstractmethod
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar, Generic, NamedTuple, TypeAlias, TypeVar, cast

from pydantic import BaseModel

from ..benchmark import Benchmark, Item
from ..errors import JudgeAgentError
from ..runs import RunArgs
from .record import Record, Score

if TYPE_CHECKING:
    from ..grading.equivalence import Equivalence, RunStep
    from ..graph.model import ContextGraph
    from ..models.base import ChatModel
    from ..models.roles import Roles
    from ..models.spec import Registry
    from ..models.usage import UsageLedger
    from ..runs import Manifest, Run
    from .episodes import EpisodeView


RoleModel: TypeAlias = "str | ChatModel"
"""One role's model: a registry name (`gpt-4o`, `local`, `openai:...`) or a ready `ChatModel`."""
RoleChoice: TypeAlias = "RoleModel | Sequence[RoleModel] | None"
"""What a caller gives for a role: its model, a many role's models (a list, or names comma-separated in one
string), or None (the role takes its default)."""
Seats: TypeAlias = "dict[str, RoleModel]"
"""The resolved roles: every seat (`judge`, `students.2`) -> its model (`Protocol.resolve_roles`)."""
RecordT = TypeVar("RecordT", bound=Mapping[str, object])
"""A protocol's row of records.jsonl: the shared `RecordRow` envelope, or JudgeAgent's question record."""
RowT = TypeVar("RowT", bound=Mapping[str, object])
"""A protocol's row of episodes.jsonl (its `rows.py`: KIEval's `DialogueRow`, DynaEval's `GameRow`, ...)."""
SummaryT = TypeVar("SummaryT", bound=Mapping[str, object])
"""A protocol's summary.json (its `rows.py`'s `Summary`)."""
Notify = Callable[[str], None]
"""Hears one line: a warning (`notify`) or the name of a stage that has no per-episode progress (`on_stage`)."""


class JudgedQuestion(typing.Protocol):
    """What a progress reads of a question as it is judged (JudgeAgent's `QuestionRecord`)."""

    @property
    def stage(self) -> str: ...

    @property
    def round(self) -> int: ...


@dataclass(frozen=True)
class ProgressEvent:
    """What a run's progress hears, one call per step. From the runner: an episode finished, `done` of the
    `listed` so far. From JudgeAgent, whose bar counts questions: a `question` judged, or (no question) a batch's
    feedback written, with the usage `ledger` so far."""

    done: int = 0
    listed: int = 0
    question: JudgedQuestion | None = None
    ledger: UsageLedger | None = None


Progress = Callable[[ProgressEvent], None]
"""A run's progress (`RunRequest.progress`): one signature for every protocol."""


SHARED_ROLES = ("target", "interviewer", "judge")
"""The roles evaluate has flags for; a protocol's own seats may default to them (candidate -> target)."""


class RoleSpec(NamedTuple):
    """A seat in the protocol: its name, what it does, and the role whose model it takes when not given.

    `default` names an earlier role or one of `SHARED_ROLES` (given by `--target` and friends), or a
    tuple of them tried in order (KIEval's interactor: `--interviewer` if given, else the candidate's
    model). A `many` role takes one or more models (students, players): they open as `name.1`,
    `name.2`, ... and `Roles.group(name)` returns them in order. `model` is a fixed model name (a
    registry name such as `local`) the seat takes when neither it nor its default roles are given one.
    An `optional` role without a model is left out of the roles (the protocol checks `name in ctx.roles`).
    """

    name: str
    help: str
    default: str | tuple[str, ...] | None = None
    many: bool = False
    model: str | None = None
    optional: bool = False

    @property
    def defaults(self) -> tuple[str, ...]:
        """The roles whose model this one takes when not given, first choice first."""
        return (self.default,) if isinstance(self.default, str) else tuple(self.default or ())


def _numbered(given: Mapping[str, RoleChoice], name: str) -> list[RoleModel]:
    """A many role's models given one by one (`students.1`, `students.2`, ...), in their order."""
    keys = [k for k in given if k.partition(".")[0] == name and k.partition(".")[2].isdigit() and given[k]]
    return [cast("RoleModel", given[k]) for k in sorted(keys, key=lambda k: int(k.partition(".")[2]))]


class CallEstimate(NamedTuple):
    """Model calls a run would make, fewest-most, and what the range leaves to chance (for `--dry-run`)."""

    low: int
    high: int
    note: str = ""


class Section(NamedTuple):
    """One section of a run's report: a heading and its Markdown body."""

    title: str
    body: str


@dataclass(frozen=True)
class Episode:
    """The unit a protocol runs and resumes: an id stable across runs, and the items it covers."""

    id: str
    items: tuple[Item, ...]
    index: int = 0


@dataclass
class RunRequest:
    """Everything one run is given: the inputs, the roles (names or models), and where to write."""

    benchmark: Benchmark
    graph: ContextGraph | None
    models: dict[str, RoleChoice]
    config: BaseModel
    run_dir: Path | None = None
    runs_root: Path = Path("runs")
    registry: Registry | None = None
    cache_dir: Path | None = None
    cache: bool = True
    max_cost: float | None = None
    request: RunArgs = field(default_factory=lambda: RunArgs())
    notify: Notify | None = None
    progress: Progress | None = None
    """Hears a `ProgressEvent` as each episode finishes; JudgeAgent's as each question is judged and each batch's
    feedback is written (`Protocol.episode_progress`)."""
    on_stage: Notify | None = None
    """Hears the stages that have no per-episode progress (the judge's calibration), one line each."""
    equivalence_weights: Path | str | None = None
    """The learned answer-equivalence step's weights file (`grading/equivalence.py`; None: the shipped default,
    `evouna-tq`, or none for a run folder begun without the step; "none": off). Used for what no rule decides
    when no judge is used, if its calibration passed."""
    learned: RunStep | None = None
    """What the runner made of `equivalence_weights` (set by `runner.run_episodes`)."""


@dataclass
class EpisodeContext:
    """What an episode runs with: the config, the opened roles, the run it writes to, shared state."""

    protocol: Protocol
    config: BaseModel
    roles: Roles
    run: Run
    benchmark: Benchmark
    graph: ContextGraph | None = None
    state: Any = None
    """What `prepare` set up for every episode (`Prepared.state`): the protocol's own typed object (KIEval's
    answer checker and path sampler, DynaEval's task and items), never a dict of string keys."""
    request: RunRequest | None = None
    """The request the run was started with (its `notify`, `progress` and `on_stage` callbacks)."""
    _lock: threading.Lock = field(default_factory=threading.Lock)

    @property
    def learned(self) -> Equivalence | None:
        """The run's learned answer-equivalence step for the answer checker (None: off; `RunRequest.learned`)."""
        return self.request.learned.step if self.request is not None and self.request.learned else None

    def record(self, episode: Episode, step: str, turn: int, role: str, prompt: str, reply: str,
               scores: dict[str, Score] | None = None, **meta: Any) -> Record:
        """Append a record (once: an episode run again after an interruption writes the same id)."""
        rec = Record(f"{episode.id}/{step}", self.protocol.name, episode.id, turn, role, prompt, reply,
                     scores or {}, meta)
        self.run.add_record(rec.to_dict())
        return rec

    async def recorded(self, episode: Episode, step: str, make: Callable[[], Awaitable[Record]]) -> Record:
        """The step's record: read back when this step was done before (a resumed episode), else `make()`, which
        makes the step's call and records it with `record`. A finished step is never asked again."""
        done = self.run.get(f"{episode.id}/{step}")
        return Record.read(done, self.run.folder / "records.jsonl") if done is not None else await make()


class Prepared(NamedTuple):
    """What `Protocol.prepare` gives the run: the state every episode reads (`ctx.state`, a protocol's own typed
    object), and what the manifest records (e.g. the judge's calibration)."""

    state: Any = None
    manifest: Manifest | None = None


class Protocol(ABC, Generic[RecordT, RowT, SummaryT]):
    """One interview method. Subclasses declare the class attributes and the episode methods."""

    name: ClassVar[str]
    title: ClassVar[str]
    paper: ClassVar[str]
    """The paper it follows (short citation)."""
    measures: ClassVar[str]
    """What it measures, one sentence (for `judgeagent protocols`)."""
    Config: ClassVar[type[BaseModel]]
    roles: ClassVar[tuple[RoleSpec, ...]]
    needs: ClassVar[frozenset[str]] = frozenset({"benchmark"})
    """Inputs: `benchmark`, and `graph` when the protocol cannot run without one."""
    needs_note: ClassVar[str | None] = None
    """Its inputs in one phrase for `judgeagent protocols`, where `needs` alone would mislead (an input needed
    only sometimes, an optional one); None lists `needs`."""
    options_note: ClassVar[str | None] = None
    """Shown by `judgeagent protocols` instead of the `-o` list, for a protocol set by flags (JudgeAgent)."""
    added_later: ClassVar[dict[str, Any]] = {}
    """Options added after runs were first written, with the default that reproduces those runs: left out of a
    run's identity at that value, so that a run begun by an earlier version keeps its identity and resumes."""
    grades_free_text: ClassVar[bool] = False
    """Its answer checker grades free-text replies (`vetted_checker`), so a run gives it the learned
    answer-equivalence step (`RunRequest.equivalence_weights`); False: the step is off and not recorded."""
    writes_report: ClassVar[bool] = True
    """The runner writes report.md from `report_sections` when the run finishes; False for a protocol whose
    report needs a later step (JudgeAgent's needs its validation: `judgeagent report` writes it)."""

    def needs_graph(self, config: Any) -> bool:
        return "graph" in self.needs

    def resolve_roles(self, given: Mapping[str, RoleChoice]) -> Seats:
        """Every declared role's model: as given, else its default role's (judge -> interviewer -> target),
        else its fixed `model`.

        A `many` role given as a list (or a comma-separated string, or as `name.1`, `name.2`, ... keys)
        opens as `name.1`, `name.2`, ...; the shared flags (`target`, `interviewer`, `judge`) may be given
        when some role takes its model from them.
        """
        names = {r.name for r in self.roles}
        usable = names | {d for r in self.roles for d in r.defaults}
        unknown = sorted(k for k in given if given[k] not in (None, "", [], ()) and k not in usable
                         and k.partition(".")[0] not in names)
        if unknown:
            raise JudgeAgentError(f"protocol {self.name} has no role {unknown[0]}; its roles are "
                                  f"{', '.join(r.name for r in self.roles)} (give them with --role NAME=MODEL)")
        chosen: dict[str, RoleChoice] = {k: v for k, v in given.items() if k in SHARED_ROLES and v}
        out: Seats = {}
        for role in self.roles:  # declared in order: a default always names an earlier role or a shared flag
            value: RoleChoice = (given.get(role.name) or (_numbered(given, role.name) if role.many else None)
                     or next((chosen[d] for d in role.defaults if chosen.get(d)), None) or role.model)
            if not value and role.optional:
                continue
            if not value:
                flag = f"--{role.name}" if role.name in SHARED_ROLES else f"--role {role.name}=MODEL"
                raise JudgeAgentError(f"protocol {self.name} needs a model for its {role.name} role ({flag})")
            chosen[role.name] = value
            if role.many:
                values: list[RoleModel] = ([v.strip() for v in value.split(",")] if isinstance(value, str)
                                           else list(cast("Sequence[RoleModel]", value)))
                if not values or any(v in ("", None) for v in values):
                    raise JudgeAgentError(f"role {role.name} of protocol {self.name} needs one or more models, "
                                          f"comma-separated; got {value!r}")
                out.update({f"{role.name}.{i}": v for i, v in enumerate(values, 1)})
            else:
                if isinstance(value, (list, tuple)) or (isinstance(value, str) and "," in value):
                    raise JudgeAgentError(f"role {role.name} of protocol {self.name} takes one model; got {value!r}")
                out[role.name] = cast("RoleModel", value)
        return out

    # --- hooks the runner calls; the defaults suit a protocol written for the runner --------------------

    def check_inputs(self, request: RunRequest) -> None:
        """Refuse, in one line, a request the protocol cannot run (before any folder is made)."""
        if not request.benchmark.items and "benchmark" in self.needs:
            raise JudgeAgentError(f"benchmark {request.benchmark.path} has no items")
        if self.needs_graph(request.config) and request.graph is None:
            raise JudgeAgentError(f"protocol {self.name} needs a graph: give --graph")

    def preload(self, request: RunRequest) -> None:
        """Start, on a background thread, loading what `prepare` will need (a pipeline, an encoder), so that it
        loads while the models' servers start. Returns at once; `prepare` waits for what is not loaded yet."""

    def identity_payload(self, request: RunRequest, registry: Registry) -> dict[str, Any]:
        """What identifies a run (hashed into `config_id` and the folder name): same payload, same run.

        `request.models` is resolved (every role named). A protocol whose runs were first written before
        the runner keeps its own payload here, so that those runs keep their identity and still resume.
        """
        from ..models.roles import model_identity

        return {
            "protocol": self.name,
            "benchmark": [(i.qid, i.question, i.gold, i.options, i.difficulty, bool(i.passage))
                          for i in request.benchmark.items],
            "graph": request.graph.manifest.get("graph_id") if request.graph else None,
            "models": {role: model_identity(cast("RoleModel", value), registry)  # resolved by now
                       for role, value in request.models.items()},
            "config": {k: v for k, v in request.config.model_dump(mode="json").items()
                       if not (k in self.added_later and v == self.added_later[k])},
        }

    def folder_stem(self, request: RunRequest) -> str:
        """The run folder's name before its identity (`<stem>-<identity[:8]>`)."""
        return f"{Path(request.benchmark.path).stem}-{self.name}-{_label(next(iter(request.models.values())))}"

    def manifest_fields(self, request: RunRequest) -> Manifest:
        """Fields of this protocol's manifest besides the runner's own (they replace a runner field of the
        same name)."""
        return {}

    def estimate_calls(self, config: Any, items: list[Item], seats: Seats) -> CallEstimate | None:
        """The calls a run of these items with these resolved roles would make (`--dry-run`), counted from the
        config alone; None when the protocol has no estimate."""
        return None

    def episode_progress(self, request: RunRequest) -> Progress | None:
        """What the runner tells as episodes finish (`ProgressEvent(done, listed)`); None for a protocol that tells
        its progress itself."""
        return request.progress

    async def close(self, ctx: EpisodeContext) -> None:
        """After the episodes and the summary, or on a failure: release what `prepare` opened (the roles are
        closed by the runner)."""

    @abstractmethod
    def episodes(self, benchmark: Benchmark, config: Any) -> list[Episode]: ...

    def next_episodes(self, ctx: EpisodeContext, rows: list[RowT]) -> list[Episode]:
        """More episodes once those listed so far have finished (`rows`, in index order); none by default.

        Called after each wave, the first time after `episodes` (which may list none). For protocols that
        decide how many episodes to run from their results (DynaEval repeats games until the scores
        converge); it must depend on `rows` alone, so that a resumed run lists the same episodes.
        """
        return []

    async def prepare(self, ctx: EpisodeContext) -> Prepared:
        """Before the episodes (e.g. the judge's calibration): the state every episode reads and what the manifest
        should record. What it opens (a thread, a server) `close` releases."""
        return Prepared()

    @abstractmethod
    async def run_episode(self, ctx: EpisodeContext, episode: Episode) -> RowT:
        """Run one episode, writing its records; return its row for episodes.jsonl."""

    @abstractmethod
    async def summarise(self, ctx: EpisodeContext, records: list[RecordT], episodes: list[RowT]) -> SummaryT:
        """The run's numbers from its records (may ask a model, e.g. for a written summary)."""

    @abstractmethod
    def report_sections(self, summary: SummaryT) -> list[Section]: ...

    def report_extras(self, folder: Path) -> list[Section]:
        """Report sections from files a later command wrote into the finished run's folder (KIEval's rescores);
        `judgeagent report` re-renders the report with them."""
        return []

    def headline(self, summary: SummaryT) -> dict[str, float | None]:
        """The few numbers `judgeagent compare` puts side by side, in column order; a name carries its scale."""
        return {}

    def own_comparison(self, folders: list[Path]) -> str | None:
        """A table of the protocol's own over its finished runs, for `judgeagent compare`; None (the default)
        takes the shared one (`reports.compare_table`: a row per run with its models and `headline`)."""
        return None

    def view_episodes(self, run: Run) -> list[EpisodeView]:
        """The run's episodes as `judgeagent view` lists them and `judgeagent export --format inspect` writes them:
        the default reads the shared `Record` envelope (a row per episode in episodes.jsonl); a protocol whose
        records differ (JudgeAgent's) builds its own."""
        from .episodes import generic_episodes

        return generic_episodes(run)

    def render_summary(self, summary: SummaryT, folder: str) -> str:
        """A few lines for the terminal."""
        return f"run {folder}\n" + "\n".join(f"  {k}: {v}" for k, v in summary.items() if not isinstance(v, dict))


def _label(value: Any) -> str:
    return value if isinstance(value, str) else getattr(value, "name", "model")
