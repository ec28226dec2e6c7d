"""Profiler names -> implementations, plus third-party entry points.

Built-ins: ``nvidia`` (Nsight Compute) and ``amd`` (rocprofv3, through :mod:`kernelopt.profiling.rocprof_adapter`).
Third parties register a class under the entry-point group ``kernelopt.profilers``. The deterministic stand-in
for tests (:class:`kernelopt.profiling.fake.FakeProfiler`) is not registered: a user is never offered, nor
given, evidence that no profiler measured; a test that wants it by name adds it to :data:`PROFILERS`.
"""

from __future__ import annotations

from collections.abc import Callable
from importlib.metadata import entry_points

from kernelopt.errors import UsageError
from kernelopt.profiling.nvidia import NcuProfiler
from kernelopt.profiling.protocol import Profiler
from kernelopt.profiling.rocprof_adapter import RocprofProfiler

PROFILERS: dict[str, Callable[[], Profiler]] = {
    "nvidia": NcuProfiler,
    "amd": RocprofProfiler,
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
    raise UsageError(f"unknown profiler vendor {name!r}", hint=f"use {_choices()}")


def _choices() -> str:
    """``nvidia (Nsight Compute) or amd (rocprofv3)``, and any third-party profiler by its name."""
    tools = {"nvidia": "nvidia (Nsight Compute)", "amd": "amd (rocprofv3)"}
    names = [tools.get(n, n) for n in profiler_names()]
    return ", ".join(names[:-1]) + f" or {names[-1]}" if len(names) > 1 else names[0]
