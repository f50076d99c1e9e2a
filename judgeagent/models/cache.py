"""Persistent response cache (SQLite, WAL): keyed by everything that changes an answer; never failures."""
from __future__ import annotations

import asyncio
import contextlib
import errno
import hashlib
import json
import os
import shutil
import sqlite3
import threading
import time
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any, TypedDict

from pydantic import BaseModel

from ..errors import JudgeAgentError
from .base import Completion, Message, ModelIdentity, ModelSettings, Usage
from .client import json_schema_of, parse_structured


def default_cache_dir() -> Path:
    env = os.environ.get("JUDGEAGENT_CACHE_DIR")
    if env:
        return Path(env)
    return Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "judgeagent"


def _switch_to_wal(db: sqlite3.Connection, patience: float = 30.0) -> None:
    """WAL mode, waiting out other processes that are switching the same new file at once.

    Changing the journal mode needs an exclusive lock, and SQLite answers "database is locked" at once rather
    than calling the busy handler (seen with 16 processes opening one new cache); so wait and retry here."""
    deadline = time.monotonic() + patience
    delay = 0.005
    while True:
        try:
            db.execute("PRAGMA busy_timeout=30000")
            db.execute("PRAGMA journal_mode=WAL")
            return
        except sqlite3.OperationalError as e:
            if "locked" not in str(e) and "busy" not in str(e) or time.monotonic() > deadline:
                raise
            time.sleep(delay)
            delay = min(delay * 2, 0.2)


class ResponseCache:
    """One SQLite file; safe with concurrent writers (WAL, busy timeout, INSERT OR REPLACE)."""

    def __init__(self, folder: str | Path | None = None, file: str = "responses.sqlite") -> None:
        self.folder = Path(folder) if folder else default_cache_dir()
        self.path = self.folder / file
        self._local = threading.local()
        self._opened: list[sqlite3.Connection] = []
        self._opened_lock = threading.Lock()
        try:
            with self._failing():
                self.folder.mkdir(parents=True, exist_ok=True)
                with self._db() as db:
                    db.execute("CREATE TABLE IF NOT EXISTS responses (key TEXT PRIMARY KEY, value TEXT NOT NULL,"
                               " created REAL NOT NULL)")
        except JudgeAgentError:
            self.close()  # nobody else will: the caller never got this cache
            raise

    @contextlib.contextmanager
    def _failing(self) -> Iterator[None]:
        """SQLite's and the file system's errors (a full disk, a read-only folder) as one line naming the file
        and what to do: a run stopped by one resumes where it stopped, with every stored answer kept."""
        try:
            yield
        except (sqlite3.Error, OSError) as e:
            reason = str(e) if isinstance(e, sqlite3.Error) else (e.strerror or str(e))
            if self.folder.exists() and not self.folder.is_dir():
                raise JudgeAgentError(f"cannot use the {self.path.stem.rstrip('s')} store {self.path}: {self.folder} "
                                      "is a file, not a folder; give a folder (--cache-dir)") from None
            if "full" in reason or getattr(e, "errno", None) == errno.ENOSPC or _nearly_full(self.folder):
                fix = ("the disk is full: free some space there, then run the same command again (a run resumes "
                       "where it stopped)")
            else:
                fix = f"make {self.folder} writable, then run the same command again (a run resumes where it stopped)"
            raise JudgeAgentError(f"cannot use the {self.path.stem.rstrip('s')} store {self.path}: {reason}; {fix}") from None

    def _db(self) -> sqlite3.Connection:
        db = getattr(self._local, "db", None)
        if db is None:
            # One connection per thread; `close` (from the thread that ends the job, once every call is
            # done) closes them all, so the run folder is left without -wal/-shm files.
            db = sqlite3.connect(self.path, timeout=30, isolation_level=None, check_same_thread=False)
            _switch_to_wal(db)
            # WAL with synchronous=NORMAL cannot corrupt; a power cut may lose the last few entries,
            # which for a cache only means asking again. FULL would fsync on every stored answer.
            db.execute("PRAGMA synchronous=NORMAL")
            self._local.db = db
            with self._opened_lock:
                self._opened.append(db)
        return db

    def close(self) -> None:
        """Close every thread's connection (the last close folds the WAL back into the file)."""
        with self._opened_lock:
            opened, self._opened = self._opened, []
        for db in opened:
            db.close()
        self._local = threading.local()

    def get(self, key: str) -> CachedReply | None:
        with self._failing():
            row = self._db().execute("SELECT value FROM responses WHERE key = ?", (key,)).fetchone()
        return json.loads(row[0]) if row else None

    def put(self, key: str, value: CachedReply) -> None:
        with self._failing():
            self._db().execute("INSERT OR REPLACE INTO responses VALUES (?, ?, ?)",
                               (key, json.dumps(value, ensure_ascii=False), time.time()))

    def __len__(self) -> int:
        return int(self._db().execute("SELECT COUNT(*) FROM responses").fetchone()[0])

    def entries(self) -> Iterator[tuple[str, CachedReply, float]]:
        """(key, value, created) of every stored answer."""
        with self._failing():
            rows = self._db().execute("SELECT key, value, created FROM responses").fetchall()
        for key, value, created in rows:
            yield key, json.loads(value), float(created)

    def sources(self) -> dict[str, SourceStats]:
        """Per model (`source_of`; answers stored before sources were recorded go by their served model name):
        how many answers, their size in bytes, the oldest and newest time stored."""
        out: dict[str, SourceStats] = {}
        with self._failing():
            rows = self._db().execute("SELECT value, created, length(value) FROM responses").fetchall()
        for value, created, size in rows:
            line = out.setdefault(_label(json.loads(value)), {"answers": 0, "bytes": 0, "oldest": created,
                                                              "newest": created})
            line["answers"] += 1
            line["bytes"] += size
            line["oldest"], line["newest"] = min(line["oldest"], created), max(line["newest"], created)
        return dict(sorted(out.items()))

    def remove(self, *, source: str | None = None, older_than: float | None = None) -> int:
        """Delete the answers of one model (as `sources` names it) and/or stored more than `older_than` seconds
        ago (both: the answers that match both; neither: every answer). Returns how many went."""
        cutoff = None if older_than is None else time.time() - older_than
        doomed = [key for key, value, created in self.entries()
                  if (source is None or _label(value) == source) and (cutoff is None or created < cutoff)]
        with self._failing():
            db = self._db()
            db.execute("BEGIN IMMEDIATE")
            try:
                db.executemany("DELETE FROM responses WHERE key = ?", [(k,) for k in doomed])
                db.execute("COMMIT")
            except BaseException:
                db.execute("ROLLBACK")
                raise
            if doomed:
                db.execute("VACUUM")
        return len(doomed)


class TokenCounts(TypedDict):
    input_tokens: int
    output_tokens: int


class CachedReply(TypedDict, total=False):
    """An answer as the response cache and a run's journal store it: the reply's text, usage and served model, the
    model it came from (`source`, written since sources were recorded), and in a journal the messages, settings and
    schema as sent."""

    text: str
    usage: TokenCounts
    model: str
    source: str
    messages: list[Message]
    settings: dict[str, float | int | str | None]
    schema: str
    seconds: float
    """The call's own time (journaled since calls were timed)."""


class JournalCall(CachedReply, total=False):
    """A call the run's journal holds (`journal_calls`), with `stored`, when it was written."""

    stored: float


class SourceStats(TypedDict):
    """A model's answers in a cache: how many, their bytes, the oldest and newest time stored."""

    answers: int
    bytes: int
    oldest: float
    newest: float



def journal_calls(folder: str | Path) -> list[JournalCall]:
    """Every model call a run's journal holds (its folder's `responses.sqlite`), oldest first: the model
    (`source`), the full message list, settings and schema as sent, the reply and its usage. Calls journaled
    before messages were kept have no `messages`. Failed calls are not journaled (they are in the records)."""
    path = Path(folder) / "responses.sqlite"
    if not path.is_file():
        return []
    journal = ResponseCache(folder)
    try:
        rows = sorted(journal.entries(), key=lambda entry: entry[2])
    finally:
        journal.close()
    return [{**value, "stored": created} for _, value, created in rows]


def _label(value: CachedReply) -> str:
    return str(value.get("source") or value.get("model") or "unknown")


def _nearly_full(folder: Path) -> bool:
    """Less than a megabyte free where `folder` is: SQLite reports a full disk as a "disk I/O error" when
    its shared-memory file cannot grow."""
    try:
        return shutil.disk_usage(folder).free < 1 << 20
    except OSError:
        return False


def source_of(identity: ModelIdentity) -> str:
    """One line naming the model an identity is: `local:<weights file>`, `<model> at <url>`, `function <name>`."""
    if "weights" in identity:
        return f"local:{identity['weights']['file']}"
    if "base_url" in identity:
        return f"{identity.get('model')} at {identity['base_url']}"
    if "function" in identity:
        return f"function {identity['function']}"
    return json.dumps(identity, sort_keys=True)[:80]


def cache_key(identity: ModelIdentity, messages: list[Message], schema: type[BaseModel] | None,
              settings: ModelSettings) -> str:
    payload = {
        "identity": identity,
        "messages": messages,
        "schema": json_schema_of(schema) if schema else None,
        "settings": settings,
    }
    return hashlib.sha256(json.dumps(payload, sort_keys=True, ensure_ascii=False).encode()).hexdigest()


class CachedModel:
    """Wraps any model that has `identity()`: answers from the cache when it can, stores successes."""

    def __init__(self, inner: Any, cache: ResponseCache, keep_messages: bool = False) -> None:
        self.inner = inner
        self.name = inner.name
        self.cache = cache
        self.keep_messages = keep_messages
        """A run's journal keeps each call's full message list, settings and schema: what was asked, for an audit."""
        # Identical requests in flight share one call: a run that asks the same thing twice at once
        # (two calibration pairs, two batches with one prompt) pays once, as a resumed run would.
        self._flights: dict[str, asyncio.Future[Completion]] = {}

    def identity(self) -> ModelIdentity:
        return self.inner.identity()  # type: ignore[no-any-return]

    async def complete(self, messages: list[Message], *, schema: type[BaseModel] | None = None,
                       **settings: Any) -> Completion:
        key = cache_key(self.inner.identity(), messages, schema, settings)
        hit = self.cache.get(key)
        if hit is not None:
            parsed = parse_structured(hit["text"], schema)[0] if schema else None
            return Completion(hit["text"], parsed, Usage(**hit["usage"]), hit["model"], cached=True)
        flight = self._flights.get(key)
        if flight is not None:
            return replace(await asyncio.shield(flight), cached=True)
        flight = self._flights[key] = asyncio.get_running_loop().create_future()
        started = time.monotonic()
        try:
            result = await self.inner.complete(messages, schema=schema, **settings)
        except asyncio.CancelledError:
            flight.cancel()
            raise
        except Exception as error:
            flight.set_exception(error)
            flight.exception()  # retrieved here: a failure nobody else awaited is not "never retrieved"
            raise
        finally:
            self._flights.pop(key, None)
        flight.set_result(result)
        if result.ok:
            value: CachedReply = {"text": result.text, "usage": vars(result.usage), "model": result.model,
                     "source": source_of(self.inner.identity())}
            if self.keep_messages:
                value["messages"] = messages
                value["settings"] = settings
                value["seconds"] = round(time.monotonic() - started, 4)  # the call's own time, for an audit
                if schema is not None:
                    value["schema"] = schema.__name__
            self.cache.put(key, value)
        # As the layer below answered: a hit of the shared cache behind a run's journal is still a hit (no request
        # sent, no cost), not a paid call.
        return result

    async def aclose(self) -> None:
        close = getattr(self.inner, "aclose", None)
        if close:
            await close()
