"""JudgeAgent (the paper this package is named for): benchmark grading in batches, graph-driven extension
questions at adaptive difficulty, feedback per batch, and validation of that feedback. Everything the
protocol is lives in this folder; it uses only the shared packages."""
from .config import EvalConfig
from .protocol import JudgeAgentProtocol

__all__ = ["EvalConfig", "JudgeAgentProtocol"]
