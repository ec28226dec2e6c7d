"""What a profiler report holds for one kernel launch, before interpretation.

Both Nsight Compute readers (``.ncu-rep`` through ``ncu_report`` and the CSV exports) produce
:class:`RawKernel` records: metrics by the profiler's own names in base units (see
:mod:`kernelopt.profiling.units`), per-instruction (source-level) counters keyed by SASS address, the
profiler's rule results and source markers. :mod:`kernelopt.evidence.nvidia` turns them into typed evidence.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

from kernelopt.evidence.model import ProfilerRuleResult, SourceMarker


@dataclass
class RawMetric:
    """One profiler metric of one launch.

    Attributes:
        name: the profiler's metric name (``gpu__time_duration.sum``).
        value: the value in ``unit`` (base unit); ``None`` when the profiler printed ``n/a``.
        unit: the base unit (``ns``, ``byte``, ``byte/s``, ``%``, ``cycle``, ...; ``""`` for none).
        label: the human label the details page uses for it, when it came from a details export.
    """

    name: str
    value: float | None
    unit: str = ""
    label: str | None = None


@dataclass
class RawKernel:
    """One profiled kernel launch as the report stores it.

    Attributes:
        name: kernel name (demangled, or the function name when that is all the report has).
        function_name: the bare function name (no parameters, no templates), when known.
        launch_id: the result index in the report (``ID`` column of the CSV exports).
        artifact: the file the data was read from (used as the ``source`` of every evidence item).
        gpu: device name as the report gives it.
        metrics: scalar metrics by profiler name.
        strings: string-valued metrics by profiler name (``launch__func_cache_config``, device name, ...).
        per_pc: source-level counters: metric name -> {SASS address -> value}.
        per_opcode: executed instruction counts by opcode with modifiers (``LDG.E.128`` -> count).
        sass: SASS text by address (the instructions the report holds).
        source_lines: SASS address -> (file, line) when the report has line information.
        source_text: file -> lines of imported source (``--import-source yes``).
        function_pc: the address of the function's first instruction (to print offsets), when known.
        rules: the profiler's guided-analysis results, as stored.
        markers: the profiler's source markers, as stored.
        grid: grid dimensions, when known.
        block: block dimensions, when known.
    """

    name: str
    artifact: str
    function_name: str | None = None
    launch_id: int | None = None
    gpu: str | None = None
    metrics: dict[str, RawMetric] = field(default_factory=dict)
    strings: dict[str, str] = field(default_factory=dict)
    per_pc: dict[str, dict[int, float]] = field(default_factory=dict)
    per_opcode: dict[str, float] = field(default_factory=dict)
    sass: dict[int, str] = field(default_factory=dict)
    source_lines: dict[int, tuple[str, int]] = field(default_factory=dict)
    source_text: dict[str, list[str]] = field(default_factory=dict)
    function_pc: int | None = None
    rules: list[ProfilerRuleResult] = field(default_factory=list)
    markers: list[SourceMarker] = field(default_factory=list)
    grid: list[int] | None = None
    block: list[int] | None = None

    def value(self, name: str) -> float | None:
        """The value of metric ``name`` in its base unit, ``None`` when absent or ``n/a``."""
        m = self.metrics.get(name)
        return None if m is None else m.value

    def has(self, name: str) -> bool:
        return name in self.metrics


@dataclass
class RawReport:
    """Every launch of one report file.

    Attributes:
        path: the report file.
        tool: the profiler and, when the report says, its version (``ncu``, ``ncu 2025.3.1``).
        kernels: one entry per profiled launch, in report order.
    """

    path: str
    tool: str
    kernels: list[RawKernel] = field(default_factory=list)


def report_to_json(report: RawReport) -> dict[str, Any]:
    """A JSON-able dict of ``report`` (for reading reports in a worker process)."""
    return {
        "path": report.path,
        "tool": report.tool,
        "kernels": [
            {
                **{
                    k: v
                    for k, v in asdict(raw).items()
                    if k not in ("per_pc", "sass", "source_lines", "rules", "markers")
                },
                "per_pc": {m: {str(a): v for a, v in vals.items()} for m, vals in raw.per_pc.items()},
                "sass": {str(a): t for a, t in raw.sass.items()},
                "source_lines": {str(a): list(fl) for a, fl in raw.source_lines.items()},
                "rules": [r.model_dump(mode="json") for r in raw.rules],
                "markers": [m.model_dump(mode="json") for m in raw.markers],
            }
            for raw in report.kernels
        ],
    }


def report_from_json(data: dict[str, Any]) -> RawReport:
    """The inverse of :func:`report_to_json`."""
    kernels = []
    for d in data["kernels"]:
        kernels.append(
            RawKernel(
                name=d["name"],
                artifact=d["artifact"],
                function_name=d.get("function_name"),
                launch_id=d.get("launch_id"),
                gpu=d.get("gpu"),
                metrics={n: RawMetric(**m) for n, m in d["metrics"].items()},
                strings=d["strings"],
                per_pc={m: {int(a): float(v) for a, v in vals.items()} for m, vals in d["per_pc"].items()},
                per_opcode=d["per_opcode"],
                sass={int(a): t for a, t in d["sass"].items()},
                source_lines={int(a): (fl[0], int(fl[1])) for a, fl in d["source_lines"].items()},
                source_text=d["source_text"],
                function_pc=d.get("function_pc"),
                rules=[ProfilerRuleResult.model_validate(r) for r in d["rules"]],
                markers=[SourceMarker.model_validate(m) for m in d["markers"]],
                grid=d.get("grid"),
                block=d.get("block"),
            )
        )
    return RawReport(path=data["path"], tool=data["tool"], kernels=kernels)
