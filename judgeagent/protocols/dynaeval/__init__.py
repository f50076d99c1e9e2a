"""DynaEval: LLMs in repeated interaction games, judged by a referee through a message pool."""
from .protocol import DynaEvalProtocol

__all__ = ["DynaEvalProtocol"]
