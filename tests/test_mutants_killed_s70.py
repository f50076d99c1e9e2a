"""Tests written at stop 70 against the survivors of the first mutation runs (seeds 1 and 2) of models/client.py (the
OpenAI-compatible client: its structured-output fallback, repair turn, timeout message, request count and served
name, on the loopback server) and files.py (atomic writes, stale temporaries, one-line read and write errors, field
paths), each named by the behaviour it pins; the mutant it kills is in the comment above it. Those whose comment opens
with "A real bug", "The same bug" or "Not a mutant" pin bugs found on the way, each seen failing before its fix."""
from __future__ import annotations

import asyncio
import json
import logging
import os
import shutil
import socket
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest
from pydantic import BaseModel

from judgeagent.errors import JudgeAgentError
from judgeagent.models import ModelError, ModelSpec, OpenAIChatModel
from judgeagent.models.testserver import FakeServer


class Verdict(BaseModel):
    answer: str


class Refuses(FakeServer):
    """The loopback server as llama.cpp's is: a `json_schema` response format gets `status` naming it (for a plain
    request too, when `always`); anything else as FakeServer answers it."""

    def __init__(self, status: int = 422, message: str = "response_format type json_schema is not supported",
                 always: bool = False, **kw) -> None:
        super().__init__(**kw)
        self.status, self.message, self.always = status, message, always

    async def _respond(self, method, path, raw):
        body = json.loads(raw or b"{}")
        if method == "POST" and (self.always or (body.get("response_format") or {}).get("type") == "json_schema"):
            self.counts["requests"] += 1
            self.bodies.append(body)
            await asyncio.sleep(self.latency)
            return self.status, {"Content-Type": "application/json"}, json.dumps(
                {"error": {"message": self.message}}).encode()
        return await super()._respond(method, path, raw)


def _model(server, **kw):
    return OpenAIChatModel(ModelSpec(name="fake", base_url=server.base_url, model="fake-model", **kw))


def _ask(model, schema=None, text="rate it"):
    async def once():
        try:
            # A deadline, so that a client that asks again for ever (client.py:124 `and` -> `or`) fails in seconds,
            # not at the mutation run's timeout: a call to the loopback server takes milliseconds.
            return await asyncio.wait_for(model.complete([{"role": "user", "content": text}], schema=schema), 20)
        finally:
            await model.aclose()

    return asyncio.run(once())


# --- models/client.py -------------------------------------------------------------------------------------------

def test_client_auto_falls_back_to_json_object_once_and_says_so_word_for_word(caplog):
    # client.py:146 (`_mode == "auto"` -> `!=`), :153 (the fallback's `return True` -> False: the refusal raised),
    # :150 (the note's tail emptied): an endpoint refusing json_schema is asked again in json_object at once, and
    # every later call goes straight to json_object; the note is said once
    with Refuses() as server:
        model = _model(server, max_retries=0)
        with caplog.at_level(logging.WARNING, logger="judgeagent"):
            first, second = _ask(model, Verdict), _ask(model, Verdict)
        kinds = [body["response_format"]["type"] for body in server.bodies]
        where = server.base_url
    assert first.parsed == Verdict(answer="x") and second.parsed == Verdict(answer="x")
    assert kinds == ["json_schema", "json_object", "json_object"] and model.requests == 3
    assert first.attempts == 2 and second.attempts == 1
    notes = [r.getMessage() for r in caplog.records]
    assert notes == [f"note: model 'fake' (fake-model at {where}) refused a json_schema response format (HTTP 422); "
                     "asking it for json_object from now on (set structured_output = \"json_object\" for it in "
                     "judgeagent.toml to skip the first try)"]


def test_client_every_request_refused_before_the_fallback_was_learned_falls_back_too(caplog):
    # A real bug (stop 70), not a mutant: with several calls in flight (max_concurrency 4, the default) against an
    # endpoint that refuses json_schema (llama.cpp's server, `auto`), the first refusal switched the endpoint to
    # json_object and the others, refused for the json_schema they had been sent with, failed with HTTP 422: the
    # mode was no longer `auto`, so they were no fallback. Each call refused for json_schema now asks again.
    with Refuses(latency=0.05) as server:
        model = _model(server, max_retries=0, max_concurrency=4)

        async def together():
            try:
                return await asyncio.gather(*(model.complete([{"role": "user", "content": f"rate {i}"}], schema=Verdict)
                                              for i in range(4)), return_exceptions=True)
            finally:
                await model.aclose()

        with caplog.at_level(logging.WARNING, logger="judgeagent"):
            answers = asyncio.run(together())
        kinds = [body["response_format"]["type"] for body in server.bodies]
    assert [getattr(a, "parsed", a) for a in answers] == [Verdict(answer="x")] * 4
    assert kinds == ["json_schema"] * 4 + ["json_object"] * 4 and model.requests == 8  # all four were on their way
    assert len([r for r in caplog.records if "refused a json_schema" in r.getMessage()]) == 1


@pytest.mark.parametrize("status", [400, 500])
def test_client_a_refusal_that_does_not_name_the_response_format_is_no_fallback(status):
    # client.py:146 (`and` -> `or`: any 400 or 500 a fallback), :147 (`word in` -> `not in`): an error about something
    # else fails as it would without a schema, and json_schema is still asked for next time
    with Refuses(status=status, message="bad temperature") as server:
        model = _model(server, max_retries=0)
        with pytest.raises(ModelError, match=f"HTTP {status}"):
            _ask(model, Verdict)
        assert server.counts["requests"] == 1 and model._effective_mode() == "json_schema"


def test_client_a_plain_request_refused_naming_the_response_format_is_no_fallback():
    # client.py:124 (`schema is not None and _fallback` -> `or`): a request without a schema never switches the
    # endpoint's dialect, nor is it sent again
    with Refuses(status=400, always=True) as server:
        model = _model(server, max_retries=2)
        with pytest.raises(ModelError, match="HTTP 400"):
            _ask(model)
        assert server.counts["requests"] == 1 and model._effective_mode() == "json_schema"


def test_client_a_set_json_schema_dialect_is_never_switched():
    # client.py:146 (`_mode == "auto"` -> `!=`: an endpoint set to json_schema would be switched): the user's setting
    # stands, and the refusal is the error
    with Refuses() as server:
        model = _model(server, max_retries=0, structured_output="json_schema")
        with pytest.raises(ModelError, match="HTTP 422: .*json_schema is not supported"):
            _ask(model, Verdict)
        assert server.counts["requests"] == 1


def test_client_the_repair_turn_shows_the_model_its_own_reply_as_the_assistants():
    # client.py:101 (the repair's "assistant" role emptied): the second request carries the invalid reply as the
    # model's own turn, then the repair request; every request is counted
    with FakeServer(first=["garbage"]) as server:
        model = _model(server)
        repaired = _ask(model, Verdict)
        bodies = server.bodies
        assert model.requests == server.counts["requests"] == 2
    assert repaired.parsed == Verdict(answer="x") and repaired.extra["repaired"]
    assert bodies[1]["messages"][1] == {"role": "assistant", "content": "this is { not json"}
    assert bodies[1]["messages"][2]["role"] == "user" and bodies[1]["messages"][2]["content"].startswith(
        "Your previous reply was not valid: not JSON")


def test_client_counts_each_request_from_zero():
    # client.py:33 (`requests = 0` -> 1): one call, one request
    with FakeServer() as server:
        model = _model(server)
        _ask(model)
        assert model.requests == server.counts["requests"] == 1


def test_client_a_timeout_says_how_long_it_waited_word_for_word():
    # client.py:164 ('no answer within ' emptied; the seconds' format `g` emptied: "1.0 s"): the endpoint that does
    # not answer within the timeout is named so, the timeout as the user wrote it in judgeagent.toml
    with FakeServer(first=["timeout"], hang=3.0) as server:
        with pytest.raises(ModelError) as info:
            _ask(_model(server, timeout=1.0, max_retries=0))
        where = server.base_url
    assert str(info.value) == f"model 'fake' (fake-model at {where}): no answer within 1 s after 1 attempt: " \
                              "Request timed out."


def test_client_a_reply_in_a_json_code_fence_is_read_without_a_repair():
    # client.py:203 (the fence's 'json' label emptied: `json` left before the object, not JSON): models that wrap
    # their JSON in a fence anyway are read at the first answer, one request
    with FakeServer(reply=lambda request: '```json\n{"answer": "fenced"}\n```') as server:
        answered = _ask(_model(server), Verdict)
        assert server.counts["requests"] == 1
    assert answered.parsed == Verdict(answer="fenced") and not answered.extra["repaired"]


def test_client_only_a_reply_that_opens_with_a_fence_is_read_as_one():
    # client.py:202 (`startswith("```")` -> `startswith("")`: every reply stripped of backticks and a leading `json`):
    # text around the JSON that is not a fence is not read past; the model is told the JSON error and asked again
    from judgeagent.models.client import parse_structured

    assert parse_structured('{"answer": "x"}```', Verdict) == (None, "not JSON (Extra data at character 15)")
    assert parse_structured('json{"answer": "x"}', Verdict) == (None, "not JSON (Expecting value at character 0)")
    assert parse_structured(' ```\n{"answer": "x"}```', Verdict) == (Verdict(answer="x"), "")


def test_client_an_invalid_reply_names_the_field_or_the_whole_reply():
    # client.py:210 (`'.'.join(loc) or 'reply'` -> `and`; the '.' joining the path emptied): the repair request
    # names what was wrong, where it was
    from judgeagent.models.client import parse_structured

    class Picks(BaseModel):
        picks: list[Verdict]

    assert parse_structured("{}", Verdict) == (None, "answer: Field required")
    assert parse_structured('{"picks": [{}]}', Picks) == (None, "picks.0.answer: Field required")
    assert parse_structured("[1]", Verdict) == (None, "reply: Input should be a valid dictionary or instance of Verdict")


def test_client_the_served_model_is_the_endpoints_own_name_kept_through_a_reply_without_one():
    # client.py:119 (`or` -> `and`, twice: the served name never set): the name the endpoint answers with, kept
    # when a later reply names none
    class Unnamed(FakeServer):
        async def _respond(self, method, path, raw):
            status, headers, payload = await super()._respond(method, path, raw)
            body = json.loads(payload)
            body["model"] = "fake-model-2024-08-06" if self.counts["requests"] == 1 else ""
            return status, headers, json.dumps(body).encode()

    with Unnamed() as server:
        model = _model(server)
        _ask(model)
        first = model.served
        _ask(model)
    assert first == model.served == "fake-model-2024-08-06"


def test_client_asks_the_chat_completions_route_and_names_its_endpoint_in_the_cache():
    # client.py:118 (the route emptied: a POST to the base URL itself, which a real server answers 404), :47 (the
    # identity's "base_url" key emptied: the cache's sources read as JSON, not `MODEL at URL`)
    from judgeagent.models.cache import source_of

    class Routes(FakeServer):
        async def _respond(self, method, path, raw):
            self.counts[f"{method} {path}"] += 1
            return await super()._respond(method, path, raw)

    with Routes() as server:
        model = _model(server)
        _ask(model)
        assert server.counts["POST /v1/chat/completions"] == 1 and server.counts["requests"] == 1
        assert source_of(model.identity()) == f"fake-model at {server.base_url}"


# --- files.py ---------------------------------------------------------------------------------------------------

def test_files_a_file_that_cannot_be_read_is_named_word_for_word(tmp_path):
    # files.py:20 ('cannot read ' emptied), :52 (check_utf8's, emptied): read whole or checked in chunks
    from judgeagent.files import check_utf8, read_text

    for read in (read_text, check_utf8):
        with pytest.raises(JudgeAgentError) as info:
            read(tmp_path / "gone.jsonl")
        assert str(info.value) == f"cannot read {tmp_path / 'gone.jsonl'}: No such file or directory"


def test_files_an_atomic_write_into_a_missing_folder_says_what_to_do_word_for_word(tmp_path):
    # files.py:153 (cannot_write's '; ' before the fix emptied): one line, the reason then the fix; nothing written
    from judgeagent.files import write_text_atomic

    out = tmp_path / "missing" / "summary.json"
    with pytest.raises(JudgeAgentError) as info:
        write_text_atomic(out, "{}")
    assert str(info.value) == (f"cannot write {out}: No such file or directory; its folder {out.parent} does not "
                               "exist: create it or choose another place")
    assert list(tmp_path.iterdir()) == []


def test_files_an_out_that_cannot_be_read_to_tell_whose_it_is_is_refused_word_for_word():
    # files.py:182 (check_replaceable's ': ' before the reason emptied): /proc/self/mem is a file whose first bytes
    # no one can read (EIO), a real --out that `ours` cannot open and read
    from judgeagent.files import check_replaceable
    from judgeagent.view.page import _a_viewer

    with pytest.raises(JudgeAgentError) as info:
        check_replaceable(Path("/proc/self/mem"), _a_viewer, "a judgeagent viewer page")
    assert str(info.value) == ("cannot read /proc/self/mem to tell whether it is a judgeagent viewer page: "
                               "Input/output error; choose another --out")


def test_files_a_manifest_of_another_format_version_is_one_line_word_for_word(tmp_path):
    # files.py:247 (the ' ' between what and the folder emptied)
    from judgeagent.files import check_format

    with pytest.raises(JudgeAgentError) as info:
        check_format({"format": "judgeagent.run", "format_version": 9}, tmp_path, "judgeagent.run", 2, "run",
                     ": rerun it")
    assert str(info.value) == f"run {tmp_path} has format version 9; this judgeagent reads version 2: rerun it"


def test_files_a_dead_writers_staging_folder_that_cannot_all_be_removed_is_no_error(tmp_path, read_only):
    # files.py:125 (rmtree's `ignore_errors=True` -> False): a killed build's staging folder holding a read-only part
    # (a read-only mount, another user's files) goes as far as it can, the other stale temporaries too, and the
    # command that tidies (a graph build, a run opened) goes on without a traceback
    from judgeagent.files import remove_stale

    dead = subprocess.Popen(["true"])
    dead.wait()
    staged, stale = tmp_path / f".g.tmp-{dead.pid}", tmp_path / f".h.tmp-{dead.pid}"
    (staged / "part").mkdir(parents=True)
    (staged / "part" / "vectors.npy").write_text("x")
    (staged / "nodes.json").write_text("x")
    stale.write_text("x")
    read_only(staged / "part")
    remove_stale(tmp_path, ".*.tmp-*")
    assert not stale.exists() and not (staged / "nodes.json").exists() and (staged / "part" / "vectors.npy").exists()


def test_files_a_temporary_names_its_host_and_another_hosts_is_left_to_it(tmp_path):
    # Not a mutant (stop 70): a run folder or graph shared over NFS is tidied by processes of several hosts, and a pid
    # means something only on the host that gave it: another host's writer, alive, lost its temporary to a process
    # here that found no such pid (its rename then failed), and two writers of one pid on two hosts wrote one file.
    # A temporary now says its host; one of another host is left to it, one of ours or of no host (written before
    # the host was named) goes when its pid is gone.
    from judgeagent.files import remove_stale, write_atomic

    dead = subprocess.Popen(["true"])
    dead.wait()
    host = socket.gethostname()
    theirs, ours, unnamed = (tmp_path / f".report.md.tmp-{dead.pid}@other-host.example",
                             tmp_path / f".summary.json.tmp-{dead.pid}@{host}", tmp_path / f".manifest.json.tmp-{dead.pid}")
    live = tmp_path / f".a@b.json.tmp-{os.getpid()}@{host}"  # an @ in the file's own name
    for path in (theirs, ours, unnamed, live):
        path.write_text("x")
    remove_stale(tmp_path, ".*.tmp-*")
    assert theirs.exists() and live.exists() and not ours.exists() and not unnamed.exists()

    names = []
    write_atomic(tmp_path / "out.txt", lambda tmp: (names.append(tmp.name), tmp.write_text("done")))
    assert names == [f".out.txt.tmp-{os.getpid()}@{host}"] and (tmp_path / "out.txt").read_text() == "done"


_ODD_HOST = """
import os, socket, subprocess, sys
from pathlib import Path
from judgeagent.files import remove_stale, write_atomic

socket.sethostname("node/7@lab")
folder, names = Path(sys.argv[1]), []
write_atomic(folder / "out.txt", lambda tmp: (names.append(tmp.name), tmp.write_text("done")))
dead = subprocess.Popen(["true"])
dead.wait()
stale = folder / f".half.json.tmp-{dead.pid}@node_7_lab"
stale.write_text("x")
remove_stale(folder, ".*.tmp-*")
print(names[0] == f".out.txt.tmp-{os.getpid()}@node_7_lab", stale.exists())
"""


def test_files_a_host_name_with_a_slash_or_an_at_still_names_its_temporaries(tmp_path):
    # files.py:121 (the `/` or `@` of the host left as it is: a temporary in a folder that is not there, or a host read
    # as the part after its @): a host named so (Linux takes any bytes) in a UTS namespace of its own, as root
    if shutil.which("unshare") is None:
        pytest.skip("a host name of its own needs unshare (util-linux)")
    done = subprocess.run(["unshare", "--uts", sys.executable, "-c", _ODD_HOST, str(tmp_path)], capture_output=True,
                          text=True, check=False, env={**os.environ, "PYTHONPATH": str(Path(__file__).parents[1])})
    if "Operation not permitted" in done.stderr:
        pytest.skip(f"a host name of its own needs unshare --uts: {done.stderr.strip()}")
    assert done.stdout == "True False\n", done.stderr
    assert (tmp_path / "out.txt").read_text() == "done"


def test_files_a_json_line_holding_a_unicode_line_separator_is_one_record(tmp_path):
    # A real bug (stop 70), not a mutant: JSON takes U+2028, U+2029 and U+0085 inside a string unescaped, and
    # json.dumps(..., ensure_ascii=False) writes them so (make-mcq's and synthesize's items.jsonl, run records);
    # `jsonl_records` split lines with str.splitlines, which breaks at them too: a good line was "malformed JSON" and
    # the lines below it were numbered wrong. Only \n (and \r\n, \r) ends a JSON line.
    from judgeagent.benchmark import load_benchmark

    items = [{"qid": "a", "question": "Who wrote\u2028the book?", "answer": "Ann\u2029Lee"},
             {"qid": "b", "question": "Next\x85line?", "answer": "Yes"}]
    good = tmp_path / "items.jsonl"
    good.write_text("".join(json.dumps(i, ensure_ascii=False) + "\n" for i in items), encoding="utf-8")
    loaded = load_benchmark(good)
    assert [(i.question, i.gold) for i in loaded.items] == [("Who wrote\u2028the book?", "Ann\u2029Lee"),
                                                              ("Next\x85line?", "Yes")]
    old_mac = tmp_path / "cr.jsonl"  # lines ended by \r alone (files.py:59, its replacement emptied: one line)
    old_mac.write_bytes(good.read_bytes().replace(b"\n", b"\r"))
    assert [i.qid for i in load_benchmark(old_mac).items] == ["a", "b"]
    bad = tmp_path / "bad.jsonl"
    bad.write_text(good.read_text(encoding="utf-8").replace("\n", "\r\n") + '{"qid": oops}\n', encoding="utf-8")
    with pytest.raises(JudgeAgentError) as info:
        load_benchmark(bad)
    assert str(info.value).startswith(f"{bad}:3: malformed JSON")


def test_gaps_a_record_whose_answer_holds_a_unicode_line_separator_is_read(tmp_path):
    # The same bug in the knowledge-gap report's reader (validity/gaps.py): a run writes its records with
    # ensure_ascii=False, and a model's answer with U+2028 in it was two torn lines, dropped without a word
    from judgeagent.protocols.judgeagent.validity.gaps import read_records

    rows = [{"record_id": f"r{i}", "batch": 0, "stage": "extension", "difficulty": "easy", "correct": False,
             "question": "Q?", "answer": f"line one\u2028line two {i}", "path": {"chunk_ids": ["A#0"], "entities": []}}
            for i in range(2)]
    (tmp_path / "records.jsonl").write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows),
                                            encoding="utf-8")
    assert [(r.record_id, r.answer) for r in read_records(tmp_path)] == [
        ("r0", "line one\u2028line two 0"), ("r1", "line one\u2028line two 1")]


def test_files_a_numbered_step_past_the_end_of_a_list_is_missing_not_its_first_element(tmp_path):
    # A real bug (stop 70), not a mutant: `--field answer=golds.1` on an item with one gold took golds[0] as
    # its gold (graded against the wrong answer, without a word) where the docstring says a missing value is None:
    # the item is now refused by its line; an item with a second answer still gives it
    from judgeagent.benchmark import load_benchmark
    from judgeagent.benchmarks.item import ItemFields

    path = tmp_path / "two.jsonl"
    rows = [{"id": "a", "q": "Q?", "golds": ["first", "second"]}, {"id": "b", "q": "Q?", "golds": ["only"]}]
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    fields = ItemFields(qid="id", question="q", answer="golds.1")
    with pytest.raises(JudgeAgentError) as info:
        load_benchmark(path, fields)
    assert str(info.value).startswith(f"{path}:2: item 'b' has no gold answer")
    path.write_text(json.dumps(rows[0]) + "\n", encoding="utf-8")
    assert [i.gold for i in load_benchmark(path, fields).items] == ["second"]


def test_files_a_temporary_of_another_users_live_process_is_left_to_it():
    # files.py:152 (`_alive`'s `return True` on PermissionError -> None): in a folder shared between users, a process
    # of ours may not signal another user's, which is alive all the same: its temporary stays. The other user's
    # process is init (pid 1, root's); as root, the tidying runs in a child that has become nobody
    from judgeagent.files import remove_stale

    shared = Path(tempfile.mkdtemp(prefix="judgeagent-shared-"))
    try:
        shared.chmod(0o777)
        named, unnamed = shared / f".report.md.tmp-1@{socket.gethostname()}", shared / ".summary.json.tmp-1"
        for path in (named, unnamed):
            path.write_text("x")
        if os.geteuid() != 0:
            remove_stale(shared, ".*.tmp-*")
        elif (child := os.fork()) == 0:  # the child only tidies and leaves at once, saying whether it could
            code = 1
            try:
                os.setgid(65534)
                os.setuid(65534)
                remove_stale(shared, ".*.tmp-*")
                code = 0
            finally:
                os._exit(code)
        else:
            assert os.waitstatus_to_exitcode(os.waitpid(child, 0)[1]) == 0
        assert named.exists() and unnamed.exists()
    finally:
        shutil.rmtree(shared)


def test_files_only_this_commands_own_earlier_output_is_replaced(tmp_path):
    # files.py:201 (`not mine` -> `mine`: a user's file replaced, our own page refused)
    from judgeagent.files import check_replaceable
    from judgeagent.view.page import _a_viewer

    ours, theirs = tmp_path / "view.html", tmp_path / "notes.html"
    ours.write_text("<html><head><title>judgeagent view: run</title>")
    theirs.write_text("<html><head><title>my notes</title>")
    check_replaceable(ours, _a_viewer, "a judgeagent viewer page")
    check_replaceable(tmp_path / "new.html", _a_viewer, "a judgeagent viewer page")
    with pytest.raises(JudgeAgentError) as info:
        check_replaceable(theirs, _a_viewer, "a judgeagent viewer page")
    assert str(info.value) == f"{theirs} exists and is not a judgeagent viewer page: choose another --out, or remove " \
                              "it first"


def test_files_a_synthesis_work_folder_or_a_boolean_manifest_is_named_word_for_word(tmp_path):
    # files.py:217 (KINDS' synthesis text emptied), :271 (json_kind's "a boolean" -> None)
    from judgeagent.files import check_format, wrong_kind

    work = tmp_path / ".synthesis"
    work.mkdir()
    (work / "manifest.json").write_text('{"kind": "synthesis"}')
    assert str(wrong_kind(work, "run")) == (f"{work} is the work folder of a synthesis (its dataset is items.jsonl in "
                                            "the folder above), not a run")
    with pytest.raises(JudgeAgentError) as info:
        check_format(True, tmp_path, "judgeagent.run", 2, "run", "")
    assert str(info.value) == f"{tmp_path} is not a judgeagent run: its manifest.json holds a boolean, not a JSON object"


def test_files_a_key_with_dots_of_its_own_wins_over_the_path_it_spells():
    # files.py:288 (`path in record or ...` -> `and`: a key with dots read as a path): a flattened export's
    # `meta.answer` column is the value, not the nested object's `answer`
    from judgeagent.files import field_value

    record = {"meta.answer": "flat", "meta": {"answer": "nested", "list": [{"x": 1}, {"x": 2}]}}
    assert [field_value(record, p) for p in ("meta.answer", "meta.list.x", "meta.list.1.x", "meta.none", "none")] \
        == ["flat", 1, 2, None, None]


def test_files_a_folder_named_as_the_file_to_write_and_a_json_files_text(tmp_path):
    # files.py:185 (check_writable's message emptied), :216 (write_json_atomic's `ensure_ascii=False` -> True: a
    # manifest's names as \u escapes, not the text a person reads)
    from judgeagent.files import check_writable, write_json_atomic

    with pytest.raises(JudgeAgentError) as info:
        check_writable(tmp_path)
    assert str(info.value) == f"cannot write {tmp_path}: it is a folder; give a file name"
    write_json_atomic(tmp_path / "manifest.json", {"name": "café 北京"})
    assert (tmp_path / "manifest.json").read_text(encoding="utf-8") == '{\n  "name": "café 北京"\n}\n'
