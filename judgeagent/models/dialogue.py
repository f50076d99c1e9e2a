"""`Dialogue`: a multi-turn message history that each participant sees from its own seat.

One history serves every multi-turn protocol: a conversation between two (KIEval's candidate and
interactor, the Interviewer's interviewer and interviewee) or a message pool among many (DynaEval's
players and referee). A participant sees its own turns as `assistant` and everyone else's as
`user`; with more than two participants, others' turns carry the speaker's seat name. A turn may be
addressed to some participants only, and a synchronous round hides the round's own turns from the
other players until the round is closed (no player sees another's same-round move).
"""
from __future__ import annotations

from collections.abc import Iterable
from dataclasses import asdict, dataclass, field
from typing import Any

from .base import Message


@dataclass(frozen=True)
class Turn:
    speaker: str
    content: str
    to: frozenset[str] | None = None
    """Who may see it besides the speaker (None: everyone)."""
    round: int | None = None
    meta: dict[str, Any] = field(default_factory=dict)

    def visible_to(self, participant: str) -> bool:
        return self.speaker == participant or self.to is None or participant in self.to


class Dialogue:
    def __init__(self, participants: Iterable[str], system: dict[str, str] | None = None) -> None:
        self.participants = tuple(participants)
        self.system = dict(system or {})
        """Each participant's own instructions (never shown to the others)."""
        self.turns: list[Turn] = []
        self.open_round: int | None = None

    def say(self, speaker: str, content: str, *, to: Iterable[str] | None = None, **meta: Any) -> Turn:
        if speaker not in self.participants:
            raise ValueError(f"{speaker!r} is not in this dialogue ({', '.join(self.participants)})")
        turn = Turn(speaker, content, frozenset(to) if to is not None else None, self.open_round, dict(meta))
        self.turns.append(turn)
        return turn

    def begin_round(self, number: int) -> None:
        """Turns said from now on stay hidden from the other participants until `end_round`."""
        self.open_round = number

    def end_round(self) -> None:
        self.open_round = None

    def view(self, participant: str) -> list[Message]:
        """The messages `participant` is shown, oldest first, ready for `ChatModel.complete`."""
        messages: list[Message] = []
        if participant in self.system:
            messages.append({"role": "system", "content": self.system[participant]})
        many = len(self.participants) > 2
        for turn in self.turns:
            if not turn.visible_to(participant):
                continue
            if turn.round is not None and turn.round == self.open_round and turn.speaker != participant:
                continue  # same-round moves of others: not yet
            if turn.speaker == participant:
                messages.append({"role": "assistant", "content": turn.content})
            else:
                text = f"[{turn.speaker}] {turn.content}" if many else turn.content
                messages.append({"role": "user", "content": text})
        return _merged(messages)

    def transcript(self) -> str:
        return "\n".join(f"{t.speaker}: {t.content}" for t in self.turns)

    def to_dict(self) -> dict[str, Any]:
        return {"participants": list(self.participants), "system": self.system,
                "turns": [{**asdict(t), "to": sorted(t.to) if t.to is not None else None} for t in self.turns]}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Dialogue:
        dialogue = cls(data["participants"], data.get("system"))
        for t in data["turns"]:
            dialogue.turns.append(Turn(t["speaker"], t["content"], frozenset(t["to"]) if t["to"] is not None else None,
                                       t.get("round"), t.get("meta") or {}))
        return dialogue


def _merged(messages: list[Message]) -> list[Message]:
    """Consecutive messages of one role joined: chat templates expect user and assistant to alternate."""
    out: list[Message] = []
    for m in messages:
        if out and out[-1]["role"] == m["role"] and m["role"] != "system":
            out[-1] = {**out[-1], "content": f"{out[-1]['content']}\n\n{m['content']}"}
        else:
            out.append(dict(m))
    return out
