"""`DynaEvalProtocol`: DynaEval's interaction games on the shared engine, repeated until convergence."""
from __future__ import annotations

import hashlib
import random
import typing
from dataclasses import dataclass
from typing import Any

from ...benchmark import Benchmark, Item
from ...errors import JudgeAgentError
from ..base import (
    CallEstimate,
    Episode,
    EpisodeContext,
    Prepared,
    Protocol,
    RoleSpec,
    RunRequest,
    Seats,
    Section,
)
from ..record import RecordRow, Score
from . import stability
from .config import DynaEvalConfig, planned_runs
from .referee import play, transcript
from .report import numbers, sections
from .rows import GameRow, Setup, SourceStamp, Summary
from .tasks import TASKS
from .tasks.base import Move, Task


@dataclass(frozen=True)
class DynaEvalState:
    """What every game of a run plays with: the task, its items (problems, sources), the players in seat order."""

    task: Task
    items: list[Any]
    players: list[str]


@dataclass(frozen=True)
class GameEpisode(Episode):
    """One game: its repetition, and who sits where (seat -> player role, e.g. `Player A` -> `players.2`)."""

    repetition: int = 0
    cast: tuple[tuple[str, str], ...] = ()


class DynaEvalProtocol(Protocol[RecordRow, GameRow, Summary]):
    name = "dynaeval"
    title = "DynaEval"
    paper = ("DynaEval: A Dynamic Interaction-based Evaluation Framework (ICLR 2024 submission): Section 2, "
             "Appendix A.3-A.5, A.8")
    measures = ("each model's mean game score with its 95% interval, from games repeated a fixed number of times as "
                "the paper's (or until the scores converge): public goods, code generation and review (MBPP), "
                "translation (IWSLT 2017), idiom solitaire; a model x role matrix and per-pair cells for asymmetric "
                "tasks, with Pass@1 per round and BLEU")
    Config = DynaEvalConfig
    # The values that reproduce runs begun before these options existed (convergence, the shared scores, every
    # player in one idiom game): such a run keeps its identity with them. The paper's defaults change the games
    # played, so a run at those defaults has a new identity and never resumes into an older run's folder.
    added_later = {"repeat": "converge", "scoring": "judgeagent", "idiom_play": "all"}
    roles = (RoleSpec("players", "the models under evaluation, anonymous seats shuffled per game", "target",
                      many=True),
             RoleSpec("referee", "reads public goods replies into moves; rates what the rule cannot (programmer and "
                      "reviewer, translator and proofreader 1-10); sees no model names",
                      optional=True))
    needs = frozenset()
    needs_note = "no benchmark: the task reads its own items (code: -o problems=FILE; translation: -o sources=FILE)"

    def check_inputs(self, request: RunRequest) -> None:
        # Bad input fails before the run folder exists: the task, the players, the task's items.
        task = TASKS[request.config.task]
        roles = self.resolve_roles(request.models)
        players = [k for k in roles if k.startswith("players.")]
        if len(players) < 2:
            raise JudgeAgentError("protocol dynaeval needs two players or more: --role players=A,B (a model may "
                                  "play itself: --role players=A,A)")
        task.check(request.config, len(players), "referee" in roles)
        task.load(request.config)
        if request.benchmark.items:
            raise JudgeAgentError("protocol dynaeval takes no --benchmark: a task reads its own items "
                                  "(code: -o problems=FILE; translation: -o sources=FILE)")
        super().check_inputs(request)

    def episodes(self, benchmark: Benchmark, config: Any) -> list[Episode]:
        return []  # the first wave comes from next_episodes, once the players are known

    def estimate_calls(self, config: Any, items: list[Item], seats: Seats) -> CallEstimate | None:
        """Games: the planned repetitions (converge: from min_runs), each one game of all players (a symmetric
        task) or one per ordered pair (pairwise); the task's items are read from the file it names (a missing
        one fails here, as the run would). Per game, public goods: each player answers once a round and the
        referee reads each answer. Idiom solitaire has no estimate: its games end when a player is stuck."""
        task = TASKS[config.task]
        players = sum(1 for k in seats if k.partition(".")[0] == "players")
        most = planned_runs(config, task.name, len(task.load(config)))
        fewest = min(config.min_runs, most) if config.repeat == "converge" else most
        games = 1 if task.symmetric and not task.pairwise(config) else players * (players - 1)
        if config.task == "public_goods":
            per_game = (config.rounds * players * 2,) * 2
        elif config.task == "code":  # the code and a rating; at the most every review answered by a revision
            per_game = (2, 2 + 2 * config.review_rounds)
        elif config.task == "translation":  # the translation, each polish round, one rating or two
            per_game = (2 + config.polish_rounds, 3 + config.polish_rounds)
        else:
            return None
        return CallEstimate(fewest * games * per_game[0], most * games * per_game[1],
                            f"{most} repetitions of {games} game{'s' if games > 1 else ''}")

    async def prepare(self, ctx: EpisodeContext) -> Prepared:
        task = TASKS[ctx.config.task]
        items, stamp = task.load_stamped(ctx.config)
        # The run's identity holds the file's path, not its content: a file edited between a run and its
        # resumption would mix old and new items under one run. The bytes' hash, kept in the manifest when
        # the run began, refuses that before any game (and any model call) is played.
        before = typing.cast(Setup, ctx.run.manifest.get("dynaeval") or {}).get("source")
        if stamp is not None and before and before.get("sha256") != stamp.sha256:
            raise JudgeAgentError(f"the {stamp.option} file {stamp.path} changed since this run began (sha256 "
                                  f"{before['sha256'][:12]}… → {stamp.sha256[:12]}…): start a new run (--run-dir "
                                  "elsewhere) or restore the file")
        state = DynaEvalState(task, items, _players(ctx))
        out = Setup(task=task.name, items=len(items), players=state.players)
        isolation = task.isolation(ctx.config)
        if isolation is not None:
            out["isolation"] = isolation  # which sandbox ran the models' code, e.g. bubblewrap 0.8.0
        if stamp is not None:
            out["source"] = SourceStamp(option=stamp.option, path=stamp.path, sha256=stamp.sha256)
        return Prepared(state, {"dynaeval": out})

    def next_episodes(self, ctx: EpisodeContext, rows: list[GameRow]) -> list[Episode]:
        cfg, task, players = ctx.config, ctx.state.task, ctx.state.players
        runs = planned_runs(cfg, task.name, len(ctx.state.items))
        wave = stability.next_wave(rows, task.symmetric, epsilon=cfg.epsilon or task.epsilon, min_runs=cfg.min_runs,
                                   max_runs=runs, wave=cfg.wave, fixed=cfg.repeat == "fixed")
        out: list[Episode] = []
        for r in wave:
            if task.pairwise(cfg):  # every ordered pair from the same start: both orders of each pair
                casts = stability.asymmetric_casts(("Player A", "Player B"), players)
                out += [GameEpisode(f"rep-{r:04d}-{k}", (), r * len(casts) + k, r, cast) for k, cast in enumerate(casts)]
            elif task.symmetric:
                seats = [f"Player {chr(ord('A') + i)}" for i in range(len(players))]
                out.append(GameEpisode(f"rep-{r:04d}", (), r, r, stability.symmetric_cast(seats, players, cfg.seed, r)))
            else:
                casts = stability.asymmetric_casts(task.roles, players)
                out += [GameEpisode(f"rep-{r:04d}-{k}", (), r * len(casts) + k, r, cast) for k, cast in enumerate(casts)]
        return out

    async def run_episode(self, ctx: EpisodeContext, episode: Episode) -> GameRow:
        assert isinstance(episode, GameEpisode)
        cfg, task = ctx.config, ctx.state.task
        item = task.item(ctx.state.items, episode.repetition)
        cast = dict(episode.cast)
        game = task.game(cfg, tuple(cast), item, random.Random(f"{cfg.seed}:{episode.id}"))

        def record(round_: int, seat: str, prompt: str, reply: str, move: Move) -> None:
            ctx.record(episode, f"round/{round_}/{seat}", round_, cast[seat], prompt, reply,
                       {"valid": Score(1.0 if move.valid else 0.0, move.parsed_by, move.note)}, seat=seat,
                       value=move.value, parsed_by=move.parsed_by, stage="move")

        # Each game asks with its own seed: repetitions are independent samples, not replays of the same
        # prompts from the response cache or the run's journal (at temperature 0 a model may still repeat itself).
        settings: dict[str, int] = {"seed": game_seed(cfg.seed, episode.id)}
        if cfg.max_tokens:
            settings["max_tokens"] = cfg.max_tokens
        played = await play(game, {seat: ctx.roles[player] for seat, player in cast.items()},
                            referee=ctx.roles.get("referee"), record=record, settings=settings)
        return {"repetition": episode.repetition, "cast": cast, "item": _item_id(item),
                "scores": played.outcome.scores, "end": played.outcome.end, "rounds": played.rounds,
                "metrics": played.outcome.metrics, "moves": played.moves, "transcript": transcript(played.pool)}

    async def summarise(self, ctx: EpisodeContext, records: list[RecordRow],
                        episodes: list[GameRow]) -> Summary:
        names = {role: d["name"] for role, d in ctx.run.manifest["models"].items()}
        runs = planned_runs(ctx.config, ctx.state.task.name, len(ctx.state.items))
        summary = numbers(ctx.state.task, ctx.config, episodes, names, runs)
        # As recorded when the run began: a report made later, elsewhere, says what ran, not what is here now.
        isolation = typing.cast(Setup, ctx.run.manifest.get("dynaeval") or {}).get("isolation")
        if isolation is not None:
            summary["isolation"] = isolation
        return summary

    def report_sections(self, summary: Summary) -> list[Section]:
        return sections(summary)

    def view_episodes(self, run: Any) -> list[Any]:  # games by their cast, scores by player
        from .view import view_episodes

        return view_episodes(run)

    def headline(self, summary: Summary) -> dict[str, float | None]:
        # Each player's mean and the half-width of its 95% interval, named with the task's unit: runs of
        # different tasks never share a column.
        out: dict[str, float | None] = {}
        for player, p in summary["players"].items():
            out[f"{summary['task']}: {player} ({summary['unit']})"] = p["mean"]
            out[f"{summary['task']}: {player} ±95%"] = p["half_width"]
        for player, roles in summary.get("role_measures", {}).items():  # the paper's BLEU, Pass@K beside it
            for role, measures in roles.items():
                for name in summary.get("headline_measures", []):
                    if name in measures:
                        out[f"{summary['task']}: {player} as {role} {name}"] = measures[name]
        return out

    def render_summary(self, summary: Summary, folder: str) -> str:
        s = summary
        fixed = s.get("scoring", {}).get("repeat") == "fixed"
        lines = [f"run {folder}", f"  task {s['task']}: {s['repetitions']} repetitions, {s['games']} games, "
                 + ("fixed" if fixed else "converged" if s["converged"] else
                    f"not converged at epsilon {s['epsilon']:g}")]
        for player, p in s["players"].items():
            half = f" ± {p['half_width']:.3g}" if p["half_width"] is not None else ""
            mean = f"{p['mean']:.3f}" if p["mean"] is not None else "unscored"
            lines.append(f"  {player} ({p['model']}): {mean}{half} {s['unit']} over {p['n']} games")
        lines.append(f"  report: {folder}/report.md")
        return "\n".join(lines)


def game_seed(seed: int, episode: str) -> int:
    return int(hashlib.sha256(f"{seed}:{episode}".encode()).hexdigest()[:8], 16)


def _players(ctx: EpisodeContext) -> list[str]:
    keys = [k for k in ctx.roles if k.startswith("players.")]
    return sorted(keys, key=lambda k: int(k.rpartition(".")[2]))


def _item_id(item: Any) -> Any:
    return (item.get("task_id") or item.get("id")) if isinstance(item, dict) else item
