"""What a workspace's report takes from the loop's saved state: why the last run stopped and what its
stages cost (``kernelopt report`` and the MCP ``report`` tool)."""

from __future__ import annotations

from kernelopt.errors import WorkspaceError
from kernelopt.loop.journal import Journal
from kernelopt.report.model import ReportData
from kernelopt.workspace import Workspace


def add_run_state(ws: Workspace, data: ReportData) -> None:
    """Why the last run of ``ws`` stopped and what its stages cost, from the loop's saved state (left
    unset when no run was saved or the journal cannot be read)."""
    try:
        state = Journal(ws.state_dir).load()
    except WorkspaceError:
        return
    if state is None:
        return
    data.stop_reason = state.stop.line() if state.stop is not None else None
    data.stage_seconds = {str(k): float(v) for k, v in state.stage_seconds.items()}
    data.profiles_taken = state.profiles_taken
