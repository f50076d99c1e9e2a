"""Scripted roles for orchestration tests: loopback servers whose replies follow a script, and the
kill-then-resume check the protocols' resume tests share (on in-process `FunctionModel`s).

The servers speak the real OpenAI protocol, so runs go through the real client, cache and journal;
only the answers are scripted (what a test of orchestration may fake, per the developers' guide).
"""
from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any, NamedTuple

import pytest

from judgeagent.models import ModelSpec
from judgeagent.models.spec import Registry
from judgeagent.models.testserver import FakeServer


class Script:
    """Shared state: the golds the target may know, and what the interviewer generated."""

    def __init__(self, target_right: bool | set[str] = True, leak: bool = False, bad_questions: bool = False) -> None:
        self.target_right = target_right
        self.golds: dict[str, str] = {}
        self.leak = leak
        self.bad_questions = bad_questions
        self.generation_prompts: list[str] = []
        self.bad_choices = False

    def knows(self, question: str) -> bool:
        if isinstance(self.target_right, bool):
            return self.target_right
        return any(q in question for q in self.target_right)

    # --- target ---------------------------------------------------------------------------------
    def target(self, request: dict[str, Any]) -> str:
        prompt = request["messages"][-1]["content"]
        if '{"response": [' in prompt:  # setting=authors: a batch in one prompt, a JSON list back
            return self._together(prompt)
        question = prompt.split("Question: ", 1)[-1].split("\n")[0].strip()
        return self._answer(question, dict(re.findall(r"^([A-Z])\. (.+)$", prompt, flags=re.M)))

    def _together(self, prompt: str) -> str:
        blocks = re.split(r"^Question \d+: ", prompt, flags=re.M)[1:]
        answers = []
        for block in blocks:
            options = dict(re.findall(r"^([A-Z])\. (.+)$", block, flags=re.M))
            answers.append(self._answer(block.split("\n")[0].strip(), options).split(".")[0] if options else
                           self._answer(block.split("\n")[0].strip(), {}))
        return json.dumps({"response": [{"answer": a} for a in answers]})

    def _answer(self, question: str, options: dict[str, str]) -> str:
        gold = self.golds.get(question)
        if options:
            letter = next((k for k, v in options.items() if v == gold), "A")
            wrong = next(k for k in options if k != letter)
            return f"{letter if self.knows(question) else wrong}. Because the passage says so."
        return (gold if gold and self.knows(question) else "I am not sure, perhaps Atlantis.")

    # --- interviewer and judge --------------------------------------------------------------------
    def interviewer(self, request: dict[str, Any]) -> str:
        prompt = request["messages"][0]["content"]
        if "writing questions from the text fragments" in prompt:
            return self._questions(prompt)
        if "writing multiple-choice questions from the text fragments" in prompt:
            return self._choices(prompt)
        if "how a model answered a series of questions" in prompt:
            return self._feedback(request["messages"][0]["content"])
        if prompt.startswith("Answer the multiple-choice question"):  # the self-check of a multiple-choice question
            return self._own_letter(request["messages"][-1]["content"])
        if prompt.startswith("Answer the question"):  # the self-check: it knows its own golds
            asked = request["messages"][-1]["content"].split("Question: ", 1)[-1].split("\n")[0].strip()
            return self.golds.get(asked, "I do not know.")
        if "means the same as" in prompt.lower() or "correct" in json.dumps(request.get("response_format", {})):
            return self._judge(request)
        return "{}"

    def _questions(self, prompt: str) -> str:
        self.generation_prompts.append(prompt)
        if self.bad_questions:
            return json.dumps({"generated_question": [{"question": "Why did that happen in the end?", "answer": "a very long answer " * 5}]})
        fragments = prompt.split("Fragments:\n", 1)[1].split("\n\nWrite ", 1)[0]
        words = [w.strip(".,;:()\"'") for w in fragments.split()]
        words = [w for w in words if len(w) > 3 and w.isalpha()]
        # A function of the prompt alone, as a model at temperature 0 is: concurrent batches reach the
        # server in any order, and a reply that depended on the order would differ between runs.
        pick = int(hashlib.sha256(prompt.encode()).hexdigest(), 16)
        answer = words[pick % len(words)] if words else "nothing"
        question = f"Which word appears in fragment {pick % 97} about {answer[:1]}?"
        self.golds[question] = answer
        return json.dumps({"generated_question": [{"question": question, "answer": answer}]})

    def _choices(self, prompt: str) -> str:
        """A multiple-choice question on a fragment word; with `bad_choices`, three options on a first attempt."""
        self.generation_prompts.append(prompt)
        fragments = prompt.split("Fragments:\n", 1)[1].split("\n\nWrite ", 1)[0]
        words = [w.strip(".,;:()\"'") for w in fragments.split()]
        words = sorted({w for w in words if len(w) > 3 and w.isalpha()})
        pick = int(hashlib.sha256(prompt.encode()).hexdigest(), 16)
        answer = words[pick % len(words)] if words else "nothing"
        question = f"Which word appears in fragment {pick % 97} about {answer[:1]}?"
        letter = "ABCD"[pick % 4]
        others = iter(["Atlantis", "Lemuria", "Hyperborea", "Shangri-La"])
        options = {k: answer if k == letter else next(others) for k in "ABCD"}
        if self.bad_choices and "Attempt " not in prompt:
            options.pop("D" if letter != "D" else "C")
        self.golds[question] = answer
        return json.dumps({"generated_question": [{"question": question, "options": options, "answer": letter}]})

    def _own_letter(self, user: str) -> str:
        question = user.split("Question: ", 1)[-1].split("\n")[0].strip()
        options = dict(re.findall(r"^([A-Z])\. (.+)$", user, flags=re.M))
        return next((k for k, v in options.items() if v == self.golds.get(question)), "A")

    def _feedback(self, prompt: str) -> str:
        golds = re.findall(r"correct answer: (?:[A-Z]\. )?(.+)", prompt)
        forbidden = "do not write any of" in prompt
        suggestion = "Read the question carefully and recall the key facts."
        if self.leak and golds and not forbidden:
            suggestion += f" The answer is {golds[0]}."
        return json.dumps({"flaws_knowledge": "gaps", "flaws_capability": "rushes", "comprehensive_performance": "fair",
                           "suggestions": suggestion})

    def _judge(self, request: dict[str, Any]) -> str:
        """A sound scripted judge: correct when the candidate contains the reference."""
        user = request["messages"][-1]["content"]
        reference = user.split("Reference answer: ", 1)[-1].split("\n")[0].split(" (also acceptable")[0]
        candidate = user.split("Candidate answer: ", 1)[-1].split("\n\n")[0]
        same = reference.strip().lower() in candidate.lower()
        return json.dumps({"reasoning": f"scripted judge: {'same' if same else 'different'} answer", "correct": same})


class Roles:
    """Two loopback servers (target; interviewer+judge) and a registry naming them."""

    def __init__(self, script: Script, target_fail_after: int | None = None) -> None:
        self.script = script
        self.target = FakeServer(reply=script.target, fail_after=target_fail_after)
        self.interviewer = FakeServer(reply=script.interviewer)

    def __enter__(self) -> "Roles":
        self.target.__enter__()
        self.interviewer.__enter__()
        return self

    def __exit__(self, *exc: object) -> None:
        self.target.__exit__(*exc)
        self.interviewer.__exit__(*exc)

    def registry(self, target_name: str = "tgt") -> Registry:
        return Registry({
            target_name: ModelSpec(name=target_name, base_url=self.target.base_url, model="target-model",
                                   max_concurrency=4, max_retries=0),
            "int": ModelSpec(name="int", base_url=self.interviewer.base_url, model="interviewer-model",
                             max_concurrency=4),
        })

    def write_config(self, path: Path, target_name: str = "tgt", keys: dict[str, str] | None = None) -> Path:
        """The registry as a judgeagent.toml, for runs through the CLI (`--config`); `keys` maps a model
        name to the variable its API key is read from."""
        lines = []
        for name, spec in self.registry(target_name).models.items():
            lines += [f"[models.{name}]", f'base_url = "{spec.base_url}"', f'model = "{spec.model}"',
                      f"max_concurrency = {spec.max_concurrency}", f"max_retries = {spec.max_retries}"]
            if keys and name in keys:
                lines.append(f'api_key_env = "{keys[name]}"')
        path.write_text("\n".join(lines) + "\n")
        return path

    def calls(self) -> int:
        return self.target.counts["requests"] + self.interviewer.counts["requests"]


# --- kill, then resume ------------------------------------------------------------------------------------

def kill_after(models: dict[str, Any], roles: tuple[str, ...], n: int) -> dict[str, Any]:
    """`models` (FunctionModels by role) with `roles` raising from their (n+1)-th call on, counted together: a
    process killed mid-run, whose unfinished calls never return."""
    made = {"n": 0}

    def killing(reply: Callable[..., Any]) -> Callable[..., Any]:
        def inner(messages: Any) -> Any:
            made["n"] += 1
            if made["n"] > n:
                raise RuntimeError(f"killed after {n} calls")
            return reply(messages)
        return inner

    for role in roles:
        models[role].reply = killing(models[role].reply)
    return models


class Resumed(NamedTuple):
    clean: Any  # the clean run's result
    resumed: Any  # the resumed run's result
    total: int  # calls the clean run made
    killed: int  # calls past the kill point: they never finished, so only they may be made again
    repeated: int  # calls of the killed and the resumed run beyond the clean run's and the killed ones
    left: set[str]  # what the kill left in the run folder


def kill_then_resume(tmp_path: Path, run: Callable[[dict[str, Any], Path], Any],
                     make_models: Callable[[], dict[str, Any]], fail: str | tuple[str, ...], fail_after: int) -> Resumed:
    """`run(models, folder)` clean into tmp_path/clean; into tmp_path/run with the `fail` role(s) killed after
    `fail_after` calls (the run must raise); into tmp_path/run again with fresh models, resuming. The test asserts
    on the counts."""
    roles = (fail,) if isinstance(fail, str) else fail
    clean_models = make_models()
    clean = run(clean_models, tmp_path / "clean")
    total = sum(len(m.calls) for m in clean_models.values())
    first = kill_after(make_models(), roles, fail_after)
    with pytest.raises(RuntimeError, match="killed"):
        run(first, tmp_path / "run")
    left = {p.name for p in (tmp_path / "run").iterdir()} if (tmp_path / "run").is_dir() else set()
    again = make_models()
    resumed = run(again, tmp_path / "run")
    made = sum(len(m.calls) for m in first.values()) + sum(len(m.calls) for m in again.values())
    killed = sum(len(first[r].calls) for r in roles) - fail_after
    return Resumed(clean, resumed, total, killed, made - killed - total, left)


def ctrl_c_restored() -> None:
    """`preexec_fn` for a child that a test interrupts with SIGINT: a runner started in the background by a
    shell without job control (`cmd &`) ignores SIGINT and every child inherits that, so Python would never
    raise KeyboardInterrupt there; the child gets the default disposition back, as a terminal's would have."""
    import signal

    signal.signal(signal.SIGINT, signal.SIG_DFL)
