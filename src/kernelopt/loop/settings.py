"""What the user asked for (flags) and the settings a run uses (kept in the journal across resumes)."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, Field, ValidationError

from kernelopt.errors import UsageError
from kernelopt.loop.journal import Journal, RunSettings, RunState, RunStatus
from kernelopt.taskcard import StopConditions
from kernelopt.workspace import Workspace


class LoopRequest(BaseModel):
    """What the user asked for (None = not given: the journal's value on resume, else the default).

    Stop-condition fields override README.md's ``stop_conditions``.
    """

    resume: bool = False
    planner: str | None = None
    implementer: str | None = None
    device: str | None = None
    repair_attempts: int | None = Field(default=None, ge=0)
    stop_on_failure: bool | None = None
    max_iterations: int | None = None
    max_wall_time_min: float | None = None
    target_latency_us: float | None = None
    target_speedup: float | None = None
    target_speedup_vs_reference: float | None = None
    roofline_utilization_pct: float | None = None
    max_consecutive_failures: int | None = None

    def stop_overrides(self) -> dict[str, float | int]:
        fields = (
            "max_iterations",
            "max_wall_time_min",
            "target_latency_us",
            "target_speedup",
            "target_speedup_vs_reference",
            "roofline_utilization_pct",
            "max_consecutive_failures",
        )
        return {f: getattr(self, f) for f in fields if getattr(self, f) is not None}


def resolve_settings(workspace: Workspace, request: LoopRequest) -> tuple[RunSettings, RunState | None]:
    """The settings a run will use, and the interrupted run it continues (None for a new run).

    An interrupted run keeps its settings; flags given now override them.

    Raises:
        UsageError: ``--resume`` with nothing to resume.
        WorkspaceError: the journal is unreadable.
    """
    state = Journal(workspace.state_dir).load()
    resuming = state is not None and state.status is RunStatus.RUNNING
    if request.resume and not resuming:
        if state is None:
            raise UsageError(f"nothing to resume in {workspace.root}", hint="run without --resume to start")
        raise UsageError(
            f"the last run in {workspace.root} already stopped ({state.stop.line() if state.stop else 'finished'})",
            hint="run without --resume to start a new run",
        )
    base = state.settings if (resuming and state is not None) else RunSettings()
    update: dict[str, Any] = {}
    for name in ("planner", "implementer", "device", "repair_attempts", "stop_on_failure"):
        value = getattr(request, name)
        if value is not None:
            update[name] = value
    overrides = {**(base.stop_overrides if resuming else {}), **request.stop_overrides()}
    check_stop_overrides(overrides)
    settings = RunSettings.model_validate({**base.model_dump(), **update, "stop_overrides": overrides})
    return settings, state if resuming else None


def check_stop_overrides(overrides: dict[str, float | int]) -> None:
    """Stop conditions given as flags (or kept by the journal), checked as the task card's are.

    Raises:
        UsageError: a value out of its range (``max_wall_time_min`` 0).
    """
    try:
        StopConditions.model_validate(overrides)
    except ValidationError as exc:
        err = exc.errors()[0]
        raise UsageError(f"invalid stop condition {'.'.join(map(str, err['loc']))}: {err['msg']}") from None


def check_request(request: LoopRequest) -> None:
    """What the flags ask for, checked before a workspace is made or anything is written: the stop
    conditions and the backends' names (a wrong one used to be said after the workspace was created).

    Raises:
        UsageError: a stop condition out of range, an unknown planner or implementer.
    """
    from kernelopt.backends.registry import implementer_class, planner_class

    check_stop_overrides(request.stop_overrides())
    if request.planner is not None:
        planner_class(request.planner)
    if request.implementer is not None:
        implementer_class(request.implementer)
