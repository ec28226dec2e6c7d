"""``kernelopt implement WS``: Stage 3 with the configured implementer, under the write guard, then an
immediate correctness check."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

import typer

from kernelopt.cli.bounds import VERSION
from kernelopt.cli.output import emit_json, info, note, warn
from kernelopt.env import EnvSettings

if TYPE_CHECKING:
    from kernelopt.stages.implement import ImplementResult


def register(app: typer.Typer) -> None:
    @app.command("implement")
    def implement(
        ctx: typer.Context,
        workspace: Path = typer.Argument(..., help="The workspace folder."),
        version: int | None = typer.Option(
            None, "--version", help="Iteration N (default: the newest plan).", **VERSION
        ),
        implementer: str | None = typer.Option(
            None,
            "--implementer",
            help="rules (default), agent-cli, llm-api, or a plug-in name (env KERNELOPT_IMPLEMENTER).",
        ),
        options: list[str] = typer.Option(
            [], "--option", "-o", help="Backend setting KEY=VALUE (e.g. command=..., timeout_s=600); repeatable."
        ),
        no_check: bool = typer.Option(False, "--no-check", help="Skip the correctness check after the edit."),
        as_json: bool = typer.Option(False, "--json", help="Print the result as JSON."),
    ) -> None:
        """Apply plans/v<N>_plan.md to kernel.py (one category), then check correctness at once."""
        from kernelopt.backends.protocol import AGENT_UNAVAILABLE
        from kernelopt.backends.settings import parse_assignments
        from kernelopt.errors import EXIT_ENVIRONMENT
        from kernelopt.hardware.gpu import gpu_driver_present
        from kernelopt.harness.gate import check_correctness
        from kernelopt.loop.opening import changed_reference
        from kernelopt.stages.backends import build_implementer
        from kernelopt.stages.guard import RunGuard
        from kernelopt.stages.implement import implement_version, read_plan, run_implement, summary_of
        from kernelopt.workspace import Workspace, stage_lock

        ws = Workspace(workspace)
        ctx.with_resource(stage_lock(ws.root, "implement"))  # not beside a run on it: n28
        # the flags first: a misspelt --implementer was told to run Stage 2, then, once it had, that it was unknown
        name = implementer or EnvSettings.read().implementer or "rules"
        settings = parse_assignments(list(options))
        # `kernelopt implement WS` of the README's CPU walk-through: the session's workers, left to choose, ran every
        # candidate outside Triton's interpreter ("0 active drivers"), and none was correct (n30)
        on_cpu = name == "rules" and "device" not in settings and EnvSettings.read().device is None
        on_cpu = on_cpu and not gpu_driver_present()
        if on_cpu:
            settings["device"] = "cpu"
        backend = build_implementer(name, settings)
        changed = changed_reference(ws)
        if changed is not None:
            warn(changed)
        n = version if version is not None else implement_version(ws)
        plan = read_plan(ws, n)
        if on_cpu:
            note("no GPU driver on this machine: the tuning session runs on the CPU (-o device=cuda to insist)")
        report = run_implement(
            ws,
            n,
            plan,
            backend,
            guard=RunGuard(ws),
            check=None if no_check else check_correctness,
            summary=summary_of(ws, n),
            history=list(ws.memory.records()),
        )
        result = _result(n, name, report)
        if as_json:
            emit_json(result)
        else:
            _show(n, report, result, no_check=no_check)
        if not report.ok:
            if not as_json:
                reason = " ".join((report.reason or "").split())
                typer.echo(f"kernelopt: implement failed: {reason}; kernel.py left as it was", err=True)
            # the agent's infrastructure failing is the environment's status (as `validate` and `optimize`)
            raise typer.Exit(EXIT_ENVIRONMENT if report.error_type == AGENT_UNAVAILABLE else 1)


def _result(n: int, name: str, report: ImplementResult) -> dict[str, Any]:
    """What ``--json`` prints: the change, the errors, the guard's undos, tokens, the check, the diff."""
    o = report.outcome
    c = report.correctness
    return {
        "version": n,
        "implementer": name,
        "ok": report.ok,
        "changed": report.ok,
        "description": o.description if o else "",
        "knob_changes": {k: list(v) for k, v in o.knob_changes.items()} if o else {},
        "error": report.reason,
        "error_type": report.error_type,
        "violations": report.violations,
        "transcript": str(report.transcript) if report.transcript else None,
        "tokens": {k: v for _, t in report.tokens for k, v in t.items()},
        "correctness": {
            "ran": c is not None,
            "passed": c.passed if c is not None else None,
            "message": c.message if c is not None else None,
        },
        "diff": report.diff,
    }


def _show(n: int, report: ImplementResult, result: dict[str, Any], *, no_check: bool) -> None:
    """The change, the transcript and tokens, the guard's undos and the correctness check, for people."""
    o, c = report.outcome, report.correctness
    if report.ok and o is not None:
        info(f"v{n}: {o.description}")
        for k, (before, after) in o.knob_changes.items():
            info(f"  {k}: {before} -> {after}")
    if report.transcript:
        info(f"transcript: {report.transcript}")
    if result["tokens"]:
        info("tokens: " + ", ".join(f"{k} {v}" for k, v in result["tokens"].items()))
    if report.violations:
        warn("undid writes outside the allowance: " + ", ".join(report.violations))
    if c is not None:
        info(f"correctness: {'PASS' if c.passed else c.status.value}: {c.message}")
    elif no_check and report.ok:
        info("correctness: not checked (--no-check); run `python test_kernel.py` in the workspace")
