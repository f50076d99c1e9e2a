"""The paper's referee ratings for writer-editor tasks (Appendix A.8): one call rates both roles 1-10 from
their dialogue, each with its basis, as `{"Programmer": {"evaluation": ..., "score": ...}, "Reviewer": ...}`."""
from __future__ import annotations

from functools import cache
from typing import Any

from pydantic import BaseModel, Field, create_model


class RoleRating(BaseModel):
    evaluation: str
    score: int = Field(ge=1, le=10)


@cache
def ratings_schema(labels: tuple[str, ...]) -> type[BaseModel]:
    """The referee's answer: one rating per role label (`Programmer`, `Reviewer`)."""
    fields: dict[str, Any] = {label: (RoleRating, ...) for label in labels}
    return create_model("RoleRatings", **fields)


def dialogue(turns: list[tuple[str, str]]) -> str:
    """The writer-editor conversation as the referee reads it: `Label: text` per turn, in order."""
    return "\n\n".join(f"{label}: {text.strip() or '(empty)'}" for label, text in turns)


async def rate_roles(referee: Any, instruction: str, conversation: str,
                     labels: tuple[str, ...]) -> dict[str, int | None]:
    """Each role label's score; None for all when the referee gives no valid answer (no score is not 0)."""
    schema = ratings_schema(labels)
    result = await referee.complete([{"role": "user", "content": f"{instruction}\n\n{conversation}"}], schema=schema)
    parsed = result.parsed if result.ok else None
    if not isinstance(parsed, schema):
        return {label: None for label in labels}
    return {label: getattr(parsed, label).score for label in labels}
