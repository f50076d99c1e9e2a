"""`detect-contamination`: the Min-K% Prob and LM-loss detectors KIEval's paper compares with."""
from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated, Optional

import typer

from .app import app
from .fields import ConfigOption


@app.command("detect-contamination")
def detect_cmd(
    model: Annotated[str, typer.Option(help="The model to probe (name, local, provider:model): its endpoint must "
                                       "return prompt log-probabilities (vLLM); the embedded model is scored in process.")],
    benchmark: Annotated[str, typer.Option(help="Benchmark file or FORMAT:PATH (as evaluate takes it).")],
    k: Annotated[float, typer.Option(min=0.01, max=1.0, help="Min-K%: the share of lowest-probability tokens.")] = 0.2,
    limit: Annotated[Optional[int], typer.Option(min=1, help="Only the first N items.")] = None,
    out: Annotated[Optional[Path], typer.Option(help="Write each item's scores here (JSON lines).")] = None,
    config: ConfigOption = None,
) -> None:
    """Score each benchmark instance (question, options, gold) by the model's token log-probabilities: LM loss
    (lower: more familiar) and Min-K% Prob (higher: more likely seen in training), with their means."""
    import asyncio

    from ..benchmark import load_benchmark
    from ..files import write_text_atomic
    from ..models.spec import load_registry
    from ..protocols.kieval.detectors import instance_text, score_texts

    items = load_benchmark(benchmark, limit=limit).items
    spec = load_registry(config).resolve(model)
    texts = [(i.qid, instance_text(i.question, i.gold, i.options)) for i in items]
    if spec.gguf:  # in process: llama-cpp-python's server returns echo log-probabilities from the wrong rows
        from ..protocols.kieval.detectors import local_scores

        scores = local_scores(spec.gguf, texts, k)
    else:
        scores = asyncio.run(score_texts(spec, texts, k))
    if out is not None:
        write_text_atomic(out, "".join(json.dumps(s.to_dict()) + "\n" for s in scores))
    n = len(scores)
    typer.echo(f"{n} items, model {spec.name}: mean LM loss {sum(s.lm_loss for s in scores) / n:.4f} nats/token, "
               f"mean Min-{k:.0%} Prob {sum(s.min_k_prob for s in scores) / n:.4f}" + (f"; per item: {out}" if out else ""))
