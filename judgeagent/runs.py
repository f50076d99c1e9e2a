"""A run folder: manifest, append-only records and feedback, summary; resumable by replay."""
from __future__ import annotations

import json
import os
import threading
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from .errors import JudgeAgentError
from .files import check_format, write_json_atomic

RUN_FORMAT = "judgeagent.run"
RUN_FORMAT_VERSION = 1


def _read_jsonl(path: Path) -> list[dict[str, Any]]:
    """Lines of a JSONL file; a torn last line (a kill mid-write) is dropped and truncated away."""
    if not path.exists():
        return []
    rows, good = [], 0
    with open(path, "rb") as f:
        for line in f:
            try:
                rows.append(json.loads(line))
            except json.JSONDecodeError:
                break
            good += len(line)
    if good != path.stat().st_size:
        with open(path, "r+b") as f:
            f.truncate(good)
    return rows


class Run:
    """The records of one evaluation. Records are appended as questions are answered, once each."""

    def __init__(self, folder: Path, manifest: dict[str, Any]) -> None:
        self.folder = folder
        self.manifest = manifest
        self.records = _read_jsonl(folder / "records.jsonl")
        self.feedback = _read_jsonl(folder / "feedback.jsonl")
        self._by_id = {r["record_id"]: r for r in self.records}
        self._batches = {f["batch"] for f in self.feedback}
        self._lock = threading.Lock()

    @property
    def finished(self) -> bool:
        return self.manifest.get("status") == "finished"

    def get(self, record_id: str) -> dict[str, Any] | None:
        return self._by_id.get(record_id)

    def batch_feedback(self, batch: int) -> dict[str, Any] | None:
        return next((f for f in self.feedback if f["batch"] == batch), None)

    def add_record(self, record: dict[str, Any]) -> None:
        with self._lock:
            if record["record_id"] in self._by_id:
                return
            self._append("records.jsonl", record)
            self.records.append(record)
            self._by_id[record["record_id"]] = record

    def add_feedback(self, entry: dict[str, Any]) -> None:
        with self._lock:
            if entry["batch"] in self._batches:
                return
            self._append("feedback.jsonl", entry)
            self.feedback.append(entry)
            self._batches.add(entry["batch"])

    def _append(self, name: str, row: dict[str, Any]) -> None:
        # Flushed, not fsynced: a killed process loses nothing the OS has; an fsync per record cost
        # ~1.5 s per 500 records on the event loop (bench/evaluate.py). `finish` syncs the files.
        with open(self.folder / name, "a", encoding="utf-8") as f:
            f.write(json.dumps(row, ensure_ascii=False) + "\n")

    def finish(self, summary: dict[str, Any]) -> None:
        for name in ("records.jsonl", "feedback.jsonl"):
            if (self.folder / name).exists():
                with open(self.folder / name, "rb+") as f:
                    os.fsync(f.fileno())
        write_json_atomic(self.folder / "summary.json", summary)
        self.manifest["status"] = "finished"
        self.manifest["finished_at"] = _now()
        write_json_atomic(self.folder / "manifest.json", self.manifest)


def open_run(folder: Path, manifest: dict[str, Any]) -> Run:
    """Create the run, or reopen it when the same configuration ran there before."""
    existing = folder / "manifest.json"
    if existing.exists():
        old = load_manifest(folder)
        if old.get("config_id") != manifest["config_id"]:
            raise JudgeAgentError(f"run folder {folder} holds a run with another configuration; "
                                  "choose another --run-dir or remove it")
        return Run(folder, old)
    folder.mkdir(parents=True, exist_ok=True)
    manifest = {"format": RUN_FORMAT, "format_version": RUN_FORMAT_VERSION, "status": "running",
                "created_at": _now(), **manifest}
    write_json_atomic(existing, manifest)
    return Run(folder, manifest)


def load_manifest(folder: Path) -> dict[str, Any]:
    if not folder.is_dir():
        raise JudgeAgentError(f"run not found: {folder}")
    path = folder / "manifest.json"
    if not path.is_file():
        raise JudgeAgentError(f"{folder} is not a judgeagent run (no manifest.json)")
    try:
        manifest = json.loads(path.read_text(encoding="utf-8"))
    except (json.JSONDecodeError, UnicodeDecodeError) as e:
        raise JudgeAgentError(f"{path}: unreadable run manifest ({e})") from None
    check_format(manifest, folder, RUN_FORMAT, RUN_FORMAT_VERSION, "run", "")
    return manifest


def load_run(folder: str | Path) -> Run:
    folder = Path(folder)
    return Run(folder, load_manifest(folder))


def _now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="seconds")
