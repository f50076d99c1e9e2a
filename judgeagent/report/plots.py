"""Inline SVG charts: no JavaScript, no network, nothing that can fail to load."""
from __future__ import annotations

from html import escape

TIER_Y = {"easy": 0, "medium": 1, "hard": 2}
COLOURS = ["#4063d8", "#cb3c33", "#389826", "#9558b2", "#c07a00", "#1a8c8c"]


def bars(values: dict[str, float], title: str, width: int = 420, height: int = 220, as_percent: bool = True) -> str:
    """A bar chart of values in [0, 1]."""
    n = max(len(values), 1)
    left, bottom, top = 40, 40, 30
    bar_w = (width - left - 10) / n
    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" role="img" '
             f'aria-label="{escape(title)}"><text x="{width / 2}" y="18" text-anchor="middle" '
             f'font-size="13">{escape(title)}</text>',
             f'<line x1="{left}" y1="{height - bottom}" x2="{width - 5}" y2="{height - bottom}" stroke="#333"/>']
    span = height - bottom - top
    for i, (label, value) in enumerate(values.items()):
        v = max(0.0, min(1.0, value or 0.0))
        x, h = left + i * bar_w + 4, v * span
        parts.append(f'<rect x="{x:.1f}" y="{height - bottom - h:.1f}" width="{bar_w - 8:.1f}" height="{h:.1f}" '
                     f'fill="{COLOURS[i % len(COLOURS)]}"><title>{escape(label)}: {v:.3f}</title></rect>')
        shown = f"{100 * v:.0f}%" if as_percent else f"{v:.2f}"
        parts.append(f'<text x="{x + (bar_w - 8) / 2:.1f}" y="{height - bottom - h - 4:.1f}" text-anchor="middle" '
                     f'font-size="11">{shown}</text>')
        parts.append(f'<text x="{x + (bar_w - 8) / 2:.1f}" y="{height - bottom + 14}" text-anchor="middle" '
                     f'font-size="10">{escape(label[:18])}</text>')
    parts.append("</svg>")
    return "".join(parts)


def trajectories(series: dict[str, list[str]], title: str = "Tier trajectory per batch", width: int = 420,
                 height: int = 220) -> str:
    """One line per batch over the rounds, on the easy / medium / hard axis."""
    left, bottom, top = 60, 30, 30
    rounds = max((len(t) for t in series.values()), default=1)
    step = (width - left - 20) / max(rounds - 1, 1)
    span = height - bottom - top
    y = lambda tier: height - bottom - TIER_Y.get(tier, 0) * span / 2  # noqa: E731
    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" role="img" '
             f'aria-label="{escape(title)}"><text x="{width / 2}" y="18" text-anchor="middle" '
             f'font-size="13">{escape(title)}</text>']
    for tier in TIER_Y:
        parts.append(f'<text x="{left - 8}" y="{y(tier) + 4:.1f}" text-anchor="end" font-size="10">{tier}</text>'
                     f'<line x1="{left}" y1="{y(tier):.1f}" x2="{width - 10}" y2="{y(tier):.1f}" stroke="#ddd"/>')
    for i, (batch, tiers) in enumerate(series.items()):
        points = " ".join(f"{left + k * step:.1f},{y(t) + (i % 5) * 1.5:.1f}" for k, t in enumerate(tiers))
        colour = COLOURS[i % len(COLOURS)]
        parts.append(f'<polyline points="{points}" fill="none" stroke="{colour}" stroke-width="2">'
                     f'<title>batch {escape(batch)}</title></polyline>')
    for k in range(rounds):
        label = "grading" if k == 0 else f"round {k}"
        parts.append(f'<text x="{left + k * step:.1f}" y="{height - 10}" text-anchor="middle" font-size="10">{label}</text>')
    parts.append("</svg>")
    return "".join(parts)
