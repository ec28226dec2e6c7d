"""The scripted model server (tests/model_server.py) on its own, with plain HTTP: both APIs, every kind of turn."""

from __future__ import annotations

import json
import socket
import urllib.error
import urllib.request
from typing import Any

import pytest

from .model_server import Hang, HttpError, ModelServer, Text, ToolCall

pytestmark = pytest.mark.timeout(30)

CLAUDE_TOOLS = [{"name": "Bash", "input_schema": {}}, {"name": "Write", "input_schema": {}}]
CODEX_TOOLS = [{"type": "function", "name": "exec_command", "parameters": {}}]


def post(url: str, body: dict[str, Any], timeout: float = 5) -> tuple[int, str]:
    req = urllib.request.Request(url, json.dumps(body).encode(), {"Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(req, timeout=timeout) as r:
            return r.status, r.read().decode()
    except urllib.error.HTTPError as exc:
        return exc.code, exc.read().decode()


def events(sse: str) -> list[dict[str, Any]]:
    return [json.loads(line[6:]) for line in sse.splitlines() if line.startswith("data: ")]


def test_anthropic_messages_stream_text_tool_calls_and_errors() -> None:
    script = [ToolCall.shell("echo hi"), ToolCall.write("/w/a.txt", "x"), HttpError(500), Text("bye")]
    with ModelServer(script) as server:
        body = {"model": "m", "stream": True, "tools": CLAUDE_TOOLS, "messages": [{"role": "user", "content": "go"}]}
        status, text = post(server.url + "/v1/messages?beta=true", body)
        assert status == 200
        ev = events(text)
        assert ev[0]["type"] == "message_start" and ev[-1]["type"] == "message_stop"
        start = next(e for e in ev if e["type"] == "content_block_start")["content_block"]
        delta = next(e for e in ev if e["type"] == "content_block_delta")["delta"]
        assert start["name"] == "Bash" and json.loads(delta["partial_json"])["command"] == "echo hi"
        assert next(e for e in ev if e["type"] == "message_delta")["delta"]["stop_reason"] == "tool_use"
        ev = events(post(server.url + "/v1/messages", body)[1])
        assert next(e for e in ev if e["type"] == "content_block_start")["content_block"]["name"] == "Write"
        status, text = post(server.url + "/v1/messages", body)
        assert status == 500 and json.loads(text)["error"]["message"] == "scripted server error"
        ev = events(post(server.url + "/v1/messages", body)[1])
        assert next(e for e in ev if e["type"] == "content_block_delta")["delta"]["text"] == "bye"
        ev = events(post(server.url + "/v1/messages", body)[1])  # the script has run out
        assert next(e for e in ev if e["type"] == "content_block_delta")["delta"]["text"] == "Done."
        status, text = post(server.url + "/v1/messages", {"model": "m", "messages": []})  # a side question
        assert status == 200 and json.loads(text)["content"][0]["text"] == "ok"
    assert server.turns_taken == 4 and len(server.requests) == 6 and len(server.model_requests()) == 5
    assert server.requests[0].api == "messages" and server.requests[0].tool_names() == ["Bash", "Write"]


def test_openai_responses_stream_and_a_hang_let_go_at_stop() -> None:
    with ModelServer([ToolCall.shell("ls"), Text("fine"), Hang()]) as server:
        body = {"model": "m", "stream": True, "tools": CODEX_TOOLS, "input": []}
        ev = events(post(server.url + "/v1/responses", body)[1])
        item = next(e for e in ev if e["type"] == "response.output_item.done")["item"]
        assert item["type"] == "function_call" and item["name"] == "exec_command"
        assert (
            json.loads(item["arguments"]) == {"cmd": "ls", "yield_time_ms": 120_000}
            and ev[-1]["type"] == "response.completed"
        )
        ev = events(post(server.url + "/v1/responses", body)[1])
        item = next(e for e in ev if e["type"] == "response.output_item.done")["item"]
        assert item["content"][0]["text"] == "fine"
        with pytest.raises((TimeoutError, socket.timeout, urllib.error.URLError)):
            post(server.url + "/v1/responses", body, timeout=0.5)
    assert server.turns_taken == 3 and "exec_command" in server.requests[0].text()
