"""The model commands: models (the registry) and ping (one request)."""
from __future__ import annotations

from pathlib import Path
from typing import Annotated, Optional

import typer

from .app import app
from .fields import ConfigOption


@app.command("models")
def models_cmd(config: ConfigOption = None) -> None:
    """List the configured models (and the built-in `local`)."""
    import os

    from ..models.spec import load_registry

    registry = load_registry(config)
    typer.echo(f"config: {registry.source or 'none found (only built-in models)'}")
    typer.echo(f"{'name':<16} {'model':<28} {'base_url':<44} {'key':<22} {'conc':>4}  prices $/M in/out")
    for name in registry.names():
        spec = registry.models.get(name)
        if spec is None:
            typer.echo(f"{name:<16} {'SmolLM2-135M-Instruct (GGUF)':<28} {'embedded llama.cpp on 127.0.0.1':<44} "
                       f"{'-':<22} {1:>4}  0/0")
            continue
        key = "-" if not spec.api_key_env else f"{spec.api_key_env} ({'set' if os.environ.get(spec.api_key_env) else 'NOT SET'})"
        typer.echo(f"{name:<16} {spec.model:<28} {spec.base_url:<44} {key:<22} {spec.max_concurrency:>4}  "
                   f"{spec.prices.input:g}/{spec.prices.output:g}")


@app.command("ping")
def ping_cmd(
    model: Annotated[str, typer.Argument(help="A configured name, `local`, or provider:model.")],
    message: Annotated[str, typer.Option(help="What to send.")] = "Reply with one word: ready.",
    base_url: Annotated[Optional[str], typer.Option(help="An OpenAI-compatible endpoint for an ad-hoc model.")] = None,
    config: ConfigOption = None,
    no_cache: Annotated[bool, typer.Option("--no-cache", help="Always call the model.")] = False,
    cache_dir: Annotated[Optional[Path], typer.Option(help="Response cache folder.")] = None,
) -> None:
    """Send one request and print latency, tokens and the reply."""
    import asyncio
    import time

    from ..models import open_models
    from ..models.spec import load_registry

    async def once() -> None:
        with open_models(model, registry=load_registry(config), base_url=base_url,
                         cache_dir=cache_dir, cache=not no_cache) as models:
            start = time.perf_counter()
            try:
                result = await models.target.complete([{"role": "user", "content": message}])
            finally:
                await models.aclose()
            spec = models.specs["target"]
            typer.echo(f"model {spec.name} ({spec.endpoint()})")
            typer.echo(f"latency {time.perf_counter() - start:.2f} s{' (cached)' if result.cached else ''}  "
                       f"tokens in {result.usage.input_tokens} out {result.usage.output_tokens}")
            typer.echo(f"reply: {result.text.strip()}")
            typer.echo(models.ledger.render())

    asyncio.run(once())
