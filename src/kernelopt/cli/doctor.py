"""``kernelopt doctor``: one verdict line per environment check (GPU, ncu, ncu_report, counters, torch, triton)."""

from __future__ import annotations

import math

import typer

from kernelopt.cli.output import emit_json, info
from kernelopt.errors import UsageError


def register(app: typer.Typer) -> None:
    @app.command("doctor")
    def doctor_cmd(
        no_probe: bool = typer.Option(False, "--no-probe", help="Skip profiling a trivial kernel with ncu."),
        probe_timeout: float = typer.Option(
            180.0, "--probe-timeout", min=1.0, help="Seconds the profile of a trivial kernel may take."
        ),
        as_json: bool = typer.Option(False, "--json", help="Print JSON."),
    ) -> None:
        """Check that Stage 1 can run here: profiles a trivial kernel with ncu. Exit status 3 when a check fails."""
        from kernelopt.profiling.environment import CheckStatus, run_checks

        if not math.isfinite(probe_timeout):  # every command has a limit (`kernelopt.proc`): inf was taken (n31)
            raise UsageError(f"--probe-timeout must be a finite number of seconds, not {probe_timeout}")
        checks = run_checks(probe_counters=not no_probe, probe_timeout_s=probe_timeout)
        if as_json:
            emit_json([{"name": c.name, "status": c.status.value, "detail": c.detail, "fix": c.fix} for c in checks])
        else:
            for c in checks:
                fix = f" -> {c.fix}" if c.fix and c.status is not CheckStatus.OK else ""
                info(f"{c.status.value.upper():4} {c.name}: {c.detail}{fix}")
        if any(c.status is CheckStatus.FAIL for c in checks):
            raise typer.Exit(3)
