"""The one shape of every profiler: settings in, ``profiles/v<N>/`` and a ProfileSummary out.

A profiler (``nvidia``: Nsight Compute; ``amd``: rocprofv3) profiles the current ``kernel.py`` of a
workspace into ``profiles/v<N>/`` (its raw artifacts plus ``summary.json`` / ``summary.txt``) and
returns the typed summary. Implementations are looked up by name in
:mod:`kernelopt.profiling.registry`.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Protocol, runtime_checkable

from pydantic import BaseModel, ConfigDict, Field

from kernelopt.evidence.model import ProfileSummary
from kernelopt.workspace import Workspace


class ProfileSettings(BaseModel):
    """How to profile (vendor-neutral fields first, then vendor options).

    Attributes:
        kernel_regex: regex on kernel names to profile; ``None``: the kernels kernel.py defines.
        fast: collect the smallest metric set that gives the same bottleneck verdict (NVIDIA: the
            ``--fast`` section list) instead of the full set.
        timeout_s: wall-clock limit of the whole profiler run, seconds; its process group is killed after.
        warmup: calls of the candidate before the profiled region (JIT compilation, autotuning).
        launches: calls of the candidate inside the profiled region.
        shape_index: which entry of ``reference.SHAPES`` to build the inputs from.
        force: replace an existing ``profiles/v<N>/``.
        device: where the driver runs the kernel: ``cuda``, or ``cpu`` to exercise the pipeline (driver,
            runner, report reading) on a machine without a GPU.
        launch_skip: NVIDIA: matching launches to skip inside the profiled region (``--launch-skip``).
        launch_count: NVIDIA: matching launches to profile (``--launch-count``); ``None``: one per kernel
            name kernel.py defines, per call in the profiled region.
        launch_skip_before_match: NVIDIA: launches of any kernel to skip before the first match.
        vendor_options: options only one vendor understands (AMD: ``modes``, ``iteration_range``,
            ``att_library_path``).
    """

    model_config = ConfigDict(extra="forbid")

    kernel_regex: str | None = None
    fast: bool = False
    timeout_s: float = Field(default=900.0, gt=0, allow_inf_nan=False)  # --timeout inf: exit 70 (n31)
    warmup: int = Field(default=3, ge=1)
    launches: int = Field(default=1, ge=1)
    shape_index: int = Field(default=0, ge=0)
    force: bool = False
    device: str = Field(default="cuda", pattern="^(cuda|cpu)$")
    launch_skip: int = Field(default=0, ge=0)
    launch_count: int | None = Field(default=None, ge=1)
    launch_skip_before_match: int | None = Field(default=None, ge=0)
    vendor_options: dict[str, Any] = Field(default_factory=dict)


@runtime_checkable
class Profiler(Protocol):
    """A Stage 1 profiler for one vendor."""

    name: str

    def profile(self, workspace: Workspace, version: int, settings: ProfileSettings) -> ProfileSummary:
        """Profile the workspace's current kernel.py into ``profiles/v<version>/``.

        Returns:
            The summary that was written to ``profiles/v<version>/summary.json``.
        """
        ...


def profile_dir(workspace: Workspace, version: int) -> Path:
    """``profiles/v<version>/`` of ``workspace``."""
    return workspace.profile_dir(version)
