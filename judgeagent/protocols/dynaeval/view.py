"""DynaEval's games for the viewer and the Inspect export: the generic episode, named by its cast, with each
player's score under the player's role (seats change hands between repetitions) and the game's winner."""
from __future__ import annotations

from dataclasses import replace

from ...runs import Run, read_rows
from ..episodes import EpisodeView, generic_episodes
from ..rows import EpisodeModel, check_row
from .rows import GameRow


class _Game(EpisodeModel):
    """A game's row as the viewer reads it (its cast, seat -> role; its scores per seat)."""

    cast: dict[str, str] | None = None
    repetition: int | None = None


def view_episodes(run: Run) -> list[EpisodeView]:
    episodes = generic_episodes(run)  # the rows' shared fields checked first
    path = run.folder / "episodes.jsonl"
    rows = read_rows(path, "episode", finished=run.finished)
    for row in rows:
        check_row(_Game, row, path)
    by_id = {r["episode"]: r for r in rows}
    models = {role: d.get("name", "") for role, d in (run.manifest.get("models") or {}).items()}
    return [game_view(e, by_id.get(e.id) or {}, models) for e in episodes]


def game_view(episode: EpisodeView, row: GameRow, models: dict[str, str]) -> EpisodeView:
    cast, seats = row.get("cast") or {}, row.get("scores") or {}
    if not cast:
        return episode
    by_role = {cast[s]: float(v) for s, v in seats.items() if s in cast and isinstance(v, (int, float))}
    best = max(by_role.values(), default=None)
    leaders = [r for r, v in by_role.items() if v == best]
    scores = {k: v for k, v in episode.scores.items() if not k.endswith(" (row)")}
    title = ", ".join(f"{seat}: {role} ({models.get(role, '')})" for seat, role in cast.items())
    item = row.get("item")
    return replace(episode, item=f"game {row.get('repetition', '')}: {title}" + (f" · {item}" if item else ""),
                   scores={**scores, **by_role},
                   facets={**episode.facets, "winner": leaders[0] if len(leaders) == 1 else "tie"})
