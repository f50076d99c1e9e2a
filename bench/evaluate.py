"""Benchmark `evaluate`'s orchestration with every role on a fixed-latency loopback server.

    .venv/bin/python bench/evaluate.py [--questions 200] [--concurrency 8] [--latency 0.1]

On 200 MultiHop-RAG questions (medium split) and the graph of the small split's documents:
1. wall time / (total calls x L / C), target <= 1.25, with calls and tokens per base question per role;
2. the finished run again: model calls made (target 0);
3. a second target on the same batches: question-generation calls made (target 0).
The server's replies are scripted (targets echo, the judge says wrong, the interviewer writes a
question from a word of the fragments): this measures scheduling, not answers.
"""
from __future__ import annotations

import argparse
import json
import re
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
DATA = ROOT.parent / "shared" / "data" / "multihop_rag"


def reply(request: dict[str, Any]) -> str:
    prompt = request["messages"][-1]["content"]
    if "writing questions from the text fragments" in prompt:
        fragments = prompt.split("Fragments:\n", 1)[1].split("\n\nWrite ", 1)[0]
        words = [w for w in re.findall(r"[A-Za-z]{5,}", fragments)] or ["nothing"]
        word = words[len(fragments) % len(words)]
        return json.dumps({"generated_question": [{"question": f"Which term in the report relates to {word}?",
                                                   "answer": word}]})
    if "how a model answered" in prompt:
        return json.dumps({k: "scripted" for k in ("flaws_knowledge", "flaws_capability",
                                                    "comprehensive_performance", "suggestions")})
    if request.get("response_format"):
        return json.dumps({"correct": False, "reason": "scripted"})
    return "echo: " + prompt[-80:]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--questions", type=int, default=200)
    parser.add_argument("--concurrency", type=int, default=8)
    parser.add_argument("--latency", type=float, default=0.1)
    args = parser.parse_args()

    from judgeagent import EvalConfig, build_graph, load_benchmark
    from judgeagent.interview.evaluate import evaluate
    from judgeagent.models import ModelSpec
    from judgeagent.models.spec import Registry
    from judgeagent.models.testserver import FakeServer

    with tempfile.TemporaryDirectory() as tmp, FakeServer(latency=args.latency, reply=reply) as server:
        graph = build_graph(DATA / "small.docs.jsonl", Path(tmp) / "graph")
        bench = load_benchmark(DATA / "medium.questions.jsonl", limit=args.questions)
        spec = dict(base_url=server.base_url, model="fake", max_concurrency=args.concurrency)
        registry = Registry({"fake": ModelSpec(name="fake", **spec),
                             "second": ModelSpec(name="second", **{**spec, "model": "fake-2"})})
        config = EvalConfig()
        run = lambda target, name: evaluate(bench, graph, target, interviewer="fake", judge="fake",  # noqa: E731
                                            config=config, run_dir=Path(tmp) / name, registry=registry,
                                            cache_dir=Path(tmp) / "cache")
        start = time.perf_counter()
        first = run("fake", "a")
        wall = time.perf_counter() - start
        calls = server.counts["requests"]
        again = run("fake", "a")
        rerun_calls = server.counts["requests"] - calls
        before = server.counts["requests"]
        generation_before = _generation_requests(server)
        run("second", "b")
        second_generation = _generation_requests(server) - generation_before

    ideal = calls * args.latency / args.concurrency
    n = len(bench.items)
    print(f"{n} base questions, batches of {config.batch_size}, {config.rounds} rounds, latency "
          f"{args.latency * 1000:.0f} ms, concurrency {args.concurrency}")
    print(f"calls {calls}: wall {wall:.1f} s, ideal {ideal:.1f} s")
    print(f"RATIO wall / ideal: {wall / ideal:.3f} (target <= 1.25)")
    for role, u in first.usage.items():
        print(f"  {role:<12} calls/base question {u['calls'] / n:.2f}  tokens in/out per base question "
              f"{u['input_tokens'] / n:.0f}/{u['output_tokens'] / n:.0f}")
    print(f"rerun of the finished run: {rerun_calls} model calls (target 0); summary equal: "
          f"{again.summary['overall_score'] == first.summary['overall_score']}")
    print(f"second target: {second_generation} question-generation calls (target 0); "
          f"{server.counts['requests'] - before} calls in all")


def _generation_requests(server: Any) -> int:
    return sum(1 for body in server.bodies if "writing questions from the text fragments"
               in body["messages"][-1]["content"])


if __name__ == "__main__":
    main()
