"""The llm-api backend against a local chat-completions server on 127.0.0.1 with canned replies."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from kernelopt.backends.llm_api import (
    ChatClient,
    LlmApiError,
    LlmApiImplementer,
    LlmApiPlanner,
    kernel_from_reply,
    parse_chat_response,
)
from kernelopt.backends.patch import PatchError, apply_diff
from kernelopt.backends.protocol import BackendFailure
from kernelopt.backends.registry import implementer_class, planner_class
from kernelopt.backends.settings import LlmApiSettings, load_settings
from kernelopt.errors import UsageError
from kernelopt.stages.implement import stage_context

from .backends_support import fake_parse_plan, implement, make_plan, make_ws, render_plan_file, write_plan

KEY = "sk-test-9f8e7d6c5b4a-SECRET"


@dataclass
class Canned:
    """One scripted answer: a chat reply, an HTTP error, a raw body, or a delay."""

    content: str | None = None
    status: int = 200
    body: bytes | None = None
    delay_s: float = 0.0
    usage: dict[str, int] = field(default_factory=lambda: {"prompt_tokens": 1200, "completion_tokens": 340})


class ChatServer:
    """A bounded chat-completions server: answers the scripted replies in order, stops by itself."""

    def __init__(self) -> None:
        self.replies: list[Canned] = []
        self.requests: list[dict[str, Any]] = []
        self.responder: Callable[[dict[str, Any]], Canned] | None = None  # answers when no reply is scripted
        outer = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:  # keep test output clean
                pass

            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length", 0))
                body = json.loads(self.rfile.read(length) or b"{}")
                outer.requests.append({"path": self.path, "headers": dict(self.headers), "body": body})
                if outer.replies:
                    canned = outer.replies.pop(0)
                elif outer.responder is not None:
                    canned = outer.responder(body)
                else:
                    canned = Canned(status=500, body=b"no reply scripted")
                if canned.delay_s:
                    time.sleep(canned.delay_s)
                if canned.body is not None:
                    payload = canned.body
                else:
                    payload = json.dumps(
                        {
                            "id": "chatcmpl-1",
                            "model": "test-model-2026",
                            "choices": [
                                {
                                    "index": 0,
                                    "message": {"role": "assistant", "content": canned.content},
                                    "finish_reason": "stop",
                                }
                            ],
                            "usage": canned.usage,
                        }
                    ).encode()
                try:
                    self.send_response(canned.status)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(payload)))
                    self.end_headers()
                    self.wfile.write(payload)
                except (BrokenPipeError, ConnectionResetError):  # the client gave up (timeout test)
                    pass

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}/v1"
        self.thread = threading.Thread(target=self.httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
        self.watchdog = threading.Timer(60, self.httpd.shutdown)  # never outlives a stuck test
        self.watchdog.daemon = True

    def __enter__(self) -> ChatServer:
        self.thread.start()
        self.watchdog.start()
        return self

    def __exit__(self, *exc: Any) -> None:
        self.watchdog.cancel()
        self.httpd.shutdown()
        self.httpd.server_close()
        self.thread.join(timeout=5)


@pytest.fixture
def server() -> Iterator[ChatServer]:
    with ChatServer() as s:
        yield s


@pytest.fixture
def ws(ws_root: Path):
    return make_ws(ws_root)


def opts(server: ChatServer, **extra: Any) -> dict[str, Any]:
    return {"base_url": server.url, "model": "test-model", "retries": 0, "retry_backoff_s": 0, **extra}


@pytest.fixture(autouse=True)
def _key_in_env(monkeypatch: pytest.MonkeyPatch) -> None:
    for var in ("KERNELOPT_LLM_BASE_URL", "KERNELOPT_LLM_MODEL"):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setenv("KERNELOPT_LLM_API_KEY", KEY)


def _impl_ctx(ws):
    plan = make_plan()
    write_plan(ws, plan)
    return stage_context(ws, 1, plan=plan)


def _assert_key_nowhere(ws, *texts: str) -> None:
    for p in ws.root.rglob("*"):
        if p.is_file() and ".git" not in p.parts:
            assert KEY not in p.read_text(errors="replace"), f"API key leaked into {p}"
    for t in texts:
        assert KEY not in (t or "")


# -- Stage 2 --------------------------------------------------------------------------------------


def test_planner_writes_the_plan_and_records_tokens(server: ChatServer, ws) -> None:
    plan_md = render_plan_file(make_plan())
    server.replies.append(Canned(content=f"```markdown\n{plan_md}```\n"))
    out = LlmApiPlanner(opts(server), parse_plan=fake_parse_plan).plan(stage_context(ws, 1))
    assert out.plan is not None and out.plan.planner == "llm-api"
    assert ws.plan_path(1).read_text() == plan_md
    assert out.tokens == {"prompt": 1200, "completion": 340, "total": 1540}
    req = server.requests[0]
    assert req["path"] == "/v1/chat/completions" and req["headers"]["Authorization"] == f"Bearer {KEY}"
    assert req["body"]["model"] == "test-model" and req["body"]["temperature"] == 0.0
    system, user = req["body"]["messages"]
    assert system["role"] == "system" and "# kernelopt Stage 2 (plan)" in user["content"]
    assert "Reply with the content of `plans/v1_plan.md` only" in user["content"]
    assert "```python" in user["content"]  # the api channel inlines kernel.py
    log = out.transcript.read_text()
    assert out.transcript == ws.profile_dir(1) / "llm_plan.log" and "status: ok" in log and "--- reply ---" in log
    _assert_key_nowhere(ws, repr(out))


def test_planner_no_new_action(server: ChatServer, ws) -> None:
    server.replies.append(Canned(content="NO_NEW_ACTION: all block sizes and warp counts were tried"))
    out = LlmApiPlanner(opts(server), parse_plan=fake_parse_plan).plan(stage_context(ws, 1))
    assert out.plan is None and out.reason == "all block sizes and warp counts were tried"
    assert not ws.plan_path(1).exists()


@pytest.mark.parametrize(
    ("canned", "message"),
    [
        (Canned(body=b'{"id": "x", "choices": []}'), "malformed reply: no choices"),
        (Canned(body=b"<html>gateway</html>"), "not JSON"),
        (Canned(body=b'{"choices": [{"message": {"role": "assistant"}}]}'), "content is missing or empty"),
        (Canned(body=b"[1, 2]"), "expected a JSON object"),
        (Canned(status=401, body=b'{"error": {"message": "bad key"}}'), "HTTP 401"),
        (Canned(status=200, body=b'{"error": {"message": "model overloaded"}}'), "model overloaded"),
        (Canned(content="I would raise num_warps."), "not a valid plan"),
        (Canned(content=render_plan_file(make_plan(version=7))), "for version 7, expected 1"),
    ],
)
def test_planner_failures_are_clear(server: ChatServer, ws, canned: Canned, message: str) -> None:
    server.replies.append(canned)
    with pytest.raises(BackendFailure) as exc:
        LlmApiPlanner(opts(server), parse_plan=fake_parse_plan).plan(stage_context(ws, 1))
    assert message in exc.value.message and "\n" not in exc.value.one_line()
    assert exc.value.transcript is not None and exc.value.transcript.is_file()
    assert not ws.plan_path(1).exists()


def test_http_error_echoing_the_key_is_scrubbed(server: ChatServer, ws) -> None:
    server.replies.append(Canned(status=403, body=f'{{"error": "key {KEY} is revoked"}}'.encode()))
    with pytest.raises(BackendFailure) as exc:
        LlmApiPlanner(opts(server), parse_plan=fake_parse_plan).plan(stage_context(ws, 1))
    assert "HTTP 403" in exc.value.message and "key *** is revoked" in exc.value.message
    _assert_key_nowhere(ws, exc.value.one_line())


def test_retry_after_server_error(server: ChatServer, ws) -> None:
    server.replies += [Canned(status=503, body=b"busy"), Canned(content=render_plan_file(make_plan()))]
    waits: list[float] = []
    planner = LlmApiPlanner(
        opts(server, retries=2, retry_backoff_s=0.5), parse_plan=fake_parse_plan, sleep=waits.append
    )
    out = planner.plan(stage_context(ws, 1))
    assert out.plan is not None and len(server.requests) == 2 and waits == [0.5]


def test_timeout_becomes_a_failure(server: ChatServer, ws) -> None:
    server.replies.append(Canned(content="late", delay_s=2.0))
    t0 = time.monotonic()
    with pytest.raises(BackendFailure, match=r"no reply from .* within 0.4 s"):
        LlmApiPlanner(opts(server, timeout_s=0.4), parse_plan=fake_parse_plan).plan(stage_context(ws, 1))
    assert time.monotonic() - t0 < 1.9


def test_unreachable_server(ws) -> None:
    import socket

    with socket.socket() as s:  # a port that nothing listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    o = {"base_url": f"http://127.0.0.1:{port}/v1", "model": "m", "retries": 0}
    with pytest.raises(BackendFailure, match="cannot reach|connection"):
        LlmApiPlanner(o, parse_plan=fake_parse_plan).plan(stage_context(ws, 1))


def test_settings_come_from_env_and_are_validated(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("KERNELOPT_LLM_BASE_URL", "https://llm.example/v1/")
    monkeypatch.setenv("KERNELOPT_LLM_MODEL", "m1")
    import os

    s = load_settings(LlmApiSettings, {"timeout_s": 5}, os.environ, backend="llm-api")
    assert s.base_url == "https://llm.example/v1" and s.model == "m1" and s.timeout_s == 5
    assert s.api_key is not None and KEY not in repr(s) and KEY not in s.model_dump_json()
    monkeypatch.delenv("KERNELOPT_LLM_MODEL")
    with pytest.raises(UsageError, match="setting 'model' is required") as exc:
        load_settings(LlmApiSettings, {}, os.environ, backend="llm-api")
    assert "KERNELOPT_LLM_MODEL" in exc.value.one_line()
    with pytest.raises(UsageError, match="base_url"):
        load_settings(LlmApiSettings, {"base_url": "ftp://x", "model": "m"}, {}, backend="llm-api")
    monkeypatch.setenv("MY_KEY", "other")
    s2 = load_settings(LlmApiSettings, {"api_key_env": "MY_KEY", "model": "m"}, os.environ, backend="llm-api")
    assert s2.api_key is not None and s2.api_key.get_secret_value() == "other"


def test_registry() -> None:
    assert planner_class("llm-api") is LlmApiPlanner and implementer_class("llm-api") is LlmApiImplementer


# -- Stage 3 --------------------------------------------------------------------------------------


def test_implementer_whole_file(server: ChatServer, ws) -> None:
    new = ws.kernel_py.read_text().replace("num_warps=4", "num_warps=8")
    server.replies.append(Canned(content=f"Here is the kernel:\n```python\n{new}```\n"))
    report = implement(_impl_ctx(ws), LlmApiImplementer(opts(server)))
    out = report.outcome
    assert out.error is None and report.ok and ws.kernel_py.read_text() == new
    assert out.knob_changes == {"add_kernel:num_warps": (4, 8)} and "whole file" in out.description
    assert out.tokens["total"] == 1540
    user = server.requests[0]["body"]["messages"][1]["content"]
    assert "# kernelopt Stage 3 (implement)" in user and "## The plan (plans/v1_plan.md)" in user
    _assert_key_nowhere(ws, repr(out))


def test_implementer_unified_diff(server: ChatServer, ws) -> None:
    diff = (
        "--- a/kernel.py\n+++ b/kernel.py\n@@ -99,3 +99,3 @@\n"  # wrong line numbers: found by exact context
        "                      BLOCK_SIZE=1024,   # elements per program\n"
        "-                     num_warps=4)       # 128 threads\n"
        "+                     num_warps=8)       # 256 threads\n"
        "     return out\n"
    )
    server.replies.append(Canned(content=f"```diff\n{diff}```"))
    out = LlmApiImplementer(opts(server)).implement(_impl_ctx(ws))
    assert out.error is None and "unified diff" in out.description
    assert "num_warps=8)       # 256 threads" in ws.kernel_py.read_text()


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ("```diff\n--- a/kernel.py\n+++ b/kernel.py\n@@ -1,1 +1,1 @@\n-not in the file\n+x\n```", "does not apply"),
        ("```diff\n--- a/reference.py\n+++ b/reference.py\n@@ -1 +1 @@\n-a\n+b\n```", "touches reference.py"),
        ("```python\ndef run(x, y:\n    return x\n```", "does not parse as Python"),
        ("```python\ndef run(x, y):\n    return x\n```\n```python\nprint(1)\n```", "2 code blocks"),
        ("Sorry, I cannot help with that.", "does not parse as Python"),
    ],
)
def test_implementer_rejects_bad_replies(server: ChatServer, ws, content: str, message: str) -> None:
    server.replies.append(Canned(content=content))
    before = ws.kernel_py.read_bytes()
    out = LlmApiImplementer(opts(server)).implement(_impl_ctx(ws))
    assert not out.changed and message in out.error and out.tokens
    assert ws.kernel_py.read_bytes() == before


def test_reply_parsing_units() -> None:
    reply = parse_chat_response(
        {"choices": [{"message": {"content": [{"type": "text", "text": "a"}, {"type": "text", "text": "b"}]}}]}
    )
    assert reply.content == "ab" and reply.tokens == {}
    with pytest.raises(LlmApiError, match="no choices"):
        parse_chat_response({"choices": "x"})
    cur = "def run(x):\n    return x\n"
    assert kernel_from_reply("```python\ndef run(x):\n    return x + 0\n```", cur)[1] == "file"
    with pytest.raises(Exception, match="unchanged"):
        kernel_from_reply(f"```python\n{cur}```", cur)


def test_patch_applies_strictly() -> None:
    text = "a\nb\nc\nb\nd\n"
    assert apply_diff(text, "@@ -4,2 +4,2 @@\n b\n-d\n+e\n") == "a\nb\nc\nb\ne\n"
    with pytest.raises(PatchError, match="matches 2 places"):
        apply_diff(text, "@@ -9 +9 @@\n-b\n+x\n")
    with pytest.raises(PatchError, match="no hunk"):
        apply_diff(text, "nothing here")
    with pytest.raises(PatchError, match="creates or deletes"):
        apply_diff(text, "--- /dev/null\n+++ b/kernel.py\n@@ -0,0 +1 @@\n+x\n")


def test_client_scrubs_and_never_sends_key_elsewhere(server: ChatServer) -> None:
    settings = LlmApiSettings(base_url=server.url, model="m", api_key=KEY, retries=0)
    client = ChatClient(settings)
    assert client.scrub(f"token {KEY}!") == "token ***!"
    assert KEY not in json.dumps(client.request_body([{"role": "user", "content": "x"}]))
