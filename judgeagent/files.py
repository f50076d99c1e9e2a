"""Reading records from text files, with one-line errors that name the file and line."""
from __future__ import annotations

import codecs
import contextlib
import errno
import json
import os
import socket
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from .errors import JudgeAgentError


def read_text(file: Path) -> str:
    try:
        data = file.read_bytes()
    except OSError as e:
        raise JudgeAgentError(f"cannot read {file}: {e.strerror or e}") from None
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as e:
        line = data[: e.start].count(b"\n") + 1
        raise JudgeAgentError(f"{file}:{line}: not valid UTF-8 (byte {e.start})") from None


def check_utf8(file: Path, chunk: int = 1 << 20) -> None:
    """`read_text`'s error for a file that is not UTF-8, reading it a megabyte at a time: a dataset file
    handed to another reader (Arrow) is checked without holding it in memory."""
    decoder = codecs.getincrementaldecoder("utf-8")()
    done, lines = 0, 0
    try:
        with file.open("rb") as stream:
            while True:
                data = stream.read(chunk)
                try:
                    decoder.decode(data, final=not data)
                except UnicodeDecodeError as e:
                    # the decoder may hold up to 3 bytes of the previous chunk: e.start counts from them
                    held = len(e.object) - len(data)
                    at = done - held + e.start
                    line = lines + e.object[:e.start].count(b"\n") - e.object[:held].count(b"\n") + 1
                    raise JudgeAgentError(f"{file}:{line}: not valid UTF-8 (byte {at})") from None
                if not data:
                    return
                done += len(data)
                lines += data.count(b"\n")
    except OSError as e:
        raise JudgeAgentError(f"cannot read {file}: {e.strerror or e}") from None


def _json_lines(text: str) -> list[str]:
    """The lines of a JSON-lines text: \n, \r\n or \r ends one, not whatever str.splitlines breaks at: JSON takes
    U+2028, U+2029 and U+0085 inside a string unescaped, and json.dumps(..., ensure_ascii=False) writes them so
    (make-mcq's and synthesize's items). Plain replaces and a split: a regular expression took 5 times as long."""
    if "\r" in text:
        text = text.replace("\r\n", "\n").replace("\r", "\n")
    return text.split("\n")


def jsonl_records(file: Path, text: str, first_line: int = 1) -> Iterator[tuple[Any, str]]:
    """Records of JSON lines with their `file:line`; `first_line` numbers a slice of a larger file."""
    for number, line in enumerate(_json_lines(text), start=first_line):
        if not line.strip():
            continue
        try:
            yield json.loads(line), f"{file}:{number}"
        except json.JSONDecodeError as e:
            raise JudgeAgentError(f"{file}:{number}: malformed JSON ({e.msg}, column {e.colno})") from None
        except RecursionError:
            raise JudgeAgentError(f"{file}:{number}: JSON nested too deeply to read") from None


def json_records(file: Path, text: str) -> Iterator[tuple[Any, str]]:
    try:
        data = json.loads(text)
    except json.JSONDecodeError as e:
        raise JudgeAgentError(f"{file}:{e.lineno}: malformed JSON ({e.msg}, column {e.colno})") from None
    except RecursionError:
        raise JudgeAgentError(f"{file}: JSON nested too deeply to read") from None
    records = data if isinstance(data, list) else [data]
    for index, record in enumerate(records):
        yield record, f"{file}[{index}]"


def write_atomic(path: Path, write: Callable[[Path], None]) -> None:
    """`write(tmp)` into a hidden sibling, synced, then rename over `path`: readers see old or new, never half,
    and after a power cut the file is the old or the new one.

    A file that cannot be written (a read-only or missing folder, a full disk) is a one-line error naming
    it, with nothing left behind: the old file, if any, is as it was."""
    tmp = temporary(path)
    try:
        write(tmp)
        _sync(tmp)
        os.replace(tmp, path)
    except OSError as e:
        raise JudgeAgentError(cannot_write(path, e)) from None
    finally:
        try:
            tmp.unlink(missing_ok=True)
        except OSError:  # a folder we may not write to holds no temporary file of ours either
            pass


def _sync(file: Path) -> None:
    """The file's bytes on disk before a rename makes them the file: without it a power cut can leave the new name
    on an empty file (the rename is journaled before the data is written), a run's manifest.json among them."""
    fd = os.open(file, os.O_RDONLY)
    try:
        os.fsync(fd)
    except OSError as e:  # a filesystem that cannot sync (some FUSE and network ones) writes as it did before
        if e.errno not in (errno.EINVAL, errno.ENOTSUP, errno.EBADF, errno.EROFS):
            raise
    finally:
        os.close(fd)


def temporary(path: Path, kind: str = "tmp") -> Path:
    """`.NAME.tmp-<pid>@<host>` (`kind` tmp), the hidden sibling `path` is written as before it is renamed in. The host
    because a folder shared over NFS is written from several: two writers of one pid on two hosts get two names, and
    `remove_stale` judges a pid only on the host that gave it."""
    return path.with_name(f".{path.name}.{kind}-{os.getpid()}@{_host()}")


def _host() -> str:
    # a name inside a file's name: no folder separator, and no @ (the last @ is where the host begins)
    return socket.gethostname().replace("/", "_").replace("@", "_")


def remove_stale(folder: Path, pattern: str) -> None:
    """Remove the temporaries in `folder` matching `pattern` (`temporary`'s names: `write_atomic`'s files, a graph's
    staging folders) whose process is gone: one killed with SIGKILL runs no cleanup, and nothing else will. Those of
    a process still running are its own, left to it, as are another host's (its pid means nothing here). A name
    without a host (`.NAME.tmp-<pid>`, written before the host was named) is judged by its pid here."""
    import shutil

    for path in folder.glob(pattern):
        rest, at, host = path.name.rpartition("@")
        if at and host != _host():
            continue
        pid = (rest if at else path.name).rpartition("-")[2]
        if not (pid.isascii() and pid.isdigit()) or _alive(int(pid)):
            continue
        if path.is_dir() and not path.is_symlink():
            shutil.rmtree(path, ignore_errors=True)
        else:
            with contextlib.suppress(OSError):  # best effort: another user's file in a shared folder stays
                path.unlink(missing_ok=True)


def _alive(pid: int) -> bool:
    """Whether `pid` may be a live process here (a pid no process can have, `-99999999999`'s, is none: gone)."""
    try:
        os.kill(pid, 0)
    except (ProcessLookupError, OverflowError):
        return False
    except PermissionError:  # another user's process
        return True
    return True


def cannot_write(path: Path, error: OSError, then: str = "run the command again") -> str:
    """`cannot write PATH: REASON; FIX` for an OSError met while writing `path`."""

    reason = error.strerror or str(error)
    if error.errno in (errno.ENOSPC, errno.EDQUOT):
        fix = f"the disk is full: free some space there, then {then}"
    elif error.errno == errno.EISDIR:
        fix = f"{path} is a folder: give a file name"
    elif error.errno == errno.ENOTDIR or (path.parent.exists() and not path.parent.is_dir()):
        fix = f"part of {path.parent} is a file, not a folder: choose another place"
    elif not path.parent.exists():
        fix = f"its folder {path.parent} does not exist: create it or choose another place"
    else:
        fix = f"{path.parent} does not take new files: make it writable or choose another place"
    return f"cannot write {path}: {reason}; {fix}"


def check_writable(path: Path) -> None:
    """Fail now, in one line, where `path` could not be written later: before the work that makes its content.

    The real test, not the permission bits (root writes through those, a read-only mount stops everyone):
    an empty hidden sibling is created and removed."""
    if path.is_dir():
        raise JudgeAgentError(f"cannot write {path}: it is a folder; give a file name")
    probe = path.with_name(f".{path.name}.probe-{os.getpid()}")
    try:
        probe.touch()
    except OSError as e:
        raise JudgeAgentError(cannot_write(path, e)) from None
    try:
        probe.unlink()
    except OSError:
        pass


def check_replaceable(path: Path, ours: Callable[[Path], bool], what: str) -> None:
    """Refuse to replace an existing file that is not this command's own earlier output (`ours` says whether it
    is): an --out that names a user's file by mistake must not cost them the file."""
    if path.is_dir():
        raise JudgeAgentError(f"cannot write {path}: it is a folder; give a file name")
    try:
        mine = not path.exists() or ours(path)
    except OSError as e:
        raise JudgeAgentError(f"cannot read {path} to tell whether it is {what}: {e.strerror or e}; choose another "
                              "--out") from None
    if not mine:
        raise JudgeAgentError(f"{path} exists and is not {what}: choose another --out, or remove it first")


def write_text_atomic(path: Path, text: str) -> None:
    write_atomic(path, lambda tmp: tmp.write_text(text, encoding="utf-8"))


def write_json_atomic(path: Path, data: Any) -> None:
    write_text_atomic(path, json.dumps(data, indent=2, ensure_ascii=False) + "\n")


KINDS = {
    "graph": "a knowledge graph (build-graph wrote it; commands take it with --graph)",
    "run": "a run (evaluate wrote it; report, view, validate, export and evaluate --resume read it)",
    "reproduce": "a reproduce run (reproduce wrote it; report, view, validate and export read it)",
    "synthesis": "the work folder of a synthesis (its dataset is items.jsonl in the folder above)",
    "dataset": "a synthesized dataset (synthesize wrote it; evaluate reads its items.jsonl with --benchmark)",
}
"""Each kind of folder judgeagent writes, as a refusal names it: "FOLDER is KIND, not a run"."""
_FORMATS = {"judgeagent.context-graph": "graph", "judgeagent.run": "run"}


def folder_kind(folder: Path, manifest: Any = None) -> str | None:
    """What kind of judgeagent folder `folder` is (a key of `KINDS`), or None for anything else.

    The manifest's `kind` says it; folders written before it was recorded are known by their files (the
    manifest's format, a synthesis's `.synthesis` work folder, a reproduce run's reproduce.md)."""
    if manifest is None:
        if (folder / ".synthesis" / "manifest.json").is_file():
            return "dataset"
        try:
            manifest = json.loads((folder / "manifest.json").read_text(encoding="utf-8"))
        except (OSError, ValueError, RecursionError):
            return None
    if not isinstance(manifest, dict):
        return None
    kind = manifest.get("kind")
    if isinstance(kind, str) and kind in KINDS:
        return kind
    fmt = manifest.get("format")
    kind = _FORMATS.get(fmt) if isinstance(fmt, str) else None
    if kind == "run" and (folder / "reproduce.md").is_file():
        return "reproduce"
    return kind


def wrong_kind(folder: Path, what: str, manifest: Any = None, fix: str = "") -> JudgeAgentError:
    """`FOLDER is KIND, not a WHAT` where the folder is a judgeagent folder of another kind; else `not a judgeagent WHAT`."""
    kind = folder_kind(folder, manifest)
    if kind is None:
        return JudgeAgentError(f"{folder} is not a judgeagent {what}{fix}")
    return JudgeAgentError(f"{folder} is {KINDS[kind]}, not a {what}{fix}")


def check_format(manifest: dict[str, Any], folder: Path, fmt: str, version: int, what: str, fix: str) -> None:
    """A manifest of the expected kind and format version, or a one-line error saying what to do."""
    if not isinstance(manifest, dict):
        raise JudgeAgentError(f"{folder} is not a judgeagent {what}: its manifest.json holds {json_kind(manifest)}, "
                              f"not a JSON object{fix}")
    if manifest.get("format") != fmt:
        raise wrong_kind(folder, what, manifest)
    if manifest.get("format_version") != version:
        raise JudgeAgentError(f"{what} {folder} has format version {manifest.get('format_version')}; "
                              f"this judgeagent reads version {version}{fix}")


def json_kind(value: Any) -> str:
    """What a parsed JSON value is, in JSON's words ("an array", "a string"), for one-line errors."""
    if isinstance(value, bool):
        return "a boolean"
    kinds = {dict: "an object", list: "an array", str: "a string", int: "a number", float: "a number"}
    return kinds.get(type(value), "null")


def field_value(record: dict[str, Any], path: str) -> Any:
    """The value a field mapping names: a key, or a dotted path into nested objects (`meta.exact_answer`).

    A key that itself contains dots wins over the path. Inside the path, a list gives its first element,
    or the element a numeric step names (`answers.1`); a value that is missing anywhere is None.
    """
    if path in record or "." not in path:
        return record.get(path)
    value: Any = record
    for step in path.split("."):
        if isinstance(value, list):
            if step.isascii() and step.isdigit():  # past the end is missing: never another element in its place
                value = value[int(step)] if int(step) < len(value) else None
                continue
            value = value[0] if value else None
        if not isinstance(value, dict):
            return None
        value = value.get(step)
    return value
