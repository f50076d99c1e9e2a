"""A loopback OpenAI-compatible server for tests and benchmarks: fixed latency, injectable faults.

    with FakeServer(latency=0.05, faults={"429": 0.1, "500": 0.1}) as server:
        client = AsyncOpenAI(base_url=server.base_url, api_key="x")

Replies are deterministic: plain requests get an echo of the last user message; requests with a
JSON schema get the smallest object that satisfies it (or `reply` decides). Faults are drawn from a
seeded generator: "429" (with Retry-After), "500", "timeout" (answers after `hang` seconds),
"garbage" (a 200 whose content is not JSON), "badbody" (a 200 whose body is not JSON at all),
"nochoices" (a 200 whose `choices` is empty). `first` lists faults served, in order, before any drawn:
`FakeServer(first=["nochoices"] * 2)` answers the first two requests without choices, then normally.
"""
from __future__ import annotations

import asyncio
import json
import random
import threading
import time
from collections import Counter
from collections.abc import Callable
from typing import Any


class FakeServer:
    def __init__(self, latency: float = 0.0, faults: dict[str, float] | None = None, seed: int = 0,
                 hang: float = 5.0, reply: Callable[[dict[str, Any]], str] | None = None,
                 fail_after: int | None = None, first: list[str] | None = None) -> None:
        self.latency = latency
        self.faults = faults or {}
        self.hang = hang
        self.reply = reply
        self.fail_after = fail_after
        """Answer 400 to every chat request after this many: a crash, seen from the client."""
        self.first = list(first or [])
        self.random = random.Random(seed)
        self.counts: Counter[str] = Counter()
        """Requests received ("requests") and faults served, by kind."""
        self.bodies: list[dict[str, Any]] = []
        self._loop: asyncio.AbstractEventLoop | None = None
        self._stop: asyncio.Event | None = None
        self._thread: threading.Thread | None = None
        self.port = 0

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    def __enter__(self) -> "FakeServer":
        ready = threading.Event()
        self._thread = threading.Thread(target=self._run, args=(ready,), daemon=True)
        self._thread.start()
        ready.wait(10)
        return self

    def __exit__(self, *exc: object) -> None:
        if self._loop and self._stop:
            self._loop.call_soon_threadsafe(self._stop.set)
        if self._thread:
            self._thread.join(10)

    def _run(self, ready: threading.Event) -> None:
        asyncio.run(self._serve(ready))  # asyncio.run cancels open connections on the way out

    async def _serve(self, ready: threading.Event) -> None:
        self._loop = asyncio.get_running_loop()
        self._stop = asyncio.Event()
        server = await asyncio.start_server(self._handle, "127.0.0.1", 0)
        self.port = server.sockets[0].getsockname()[1]
        ready.set()
        await self._stop.wait()
        server.close()

    async def _handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            while True:
                request = await _read_request(reader)
                if request is None:
                    break
                method, path, body = request
                status, headers, payload = await self._respond(method, path, body)
                head = f"HTTP/1.1 {status} X\r\nContent-Length: {len(payload)}\r\n" + "".join(
                    f"{k}: {v}\r\n" for k, v in headers.items())
                writer.write(head.encode() + b"\r\n" + payload)
                await writer.drain()
        except (ConnectionError, asyncio.IncompleteReadError, asyncio.CancelledError):
            pass
        finally:
            writer.close()

    async def _respond(self, method: str, path: str, body: bytes) -> tuple[int, dict[str, str], bytes]:
        json_type = {"Content-Type": "application/json"}
        if method == "GET" and path.endswith("/stats"):  # for a server in another process
            return 200, json_type, json.dumps(dict(self.counts)).encode()
        if method == "GET" and path.endswith("/models"):
            return 200, json_type, json.dumps({"object": "list", "data": [{"id": "fake", "object": "model"}]}).encode()
        if self.fail_after is not None and self.counts["requests"] >= self.fail_after:
            self.counts["refused"] += 1
            return 400, json_type, b'{"error": {"message": "simulated crash"}}'
        self.counts["requests"] += 1
        request = json.loads(body or b"{}")
        self.bodies.append(request)
        fault = self._draw()
        await asyncio.sleep(self.hang if fault == "timeout" else self.latency)
        if fault == "429":
            return 429, {**json_type, "Retry-After": "0.05"}, b'{"error": {"message": "rate limited"}}'
        if fault == "500":
            return 500, json_type, b'{"error": {"message": "internal error"}}'
        if fault == "badbody":
            return 200, json_type, b"<html>bad gateway</html>"
        content = "this is { not json" if fault == "garbage" else self._content(request)
        completion = _completion(request, content)
        if fault == "nochoices":
            completion["choices"] = []
        return 200, json_type, json.dumps(completion).encode()

    def _draw(self) -> str | None:
        if self.first:
            kind = self.first.pop(0)
            self.counts[kind] += 1
            return kind
        roll, edge = self.random.random(), 0.0
        for kind, rate in self.faults.items():
            edge += rate
            if roll < edge:
                self.counts[kind] += 1
                return kind
        return None

    def _content(self, request: dict[str, Any]) -> str:
        if self.reply:
            return self.reply(request)
        fmt = request.get("response_format") or {}
        schema = fmt.get("schema") or (fmt.get("json_schema") or {}).get("schema")
        if schema:
            return json.dumps(example(schema, schema.get("$defs", {})))
        if "messages" not in request:  # the legacy completions route: text, and no log-probabilities (as a chat API)
            return f"echo: {request.get('prompt')}"
        return f"echo: {request['messages'][-1]['content']}"


def example(schema: dict[str, Any], defs: dict[str, Any]) -> Any:
    """The smallest instance of a JSON schema (enough for pydantic's schemas)."""
    if "$ref" in schema:
        return example(defs[schema["$ref"].rsplit("/", 1)[-1]], defs)
    for key in ("anyOf", "oneOf", "allOf"):
        if key in schema:
            return example(schema[key][0], defs)
    if "enum" in schema:
        return schema["enum"][0]
    kind = schema.get("type", "object")
    if kind == "object":
        return {k: example(v, defs) for k, v in schema.get("properties", {}).items()}
    if kind == "array":
        return [example(schema.get("items", {}), defs)] * max(1, schema.get("minItems", 1))
    if kind in ("integer", "number"):  # the smallest value the bounds allow (a 1-4 score is 1, not 0)
        low = schema.get("minimum", schema.get("exclusiveMinimum", 0))
        value = low + (1 if "exclusiveMinimum" in schema and "minimum" not in schema else 0)
        high = schema.get("maximum")
        value = min(value, high) if high is not None else value
        return int(value) if kind == "integer" else float(value)
    if kind == "string":
        return "x" * max(1, schema.get("minLength", 1))
    return {"boolean": False, "null": None}.get(kind, "x")


def _completion(request: dict[str, Any], content: str) -> dict[str, Any]:
    prompt = sum(len(str(m.get("content", "")).split()) for m in request.get("messages", []))
    return {
        "id": "fake-1", "object": "chat.completion", "created": int(time.time()), "model": request.get("model", "fake"),
        "choices": [{"index": 0, "finish_reason": "stop", "message": {"role": "assistant", "content": content}}],
        "usage": {"prompt_tokens": prompt, "completion_tokens": len(content.split()),
                  "total_tokens": prompt + len(content.split())},
    }


async def _read_request(reader: asyncio.StreamReader) -> tuple[str, str, bytes] | None:
    line = await reader.readline()
    if not line:
        return None
    method, path, _ = line.decode().split(" ", 2)
    length = 0
    while True:
        header = await reader.readline()
        if header in (b"\r\n", b"\n", b""):
            break
        name, _, value = header.decode().partition(":")
        if name.strip().lower() == "content-length":
            length = int(value.strip())
    body = await reader.readexactly(length) if length else b""
    return method, path, body


def serve_forever(latency: float, faults: dict[str, float] | None = None, seed: int = 0) -> None:
    """Run a server in this process until killed; print its base URL first (one line)."""
    with FakeServer(latency=latency, faults=faults, seed=seed) as server:
        print(server.base_url, flush=True)
        threading.Event().wait()


if __name__ == "__main__":
    import argparse

    parser = argparse.ArgumentParser(description="A fixed-latency OpenAI-compatible server on loopback.")
    parser.add_argument("--latency", type=float, default=0.1)
    parser.add_argument("--faults", default="{}", help='JSON, e.g. {"429": 0.1}')
    serve_forever(parser.parse_args().latency, json.loads(parser.parse_args().faults))
