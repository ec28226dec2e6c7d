"""``kernelopt report WS|--workspace WS [--html OUT] [--markdown OUT] [--csv OUT] [--json]``: the workspace's report.

Without ``--html`` / ``--markdown`` / ``--csv`` the Markdown report goes to stdout. ``--markdown OUT`` writes it
with the roofline image beside it (``<OUT stem>.roofline.png``); ``--html OUT`` writes one
self-contained page; ``--csv OUT`` the version timeline as CSV. ``--json`` prints the report's data (and the
files written) instead. A report goes only to a ``.md`` / ``.html`` (the timeline: ``.csv``) file outside every
workspace, new or an earlier one (:mod:`kernelopt.report.files`).
"""

from __future__ import annotations

import sys
from pathlib import Path

import typer

from kernelopt.cli.output import emit_json, info
from kernelopt.cli.workspace_arg import chosen_workspace, resolve_workspace
from kernelopt.loop.report_state import add_run_state
from kernelopt.report import collect, write_reports
from kernelopt.report.files import ReportFormat, report_file
from kernelopt.report.markdown import markdown_report
from kernelopt.workspace import DEFAULT_ROOT


def register(app: typer.Typer) -> None:
    @app.command("report")
    def report(
        workspace: str | None = typer.Argument(
            None, help="Workspace folder, or its name under --root (or --workspace).", show_default=False
        ),
        workspace_opt: str | None = typer.Option(
            None, "--workspace", "-w", help="The workspace (or give it first, positionally)."
        ),
        html: Path | None = typer.Option(None, "--html", help="Write a self-contained HTML report here."),
        markdown: Path | None = typer.Option(
            None, "--markdown", help="Write the Markdown report here (the plot goes beside it)."
        ),
        csv: Path | None = typer.Option(
            None, "--csv", help="Write the version timeline as CSV here (one row per version, for a spreadsheet)."
        ),
        root: Path = typer.Option(DEFAULT_ROOT, "--root", help="Where workspaces named by NAME live."),
        as_json: bool = typer.Option(False, "--json", help="Print the report data as JSON."),
    ) -> None:
        """Report of a workspace: timeline, roofline plot, evidence -> action -> result, failures."""
        # where a report may go, before anything is read: a .md / .html file outside every workspace that is
        # new or an earlier report (`--markdown WS/kernel.py` replaced the kernel)
        markdown = report_file(markdown, "--markdown", ReportFormat.MARKDOWN) if markdown is not None else None
        html = report_file(html, "--html", ReportFormat.HTML) if html is not None else None
        csv = report_file(csv, "--csv", ReportFormat.CSV) if csv is not None else None
        named = chosen_workspace(
            Path(workspace) if workspace else None,
            Path(workspace_opt) if workspace_opt else None,
            usage="kernelopt report",
        )
        ws = resolve_workspace(str(named), root)
        data = collect(ws)
        add_run_state(ws, data)
        written = write_reports(data, markdown=markdown, html=html, csv=csv)  # a disk error names the report's path
        if as_json:
            emit_json({"report": data, "written": {k: str(v) for k, v in written.items()}})
            return
        if not written:
            sys.stdout.write(markdown_report(data))
            return
        for kind, path in written.items():
            info(f"wrote {kind}: {path}")
