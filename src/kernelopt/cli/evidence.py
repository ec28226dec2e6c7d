"""``kernelopt evidence PATH``: print the evidence in any report, CSV export, profile folder or summary."""

from __future__ import annotations

from pathlib import Path

import typer

from kernelopt.cli.output import emit_json, info


def register(app: typer.Typer) -> None:
    @app.command("evidence")
    def evidence_cmd(
        path: Path = typer.Argument(..., help=".ncu-rep, ncu CSV export, profiles/v<N>/ folder, or summary.json."),
        kernel: str | None = typer.Option(None, "--kernel", help="Only kernels matching this name / regex / #ID."),
        diff: Path | None = typer.Option(None, "--diff", help="Compare with another report or profile folder."),
        as_json: bool = typer.Option(False, "--json", help="Print JSON."),
        launches: bool = typer.Option(
            False,
            "--launches",
            help="One entry per launch, instead of one group (count, median/min/max) per kernel and launch "
            "configuration.",
        ),
    ) -> None:
        """Metrics, bottleneck, findings (evidence -> inference -> action), hotspots; or the change to --diff."""
        from kernelopt.evidence.diff import diff_summaries, render_diff
        from kernelopt.evidence.summary import render_text
        from kernelopt.profiling import read_evidence

        summary = read_evidence(path, kernel=kernel, per_launch=launches)
        if diff is None:
            if as_json:
                emit_json(summary)
            else:
                info(render_text(summary).rstrip("\n"))
            return
        other = read_evidence(diff, kernel=kernel, per_launch=launches)
        changes = diff_summaries(summary, other, before_name=str(path), after_name=str(diff))
        if as_json:
            emit_json(changes)
        else:
            info(render_diff(changes).rstrip("\n"))
