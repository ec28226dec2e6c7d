"""The loop driven by a coding agent, one stage per call: the MCP server's ``profile``, ``submit_plan``,
``validate``, ``record`` and ``status``.

No second orchestration: each call opens the workspace's own loop (:class:`~kernelopt.loop.machine.OptimizeLoop`,
its journal, its guard, its stage handlers) and runs it until the next stage that waits for the agent
(``OptimizeLoop.run(pause=...)``). What waits for the agent:

* Stage 2 (``plan``): the agent submits the plan's text; it is checked by the planner's own rules
  (:func:`kernelopt.planning.validate.validate_plan` and the repeated-plan check) before anything is written,
  then Stage 2 runs it under the guard like any planner's.
* Stage 3 (``implement``): the agent edits ``kernel.py`` (and the auxiliary files its plan names) itself.
  ``validate`` then undoes and records any write outside that allowance since the stage began (the loop's
  guard, against the stage's snapshot), puts the last good kernel back, and runs Stage 3 with the agent's
  edits as the implementer's work (the correctness check at once), then Stage 4, the gate.
* Stage 5 (``record``): commits a PASS (``V<N>: ...``), or restores ``kernel.py`` and commits a revert
  marker; Stage 6 (the stop conditions) follows in the same call.

A call that does not fit the stage in flight is refused (:class:`StageRefused`) before anything is written.
"""

from __future__ import annotations

import functools
import os
from collections.abc import Callable
from enum import StrEnum
from pathlib import Path
from typing import ParamSpec, TypeVar

from pydantic import BaseModel

from kernelopt.agents.evidence_digest import EvidenceDigest, digest, whole_evidence
from kernelopt.agents.served import Served, mark_served, served
from kernelopt.backends.protocol import (
    BackendFailure,
    ImplementOutcome,
    PlanOutcome,
    StageContext,
    read_plan_reply,
)
from kernelopt.errors import KerneloptError, UsageError, WorkspaceError
from kernelopt.fileio import atomic_write_text
from kernelopt.hardware.gpu import require_gpu
from kernelopt.harness.compile_backend import check_compile_backend
from kernelopt.loop.journal import IterationState, Journal, RunState, RunStatus, VersionOutcome
from kernelopt.loop.machine import OptimizeLoop
from kernelopt.loop.opening import baseline_commit
from kernelopt.loop.protocols import Collaborators, LoopEvent, ProgressSink
from kernelopt.loop.run import LoopRun
from kernelopt.loop.settings import LoopRequest, resolve_settings
from kernelopt.loop.stop import StopDecision, StopReason
from kernelopt.loop.wiring import CachedCeilings, HarnessGate, StageOneProfiler, baseline_renderer, vendor_of
from kernelopt.memory.model import IterationRecord
from kernelopt.oneline import shell_word
from kernelopt.planning.history import plan_signature
from kernelopt.planning.plan import Plan
from kernelopt.stagenames import Stage
from kernelopt.stages.allowance import editable_files, may_write
from kernelopt.stages.guard import Captured, capture, gate_state_back, restore, violation_message
from kernelopt.stages.implement import kernel_problem, summary_of
from kernelopt.stages.plan import MarkdownPlanReader, tried_signatures
from kernelopt.workspace import RunLock, Workspace, has_workspace_state

P = ParamSpec("P")
R = TypeVar("R")

AGENT = "mcp-agent"
"""The planner and implementer name the journal and the plans record for the agent behind the MCP server."""


class StageRefused(UsageError):
    """A call that breaks the stage order or a stage rule; nothing was written."""


class BaselineFailed(UsageError):
    """V0 failed its gate, so the run stopped with no baseline: the workspace's kernel or reference is bad
    input (the failure is kept in the journal and a ``baseline check failed`` commit)."""


class NextStep(StrEnum):
    """What the agent does next (the MCP tool, or its own edit)."""

    INIT = "init"
    PROFILE = "profile"
    SUBMIT_PLAN = "submit_plan"
    IMPLEMENT_THEN_VALIDATE = "implement_then_validate"
    VALIDATE = "validate"
    RECORD = "record"


class StageStatus(BaseModel):
    """Where the workspace's loop stands and what comes next.

    Attributes:
        workspace: the workspace folder.
        version: the version in flight (``None`` between iterations or before V0).
        stage: the loop stage in flight (``None`` between iterations).
        next: the next step.
        why: one line: why that step.
        running: a run is open and a process serves it now or waits between its stages (``False``: none yet, the
            last one stopped, or its process was killed: ``interrupted``).
        interrupted: the run's process was ended mid-stage from outside (killed): nothing holds the workspace, the
            journal still says running, and the line says how the run continues (seen21 u23).
        stop: why the last run stopped.
        failure: the in-flight version's failure, when it has one (it goes to the record stage).
        outcomes: the versions the run finished (verdict, latency, commit).
        held_by: another kernelopt process that holds the workspace now (``another kernelopt optimize is running
            on ... (pid N)``): no stage call is served until it ends, and the next stage may then differ.
        served_by: the pids of the live ``kernelopt mcp`` servers that made stage calls on this workspace (each
            serves it until it ends; :mod:`kernelopt.agents.served`); where the one that made the last call has
            ended and another lives, ``why`` says so first (late28, z63).
        cancelled: the MCP server's last call on this workspace that the client cancelled (its tool timeout, or a
            stop), how long it ran and what that left, until the next profile, validate or tune on it starts (set by the
            server).
    """

    workspace: str
    version: int | None
    stage: Stage | None
    next: NextStep
    why: str
    running: bool
    interrupted: str | None = None
    held_by: str | None = None
    served_by: list[int] = []
    cancelled: str | None = None
    stop: StopDecision | None = None
    failure: str | None = None
    outcomes: list[VersionOutcome] = []


class StepResult(BaseModel):
    """What one stage call did, and where the loop stands after it.

    Attributes:
        stages: ``V<N>: <stage>`` of each stage run by this call, in order.
        events: the loop's progress lines of this call (notes, warnings, commits).
        profile: the Stage 1 evidence of the version now waiting for its plan (``profile``), as a digest (each
            kernel's key metrics and top findings with their values: 35-90 kB of a real report's summary came to
            4-13 kB); ``evidence(path=profiles/v<N>, full=true)`` returns the whole.
        plan: the plan Stage 2 accepted (``submit_plan``).
        record: ``memory/v<N>.json`` as the gate or the record stage left it (``validate``, ``record``).
        status: where the loop stands now (``None`` for a command profiled outside any workspace).
    """

    stages: list[str] = []
    events: list[str] = []
    profile: EvidenceDigest | None = None
    plan: Plan | None = None
    record: IterationRecord | None = None
    status: StageStatus | None


# == status ==========================================================================================


def read_state(ws: Workspace) -> RunState | None:
    return Journal(ws.state_dir).load()


def open_workspace(folder: Path) -> Workspace:
    """The workspace a tool call names. A kernel folder (kernel.py and reference.py, no workspace made) is refused
    in the tools' words: the CLI's advice named `kernelopt init NAME --kernel ...` and a workspace under /tmp that
    `optimize` had made, outside the server's roots (fresh28 f63).

    Raises:
        WorkspaceError: ``folder`` is no workspace.
    """
    try:
        return Workspace(folder)
    except WorkspaceError:
        files = [folder / "kernel.py", folder / "reference.py"]
        if has_workspace_state(folder) or not all(f.is_file() for f in files):
            raise
    kernel, reference = (str(f) for f in files)
    raise WorkspaceError(
        f"{folder}: a kernel folder, not a kernelopt workspace: call init(name=..., kernel={kernel!r}, "
        f"reference={reference!r}) to make one from it (under the server's first root), then call the stages on "
        "that workspace; tune takes the folder as it is"
    )


def status(ws: Workspace) -> StageStatus:
    """The next stage of ``ws`` and why (reads the journal; writes nothing)."""
    state = read_state(ws)
    running = state is not None and state.status is RunStatus.RUNNING
    it = state.current if (state is not None and running) else None
    outcomes = list(state.outcomes) if state is not None else []
    stop = state.stop if (state is not None and not running) else None

    lock = RunLock(ws.root)
    held = lock.holder()
    gone = _interrupted(ws, state) if running and held is None and not lock.held_here() else None
    mark = served(ws.state_dir)
    if lock.held_here():  # inside a stage call of this process (its result's status): it serves the workspace
        mark = mark.calling(os.getpid())
    if running and held is None and gone is None:
        gone = _server_gone(ws, state, mark)
    other = _other_server(state, mark) if running and held is None and gone is None else None

    def out(step: NextStep, why: str) -> StageStatus:
        if held:
            why = f"{held}: wait for it or stop it; as the workspace stands now, {why}"
        elif gone:
            why = f"{gone}; {why}"
        elif other:
            why = f"{other}; {why}"
        return StageStatus(
            workspace=str(ws.root),
            version=it.version if it else None,
            stage=it.stage if it else None,
            next=step,
            why=why,
            held_by=held,
            served_by=list(mark.holders),
            running=running and gone is None,
            interrupted=gone,
            stop=stop,
            failure=it.failure.reason if it and it.failure else None,
            outcomes=outcomes,
        )

    if baseline_commit(ws) is None and it is None:
        if stop is not None and stop.reason is StopReason.BASELINE_FAILED:
            return out(NextStep.INIT, _baseline_failed(stop))
        return out(NextStep.PROFILE, "no baseline yet: profile gates and records V0, then profiles V1")
    if it is None:
        if stop is not None:
            return out(NextStep.PROFILE, f"the last run stopped ({stop.line()}); profile starts the next version")
        return out(NextStep.PROFILE, f"between iterations: profile V{ws.iteration_version()} (Stage 1)")
    n = it.version
    if it.stage in (Stage.BASELINE_GATE, Stage.BASELINE_PROFILE, Stage.PROFILE):
        return out(NextStep.PROFILE, f"V{n} has no Stage 1 evidence yet: profile it")
    if it.stage is Stage.PLAN:
        return out(
            NextStep.SUBMIT_PLAN,
            f"V{n} is profiled (profiles/v{n}/): read its evidence, then submit ONE plan whose Input Evidence "
            "cites it (evidence -> inference -> action)",
        )
    if it.stage is Stage.IMPLEMENT:
        return out(
            NextStep.IMPLEMENT_THEN_VALIDATE,
            f"V{n}'s plan is accepted (plans/v{n}_plan.md): edit kernel.py"
            + (f" (and {', '.join(it.aux_files)})" if it.aux_files else "")
            + " for that one action only, then validate (the gate)",
        )
    if it.stage is Stage.GATE:
        return out(NextStep.VALIDATE, f"V{n} is implemented: validate runs the gate")
    verdict = f"failed ({it.failure.reason})" if it.failure else "passed the gate"
    return out(NextStep.RECORD, f"V{n} {verdict}: record commits the outcome (a failure reverts kernel.py)")


def _interrupted(ws: Workspace, state: RunState | None) -> str | None:
    """Where the journal says running but no process holds the workspace, the run did not pause between two stages on
    purpose (the MCP server's calls pause it) and its process did not roll its stage back as it stopped (a cancel,
    Ctrl-C, an error: ``RunState.parked``): the process that ran it was ended mid-stage from outside, and the line
    says so and how the run continues; else ``None``."""
    if state is None or state.paused or state.parked:
        return None
    it = state.current
    where = f"V{it.version}'s {it.stage.value} stage" if it is not None else "between iterations"
    how = (
        "the next stage call below continues it"
        if state.settings.planner == AGENT
        else f"`kernelopt optimize {shell_word(ws.root)} --resume` continues it"
    )
    return (
        f"the run was interrupted in {where}: the process that held this workspace ended without rolling that stage "
        f"back (killed, or its machine stopped), and nothing holds it now; {how}, rolling that stage back first"
    )


def _paused_where(state: RunState) -> str:
    it = state.current
    return f"in V{it.version}'s {it.stage.value} stage" if it is not None else "between iterations"


def _server_gone(ws: Workspace, state: RunState | None, mark: Served) -> str | None:
    """Where the run is paused between two calls of a ``kernelopt mcp`` server and no live process serves the
    workspace now (:mod:`kernelopt.agents.served`: the server was killed, or ended, between its calls), the line
    that says so and how the run continues; else ``None`` (a live server waits for its client, or no server ever
    served it)."""
    if state is None or not state.paused or state.parked or not mark.gone:
        return None
    where = _paused_where(state)
    return (
        f"the run is paused {where} between two calls of a kernelopt mcp server, and that server has ended (killed, "
        "or closed by its client): nothing serves it now; the next stage call below, from any server, continues it "
        "where it paused"
    )


def _other_server(state: RunState | None, mark: Served) -> str | None:
    """Where the run is paused between two calls and the server that made the last one has ended while another
    that served the workspace lives on, the line that says which (the run still runs: that server's next stage call
    continues it); else ``None``."""
    if state is None or not state.paused or state.parked or not mark.others:
        return None
    pids = ", ".join(str(p) for p in mark.others)
    return (
        f"the run is paused {_paused_where(state)}; the kernelopt mcp server that made the last stage call (pid "
        f"{mark.last}) has ended, and another that served this workspace lives (pid {pids}): the next stage call, "
        "from it or any server, continues the run where it paused"
    )


def _baseline_failed(stop: StopDecision) -> str:
    return (
        f"V0 failed its gate, so there is no baseline: {stop.detail}; this workspace keeps kernel.py and "
        "reference.py as committed: fix the files it was made from, then init a new workspace from them "
        "(profile runs the same gate again)"
    )


# == the stage calls =================================================================================


class SubmittedPlan:
    """Stage 2's planner: the plan text the agent submitted, written to ``plans/v<N>_plan.md``."""

    name = AGENT

    def __init__(self, text: str) -> None:
        self.text = text

    def plan(self, ctx: StageContext) -> PlanOutcome:
        plan = read_plan_reply(
            self.text, version=ctx.version, planner=self.name, fail=BackendFailure, what="the submitted plan"
        )
        atomic_write_text(ctx.workspace.plan_path(ctx.version), self.text)
        return PlanOutcome(plan=plan)


class EditFailsItsCheck(StageRefused):
    """The agent's edit failed Stage 3's correctness check, and the agent repairs it (a repair attempt of the
    stage, made by the agent in its next ``validate``): the stage was rolled back, the edit kept, nothing
    recorded."""


class _RepairByTheAgent(KeyboardInterrupt):
    """Raised by :class:`AgentEdits` for a repair attempt: the loop rolls Stage 3 back, as after a cancel."""

    def __init__(self, failure: str) -> None:
        super().__init__(failure)
        self.failure = failure


class AgentEdits:
    """Stage 3's implementer: the edits the agent made to ``kernel.py`` (and the plan's auxiliary files)
    before it asked for the gate, applied again under Stage 3's guard. With ``repairs``, a repair attempt
    (the edit failed its check) goes back to the agent; without, a failed check fails the version at once
    (``ImplementOutcome.final``: the same edit was checked again twice, each counted a repair, fresh28 f65)."""

    name = AGENT

    def __init__(self, description: str | None, *, repairs: bool = False, attempts_before: int = 0) -> None:
        self.description = description
        self.repairs = repairs
        self.attempts_before = attempts_before  # the version's edits checked by this server's calls before (l271)
        self.edits: dict[str, Captured] = {}

    def implement(self, ctx: StageContext) -> ImplementOutcome:
        if ctx.attempt > 0 and self.repairs:
            raise _RepairByTheAgent(ctx.failure or "the correctness check failed")
        restore(ctx.workspace.root, self.edits)
        what = self.description or (ctx.plan.action if ctx.plan else "the agent's edit")
        # past its repairs the agent's edit is checked once: a loop's repair attempt would check the same edit again
        return ImplementOutcome(
            changed=bool(self.edits),
            description=" ".join(what.split()),
            final=not self.repairs,
            attempts_before=self.attempts_before,
        )


class _NoAgent:
    """The planner / implementer of a call that runs no backend stage (a stage reached is paused first)."""

    name = AGENT

    def plan(self, ctx: StageContext) -> PlanOutcome:  # pragma: no cover - never reached: paused before
        raise BackendFailure("no plan was submitted")

    def implement(self, ctx: StageContext) -> ImplementOutcome:  # pragma: no cover - never reached
        raise BackendFailure("no edit was taken")


def event_line(event: LoopEvent) -> str:
    """``<kind>: <message>`` (``stopped: baseline_failed: ...``, never ``stopped: stopped: ...``)."""
    kind = event.kind.value
    return event.message if event.message.startswith(f"{kind}: ") else f"{kind}: {event.message}"


class _Events:
    """The loop's progress events: kept as lines for the result and passed on (MCP progress)."""

    def __init__(self, on_event: Callable[[LoopEvent], None] | None) -> None:
        self.lines: list[str] = []
        self.stages: list[str] = []
        self.on_event = on_event

    def event(self, event: LoopEvent) -> None:
        if event.kind.value == "stage_start":
            self.stages.append(event.message)
        else:
            self.lines.append(event_line(event))
        if self.on_event is not None:
            self.on_event(event)


def _loop(
    ws: Workspace, *, device: str | None, planner: object, implementer: object, progress: ProgressSink
) -> OptimizeLoop:
    request = LoopRequest(planner=AGENT, implementer=AGENT, device=device)
    settings, _ = resolve_settings(ws, request)
    collaborators = Collaborators(
        profiler=StageOneProfiler(vendor=vendor_of(ws.task_card().platform), device=settings.device),
        planner=planner,  # type: ignore[arg-type]
        plan_reader=MarkdownPlanReader(),
        implementer=implementer,  # type: ignore[arg-type]
        gate=HarnessGate(device=settings.device, net=True),  # the agent's rewrites (b43)
        baseline_renderer=baseline_renderer(),
        ceilings=CachedCeilings(),
        progress=progress,
    )
    return OptimizeLoop(ws, collaborators, request)


def _held(call: Callable[P, R]) -> Callable[P, R]:
    """A stage call holds the workspace's run lock from its first check to its end: while another kernelopt
    process holds it (an ``optimize``, a ``tune``, another server), the call is refused with that lock's one line
    before anything is read or written, never with a stage refusal that names a stage the other run is past. A call
    that returns marks the workspace as served by this process (:mod:`kernelopt.agents.served`); a refused one
    writes nothing."""

    @functools.wraps(call)
    def held(*args: P.args, **kwargs: P.kwargs) -> R:
        ws = args[0]
        assert isinstance(ws, Workspace)
        with RunLock(ws.root, command="mcp"):
            done = call(*args, **kwargs)
            mark_served(ws.state_dir)  # this process paused the run: it serves it between its calls, to its end (l19)
            return done

    return held


def _require_device(ws: Workspace, device: str | None, *, on_cpu: str) -> None:
    """The run's device (``device``, else the run's setting in the journal, else ``cuda``) checked before the loop
    starts: with no GPU, ``profile`` gated V0 for 12-16 s before Stage 1's profiler found no CUDA device. The gate's
    ``torch.compile`` backend too, as ``validate`` and ``optimize`` check it at their start: a misspelt
    ``KERNELOPT_COMPILE_BACKEND`` was taken by the server and said only as each gate's "not timed: its compile
    failed" (newuser22 n164). The server's start does not ask torch (a child of seconds, past an agent CLI's wait
    for its tools); the first call that gates does, once a process.

    Raises:
        NoGpu: the run is on a GPU and this machine has none (the caller words the advice in its form).
        UsageError: the compile backend is not one of this torch's.
    """
    settings, _ = resolve_settings(ws, LoopRequest(planner=AGENT, implementer=AGENT, device=device))
    require_gpu(settings.device, on_cpu=on_cpu)
    check_compile_backend()


def _expect(ws: Workspace, allowed: set[NextStep], tool: str) -> StageStatus:
    """The status, when ``tool`` is a step it allows; else the refusal naming the step that is due."""
    now = status(ws)
    if now.next not in allowed:
        raise StageRefused(f"{tool} is not the next stage of {ws.root.name}: next is {now.next.value} ({now.why})")
    return now


def _run(
    ws: Workspace,
    *,
    device: str | None,
    pause: Callable[[IterationState | None], bool],
    on_event: Callable[[LoopEvent], None] | None,
    planner: object = None,
    implementer: object = None,
    prepare: Callable[[LoopRun], None] | None = None,
) -> tuple[_Events, int | None]:
    events = _Events(on_event)
    loop = _loop(
        ws,
        device=device,
        planner=planner or _NoAgent(),
        implementer=implementer or _NoAgent(),
        progress=events,
    )
    loop.run(pause=pause, prepare=prepare)
    it = loop.context.state.current
    return events, it.version if it else None


@_held
def profile(ws: Workspace, *, device: str | None, on_event: Callable[[LoopEvent], None] | None = None) -> StepResult:
    """Stage 1 (V0's gate, profile and record first when there is no baseline), up to the next plan.

    Raises:
        StageRefused: the version in flight is past Stage 1.
        NoGpu: the run is on a GPU and this machine has none (checked before anything runs).
        BaselineFailed: V0 failed its gate in this call (the run stopped; its journal and commit say why).
    """
    _expect(ws, {NextStep.PROFILE, NextStep.INIT}, "profile")
    _require_device(ws, device, on_cpu="takes timing-only evidence on the CPU")

    def pause(it: IterationState | None) -> bool:
        return it is not None and (it.stage is Stage.PLAN or (it.stage is Stage.RECORD and it.version > 0))

    events, n = _run(ws, device=device, pause=pause, on_event=on_event)
    after = status(ws)
    if after.next is NextStep.INIT:  # a failed baseline is bad input: an error, never a result to read past
        raise BaselineFailed(f"profile: {after.why}")
    summary = summary_of(ws, n) if n is not None else None
    evidence = digest(summary, more=whole_evidence(ws.profile_dir(n))) if summary and n is not None else None
    return StepResult(stages=events.stages, events=events.lines, profile=evidence, status=after)


def no_rows(ws: Workspace) -> str:
    """Why ``memory_summary`` of ``ws`` has no row, and which tool to call (an empty list said nothing, where
    ``kernelopt memory summary`` names the command that records V0: late57 l273)."""
    if ws.memory.versions():
        return "every recorded version is masked; include_masked=true shows them"
    return "no version recorded yet: call profile(workspace) first, which gates and records V0 (the baseline)"


def check_plan(ws: Workspace, version: int, text: str) -> Plan:
    """The submitted plan, checked by the planner's own rules without writing anything.

    Raises:
        StageRefused: it does not parse, is for another version, breaks a plan rule (no evidence cited,
            several actions, the search order) or repeats an action already tried.
    """
    try:
        plan = read_plan_reply(
            text, version=version, planner=AGENT, fail=lambda m: StageRefused(f"plan refused: {m}"), what="the text"
        )
        history = [r for r in ws.memory.records() if r.number < version]
        MarkdownPlanReader().validate(plan, ws, history, summary_of(ws, version))
    except StageRefused:
        raise
    except KerneloptError as exc:
        raise StageRefused(f"plan refused: {exc.one_line()}") from None
    repeated = tried_signatures(ws, MarkdownPlanReader(), before=version).get(plan_signature(plan))
    if repeated is not None:
        raise StageRefused(f"plan refused: it repeats the action of V{repeated}; plan a new action")
    return plan


@_held
def submit_plan(
    ws: Workspace, text: str, *, device: str | None, on_event: Callable[[LoopEvent], None] | None = None
) -> StepResult:
    """Stage 2 with the agent's plan: checked first (nothing written on a refusal), then run under the guard.

    Raises:
        StageRefused: the version in flight is not waiting for its plan, or the plan breaks a rule.
    """
    now = _expect(ws, {NextStep.SUBMIT_PLAN}, "submit_plan")
    assert now.version is not None
    check_plan(ws, now.version, text)

    def pause(it: IterationState | None) -> bool:
        return it is None or it.stage is not Stage.PLAN

    events, _ = _run(ws, device=device, pause=pause, on_event=on_event, planner=SubmittedPlan(text))
    after = status(ws)
    plan = MarkdownPlanReader().parse(ws.plan_path(now.version).read_text(encoding="utf-8"))
    return StepResult(stages=events.stages, events=events.lines, plan=plan, status=after)


@_held
def validate(
    ws: Workspace,
    *,
    device: str | None,
    description: str | None = None,
    on_event: Callable[[LoopEvent], None] | None = None,
    repairs_used: int = 0,
) -> StepResult:
    """Stage 3 on the agent's edits (guard, correctness at once), then Stage 4, the gate.

    Args:
        repairs_used: how many times this version's edit already failed its check and went back to the agent;
            while fewer than the run's repair attempts, a failed check is refused (:class:`EditFailsItsCheck`)
            instead of failing the version.

    Raises:
        StageRefused: no plan is waiting for its implementation, or kernel.py does not parse.
        NoGpu: the run is on a GPU and this machine has none (checked before anything runs).
        EditFailsItsCheck: the edit failed its correctness check; the agent repairs it (nothing recorded).
    """
    now = _expect(ws, {NextStep.IMPLEMENT_THEN_VALIDATE, NextStep.VALIDATE}, "validate")
    _require_device(ws, device, on_cpu="runs the gate on the CPU")
    if now.next is NextStep.IMPLEMENT_THEN_VALIDATE and not _edited(ws):
        raise StageRefused(
            f"validate: kernel.py is unchanged since V{now.version}'s plan was accepted: edit it for the plan's "
            "action first"
        )
    state = read_state(ws)
    if now.next is NextStep.IMPLEMENT_THEN_VALIDATE:
        # a slip of the edit (a typo, a deleted file) is the agent's to fix now: failing the version for it would
        # spend a version and its plan on a slip (the action, never judged, could be planned again: l270)
        was = state.current.links.get("kernel.py") if state is not None and state.current is not None else None
        # None: an edit of only the plan's auxiliary files is an edit; the user's own link (l7) is read through
        problem = kernel_problem(ws, None, was.target if was is not None else None)
        if problem is not None:
            raise StageRefused(f"validate: {problem}; fix kernel.py and call validate again (nothing was recorded)")
    allowed_repairs = state.settings.repair_attempts if state is not None else 0
    agent = AgentEdits(description, repairs=repairs_used < allowed_repairs, attempts_before=repairs_used)

    def take_edits(run: LoopRun) -> None:
        it = run.state.current
        if it is None or it.stage is not Stage.IMPLEMENT or not it.snapshot:
            return  # a gate interrupted earlier: the loop runs it again from its kept candidate
        editable = editable_files(Stage.IMPLEMENT, it.version, it.aux_files)
        head = _good(run.ws, it, editable)
        violations = run.guarded(it, it.snapshot, may_write(Stage.IMPLEMENT, it.version, it.aux_files), "agent")
        if it.gate_state is not None:  # a build of another version's kernel planted between calls (b44)
            violations += gate_state_back(run.ws.root, it.gate_state)
        if violations:
            run.fail(it, violation_message("agent", ", ".join(editable), violations), error_type="write_violation")
            return
        # after the guard: a plain file the agent wrote over the user's link is now written through it (z7)
        agent.edits = {rel: data for rel, data in capture(run.ws.root, editable).items() if data != head[rel]}
        restore(run.ws.root, head)  # the last good kernel: Stage 3 applies the edits under its own guard

    def pause(it: IterationState | None) -> bool:
        return it is None or it.stage not in (Stage.IMPLEMENT, Stage.GATE)

    try:
        events, _ = _run(ws, device=device, pause=pause, on_event=on_event, implementer=agent, prepare=take_edits)
    except _RepairByTheAgent as exc:
        _keep_agent_edits(ws, agent)
        left = allowed_repairs - repairs_used - 1
        raise EditFailsItsCheck(
            f"validate: the edit fails its check: {exc.failure}; fix kernel.py and call validate again "
            f"(nothing was recorded; {left} more repair(s), then a failed check fails V{now.version})"
        ) from None
    except BaseException:
        _keep_agent_edits(ws, agent)
        raise
    n = now.version
    record = ws.memory.read(n) if n is not None and ws.memory.exists(n) else None
    return StepResult(stages=events.stages, events=events.lines, record=record, status=status(ws))


@_held
def record(ws: Workspace, *, device: str | None, on_event: Callable[[LoopEvent], None] | None = None) -> StepResult:
    """Stage 5 (commit a PASS; restore and commit a revert marker on a failure), then Stage 6.

    Raises:
        StageRefused: no version is waiting for its record.
    """
    now = _expect(ws, {NextStep.RECORD}, "record")

    def pause(it: IterationState | None) -> bool:
        return it is None or it.stage not in (Stage.RECORD, Stage.STOP)

    events, _ = _run(ws, device=device, pause=pause, on_event=on_event)
    n = now.version
    rec = ws.memory.read(n) if n is not None and ws.memory.exists(n) else None
    return StepResult(stages=events.stages, events=events.lines, record=rec, status=status(ws))


def _edited(ws: Workspace) -> bool:
    """Whether the agent changed kernel.py (or an auxiliary file its plan names) since Stage 3 began."""
    state = read_state(ws)
    it = state.current if state is not None else None
    if it is None:
        return False
    editable = editable_files(Stage.IMPLEMENT, it.version, it.aux_files)
    good = _good(ws, it, editable)
    return any(data != good[rel] for rel, data in capture(ws.root, editable).items())


def _keep_agent_edits(ws: Workspace, agent: AgentEdits) -> None:
    """After a validate stopped in Stage 3 (cancelled, or an error): the loop rolled the stage back; the
    agent's edits go back in place and the run waits before Stage 3 again, as before the call (never
    someone's work lost). A gate stopped half-way needs nothing: its candidate is kept for the next call."""
    if not agent.edits:
        return
    journal = Journal(ws.state_dir)
    journal.acquire()
    try:
        state = journal.load()
        it = state.current if state is not None else None
        if state is None or it is None or it.stage is not Stage.IMPLEMENT:
            return
        it.take_snapshot(ws.root)  # the last good kernel, before the agent's edits
        restore(ws.root, agent.edits)
        state.paused = True
        journal.save(state)
    finally:
        journal.release()


def _good(ws: Workspace, it: IterationState, editable: list[str]) -> dict[str, Captured]:
    """The last good content of Stage 3's ``editable`` files: as the iteration's base commit holds them, and a link the
    stage began with (the user's linked kernel.py) as that link leading to the bytes it held then (git holds only where
    it points). ``validate`` compares the agent's edits with it and puts it back before Stage 3 applies them: a plain
    file written over the user's link made Stage 3 refuse it as a link the agent made (late20's z6)."""
    return {rel: it.links.get(rel) or _at_head(ws, it.base_commit, rel) for rel in editable}


def _at_head(ws: Workspace, commit: str, rel: str) -> bytes | None:
    """``rel`` as the commit holds it; ``None`` when it is not there."""
    try:
        return ws.file_at(commit, rel).encode("utf-8")
    except KerneloptError:
        return None
