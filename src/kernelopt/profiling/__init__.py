"""Stage 1 profiling: run the vendor profiler, read reports, write ``profiles/v<N>/``.

``profile(workspace, version, ...)`` profiles a workspace (NVIDIA: Nsight Compute; AMD: rocprofv3);
``read_evidence(path, kernel=...)`` reads any report, CSV export, profile folder or summary.json.
Both import their machinery only when called.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from kernelopt.evidence.model import ProfileSummary
    from kernelopt.workspace import Workspace

__all__ = ["profile", "read_evidence"]


def profile(
    workspace: Workspace,
    version: int,
    *,
    vendor: str | None = None,
    kernel_regex: str | None = None,
    fast: bool = False,
    timeout_s: float = 900.0,
    **vendor_options: Any,
) -> ProfileSummary:
    """Stage 1 for a workspace; see :func:`kernelopt.profiling.stage.profile`."""
    from kernelopt.profiling.stage import profile as _profile

    return _profile(
        workspace, version, vendor=vendor, kernel_regex=kernel_regex, fast=fast, timeout_s=timeout_s, **vendor_options
    )


def read_evidence(path: Path, *, kernel: str | None = None, per_launch: bool = False) -> ProfileSummary:
    """Evidence from any report; see :func:`kernelopt.profiling.reader.read_evidence`."""
    from kernelopt.profiling.reader import read_evidence as _read

    return _read(path, kernel=kernel, per_launch=per_launch)
