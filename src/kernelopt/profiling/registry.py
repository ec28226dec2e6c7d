"""Profiler names -> implementations, plus third-party entry points.

Built-ins: ``nvidia`` (Nsight Compute), ``amd`` (rocprofv3, through :mod:`kernelopt.profiling.rocprof_adapter`)
and ``fake`` (a deterministic stand-in for tests). Third parties register a class under the entry-point
group ``kernelopt.profilers``.
"""

from __future__ import annotations

from collections.abc import Callable
from importlib.metadata import entry_points

from kernelopt.errors import UsageError
from kernelopt.profiling.fake import FakeProfiler
from kernelopt.profiling.nvidia import NcuProfiler
from kernelopt.profiling.protocol import Profiler
from kernelopt.profiling.rocprof_adapter import RocprofProfiler

PROFILERS: dict[str, Callable[[], Profiler]] = {
    "nvidia": NcuProfiler,
    "amd": RocprofProfiler,
    "fake": FakeProfiler,
}
PROFILER_GROUP = "kernelopt.profilers"


def profiler_names() -> list[str]:
    """Every registered profiler name (built-ins and entry points)."""
    return sorted({*PROFILERS, *(ep.name for ep in entry_points(group=PROFILER_GROUP))})


def get_profiler(name: str) -> Profiler:
    """An instance of the profiler registered as ``name``.

    Raises:
        UsageError: no such profiler.
    """
    if name in PROFILERS:
        return PROFILERS[name]()
    for ep in entry_points(group=PROFILER_GROUP):
        if ep.name == name:
            return ep.load()()
    raise UsageError(f"unknown profiler vendor {name!r}", hint=f"known: {', '.join(profiler_names())}")
