"""Benchmark `evaluate`'s orchestration with every role on a fixed-latency loopback server.

    .venv/bin/python bench/evaluate.py [--questions 200] [--concurrency 8] [--latency 0.1] [--protocol interviewer]

On 200 MultiHop-RAG questions (medium split) and the graph of the small split's documents:
1. wall time / (total calls x L / C), target <= 1.25, with calls and tokens per base question per role;
2. the finished run again: model calls made (target 0);
3. a second target on the same batches: question-generation calls made (target 0);
4. our process's CPU per base question by stage (encoder, spaCy, path sampling, cloze, answer checking, and
   the rest of the event loop: the client and the orchestration), `time.thread_time` of the thread that ran it.
The server runs in its own process, as a real endpoint does; spaCy and the encoder are loaded before the clock
starts (a process loads them once; their loading time is printed apart). The server's replies are scripted (targets echo, the judge says wrong, the interviewer writes a
question from a word of the fragments): this measures scheduling, not answers.

With `--protocol interviewer`: the LLM-as-an-Interviewer protocol with default options on the same
questions (no graph), every role on the same server, and the same ratio (1). The replies follow the
interviewer's prompts so that each episode runs its whole dialogue: the paraphrase is accepted, a third
of the items is solved at once, a third after feedback and a third never, each gets its follow-ups.
With `--protocol kieval` (the same questions, no graph) and `--protocol teach2eval` (MedQA medium: it teaches
multiple-choice items), the same for those protocols, every role on the one model: KIEval's items all pass
verification and every dialogue runs all its rounds (the evaluator never stops one), Teach2Eval's lessons run
all their turns (a third of the students right at once, a third after guidance, a third never).
"""
from __future__ import annotations

import argparse
import json
import os
import re
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, NamedTuple

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
from bench.shared_data import find_data, require

DATA = find_data() / "multihop_rag"


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
    parser.add_argument("--protocol", choices=("judgeagent", "interviewer", "kieval", "teach2eval"),
                        default="judgeagent")
    parser.add_argument("--cold", action="store_true",
                        help="protocol modes: leave the answer checker's spaCy to load inside the run, as in a fresh "
                             "process (by default it is loaded before the clock, its time printed apart)")
    parser.add_argument("--graph", type=Path, default=None,
                        help="a graph already built from the small split's documents (else built here, minutes); "
                             "lets one graph serve several runs, e.g. of two checkouts")
    args = parser.parse_args()
    require(DATA.parent)
    if args.protocol != "judgeagent":
        protocol_mode(args)
        return

    import openai  # noqa: F401  # its import (about 1.3 s here) is the process's, not the orchestration's

    from judgeagent import EvalConfig, build_graph, load_benchmark, load_graph
    from judgeagent.models import ModelSpec
    from judgeagent.models.spec import Registry
    from judgeagent.protocols.judgeagent.evaluate import evaluate

    bench = load_benchmark(DATA / "medium.questions.jsonl", limit=args.questions)
    with tempfile.TemporaryDirectory() as tmp, _Server(args.latency, reply) as server:
        graph = load_graph(args.graph) if args.graph else build_graph(DATA / "small.docs.jsonl", Path(tmp) / "graph")
        spec = dict(base_url=server.base_url, model="fake", max_concurrency=args.concurrency)
        registry = Registry({"fake": ModelSpec(name="fake", **spec),
                             "second": ModelSpec(name="second", **{**spec, "model": "fake-2"})})
        config = EvalConfig()
        run = lambda target, name: evaluate(bench, graph, target, interviewer="fake", judge="fake",  # noqa: E731
                                            config=config, run_dir=Path(tmp) / name, registry=registry,
                                            cache_dir=Path(tmp) / "cache")
        loading = _warm(graph, config)
        stages = StageClock()
        load = os.getloadavg()[0]
        with stages:
            start = time.perf_counter()
            first = run("fake", "a")
            wall = time.perf_counter() - start
        calls, _ = server.counts()
        resume_start = time.perf_counter()
        again = run("fake", "a")
        resume_wall = time.perf_counter() - resume_start
        rerun_calls = server.counts()[0] - calls
        before, generation_before = server.counts()
        second_start = time.perf_counter()
        run("second", "b")
        second_wall = time.perf_counter() - second_start
        after, generation_after = server.counts()

    ideal = calls * args.latency / args.concurrency
    n = len(bench.items)
    print(f"{n} base questions, batches of {config.batch_size}, {config.rounds} rounds, latency "
          f"{args.latency * 1000:.0f} ms, concurrency {args.concurrency}; load average {load:.2f} at start, "
          f"{os.getloadavg()[0]:.2f} at end (1 min)")
    print(f"calls {calls}: wall {wall:.1f} s, ideal {ideal:.1f} s (spaCy and encoder loaded before: {loading:.1f} s)")
    print(f"RATIO wall / ideal: {wall / ideal:.3f} (target <= 1.25)")
    stages.report(n)
    for role, u in first.usage.items():
        print(f"  {role:<12} calls/base question {u['calls'] / n:.2f}  tokens in/out per base question "
              f"{u['input_tokens'] / n:.0f}/{u['output_tokens'] / n:.0f}")
    print(f"rerun of the finished run: {rerun_calls} model calls (target 0), {resume_wall:.2f} s; summary equal: "
          f"{again.summary['overall_score'] == first.summary['overall_score']}")
    print(f"second target: {generation_after - generation_before} question-generation calls (target 0); "
          f"{after - before} calls in all")
    second_ideal = (after - before) * args.latency / args.concurrency
    print(f"RATIO second target wall / ideal (the questions' vectors and mentions read from the cache folder): "
          f"{second_wall:.1f} s / {second_ideal:.1f} s = {second_wall / second_ideal:.3f}")


def _warm(graph: Any, config: Any) -> float:
    """Load the questions' spaCy and encoder before the clock starts (seconds, printed apart): a process
    loads them once (`protocol._question_models`), and the ratio measures keeping up with the model."""
    from judgeagent.protocols.judgeagent.protocol import _sampler

    start = time.perf_counter()
    _sampler(graph, config).sample(["Which company reported the earnings?"], hops=1)
    return time.perf_counter() - start


class StageClock:
    """CPU seconds per stage of the online stage, by the thread that spent them (`time.thread_time`), each
    stage's own time (a stage inside another, spaCy inside path sampling, counts for the inner one only).
    The stages are wrapped here, in the benchmark, so that the library carries no timing code."""

    def __init__(self) -> None:
        import threading

        from judgeagent.embedding import Encoder
        from judgeagent.entities import SpacyExtractor
        from judgeagent.grading import answers
        from judgeagent.protocols.judgeagent import batch

        self.seconds: dict[str, float] = {}
        self.calls: dict[str, int] = {}
        self._local = threading.local()
        self._targets = [(Encoder, "encode", "encoder"), (SpacyExtractor, "extract", "spaCy"),
                         (batch, "_path", "sampling"), (batch, "_cloze", "cloze"),
                         (answers, "check_free_text", "checking"), (answers, "check_options", "checking")]
        self._saved: list[tuple[Any, str, Any]] = []

    def _wrap(self, fn: Any, stage: str) -> Any:
        def timed(*args: Any, **kwargs: Any) -> Any:
            self.calls[stage] = self.calls.get(stage, 0) + 1
            stack = self._local.__dict__.setdefault("stack", [])
            stack.append(0.0)  # time spent in stages nested in this one
            start = time.thread_time()
            try:
                return fn(*args, **kwargs)
            finally:
                spent = time.thread_time() - start
                nested = stack.pop()
                self.seconds[stage] = self.seconds.get(stage, 0.0) + spent - nested
                if stack:
                    stack[-1] += spent
        return timed

    def __enter__(self) -> StageClock:
        for owner, name, stage in self._targets:
            fn = getattr(owner, name)
            self._saved.append((owner, name, fn))
            setattr(owner, name, self._wrap(fn, stage))
        self._loop_start, self._process_start = time.thread_time(), time.process_time()
        return self

    def __exit__(self, *exc: Any) -> None:
        self.loop = time.thread_time() - self._loop_start  # this thread runs the event loop
        self.process = time.process_time() - self._process_start
        for owner, name, fn in reversed(self._saved):
            setattr(owner, name, fn)

    def report(self, n: int) -> None:
        on_loop = self.seconds.get("cloze", 0.0) + self.seconds.get("checking", 0.0)
        rows = {**{k: self.seconds.get(k, 0.0) for k in ("encoder", "spaCy", "sampling", "cloze", "checking")},
                "client and orchestration (event loop, rest)": self.loop - on_loop}
        print(f"CPU per base question (ms), our process {1000 * self.process / n:.1f}: "
              + ", ".join(f"{k} {1000 * v / n:.1f}" for k, v in rows.items()))
        print("  calls: " + ", ".join(f"{k} {v}" for k, v in self.calls.items()))


class _Server:
    """The loopback server in its own process, as a real endpoint is (bench/models.py): in ours it would
    share the GIL, and its CPU would count as ours. `counts()` is (requests, question-generation requests)."""

    def __init__(self, latency: float, script: Any) -> None:
        import multiprocessing

        self._conn, theirs = multiprocessing.Pipe()
        self._process = multiprocessing.get_context("fork").Process(target=_serve, args=(latency, script, theirs))

    def __enter__(self) -> _Server:
        self._process.start()
        self.base_url = self._conn.recv()
        return self

    def counts(self) -> tuple[int, int]:
        self._conn.send("counts")
        return self._conn.recv()

    def __exit__(self, *exc: Any) -> None:
        self._conn.send("stop")
        self._process.join()


class InterviewScript:
    """Replies to the Interviewer protocol's prompts, as a function of the request alone."""

    def __init__(self, items: list[Any]) -> None:
        self.gold = {i.question: i.gold for i in items}
        self.gold.update({self.paraphrase(i.question): i.gold for i in items})

    @staticmethod
    def paraphrase(question: str) -> str:  # half the words: far enough from the original for the copy check
        words = question.split()
        return "Tell me, in short: " + " ".join(words[:max(3, len(words) // 2)]) + "?"

    def __call__(self, request: dict[str, Any]) -> str:
        messages = request["messages"]
        system, user = messages[0]["content"], messages[-1]["content"]
        if system.startswith("You are being interviewed"):
            return self.interviewee(messages)
        if "prepare interview questions" in system:
            return json.dumps({"question": self.paraphrase(user.split("Original question: ", 1)[1].split("\n")[0])})
        if system.startswith("Answer the question"):
            return self.gold.get(user.removeprefix("Question: "), "unknown")
        if "feedback on a wrong answer" in system:
            return json.dumps({"error_type": "knowledge", "feedback": "Check the facts the question names."})
        if "clarifying question" in system:
            return "Take the most common reading."
        if "follow-up questions" in system:
            return json.dumps({"question": "What makes you sure of that?"})
        if "grade an interviewee" in system:
            return json.dumps({"reasoning": "scripted", "adequate": "because" in user.rsplit("Reply: ", 1)[-1]})
        if "interview report" in system:
            return "The interviewee was scripted."
        return reply(request)

    def interviewee(self, messages: list[dict[str, Any]]) -> str:
        question = messages[1]["content"]
        answered = sum(1 for m in messages if m["role"] == "assistant")
        if answered and "sure" in messages[-1]["content"]:
            return "Because the sources say so."
        kind = sum(map(ord, question)) % 3  # 0: solved at once, 1: after feedback, 2: never
        if kind == 0 or (kind == 1 and answered):
            return self.gold.get(question, "unknown") + "\nIt is in the sources."
        return "Nobody\nA guess."


def _kind(question: str) -> int:
    """0: right at once, 1: right later (after feedback or guidance), 2: never; a third of the items each."""
    return sum(map(ord, question)) % 3


class KIEvalScript:
    """Replies to KIEval's prompts, as a function of the request alone: the interactor and the evaluator verify
    every item (they give the gold), the candidate answers two thirds right, the interactor asks, and the
    evaluator scores every turn and never stops, so that every dialogue runs all its rounds. As the judge the
    evaluator accepts an answer that contains a reference (so it passes its calibration)."""

    def __init__(self, items: list[Any]) -> None:
        self.gold = {i.question: i.gold for i in items}

    def __call__(self, request: dict[str, Any]) -> str:
        messages = request["messages"]
        system, user = messages[0]["content"], messages[-1]["content"]
        if system.startswith("Answer the question."):  # verification, by the interactor and the evaluator
            return self.gold.get(user, "unknown")
        if system.startswith("You are a helpful assistant"):
            return self.candidate(messages)
        if system.startswith("As an expert interviewer"):
            asked = user.count("[BEGIN INTERACTOR]")
            return f"What in the sources supports that, and why would it hold (question {asked})?"
        if system.startswith("You are an objective evaluator"):
            return self.evaluation(user)
        if system.startswith("You grade answers against a reference answer"):
            return self.judge(user)
        return reply(request)

    def candidate(self, messages: list[dict[str, Any]]) -> str:
        if len(messages) > 2:  # a round's reply to the interactor
            return f"Because the reports say so; I checked {len(messages) // 2} of them."
        question = messages[1]["content"].split("\n\nPut your final answer", 1)[0]
        if _kind(question) == 2:
            return "Nobody\nA guess."
        return self.gold.get(question, "unknown") + "\nIt is in the sources."

    @staticmethod
    def evaluation(user: str) -> str:
        score = 2 + len(user) % 3
        aspect = {"comment": "The reply is on topic and plain.", "score": score}
        return json.dumps({**{a: aspect for a in ("accuracy", "logic", "relevance", "coherence", "conciseness")},
                           "overall_comment": "A steady candidate.", "overall_score": score,
                           "stop_conversation": False, "stop_reason": "none"})

    @staticmethod
    def judge(user: str) -> str:
        from judgeagent.grading.text import normalise_answer

        reference = user.split("Reference answer: ", 1)[1].split("\n\nCandidate answer: ", 1)[0]
        answer = user.split("\n\nCandidate answer: ", 1)[1].rsplit("\n\n", 1)[0]
        first, _, more = reference.partition(" (also acceptable: ")
        golds = [first, *(more.removesuffix(")").split("; ") if more else [])]
        said = normalise_answer(answer)
        correct = any(normalise_answer(g) and normalise_answer(g) in said for g in golds)
        return json.dumps({"reasoning": f"The candidate {'gives' if correct else 'does not give'} {golds[0]}.",
                           "correct": correct})


class Teach2EvalScript:
    """Replies to Teach2Eval's prompts, as a function of the request alone: a third of the students answer right
    at once, a third after the first guidance, a third never; the teacher judges each solution truly and guides
    without giving the answer away. Teacher and students are one model here, so the teacher's own test asks what
    the student's first answer asks and gets the same reply."""

    def __init__(self, items: list[Any]) -> None:
        self.items = {i.question: i for i in items}

    def __call__(self, request: dict[str, Any]) -> str:
        messages = request["messages"]
        system, user = messages[0]["content"], messages[-1]["content"]
        if system.startswith("Answer the multiple-choice question"):
            return self.student(user)
        if system.startswith("You are a teacher"):
            question = messages[1]["content"].removeprefix("Question: ").split("\n\nThe student's ", 1)[0]
            item = self.items[question]
            chosen = user.split("Answer chosen: ", 1)[1].split("\n", 1)[0]
            verdict = "Correct" if chosen == item.options[item.gold_letter] else "Wrong"
            turn = len(messages) // 2  # a guidance of its own each turn, as a teacher writes: no cached reply
            return (f"Correctness of the latest solution: {verdict}\nGuidance {turn}: Read again what the question "
                    "asks, then weigh each option against the findings it gives.")
        return reply(request)

    def student(self, user: str) -> str:
        item = self.items[user.removeprefix("Question: ").split("\nOptions:\n", 1)[0]]
        kind, revised = _kind(item.question), "Your teacher's guidance:" in user
        right = kind == 0 or (kind == 1 and revised)
        wrong = next(k for k in item.options if k != item.gold_letter)
        return f"I weighed the options against the findings.\nAnswer: {item.gold_letter if right else wrong}"


def _serve(latency: float, script: Any, conn: Any) -> None:
    from judgeagent.models.testserver import FakeServer

    with FakeServer(latency=latency, reply=script) as server:
        conn.send(server.base_url)
        while conn.recv() == "counts":  # until told to stop
            conn.send((server.counts["requests"], _generation_requests(server)))


class CallClock:
    """When each model call was in flight, as the client saw it (the bound held, the HTTP round trip): splits the
    wall time into the start (before the first call), the calls, and the tail (the last stretch with fewer than
    `concurrency` calls in flight, the summary and report after the last call included). Wrapped here, in the benchmark, so that the library carries no timing code."""

    def __init__(self, concurrency: int) -> None:
        self.concurrency = concurrency
        self.spans: list[tuple[float, float]] = []

    def __enter__(self) -> CallClock:
        from judgeagent.models.client import OpenAIChatModel

        self._chat = chat = OpenAIChatModel._chat

        async def timed(model: Any, *args: Any, **kwargs: Any) -> Any:
            start = time.perf_counter()
            try:
                return await chat(model, *args, **kwargs)
            finally:
                self.spans.append((start, time.perf_counter()))

        OpenAIChatModel._chat = timed  # type: ignore[method-assign]
        self.start = time.perf_counter()
        return self

    def __exit__(self, *exc: Any) -> None:
        from judgeagent.models.client import OpenAIChatModel

        self.end = time.perf_counter()
        OpenAIChatModel._chat = self._chat  # type: ignore[method-assign]

    def report(self) -> str:
        if not self.spans:
            return "no model call"
        first = min(s for s, _ in self.spans)
        busy = sum(e - s for s, e in self.spans)
        return (f"first call after {first - self.start:.2f} s; a call took {1000 * busy / len(self.spans):.0f} ms "
                f"on average as the client saw it; {busy / (self.end - first):.2f} calls in flight on average "
                f"(bound {self.concurrency}); last {self.end - self._full_until():.2f} s with fewer than the bound, "
                f"of which {self.end - max(e for _, e in self.spans):.2f} s after the last call (summary, report)")

    def _full_until(self) -> float:
        """The last moment at which `concurrency` calls were in flight."""
        events = sorted([(s, 1) for s, _ in self.spans] + [(e, -1) for _, e in self.spans])
        level, last = 0, events[0][0]
        for t, step in events:
            level += step
            if level >= self.concurrency:
                last = t
        return last


@dataclass(frozen=True)
class Measured:
    """A protocol's run timed with every role on the loopback server, and the finished run made again."""

    first: Any
    again: Any
    calls: int
    rerun_calls: int
    wall: float
    cpu: float
    """Our process's CPU seconds in the first run (client and protocol; the server runs in another process)."""
    load: tuple[float, float]
    """The 1-minute load average at the start and at the end."""
    clock: CallClock
    loading: float
    """Seconds spent loading the answer checker's spaCy before the clock started."""


def _measure(args: argparse.Namespace, script: Any, run: Any) -> Measured:
    """`run(registry, folder)` with one model, "fake", on a server of `args.latency` in its own process and one
    bound of `args.concurrency` for every role; then the same run again, which must make no call."""
    import openai  # noqa: F401  # its import (about 1.3 s here) is the process's, not the orchestration's

    from judgeagent.models import ModelSpec
    from judgeagent.models.spec import Registry

    loading = 0.0 if args.cold else _load_checker()
    load = os.getloadavg()[0]
    with tempfile.TemporaryDirectory() as tmp, _Server(args.latency, script) as server:
        registry = Registry({"fake": ModelSpec(name="fake", base_url=server.base_url, model="fake",
                                               max_concurrency=args.concurrency)})
        start, cpu = time.perf_counter(), time.process_time()
        with CallClock(args.concurrency) as clock:
            first = run(registry, Path(tmp))
        wall, cpu = time.perf_counter() - start, time.process_time() - cpu
        calls = server.counts()[0]
        again = run(registry, Path(tmp))
        rerun_calls = server.counts()[0] - calls
    return Measured(first, again, calls, rerun_calls, wall, cpu, (load, os.getloadavg()[0]), clock, loading)


def _load_checker() -> float:
    """Load the answer checker's spaCy (word forms) before the clock starts (seconds, printed apart): a process
    loads it once, at its first free-text check that no cheaper rule decides, as `_warm` loads JudgeAgent's."""
    from judgeagent.grading.forms import stems

    start = time.perf_counter()
    stems("Which company reported the earnings?")
    return time.perf_counter() - start


def _print_ratio(args: argparse.Namespace, what: str, m: Measured) -> None:
    ideal = m.calls * args.latency / args.concurrency
    print(f"{what} (default options), latency {args.latency * 1000:.0f} ms, concurrency {args.concurrency}; "
          f"load average {m.load[0]:.2f} at start, {m.load[1]:.2f} at end (1 min)")
    print(f"calls {m.calls}: wall {m.wall:.1f} s, ideal {ideal:.1f} s (the answer checker's spaCy "
          + ("loaded inside the run)" if args.cold else f"loaded before: {m.loading:.1f} s)"))
    print(f"RATIO wall / ideal: {m.wall / ideal:.3f} (target <= 1.25)")
    print(f"our process's CPU {m.cpu:.1f} s, {1000 * m.cpu / m.calls:.1f} ms per call (client and protocol; the "
          "server runs in another process)")
    print(f"  {m.clock.report()}")


def _print_roles(m: Measured, n: int) -> None:
    for role, u in m.first.usage.items():
        print(f"  {role:<12} calls/item {u['calls'] / n:.2f}")


class Mode(NamedTuple):
    """A protocol's benchmark mode: its data, the roles' models, its scripted replies and what it prints."""

    data: str
    """The benchmark, under the data folder: one whose items the protocol takes (Teach2Eval: multiple choice)."""
    models: dict[str, str]
    script: Any
    """items -> a function of the request alone that follows the protocol's prompts through whole dialogues."""
    describe: Any
    """summary -> one line that shows the dialogues ran whole."""


def protocol_mode(args: argparse.Namespace) -> None:
    """`--protocol interviewer | kieval | teach2eval`: the protocol's ratio (1) and its rerun (2)."""
    from judgeagent import load_benchmark
    from judgeagent.protocols import get_protocol, run_protocol

    mode = MODES[args.protocol]
    bench = load_benchmark(DATA.parent / mode.data / "medium.questions.jsonl", limit=args.questions)
    run = lambda registry, tmp: run_protocol(args.protocol, bench, models=mode.models,  # noqa: E731
                                             run_dir=tmp / "run", registry=registry, cache_dir=tmp / "cache")
    m = _measure(args, mode.script(bench.items), run)
    n = len(bench.items)
    _print_ratio(args, f"{n} items of {mode.data} medium, protocol {args.protocol}", m)
    print("  " + mode.describe(m.first.summary))
    _print_roles(m, n)
    headline = get_protocol(args.protocol).headline
    print(f"rerun of the finished run: {m.rerun_calls} model calls (target 0); summary equal: "
          f"{headline(m.again.summary) == headline(m.first.summary)}")


def _interviewer_line(s: dict[str, Any]) -> str:
    return ("  ".join(f"Score{k} {v:.3f}" for k, v in s["score_at"].items()) + f"  modified {s['modified']}, "
            f"follow-ups {s['followup']['all']['n']}")


def _kieval_line(s: dict[str, Any]) -> str:
    return (f"conversations {s['conversations']} of {s['items']}, valid rounds {s['valid_rounds']:.2f} of "
            f"{s['rounds']}, early stops {s['early_stops']}, failed evaluations {s['failed_evaluations']}, "
            f"benchmark accuracy {s['benchmark_accuracy']:.3f}")


def _teach2eval_line(s: dict[str, Any]) -> str:
    by_turn = {seat: [round(a, 3) for a in x["accuracy_by_turn"]] for seat, x in s["per_student"].items()}
    return (f"lessons of {s['turns']} turns; students' accuracy by turn {by_turn}; teacher replies without a "
            f"judgment {s['unparsed_judgments']}/{s['teacher_turns']}, leaks redacted {s['leaks']}")


MODES = {
    "interviewer": Mode("multihop_rag", {"target": "fake"}, InterviewScript, _interviewer_line),
    "kieval": Mode("multihop_rag", {"target": "fake"}, KIEvalScript, _kieval_line),
    "teach2eval": Mode("medqa", {"target": "fake", "students": "fake"}, Teach2EvalScript, _teach2eval_line),
}
"""`--protocol` modes besides JudgeAgent's."""


def _generation_requests(server: Any) -> int:
    return sum(1 for body in server.bodies if "writing questions from the text fragments"
               in body["messages"][-1]["content"])


if __name__ == "__main__":
    main()
