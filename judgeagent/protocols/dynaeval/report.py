"""DynaEval's numbers (Appendix A.5: mean score per player; per player and role for asymmetric tasks)
and its report sections: scores with intervals, convergence, the model x role matrix, one transcript."""
from __future__ import annotations

from collections import Counter
from statistics import fmean
from typing import Any

from ...metrics import MeanInterval, converged
from ...report.mdtext import md_fence
from ..base import Section
from . import stability
from .rows import GameRow, Summary

TRANSCRIPT_CHARS = 6000


def scoring(task: Any, config: Any) -> dict[str, str]:
    """What produced the numbers: the repetition rule, and the task's paper or judgeagent variant."""
    out = {"repeat": config.repeat}
    if task.name in ("code", "translation"):
        out["scoring"] = config.scoring
    if task.name == "idiom":
        out["idiom_play"] = config.idiom_play
    return out


def numbers(task: Any, config: Any, rows: list[GameRow], names: dict[str, str], runs: int) -> Summary:
    symmetric, epsilon = task.symmetric, config.epsilon or task.epsilon
    players = stability.estimates(rows, True)
    summary: Summary = {
        "task": task.name, "unit": task.unit_for(config), "symmetric": symmetric, "epsilon": epsilon,
        "max_runs": runs, "repetitions": stability.repetitions_done(rows), "games": len(rows),
        "converged": converged(stability.cells(rows, symmetric), epsilon, config.min_runs),
        "players": {p: {"model": names.get(p, p), **stats} for p, stats in players.items()},
        "running": stability.running(rows, symmetric),
        "measures": _measures(rows), "ends": dict(Counter(r["end"] for r in rows)),
        # How the moves were read: by rule, or reformatted by the referee model (public goods with a referee).
        "parsed_by": dict(Counter(m.get("parsed_by", "rule") for r in rows for m in r.get("moves", []))),
        "transcript": rows[0]["transcript"] if rows else "",
        "scoring": scoring(task, config),
    }
    if task.pairwise(config):
        summary["positions"] = positions(rows)
    if not symmetric:
        matrix: dict[str, dict[str, MeanInterval]] = {}
        for key, stats in stability.estimates(rows, False).items():
            player, _, role = key.partition("/")
            matrix.setdefault(player, {})[role] = stats
        summary["roles"] = list(task.roles)
        summary["matrix"] = matrix
        # The paper reports its further measures per role (BLEU b_T and b_Pr, Pass@K of programmers).
        by_role: dict[str, dict[str, dict[str, float]]] = {}
        for key, values in _measures(rows, by_role=True).items():
            player, _, role = key.partition("/")
            by_role.setdefault(player, {})[role] = values
        if any(by_role.values()):
            summary["role_measures"] = by_role
            summary["headline_measures"] = list(task.headline_measures(config))
        summary["pairs"] = pairs(rows, task.roles, summary.get("headline_measures", []))
    return summary


def positions(rows: list[GameRow]) -> list[dict[str, str | int | float]]:
    """Pairwise two-seat games by (early, late) player: mean scores s_E, s_L (the paper's Table 1, winning
    rate) and mean successful hits (its Table 4), over the start idioms."""
    cells: dict[tuple[str, str], list[GameRow]] = {}
    for row in rows:
        cells.setdefault((row["cast"]["Player A"], row["cast"]["Player B"]), []).append(row)
    out = []
    for (early, late), games in sorted(cells.items()):
        out.append({"early": early, "late": late, "games": len(games),
                    "s_E": fmean(g["scores"]["Player A"] for g in games),
                    "s_L": fmean(g["scores"]["Player B"] for g in games),
                    "hits_E": fmean(g["metrics"]["Player A"]["hits"] for g in games),
                    "hits_L": fmean(g["metrics"]["Player B"]["hits"] for g in games)})
    return out


def _mean(values: list[Any]) -> float | None:
    known = [v for v in values if v is not None]
    return fmean(known) if known else None


def pairs(rows: list[GameRow], roles: tuple[str, ...], measures: list[str]) -> list[dict[str, str | int | float | None]]:
    """Asymmetric games by who played each role: each role's mean score and the paper's further measures, one
    row per pair, as the cells of the paper's Tables 2, 3, 5 and 6 (s_P and s_R, s_T, s_Pr, b_T, b_Pr)."""
    cells: dict[tuple[str, ...], list[GameRow]] = {}
    for row in rows:
        cells.setdefault(tuple(row["cast"][r] for r in roles), []).append(row)
    out = []
    for cast, games in sorted(cells.items()):
        entry: dict[str, str | int | float | None] = {**dict(zip(roles, cast)), "games": len(games)}
        for role in roles:
            entry[f"score {role}"] = _mean([g["scores"][role] for g in games])
            for name in measures:
                entry[f"{name} {role}"] = _mean([(g.get("metrics") or {}).get(role, {}).get(name) for g in games])
        out.append(entry)
    return out


def _measures(rows: list[GameRow], by_role: bool = False) -> dict[str, dict[str, float]]:
    """Each task's further numbers per player (or `player/role`): means of numbers, pass rates of sandbox runs."""
    sums: dict[str, dict[str, list[float]]] = {}
    for row in rows:
        for seat, player in row["cast"].items():
            into = sums.setdefault(f"{player}/{seat}" if by_role else player, {})
            for name, value in (row.get("metrics") or {}).get(seat, {}).items():
                if isinstance(value, dict) and "status" in value:
                    into.setdefault(f"{name} passed", []).append(1.0 if value["status"] == "passed" else 0.0)
                elif isinstance(value, (int, float)) and not isinstance(value, bool):
                    into.setdefault(name, []).append(float(value))
    return {p: {k: sum(v) / len(v) for k, v in sorted(m.items())} for p, m in sorted(sums.items())}


def _stat(s: MeanInterval) -> str:
    if s["mean"] is None:
        return "-"
    if s["half_width"] is None:
        return f"{s['mean']:.3f} (n {s['n']})"
    return f"{s['mean']:.3f} ± {s['half_width']:.3f} (n {s['n']})"


def sections(summary: Summary) -> list[Section]:
    s = summary
    out = [Section("Scores", _scores(s))]
    if not s["symmetric"]:
        out.append(Section("Model x role", _matrix(s)))
    out.append(Section("Convergence", _convergence(s)))
    if s.get("positions"):
        out.append(Section("Early x late", _positions(s)))
    if s.get("pairs"):
        out.append(Section("Pairs", _pairs(s)))
    if s.get("role_measures"):
        out.append(Section("Other measures by role", _other_by_role(s)))
    elif any(s["measures"].values()):
        out.append(Section("Other measures", _other(s)))
    body = s["transcript"][:TRANSCRIPT_CHARS] + ("\n..." if len(s["transcript"]) > TRANSCRIPT_CHARS else "")
    out.append(Section("A game (repetition 1)", md_fence(body)))
    return out


def _scores(s: Summary) -> str:
    kind = "symmetric: every player the same role" if s["symmetric"] else "asymmetric: pooled over roles here"
    how = ", ".join(f"{k}={v}" for k, v in s.get("scoring", {}).items())
    lines = [f"Task `{s['task']}` ({kind}); score: {s['unit']} per game" + (f" ({how})" if how else "") + ". "
             f"{s['repetitions']} repetitions, "
             f"{s['games']} games; ends: " + ", ".join(f"{k} {v}" for k, v in sorted(s["ends"].items())) + "; moves "
             "read by " + ", ".join(f"{k} {v}" for k, v in sorted(s.get("parsed_by", {}).items())) + ".", "",
             "| player | model | mean | 95% interval | games |", "|---|---|---|---|---|"]
    for player, p in s["players"].items():
        interval = f"[{p['interval'][0]:.3f}, {p['interval'][1]:.3f}]" if p["interval"] else "-"
        mean = f"{p['mean']:.3f}" if p["mean"] is not None else "-"
        lines.append(f"| {player} | {p['model']} | {mean} | {interval} | {p['n']} |")
    if s.get("isolation"):
        lines += ["", f"Model-written code ran under isolation: {s['isolation']} (docs/security.md)."]
    return "\n".join(lines)


def _matrix(s: Summary) -> str:
    roles = s["roles"]
    lines = ["Mean score of each model in each role (± 95% half-width, n games); the paper's theta_il.", "",
             "| player | model | " + " | ".join(roles) + " |", "|---|---|" + "---|" * len(roles)]
    for player, cells in s["matrix"].items():
        row = [_stat(cells[r]) if r in cells else "-" for r in roles]
        lines.append(f"| {player} | {s['players'][player]['model']} | " + " | ".join(row) + " |")
    return "\n".join(lines)


def _convergence(s: Summary) -> str:
    if s.get("scoring", {}).get("repeat") == "fixed":
        verdict = (f"a fixed {s['max_runs']} repetitions (`repeat=fixed`, the paper's way); judgeagent's stopping "
                   f"rule at epsilon {s['epsilon']:g} " + ("would have been met: every 95% interval half-width is "
                   "below it" if s["converged"] else "was not met: some 95% interval half-width is not below it, "
                   "or fewer than min_runs repetitions were played"))
    else:
        verdict = (f"epsilon {s['epsilon']:g}: " + ("every 95% interval half-width is below epsilon" if s["converged"]
                   else f"stopped at max_runs {s['max_runs']} before every half-width fell below epsilon"))
    keys = [k for k in (s["running"][-1] if s["running"] else {}) if k != "repetition"]
    lines = [f"{verdict}. Running mean after each repetition:", "",
             "| repetition | " + " | ".join(keys) + " |", "|---|" + "---|" * len(keys)]
    for entry in s["running"]:
        lines.append(f"| {entry['repetition']} | " + " | ".join(
            f"{entry[k]:.3f}" if entry.get(k) is not None else "-" for k in keys) + " |")
    return "\n".join(lines)


def _positions(s: Summary) -> str:
    lines = ["Pairwise games by speaking order, as the paper's Tables 1 and 4: s_E and s_L are the early and the "
             "late player's mean score (winning rate; a draw 0.5 each), hits their mean valid idioms per game.", "",
             "| early | late | games | s_E | s_L | hits_E | hits_L |", "|---|---|---|---|---|---|---|"]
    for p in s["positions"]:
        lines.append(f"| {p['early']} | {p['late']} | {p['games']} | {p['s_E']:.2f} | {p['s_L']:.2f} | "
                     f"{p['hits_E']:.2f} | {p['hits_L']:.2f} |")
    return "\n".join(lines)


def _pairs(s: Summary) -> str:
    keys = [k for k in s["pairs"][0] if k not in (*s["roles"], "games")]
    lines = ["Each pair of players, by role: the cells of the paper's tables (Table 2 for code, Tables 3, 5 and 6 "
             "for translation), the mean over the pair's games.", "",
             "| " + " | ".join(s["roles"]) + " | games | " + " | ".join(keys) + " |",
             "|" + "---|" * (len(s["roles"]) + 1 + len(keys))]
    for p in s["pairs"]:
        cells = [f"{p[k]:.3f}" if p[k] is not None else "-" for k in keys]
        lines.append("| " + " | ".join(p[r] for r in s["roles"]) + f" | {p['games']} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def _other_by_role(s: Summary) -> str:
    table = s["role_measures"]
    keys = sorted({k for roles in table.values() for m in roles.values() for k in m})
    lines = ["Per player and role, the mean over its games (BLEU on the paper's 0-1 scale, chrF 0-100; `pass@1 "
             "round k`: the code standing after the programmer's k-th turn passes its tests).", "",
             "| player | role | " + " | ".join(keys) + " |", "|---|---|" + "---|" * len(keys)]
    for player, roles in table.items():
        for role in s["roles"]:
            m = roles.get(role, {})
            lines.append(f"| {player} | {role} | " + " | ".join(f"{m[k]:.3f}" if k in m else "-" for k in keys) + " |")
    return "\n".join(lines)


def _other(s: Summary) -> str:
    keys = sorted({k for m in s["measures"].values() for k in m})
    lines = ["Per player, the mean over its games.", "", "| player | " + " | ".join(keys) + " |",
             "|---|" + "---|" * len(keys)]
    for player, m in s["measures"].items():
        lines.append(f"| {player} | " + " | ".join(f"{m[k]:.3f}" if k in m else "-" for k in keys) + " |")
    return "\n".join(lines)
