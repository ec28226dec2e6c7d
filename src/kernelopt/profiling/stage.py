"""Stage 1 entry point: ``profile(workspace, version)`` dispatches to the vendor's profiler."""

from __future__ import annotations

from typing import Any

from pydantic import ValidationError

from kernelopt.errors import UsageError
from kernelopt.evidence.model import ProfileSummary
from kernelopt.evidence.summary import SUMMARY_JSON, write_summary
from kernelopt.profiling.protocol import ProfileSettings
from kernelopt.profiling.registry import get_profiler
from kernelopt.workspace import Workspace

_SETTINGS_FIELDS = set(ProfileSettings.model_fields) - {"vendor_options", "kernel_regex", "fast", "timeout_s"}


def resolve_vendor(workspace: Workspace, vendor: str | None) -> str:
    """``vendor``, else the task card's ``platform``, else ``nvidia``."""
    if vendor is not None:  # `--vendor ''` is an unknown vendor, not the default (it profiled on NVIDIA)
        return vendor.strip().lower()
    platform = workspace.task_card().platform
    return platform.lower() if platform else "nvidia"


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
    """Stage 1: profile the workspace's current ``kernel.py`` into ``profiles/v<version>/``.

    Args:
        workspace: the workspace.
        version: the version number N (``profiles/v<N>/``).
        vendor: ``nvidia`` or ``amd`` (default: the task card's ``platform``, else ``nvidia``).
        kernel_regex: which kernels to profile (default: the kernels kernel.py defines).
        fast: the reduced metric set (same bottleneck verdict, fewer replay passes).
        timeout_s: wall-clock limit of the profiler run, seconds.
        **vendor_options: ``launch_skip``, ``launch_count``, ``launch_skip_before_match``, ``warmup``,
            ``launches``, ``shape_index``, ``force`` (any vendor that supports them); AMD: ``modes``,
            ``iteration_range``, ``att_library_path``.

    Returns:
        The summary written to ``profiles/v<version>/summary.json``. When ``ncu`` is missing or counters
        are not readable it is a timing-only summary (``counters_available=False``); no exception.

    Raises:
        UsageError: unknown vendor or invalid option values.
        KerneloptError: the profiler's own failure classes (see :class:`~kernelopt.profiling.nvidia.NcuProfiler`).
    """
    if version < 0:
        raise UsageError(f"version must be >= 0, got {version}")
    common = {k: v for k, v in vendor_options.items() if k in _SETTINGS_FIELDS}
    rest = {k: v for k, v in vendor_options.items() if k not in _SETTINGS_FIELDS and v is not None}
    try:
        settings = ProfileSettings(
            kernel_regex=kernel_regex, fast=fast, timeout_s=timeout_s, vendor_options=rest, **common
        )
    except ValidationError as exc:
        err = exc.errors()[0]
        raise UsageError(f"invalid profile option {'.'.join(map(str, err['loc']))}: {err['msg']}") from None
    profiler = get_profiler(resolve_vendor(workspace, vendor))
    summary = profiler.profile(workspace, version, settings)
    folder = workspace.profile_dir(version)
    if not (folder / SUMMARY_JSON).is_file():
        write_summary(folder, summary)
    return summary
