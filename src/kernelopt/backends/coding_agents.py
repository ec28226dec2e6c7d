"""The coding-agent CLIs kernelopt knows by name (Claude Code, Codex), and how to read what any agent printed. Pure.

- :data:`KNOWN`: each CLI's program, npm package and the version its documented command lines are tested
  with (docs/agents.md); :func:`version_problem` says when an installed one is older.
- :func:`infrastructure_failure`: whether a failed agent run failed for its own infrastructure (not logged
  in, a missing API key, an HTTP error of the model API, a rate limit, a network error) rather than for the
  work it was given. Such a failure is the verdict ``AGENT_UNAVAILABLE``, never a lesson about the action.
- :func:`read_output`: an agent's standard output, plain text or the JSON lines of Claude Code's
  ``--output-format stream-json`` and Codex's ``exec --json``: its final message (where ``NO_NEW_ACTION``
  is looked for), what it did, one readable line per step (the transcript), and the error it reported.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from pydantic import BaseModel, ConfigDict

from kernelopt.numeric import is_int
from kernelopt.oneline import one_line


class CodingAgent(BaseModel):
    """A coding-agent CLI kernelopt documents and tests.

    Attributes:
        program: the executable's name.
        product: what its makers call it.
        package: its npm package.
        tested_version: the version the documented command lines and the real-CLI tests were run with
            (tests/test_agent_clis.py); an older one may lack a flag they use.
        version_pattern: finds the version in the output of ``<program> --version``.
        command: the documented ``agent-cli`` command template for either stage (docs/agents.md), with the
            flags that keep the user's HOME and other workspaces clean and let the agent run the commands
            the prompts name.
    """

    model_config = ConfigDict(frozen=True)

    program: str
    product: str
    package: str
    tested_version: str
    version_pattern: str
    command: str

    @property
    def install(self) -> str:
        """The command that installs the tested version."""
        return f"npm install -g {self.package}@{self.tested_version}"


CLAUDE_CODE = CodingAgent(
    program="claude",
    product="Claude Code",
    package="@anthropic-ai/claude-code",
    tested_version="2.1.197",
    version_pattern=r"(\d+\.\d+\.\d+) \(Claude Code\)",
    # -p: one task, no terminal; --allowedTools: what it may do without asking (Edit(./**), Write(./**):
    # files under the working directory only, where --permission-mode acceptEdits would let it write
    # anywhere, other workspaces included; a `:*` suffix allows a command any arguments);
    # --no-session-persistence: no transcript under ~/.claude/projects; stream-json (needs --verbose with
    # -p): every step on stdout, read back by kernelopt.
    command='claude -p "Read {prompt_file} and do exactly what it says." '
    '--allowedTools "Read,Edit(./**),Write(./**),Bash(python test_kernel.py:*),Bash(python3 test_kernel.py:*),'
    'Bash(kernelopt wiki:*),Bash(kernelopt evidence:*),Bash(kernelopt tunables:*)" '
    "--no-session-persistence --output-format stream-json --verbose",
)
CODEX = CodingAgent(
    program="codex",
    product="Codex",
    package="@openai/codex",
    tested_version="0.171.0",
    version_pattern=r"codex-cli (\d+\.\d+\.\d+)",
    # exec: one task; workspace-write: may edit the working directory and $TMPDIR (kernelopt gives each
    # run its own), not the rest of /tmp (kernelopt's default --root: other workspaces live there);
    # allow_login_shell=false: commands run in `bash -c`, not a login shell that resets PATH;
    # features.shell_snapshot=false: no ~/.codex/shell_snapshots/*.sh (they hold the environment, the API
    # key included, and stay behind when Codex is killed); --ephemeral: no rollout or session files.
    command="codex exec --sandbox workspace-write -c sandbox_workspace_write.exclude_slash_tmp=true "
    "-c allow_login_shell=false -c features.shell_snapshot=false --ephemeral "
    '"Read {prompt_file} and do exactly what it says."',
)
KNOWN = (CLAUDE_CODE, CODEX)


def known_agent(program: str) -> CodingAgent | None:
    """The known CLI that ``program`` (a name or a path) runs, or ``None``."""
    name = os.path.basename(program)
    return next((a for a in KNOWN if a.program == name), None)


def _version_tuple(text: str) -> tuple[int, ...]:
    return tuple(int(p) for p in text.split("."))


def version_problem(agent: CodingAgent, version_output: str) -> str | None:
    """Why the output of ``<program> --version`` is not a usable version of ``agent``, or ``None``.

    A version older than :attr:`CodingAgent.tested_version`, or output that names none, is a problem; a
    newer one is not.
    """
    m = re.search(agent.version_pattern, version_output)
    if m is None:
        said = one_line(version_output.strip(), 120) or "nothing"
        return f"`{agent.program} --version` did not name a {agent.product} version (it printed {said!r})"
    found = m.group(1)
    if _version_tuple(found) < _version_tuple(agent.tested_version):
        return (
            f"{agent.product} {found} is older than {agent.tested_version}, the version kernelopt's "
            "command lines are tested with"
        )
    return None


# Each pattern marks a line of a failed run as the agent's infrastructure failing, with the words people
# use for it. Seen with the real CLIs (2026-12-04/05, Claude Code 2.1.197, Codex 0.171.0): "Not logged in ·
# Please run /login", "API Error: 500 ...", "ERROR: Missing environment variable: `OPENAI_API_KEY`.",
# "ERROR: We're currently experiencing high demand" (Codex's words for an HTTP 5xx).
_UNAVAILABLE = (
    ("not logged in", r"not logged in|please run /login|run `?codex login"),
    ("no API key", r"missing environment variable|api key (is )?(missing|not set)|no api key"),
    ("API key refused", r"invalid (x-)?api[ _-]?key|authentication[_ ]failed|401 unauthori[sz]ed|status 401"),
    ("API error", r"api error: ?(5\d\d|429|529)|\b5\d\d internal|internal server error|overloaded|high demand"),
    ("rate limit or quota", r"rate.?limit|too many requests|quota|credit balance"),
    ("network", r"stream disconnected|connection (refused|reset|error)|econnrefused|unable to connect"),
)


KEY_VARIABLES = ("ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN", "OPENAI_API_KEY", "CODEX_API_KEY")
"""The variables the known CLIs read their API key from."""


def dropped_keys(env: Mapping[str, str], passed: Mapping[str, str]) -> list[str]:
    """The :data:`KEY_VARIABLES` set in ``env`` (kernelopt's environment) that the agent did not get (``passed``):
    what to name in ``KERNELOPT_KEEP_ENV`` when the agent says it is not logged in or has no key."""
    return [name for name in KEY_VARIABLES if env.get(name) and name not in passed]


TAIL_LINES = 40
"""How many last lines of a failed run's output are searched for an infrastructure failure."""


def infrastructure_failure(text: str) -> str | None:
    """``"<kind>: <line>"`` for the first of the last :data:`TAIL_LINES` lines of ``text`` (a failed agent
    run's output) that says its infrastructure failed (not logged in, no API key, the API refused the key,
    an API or network error, a rate limit), or ``None``."""
    for line in text.splitlines()[-TAIL_LINES:]:
        for kind, pattern in _UNAVAILABLE:
            if re.search(pattern, line, re.IGNORECASE):
                return f"{kind}: {one_line(line.strip(), 200)}"
    return None


@dataclass
class AgentOutput:
    """What an agent's standard output says.

    Attributes:
        final_text: the agent's last message (all of stdout when it is plain text).
        steps: one readable line per thing the agent did (JSON output only; empty for plain text).
        error: the error the agent reported in its JSON events (an API error, ``is_error``), or ``None``.
        json_events: the number of JSON events read (0: plain text).
        tool_calls: the tools the model called (Claude Code's ``tool_use`` blocks, Codex's commands, file changes
            and MCP calls): a model that answered, whatever else its run did.
        turns: the turns Claude Code's result counted, when it printed one.
        max_turns: Claude Code's result said the run ended at its turn limit (``error_max_turns``).
    """

    final_text: str
    steps: list[str] = field(default_factory=list)
    error: str | None = None
    json_events: int = 0
    tool_calls: int = 0
    turns: int | None = None
    max_turns: bool = False


TOOL_CALL = "tool call"
"""How a step line of a tool call starts (Claude Code's ``tool_use``, Codex's MCP calls)."""


def _content_lines(message: dict[str, Any]) -> list[str]:
    out = []
    for block in message.get("content") or []:
        if not isinstance(block, dict):
            continue
        kind = block.get("type")
        if kind == "text" and block.get("text"):
            out.append(f"assistant: {block['text']}")
        elif kind == "tool_use":
            out.append(f"{TOOL_CALL} {block.get('name')}: {json.dumps(block.get('input'), ensure_ascii=False)}")
        elif kind == "tool_result":
            content = block.get("content")
            if isinstance(content, list):
                content = " ".join(str(c.get("text", "")) for c in content if isinstance(c, dict))
            err = " (error)" if block.get("is_error") else ""
            out.append(f"tool result{err}: {content}")
    return out


def _claude_event(ev: dict[str, Any], out: AgentOutput) -> None:
    kind = ev.get("type")
    if kind == "system" and ev.get("subtype") == "init":
        out.steps.append(f"session: model {ev.get('model')}, tools {len(ev.get('tools') or [])}")
    elif kind in ("assistant", "user"):
        lines = _content_lines(ev.get("message") or {})
        out.steps += lines
        out.tool_calls += sum(line.startswith(TOOL_CALL) for line in lines)
        if ev.get("error"):
            out.error = str(ev["error"])
    elif kind == "result":
        out.final_text = str(ev.get("result") or "")
        turns = ev.get("num_turns")
        out.turns = turns if is_int(turns) else out.turns
        out.max_turns = ev.get("subtype") == "error_max_turns"
        status = ev.get("api_error_status")
        if ev.get("is_error") or status:
            out.error = f"API error {status}: {out.final_text}" if status else out.final_text or "is_error"
        out.steps.append(f"result ({ev.get('subtype')}, {ev.get('num_turns')} turns): {out.final_text}")


def _codex_event(ev: dict[str, Any], out: AgentOutput) -> None:
    kind = ev.get("type")
    item = ev.get("item") if isinstance(ev.get("item"), dict) else {}
    if kind == "item.completed" and item.get("type") == "agent_message":
        out.final_text = str(item.get("text") or "")
        out.steps.append(f"assistant: {out.final_text}")
    elif kind == "item.completed" and item.get("type") in ("command_execution", "file_change", "mcp_tool_call"):
        out.tool_calls += 1
        _codex_tool(item, out)
    elif kind == "item.completed" and item.get("type") == "error":
        out.steps.append(f"warning: {item.get('message')}")
    elif kind in ("turn.failed", "error"):
        err = ev.get("error") if isinstance(ev.get("error"), dict) else ev
        out.error = str(err.get("message") or kind)
        out.steps.append(f"error: {out.error}")
    elif kind == "turn.completed":
        out.steps.append(f"turn completed: {json.dumps(ev.get('usage'))}")


def _codex_tool(item: dict[str, Any], out: AgentOutput) -> None:
    """One line (two for a command's output) per tool Codex called."""
    if item.get("type") == "command_execution":
        out.steps.append(f"command (exit {item.get('exit_code')}): {item.get('command')}")
        if item.get("aggregated_output"):
            out.steps.append(f"output: {item['aggregated_output']}")
    elif item.get("type") == "file_change":
        changes = ", ".join(f"{c.get('kind')} {c.get('path')}" for c in item.get("changes") or [])
        out.steps.append(f"file change: {changes}")
    else:
        out.steps.append(f"{TOOL_CALL} {item.get('server')}.{item.get('tool')}")


def read_output(stdout: str) -> AgentOutput:
    """Read an agent's standard output: JSON lines (Claude Code stream-json, Codex ``--json``) or plain text.

    Output counts as JSON lines when its first non-empty line is a JSON object with a ``type``; lines
    that are not JSON are kept as steps. Plain text is its own final message.
    """
    lines = [ln for ln in stdout.splitlines() if ln.strip()]
    first = _event(lines[0]) if lines else None
    if first is None:
        return AgentOutput(final_text=stdout)
    out = AgentOutput(final_text="")
    for line in lines:
        ev = _event(line)
        if ev is None:
            out.steps.append(line)
            continue
        out.json_events += 1
        kind = str(ev.get("type"))
        if kind in ("system", "assistant", "user", "result", "stream_event"):
            _claude_event(ev, out)
        else:
            _codex_event(ev, out)
    return out


def _event(line: str) -> dict[str, Any] | None:
    text = line.strip()
    if not text.startswith("{"):
        return None
    try:
        ev = json.loads(text)
    except ValueError:
        return None
    return ev if isinstance(ev, dict) and "type" in ev else None


# What a command line of a known CLI should carry, and what it costs without: (flag found when, advice).
_CLAUDE_ADVICE = (
    (
        lambda a: "--no-session-persistence" in a,
        "without --no-session-persistence Claude Code keeps every session's "
        "transcript (what the agent read and printed) under ~/.claude/projects/",
    ),
    (
        lambda a: "acceptEdits" not in a,
        "--permission-mode acceptEdits lets Claude Code write files anywhere, another "
        "workspace included: allow Edit(./**),Write(./**) in --allowedTools instead",
    ),
)
_CODEX_ADVICE = (
    (
        lambda a: "allow_login_shell=false" in " ".join(a),
        "without -c allow_login_shell=false Codex runs commands in a "
        "login shell, which may reset PATH (kernelopt: command not found)",
    ),
    (
        lambda a: "features.shell_snapshot=false" in " ".join(a),
        "without -c features.shell_snapshot=false Codex keeps "
        "shell snapshots (the environment, the API key included) under ~/.codex/shell_snapshots/",
    ),
    (
        lambda a: "--ephemeral" in a,
        "without --ephemeral Codex keeps rollout files (the whole session) under ~/.codex/sessions/",
    ),
    (
        lambda a: "workspace-write" not in a or "exclude_slash_tmp=true" in " ".join(a),
        "with --sandbox workspace-write "
        "and without -c sandbox_workspace_write.exclude_slash_tmp=true the agent may write anywhere in /tmp, other "
        "workspaces included",
    ),
)


def command_advice(argv: list[str]) -> list[str]:
    """What a known CLI's command line lacks of the flags that keep HOME and other workspaces clean (the
    documented lines, :attr:`CodingAgent.command`, carry them all); one line each, empty for another program."""
    agent = known_agent(argv[0]) if argv else None
    if agent is None:
        return []
    rules = _CLAUDE_ADVICE if agent is CLAUDE_CODE else _CODEX_ADVICE
    return [f"{agent.product}: {advice} (docs/agents.md)" for ok, advice in rules if not ok(argv)]
