"""Stage progress: the library reports, the CLI decides how to show it (tqdm) or not at all."""
from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Protocol

Advance = Callable[[int], None]


class Progress(Protocol):
    def stage(self, name: str, total: int | None = None, unit: str = "it") -> "StageContext": ...


class StageContext(Protocol):
    def __enter__(self) -> Advance: ...
    def __exit__(self, *exc: object) -> None: ...


class Timings(dict[str, float]):
    """Seconds per stage, filled by `timed`; stored in manifests and printed in summaries."""

    @contextmanager
    def timed(self, progress: Progress | None, name: str, total: int | None = None,
              unit: str = "it") -> Iterator[Advance]:
        start = time.perf_counter()
        try:
            if progress is None:
                yield _ignore
            else:
                with progress.stage(name, total, unit) as advance:
                    yield advance
        finally:
            self[name] = round(self.get(name, 0.0) + time.perf_counter() - start, 3)


def _ignore(_: int) -> None:
    return None


class TqdmProgress:
    """One tqdm bar per stage on stderr (hidden when stderr is not a terminal)."""

    def __init__(self, disable: bool | None = None) -> None:
        self.disable = disable

    @contextmanager
    def stage(self, name: str, total: int | None = None, unit: str = "it") -> Iterator[Advance]:
        from tqdm import tqdm

        with tqdm(total=total, desc=f"{name:<18}", unit=unit, disable=self.disable, leave=True) as bar:
            yield bar.update
