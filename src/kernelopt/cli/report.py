"""``kernelopt report WS [--html OUT] [--markdown OUT] [--json]``: the workspace's report.

Without ``--html`` / ``--markdown`` the Markdown report goes to stdout. ``--markdown OUT`` writes it
with the roofline image beside it (``<OUT stem>.roofline.png``); ``--html OUT`` writes one
self-contained page. ``--json`` prints the report's data (and the files written) instead.
"""

from __future__ import annotations

import sys
from pathlib import Path

import typer

from kernelopt.cli.output import emit_json, info
from kernelopt.errors import UsageError, WorkspaceError
from kernelopt.report import collect, write_reports
from kernelopt.report.markdown import markdown_report
from kernelopt.report.model import ReportData
from kernelopt.workspace import DEFAULT_ROOT, PREFIX, Workspace


def resolve_workspace(ws: str, root: Path) -> Workspace:
    """``ws`` as a folder, else as a workspace name under ``root`` (``<root>/kernel_opt_<ws>``).

    Raises:
        WorkspaceError: neither is a workspace.
    """
    path = Path(ws).expanduser()
    if path.is_dir():
        return Workspace(path)
    if len(path.parts) != 1 or ws in (".", ".."):  # a path, not a name: no <root>/kernel_opt_<ws> to look for
        raise WorkspaceError(f"{ws}: no such workspace folder")
    named = Path(root).expanduser() / f"{PREFIX}{ws}"
    if named.is_dir():
        return Workspace(named)
    raise WorkspaceError(f"{ws}: no such workspace (looked for {path} and {named})")


def add_run_state(ws: Workspace, data: ReportData) -> None:
    """Why the last run of ``ws`` stopped and what its stages cost, from the loop's saved state (left
    unset when no run was saved)."""
    from kernelopt.loop.journal import Journal

    try:
        state = Journal(ws.state_dir).load()
    except WorkspaceError:
        return
    if state is None:
        return
    data.stop_reason = state.stop.line() if state.stop is not None else None
    data.stage_seconds = {str(k): float(v) for k, v in state.stage_seconds.items()}
    data.profiles_taken = state.profiles_taken


def register(app: typer.Typer) -> None:
    @app.command("report")
    def report(
        workspace: str = typer.Argument(..., help="Workspace folder, or its name under --root."),
        html: Path | None = typer.Option(None, "--html", help="Write a self-contained HTML report here."),
        markdown: Path | None = typer.Option(
            None, "--markdown", help="Write the Markdown report here (the plot goes beside it)."
        ),
        root: Path = typer.Option(DEFAULT_ROOT, "--root", help="Where workspaces named by NAME live."),
        as_json: bool = typer.Option(False, "--json", help="Print the report data as JSON."),
    ) -> None:
        """Report of a workspace: timeline, roofline plot, evidence -> action -> result, failures."""
        for flag, out in (("--html", html), ("--markdown", markdown)):
            if out is not None and out.is_dir():
                raise UsageError(f"{flag} {out} is a folder; give a file name (e.g. {out}/report.html)")
        ws = resolve_workspace(workspace, root)
        data = collect(ws)
        add_run_state(ws, data)
        written = write_reports(data, markdown=markdown, html=html)
        if as_json:
            emit_json({"report": data, "written": {k: str(v) for k, v in written.items()}})
            return
        if not written:
            sys.stdout.write(markdown_report(data))
            return
        for kind, path in written.items():
            info(f"wrote {kind}: {path}")
