"""The parts of a JudgeAgent run's manifest.json and summary.json that its report reads, checked as typed models
first: a hand-edited or damaged field is one line naming the file and the field, not a traceback mid-report."""
from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict

from ....benchmarks.records import parse
from ....errors import JudgeAgentError
from ....runs import Run, rewrite_hint


class _Strict(BaseModel):
    model_config = ConfigDict(extra="allow", strict=True)


class _Role(_Strict):
    name: str
    model: str


class _Models(_Strict):
    target: _Role
    interviewer: _Role
    judge: _Role


class _Calibration(_Strict):
    pairs: int
    note: str


class _ProbeCount(_Strict):
    n: int
    right: int


class _CalibrationRun(_Calibration):
    accuracy: float | None
    fpr: float | None
    fnr: float | None
    intervals: dict[str, list[float] | None]
    policy: str
    failures: int
    by_kind: dict[str, _ProbeCount] | None = None
    """The probes by kind, whose hard ones bound the judge's false-positive rate (absent in older runs)."""


class _Config(_Strict):
    seed: int | None = None


class _Manifest(_Strict):
    models: _Models
    judge_calibration: _Calibration | None = None
    config: _Config | None = None


class _Accuracy(_Strict):
    n: int
    correct: int
    accuracy: float | None


class _Usage(_Strict):
    calls: int
    cache_hits: int
    input_tokens: int
    output_tokens: int
    cost: float


class _Summary(_Strict):
    overall_score: float
    questions: int
    batches: int
    accuracy: dict[str, _Accuracy]
    trajectories: dict[str, list[str]]
    usage: dict[str, _Usage] | None = None


def check_report_inputs(run: Run, summary: dict[str, Any]) -> None:
    """Refuse, in one line, a manifest or summary whose fields the report could not read."""
    folder = run.folder
    again = f"; {rewrite_hint(folder, run.manifest)}"
    restore = "; it is written once, when the run starts: restore it from a copy of the run"
    for model, value, name, fix in ((_Manifest, run.manifest, "manifest.json", restore),
                                    (_Summary, summary, "summary.json", again)):
        try:
            parse(model, value, f"{folder / name}")
            calibration = run.manifest.get("judge_calibration") if model is _Manifest else None
            if isinstance(calibration, dict) and calibration.get("pairs"):
                parse(_CalibrationRun, calibration, f"{folder / name}", ("judge_calibration",))
        except JudgeAgentError as e:
            raise JudgeAgentError(f"{e}{fix}") from None
