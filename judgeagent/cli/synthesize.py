"""`synthesize`: a verified, difficulty-graded question set from a graph, or aimed at a run's weak spots."""
from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated, Optional

import typer

from ..errors import Interrupted, JudgeAgentError
from ..limits import MAX_HOPS
from .app import app
from .fields import ConfigOption, every_tenth, first_error


@app.command("synthesize")
def synthesize_cmd(
    graph: Annotated[Path, typer.Argument(help="Context graph folder made by build-graph.")],
    out: Annotated[Path, typer.Option("--out", help="Dataset folder to write (run again to continue a stopped one).")],
    n: Annotated[int, typer.Option("--n", min=1, help="Items wanted, spread evenly over the difficulties.")] = 100,
    difficulty: Annotated[str, typer.Option(help="Comma-separated: easy (cloze, no model), medium, hard (the "
                                            "interviewer writes them).")] = "easy,medium,hard",
    interviewer: Annotated[Optional[str], typer.Option(help="Writes medium and hard items (name, local, provider:model).")] = None,
    from_run: Annotated[Optional[Path], typer.Option(help="Aim at this JudgeAgent run's weakest documents; "
                                                     "none of its questions comes back.")] = None,
    hops: Annotated[int, typer.Option(min=1, max=MAX_HOPS, help="Entities per knowledge path.")] = 3,
    seed: Annotated[int, typer.Option(min=0, help="Seed for anchors, paths and cloze choices.")] = 0,
    no_self_check: Annotated[bool, typer.Option("--no-self-check", help="Keep medium/hard items the interviewer "
                                                "has not answered itself from the path text.")] = False,
    max_slots_per_item: Annotated[float, typer.Option(min=1, help="Paths tried per item wanted before stopping short.")] = 4.0,
    config: ConfigOption = None,
    no_cache: Annotated[bool, typer.Option("--no-cache", help="Do not use the shared response cache.")] = False,
    cache_dir: Annotated[Optional[Path], typer.Option(help="Shared response cache folder.")] = None,
    dry_run: Annotated[bool, typer.Option("--dry-run", help="Print the calls, tokens and cost it would take; call nothing.")] = False,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="No progress lines.")] = False,
) -> None:
    """Synthesize a question set from GRAPH: easy cloze items, medium and hard items by the interviewer, all
    checked, near-duplicates removed; written as items.jsonl, items.parquet and a dataset card in --out."""
    from ..graph.store import load_graph
    from ..models.spec import load_registry
    from ..protocols.judgeagent.synthesis import SynthesisConfig, estimate, synthesize

    tiers = tuple(t.strip() for t in difficulty.split(",") if t.strip())
    wrong = [t for t in tiers if t not in ("easy", "medium", "hard")]
    if wrong or not tiers:
        raise JudgeAgentError(f"--difficulty {wrong[0] if wrong else difficulty!r} is not a difficulty; give easy, "
                              "medium and/or hard, comma-separated")
    try:
        settings = SynthesisConfig(n=n, difficulties=tiers, hops=hops, seed=seed,  # type: ignore[arg-type]
                                   self_check=not no_self_check, max_slots_per_item=max_slots_per_item)
    except ValueError as e:
        raise JudgeAgentError(f"--difficulty: {first_error(e)}") from None
    registry = load_registry(config)
    loaded = load_graph(graph)
    if dry_run:
        prices = registry.resolve(interviewer).prices if interviewer and settings.needs_model else None
        typer.echo(json.dumps(estimate(loaded, settings, prices), indent=2))
        return
    progress = None if quiet else every_tenth(lambda done, total: f"synthesize: {done}/{total} items")
    try:
        result = synthesize(loaded, out, settings, interviewer=interviewer, from_run=from_run, registry=registry,
                            cache_dir=cache_dir, cache=not no_cache, progress=progress)
    except KeyboardInterrupt:  # the journal keeps every finished call: the same command continues
        raise Interrupted(f"continue it with the same command (--out {out})") from None
    card = result.card
    kept = ", ".join(f"{c['difficulty']} {c['kept']}/{c['wanted']}" for c in card["checks"])
    cov = card["coverage"]
    typer.echo(f"{card['items']} items ({kept}); documents covered {cov['documents']}/{cov['reachable_documents']} "
               f"reached by the paths")
    if card["stopped"]:
        typer.echo(f"short: {card['stopped']}", err=True)
    typer.echo(f"dataset: {result.folder / 'items.jsonl'}, {result.folder / 'items.parquet'}\n"
               f"card: {result.folder / 'README.md'}")
