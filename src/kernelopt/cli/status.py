"""``kernelopt status``: where a workspace's run stands, for a CLI user, and the command that goes on from there.

The MCP server's ``status`` tool says the next *stage* an agent calls; a CLI user asked the same of the command line
and got "No such command 'status'" (newuser19 n129). This reads the same journal and lock (``agents.drive.status``,
which writes nothing) and the versions' records, and says the next *command*.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import typer
from pydantic import BaseModel

from kernelopt.cli.output import emit_json, info, note
from kernelopt.cli.workspace_arg import chosen_workspace, resolve_workspace
from kernelopt.digits import sig
from kernelopt.errors import WorkspaceError
from kernelopt.oneline import shell_word
from kernelopt.report.headline import speedup_words
from kernelopt.workspace import DEFAULT_ROOT, Workspace

if TYPE_CHECKING:
    from kernelopt.agents.drive import StageStatus


class RunStanding(BaseModel):
    """What ``kernelopt status`` says (and prints with ``--json``).

    Attributes:
        workspace: the workspace folder.
        run: ``none`` (no run yet), ``running`` (a process holds the workspace), ``interrupted`` (a run stopped
            mid-stage: the next ``optimize`` resumes it), ``agent`` (a run an agent drives through ``kernelopt mcp``,
            between two of its stage calls) or ``stopped`` (the last run ended; ``stop`` says why).
        held_by: the process holding the workspace, in words (``another kernelopt optimize is running on ...``).
        version: the version the run is on, where one is in flight; ``stage`` its stage.
        stop: why the last run stopped, one line.
        versions: versions recorded (V0 included); ``best`` the fastest passing one, its ``best_latency_us`` and
            ``speedup_vs_v0``; ``converged`` and ``failed`` the versions so recorded (a session that kept nothing is
            converged, not failed: :attr:`~kernelopt.memory.model.IterationRecord.converged`).
        unlinked: what the chain of the gates' verdicts lacks to link a version to the one its gate ran beside
            (:func:`~kernelopt.memory.model.unlinked_versions`: records written before the gate kept it).
        next: what to run next, a command line or what to wait for.
    """

    workspace: str
    run: str
    held_by: str | None = None
    version: int | None = None
    stage: str | None = None
    stop: str | None = None
    versions: int = 0
    best: str | None = None
    best_latency_us: float | None = None
    speedup_vs_v0: float | None = None
    unlinked: list[str] = []
    converged: list[str] = []
    failed: list[str] = []
    next: str


def _call(now: StageStatus) -> str:
    """The MCP call an agent's run waits for: a tool's name, or for the edit Stage 3 waits on, the call that takes
    it (``implement_then_validate`` is a step, no tool; fresh28 f62, f69)."""
    from kernelopt.agents.drive import NextStep

    return "validate, after the edit of kernel.py" if now.next is NextStep.IMPLEMENT_THEN_VALIDATE else now.next.value


def standing(ws: Workspace) -> RunStanding:
    """Where ``ws``'s run stands (reads only)."""
    from kernelopt.agents import drive
    from kernelopt.loop.journal import RunStatus
    from kernelopt.loop.stop import StopReason
    from kernelopt.memory.model import GateResult, best_version, speedup_over_v0, unlinked_versions

    now = drive.status(ws)
    state = drive.read_state(ws)
    # the version in flight has a record from its implement stage on (Stage 3's, PASS before its gate), uncommitted
    # until its record stage: no version recorded (fresh23: "versions: 2 recorded; best V0" at V1's gate)
    it = state.current if state is not None and state.status is RunStatus.RUNNING else None
    flight = it.version if it is not None else None
    records = [r for r in ws.memory.records() if not r.masked and r.number != flight]
    best = best_version(records)
    lat = best.performance.latency_us if best else None
    word = shell_word(ws.root)
    stop = now.stop.line() if now.stop is not None else None
    if now.held_by:
        run, step = "running", f"wait for it, or stop it (Ctrl-C there); `kernelopt optimize {word}` then resumes it"
    elif now.interrupted and state is not None and state.settings.planner == drive.AGENT:
        # an agent's run through the MCP server, whose server ended: optimize cannot run its backends (f62)
        how = "where it paused" if state.paused else "rolling that stage back first"
        run, step = (
            "interrupted",
            f"a `kernelopt mcp` server's next stage call ({_call(now)}) continues it {how}; or `kernelopt "
            f"optimize {word} --planner rules --implementer rules` continues it with kernelopt's own backends",
        )
    elif now.interrupted:
        run, step = "interrupted", f"`kernelopt optimize {word}` resumes it, rolling that stage back first"
    elif now.running and state is not None and state.settings.planner == drive.AGENT:
        run, step = "agent", f"the agent's next stage call through `kernelopt mcp`: {_call(now)} ({now.why})"
    elif now.running and state is not None and state.parked:
        # Ctrl-C (or an error) ended it and its process rolled the stage back: the journal still says running, and
        # the next optimize resumes that version, not a new one (newuser20 n140: "none in flight ... starts V2")
        run, step = "interrupted", f"`kernelopt optimize {word}` resumes it (that stage was rolled back as it stopped)"
    elif state is None:
        run, step = "none", f"`kernelopt optimize {word}` gates and records V0, then runs the loop"
    else:
        run = "stopped"
        step = f"`kernelopt optimize {word}` starts V{ws.iteration_version()}"
        if now.stop is not None and now.stop.reason in (StopReason.CONVERGED, StopReason.NO_NEW_PLAN):
            step = (
                f"the launch configuration has converged: `kernelopt optimize {word} --implementer agent-cli` (or "
                "llm-api, docs/backends.md) tries code changes"
            )
        elif now.stop is not None and now.stop.reason is StopReason.BASELINE_FAILED:
            step = "V0 failed its gate: fix the files the workspace was made from, then start a new one from them"
        step += f"; `kernelopt report {word}` tells the whole run"
    return RunStanding(
        workspace=str(ws.root),
        run=run,
        held_by=now.held_by,
        version=now.version,
        stage=now.stage.value if now.stage is not None else None,
        stop=stop,
        versions=len(records),
        best=best.version if best else None,
        best_latency_us=lat,
        speedup_vs_v0=speedup_over_v0(records, best.number) if best is not None else None,
        unlinked=unlinked_versions(records),
        converged=[r.version for r in records if r.converged],
        failed=[
            r.version
            for r in records
            if r.quality_gate.result in (GateResult.FAIL, GateResult.TIMEOUT_FAIL) and not r.converged
        ],
        next=step,
    )


def lines(s: RunStanding) -> list[str]:
    """The human form of :func:`standing`."""
    where = f" (V{s.version} at its {s.stage} stage)" if s.version is not None and s.stage else ""
    out = [f"workspace: {s.workspace}"]
    if s.run == "running":
        out.append(f"run: {s.held_by}{where}")
    elif s.run == "stopped":
        out.append(f"run: stopped: {s.stop}" if s.stop else "run: none in flight")
    else:
        out.append(f"run: {s.run}{where}")
    if s.versions:
        best = (
            f"; best {s.best.upper()} at {sig(s.best_latency_us)} us"
            + (f", {speedup_words(s.speedup_vs_v0, 'V0')}" if s.speedup_vs_v0 and s.best != "v0" else "")
            if s.best and s.best_latency_us
            else "; none passed"
        )
        kinds = [
            f"{len(v)} {word} ({', '.join(x.upper() for x in v)})"
            for v, word in ((s.converged, "converged"), (s.failed, "failed"))
            if v
        ]
        out.append(f"versions: {s.versions} recorded{best}" + (f"; {'; '.join(kinds)}" if kinds else ""))
        out += [f"note: {line}" for line in s.unlinked]
    out.append(f"next: {s.next}")
    return out


def register(app: typer.Typer) -> None:
    @app.command("status")
    def status(
        workspace: str | None = typer.Argument(
            None,
            help="Workspace folder, its name under --root, or the kernel folder optimize made it from.",
            show_default=False,
        ),
        workspace_opt: str | None = typer.Option(
            None, "--workspace", "-w", help="The workspace (or give it first, positionally)."
        ),
        root: Path = typer.Option(DEFAULT_ROOT, "--root", help="Where workspaces named by NAME live."),
        as_json: bool = typer.Option(False, "--json", help="Print the standing as JSON."),
    ) -> None:
        """Where a workspace's run stands (running, interrupted, stopped and why) and what to run next.

        Also its best version; reads only."""
        named = chosen_workspace(
            Path(workspace) if workspace else None,
            Path(workspace_opt) if workspace_opt else None,
            usage="kernelopt status",
        )
        ws = _workspace_of(named, root)
        found = standing(ws)
        if as_json:
            emit_json(found)
        else:
            for line in lines(found):
                info(line)


def _workspace_of(named: Path, root: Path) -> Workspace:
    """The workspace ``named`` is, or the one ``optimize`` made from the kernel folder ``named`` (under ``root``): of
    several made from it (``--name``), the one a run holds, else the one of the folder's own name, the others named in
    a note (late32 z96: a run into another name was called stopped, the folder's own name's workspace read).

    Raises:
        WorkspaceError: neither; or several made from it, more than one (or none of them the default) running.
    """
    from kernelopt.agents import drive
    from kernelopt.loop.opening import find_existing, is_workspace
    from kernelopt.workspace import workspaces_made_from

    folder = named.expanduser()
    if not (folder.is_dir() and not is_workspace(folder) and (folder / "kernel.py").is_file()):
        return resolve_workspace(str(named), root)
    made = find_existing(folder, root=root)
    runs = workspaces_made_from(folder, root)
    if made is not None and all(w.root != made.root for w in runs):
        runs.insert(0, made)
    if not runs:
        target = Path(root).expanduser() / f"kernel_opt_{folder.resolve().name}"
        raise WorkspaceError(
            f"{folder}: a kernel folder no run has started from yet (no workspace at {target})",
            hint=f"kernelopt optimize {shell_word(folder)} starts one (--root DIR where it goes elsewhere)",
        )
    if len(runs) == 1:
        return runs[0]
    held = [w for w in runs if drive.status(w).held_by]
    chosen = held[0] if len(held) == 1 else made if not held else None
    words = ", ".join(shell_word(w.root) for w in runs)
    if chosen is None:
        raise WorkspaceError(
            f"{folder}: {len(runs)} workspaces were made from this folder ({words}), "
            + (f"{len(held)} of them running" if held else "none of its own name"),
            hint=f"give one: kernelopt status {shell_word(runs[0].root)}",
        )
    others = ", ".join(shell_word(w.root) for w in runs if w.root != chosen.root)
    note(f"also made from {folder}: {others} (`kernelopt status WS` tells one)")
    return chosen
