"""Report sections from `judgeagent.protocols.judgeagent.validity`: weak documents and entities ranked by failure rate, and
the ability estimate with its interval per batch."""
from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ....report.mdtext import md_cell

TOP = 15


def gap_sections(records: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """The data: weak documents and entities (`validity.gaps`), ability overall and per batch (`validity.irt`)."""
    from ..validity import run_ability, weak_documents, weak_entities

    ability = run_ability(records)
    return {"weak_documents": weak_documents(records)[:TOP], "weak_entities": weak_entities(records)[:TOP],
            "ability": ability["overall"], "batch_ability": ability["batches"]}


def ability_markdown(d: dict[str, Any]) -> list[str]:
    a = d["ability"]
    low, high = a.interval
    line = (f"**Ability** (Rasch, EAP over all {a.n} questions, default level difficulties "
            f"easy -1, medium 0, hard +1): {a.theta:+.2f} ± {a.se:.2f} (95% interval [{low:+.2f}, {high:+.2f}]).")
    return ["", line, ""] + [f"- batch {b}: ability {x.theta:+.2f} ± {x.se:.2f} over {x.n} questions"
                   for b, x in d["batch_ability"].items()]


def weak_markdown(d: dict[str, Any]) -> list[str]:
    intro = ("Documents and entities ranked by failure rate (questions are spread evenly over the documents "
             "and entities of their knowledge path; base questions count for the entities they name):")
    out = ["", intro, ""]
    for title, rows in (("document", d["weak_documents"]), ("entity", d["weak_entities"])):
        if not rows:
            out += [f"- (no {title} was on a question's path)", ""]
            continue
        out += [f"| {title} | questions | failed | failure rate |", "|---|---|---|---|"]
        out += [f"| {md_cell(w.name)} | {w.asked:.1f} | {w.failed:.1f} | {100 * w.rate:.0f}% |" for w in rows]
        out.append("")
    return out
