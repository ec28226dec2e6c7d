"""Profiler names -> lazily imported implementations, plus third-party entry points.

Built-ins: ``nvidia`` (Nsight Compute), ``amd`` (rocprofv3, through :mod:`kernelopt.profiling.rocprof_adapter`)
and ``fake`` (a deterministic stand-in for tests). Third parties register a class under the entry-point
group ``kernelopt.profilers``.
"""

from __future__ import annotations

import importlib
from importlib.metadata import entry_points

from kernelopt.errors import UsageError
from kernelopt.profiling.protocol import Profiler

PROFILERS: dict[str, str] = {
    "nvidia": "kernelopt.profiling.nvidia:NcuProfiler",
    "amd": "kernelopt.profiling.rocprof_adapter:RocprofProfiler",
    "fake": "kernelopt.profiling.fake:FakeProfiler",
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
        module, _, attr = PROFILERS[name].partition(":")
        cls = getattr(importlib.import_module(module), attr)
        return cls()
    for ep in entry_points(group=PROFILER_GROUP):
        if ep.name == name:
            return ep.load()()
    raise UsageError(f"unknown profiler vendor {name!r}", hint=f"known: {', '.join(profiler_names())}")
