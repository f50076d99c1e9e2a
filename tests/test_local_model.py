"""The real openai SDK against the real embedded llama.cpp server (SmolLM2-135M-Instruct) on loopback."""
import asyncio
import signal
import subprocess
import sys
import textwrap
import time

import pytest
from pydantic import BaseModel

from judgeagent.models import OpenAIChatModel, ResponseCache, RoleModel, UsageLedger, open_models
from judgeagent.models.cache import CachedModel
from judgeagent.models.local import local_server, local_spec, serving
from tests.conftest import ROOT
from tests.scripted import ctrl_c_restored


class Capital(BaseModel):
    country: str
    capital: str


@pytest.fixture(scope="module")
def served():
    with local_server(local_spec()) as spec:
        yield spec


def test_structured_output_parses_and_validates(served):
    model = OpenAIChatModel(served)
    result = asyncio.run(model.complete(
        [{"role": "user", "content": "What is the capital of France? Give the country and its capital."}],
        schema=Capital))
    assert result.ok and isinstance(result.parsed, Capital)
    assert result.usage.input_tokens > 10 and result.usage.output_tokens > 0


def test_usage_is_counted_and_cache_answers_reruns(served, tmp_path):
    ledger = UsageLedger()
    inner = OpenAIChatModel(served)
    model = RoleModel("target", CachedModel(inner, ResponseCache(tmp_path)), ledger)
    messages = [{"role": "user", "content": "Name one planet."}]
    first = asyncio.run(model.complete(messages, max_tokens=16))
    second = asyncio.run(model.complete(messages, max_tokens=16))
    assert first.text and second.text == first.text and second.cached
    assert inner.requests == 1
    line = ledger.roles["target"]
    assert (line.calls, line.cache_hits) == (1, 1)
    assert line.input_tokens == first.usage.input_tokens > 0 and line.output_tokens == first.usage.output_tokens


def test_a_running_server_is_reused(served):
    assert serving(served.base_url, served.gguf)
    with local_server(local_spec()) as again:
        assert again.base_url == served.base_url


def test_open_models_serves_all_roles_with_one_server(tmp_path):
    async def go():
        with open_models("local", cache=False) as models:
            urls = {s.base_url for s in models.specs.values()}
            reply = await models.judge.complete([{"role": "user", "content": "Say yes."}], max_tokens=4)
            await models.aclose()
            return urls, reply, models

    urls, reply, models = asyncio.run(go())
    assert len(urls) == 1 and reply.ok
    assert models.ledger.roles["judge"].calls == 1


def test_roles_on_one_model_file_keep_their_own_generation_settings():
    from judgeagent.models.roles import open_roles
    from judgeagent.models.spec import Generation, Registry, load_registry

    local = load_registry().resolve("local")
    short = local.model_copy(update={"name": "short", "generation": Generation(max_tokens=3)})
    registry = Registry({"local": local, "short": short})

    async def go(roles):
        reply = await roles["b"].complete([{"role": "user", "content": "Count from one to twenty in words."}])
        await roles.aclose()
        return reply

    with open_roles({"a": "local", "b": "short"}, registry=registry, cache=False) as roles:
        assert roles.specs["a"].base_url == roles.specs["b"].base_url  # one server
        assert roles.specs["a"].generation.max_tokens == local.generation.max_tokens != 3 and roles.specs["b"].generation.max_tokens == 3
        reply = asyncio.run(go(roles))
    assert reply.ok and reply.usage.output_tokens <= 3


def test_server_stops_on_ctrl_c():
    script = textwrap.dedent("""
        import os, signal, sys, time
        os.environ["JUDGEAGENT_LOCAL_PORT"] = "8811"
        from judgeagent.models.local import local_server, local_spec
        with local_server(local_spec()) as spec:
            print(spec.base_url, flush=True)
            time.sleep(120)
    """)
    child = subprocess.Popen([sys.executable, "-c", script], cwd=ROOT, stdout=subprocess.PIPE, text=True,
                             preexec_fn=ctrl_c_restored)
    url = child.stdout.readline().strip()
    assert url.startswith("http://127.0.0.1:")
    spec = local_spec()
    assert serving(url, spec.gguf)
    child.send_signal(signal.SIGINT)
    child.wait(30)
    deadline = time.monotonic() + 15
    while serving(url, spec.gguf) and time.monotonic() < deadline:
        time.sleep(0.2)
    assert not serving(url, spec.gguf)
    out = subprocess.run(["pgrep", "-f", "llama_cpp.server.*--port 8811"], capture_output=True, text=True)
    assert out.stdout.strip() == ""


def test_two_processes_started_together_each_keep_a_server():
    # Both start on one port at once; the first ends while the second still needs its model. Before each
    # process ran its own server on a port it held, both took one port: one failed to bind (or answered
    # through the other's server) and lost its model when the other ended.
    script = textwrap.dedent("""
        import asyncio, os, sys
        os.environ["JUDGEAGENT_LOCAL_PORT"] = "8851"
        from judgeagent.models import OpenAIChatModel
        from judgeagent.models.local import local_server, local_spec
        with local_server(local_spec()) as spec:
            print(spec.base_url, flush=True)
            sys.stdin.readline()
            reply = asyncio.run(OpenAIChatModel(spec).complete([{"role": "user", "content": "Say yes."}], max_tokens=4))
            print("ok" if reply.ok else reply.error, flush=True)
    """)
    runs = [subprocess.Popen([sys.executable, "-c", script], cwd=ROOT, stdin=subprocess.PIPE,
                             stdout=subprocess.PIPE, text=True) for _ in range(2)]
    urls = [run.stdout.readline().strip() for run in runs]
    replies = []
    for run in runs:  # one after the other: the second asks only once the first has stopped its server
        out, _ = run.communicate("go\n", timeout=120)
        replies.append((run.returncode, out.strip()))
    assert replies == [(0, "ok"), (0, "ok")]
    assert all(url.startswith("http://127.0.0.1:") for url in urls) and len(set(urls)) == 2


def test_a_server_shared_in_one_process_stays_up_until_its_last_user_leaves():
    # Two blocks of one process (two threads' jobs, say) share a server; the one that started it ends first. The
    # server stops only when the other ends (was stopped with its starter, under the other's feet).
    script = textwrap.dedent("""
        import os, urllib.request
        os.environ["JUDGEAGENT_LOCAL_PORT"] = "8871"
        from judgeagent.models.local import local_server, local_spec

        def answers(url):
            try:
                urllib.request.urlopen(url + "/models", timeout=5).close()
                return True
            except OSError:
                return False

        first, second = local_server(local_spec()), local_server(local_spec())
        one, two = first.__enter__(), second.__enter__()
        first.__exit__(None, None, None)
        up = answers(two.base_url)
        second.__exit__(None, None, None)
        print(one.base_url == two.base_url, up, answers(two.base_url))
    """)
    done = subprocess.run([sys.executable, "-c", script], cwd=ROOT, capture_output=True, text=True, timeout=120,
                          check=False)
    assert done.stdout.split() == ["True", "True", "False"], done.stderr[-500:]
