"""Records through Hugging Face `datasets`: a hub id (downloads; for users who are online), or a local
parquet/arrow file or `save_to_disk` folder (what the tests use: nothing is downloaded)."""
from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

from ..errors import JudgeAgentError
from ..files import check_utf8

_LOCAL_BUILDERS = {".parquet": "parquet", ".arrow": "arrow", ".jsonl": "json", ".json": "json", ".csv": "csv"}


def hf_records(source: str, subset: str | None) -> Iterator[tuple[Any, str]]:
    """The rows of one split: `subset` is `SPLIT` or `CONFIG/SPLIT` (default: the `test` split, or the only one)."""
    dataset = _load(source, subset)
    rows = iter(dataset)
    index = 0
    while True:
        try:
            row = next(rows)
        except StopIteration:
            return
        except Exception as e:  # a cell Arrow cannot give back as Python (bytes that are not UTF-8, say)
            raise JudgeAgentError(f"hf: cannot read row {index} of {source}: {_first_line(e)}") from None
        yield dict(row), f"{source}[{index}]"
        index += 1


def _first_line(error: Exception) -> str:
    return str(error).splitlines()[0] if str(error) else type(error).__name__


def _load(source: str, subset: str | None) -> Any:
    try:
        import datasets
    except ImportError:
        raise JudgeAgentError("the hf: route needs the `datasets` package: pip install datasets") from None
    config, _, split = (subset or "").rpartition("/")
    path = Path(source)
    try:
        if path.is_dir() and ((path / "dataset_info.json").exists() or (path / "dataset_dict.json").exists()):
            loaded = datasets.load_from_disk(str(path))
        elif path.is_file():
            builder = _LOCAL_BUILDERS.get(path.suffix.lower())
            if builder is None:
                raise JudgeAgentError(f"hf: cannot read {path} (local files: {', '.join(_LOCAL_BUILDERS)})")
            if builder in ("json", "csv"):  # Arrow reads bytes that are not UTF-8 and fails on the row later
                check_utf8(path)
            loaded = datasets.load_dataset(builder, data_files=str(path))
        elif path.exists():
            raise JudgeAgentError(f"hf: {path} is a folder but not one saved by datasets.save_to_disk")
        else:
            loaded = datasets.load_dataset(source, config or None)
    except JudgeAgentError:
        raise
    except Exception as e:  # datasets raises many types (offline, missing config, bad file)
        raise JudgeAgentError(f"hf: cannot load {source!r}: {_first_line(e)}") from None
    return _split(loaded, split, source)


def _split(loaded: Any, split: str, source: str) -> Any:
    if not hasattr(loaded, "keys"):  # a single Dataset
        return loaded
    names = list(loaded.keys())
    if split:
        if split not in names:
            raise JudgeAgentError(f"hf: {source} has no split {split!r} (it has {', '.join(names)})")
        return loaded[split]
    if len(names) == 1:
        return loaded[names[0]]
    if "test" in names:
        return loaded["test"]
    raise JudgeAgentError(f"hf: {source} has splits {', '.join(names)}: name one, e.g. {source}#{names[0]}")
