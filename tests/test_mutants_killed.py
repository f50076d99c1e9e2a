"""Tests written to kill the surviving mutants of scripts/mutants.py (issue 47): each checks a boundary or a branch
that the module's other tests left unobserved. Fast and model-free: the runner's tests run a tiny protocol of
their own with a scripted in-process model (FunctionModel)."""
from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from pydantic import BaseModel

from judgeagent.benchmark import Benchmark, Item
from judgeagent.errors import JudgeAgentError
from judgeagent.models.testing import FunctionModel
from judgeagent.protocols import run_protocol
from judgeagent.protocols.base import Episode, Protocol, RoleSpec, Section

# --- runs.py ---------------------------------------------------------------------------------------------


def test_the_newer_format_refusal_starts_one_version_past_the_current_one(tmp_path):
    """Version 2 (the current one) and 1 are read; the very next, 3, is refused as newer (with `upgrade`), an unknown
    older one as unreadable (with `rerun`): the boundary, not a far-off 99. Literals, not the module's constants:
    the format is a contract with the run folders already on disk."""
    from judgeagent.runs import check_run_format

    def manifest(version):
        return {"format": "judgeagent.run", "format_version": version, "versions": {"judgeagent": "9.9"}}

    for version in (1, 2):
        check_run_format(manifest(version), tmp_path)
    with pytest.raises(JudgeAgentError, match=r"format version 3, written by judgeagent 9\.9; this judgeagent reads "
                                              r"versions 1, 2: upgrade judgeagent"):
        check_run_format(manifest(3), tmp_path)
    with pytest.raises(JudgeAgentError, match="written by a newer judgeagent"):
        check_run_format({"format": "judgeagent.run", "format_version": 3}, tmp_path)
    for bad in (0, None, "2"):
        with pytest.raises(JudgeAgentError, match=f"format version {bad}; this judgeagent reads versions 1, 2: rerun"):
            check_run_format(manifest(bad), tmp_path)
    with pytest.raises(JudgeAgentError, match="is not a judgeagent run$"):
        check_run_format(manifest(2) | {"format": "judgeagent.runs"}, tmp_path)
    from judgeagent.runs import open_run

    with open_run(tmp_path / "new", {"config_id": "a"}) as run:
        written = json.loads((run.folder / "manifest.json").read_text())
    assert (written["format"], written["format_version"], written["status"]) == ("judgeagent.run", 2, "running")


def test_read_rows_numbers_the_torn_tail_and_trims_only_for_the_writer(tmp_path):
    """`read_rows` by hand: blank lines skipped; a torn last line skipped by a reader, trimmed by the writer, and
    reported as FILE:3 (its line number) once the run is finished; a whole last row that lost its newline is kept,
    and the writer ends its line."""
    from judgeagent.runs import read_rows

    path = tmp_path / "rows.jsonl"
    assert read_rows(path, "id") == []
    whole = b'{"id": 1}\n\n{"id": 2}\n'
    path.write_bytes(whole + b'{"id": 3, "x"')
    assert [r["id"] for r in read_rows(path, "id")] == [1, 2]
    assert path.read_bytes() == whole + b'{"id": 3, "x"'
    with pytest.raises(JudgeAgentError, match=rf"{path}:4: damaged line, malformed JSON"):
        read_rows(path, "id", finished=True)
    assert [r["id"] for r in read_rows(path, "id", writer=True)] == [1, 2]
    assert path.read_bytes() == whole
    path.write_bytes(whole + b'{"id": 3}')
    assert [r["id"] for r in read_rows(path, "id", finished=True)] == [1, 2, 3]
    assert path.read_bytes() == whole + b'{"id": 3}'
    assert [r["id"] for r in read_rows(path, "id", writer=True)] == [1, 2, 3]
    assert path.read_bytes() == whole + b'{"id": 3}\n'
    path.write_bytes(b'{"id": 1}\n{"other": 2}\n')
    with pytest.raises(JudgeAgentError, match=rf"{path}:2: damaged line, not a JSON object with 'id'"):
        read_rows(path, "id")
    path.write_bytes(b'{"id": 1}\n"\xff"\n')
    with pytest.raises(JudgeAgentError, match=rf"{path}:2: damaged line, not valid UTF-8"):
        read_rows(path, "id")


def test_a_lock_file_that_cannot_be_opened_is_one_line_saying_what_to_do(tmp_path):
    from judgeagent.runs import lock_run

    (tmp_path / "writer.lock").mkdir()
    with pytest.raises(JudgeAgentError, match=rf"^run {tmp_path} cannot be written \(Is a directory\): make the "
                                              "folder writable, or copy it somewhere writable and give that folder$"):
        lock_run(tmp_path)
    folder = tmp_path / "run"
    folder.mkdir()
    held = lock_run(folder)  # a second open file in this process conflicts as another process's would
    try:
        with pytest.raises(JudgeAgentError, match=rf"^run {folder} is being written by another judgeagent process "
                                                  rf"\(pid {os.getpid()}\); wait for it to end, or stop it and resume$"):
            lock_run(folder)
    finally:
        held.close()
    lock_run(folder).close()


def test_a_run_loaded_for_reading_refuses_to_append(tmp_path):
    from judgeagent.runs import load_run, open_run

    open_run(tmp_path / "run", {"config_id": "a"}).close()
    with pytest.raises(RuntimeError, match=rf"^run {tmp_path / 'run'} is open read-only: open it with open_run to "
                                           "write$"):
        load_run(tmp_path / "run").append("records.jsonl", {"record_id": "x"})
    assert not (tmp_path / "run" / "records.jsonl").exists()


def test_another_configuration_in_the_folder_names_what_differs_in_one_whole_line(tmp_path):
    from judgeagent.runs import open_run

    folder = tmp_path / "run"
    models = {"target": {"name": "m", "model": "m-7b", "base_url": "http://a:1", "weights": "w.gguf"}}
    open_run(folder, {"config_id": "a", "config": {"turns": 1}, "models": models, "protocol": "p"}).close()

    def refused(manifest):
        with pytest.raises(JudgeAgentError) as e:
            open_run(folder, {"config_id": "b", "config": {"turns": 1}, "models": models, "protocol": "p", **manifest})
        return str(e.value)

    assert refused({"config": {"turns": 2}}) == (f"run folder {folder} holds a run with another configuration "
                                                 "(options turns: 1 there, 2 now); choose another --run-dir or "
                                                 "remove it")
    moved = {"target": {**models["target"], "base_url": "http://a:2"}}  # the embedded model's port: no difference
    assert "(its models differ)" in refused({"models": moved})
    assert "(its benchmark, graph or models differ)" in refused({})
    other = {"target": {**models["target"], "model": "m-13b"}}
    assert '(models target model: "m-7b" there, "m-13b" now)' in refused({"models": other})
    assert "(its protocol differ)" in refused({"protocol": "q"})
    for field, value in (("name", "n"), ("weights", "v.gguf")):
        changed = {"target": {**models["target"], field: value}, "judge": {"name": "j"}}  # a new role: no field
        assert f'(models target {field}: {json.dumps(models["target"][field])} there, {json.dumps(value)} now)' \
            in refused({"models": changed})
    with_generation = {"target": {**models["target"], "generation": {"temperature": 0}}}
    open_run(tmp_path / "gen", {"config_id": "a", "models": with_generation}).close()
    with pytest.raises(JudgeAgentError, match=r'\(models target generation: \{"temperature": 0\} there, '
                                              r'\{"temperature": 0.5\} now\)'):
        open_run(tmp_path / "gen", {"config_id": "b", "models": {"target": {**models["target"],
                                                                             "generation": {"temperature": 0.5}}}})


def test_the_protocol_of_a_run_folder_and_a_synthesis_folder_refused(tmp_path):
    from judgeagent.runs import run_protocol_name

    assert run_protocol_name({}, tmp_path) == "judgeagent" and run_protocol_name({"protocol": "kieval"}, tmp_path) == "kieval"
    with pytest.raises(JudgeAgentError, match=rf"^{tmp_path} is the work folder of a synthesis, not a run: its dataset "
                                              rf"is {tmp_path.parent / 'items.jsonl'} \(evaluate a model on it with "
                                              r"--benchmark\)$"):
        run_protocol_name({"kind": "synthesis", "protocol": "x"}, tmp_path)


# --- protocols/runner.py and base.py: resume skips finished episodes and reads finished steps back --------------

class _NoOptions(BaseModel):
    pass


class _Counted(Protocol):
    """A tiny protocol of two steps an episode (ask, then check), that counts what the runner makes it do: each
    episode run, each step made (not read back). `fail` names an episode whose check raises (a kill mid-episode)."""

    name, title, paper, measures = "counted", "Counted", "none", "what the runner does"
    Config = _NoOptions
    roles = (RoleSpec("target", "answers"),)

    def __init__(self, fail: str | None = None) -> None:
        self.fail = fail
        self.ran: list[str] = []
        self.made: list[str] = []

    def episodes(self, benchmark, config):
        return [Episode(f"e{i.qid}", (i,), n) for n, i in enumerate(benchmark.items)]

    async def run_episode(self, ctx, episode):
        self.ran.append(episode.id)
        item = episode.items[0]

        def step(name, prompt):
            async def make():
                self.made.append(f"{episode.id}/{name}")
                reply = (await ctx.roles["target"].complete([{"role": "user", "content": prompt}])).text
                return ctx.record(episode, name, 0, "target", prompt, reply)
            return ctx.recorded(episode, name, make)

        first = await step("ask", item.question)
        if episode.id == self.fail:
            raise RuntimeError("killed")
        second = await step("check", f"Is {first.reply} right?")
        return {"qid": item.qid, "replies": [first.reply, second.reply]}

    async def summarise(self, ctx, records, episodes):
        return {"episodes": len(episodes), "records": len(records), "replies": [r["replies"] for r in episodes]}

    def report_sections(self, summary):
        return [Section("Counted", str(summary["episodes"]))]


def _counted_run(protocol, folder):
    items = [Item(q, f"What is {q}?", q.upper()) for q in ("a", "b", "c")]
    model = FunctionModel(lambda messages: f"said {messages[-1]['content']}", "scripted")
    return run_protocol(protocol, Benchmark(Path("counted.jsonl"), items), models={"target": model},
                        run_dir=folder, cache=False), model


def test_a_resumed_run_skips_finished_episodes_and_reads_finished_steps_back(tmp_path):
    """Episode eb is killed after its first step: on resume, ea and ec are not run again (runner.py's skip),
    and eb's first step is read back, not made again (`EpisodeContext.recorded`); only eb's check is made."""
    clean, _ = _counted_run(_Counted(), tmp_path / "clean")
    assert not clean.resumed
    assert "Counted" in (clean.folder / "report.md").read_text()  # `writes_report` by default
    killed = _Counted(fail="eb")
    with pytest.raises(RuntimeError, match="killed"):
        _counted_run(killed, tmp_path / "run")
    assert sorted(killed.ran) == ["ea", "eb", "ec"]
    assert sorted(killed.made) == ["ea/ask", "ea/check", "eb/ask", "ec/ask", "ec/check"]
    again = _Counted()
    resumed, model = _counted_run(again, tmp_path / "run")
    assert again.ran == ["eb"]
    assert again.made == ["eb/check"]
    assert len(model.calls) == 1
    numbers = clean.summary | {"usage": None}
    assert resumed.resumed and resumed.summary | {"usage": None} == numbers
    assert numbers["records"] == 6 and numbers["episodes"] == 3
    finished, _ = _counted_run(_Counted(), tmp_path / "run")
    assert finished.resumed and finished.summary == resumed.summary
    manifest = json.loads((tmp_path / "run" / "manifest.json").read_text())
    assert manifest["status"] == "finished" and manifest["finished_at"] >= manifest["created_at"] > "2026"
    assert (manifest["protocol"], manifest["config"], manifest["graph"], manifest["request"]) == (
        "counted", {}, None, {})
    assert manifest["benchmark"] == {"path": "counted.jsonl", "items": 3}
    assert manifest["models"]["target"]["name"] == "scripted" and "judgeagent" in manifest["versions"]


def test_gather_all_returns_in_order_and_raises_after_the_others_finish():
    import asyncio

    from judgeagent.protocols.runner import gather_all

    finished = []

    async def ok(n, wait):
        await asyncio.sleep(wait)
        finished.append(n)
        return n

    async def bad():
        raise ValueError("broken")

    assert asyncio.run(gather_all(ok(1, 0.02), ok(2, 0))) == [1, 2]
    with pytest.raises(ValueError, match="broken"):
        asyncio.run(gather_all(bad(), ok(3, 0.02)))
    assert finished == [2, 1, 3]


def test_a_run_without_a_folder_goes_under_the_runs_root_named_by_its_identity(tmp_path):
    import hashlib

    from judgeagent.models.spec import load_registry
    from judgeagent.protocols.base import RunRequest

    protocol = _Counted()
    items = [Item("a", "What is a?", "A")]
    model = FunctionModel(lambda messages: "x", "scripted / v1?")
    result = run_protocol(protocol, Benchmark(Path("my quiz.jsonl"), items), models={"target": model},
                          runs_root=tmp_path, cache=False)
    payload = protocol.identity_payload(RunRequest(Benchmark(Path("my quiz.jsonl"), items), None,
                                                   {"target": model}, _NoOptions()), load_registry())
    ident = hashlib.sha256(json.dumps(payload, sort_keys=True, default=str).encode()).hexdigest()
    assert result.folder == tmp_path / f"my-quiz-counted-scripted-v1-{ident[:8]}"  # "v1?" ends in no "-"
    assert json.loads((result.folder / "manifest.json").read_text())["config_id"] == ident
    long = run_protocol(protocol, Benchmark(Path("q" * 70 + ".jsonl"), items), models={"target": model},
                        runs_root=tmp_path, cache=False)
    assert long.folder.name[:-9] == "q" * 60 and long.folder.name[-9] == "-"  # the stem cut at 60 characters


# --- view/inspect_log.py: the Inspect export's fields, by hand ---------------------------------------------------

def _inspect_case():
    from judgeagent.protocols.episodes import EpisodeView, Turn

    manifest = {"created_at": "2026-01-02T03:04:05+00:00", "finished_at": "2026-01-02T04:00:00+00:00",
                "config_id": "abcdefghijklmnopqrstuvwxyz", "config": {"turns": 2},
                "benchmark": {"path": "/data/set/quiz.jsonl"}, "judge_calibration": {"kappa": 0.8},
                "models": {"target": {"name": "tgt-model"}, "judge": {"name": "jdg-model"},
                           "helper": {"name": "tgt-model"}}}
    summary = {"usage": {"target": {"input_tokens": 10, "output_tokens": 5, "cost": 0.25},
                         "helper": {"input_tokens": 1, "output_tokens": 2, "cost": 0.5},
                         "judge": {"input_tokens": 100, "output_tokens": None, "cost": None}}}
    ask = Turn("target", "ask", "Capital of France?", "Paris",
               {"correct": {"value": 1.0, "method": "exact", "reason": "same words"}}, model="tgt-model")
    judge = Turn("judge", "judge", "Is Paris right?", "yes",
                 {"correct": {"value": 0.5, "method": "judge"}}, model="jdg-model")
    unjournaled = Turn("target", "again", "And of Spain?", "Madrid")
    scored = EpisodeView("e1", "Capital of France?", "q1", {"verdict": "right"}, {"correct": 0.75, "style": 0.5},
                         ["exact", "judge"], [ask, judge, unjournaled], gold="Paris")
    plain = EpisodeView("e2", "A chat", None, {}, {"style": 1.0}, [], [Turn("target", "talk", "Hi", "Hello")])
    calls = [{"messages": [{"role": "system", "content": "Be brief."}, {"role": "user", "content": "Capital of France?"}],
              "text": "Paris", "usage": {"input_tokens": 7, "output_tokens": 3},
              "settings": {"temperature": 0, "seed": 1, "n_ctx": 4096}},
             {"messages": [{"role": "system", "content": "Judge."}, {"role": "user", "content": "Is Paris right?"}],
              "text": "yes", "usage": {"input_tokens": 20, "output_tokens": 1}},
             {"messages": [{"role": "system", "content": "Other."}, {"role": "user", "content": "Is Paris right?"}],
              "text": "yes", "usage": {"input_tokens": 99, "output_tokens": 99}},
             {"messages": [], "text": "Madrid"}]
    return manifest, summary, [scored, plain], calls


def test_the_inspect_export_fields_by_hand(tmp_path):
    """`target` is the gold, tokens add up (input + output, per model and per role), a score some samples lack is
    counted as unscored, a system prompt shows where it first applies, and a turn the journal lacks still shows."""
    from judgeagent.view.inspect_log import inspect_log, log_name

    manifest, summary, episodes, calls = _inspect_case()
    protocol = _Counted()
    log = inspect_log(protocol, tmp_path / "run-1", manifest, summary, episodes, calls)
    assert log_name(protocol, manifest) == "2026-01-02T03-04-05+00-00_judgeagent-counted_abcdefghijklmnopqrstuv.json"
    assert log_name(protocol, {}) == "1970-01-01T00-00-00+00-00_judgeagent-counted_run.json"
    ev = log["eval"]
    assert (ev["task"], ev["task_id"], ev["run_id"], ev["model"]) == (
        "judgeagent/counted", "abcdefghijklmnopqrstuv", "run-1", "tgt-model")
    assert ev["model_roles"] == {"target": {"model": "tgt-model"}, "judge": {"model": "jdg-model"},
                                 "helper": {"model": "tgt-model"}}
    assert ev["dataset"] == {"name": "quiz", "location": "/data/set/quiz.jsonl", "samples": 2}
    assert ev["task_args"] == {"turns": 2} and ev["config"] == {}
    assert ev["metadata"] == {"protocol": "counted", "paper": "none", "run": str(tmp_path / "run-1"),
                              "judge_calibration": {"kappa": 0.8}}
    assert log["plan"] == {"name": "counted", "steps": [{"solver": "counted", "params": {}}]}
    assert (log["version"], log["status"]) == (2, "success")
    assert log["results"]["total_samples"] == log["results"]["completed_samples"] == 2
    assert log["results"]["scores"] == [
        {"name": "correct", "scorer": "correct", "scored_samples": 1, "unscored_samples": 1,
         "metrics": {"mean": {"name": "mean", "value": 0.75}}},
        {"name": "style", "scorer": "style", "scored_samples": 2, "unscored_samples": 0,
         "metrics": {"mean": {"name": "mean", "value": 0.75}}}]
    stats = log["stats"]
    assert (stats["started_at"], stats["completed_at"]) == ("2026-01-02T03:04:05+00:00", "2026-01-02T04:00:00+00:00")
    assert stats["model_usage"] == {
        "tgt-model": {"input_tokens": 11, "output_tokens": 7, "total_tokens": 18, "total_cost": 0.75},
        "jdg-model": {"input_tokens": 100, "output_tokens": 0, "total_tokens": 100, "total_cost": 0}}
    assert stats["role_usage"]["target"] == {"input_tokens": 10, "output_tokens": 5, "total_tokens": 15,
                                             "total_cost": 0.25}
    assert stats["role_usage"]["judge"]["total_cost"] is None

    first, second = log["samples"]
    assert (first["id"], first["epoch"], first["input"], first["target"]) == ("e1", 1, "Capital of France?", "Paris")
    assert (second["input"], second["target"]) == ("Hi", "")  # no scored turn: the first turn's prompt; no gold: ""
    assert first["messages"][1] == {"role": "user", "content": "Capital of France?", "source": "input",
                                    "metadata": {"role": "target", "step": "ask"}}
    assert first["messages"][0] == {"role": "system", "content": "Be brief.", "source": "input",
                                    "metadata": {"role": "target"}}
    assert [(m["role"], m["content"]) for m in first["messages"]] == [
        ("system", "Be brief."), ("user", "Capital of France?"), ("assistant", "Paris"),
        ("system", "Judge."), ("user", "Is Paris right?"), ("assistant", "yes"),
        ("user", "And of Spain?"), ("assistant", "Madrid")]
    assert first["model_usage"] == {"tgt-model": {"input_tokens": 7, "output_tokens": 3, "total_tokens": 10},
                                    "jdg-model": {"input_tokens": 20, "output_tokens": 1, "total_tokens": 21}}
    assert second["model_usage"] == {}
    assert first["output"] == {"model": "tgt-model", "choices": [{"message": {
        "role": "assistant", "content": "Madrid", "source": "generate", "model": None,
        "metadata": {"role": "target", "step": "again", "scores": {}}}, "stop_reason": "stop"}]}
    assert first["scores"]["correct"] == {"value": 0.75, "answer": "Madrid",
                                          "explanation": "ask: 1.0 by exact (same words); judge: 0.5 by judge"}
    assert first["scores"]["style"]["explanation"] == ""
    assert first["metadata"] == {"item": "Capital of France?", "qid": "q1", "methods": ["exact", "judge"],
                                 "verdict": "right"}
    asked, judged, again = first["events"]
    assert asked["input"] == [{"role": "system", "content": "Be brief.", "source": "input"},
                              {"role": "user", "content": "Capital of France?", "source": "input"}]
    assert asked["config"] == {"temperature": 0, "seed": 1}
    assert asked["output"]["usage"] == {"input_tokens": 7, "output_tokens": 3, "total_tokens": 10}
    assert (asked["model"], asked["role"], asked["metadata"]) == ("tgt-model", "target",
                                                                  {"step": "ask", "journaled": True})
    assert judged["output"]["usage"]["total_tokens"] == 21 and judged["output"]["model"] == "jdg-model"
    assert again["input"] == [{"role": "user", "content": "And of Spain?", "source": "input"}]
    assert again["output"]["usage"] == {"input_tokens": 0, "output_tokens": 0, "total_tokens": 0}
    assert (again["model"], again["metadata"]["journaled"]) == ("tgt-model", False)
    assert again["timestamp"] == "2026-01-02T03:04:05+00:00"
    bare = inspect_log(protocol, tmp_path / "run-1", {}, {}, [], None)
    assert bare["eval"]["model"] == "unknown" and bare["samples"] == [] and bare["results"]["scores"] == []


# --- grading/choice.py -----------------------------------------------------------------------------------

def test_a_bare_lowercase_letter_in_quotes_is_read_case_blind():
    """A reply that is only a letter, quoted or backticked, in lowercase: only the bare-letter rule reads it (the
    tiers' line-start pattern takes no quote before the letter), so that rule must compare case-blind."""
    from judgeagent.grading.choice import extract_letter

    options = {"A": "Venus", "B": "Mars", "C": "Jupiter", "D": "Saturn"}
    assert [extract_letter(reply, options) for reply in ('"b"', "`c`", "'d'", '"B"', "**a**")] == \
        ["B", "C", "D", "B", "A"]
    assert extract_letter('"e"', options) is None
    assert extract_letter('"b"', {"a": "Venus", "b": "Mars"}) == "b"  # the options' own letter comes back


def test_the_inspect_export_goes_into_a_folder_under_inspects_name_or_to_the_file_named(tmp_path):
    from judgeagent.view.inspect_log import write_inspect_log

    protocol = _Counted()
    result, _ = _counted_run(protocol, tmp_path / "run")
    into_run, n = write_inspect_log(protocol, result.folder)
    assert n == 3 and into_run.parent == result.folder and into_run.name.endswith(".json")
    assert "_judgeagent-counted_" in into_run.name
    (tmp_path / "logs").mkdir()
    into_folder, _ = write_inspect_log(protocol, result.folder, tmp_path / "logs")
    assert into_folder == tmp_path / "logs" / into_run.name
    named, _ = write_inspect_log(protocol, result.folder, tmp_path / "mine.json")
    assert named == tmp_path / "mine.json"
    logs = [json.loads(p.read_text()) for p in (into_run, into_folder, named)]
    assert logs[0] == logs[1] == logs[2] and len(logs[0]["samples"]) == 3


# --- protocols/base.py: roles, inputs, identity, the folder's name -------------------------------------------

class _Seats(_Counted):
    name = "seats"
    roles = (RoleSpec("target", "answers"), RoleSpec("helper", "helps", ("interviewer", "target")),
             RoleSpec("judge", "judges", "helper", model="local"), RoleSpec("extra", "optional", optional=True),
             RoleSpec("students", "learn", many=True, optional=True))
    added_later = {"late": 0}


def test_roles_take_their_defaults_in_order_fixed_models_and_optional_seats():
    seats = _Seats()
    assert RoleSpec("x", "y").defaults == () and RoleSpec("x", "y", ("a", "b")).defaults == ("a", "b")
    assert RoleSpec("x", "y", "a").defaults == ("a",)
    assert seats.resolve_roles({"target": "t"}) == {"target": "t", "helper": "t", "judge": "t"}
    assert seats.resolve_roles({"target": "t", "interviewer": "i"}) == {"target": "t", "helper": "i", "judge": "i"}
    assert seats.resolve_roles({"target": "t", "helper": "h", "extra": "e", "students.2": "b", "students.1": "a",
                                "students.x": "no", "students.3": ""}) == {
        "target": "t", "helper": "h", "judge": "h", "extra": "e", "students.1": "a", "students.2": "b"}
    assert seats.resolve_roles({"target": "t", "judge": None, "nobody": ""})["judge"] == "t"

    class Fixed(_Counted):
        name = "fixed"
        roles = (RoleSpec("grader", "grades", model="local"),)

    assert Fixed().resolve_roles({}) == {"grader": "local"}
    with pytest.raises(JudgeAgentError, match=r"^protocol seats needs a model for its target role \(--target\)$"):
        seats.resolve_roles({})
    with pytest.raises(JudgeAgentError, match=r"^protocol seats has no role judges; its roles are target, helper, "
                                              r"judge, extra, students \(give them with --role NAME=MODEL\)$"):
        seats.resolve_roles({"target": "t", "judges": "j"})
    with pytest.raises(JudgeAgentError, match=r"^role helper of protocol seats takes one model; got 'a,b'$"):
        seats.resolve_roles({"target": "t", "helper": "a,b"})
    with pytest.raises(JudgeAgentError, match=r"takes one model; got \['a'\]$"):
        seats.resolve_roles({"target": "t", "helper": ["a"]})
    with pytest.raises(JudgeAgentError, match=r"^role students of protocol seats needs one or more models, "
                                              r"comma-separated; got 'a, '$"):
        seats.resolve_roles({"target": "t", "students": "a, "})


def test_inputs_identity_and_folder_name(tmp_path):
    from judgeagent.models.spec import load_registry
    from judgeagent.protocols.base import RunRequest

    assert Episode("e", ()).index == 0
    assert RunRequest(Benchmark(Path("q.jsonl"), []), None, {}, _NoOptions()).runs_root == Path("runs")
    seats = _Seats()
    seats.Config = type("Late", (BaseModel,), {"__annotations__": {"late": int, "turns": int}, "late": 0, "turns": 1})
    bench = Benchmark(tmp_path / "quiz.v2.jsonl", [Item("q1", "What?", "That", difficulty="hard")])
    model = FunctionModel(lambda messages: "x", "scripted")

    def request(**config):
        return RunRequest(bench, None, {"target": model}, seats.Config(**config))

    seats.check_inputs(request())
    with pytest.raises(JudgeAgentError, match=r"^benchmark .*empty\.jsonl has no items$"):
        seats.check_inputs(RunRequest(Benchmark(tmp_path / "empty.jsonl", []), None, {}, seats.Config()))
    seats.needs = frozenset({"benchmark", "graph"})
    with pytest.raises(JudgeAgentError, match=r"^protocol seats needs a graph: give --graph$"):
        seats.check_inputs(request())
    registry = load_registry()
    payload = seats.identity_payload(request(), registry)
    assert payload == {"protocol": "seats", "benchmark": [("q1", "What?", "That", None, "hard", False)],
                       "graph": None, "models": {"target": {"function": "scripted"}}, "config": {"turns": 1}}
    assert seats.identity_payload(request(late=1), registry)["config"] == {"late": 1, "turns": 1}
    assert seats.folder_stem(request()) == "quiz.v2-seats-scripted"
    assert seats.folder_stem(RunRequest(bench, None, {"target": "local"}, seats.Config())) == "quiz.v2-seats-local"
    assert seats.render_summary({"a": 1, "b": {"c": 2}, "d": "x"}, "runs/r") == "run runs/r\n  a: 1\n  d: x"


def test_progress_and_stages_are_reported_and_timings_measured(tmp_path):
    """With a progress callback, the runner says the `episodes` stage once, then (done, listed) per episode;
    without one, no stage. The stages' timings are durations (not clock readings)."""
    from judgeagent.benchmark import Benchmark, Item

    items = [Item(q, f"What is {q}?", q.upper()) for q in ("a", "b", "c")]
    model = FunctionModel(lambda messages: "x", "scripted")
    stages, done = [], []
    result = run_protocol(_Counted(), Benchmark(Path("counted.jsonl"), items), models={"target": model},
                          run_dir=tmp_path / "run", cache=False, on_stage=stages.append,
                          progress=lambda event: done.append((event.done, event.listed)))
    assert stages == ["episodes"] and sorted(done) == [(1, 3), (2, 3), (3, 3)]
    assert 0 <= result.timings["prepare"] < 60 and 0 <= result.timings["episodes"] < 60
    assert set(result.timings) == {"prepare", "episodes", "model:target"}
    quiet: list[str] = []
    run_protocol(_Counted(), Benchmark(Path("counted.jsonl"), items), models={"target": model},
                 run_dir=tmp_path / "quiet", cache=False, on_stage=quiet.append)
    assert quiet == []


def test_a_run_started_inside_a_running_loop_is_refused_naming_what_to_await(tmp_path):
    import asyncio

    from judgeagent.protocols.base import RunRequest
    from judgeagent.protocols.runner import run_episodes

    request = RunRequest(Benchmark(Path("q.jsonl"), [Item("a", "What?", "A")]), None,
                         {"target": FunctionModel(lambda m: "x", "s")}, _NoOptions(), run_dir=tmp_path / "run")

    async def inside():
        run_episodes(_Counted(), request)

    with pytest.raises(JudgeAgentError, match=r"^run_protocol\(\) was called inside a running event loop \(a notebook "
                                              r"or an async program\): use `await judgeagent\.protocols\."
                                              r"run_protocol_async\(\.\.\.\)` there, which runs it on a worker thread$"):
        asyncio.run(inside())
    assert not (tmp_path / "run").exists()


class _SlowStart(_Counted):
    async def prepare(self, ctx):
        import asyncio

        from judgeagent.protocols.base import Prepared

        await asyncio.sleep(0.5)
        return Prepared()


def test_the_episodes_time_leaves_out_the_preparation(tmp_path):
    """Both stages are measured inside the run: together they cannot exceed the call's own wall time (an
    `episodes` that counted the 0.5 s preparation twice would)."""
    import time

    items = [Item("a", "What is a?", "A")]
    start = time.perf_counter()
    result = run_protocol(_SlowStart(), Benchmark(Path("q.jsonl"), items), models={"target": FunctionModel(
        lambda m: "x", "s")}, run_dir=tmp_path / "run", cache=False)
    wall = time.perf_counter() - start
    assert result.timings["prepare"] >= 0.5
    assert result.timings["prepare"] + result.timings["episodes"] <= wall


def test_each_connective_after_a_letter_keeps_it_an_option():
    """`_CONNECTIVES`, word by word: "Option B since ..." names B; any other lowercase word after a capital makes
    it the article or pronoun ("A cat"), not an option."""
    from judgeagent.grading.choice import _CONNECTIVES, extract_letter

    options = {"A": "Venus", "B": "Mars"}
    words = ["because", "since", "as", "is", "was", "would", "will", "should", "could", "must", "seems", "appears",
             "and", "or", "but", "which", "given", "due", "that", "here", "then", "so", "though", "although",
             "while", "whereas", "if", "also", "only", "alone", "too"]
    assert sorted(_CONNECTIVES) == sorted(words)
    assert {w: extract_letter(f"Option B {w} x.", options) for w in words} == {w: "B" for w in words}
    assert extract_letter("Option B grows x.", options) is None


def test_an_option_ruled_out_after_or_before_it_is_no_choice():
    from judgeagent.grading.choice import extract_letter

    options = {"A": "Asthma attack", "B": "Lupus", "C": "ARDS"}
    assert extract_letter("Option A is not right. Option B.", options) == "B"  # ruled out after the letter
    assert extract_letter("I exclude A. Asthma attack, so (B) Lupus, and (C) too", options) == "B"  # before it


def test_several_correct_options_by_hand():
    """Items with several gold letters ("AC"): the letters of the last answer line, else the reply's last line."""
    from judgeagent.benchmark import Item as It
    from judgeagent.grading.choice import check_choice, check_several, extract_letters

    options = {"A": "red", "B": "green", "C": "blue", "D": "black"}
    assert extract_letters("I think A.\nThe answer is: A and C", options) == "AC"
    assert extract_letters("Answer: B\nlater... answers are C, A", options) == "AC"
    assert extract_letters("A seems right. I pick\nB, D", options) == "BD"
    assert extract_letters("A\n\n", options) == "A"
    assert extract_letters("Nothing here", options) is None and extract_letters("", options) is None
    assert extract_letters("Answer: E and F", options) is None
    assert check_several("Answer: C, A", options, "ac").correct and check_several("Answer: A C", options, "AC").correct
    assert check_several("Answer: C, A", options, "AC").correct
    assert check_several("Answer: C", options, "AC") == \
        check_several("Answer: C", options, "AC").__class__(False, "letter", "C", None, "chose C, gold AC")
    assert check_several("  ", options, "AC").method == "empty"
    assert check_several("no idea", options, "AC").method == "no_letter"
    item = It("q", "Which?", "red, blue", options=options, gold_letter="AC")
    assert check_choice("Answer: A, C", item).correct and not check_choice("Answer: A", item).correct


def test_one_option_by_hand_letters_texts_json_and_reasons():
    from judgeagent.grading.choice import check_options, extract_letter

    options = {"A": "Berlin", "B": "Paris", "C": "Paris Texas", "D": "Rome"}
    assert check_options("B", options, "b", "Paris").correct  # the gold letter compared case-blind
    verdict = check_options("The answer is D.", options, "B", "Paris")
    assert (verdict.correct, verdict.method, verdict.extracted, verdict.reason) == (False, "letter", "D",
                                                                                   "chose D, gold B")
    assert check_options("Paris Texas", options, None, "paris texas").reason == "chose C (matches gold text)"
    assert check_options("Rome", options, None, "Paris").reason == "chose D (differs from gold text)"
    assert check_options("Rome", options, None, "Paris").method == "option_text"
    assert check_options("(A) or (B)", options, "A", "Berlin").method == "several_options"
    assert check_options("I do not know", options, "A", "Berlin").method == "no_letter"
    assert check_options("", options, "A", "Berlin").method == "empty"
    assert extract_letter('{"answer": "C"}', options) == "C"
    for key in ("answer", "final_answer", "answer_letter", "letter", "choice", "option", "correct_option"):
        assert extract_letter(f'{{"{key}": "C", "other": "B"}}', options) == "C", key
    assert check_options("答案是C", options, "C", "Paris Texas").method == "letter"  # the CJK rule
    assert extract_letter('Here: {"Final_Answer": "d", "why": "x"}', options) == "D"
    assert extract_letter('{"choice": 2, "note": "A"}', {"A": "1", "B": "2"}) == "B"  # a number: the option of that text
    assert extract_letter('{"answer": ["B"]} so it is A.', options) == "A"  # a list is no answer field
    assert extract_letter("[1, 2] so B.", options) == "B"  # JSON that is not an object
    assert extract_letter("{not json} so B.", options) == "B"
    assert extract_letter("Berlin or Paris", options) is None  # a hedge, not a choice
    assert extract_letter("Paris Texas, for sure", options) == "C"  # the longest opening wins
    assert extract_letter("Rome, I believe", options) == "D"
    assert extract_letter("Paris", {"A": "Paris", "B": "paris"}) is None  # two options of one text


def test_a_run_killed_after_its_first_record_resumes(tmp_path):
    items = [Item("a", "What is a?", "A")]
    model = FunctionModel(lambda messages: "x", "scripted")
    with pytest.raises(RuntimeError, match="killed"):
        run_protocol(_Counted(fail="ea"), Benchmark(Path("q.jsonl"), items), models={"target": model},
                     run_dir=tmp_path / "run", cache=False)
    assert len((tmp_path / "run" / "records.jsonl").read_text().splitlines()) == 1
    again = run_protocol(_Counted(), Benchmark(Path("q.jsonl"), items), models={"target": model},
                         run_dir=tmp_path / "run", cache=False)
    assert again.resumed and again.summary["records"] == 2


def test_a_records_scores_are_kept(tmp_path):
    """`EpisodeContext.record` writes the scores it is given (and none as {})."""
    from judgeagent.protocols.record import Score

    class Scored(_Counted):
        async def run_episode(self, ctx, episode):
            ctx.record(episode, "scored", 0, "target", "p", "r", {"ok": Score(1.0, "exact", "same")})
            ctx.record(episode, "plain", 0, "target", "p", "r")
            return {"qid": episode.items[0].qid, "replies": []}

    result = run_protocol(Scored(), Benchmark(Path("q.jsonl"), [Item("a", "What?", "A")]),
                          models={"target": FunctionModel(lambda m: "x", "s")}, run_dir=tmp_path / "run", cache=False)
    rows = {r["record_id"]: r for r in map(json.loads, (result.folder / "records.jsonl").read_text().splitlines())}
    assert rows["ea/scored"]["scores"] == {"ok": {"value": 1.0, "method": "exact", "reason": "same", "extracted": None}}
    assert rows["ea/plain"]["scores"] == {}


class _Waves(_Counted):
    """Lists one episode, then one more per finished wave (as DynaEval lists games until its scores settle)."""

    def episodes(self, benchmark, config):
        self.items = benchmark.items
        return super().episodes(benchmark, config)[:1]

    def next_episodes(self, ctx, rows):
        return [Episode(f"e{i.qid}", (i,), n) for n, i in enumerate(self.items)][:len(rows) + 1]


def test_episodes_listed_after_a_wave_are_run_until_none_is_new(tmp_path):
    items = [Item(q, f"What is {q}?", q.upper()) for q in ("a", "b", "c")]
    protocol = _Waves()
    result = run_protocol(protocol, Benchmark(Path("q.jsonl"), items), models={"target": FunctionModel(
        lambda m: "x", "s")}, run_dir=tmp_path / "run", cache=False)
    assert protocol.ran == ["ea", "eb", "ec"] and result.summary["episodes"] == 3


class _PathOption(BaseModel):
    where: Path = Path("data/x.txt")


class _WithPath(_Counted):
    Config = _PathOption


def test_a_config_is_written_to_the_manifest_as_json(tmp_path):
    result = run_protocol(_WithPath(), Benchmark(Path("q.jsonl"), [Item("a", "What?", "A")]),
                          models={"target": FunctionModel(lambda m: "x", "s")}, run_dir=tmp_path / "run", cache=False)
    assert json.loads((result.folder / "manifest.json").read_text())["config"] == {"where": "data/x.txt"}
