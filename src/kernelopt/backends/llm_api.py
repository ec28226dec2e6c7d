"""The LLM API backend (``llm-api``): an OpenAI-compatible chat-completions endpoint plans or implements.

Requests go to ``<base_url>/chat/completions`` over HTTP(S) with the standard library (``urllib``);
base URL, model and key come from options or ``KERNELOPT_LLM_BASE_URL`` / ``KERNELOPT_LLM_MODEL`` /
``KERNELOPT_LLM_API_KEY`` (see :mod:`kernelopt.backends.settings`). The key is sent only in the
``Authorization`` header: it is never written to a file, a transcript or a message (every text that
leaves this module is scrubbed of it).

- Stage 2: the reply is the plan markdown; it is parsed (``kernelopt.planning.markdown.parse_plan``)
  and written to ``plans/v<N>_plan.md``. A reply ``NO_NEW_ACTION: <reason>`` means nothing new is left.
- Stage 3: the reply is a whole new ``kernel.py`` (one ```python block) or a unified diff (one
  ```diff block); a diff must apply cleanly, the result must parse as Python, and only ``kernel.py``
  is written.

Token usage is returned per stage (``tokens``: ``prompt``, ``completion``, ``total``). HTTP errors,
timeouts, connection failures and malformed replies become clear one-line failures, never tracebacks:
the implementer's ``error``, or the planner's :class:`~kernelopt.backends.protocol.BackendFailure`.
The exchange (messages, reply, usage; never the key) is saved to ``profiles/v<N>/llm_<stage>.log``.
"""

from __future__ import annotations

import http.client
import json
import re
import time
import urllib.error
import urllib.request
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from kernelopt import pyparse
from kernelopt.backends.patch import PatchError, apply_diff
from kernelopt.backends.prompts import PromptChannel, render_prompt
from kernelopt.backends.protocol import (
    BackendFailure,
    ImplementOutcome,
    PlanOutcome,
    StageContext,
    no_new_action,
    read_plan_reply,
    transcript_path,
)
from kernelopt.backends.settings import LlmApiSettings, load_settings
from kernelopt.errors import InputFileError, KerneloptError
from kernelopt.fileio import atomic_write_code, atomic_write_text, read_python
from kernelopt.numeric import is_int
from kernelopt.oneline import one_line
from kernelopt.planning.markdown import parse_plan
from kernelopt.planning.plan import Plan
from kernelopt.stagenames import Stage
from kernelopt.tunables import knob_diff

SYSTEM_PROMPTS = {
    Stage.PLAN: (
        "You are the Stage 2 planning subagent of kernelopt, a profile-driven GPU kernel optimizer. "
        "Follow the stage rules in the user message exactly and reply with the plan file only."
    ),
    Stage.IMPLEMENT: (
        "You are the Stage 3 implementation subagent of kernelopt, a profile-driven GPU kernel optimizer. "
        "Implement exactly the plan's one optimization category and reply with the new kernel.py or a diff only."
    ),
}
_FENCE = re.compile(r"^```[ \t]*([A-Za-z0-9_+-]*)[^\n]*\n(.*?)^```[ \t]*$", re.MULTILINE | re.DOTALL)
_RETRY_STATUS = frozenset({408, 409, 425, 429, 500, 502, 503, 504})


class LlmApiError(KerneloptError):
    """The chat API could not be reached, answered with an error, or sent a malformed reply."""

    exit_code = 3


class ReplyError(KerneloptError):
    """A reply does not hold what the stage needs (a plan, a kernel.py, a diff that applies)."""

    exit_code = 2


@dataclass
class ChatReply:
    """The useful part of a chat-completions response.

    Attributes:
        content: the assistant message text.
        tokens: ``prompt``, ``completion`` and ``total`` token counts the server reported.
        model: the model that answered, as the server names it.
        finish_reason: why generation stopped (``stop``, ``length``, ...).
    """

    content: str
    tokens: dict[str, int] = field(default_factory=dict)
    model: str | None = None
    finish_reason: str | None = None


def parse_chat_response(data: Any) -> ChatReply:
    """Read a chat-completions JSON body.

    Raises:
        LlmApiError: not an object, an ``error`` object, no ``choices[0].message.content`` text.
    """
    if not isinstance(data, dict):
        raise LlmApiError(f"malformed reply: expected a JSON object, got {type(data).__name__}")
    if "error" in data and not data.get("choices"):
        err = data["error"]
        msg = err.get("message") if isinstance(err, dict) else err
        raise LlmApiError(f"the API returned an error: {msg}")
    choices = data.get("choices")
    if not isinstance(choices, list) or not choices or not isinstance(choices[0], dict):
        raise LlmApiError("malformed reply: no choices")
    message = choices[0].get("message")
    content = message.get("content") if isinstance(message, dict) else None
    if isinstance(content, list):  # content parts
        content = "".join(p.get("text", "") for p in content if isinstance(p, dict))
    if not isinstance(content, str) or not content.strip():
        raise LlmApiError("malformed reply: choices[0].message.content is missing or empty")
    raw_usage = data.get("usage")
    usage: dict[str, Any] = raw_usage if isinstance(raw_usage, dict) else {}
    tokens = {}
    for ours, theirs in (("prompt", "prompt_tokens"), ("completion", "completion_tokens"), ("total", "total_tokens")):
        v = usage.get(theirs)
        if is_int(v):
            tokens[ours] = v
    if "total" not in tokens and {"prompt", "completion"} <= tokens.keys():
        tokens["total"] = tokens["prompt"] + tokens["completion"]
    model = data.get("model") if isinstance(data.get("model"), str) else None
    finish = choices[0].get("finish_reason")
    return ChatReply(
        content=content, tokens=tokens, model=model, finish_reason=finish if isinstance(finish, str) else None
    )


class ChatClient:
    """A minimal OpenAI-compatible chat-completions client.

    Args:
        settings: endpoint, model, key, timeout, retries.
        sleep: the wait between retries (injectable for tests).
    """

    def __init__(self, settings: LlmApiSettings, *, sleep: Callable[[float], None] = time.sleep) -> None:
        self.settings = settings
        self._sleep = sleep

    def scrub(self, text: str) -> str:
        """``text`` with the API key (if any) replaced by ``***``."""
        key = self.settings.api_key.get_secret_value() if self.settings.api_key else ""
        return text.replace(key, "***") if key else text

    def request_body(self, messages: list[dict[str, str]]) -> dict[str, Any]:
        s = self.settings
        body: dict[str, Any] = {"model": s.model, "messages": messages}
        if s.temperature is not None:
            body["temperature"] = s.temperature
        if s.max_tokens is not None:
            body["max_tokens"] = s.max_tokens
        return body

    def complete(self, messages: list[dict[str, str]]) -> ChatReply:
        """Send ``messages`` and return the reply.

        Raises:
            LlmApiError: HTTP error (after retries for 429/5xx), timeout, connection failure, or a
                malformed reply. Messages never contain the key.
        """
        s = self.settings
        url = f"{s.base_url}/chat/completions"
        payload = json.dumps(self.request_body(messages)).encode()
        headers = {"Content-Type": "application/json", "Accept": "application/json"}
        if s.api_key is not None:
            headers["Authorization"] = f"Bearer {s.api_key.get_secret_value()}"
        last = ""
        for attempt in range(s.retries + 1):
            if attempt:
                self._sleep(s.retry_backoff_s * 2 ** (attempt - 1))
            req = urllib.request.Request(url, data=payload, headers=headers, method="POST")
            try:
                with urllib.request.urlopen(req, timeout=s.timeout_s) as resp:
                    raw = resp.read()
            except urllib.error.HTTPError as exc:
                detail = one_line(exc.read(4000).decode(errors="replace"), 500) if exc.fp else ""
                last = f"HTTP {exc.code} {exc.reason} from {url}" + (f": {detail}" if detail else "")
                if exc.code in _RETRY_STATUS:
                    continue
                raise LlmApiError(self.scrub(last)) from None
            except TimeoutError:
                last = f"no reply from {url} within {s.timeout_s:g} s"
                continue
            except urllib.error.URLError as exc:
                reason = exc.reason
                if isinstance(reason, TimeoutError):
                    last = f"no reply from {url} within {s.timeout_s:g} s"
                else:
                    last = f"cannot reach {url}: {reason}"
                continue
            except (OSError, http.client.HTTPException) as exc:
                last = f"connection to {url} failed: {type(exc).__name__}: {exc}"
                continue
            try:
                data = json.loads(raw.decode("utf-8"))
            except (UnicodeDecodeError, json.JSONDecodeError):
                snippet = one_line(raw[:800].decode(errors="replace"), 200)
                raise LlmApiError(self.scrub(f"malformed reply from {url}: not JSON: {snippet!r}")) from None
            try:
                return parse_chat_response(data)
            except LlmApiError as exc:
                raise LlmApiError(self.scrub(exc.message)) from None
        tries = f" (after {s.retries + 1} attempts)" if s.retries else ""
        raise LlmApiError(self.scrub(last + tries))


def fenced_blocks(text: str) -> list[tuple[str, str]]:
    """(language, body) of every fenced code block in ``text``."""
    return [(m.group(1).lower(), m.group(2)) for m in _FENCE.finditer(text)]


def plan_text_from_reply(text: str) -> str:
    """The plan markdown of a reply: the reply itself, or the body of a fence wrapping all of it."""
    stripped = text.strip()
    blocks = fenced_blocks(stripped + "\n")
    if len(blocks) == 1 and stripped.startswith("```") and stripped.endswith("```"):
        return blocks[0][1]
    return stripped + "\n"


def _looks_like_diff(text: str) -> bool:
    t = text.lstrip()
    return t.startswith(("--- ", "diff --git", "@@ ")) or ("\n@@ -" in t and "\n+++ " in t)


def kernel_from_reply(reply: str, current: str) -> tuple[str, str]:
    """The new ``kernel.py`` a reply asks for, and how it was given (``file`` or ``diff``).

    Raises:
        ReplyError: no code, several candidate blocks, a diff that does not apply or touches another
            file, a result that does not parse as Python, or no change at all.
    """
    blocks = fenced_blocks(reply)
    diffs = [b for lang, b in blocks if lang in ("diff", "patch", "udiff") or (not lang and _looks_like_diff(b))]
    files = [b for lang, b in blocks if lang in ("python", "py", "python3") or (not lang and not _looks_like_diff(b))]
    if len(diffs) + len(files) > 1:
        raise ReplyError(
            f"the reply holds {len(diffs) + len(files)} code blocks; expected one whole kernel.py or one diff"
        )
    if diffs or (not blocks and _looks_like_diff(reply)):
        diff = diffs[0] if diffs else reply
        try:
            new, mode = apply_diff(current, diff, target="kernel.py"), "diff"
        except PatchError as exc:
            raise ReplyError(f"the reply's diff does not apply cleanly: {exc.message}") from None
    elif files:
        new, mode = files[0], "file"
    elif not blocks and reply.strip():
        new, mode = reply.strip() + "\n", "file"
    else:
        raise ReplyError("the reply holds no python block and no diff")
    try:
        pyparse.parse(new, filename="kernel.py")
    except SyntaxError as exc:
        raise ReplyError(f"the reply's kernel.py does not parse as Python: line {exc.lineno}: {exc.msg}") from None
    if new == current:
        raise ReplyError("the reply leaves kernel.py unchanged")
    return new, mode


class _LlmApiBackend:
    name = "llm-api"

    def __init__(self, options: dict[str, Any] | None = None, *, sleep: Callable[[float], None] = time.sleep):
        self.options = dict(options or {})
        self._sleep = sleep

    def client(self, ctx: StageContext) -> ChatClient:
        settings = load_settings(LlmApiSettings, {**ctx.options, **self.options}, backend="llm-api")
        return ChatClient(settings, sleep=self._sleep)

    def exchange(self, ctx: StageContext, stage: Stage, client: ChatClient) -> tuple[ChatReply | None, str | None]:
        """Ask the model; returns (reply, None) or (None, error). The transcript is written either way."""
        prompt = render_prompt(ctx, stage.value, PromptChannel.API)
        messages = [{"role": "system", "content": SYSTEM_PROMPTS[stage]}, {"role": "user", "content": prompt}]
        t0 = time.monotonic()
        reply: ChatReply | None = None
        error = None
        try:
            reply = client.complete(messages)
        except LlmApiError as exc:
            error = exc.message
        self.log(ctx, stage, client, messages, reply, error, time.monotonic() - t0)
        return reply, error

    def log(
        self,
        ctx: StageContext,
        stage: Stage,
        client: ChatClient,
        messages: list[dict[str, str]],
        reply: ChatReply | None,
        error: str | None,
        duration_s: float,
        note: str | None = None,
    ) -> None:
        s = client.settings
        lines = [
            f"# kernelopt llm-api transcript: stage {stage.value}",
            f"endpoint: {s.base_url}/chat/completions",
            f"model: {s.model}" + (f" (answered by {reply.model})" if reply and reply.model else ""),
            f"duration_s: {duration_s:.2f}",
            f"status: {'error: ' + error if error else 'ok'}",
            f"tokens: {json.dumps(reply.tokens) if reply else '{}'}",
            f"finish_reason: {reply.finish_reason if reply else None}",
        ]
        if note:
            lines.append(f"note: {note}")
        for m in messages:
            lines += ["", f"--- {m['role']} ---", m["content"]]
        lines += ["", "--- reply ---", reply.content if reply else ""]
        path = transcript_path(ctx.workspace, ctx.version, stage, kind="llm")
        atomic_write_text(path, client.scrub("\n".join(lines).rstrip() + "\n"))

    def transcript(self, ctx: StageContext, stage: Stage) -> Any:
        return transcript_path(ctx.workspace, ctx.version, stage, kind="llm")


class LlmApiPlanner(_LlmApiBackend):
    """Stage 2 through a chat model: the reply is the plan file.

    Args:
        options: :class:`~kernelopt.backends.settings.LlmApiSettings` fields.
        parse_plan: the plan-file parser (default: :func:`kernelopt.planning.markdown.parse_plan`).
        sleep: wait between retries (injectable for tests).
    """

    def __init__(
        self,
        options: dict[str, Any] | None = None,
        *,
        parse_plan: Callable[[str], Plan] = parse_plan,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        super().__init__(options, sleep=sleep)
        self.parse_plan = parse_plan

    def plan(self, ctx: StageContext) -> PlanOutcome:
        """Ask for the plan, validate it, and write ``plans/v<N>_plan.md``.

        Returns:
            The plan (also written to ``plans/v<N>_plan.md``) with the token usage, or ``plan=None``
            with the model's reason when it replied ``NO_NEW_ACTION: <reason>``.

        Raises:
            UsageError: missing or invalid settings (no base URL or model configured).
            BackendFailure: HTTP error, timeout, unreachable server, malformed reply, or a reply that is
                not a valid plan for this version (nothing is written then).
        """
        client = self.client(ctx)
        transcript = self.transcript(ctx, Stage.PLAN)
        reply, error = self.exchange(ctx, Stage.PLAN, client)
        if reply is None:
            raise BackendFailure(f"llm-api planner: {error}", transcript=transcript)
        tokens = dict(reply.tokens)

        def fail(msg: str) -> BackendFailure:
            return BackendFailure(f"llm-api planner: {client.scrub(msg)}", transcript=transcript, tokens=tokens)

        text = plan_text_from_reply(reply.content)
        reason = no_new_action(text.strip().splitlines()[0]) if text.strip() else None
        if reason is not None:
            reason = reason or "the model found no new action"
            return PlanOutcome(plan=None, reason=reason, transcript=transcript, tokens=tokens)
        plan = read_plan_reply(
            text, version=ctx.version, planner=self.name, fail=fail, what="the reply's plan", parser=self.parse_plan
        )
        atomic_write_text(ctx.workspace.plan_path(ctx.version), client.scrub(text))
        return PlanOutcome(plan=plan, transcript=transcript, tokens=tokens)


class LlmApiImplementer(_LlmApiBackend):
    """Stage 3 through a chat model: the reply is a new kernel.py or a unified diff of it.

    Args:
        options: :class:`~kernelopt.backends.settings.LlmApiSettings` fields.
        sleep: wait between retries (injectable for tests).
    """

    def implement(self, ctx: StageContext) -> ImplementOutcome:
        """Ask for the implementation, validate it, and write ``kernel.py`` (only).

        Raises:
            UsageError: missing or invalid settings, or no plan for this version.
        """
        client = self.client(ctx)
        ws = ctx.workspace
        if ctx.plan is None and not ws.plan_path(ctx.version).is_file():
            return ImplementOutcome(changed=False, error=f"no plan to implement (plans/v{ctx.version}_plan.md)")
        transcript = self.transcript(ctx, Stage.IMPLEMENT)
        reply, error = self.exchange(ctx, Stage.IMPLEMENT, client)
        if reply is None:
            return ImplementOutcome(changed=False, error=f"llm-api: {error}", transcript=transcript)
        try:
            old = read_python(ws.kernel_py)  # in the encoding it declares (PEP 263)
        except (OSError, InputFileError) as exc:
            return ImplementOutcome(
                changed=False,
                error=f"llm-api: cannot read kernel.py: {getattr(exc, 'message', exc)}",
                transcript=transcript,
            )
        try:
            new, mode = kernel_from_reply(reply.content, old)
        except ReplyError as exc:
            return ImplementOutcome(
                changed=False, error=f"llm-api: {exc.message}", transcript=transcript, tokens=dict(reply.tokens)
            )
        try:
            atomic_write_code(ws.kernel_py, new)  # in kernel.py's encoding (a character it cannot hold: said)
        except InputFileError as exc:
            return ImplementOutcome(
                changed=False, error=f"llm-api: {exc.message}", transcript=transcript, tokens=dict(reply.tokens)
            )
        knobs = {k: v for k, v in knob_diff(old, new).items() if v[0] is not None and v[1] is not None}
        what = ctx.plan.action if ctx.plan else "the plan"
        category = ctx.plan.action_category.value if ctx.plan else "plan"
        return ImplementOutcome(
            changed=True,
            description=f"{category}: {what} (llm-api, {'unified diff' if mode == 'diff' else 'whole file'})",
            knob_changes=dict(knobs),
            transcript=transcript,
            tokens=dict(reply.tokens),
        )
