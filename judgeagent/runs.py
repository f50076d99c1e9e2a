"""A run folder: manifest, append-only records (and the logs a protocol keeps beside them), summary; resumable by replay.

One process writes a run (it holds the folder's lock); any number may read it, even while it is written.
"""
from __future__ import annotations

import fcntl
import json
import os
import threading
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any, NoReturn, Self, TypedDict

from .errors import JudgeAgentError
from .files import cannot_write, folder_kind, json_kind, remove_stale, write_json_atomic, wrong_kind

if TYPE_CHECKING:
    from .grading.calibration import CalibrationRecord
    from .grading.equivalence import WeightsRecord
    from .models.roles import RoleDescription
    from .models.usage import UsageLine

RUN_FORMAT = "judgeagent.run"
RUN_FORMAT_VERSION = 2
"""2: every protocol through the shared runner; the manifest always names its `protocol`, and the run has
episodes.jsonl. 1: JudgeAgent runs from before it (no episodes.jsonl, perhaps no `protocol`), still read
(validate, report, compare) and resumed; a resumed one keeps version 1 (what it gains, episodes.jsonl, a
reader of version 1 ignores)."""
READS_RUN_FORMATS = (1, 2)
LOCK_FILE = "writer.lock"


class BenchmarkRef(TypedDict):
    path: str
    items: int


class GraphRef(TypedDict, total=False):
    path: str
    graph_id: str | None
    embedding_model: str


class ModelChange(TypedDict):
    """A later command that went on with other models (`--allow-model-change`): which, when, what differed."""

    command: str
    at: str
    changes: list[str]


class RunArgs(TypedDict, total=False):
    """manifest.json's `request`: how the command named the run's inputs (the `evaluate` flags given, paths as
    text; `reproduce`'s recipe and roles), which `--resume` gives again."""

    protocol: str
    recipe: str
    option: list[str]
    role: list[str]
    target: str | None
    benchmark: str | None
    field: list[str]
    graph: str | None
    interviewer: str | None
    judge: str | None
    base_url: str | None
    limit: str | None
    sample_id: list[str]
    sample: int | None
    seed: int
    batch_size: int
    rounds: int
    hops: int
    questions_per_round: int
    no_graph: bool
    path: str
    fixed_difficulty: str | None
    adaptive: str
    no_extension: bool
    passages: bool
    max_passage_words: int | None
    holdout: float
    judge_policy: str
    hard_probes: bool
    easy_generator: str
    no_self_check: bool
    temperature: float | None
    max_tokens: int | None
    max_connections: int | None
    model_arg: list[str]
    equivalence_weights: str | None


class Manifest(TypedDict, total=False):
    """manifest.json: what a run is (its format, protocol, identity, config, models, inputs, software) and how far
    it got. Written by the runner (`runner.run_episodes`) with the protocol's own fields (`manifest_fields`, and
    what `prepare` records: JudgeAgent's `judge_calibration`, a protocol's `checker`); format 1 runs lack
    `protocol`. A protocol's config and its calibration are its own JSON (`config`, `judge_calibration`)."""

    format: str
    format_version: int
    status: str
    created_at: str
    finished_at: str
    protocol: str
    kind: str
    """`synthesis` for a synthesis's work folder (not a run)."""
    config_id: str
    config: dict[str, Any]
    models: dict[str, RoleDescription]
    request: RunArgs
    """How the command named its inputs (paths, limits), for `--resume`."""
    benchmark: BenchmarkRef
    graph: GraphRef | None
    versions: dict[str, str]
    judge_calibration: CalibrationRecord | None
    checker: dict[str, Any]
    """The answer checker's settings (KIEval, the interviewer protocol)."""
    mcq: Mapping[str, object]
    """Teach2Eval: how the benchmark was made multiple-choice (its `rows.Conversion`; a protocol's own shape,
    which this shared module does not import)."""
    dynaeval: Mapping[str, object]
    """DynaEval: its task's setup (its `rows.Setup`)."""
    model_changes: list[ModelChange]
    equivalence: WeightsRecord
    """The learned answer-equivalence step's weights file and its sha256, when one was given or ships (absent:
    none, the step off); a resume with other weights is another configuration, refused."""
    logs: dict[str, int]
    """How many lines each append-only log held when the run finished (absent in runs finished before it was
    kept): a reader refuses a finished run whose log has fewer, rather than read a copy cut short as a shorter
    run. Lines, not bytes: a line damaged in place is reported as such, by FILE:LINE."""


@dataclass
class RunResult:
    """What a finished (or resumed, or already finished) run hands back, for every protocol."""

    folder: Path
    summary: dict[str, Any]
    usage: dict[str, UsageLine]
    resumed: bool
    timings: dict[str, float] = field(default_factory=dict)
    """Wall seconds of the run's stages (`prepare`, `episodes`) and, per role, inside its model calls
    (`model:ROLE`, calls in flight together each counted); kept out of the summary, which must not vary."""


def read_rows(path: Path, key: str, *, writer: bool = False, finished: bool = False) -> list[dict[str, Any]]:
    """The rows of an append-only JSONL file, each a JSON object with `key`.

    Appends end with a newline, so only a last line without one can be torn (a kill mid-append) or still
    being written. A reader skips it (unless the run is finished: then nothing is being written); the
    writer trims it so that its next append starts a line of its own. Damage anywhere else is no kill's
    doing: it is reported as FILE:LINE and the file is left exactly as it is.
    """
    if not path.exists():
        return []
    data = path.read_bytes()
    body, newline, tail = data.rpartition(b"\n")
    lines = body.split(b"\n") if newline else []
    rows = [_row(path, n, line, key) for n, line in enumerate(lines, start=1) if line.strip()]
    if tail.strip():
        rows.extend(_tail(path, len(lines) + 1, tail, key, writer=writer, finished=finished))
    return rows


def _tail(path: Path, number: int, tail: bytes, key: str, *, writer: bool,
          finished: bool) -> list[dict[str, Any]]:
    try:
        row = _row(path, number, tail, key)
    except JudgeAgentError:
        if finished and not writer:
            raise
        if writer:
            with open(path, "r+b") as f:
                f.truncate(path.stat().st_size - len(tail))
        return []
    if writer:  # a whole row that lost only its newline: keep it, and end the line
        with open(path, "ab") as f:
            f.write(b"\n")
    return [row]


USAGE_FILE = "usage.jsonl"
"""Each model call's accounting (`usage.UsageRow`), appended as it happens, over every invocation of the run (the
runner's); a finished run's summary holds its sum, so a run without the file is still whole."""

LINE_FIX = "; the file was left as it is: repair or delete that line (docs/evaluate.md, When things go wrong)"
"""How every refusal of one line of a run's JSONL files ends (here and in protocols/rows.py)."""


def _row(path: Path, number: int, line: bytes, key: str) -> dict[str, Any]:
    try:
        row = json.loads(line)
    except json.JSONDecodeError as e:
        problem = f"malformed JSON ({e.msg}, column {e.colno})"
    except UnicodeDecodeError:
        problem = "not valid UTF-8"
    else:
        if isinstance(row, dict) and key in row:
            if not isinstance(row[key], (list, dict)):
                return row
            kind = "an array" if isinstance(row[key], list) else "an object"  # rows are indexed by their key
            raise JudgeAgentError(f"{path}:{number}: field {key!r} should be text or a number, got {kind}{LINE_FIX}")
        problem = f"not a JSON object with {key!r}"
    raise JudgeAgentError(f"{path}:{number}: damaged line, {problem}{LINE_FIX}")


def lock_run(folder: Path) -> IO[str]:
    """Take the run's writer lock, or refuse naming the process that holds it.

    A kernel lock (flock): it ends with its process, so a lock file left by a killed run is no obstacle;
    the pid inside only names the holder in the refusal.
    """
    # Held open for the run's lifetime, hence no `with`; "a+" so that opening never erases the holder's pid.
    try:
        handle = open(folder / LOCK_FILE, "a+", encoding="utf-8")  # noqa: SIM115
    except OSError as e:
        raise JudgeAgentError(f"run {folder} cannot be written ({e.strerror or e}): make the folder writable, "
                              "or copy it somewhere writable and give that folder") from None
    try:
        fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        handle.seek(0)
        holder = handle.read().strip() or "unknown"
        handle.close()
        raise JudgeAgentError(f"run {folder} is being written by another judgeagent process (pid {holder}); "
                              "wait for it to end, or stop it and resume") from None
    handle.truncate(0)
    handle.write(f"{os.getpid()}\n")
    handle.flush()
    return handle


class Run:
    """The records of one evaluation. Records are appended as questions are answered, once each.

    Opened by `open_run` it holds the writer lock and may append; by `load_run` it is read-only.
    """

    def __init__(self, folder: Path, manifest: Manifest, lock: IO[str] | None = None) -> None:
        self.folder = folder
        self.manifest = manifest
        self._writer = lock
        if self.finished:
            synthesis = manifest.get("kind") == "synthesis" or folder.name == ".synthesis"  # (before kinds were kept)
            _check_complete(folder, manifest, synthesis=synthesis)
        mode = {"writer": lock is not None, "finished": self.finished}
        # Runs written twice over before runs had a lock hold each record twice: the first one counts.
        self.records = first_per_key(read_rows(folder / "records.jsonl", "record_id", **mode), "record_id")
        self._by_id = {r["record_id"]: r for r in self.records}
        self._logs = {"records.jsonl"}
        """The append-only logs read through `read_log` (records, episodes, a protocol's own, usage): their line
        counts are kept when the run finishes."""
        self._lock = threading.Lock()

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        """Release the writer lock (closing the file releases the flock)."""
        if self._writer is not None:
            self._writer.close()
            self._writer = None

    @property
    def finished(self) -> bool:
        return self.manifest.get("status") == "finished"

    def get(self, record_id: str) -> dict[str, Any] | None:
        return self._by_id.get(record_id)

    def add_record(self, record: dict[str, Any]) -> None:
        with self._lock:
            if record["record_id"] in self._by_id:
                return
            self.append("records.jsonl", record)
            self.records.append(record)
            self._by_id[record["record_id"]] = record

    def read_log(self, name: str, key: str) -> list[dict[str, Any]]:
        """The rows of one of the run's append-only logs beside its records (each with `key`), read as its writer
        or a reader would; its line count is kept when the run finishes."""
        self._logs.add(name)
        return read_rows(self.folder / name, key, writer=self.writable, finished=self.finished)

    @property
    def writable(self) -> bool:
        """Opened by `open_run`, holding the writer lock (a protocol's own logs read their rows in this mode)."""
        return self._writer is not None

    def append(self, name: str, row: dict[str, Any]) -> None:
        """One row appended to the run's JSON-lines file `name` (records.jsonl, or a protocol's own log such as
        JudgeAgent's feedback.jsonl): the writer lock covers it, a full disk is one line, `finish` syncs it."""
        if self._writer is None:
            raise RuntimeError(f"run {self.folder} is open read-only: open it with open_run to write")
        # Flushed, not fsynced: a killed process loses nothing the OS has; an fsync per record cost
        # ~1.5 s per 500 records on the event loop (bench/evaluate.py). `finish` syncs the files.
        try:
            with open(self.folder / name, "a", encoding="utf-8") as f:
                f.write(json.dumps(row, ensure_ascii=False) + "\n")
        except OSError as e:  # a full disk: a torn last line is trimmed when the run resumes
            raise JudgeAgentError(cannot_write(self.folder / name, e, self.resume_hint())) from None

    def resume_hint(self) -> str:
        """How the command that writes this folder goes on where it stopped (each command its own fix)."""
        return resume_hint(self.folder, self.manifest)

    def summary(self) -> dict[str, Any]:
        """The finished run's summary.json; missing or damaged, a one-line error saying how to write it again."""
        path = self.folder / "summary.json"
        try:
            summary = json.loads(path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            problem = "no summary.json"
        except (OSError, json.JSONDecodeError, UnicodeDecodeError) as e:
            problem = f"an unreadable summary.json ({getattr(e, 'strerror', None) or e})"
        else:
            if isinstance(summary, dict):
                return summary
            problem = f"a summary.json holding {json_kind(summary)}, not a JSON object"
        raise JudgeAgentError(f"run {self.folder} has {problem}; {rewrite_hint(self.folder, self.manifest)}")

    def finish(self, summary: dict[str, Any]) -> None:
        logs = {}
        try:
            for path in sorted(self.folder.glob("*.jsonl")):  # records and every protocol's own log
                name = path.name
                with open(path, "rb+") as f:
                    os.fsync(f.fileno())
                if name in self._logs:  # not validate's rows, which it writes anew, maybe fewer
                    logs[name] = _lines(path)
        except OSError as e:
            raise JudgeAgentError(cannot_write(self.folder / name, e, self.resume_hint())) from None
        write_json_atomic(self.folder / "summary.json", summary)
        self.manifest["logs"] = logs
        self.manifest["status"] = "finished"
        self.manifest["finished_at"] = _now()
        write_json_atomic(self.folder / "manifest.json", self.manifest)


def _check_complete(folder: Path, manifest: Manifest, *, synthesis: bool) -> None:
    """A finished run holds its records (every episode calls a model) and, from format 2, its episodes: one that
    lost either is refused, rather than read as a run with fewer transcripts (a report or an export of it would
    say nothing of what is gone); so is one whose log is shorter than when the run finished (a copy cut short).
    The recovery moves every log aside: a resume skips the episodes episodes.jsonl lists, so with it kept no
    record is made again. A synthesis of easy items calls no model: it holds no records."""
    logs = manifest.get("logs")
    counts = logs if isinstance(logs, dict) else {}  # runs finished before counts were kept: presence only
    needed = [] if synthesis else ["records.jsonl"] + (["episodes.jsonl"] if manifest.get("format_version", 1) >= 2
                                                       else [])
    needed += [name for name in counts if name not in needed and name != USAGE_FILE]
    missing = [name for name in needed if not (folder / name).is_file()]
    if missing:
        _incomplete(folder, manifest, f"{' and '.join(missing)} {'is' if len(missing) == 1 else 'are'} missing")
    for name, held in counts.items():
        if isinstance(held, int) and (folder / name).is_file() and (now := _lines(folder / name)) < held:
            _incomplete(folder, manifest, f"{name} is cut short ({now:,} of the {held:,} lines it held)")


def _lines(path: Path) -> int:
    """The complete lines of a log (a torn last one is not counted), read in blocks: records can be large."""
    with open(path, "rb") as f:
        return sum(block.count(b"\n") for block in iter(lambda: f.read(1 << 20), b""))


def _incomplete(folder: Path, manifest: Manifest, problem: str) -> NoReturn:
    raise JudgeAgentError(f"run {folder} is incomplete: {problem} though it finished; restore the folder from a "
                          "copy, or move its .jsonl files aside, set \"status\": \"running\" in its manifest.json "
                          f"and {finish_hint(folder, manifest)} (its journal makes them again, no model called)")


class RowLog:
    """One of a run's append-only JSON-lines logs beside its records, a row per key (episodes.jsonl by
    episode, JudgeAgent's feedback.jsonl by batch): the first row of a key counts, and a key is appended
    once, through `Run.append` (the writer lock, one-line disk errors; `Run.finish` syncs it)."""

    def __init__(self, run: Run, name: str, key: str) -> None:
        self.run, self.name, self.key = run, name, key
        rows = run.read_log(name, key)
        self.rows = {r[key]: r for r in first_per_key(rows, key)}
        self._lock = threading.Lock()

    def get(self, key: Any) -> dict[str, Any] | None:
        return self.rows.get(key)

    def add(self, row: dict[str, Any]) -> None:
        """Append `row` unless its key is there (a step run again after an interruption writes it again)."""
        with self._lock:
            if row[self.key] in self.rows:
                return
            self.run.append(self.name, row)
            self.rows[row[self.key]] = row


def first_per_key(rows: list[dict[str, Any]], key: str) -> list[dict[str, Any]]:
    seen: dict[Any, dict[str, Any]] = {}
    for row in rows:
        seen.setdefault(row[key], row)
    return list(seen.values())


def resume_hint(folder: Path, manifest: Manifest) -> str:
    """How to go on where the command writing `folder` stopped: `synthesize` and `reproduce` are run again as they
    were (their folders say their kind), a run of `evaluate` is resumed."""
    kind = manifest.get("kind")
    if kind == "synthesis":
        return (f"run the same synthesize command again (same --out {folder.parent}): finished calls are not "
                "made again")
    if kind == "reproduce":
        return f"{_reproduce_again(folder)}: finished calls are not made again"
    return f"resume the run where it stopped: judgeagent evaluate --resume {folder}"


def rewrite_hint(folder: Path, manifest: Manifest) -> str:
    """How a finished run's summary.json is written again from its records (no model calls): the command that
    made the run, again (`evaluate --resume` refuses a reproduce run)."""
    if manifest.get("kind") == "reproduce":
        return f"{_reproduce_again(folder)}: it writes it again from the run's records (no model calls)"
    return f"judgeagent evaluate --resume {folder} writes it again from the run's records (no model calls)"


def finish_hint(folder: Path, manifest: Manifest) -> str:
    """How an unfinished run is completed: the reproduce command again for a reproduce run, else evaluate --resume."""
    if manifest.get("kind") == "reproduce":
        return _reproduce_again(folder)
    return f"judgeagent evaluate --resume {folder}"


def _reproduce_again(folder: Path) -> str:
    return f"run the same reproduce command again (same --run-dir {folder})"


def open_run(folder: Path, manifest: Manifest) -> Run:
    """Create the run, or reopen it when the same configuration ran there before; either way, locked
    for writing until `Run.close` (or the process ends)."""
    _make_folder(folder, "--out" if manifest.get("kind") == "synthesis" else "--run-dir")
    lock = lock_run(folder)  # before reading: the rows must not change (or be trimmed) under another writer
    try:
        return _open_locked(folder, manifest, lock)
    except BaseException:
        lock.close()
        raise


def check_run_folder(folder: Path, option: str = "--run-dir") -> None:
    """Refuse, making nothing, a run folder that cannot be one: a file, or a folder of other files."""
    if folder.exists() and not folder.is_dir():
        raise JudgeAgentError(f"run folder {folder} is a file; choose another {option}")
    if folder.is_dir() and not (folder / "manifest.json").exists() and any(
            p.name != LOCK_FILE and not _manifest_begun(p) for p in folder.iterdir()):
        raise JudgeAgentError(f"{folder} is a folder with other files, not a judgeagent run; "
                              f"choose a new or empty {option}")


def _manifest_begun(path: Path) -> bool:
    """`.manifest.json.tmp-<pid>`: the first manifest of a run killed while writing it (`write_atomic`'s temporary
    file, never renamed into place): the folder is still that run's, begun, and the same command starts it."""
    return path.name.startswith(".manifest.json.tmp-")


def _make_folder(folder: Path, option: str) -> None:
    """`option`: the command's flag that names the folder (`--run-dir`; synthesize's `--out`)."""
    check_run_folder(folder, option)
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as e:
        what = "run folder" if option == "--run-dir" else "work folder"
        raise JudgeAgentError(f"cannot create {what} {folder}: {e.strerror or e}; choose another {option}") from None


def _open_locked(folder: Path, manifest: Manifest, lock: IO[str]) -> Run:
    # What a writer killed mid-`write_atomic` left; a live process's (`report` writing beside a run) stays its own.
    remove_stale(folder, ".*.tmp-*")
    existing = folder / "manifest.json"
    if existing.exists():
        old = load_manifest(folder)
        if old.get("config_id") != manifest["config_id"]:
            raise JudgeAgentError(f"run folder {folder} holds a run with another configuration "
                                  f"({_differences(old, manifest)}); choose another --run-dir or remove it")
        return Run(folder, old, lock)
    manifest = {"format": RUN_FORMAT, "format_version": RUN_FORMAT_VERSION, "kind": "run", "status": "running",
                "created_at": _now(), **manifest}
    write_json_atomic(existing, manifest)
    return Run(folder, manifest, lock)


def _differences(old: Manifest, new: Manifest) -> str:
    """What a user changed since the run in a folder began: its options with both values (an option the run has no
    value for came with a later version), else the other inputs that make a run's identity."""
    before, now = old.get("config") or {}, new.get("config") or {}
    changed = [f"{k}: {json.dumps(before[k]) if k in before else 'not set, an option added since'} there, "
               f"{json.dumps(now.get(k))} now" for k in sorted(set(before) | set(now)) if before.get(k, _NONE) != now.get(k, _NONE)]
    if changed:
        return "options " + "; ".join(changed[:4]) + ("; ..." if len(changed) > 4 else "")
    models = _model_differences(old.get("models") or {}, new.get("models") or {})
    if models:
        return "models " + "; ".join(models[:4])
    had, has = old.get("equivalence"), new.get("equivalence")
    if (had or {}).get("sha256") != (has or {}).get("sha256"):
        then, given = (f"{w['weights']} (sha256 {w['sha256'][:12]})" if w else "none" for w in (had, has))
        return f"learned-step weights {then} there, {given} now"
    inputs = [k for k in ("protocol", "benchmark", "graph", "models") if old.get(k) != new.get(k)]
    return "its " + (", ".join(inputs) if inputs else "benchmark, graph or models") + " differ"


def _model_differences(old: dict[str, RoleDescription], new: dict[str, RoleDescription]) -> list[str]:
    """Per role, what differs between the models a run recorded and those named now (served model, endpoint,
    settings, weights): a resume never mixes two models' answers in one run."""
    out = []
    for role in sorted(set(old) | set(new)):
        then, now = old.get(role) or {}, new.get(role) or {}
        for key in ("name", "model", "base_url", "generation", "weights"):
            if key in then and key in now and then[key] != now[key] and not (
                    key == "base_url" and "weights" in now):  # the embedded model's port is whatever was free
                out.append(f"{role} {key}: {json.dumps(then[key])} there, {json.dumps(now[key])} now")
    return out


_NONE = object()


def load_manifest(folder: Path) -> Manifest:
    if not folder.is_dir():
        found = f"{folder} is a file, not a run folder" if folder.exists() else f"run not found: {folder}"
        raise JudgeAgentError(found)
    path = folder / "manifest.json"
    if not path.is_file():
        if folder_kind(folder) is not None:  # a synthesized dataset: its manifest is in .synthesis
            raise wrong_kind(folder, "run")
        raise JudgeAgentError(f"{folder} is not a judgeagent run (no manifest.json)")
    try:
        manifest = json.loads(path.read_text(encoding="utf-8"))
    except (json.JSONDecodeError, UnicodeDecodeError) as e:
        raise JudgeAgentError(f"{path}: unreadable run manifest ({e})") from None
    check_run_format(manifest, folder)
    return manifest


def check_run_format(manifest: Manifest, folder: Path) -> None:
    """A run manifest of a format version this judgeagent reads, or a one-line error saying what to do."""
    if not isinstance(manifest, dict):
        raise JudgeAgentError(f"{folder} is not a judgeagent run: its manifest.json holds {json_kind(manifest)}, "
                              "not a JSON object")
    if manifest.get("format") != RUN_FORMAT:
        raise wrong_kind(folder, "run", manifest)
    version = manifest.get("format_version")
    if isinstance(version, int) and version > RUN_FORMAT_VERSION:
        wrote = (manifest.get("versions") or {}).get("judgeagent")
        by = f"judgeagent {wrote}" if wrote else "a newer judgeagent"
        raise JudgeAgentError(f"run {folder} has format version {version}, written by {by}; this judgeagent reads "
                              f"versions {', '.join(map(str, READS_RUN_FORMATS))}: upgrade judgeagent to read it")
    if version not in READS_RUN_FORMATS:
        raise JudgeAgentError(f"run {folder} has format version {version}; this judgeagent reads versions "
                              f"{', '.join(map(str, READS_RUN_FORMATS))}: rerun the evaluate command to make it again")


def a_run_of(protocol: object) -> str:
    """'a kieval run', 'an interviewer run': a run named by its protocol in an error line."""
    name = str(protocol)
    return f"{'an' if name[:1].lower() in 'aeiou' else 'a'} {name} run"


def run_protocol_name(manifest: Manifest, folder: Path) -> str:
    """The protocol a run folder was written by (runs from before protocols are JudgeAgent runs); another kind of
    folder with a run's manifest (a synthesis's work folder) is refused by name, with where its output is."""
    if manifest.get("kind") == "synthesis":
        raise JudgeAgentError(f"{folder} is the work folder of a synthesis, not a run: its dataset is "
                              f"{folder.parent / 'items.jsonl'} (evaluate a model on it with --benchmark)")
    return str(manifest.get("protocol", "judgeagent"))


def load_run(folder: str | Path) -> Run:
    """A run to read (even one being written): it never writes, and takes no lock."""
    folder = Path(folder)
    return Run(folder, load_manifest(folder))


def _now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="seconds")
