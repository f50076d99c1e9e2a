"""Teach2Eval: the target teaches weak students multiple-choice items; its abilities from their gains."""
from .config import Teach2EvalConfig
from .protocol import Teach2EvalProtocol

__all__ = ["Teach2EvalConfig", "Teach2EvalProtocol"]
