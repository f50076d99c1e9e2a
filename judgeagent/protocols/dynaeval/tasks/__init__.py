"""The DynaEval task catalogue: one module per task."""
from __future__ import annotations

from .base import Game, Move, Outcome, Task
from .code import CodeReview
from .idiom import IdiomSolitaire
from .public_goods import PublicGoods
from .translation import Translation

TASKS: dict[str, Task] = {t.name: t for t in (PublicGoods(), CodeReview(), Translation(), IdiomSolitaire())}

__all__ = ["TASKS", "CodeReview", "Game", "IdiomSolitaire", "Move", "Outcome", "PublicGoods", "Task", "Translation"]
