"""A scripted model server on 127.0.0.1 for tests that run the real coding-agent CLIs.

It speaks the two APIs those CLIs stream from, with server-sent events (SSE):

- the Anthropic Messages API (``POST /v1/messages``, Claude Code through ``ANTHROPIC_BASE_URL``);
- the OpenAI Responses API (``POST /v1/responses``, Codex through a provider with ``wire_api = "responses"``).

A test scripts the *turns* of one agent session: each model request that carries tools (the agent's
conversation) takes the next turn of the script; a request without tools (a CLI's side question, such
as a title) is answered with ``side_text`` and takes no turn. When the script has run out, every
further request is answered with ``Text(done_text)``, so a CLI never loops on an empty reply.

API::

    from tests.model_server import ModelServer, Text, ToolCall, HttpError, Hang

    with ModelServer([ToolCall.shell("python3 -c 'print(1)'"), Text("done")]) as server:
        server.url              # "http://127.0.0.1:<port>" (the port is chosen by the OS)
        ...                     # run the CLI against server.url
    server.requests             # every request, in order: RecordedRequest(method, path, headers, body)
    server.turns_taken          # how many turns of the script were answered

A turn is one of:

- ``Text("...")``: the model's final text (``end_turn``);
- ``ToolCall(name, arguments)``: one tool call. ``name`` is the tool as the request's tool list names it:
  pick it with :meth:`RecordedRequest.tool_names` inside a callable turn, or use the helpers
  ``ToolCall.shell(cmd)`` / ``ToolCall.read(path)`` / ``ToolCall.write(path, text)``, which choose Claude Code's ``Bash`` /
  ``Write`` or Codex's shell tool from the request they answer (``ToolCall.read(path)`` first: Claude Code
  overwrites only a file it has read);
- ``HttpError(status, message)``: an HTTP error (500 by default) with a JSON error body;
- ``Hang()``: accept the request and never answer (until the server stops);
- a callable ``(RecordedRequest) -> turn``: decided when the request arrives.

The server stops itself after ``lifetime_s`` (default 120 s) so a stuck test never leaves it running.
"""

from __future__ import annotations

import itertools
import json
import shlex
import threading
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

__all__ = ["Hang", "HttpError", "ModelServer", "RecordedRequest", "Text", "ToolCall", "Turn"]


@dataclass
class RecordedRequest:
    """One request the server received: method, path (with query), headers, parsed JSON body (``{}`` if none)."""

    method: str
    path: str
    headers: dict[str, str]
    body: dict[str, Any]

    @property
    def api(self) -> str:
        """``messages`` (Anthropic), ``responses`` (OpenAI) or ``other``."""
        route = self.path.split("?", 1)[0].rstrip("/")
        if route.endswith("/messages"):
            return "messages"
        if route.endswith("/responses"):
            return "responses"
        return "other"

    def tool_names(self) -> list[str]:
        """The names of the tools the request offers the model (both APIs)."""
        names = []
        for tool in self.body.get("tools") or []:
            name = tool.get("name") or (tool.get("function") or {}).get("name")
            if tool.get("type") == "namespace":  # Codex: an MCP server's tools, as <namespace>__<tool>
                names += [f"{name}__{t.get('name')}" for t in tool.get("tools") or []]
            elif name:
                names.append(str(name))
        return names

    def text(self) -> str:
        """Every string in the body joined: what a test searches for a prompt, a tool result or a secret."""
        return json.dumps(self.body, ensure_ascii=False)


@dataclass
class Text:
    """The model's final text of a turn."""

    text: str


@dataclass
class ToolCall:
    """One tool call: ``name`` as the request's tool list names it, ``arguments`` its JSON input; ``namespace``:
    the Responses API's namespace of the tool (Codex offers an MCP server's tools in one)."""

    name: str
    arguments: dict[str, Any]
    namespace: str | None = None

    @staticmethod
    def mcp(server: str, tool: str, arguments: dict[str, Any]) -> Callable[[RecordedRequest], ToolCall]:
        """Call ``tool`` of the MCP server ``server``: Claude Code's ``mcp__<server>__<tool>``, Codex's
        ``<tool>`` in the namespace ``mcp__<server>``."""

        def choose(req: RecordedRequest) -> ToolCall:
            if req.api == "responses":
                return ToolCall(tool, arguments, namespace=f"mcp__{server}")
            return ToolCall(f"mcp__{server}__{tool}", arguments)

        return choose

    @staticmethod
    def shell(command: str) -> Callable[[RecordedRequest], ToolCall]:
        """Run ``command`` (a shell command line) with the CLI's shell tool, whichever CLI asks."""

        def choose(req: RecordedRequest) -> ToolCall:
            names = req.tool_names()
            if "Bash" in names:
                return ToolCall("Bash", {"command": command, "description": "run a command"})
            if "exec_command" in names:  # Codex: it answers after yield_time_ms even when the command runs on
                return ToolCall("exec_command", {"cmd": command, "yield_time_ms": 120_000})
            if "shell_command" in names:
                return ToolCall("shell_command", {"command": command})
            if "shell" in names:
                return ToolCall("shell", {"command": ["bash", "-c", command]})
            raise AssertionError(f"no shell tool among {names}")

        return choose

    @staticmethod
    def read(path: str) -> Callable[[RecordedRequest], ToolCall]:
        """Read ``path`` with the CLI's file tool (Claude Code's ``Read``: its ``Write`` refuses to overwrite a
        file it has not read), else ``cat`` it through its shell."""

        def choose(req: RecordedRequest) -> ToolCall:
            if "Read" in req.tool_names():
                return ToolCall("Read", {"file_path": path})
            return ToolCall.shell(shlex.join(["cat", path]))(req)

        return choose

    @staticmethod
    def write(path: str, text: str) -> Callable[[RecordedRequest], ToolCall]:
        """Write ``text`` to ``path`` with the CLI's file tool (Claude Code's ``Write``), else through its shell."""

        def choose(req: RecordedRequest) -> ToolCall:
            if "Write" in req.tool_names():
                return ToolCall("Write", {"file_path": path, "content": text})
            script = "import pathlib,sys; pathlib.Path(sys.argv[1]).write_text(sys.argv[2])"
            return ToolCall.shell(shlex.join(["python3", "-c", script, path, text]))(req)

        return choose


@dataclass
class HttpError:
    """An HTTP error reply with a JSON error body."""

    status: int = 500
    message: str = "scripted server error"


@dataclass
class Hang:
    """Accept the request and send nothing until the server stops."""


Turn = Text | ToolCall | HttpError | Hang | Callable[[RecordedRequest], Any]


def _sse(events: Iterable[tuple[str, dict[str, Any]]]) -> bytes:
    return b"".join(f"event: {name}\ndata: {json.dumps(data)}\n\n".encode() for name, data in events)


def _anthropic_stream(turn: Text | ToolCall, model: str, serial: int) -> bytes:
    usage = {"input_tokens": 10, "output_tokens": 1}
    message = {
        "id": f"msg_{serial:04d}",
        "type": "message",
        "role": "assistant",
        "model": model,
        "content": [],
        "stop_reason": None,
        "stop_sequence": None,
        "usage": usage,
    }
    events: list[tuple[str, dict[str, Any]]] = [("message_start", {"type": "message_start", "message": message})]
    if isinstance(turn, Text):
        block = {"type": "text", "text": ""}
        delta = {"type": "text_delta", "text": turn.text}
        stop = "end_turn"
    else:
        block = {"type": "tool_use", "id": f"toolu_{serial:04d}", "name": turn.name, "input": {}}
        delta = {"type": "input_json_delta", "partial_json": json.dumps(turn.arguments)}
        stop = "tool_use"
    events += [
        ("content_block_start", {"type": "content_block_start", "index": 0, "content_block": block}),
        ("content_block_delta", {"type": "content_block_delta", "index": 0, "delta": delta}),
        ("content_block_stop", {"type": "content_block_stop", "index": 0}),
        (
            "message_delta",
            {"type": "message_delta", "delta": {"stop_reason": stop, "stop_sequence": None}, "usage": usage},
        ),
        ("message_stop", {"type": "message_stop"}),
    ]
    return _sse(events)


def _responses_stream(turn: Text | ToolCall, model: str, serial: int) -> bytes:
    rid = f"resp_{serial:04d}"
    if isinstance(turn, Text):
        item: dict[str, Any] = {
            "type": "message",
            "id": f"msg_{serial:04d}",
            "role": "assistant",
            "status": "completed",
            "content": [{"type": "output_text", "text": turn.text, "annotations": []}],
        }
    else:
        item = {
            "type": "function_call",
            "id": f"fc_{serial:04d}",
            "call_id": f"call_{serial:04d}",
            "name": turn.name,
            "arguments": json.dumps(turn.arguments),
            "status": "completed",
        }
        if turn.namespace is not None:
            item["namespace"] = turn.namespace
    response = {"id": rid, "object": "response", "model": model, "status": "in_progress", "output": []}
    usage = {
        "input_tokens": 10,
        "input_tokens_details": {"cached_tokens": 0},
        "output_tokens": 1,
        "output_tokens_details": {"reasoning_tokens": 0},
        "total_tokens": 11,
    }
    events: list[tuple[str, dict[str, Any]]] = [
        ("response.created", {"type": "response.created", "response": response}),
        ("response.output_item.added", {"type": "response.output_item.added", "output_index": 0, "item": item}),
    ]
    if isinstance(turn, Text):
        events.append(
            (
                "response.output_text.delta",
                {"type": "response.output_text.delta", "item_id": item["id"], "output_index": 0, "delta": turn.text},
            )
        )
    events += [
        ("response.output_item.done", {"type": "response.output_item.done", "output_index": 0, "item": item}),
        (
            "response.completed",
            {
                "type": "response.completed",
                "response": {**response, "status": "completed", "output": [item], "usage": usage},
            },
        ),
    ]
    return _sse(events)


@dataclass
class ModelServer:
    """The scripted server (a context manager); see the module docstring.

    Args:
        script: the turns of the agent's session, in order.
        done_text: the text answered once the script has run out.
        side_text: the text answered to a request that offers no tools (it takes no turn).
        lifetime_s: the server stops itself after this many seconds.
    """

    script: list[Turn] = field(default_factory=list)
    done_text: str = "Done."
    side_text: str = "ok"
    lifetime_s: float = 120.0
    requests: list[RecordedRequest] = field(default_factory=list)
    turns_taken: int = 0

    def __post_init__(self) -> None:
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._serial = itertools.count(1)
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args: Any) -> None:  # keep test output clean
                pass

            def do_HEAD(self) -> None:
                server._record(self, {})
                self._send(200, b"", "text/plain")

            def do_GET(self) -> None:
                server._record(self, {})
                self._send(404, json.dumps({"error": {"message": "not here"}}).encode(), "application/json")

            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                raw = self.rfile.read(length) if length else b""
                try:
                    body = json.loads(raw or b"{}")
                except ValueError:
                    body = {"raw": raw.decode(errors="replace")}
                req = server._record(self, body if isinstance(body, dict) else {"raw": body})
                turn = server._next_turn(req)
                if isinstance(turn, Hang):
                    server._stop.wait(server.lifetime_s)
                    self.close_connection = True
                    return
                if isinstance(turn, HttpError):
                    err = {"type": "error", "error": {"type": "api_error", "message": turn.message}}
                    self._send(turn.status, json.dumps(err).encode(), "application/json")
                    return
                model = str(req.body.get("model") or "scripted-model")
                serial = next(server._serial)
                if req.api == "responses":
                    payload = _responses_stream(turn, model, serial)
                elif req.body.get("stream"):
                    payload = _anthropic_stream(turn, model, serial)
                else:
                    self._send(200, json.dumps(_anthropic_message(turn, model, serial)).encode(), "application/json")
                    return
                self._send(200, payload, "text/event-stream")

            def _send(self, status: int, payload: bytes, kind: str) -> None:
                try:
                    self.send_response(status)
                    self.send_header("Content-Type", kind)
                    self.send_header("Content-Length", str(len(payload)))
                    self.end_headers()
                    if self.command != "HEAD":
                        self.wfile.write(payload)
                except (BrokenPipeError, ConnectionResetError):  # the client gave up
                    pass

        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._httpd.daemon_threads = True
        self.url = f"http://127.0.0.1:{self._httpd.server_address[1]}"
        self._thread = threading.Thread(target=self._httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
        self._watchdog = threading.Timer(self.lifetime_s, self.stop)
        self._watchdog.daemon = True

    def _record(self, handler: BaseHTTPRequestHandler, body: dict[str, Any]) -> RecordedRequest:
        req = RecordedRequest(handler.command, handler.path, dict(handler.headers), body)
        with self._lock:
            self.requests.append(req)
        return req

    def _next_turn(self, req: RecordedRequest) -> Any:
        with self._lock:
            if req.api == "other" or not req.tool_names():
                turn: Any = Text(self.side_text)
            elif self.turns_taken < len(self.script):
                turn = self.script[self.turns_taken]
                self.turns_taken += 1
            else:
                turn = Text(self.done_text)
        while callable(turn) and not isinstance(turn, Text | ToolCall | HttpError | Hang):
            turn = turn(req)
        return turn

    def model_requests(self) -> list[RecordedRequest]:
        """The requests that took a turn or would have (those offering tools)."""
        return [r for r in self.requests if r.api != "other" and r.tool_names()]

    def start(self) -> ModelServer:
        self._thread.start()
        self._watchdog.start()
        return self

    def stop(self) -> None:
        """Stop serving (idempotent); a hanging request is let go."""
        self._stop.set()
        self._watchdog.cancel()
        if self._thread.is_alive():
            self._httpd.shutdown()
        self._httpd.server_close()

    def __enter__(self) -> ModelServer:
        return self.start()

    def __exit__(self, *exc: Any) -> None:
        self.stop()


def _anthropic_message(turn: Text | ToolCall, model: str, serial: int) -> dict[str, Any]:
    """A non-streaming Messages API reply (some CLI side requests do not stream)."""
    if isinstance(turn, Text):
        content: list[dict[str, Any]] = [{"type": "text", "text": turn.text}]
        stop = "end_turn"
    else:
        content = [{"type": "tool_use", "id": f"toolu_{serial:04d}", "name": turn.name, "input": turn.arguments}]
        stop = "tool_use"
    return {
        "id": f"msg_{serial:04d}",
        "type": "message",
        "role": "assistant",
        "model": model,
        "content": content,
        "stop_reason": stop,
        "stop_sequence": None,
        "usage": {"input_tokens": 10, "output_tokens": 1},
    }
