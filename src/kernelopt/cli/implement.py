"""``kernelopt implement WS``: Stage 3 with the configured implementer, under the write guard, then an
immediate correctness check."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import typer

from kernelopt.cli.output import emit_json, info, warn
from kernelopt.env import EnvSettings


def register(app: typer.Typer) -> None:
    @app.command("implement")
    def implement(
        workspace: Path = typer.Argument(..., help="The workspace folder."),
        version: int | None = typer.Option(None, "--version", help="Iteration N (default: the newest plan)."),
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
        from kernelopt.backends.registry import implementer_class
        from kernelopt.backends.settings import parse_assignments
        from kernelopt.backends.stage import implement_version, read_plan, run_implement, stage_context
        from kernelopt.workspace import Workspace

        ws = Workspace(workspace)
        n = version if version is not None else implement_version(ws)
        plan = read_plan(ws, n)
        name = implementer or EnvSettings.read().implementer or "rules"
        backend = implementer_class(name)(parse_assignments(list(options)))
        report = run_implement(stage_context(ws, n, plan=plan), backend, run_check=not no_check)
        o = report.outcome
        result: dict[str, Any] = {
            "version": n,
            "implementer": name,
            "ok": report.ok,
            "changed": o.changed,
            "description": o.description,
            "knob_changes": {k: list(v) for k, v in o.knob_changes.items()},
            "error": o.error,
            "violations": [{"path": c.path, "kind": c.kind} for c in o.violations],
            "transcript": str(o.transcript) if o.transcript else None,
            "tokens": o.tokens,
            "syntax_error": report.syntax_error,
            "correctness": {
                "ran": report.correctness_ran,
                "passed": report.correctness_passed,
                "message": report.correctness_message,
                "error": report.correctness_error,
            },
            "diff": report.diff,
        }
        if as_json:
            emit_json(result)
        else:
            if o.changed:
                info(f"v{n}: {o.description}")
                for k, (before, after) in o.knob_changes.items():
                    info(f"  {k}: {before} -> {after}")
            if o.transcript:
                info(f"transcript: {o.transcript}")
            if o.tokens:
                info("tokens: " + ", ".join(f"{k} {v}" for k, v in o.tokens.items()))
            if o.violations:
                warn(
                    "reverted writes outside the allowance: " + ", ".join(f"{c.path} ({c.kind})" for c in o.violations)
                )
            if report.correctness_ran:
                verdict = "PASS" if report.correctness_passed else "FAIL"
                info(f"correctness: {verdict}: {report.correctness_message}")
            elif no_check:
                info("correctness: not checked (--no-check); run `python test_kernel.py` in the workspace")
            elif o.error is None and report.syntax_error is None and report.correctness_error is None:
                warn(f"correctness not checked: {report.correctness_message}")
        if not report.ok:
            if o.error:
                reason = o.error
            elif report.syntax_error:
                reason = f"kernel.py does not parse: {report.syntax_error}"
            elif report.correctness_error:
                reason = str(report.correctness_message)
            else:
                reason = f"kernel.py fails correctness: {report.correctness_message}"
            if not as_json:
                hint = (
                    "" if o.error else f" (kernel.py left as edited; `git -C {ws.root} checkout kernel.py` undoes it)"
                )
                typer.echo(f"kernelopt: implement failed: {' '.join(reason.split())}{hint}", err=True)
            raise typer.Exit(1)
