"""KIEval: knowledge-grounded interactive evaluation, a dialogue per item scored turn by turn."""
from .config import KIEvalConfig
from .protocol import KIEvalProtocol

__all__ = ["KIEvalConfig", "KIEvalProtocol"]
