"""The coding-agent CLI backend (``agent-cli``): an external agent command runs a stage in the workspace.

The command is a template (``claude -p "Follow {prompt_file}"``, ``codex exec -``, any script) split
with shell rules but never run by a shell; placeholders ``{prompt_file}``, ``{workspace}``,
``{version}``, ``{plan_file}`` and ``{stage}`` are filled per argument. Without ``{prompt_file}`` the
prompt is fed on stdin. The agent runs with the workspace as its working directory, under a timeout
that kills its whole process group (:func:`kernelopt.proc.run_command`), and with
``KERNELOPT_WORKSPACE``, ``KERNELOPT_VERSION``, ``KERNELOPT_STAGE`` and ``KERNELOPT_PROMPT_FILE`` set, and
``TMPDIR`` pointing to a scratch folder of its own (``kernelopt-agent-*`` in the system's temporary folder,
removed after the run): a sandbox that keeps the agent out of /tmp, where other workspaces live, leaves it
and what it runs (``python test_kernel.py``: its worker's socket) a short path to write to (Codex with
``exclude_slash_tmp`` keeps ``$TMPDIR`` writable).

The agent is not trusted, and this module does not guard it: the stage runner
(:mod:`kernelopt.stages`) snapshots the workspace, the protected files and the git state around the
call and undoes whatever the agent did outside the stage's allowance. The agent's environment drops
secrets (:func:`kernelopt.proc.child_env`; the ``env`` option's names are passed as given). A
non-zero exit, a timeout, a launch failure and a run that produced nothing each fail the stage with a
clear reason (an implementer returns ``error``; a planner raises). A failure of the agent's own
infrastructure (launch failure, timeout, not logged in, no API key, an API or network error:
:func:`~kernelopt.backends.coding_agents.infrastructure_failure`) is marked ``unavailable``: the stage
records it as ``agent_unavailable``, never as a lesson about the action. Past ``timeout_s`` the agent's
process group gets SIGTERM, then SIGKILL ``term_grace_s`` seconds later (a CLI cleans up on SIGTERM).

Output as JSON lines (Claude Code's ``--output-format stream-json``, Codex's ``exec --json``) is read
(:func:`~kernelopt.backends.coding_agents.read_output`): ``NO_NEW_ACTION`` is looked for in the final
message, an error the agent reports fails the run, and the transcript shows one line per step. The
transcript (command, timing, exit status, the steps, stdout, stderr) is saved to
``profiles/v<N>/agent_<stage>.log``.
"""

from __future__ import annotations

import functools
import os
import re
import shlex
import shutil
import tempfile
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from kernelopt.backends.coding_agents import (
    TOOL_CALL,
    AgentOutput,
    dropped_keys,
    infrastructure_failure,
    known_agent,
    read_output,
    version_problem,
)
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
from kernelopt.backends.settings import PLACEHOLDERS, AgentCliSettings, load_settings
from kernelopt.env import inherited
from kernelopt.errors import EnvironmentProblem, InputFileError, UsageError
from kernelopt.fileio import atomic_write_text, decode_python, link_target, made_a_link
from kernelopt.oneline import one_line
from kernelopt.planning.markdown import parse_plan
from kernelopt.planning.plan import PLAN_CHARS, Plan
from kernelopt.proc import CommandResult, child_env, run_command
from kernelopt.stagenames import Stage
from kernelopt.tunables import knob_diff

_FIELD = re.compile(r"\{\{|\}\}|\{([^{}]*)\}")
VERSION_TIMEOUT_S = 30.0
"""Limit for ``<agent> --version`` when a known CLI's version is checked, s."""


def build_argv(template: str, values: Mapping[str, str]) -> list[str]:
    """Split ``template`` like a shell would (no shell runs it) and fill the placeholders per argument.

    Raises:
        UsageError: the template does not split (unbalanced quotes), is empty, or names an unknown
            placeholder.
    """
    try:
        tokens = shlex.split(template)
    except ValueError as exc:
        raise UsageError(f"agent command {template!r} does not split: {exc}") from None
    if not tokens:
        raise UsageError("agent command is empty")

    def fill(m: re.Match[str]) -> str:
        if m.group(0) == "{{":
            return "{"
        if m.group(0) == "}}":
            return "}"
        name = m.group(1)
        if name not in values:
            raise UsageError(f"agent command: unknown placeholder {{{name}}}", hint=f"known: {', '.join(PLACEHOLDERS)}")
        return values[name]

    return [_FIELD.sub(fill, tok) for tok in tokens]


def check_command(template: str) -> None:
    """Fail before any stage runs when the agent command's program cannot be found.

    Raises:
        UsageError: the template does not split or is empty.
        EnvironmentProblem: its program is not on PATH (or not an executable file).
    """
    program = build_argv(template, {name: name for name in PLACEHOLDERS})[0]
    if os.sep in program:
        found = os.path.isfile(program) and os.access(program, os.X_OK)
    else:
        found = shutil.which(program) is not None
    agent = known_agent(program)
    if not found:
        if agent is not None:
            raise EnvironmentProblem(
                f"agent command not found: {program!r} ({agent.product})", hint=f"install it: {agent.install}"
            )
        raise EnvironmentProblem(
            f"agent command not found: {program!r}", hint="install it or put it on PATH (see docs/agents.md)"
        )
    if agent is not None:
        problem = _version_problem(program)
        if problem is not None:
            raise EnvironmentProblem(problem, hint=f"install the tested version: {agent.install}")


@functools.lru_cache(maxsize=8)
def _version_problem(program: str) -> str | None:
    """What is wrong with the installed version of a known agent CLI (asked once per program and process)."""
    agent = known_agent(program)
    if agent is None:
        return None
    try:
        r = run_command([program, "--version"], timeout_s=VERSION_TIMEOUT_S)
    except OSError as exc:
        return f"{agent.product} ({program}) does not start: {exc}"
    if r.timed_out or r.returncode != 0:
        return f"`{program} --version` failed ({'timed out' if r.timed_out else f'exit status {r.returncode}'})"
    return version_problem(agent, r.stdout + r.stderr)


STALL_FRACTION = 0.25
"""The share of an agent's time limit it must have been silent for, when the limit came, to be called stalled
(:meth:`AgentRun.stalled_s`): 450 s of the default 1800; a model calling tools prints a step every few seconds."""


@dataclass
class AgentRun:
    """One agent invocation and what it left behind."""

    stage: Stage
    argv: list[str]
    result: CommandResult | None
    transcript: Path
    launch_error: str | None = None
    dropped_keys: list[str] | None = None  # API key variables kernelopt holds and did not pass on

    @functools.cached_property
    def output(self) -> AgentOutput:
        """The agent's standard output as read (:func:`~kernelopt.backends.coding_agents.read_output`)."""
        return read_output(self.result.stdout if self.result else "")

    def failure(self, timeout_s: float) -> str | None:
        """Why the run failed (launch error, timeout, signal, non-zero exit, an error the agent reported),
        or ``None``; an infrastructure failure says so (:meth:`infrastructure`)."""
        r = self.result
        unfinished = self.unfinished()
        if self.launch_error:
            reason = self.launch_error
        elif unfinished is not None and (quiet := self.stalled_s(timeout_s)) is not None:
            waiting = (
                "waiting on its last tool call, which had not returned (a tool still running)"
                if self.output.steps[-1:] and self.output.steps[-1].startswith(TOOL_CALL)
                else "after its last tool's result (the model's API gone silent, or one long answer being written)"
            )
            reason = (
                f"the agent answered, then stalled: no output for the last {quiet:.0f} s of its {timeout_s:g} s "
                f"limit, {waiting}; its process group was stopped: {unfinished}; read the transcript's last steps, "
                "check the model's API, then give it a larger limit or a smaller plan"
            )
        elif unfinished is not None:
            stopped = (
                f"in {self.output.turns} turns (its turn limit)"
                if self.output.max_turns
                else f"in its {timeout_s:g} s limit; its process group was stopped"
            )
            reason = (
                f"the agent answered but did not finish {stopped}: {unfinished}; a model that keeps calling tools "
                "is no setup problem: give it a larger limit, or a smaller plan"
            )
        elif r is not None and r.timed_out:
            reason = f"the agent ran past its {timeout_s:g} s limit; its process group was stopped"
        elif r is not None and r.returncode is not None and r.returncode < 0:
            reason = f"the agent was killed by signal {-r.returncode}"
        elif r is not None and r.returncode != 0:
            last = self.output.error or r.stderr_tail(1).strip() or (r.stdout.strip().splitlines() or [""])[-1]
            reason = f"the agent exited with status {r.returncode}" + (f": {one_line(last, 300)}" if last else "")
        elif self.output.error:
            reason = f"the agent reported an error: {one_line(self.output.error, 300)}"
        else:
            return None
        infra = self.infrastructure()
        if infra is not None and not self.launch_error and not (r is not None and r.timed_out):
            reason += f" [agent unavailable: {infra}]"
            if self.dropped_keys and infra.startswith(("not logged in", "no API key")):
                names = ",".join(self.dropped_keys)
                reason += (
                    f"; {names} is set but kernelopt passes no secret-looking variable to the agent: "
                    f"set KERNELOPT_KEEP_ENV={names}"
                )
        return reason + f" (transcript: {self.transcript})"

    def infrastructure(self) -> str | None:
        """What of the agent's infrastructure failed, when the run failed for it: the agent could not be
        started, ran past its limit, or said it is not logged in, has no API key, or met an API or network
        error. ``None`` for a run that failed at its work, or did not fail."""
        r = self.result
        if self.launch_error:
            return "launch"
        if r is None or self.unfinished() is not None:
            return None
        if r.timed_out:
            return "timeout"
        if r.returncode == 0 and not self.output.error:
            return None
        return infrastructure_failure(self.output.error or "") or infrastructure_failure(f"{r.stdout}\n{r.stderr}")

    def stalled_s(self, timeout_s: float) -> float | None:
        """How long an agent stopped at its time limit had printed nothing when the limit came, where that is at least
        :data:`STALL_FRACTION` of the limit: a model that answered and then stalled (its API gone silent after a tool
        call, a tool that never returned, one long answer still being written: its output cannot tell these apart,
        since Claude Code's stream-json writes a message only when it is whole), not one still calling tools, whose
        steps come seconds apart (newuser21 n155). ``None`` otherwise."""
        r = self.result
        if r is None or not r.timed_out or r.silent_s is None or r.silent_s < STALL_FRACTION * timeout_s:
            return None
        return r.silent_s

    def unfinished(self) -> str | None:
        """What an agent that answered did before it was stopped unfinished, in a few words: it was still calling
        tools when it ran past its time limit, or Claude Code ended it at its turn limit. ``None`` otherwise (a
        model that never answered is :meth:`infrastructure`'s timeout). Such a run was read as the agent's
        infrastructure failing, ``AGENT_UNAVAILABLE``, like a model that never answers (discovery23 d33: 211 tool
        calls in 15 s told "make the agent available (login, API key ..., time limit)"). A run stopped at the time
        limit whose error or standard error says its infrastructure failed (an overloaded API retried until the
        limit) is not: it is :meth:`infrastructure`'s timeout, whatever tools it called before (review23 r31; its
        standard output is not read for that: the tools' output, a grep's "rate limit", is the model's work)."""
        r, out = self.result, self.output
        if r is None or self.launch_error or not (out.max_turns or (r.timed_out and out.tool_calls)):
            return None
        if not out.max_turns and infrastructure_failure(f"{out.error or ''}\n{r.stderr}") is not None:
            return None
        calls = f"{out.tool_calls} tool call{'s' if out.tool_calls != 1 else ''}"
        last = next((step for step in reversed(out.steps) if step.startswith(("tool call", "command ("))), None)
        return calls + (f", the last {one_line(last, 120)}" if last else "")

    def stdout(self) -> str:
        return self.result.stdout if self.result else ""

    def final_text(self) -> str:
        """The agent's last message (all of stdout when it printed plain text)."""
        return self.output.final_text


class _AgentCliBackend:
    name = "agent-cli"

    def __init__(self, options: dict[str, Any] | None = None) -> None:
        self.options = dict(options or {})

    def settings(self, ctx: StageContext) -> AgentCliSettings:
        return load_settings(AgentCliSettings, {**ctx.options, **self.options}, backend="agent-cli")

    def run_agent(self, ctx: StageContext, stage: Stage, settings: AgentCliSettings) -> AgentRun:
        """Render the prompt, run the agent, save the transcript."""
        ws = ctx.workspace
        prompt = render_prompt(ctx, stage.value, PromptChannel.AGENT)
        prompt_file = ws.state_dir / "agent" / f"v{ctx.version}_{stage.value}_prompt.md"
        atomic_write_text(prompt_file, prompt)
        values = {
            "prompt_file": str(prompt_file),
            "workspace": str(ws.root),
            "version": str(ctx.version),
            "plan_file": str(ws.plan_path(ctx.version)),
            "stage": stage.value,
        }
        argv = build_argv(settings.command, values)
        via_file = "{prompt_file}" in settings.command
        scratch = Path(tempfile.mkdtemp(prefix=f"kernelopt-agent-v{ctx.version}-{stage.value}-"))
        env = {
            **inherited(),
            "TMPDIR": str(scratch),  # its own scratch folder: /tmp holds other workspaces
            **settings.env,
            "KERNELOPT_WORKSPACE": str(ws.root),
            "KERNELOPT_VERSION": str(ctx.version),
            "KERNELOPT_STAGE": stage.value,
            "KERNELOPT_PROMPT_FILE": str(prompt_file),
        }
        started = datetime.now(UTC)
        t0 = time.monotonic()
        result: CommandResult | None = None
        launch_error = None
        try:
            result = run_command(
                argv,
                timeout_s=settings.timeout_s,
                cwd=ws.root,
                env=env,
                stdin_text=None if via_file else prompt,
                keep=settings.env.keys(),
                kill_leftovers=True,  # an agent's daemons (setsid) must not write into the workspace later
                term_grace_s=settings.term_grace_s,
            )
        except FileNotFoundError:
            launch_error = f"agent command not found: {argv[0]!r} (is it installed and on PATH?)"
        except PermissionError:
            launch_error = f"agent command is not executable: {argv[0]!r}"
        finally:
            shutil.rmtree(scratch, ignore_errors=True)
        passed = child_env(env, keep=settings.env.keys())
        run = AgentRun(
            stage, argv, result, transcript_path(ws, ctx.version, stage), launch_error, dropped_keys(env, passed)
        )
        self._write_transcript(run, prompt_file, via_file, started, time.monotonic() - t0, settings)
        return run

    @staticmethod
    def _write_transcript(
        run: AgentRun, prompt_file: Path, via_file: bool, started: datetime, duration_s: float, s: AgentCliSettings
    ) -> None:
        r = run.result
        if run.launch_error:
            status = run.launch_error
        elif r is not None and r.timed_out:
            status = f"timed out after {s.timeout_s:g} s (SIGTERM to its group, SIGKILL {s.term_grace_s:g} s later)"
        else:
            status = f"exit status {r.returncode if r else '?'}"
        infra, unfinished = run.infrastructure(), run.unfinished()
        if infra is not None:
            status += f"; agent unavailable: {infra}"
        elif unfinished is not None and (quiet := run.stalled_s(s.timeout_s)) is not None:
            status += f"; the agent answered, then stalled: no output for the last {quiet:.0f} s: {unfinished}"
        elif unfinished is not None:
            status += f"; the agent answered but did not finish: {unfinished}"
        steps = run.output.steps
        lines = [
            f"# kernelopt agent transcript: stage {run.stage.value}",
            f"command: {shlex.join(run.argv)}",
            f"prompt: {prompt_file} ({'as an argument' if via_file else 'on stdin'})",
            f"started: {started.isoformat(timespec='seconds')}",
            f"duration_s: {duration_s:.2f}",
            f"status: {status}",
            "",
            *([f"--- steps ({run.output.json_events} JSON events read) ---", *steps, ""] if steps else []),
            "--- stdout ---",
            r.stdout if r else "",
            "--- stderr ---",
            r.stderr if r else "",
        ]
        atomic_write_text(run.transcript, "\n".join(lines).rstrip() + "\n")


class AgentCliPlanner(_AgentCliBackend):
    """Stage 2 through a coding agent that writes ``plans/v<N>_plan.md``.

    Args:
        options: :class:`~kernelopt.backends.settings.AgentCliSettings` fields (``command``,
            ``timeout_s``, ``env``).
        parse_plan: the plan-file parser (default: :func:`kernelopt.planning.markdown.parse_plan`).
    """

    def __init__(self, options: dict[str, Any] | None = None, *, parse_plan: Callable[[str], Plan] = parse_plan):
        super().__init__(options)
        self.parse_plan = parse_plan

    def plan(self, ctx: StageContext) -> PlanOutcome:
        """Run the agent for Stage 2 and read the plan it wrote.

        Returns:
            The parsed plan, or ``plan=None`` with the agent's reason when it printed
            ``NO_NEW_ACTION: <reason>`` and wrote no plan.

        Raises:
            UsageError: missing or invalid settings (no command configured, bad placeholder).
            BackendFailure: the agent could not be started, ran past its limit, exited non-zero, wrote
                no plan, or wrote one that is not UTF-8 text or does not parse.
        """
        settings = self.settings(ctx)
        ws = ctx.workspace
        path = ws.plan_path(ctx.version)
        old = path.read_bytes() if path.is_file() else None
        run = self.run_agent(ctx, Stage.PLAN, settings)
        failure = run.failure(settings.timeout_s)

        def fail(msg: str, *, unavailable: bool = False, unfinished: bool = False) -> BackendFailure:
            return BackendFailure(
                f"agent-cli planner: {msg}", transcript=run.transcript, unavailable=unavailable, unfinished=unfinished
            )

        if failure:
            raise fail(failure, unavailable=run.infrastructure() is not None, unfinished=run.unfinished() is not None)
        rel = f"plans/v{ctx.version}_plan.md"
        if path.is_symlink():  # never read through: it may point at any file of the user's (a6)
            raise fail(f"the agent made {rel} a symbolic link, not a file (transcript: {run.transcript})")
        if path.is_file() and path.stat().st_size > 4 * PLAN_CHARS:  # never read whole: UTF-8 is at most 4 bytes a char
            size = path.stat().st_size
            raise fail(f"the agent's {rel} is {size:,} bytes, where a plan is at most {PLAN_CHARS:,} characters")
        data = path.read_bytes() if path.is_file() else None
        try:
            text = data.decode("utf-8") if data is not None else None
        except UnicodeDecodeError:
            raise fail(f"the agent's {rel} is not UTF-8 text (transcript: {run.transcript})") from None
        if text is None or data == old:
            for line in run.final_text().splitlines():
                reason = no_new_action(line)
                if reason is not None:
                    reason = reason or "the agent found no new action"
                    return PlanOutcome(plan=None, reason=reason, transcript=run.transcript)
            raise fail(f"the agent exited 0 but wrote no {rel} (transcript: {run.transcript})")
        plan = read_plan_reply(
            text, version=ctx.version, planner=self.name, fail=fail, what=f"the agent's {rel}", parser=self.parse_plan
        )
        return PlanOutcome(plan=plan, transcript=run.transcript)


class AgentCliImplementer(_AgentCliBackend):
    """Stage 3 through a coding agent that edits ``kernel.py``.

    Args:
        options: :class:`~kernelopt.backends.settings.AgentCliSettings` fields.
    """

    def implement(self, ctx: StageContext) -> ImplementOutcome:
        """Run the agent for Stage 3; ``kernel.py`` must change (still UTF-8 text).

        Raises:
            UsageError: missing or invalid settings.
        """
        settings = self.settings(ctx)
        ws = ctx.workspace
        if ctx.plan is None and not ws.plan_path(ctx.version).is_file():
            return ImplementOutcome(changed=False, error=f"no plan to implement (plans/v{ctx.version}_plan.md)")
        before = ws.kernel_py.read_bytes() if ws.kernel_py.is_file() else b""
        was = link_target(ws.kernel_py)  # the user's own link, kept (loses20): read through, never one the agent made
        run = self.run_agent(ctx, Stage.IMPLEMENT, settings)
        failure = run.failure(settings.timeout_s)

        def fail(msg: str, *, unavailable: bool = False, unfinished: bool = False) -> ImplementOutcome:
            return ImplementOutcome(
                changed=False, error=msg, transcript=run.transcript, unavailable=unavailable, unfinished=unfinished
            )

        if failure:
            return fail(failure, unavailable=run.infrastructure() is not None, unfinished=run.unfinished() is not None)
        if made_a_link(ws.kernel_py, was):  # never read through, gated or committed (a6)
            return fail(f"the agent made kernel.py a symbolic link, not a file (transcript: {run.transcript})")
        if not ws.kernel_py.is_file():
            return fail(f"the agent deleted kernel.py (transcript: {run.transcript})")
        after = ws.kernel_py.read_bytes()
        if after == before:
            return fail(f"the agent exited 0 without changing kernel.py (transcript: {run.transcript})")
        try:  # each in the encoding it declares (PEP 263)
            old, new = decode_python(before, "kernel.py")[0], decode_python(after, "kernel.py")[0]
        except InputFileError as exc:
            return fail(
                f"the agent left a kernel.py that Python cannot read: {exc.message} (transcript: {run.transcript})"
            )
        knobs = {k: v for k, v in knob_diff(old, new).items() if v[0] is not None and v[1] is not None}
        what = ctx.plan.action if ctx.plan else "the plan"
        category = ctx.plan.action_category.value if ctx.plan else "plan"
        return ImplementOutcome(
            changed=True,
            description=f"{category}: {what} (agent-cli)",
            knob_changes=dict(knobs),
            transcript=run.transcript,
        )
