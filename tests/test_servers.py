"""Real OpenAI-compatible servers as users start them, with their own defaults: llama-cpp-python's
(`python -m llama_cpp.server --model FILE`, only the port chosen free), reached by the names users type."""
import asyncio
import http.client
import logging
import os
import socket
import subprocess
import sys
import time
import urllib.request

import pytest
from pydantic import BaseModel

from judgeagent.cli import main
from judgeagent.models import OpenAIChatModel
from judgeagent.models.spec import Registry, packaged_gguf


class Capital(BaseModel):
    city: str


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="module")
def llama_cpp_python():
    """llama-cpp-python's server with its defaults: the model's id is the file's path, json_schema is refused."""
    pytest.importorskip("llama_cpp")
    gguf = str(packaged_gguf())
    for _ in range(3):  # a port free when chosen may be taken before the server binds it: another one then
        port = free_port()
        server = subprocess.Popen([sys.executable, "-m", "llama_cpp.server", "--model", gguf, "--port", str(port)],
                                  stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        url = f"http://localhost:{port}/v1"
        if _ready(server, url):
            break
        server.kill()
        server.wait(10)
    else:
        pytest.fail("llama-cpp-python's server did not start on three free ports")
    try:
        yield url, gguf
    finally:
        server.terminate()
        server.wait(10)


def _ready(server, url: str) -> bool:
    """True once the server answers its model list as itself (something else on the port is not it)."""
    deadline = time.monotonic() + 120
    while server.poll() is None and time.monotonic() < deadline:
        try:
            with urllib.request.urlopen(f"{url}/models", timeout=1) as response:
                if b'"object"' in response.read():
                    return True
        except (OSError, http.client.HTTPException, ValueError):
            pass
        time.sleep(0.25)
    return False


def test_structured_output_falls_back_once_on_llama_cpp_pythons_500(llama_cpp_python, caplog):
    """It answers a json_schema response format with HTTP 500 (its request validation): `auto` learns from that
    first refusal, says so in one line, and every later call goes straight to json_object."""
    url, gguf = llama_cpp_python
    os.environ["LLAMA_CPP_PYTHON_BASE_URL"] = url
    try:
        spec = Registry({}).resolve(f"llama-cpp-python:{gguf}")
    finally:
        del os.environ["LLAMA_CPP_PYTHON_BASE_URL"]
    assert spec.base_url == url and spec.model == gguf  # the prefix is never sent
    model = OpenAIChatModel(spec)

    async def twice():
        messages = [{"role": "user", "content": "What is the capital of France? Reply in JSON."}]
        first = await model.complete(messages, schema=Capital, max_tokens=32)
        second = await model.complete(messages, schema=Capital, max_tokens=32)
        await model.aclose()
        return first, second

    start = time.perf_counter()
    with caplog.at_level(logging.WARNING, logger="judgeagent"):
        first, second = asyncio.run(twice())
    assert first.ok and isinstance(first.parsed, Capital) and second.ok, (first, second)
    assert model.requests == 3, model.requests  # the refusal once, then one request per call
    assert model.served == gguf  # the name the server itself answers with (its model id: the file's path)
    notes = [r.getMessage() for r in caplog.records if "refused a json_schema" in r.getMessage()]
    assert len(notes) == 1 and "HTTP 500" in notes[0] and 'structured_output = "json_object"' in notes[0]
    assert time.perf_counter() - start < 60  # no retries with backoff on the refusal


def test_ping_through_the_provider_environment_variable(llama_cpp_python, capsys, monkeypatch):
    url, gguf = llama_cpp_python
    monkeypatch.setenv("LLAMA_CPP_PYTHON_BASE_URL", url)
    assert main(["ping", f"llama-cpp-python/{gguf}", "--no-cache", "--message", "Say hi."]) == 0
    out = capsys.readouterr().out
    assert f"({gguf} at {url})" in out and "reply:" in out
