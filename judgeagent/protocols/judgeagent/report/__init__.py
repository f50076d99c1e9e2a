"""Reports of a run for model trainers: Markdown and one self-contained HTML page."""
from .build import build_report, compare_runs

__all__ = ["build_report", "compare_runs"]
