"""Benchmark the model layer against a loopback server with a fixed latency; prints measured ratios.

    .venv/bin/python bench/models.py [--n 200] [--concurrency 8] [--latency 0.1]

1. N requests at concurrency C through the real openai SDK: wall time / ideal (N * L / C).
   Target <= 1.15. (One warm-up request first: SDK import and connection set-up are not the layer's cost.)
2. The same N again, served from the response cache: requests reaching the server (target 0) and
   wall time / the first run's (target < 0.05).
"""
from __future__ import annotations

import argparse
import asyncio
import json
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def _requests(base_url: str) -> int:
    with urllib.request.urlopen(f"{base_url}/stats") as response:
        return int(json.load(response).get("requests", 0))


async def _run(model, n: int) -> float:  # type: ignore[no-untyped-def]
    start = time.perf_counter()
    results = await asyncio.gather(*(model.complete([{"role": "user", "content": f"question {i}"}])
                                     for i in range(n)))
    assert all(r.ok for r in results)
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--n", type=int, default=200)
    parser.add_argument("--concurrency", type=int, default=8)
    parser.add_argument("--latency", type=float, default=0.1)
    args = parser.parse_args()

    from judgeagent.models import ModelSpec, OpenAIChatModel, ResponseCache
    from judgeagent.models.cache import CachedModel

    # The server runs in its own process, as a real endpoint does (in-process it would share our GIL).
    server = subprocess.Popen([sys.executable, "-m", "judgeagent.models.testserver", "--latency", str(args.latency)],
                              stdout=subprocess.PIPE, text=True, cwd=ROOT)
    try:
        base_url = server.stdout.readline().strip()  # type: ignore[union-attr]
        with tempfile.TemporaryDirectory() as tmp:
            spec = ModelSpec(name="bench", base_url=base_url, model="fake", max_concurrency=args.concurrency)
            model = CachedModel(OpenAIChatModel(spec), ResponseCache(tmp))

            async def both() -> tuple[float, float, int]:
                await model.complete([{"role": "user", "content": "warm-up"}])
                first = await _run(model, args.n)
                sent = _requests(base_url)
                again = await _run(model, args.n)
                return first, again, _requests(base_url) - sent

            first, again, resent = asyncio.run(both())
    finally:
        server.terminate()
        server.wait()

    ideal = args.n * args.latency / args.concurrency
    print(f"{args.n} requests, latency {args.latency * 1000:.0f} ms, concurrency {args.concurrency}: "
          f"{first:.2f} s, ideal {ideal:.2f} s")
    print(f"RATIO wall / ideal: {first / ideal:.3f} (target <= 1.15)")
    print(f"cached rerun: {again:.3f} s, requests sent to the server: {resent} (target 0)")
    print(f"RATIO cached rerun / first run: {again / first:.4f} (target < 0.05)")


if __name__ == "__main__":
    main()
