"""Readers for AMD profiler outputs, and their merge into one :class:`ProfileSummary`.

Formats read (each recognized by its header, not by its file name):

* rocprofv3 ``*_counter_collection.csv``: one row per (dispatch, counter) with ``Counter_Name`` /
  ``Counter_Value`` (repeated names within a dispatch are summed, as rocprof-compute does).
* rocprofv3 ``*_kernel_trace.csv``: one row per dispatch with ``Start_Timestamp`` / ``End_Timestamp``
  (ns), all known column spellings (``VGPR_Count`` / ``Vgpr_Count``, with or without ``Guid``).
* rocprofv3 ``*_agent_info.csv``: CPU and GPU agents (CU count, XCDs, SIMDs per CU, wave size, LDS).
* rocprof-compute / Omniperf ``pmc_perf.csv`` and ``timestamps.csv``: one wide row per dispatch, in the
  rocprof v1 (``wave_size``, ``obj``), v2 (``Wave_Size_N`` helper columns) and rocprofiler-SDK
  (``Queue_ID``, ``PID``, ``Kernel_ID``) column variants, plus the ROCm 6.0/6.1 short headers
  (``KernelName``, ``grd``, ``BeginNs``, ...). Per-channel columns ``NAME[n]`` are kept and summed into
  ``NAME_sum`` when the file has no ``NAME_sum`` column.
* rocprof-compute ``pmc_kernel_top.csv`` (per-kernel count / sum / mean / median ns / percent).
* ATT decoder per-instruction stats: the older quoted format with ``Stall`` and ``Idle`` columns and
  the newer ``", "``-separated format without them. A header-only file is an empty trace: "no samples",
  not an error.

Rules shared by every reader: a row whose field count differs from the header's is refused as
malformed (:class:`~kernelopt.errors.InputFileError`); a timestamp written in scientific notation
(``8.1097E+14``) has lost its nanoseconds, so the duration is unknown (``None`` with the reason), never
zero; kernel names are matched across files by :func:`~kernelopt.evidence.amdgcn.kernel_base_name`
(``foo(int) (.kd)``, ``foo(int) [clone .kd]``, ``_Z3fooi`` and ``foo`` are one kernel).

Derived metrics follow rocprof-compute's (Omniperf's) gfx942 analysis formulas ("System Speed-of-Light"
panel 0200, "Local data share" and "Workgroup manager" panels; ROCm Compute Profiler documentation,
https://rocm.docs.amd.com/projects/rocprofiler-compute/en/latest/conceptual/performance-model.html).
Counters of several dispatches of one kernel are averaged (rocprof-compute's ``AVG()``), ratios are
taken of those means.

The ``parse_*`` / ``build_*`` functions are pure (text in, records out); :func:`is_amd_path`,
:func:`read_amd_path` and :func:`read_amd_profile_dir` read files.
"""

from __future__ import annotations

import csv
import dataclasses
import io
import json
import math
import re
import statistics
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from pathlib import Path

from kernelopt.errors import InputFileError, UsageError
from kernelopt.evidence import amd_rules
from kernelopt.evidence.amdgcn import AmdIsaFacts, analyze, kernel_base_name, looks_like_amdgcn, normalize_kernel_name
from kernelopt.evidence.model import Hotspot, KernelEvidence, Metric, MetricSpread, ProfileSummary, Vendor
from kernelopt.evidence.summary import mark_empty
from kernelopt.numeric import plain_int


class ReportKind(StrEnum):
    """What an AMD CSV holds, recognized from its header."""

    ATT_STATS = "att_stats"
    AGENT_INFO = "agent_info"
    COUNTER_COLLECTION = "counter_collection"
    KERNEL_TRACE = "kernel_trace"
    KERNEL_TOP = "kernel_top"
    DISPATCH_TABLE = "dispatch_table"
    SYSINFO = "sysinfo"
    KERNEL_STATS = "kernel_stats"


# ----------------------------------------------------------------------------------------- CSV


def parse_csv(text: str, source: str) -> tuple[list[str], list[list[str]]]:
    """Header and rows of a CSV, refusing rows whose width differs from the header's.

    Both ``a,b`` and ``a, b`` separators are accepted (spaces after a comma are skipped).

    Raises:
        InputFileError: empty file, or a row with more or fewer fields than the header.
    """
    reader = csv.reader(io.StringIO(text), skipinitialspace=True)
    rows = [r for r in reader if r and any(cell.strip() for cell in r)]
    if not rows:
        raise InputFileError(source, "empty CSV file (no header)")
    header = [h.strip() for h in rows[0]]
    for i, row in enumerate(rows[1:], start=2):
        if len(row) != len(header):
            raise InputFileError(
                source,
                f"malformed CSV: row {i} has {len(row)} fields but the header has {len(header)}",
                hint="the file is truncated or was edited; re-run the profiler",
            )
    return header, [[c.strip() for c in r] for r in rows[1:]]


def classify_header(header: Sequence[str]) -> ReportKind | None:
    """The kind of AMD report a CSV header belongs to, or ``None`` when it is not one we read."""
    cols = set(header)
    if {"gpu_arch", "cu_per_gpu"} <= cols:
        return ReportKind.SYSINFO
    if {"Name", "Calls", "TotalDurationNs", "AverageNs"} <= cols:
        return ReportKind.KERNEL_STATS
    if {"CodeObj", "Vaddr", "Instruction", "Hitcount", "Latency"} <= cols:
        return ReportKind.ATT_STATS
    if {"Agent_Type", "Wave_Front_Size"} <= cols or {"Agent_Type", "Cu_Count"} <= cols:
        return ReportKind.AGENT_INFO
    has_name = bool(cols & {"Kernel_Name", "KernelName"})
    if has_name and {"Counter_Name", "Counter_Value"} <= cols:
        return ReportKind.COUNTER_COLLECTION
    if has_name and {"Count", "Sum(ns)", "Mean(ns)"} <= cols:
        return ReportKind.KERNEL_TOP
    if has_name and "Kind" in cols and {"Start_Timestamp", "End_Timestamp"} <= cols:
        return ReportKind.KERNEL_TRACE
    if has_name and (cols & {"Dispatch_ID", "Dispatch_Id", "Index"}):
        return ReportKind.DISPATCH_TABLE
    return None


def _read_table(text: str, source: str, kind: ReportKind, refusal: str) -> tuple[list[str], list[dict[str, str]]]:
    """Header and rows (column -> cell) of a CSV that must be a ``kind`` table.

    Raises:
        InputFileError: malformed CSV (:func:`parse_csv`), or ``refusal`` when the header is another table's.
    """
    header, rows = parse_csv(text, source)
    if classify_header(header) is not kind:
        raise InputFileError(source, refusal)
    return header, [dict(zip(header, cells, strict=True)) for cells in rows]


# ----------------------------------------------------------------------------------- records


@dataclass(frozen=True)
class AmdAgent:
    """One GPU agent of ``agent_info.csv`` (the measured machine's own description).

    Attributes:
        name: gfx target (``gfx942``).
        product_name: marketing name as the driver reports it (may be generic, "AMD Radeon Graphics").
        cu_count: compute units.
        num_xcc: accelerator complex dies (XCDs).
        simds_per_cu: SIMDs per CU.
        max_waves_per_simd: wave slots per SIMD.
        max_waves_per_cu: wave slots per CU.
        wave_size: wavefront size (work-items).
        lds_bytes_per_cu: LDS per CU in bytes.
        max_engine_clock_mhz: peak shader clock (``Max_Engine_Clk_Fcompute``, sysinfo ``max_sclk``), MHz.
        source: the file it was read from.
        memory_clock_mhz: peak memory clock (sysinfo ``max_mclk``), MHz.
        hbm_channels: HBM channels (sysinfo ``num_hbm_channels``).
        compute_partition: ``SPX`` / ``CPX`` ... (sysinfo); in CPX mode the CU count is one partition's.
    """

    name: str
    product_name: str | None
    cu_count: int | None
    num_xcc: int | None
    simds_per_cu: int | None
    max_waves_per_simd: int | None
    max_waves_per_cu: int | None
    wave_size: int | None
    lds_bytes_per_cu: int | None
    max_engine_clock_mhz: int | None
    source: str
    memory_clock_mhz: int | None = None
    hbm_channels: int | None = None
    compute_partition: str | None = None

    @property
    def generic_name(self) -> bool:
        return not self.product_name or self.product_name in ("AMD Radeon Graphics", self.name)

    @property
    def label(self) -> str:
        """``"AMD Instinct MI300X (gfx942)"``, or the gfx name alone when the product name is generic."""
        part = f", {self.compute_partition} partition" if self.compute_partition else ""
        if not self.generic_name:
            return f"{self.product_name} ({self.name}{part})"
        return self.name + (f" ({self.compute_partition} partition)" if part else "")

    @property
    def peak_hbm_gbps(self) -> float | None:
        """rocprof-compute's ``hbmBandwidth`` = max_mclk/1000 x 32 x HBM channels (GB/s), when both are known."""
        if not self.memory_clock_mhz or not self.hbm_channels:
            return None
        return self.memory_clock_mhz / 1000.0 * 32.0 * self.hbm_channels


@dataclass
class AmdDispatch:
    """One kernel dispatch with its counters (from any dispatch-level table).

    Attributes:
        kernel_name: kernel name as the profiler printed it (``.kd`` forms removed).
        dispatch_id: the profiler's dispatch index.
        counters: counter name -> value (``NAME[n]`` per-channel values included).
        channels: per-channel counter base name -> number of channels seen.
        start_ns / end_ns: timestamps in ns when they are exact integers.
        duration_missing_reason: why the duration is unknown, when it is.
        grid_size, workgroup_size, lds_bytes, scratch_bytes, arch_vgprs, accum_vgprs, sgprs, wave_size:
            launch resources as the profiler reports them (``None`` when the table lacks them).
        source: file name (and column variant) it came from.
    """

    kernel_name: str
    dispatch_id: int | None
    source: str
    counters: dict[str, float] = field(default_factory=dict)
    channels: dict[str, int] = field(default_factory=dict)
    start_ns: int | None = None
    end_ns: int | None = None
    duration_missing_reason: str | None = "no timestamps in this table"
    grid_size: int | None = None
    workgroup_size: int | None = None
    lds_bytes: int | None = None
    scratch_bytes: int | None = None
    arch_vgprs: int | None = None
    accum_vgprs: int | None = None
    sgprs: int | None = None
    wave_size: int | None = None
    timing_only: bool = False

    @property
    def duration_ns(self) -> int | None:
        if self.start_ns is None or self.end_ns is None or self.duration_missing_reason:
            return None
        return self.end_ns - self.start_ns


@dataclass(frozen=True)
class KernelTopRow:
    """One kernel of rocprof-compute's ``pmc_kernel_top.csv`` or a rocprof ``--stats`` file (times in ns)."""

    kernel_name: str
    count: int
    sum_ns: float
    mean_ns: float
    median_ns: float | None
    pct: float | None
    source: str
    min_ns: float | None = None
    max_ns: float | None = None
    mean_column: str = "Mean(ns)"


@dataclass(frozen=True)
class AttInstruction:
    """One instruction line of an ATT decoder stats file (cycles summed over traced waves)."""

    code_object: int
    vaddr: int
    text: str
    hitcount: int
    latency: int
    stall: int | None
    idle: int | None
    source_line: str | None


@dataclass(frozen=True)
class AttKernel:
    """The ATT per-instruction stats of one kernel (one code-object section of a stats file).

    Attributes:
        kernel_name: from the section's ``; <symbol>`` comment row (demangled ``Source`` when given).
        instructions: instruction rows in address order.
        has_stall_idle: True for the decoder format with ``Stall`` / ``Idle`` columns.
        source: file name.
    """

    kernel_name: str | None
    instructions: tuple[AttInstruction, ...]
    has_stall_idle: bool
    source: str

    @property
    def sampled(self) -> list[AttInstruction]:
        return [i for i in self.instructions if i.hitcount > 0]


@dataclass
class AttFile:
    """A parsed ATT stats file: its kernels, or none at all (an empty trace)."""

    source: str
    kernels: list[AttKernel]
    has_stall_idle: bool

    @property
    def empty(self) -> bool:
        return not any(k.sampled for k in self.kernels)


# -------------------------------------------------------------------------------- primitives


def _num(text: str | None) -> float | None:
    if text is None:
        return None
    t = text.strip().replace(",", "")
    if not t or t.lower() in ("nan", "n/a", "none", "null", "-"):
        return None
    try:
        v = float(t)
    except ValueError:
        return None
    return v if math.isfinite(v) else None


def _int(text: str | None) -> int | None:
    v = _num(text)
    return None if v is None else int(v)


_EXACT_TS = re.compile(r"^\d+(\.0*)?$")


def _timestamps(start: str | None, end: str | None) -> tuple[int | None, int | None, str | None]:
    """Exact ns timestamps, or a reason why the duration cannot be known."""
    if start is None or end is None or not start.strip() or not end.strip():
        return None, None, "no timestamps in this table"
    s, e = start.strip(), end.strip()
    if not _EXACT_TS.match(s) or not _EXACT_TS.match(e):
        return (
            None,
            None,
            f"timestamps lost precision (written as {s!r} / {e!r}); the duration cannot be recovered",
        )
    si, ei = int(float(s)) if "." in s else int(s), int(float(e)) if "." in e else int(e)
    if ei <= si:
        return si, ei, f"end timestamp {ei} is not after start {si}"
    return si, ei, None


_COLUMN_ALIASES: dict[str, tuple[str, ...]] = {
    "dispatch": ("Dispatch_ID", "Dispatch_Id", "Index"),
    "kernel": ("Kernel_Name", "KernelName"),
    "grid": ("Grid_Size", "grd", "GRD"),
    "workgroup": ("Workgroup_Size", "wgr", "WGR"),
    "lds": ("LDS_Per_Workgroup", "LDS_Block_Size", "Lds_Block_Size", "lds", "LDS", "Group_Segment_Size"),
    "scratch": ("Scratch_Per_Workitem", "Scratch_Size", "scr", "SCR", "Private_Segment_Size"),
    "vgpr": ("Arch_VGPR", "VGPR_Count", "Vgpr_Count", "arch_vgpr"),
    "agpr": ("Accum_VGPR", "Accum_VGPR_Count", "Accum_Vgpr_Count", "accum_vgpr", "ACCUM_VGPR"),
    "sgpr": ("SGPR", "SGPR_Count", "Sgpr_Count", "sgpr"),
    "wave": ("Wave_Size", "wave_size"),
    "start": ("Start_Timestamp", "BeginNs"),
    "end": ("End_Timestamp", "EndNs"),
}
_COUNTER_COL = re.compile(r"^[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+(?:_sum)?(?:\[\d+\])?$")
_NOT_COUNTERS = {"GPU_ID", "ACCUM_VGPR", "TCC_channels"}
_CHANNEL = re.compile(r"^(.*)\[(\d+)\]$")


def _pick(row: dict[str, str], key: str) -> str | None:
    for col in _COLUMN_ALIASES[key]:
        if col in row:
            return row[col]
    return None


def _grid_total(row: dict[str, str]) -> int | None:
    total = _int(_pick(row, "grid"))
    if total is None and "Grid_Size_X" in row:
        dims = [_int(row.get(f"Grid_Size_{d}")) or 1 for d in "XYZ"]
        total = dims[0] * dims[1] * dims[2]
    return total


def _wg_total(row: dict[str, str]) -> int | None:
    total = _int(_pick(row, "workgroup"))
    if total is None and "Workgroup_Size_X" in row:
        dims = [_int(row.get(f"Workgroup_Size_{d}")) or 1 for d in "XYZ"]
        total = dims[0] * dims[1] * dims[2]
    return total


def _dispatch_from_row(row: dict[str, str], source: str) -> AmdDispatch:
    start, end, reason = _timestamps(_pick(row, "start"), _pick(row, "end"))
    return AmdDispatch(
        kernel_name=normalize_kernel_name(_pick(row, "kernel") or "?"),
        dispatch_id=_int(_pick(row, "dispatch")),
        source=source,
        start_ns=start,
        end_ns=end,
        duration_missing_reason=reason,
        grid_size=_grid_total(row),
        workgroup_size=_wg_total(row),
        lds_bytes=_int(_pick(row, "lds")),
        scratch_bytes=_int(_pick(row, "scratch")),
        arch_vgprs=_int(_pick(row, "vgpr")),
        accum_vgprs=_int(_pick(row, "agpr")),
        sgprs=_int(_pick(row, "sgpr")),
        wave_size=_int(_pick(row, "wave")),
    )


def _add_channel_sums(d: AmdDispatch) -> None:
    sums: dict[str, float] = {}
    for name, value in d.counters.items():
        m = _CHANNEL.match(name)
        if m:
            base = m.group(1)
            d.channels[base] = d.channels.get(base, 0) + 1
            sums[base] = sums.get(base, 0.0) + value
    for base, total in sums.items():
        d.counters.setdefault(f"{base}_sum", total)


# ------------------------------------------------------------------------------------ parsers


def dispatch_table_variant(header: Sequence[str]) -> str:
    """Which rocprof backend wrote a wide dispatch table: ``rocprof-v1``, ``rocprof-v2``, ``rocprofiler-sdk``."""
    cols = set(header)
    if "obj" in cols or "wave_size" in cols or "KernelName" in cols:
        return "rocprof-v1"
    if cols & {"Kernel_ID", "PID", "Queue_ID", "TID"}:
        return "rocprofiler-sdk"
    return "rocprof-v2"


def parse_dispatch_table(text: str, source: str) -> list[AmdDispatch]:
    """Dispatches of a wide table (rocprof-compute ``pmc_perf.csv`` / ``timestamps.csv``).

    Raises:
        InputFileError: malformed CSV or not a dispatch table.
    """
    header, rows = _read_table(
        text, source, ReportKind.DISPATCH_TABLE, "not a rocprof dispatch table (no Kernel_Name / Dispatch_ID columns)"
    )
    variant = dispatch_table_variant(header)
    counter_cols = [c for c in header if _COUNTER_COL.match(c) and c not in _NOT_COUNTERS]
    label = f"{source} ({variant} columns)"
    out = []
    for row in rows:
        d = _dispatch_from_row(row, label)
        for col in counter_cols:
            v = _num(row[col])
            if v is not None:
                d.counters[col] = v
        _add_channel_sums(d)
        d.timing_only = not counter_cols
        out.append(d)
    return out


def parse_counter_collection(text: str, source: str) -> list[AmdDispatch]:
    """Dispatches of a rocprofv3 ``counter_collection.csv`` (long format).

    Raises:
        InputFileError: malformed CSV or not a counter collection.
    """
    _, rows = _read_table(
        text,
        source,
        ReportKind.COUNTER_COLLECTION,
        "not a rocprofv3 counter_collection.csv (no Counter_Name / Counter_Value)",
    )
    by_key: dict[tuple[str, str], AmdDispatch] = {}
    for row in rows:
        key = (row.get("Dispatch_Id") or row.get("Dispatch_ID") or "", row.get("Kernel_Name", ""))
        d = by_key.get(key)
        if d is None:
            d = by_key[key] = _dispatch_from_row(row, source)
        name = row["Counter_Name"]
        v = _num(row["Counter_Value"])
        if v is not None:
            d.counters[name] = d.counters.get(name, 0.0) + v
    out = list(by_key.values())
    for d in out:
        _add_channel_sums(d)
    return out


def parse_kernel_trace(text: str, source: str) -> list[AmdDispatch]:
    """Dispatches of a rocprofv3 ``kernel_trace.csv`` (timestamps and launch resources, no counters).

    Raises:
        InputFileError: malformed CSV or not a kernel trace.
    """
    _, rows = _read_table(text, source, ReportKind.KERNEL_TRACE, "not a rocprofv3 kernel_trace.csv")
    out = []
    for row in rows:
        if row.get("Kind", "KERNEL_DISPATCH") != "KERNEL_DISPATCH":
            continue
        d = _dispatch_from_row(row, source)
        d.timing_only = True
        out.append(d)
    return out


def parse_agent_info(text: str, source: str) -> list[AmdAgent]:
    """GPU agents of a rocprofv3 ``agent_info.csv`` (CPU rows are skipped).

    Raises:
        InputFileError: malformed CSV or not an agent-info table.
    """
    _, rows = _read_table(text, source, ReportKind.AGENT_INFO, "not a rocprofv3 agent_info.csv")
    out = []
    for row in rows:
        if row.get("Agent_Type", "").upper() != "GPU":
            continue
        lds_kb = _int(row.get("Lds_Size_In_Kb"))
        out.append(
            AmdAgent(
                name=row.get("Name", "") or "?",
                product_name=row.get("Product_Name") or None,
                cu_count=_int(row.get("Cu_Count")),
                num_xcc=_int(row.get("Num_Xcc")),
                simds_per_cu=_int(row.get("Simd_Per_Cu")),
                max_waves_per_simd=_int(row.get("Max_Waves_Per_Simd")),
                max_waves_per_cu=_int(row.get("Max_Waves_Per_Cu")),
                wave_size=_int(row.get("Wave_Front_Size")),
                lds_bytes_per_cu=None if lds_kb is None else lds_kb * 1024,
                max_engine_clock_mhz=_int(row.get("Max_Engine_Clk_Fcompute")),
                source=source,
            )
        )
    return out


def parse_kernel_top(text: str, source: str) -> list[KernelTopRow]:
    """Rows of rocprof-compute's ``pmc_kernel_top.csv``.

    Raises:
        InputFileError: malformed CSV or not a kernel-top table.
    """
    _, rows = _read_table(text, source, ReportKind.KERNEL_TOP, "not a pmc_kernel_top.csv")
    out = []
    for row in rows:
        out.append(
            KernelTopRow(
                kernel_name=normalize_kernel_name(row.get("Kernel_Name") or row.get("KernelName") or "?"),
                count=_int(row.get("Count")) or 0,
                sum_ns=_num(row.get("Sum(ns)")) or 0.0,
                mean_ns=_num(row.get("Mean(ns)")) or 0.0,
                median_ns=_num(row.get("Median(ns)")),
                pct=_num(row.get("Pct")),
                source=source,
            )
        )
    return out


def _sysinfo_int(row: dict[str, str], *names: str) -> int | None:
    for name in names:
        v = _int(row.get(name))
        if v is not None:
            return v
    return None


def parse_sysinfo(text: str, source: str) -> AmdAgent:
    """The machine rocprof-compute profiled, from its ``sysinfo.csv`` (one row: header + values).

    Columns read (rocprof-compute / Omniperf ``specs``): ``gpu_model``, ``gpu_arch``,
    ``compute_partition``, ``cu_per_gpu``, ``simd_per_cu``, ``max_waves_per_cu``, ``wave_size``,
    ``num_xcd``, ``max_sclk`` and ``max_mclk`` (MHz), ``num_hbm_channels`` (older files:
    ``hbm_channels``). LDS per CU is not in it.

    Raises:
        InputFileError: malformed CSV, not a sysinfo table, or no row.
    """
    _, rows = _read_table(
        text, source, ReportKind.SYSINFO, "not a rocprof-compute sysinfo.csv (no gpu_arch / cu_per_gpu columns)"
    )
    if not rows:
        raise InputFileError(
            source, "sysinfo.csv has a header but no machine row", hint="re-run rocprof-compute profile"
        )
    row = rows[0]
    arch = (row.get("gpu_arch") or "").strip() or "?"
    m = re.search(r"gfx[0-9a-f]+", arch)
    simds = _sysinfo_int(row, "simd_per_cu")
    waves_cu = _sysinfo_int(row, "max_waves_per_cu")
    partition = (row.get("compute_partition") or "").strip()
    return AmdAgent(
        name=m.group(0) if m else arch,
        product_name=(row.get("gpu_model") or "").strip() or None,
        cu_count=_sysinfo_int(row, "cu_per_gpu"),
        num_xcc=_sysinfo_int(row, "num_xcd"),
        simds_per_cu=simds,
        max_waves_per_simd=waves_cu // simds if waves_cu and simds else None,
        max_waves_per_cu=waves_cu,
        wave_size=_sysinfo_int(row, "wave_size"),
        lds_bytes_per_cu=None,
        max_engine_clock_mhz=_sysinfo_int(row, "max_sclk"),
        source=source,
        memory_clock_mhz=_sysinfo_int(row, "max_mclk"),
        hbm_channels=_sysinfo_int(row, "num_hbm_channels", "hbm_channels"),
        compute_partition=partition if partition and partition.upper() not in ("NA", "N/A") else None,
    )


# rocprof v1 ``--hip-trace --stats`` / ``--hsa-trace --stats`` and rocprofv3 ``--stats`` write API and
# copy statistics in the same columns as kernel statistics; only the file name tells them apart.
_API_STATS = re.compile(r"(hip_stats|hsa_stats|copy_stats|api_stats|memory_copy_stats|memory_allocation_stats)\.csv$")


def parse_kernel_stats(text: str, source: str) -> list[KernelTopRow]:
    """Kernel statistics: rocprof v1 ``--stats`` ``results.stats.csv`` (``Name``, ``Calls``,
    ``TotalDurationNs``, ``AverageNs``, ``Percentage``) and rocprofv3 ``--stats`` ``kernel_stats.csv``
    (the same plus ``MinNs``, ``MaxNs``, ``StdDev``).

    Raises:
        InputFileError: malformed CSV or not a stats table.
    """
    _, rows = _read_table(
        text, source, ReportKind.KERNEL_STATS, "not a rocprof kernel stats file (no Name / Calls / TotalDurationNs)"
    )
    out = []
    for i, row in enumerate(rows, start=2):
        calls, total, mean = _int(row.get("Calls")), _num(row.get("TotalDurationNs")), _num(row.get("AverageNs"))
        if calls is None or total is None or mean is None:
            raise InputFileError(source, f"row {i}: Calls / TotalDurationNs / AverageNs is not a number")
        out.append(
            KernelTopRow(
                kernel_name=normalize_kernel_name(row.get("Name") or "?"),
                count=calls,
                sum_ns=total,
                mean_ns=mean,
                median_ns=None,
                pct=_num(row.get("Percentage")),
                source=source,
                min_ns=_num(row.get("MinNs")),
                max_ns=_num(row.get("MaxNs")),
                mean_column="AverageNs",
            )
        )
    return out


# A single launch longer than this is treated as a broken timestamp. kernelopt's own plausibility
# ceiling, not a vendor figure: the loop profiles launches of micro- to milliseconds, a profiler
# replays each one many times, and durations of minutes per launch in legacy stats files come from
# mixed clock domains or wrapped counters.
IMPLAUSIBLE_LAUNCH_NS = 60e9


def implausible_duration(duration_ns: float, *, run_wall_ns: float | None = None) -> str | None:
    """Why a per-launch duration cannot be true, or ``None`` when it can.

    A launch cannot last longer than the run that contains it (``run_wall_ns``, when known), nor longer
    than :data:`IMPLAUSIBLE_LAUNCH_NS`; a negative or non-finite value is beyond any timestamp range.
    """
    if not math.isfinite(duration_ns) or duration_ns < 0:
        return f"{duration_ns!r} ns is outside the range of a timestamp difference"
    if run_wall_ns is not None and duration_ns > run_wall_ns:
        return (
            f"{duration_ns / 1e9:.3g} s per launch is longer than the whole run ({run_wall_ns / 1e9:.3g} s wall time)"
        )
    if duration_ns > IMPLAUSIBLE_LAUNCH_NS:
        return (
            f"{duration_ns / 1e9:.3g} s per launch is beyond {IMPLAUSIBLE_LAUNCH_NS / 1e9:g} s, kernelopt's "
            "plausibility limit: usually timestamps from two clock domains or a wrapped counter; re-measure with "
            "rocprofv3 --kernel-trace"
        )
    return None


def parse_att_stats(text: str, source: str) -> AttFile:
    """An ATT decoder per-instruction stats file, in either known format.

    Each code-object section starts with a comment row (``Instruction`` = ``; <kernel symbol>``); its
    ``Source`` holds the demangled name in the older format. A header-only file is an empty trace.

    Raises:
        InputFileError: malformed CSV or not ATT stats.
    """
    header, rows = _read_table(
        text, source, ReportKind.ATT_STATS, "not an ATT decoder stats file (no CodeObj / Vaddr / Instruction columns)"
    )
    has_stall = {"Stall", "Idle"} <= set(header)
    kernels: list[AttKernel] = []
    name: str | None = None
    current: list[AttInstruction] = []

    def flush() -> None:
        if current or name is not None:
            kernels.append(AttKernel(name, tuple(current), has_stall, source))

    for row in rows:
        instr = row["Instruction"]
        if instr.startswith(";"):
            flush()
            current = []
            symbol = instr.lstrip(";").strip()
            demangled = row.get("Source", "").strip()
            name = normalize_kernel_name(demangled if demangled and "(" in demangled else symbol)
            continue
        current.append(
            AttInstruction(
                code_object=_int(row["CodeObj"]) or 0,
                vaddr=_int(row["Vaddr"]) or 0,
                text=instr,
                hitcount=_int(row["Hitcount"]) or 0,
                latency=_int(row["Latency"]) or 0,
                stall=_int(row.get("Stall")) if has_stall else None,
                idle=_int(row.get("Idle")) if has_stall else None,
                source_line=row.get("Source") or None,
            )
        )
    flush()
    return AttFile(source=source, kernels=[k for k in kernels if k.instructions], has_stall_idle=has_stall)


# --------------------------------------------------------------------------- ATT evidence


def _wait_kind(text: str) -> str | None:
    mnemonic = text.split(None, 1)[0] if text.strip() else ""
    if not (mnemonic.startswith("s_waitcnt") or mnemonic.startswith("s_wait_")):
        return None
    vm = "vmcnt" in text or "loadcnt" in text
    lgkm = "lgkmcnt" in text or "dscnt" in text or "kmcnt" in text
    if vm and lgkm:
        return "wait_vmcnt_lgkmcnt"
    if vm:
        return "wait_vmcnt"
    if lgkm:
        return "wait_lgkmcnt"
    return "wait_other"


def att_location(instr: AttInstruction) -> str:
    """``path:line @0x22c4`` when the decoder gives a source line, else ``codeobj 2 @0x4e70``."""
    if instr.source_line:
        return f"{instr.source_line} @0x{instr.vaddr:x}"
    return f"codeobj {instr.code_object} @0x{instr.vaddr:x}"


def att_metrics(kernel: AttKernel, top: int = 10) -> tuple[dict[str, Metric], list[Hotspot]]:
    """Metrics and the top ``top`` hotspots (by latency cycles) of one kernel's ATT stats.

    Latency = stall + issue cycles summed over traced waves (rocprofv3 "Using thread trace", stats CSV);
    ``att_*_pct`` are shares of the kernel's summed latency.
    """
    src = kernel.source
    sampled = kernel.sampled
    total = float(sum(i.latency for i in sampled))
    m: dict[str, Metric] = {
        "att_instructions_sampled": Metric(value=float(len(sampled)), unit="count", source=f"{src}: Hitcount>0"),
        "att_latency_cycles": Metric(value=total, unit="cycles", source=f"{src}: sum(Latency)"),
    }
    if kernel.has_stall_idle:
        m["att_stall_cycles"] = Metric(
            value=float(sum(i.stall or 0 for i in sampled)), unit="cycles", source=f"{src}: sum(Stall)"
        )
        m["att_idle_cycles"] = Metric(
            value=float(sum(i.idle or 0 for i in sampled)), unit="cycles", source=f"{src}: sum(Idle)"
        )
    else:
        reason = "this decoder output format has no Stall/Idle columns"
        m["att_stall_cycles"] = Metric(value=None, unit="cycles", source=src, missing_reason=reason)
        m["att_idle_cycles"] = Metric(value=None, unit="cycles", source=src, missing_reason=reason)
    groups: dict[str, float] = {}
    for i in sampled:
        kind = _wait_kind(i.text)
        if kind:
            groups[kind] = groups.get(kind, 0.0) + i.latency
        elif i.text.startswith("s_barrier"):
            groups["barrier"] = groups.get("barrier", 0.0) + i.latency
    if total > 0:
        waits = sum(v for k, v in groups.items() if k.startswith("wait_"))
        vm = groups.get("wait_vmcnt", 0.0) + groups.get("wait_vmcnt_lgkmcnt", 0.0)
        lgkm = groups.get("wait_lgkmcnt", 0.0)
        for name, value, what in (
            ("att_waitcnt_latency_pct", waits, "s_waitcnt/s_wait_* latency"),
            ("att_vmcnt_wait_pct", vm, "latency of waits that include vmcnt"),
            ("att_lgkmcnt_wait_pct", lgkm, "latency of waits on lgkmcnt only"),
            ("att_barrier_latency_pct", groups.get("barrier", 0.0), "s_barrier latency"),
        ):
            m[name] = Metric(value=100.0 * value / total, unit="%", source=f"{src}: {what} / sum(Latency)")
    else:
        for name in (
            "att_waitcnt_latency_pct",
            "att_vmcnt_wait_pct",
            "att_lgkmcnt_wait_pct",
            "att_barrier_latency_pct",
        ):
            m[name] = Metric(value=None, unit="%", source=src, missing_reason="ATT trace holds no samples")
    hotspots = []
    for i in sorted(sampled, key=lambda x: -x.latency)[:top]:
        kind = _wait_kind(i.text)
        if kind is None and i.text.startswith("s_barrier"):
            kind = "barrier"
        if kind is None and i.stall is not None and i.latency and i.stall >= 0.5 * i.latency:
            kind = "pipe_stall"
        hotspots.append(
            Hotspot(
                location=att_location(i),
                text=i.text,
                samples=float(i.latency),
                share_pct=100.0 * i.latency / total if total else None,
                dominant_stall=kind,
            )
        )
    return m, hotspots


# ----------------------------------------------------------------------- counter metrics


@dataclass(frozen=True)
class DeviceFacts:
    """Machine facts used to normalize counters; from ``agent_info.csv`` or a spec sheet."""

    cu_count: int | None = None
    num_xcc: int | None = None
    simds_per_cu: int | None = None
    max_waves_per_simd: int | None = None
    wave_size: int | None = None
    lds_bytes_per_cu: int | None = None
    max_sclk_mhz: int | None = None
    memory_bandwidth_gbps: float | None = None
    source: str = "unknown"
    bandwidth_source: str | None = None


def _mean(dispatches: Sequence[AmdDispatch], name: str) -> float | None:
    vals = [d.counters[name] for d in dispatches if name in d.counters]
    return sum(vals) / len(vals) if vals else None


def _first(dispatches: Sequence[AmdDispatch], name: str) -> float | None:
    """A counter under its gfx942+ name or the older one (``TCC_EA0_RDREQ_sum`` / ``TCC_EA_RDREQ_sum``)."""
    v = _mean(dispatches, name)
    if v is None and "TCC_EA0_" in name:
        v = _mean(dispatches, name.replace("TCC_EA0_", "TCC_EA_"))
    return v


class _CounterMetrics:
    """The normalized metrics of one kernel's counters, each citing its source file and formula."""

    def __init__(self, dispatches: Sequence[AmdDispatch]) -> None:
        self.src = ", ".join(sorted({d.source for d in dispatches if not d.timing_only})) or "counters"
        self.c = {n: _first(dispatches, n) for n in _USED_COUNTERS}
        self.m: dict[str, Metric] = {}

    def put(self, name: str, value: float | None, unit: str, formula: str, reason: str | None = None) -> None:
        """Metric ``name`` = ``value`` by ``formula``; ``None`` with ``reason`` (skipped without one)."""
        if value is None and reason is None:
            return
        self.m[name] = Metric(
            value=value,
            unit=unit,
            source=f"{self.src}: {formula}",
            missing_reason=None if value is not None else reason,
        )

    def counts(self) -> None:
        """Raw instruction counts and the FMA / MFMA-op sums."""
        c = self.c
        for name, counter in _RAW_COUNTS.items():
            self.put(name, c[counter], "count", counter)
        fma = [c[n] for n in ("SQ_INSTS_VALU_FMA_F16", "SQ_INSTS_VALU_FMA_F32", "SQ_INSTS_VALU_FMA_F64")]
        if any(v is not None for v in fma):
            self.put("valu_fma_insts", sum(v or 0.0 for v in fma), "count", "SQ_INSTS_VALU_FMA_F16+F32+F64")
        mops = [c[n] for n in _MOPS]
        if any(v is not None for v in mops):
            self.put("mfma_mops", sum(v or 0.0 for v in mops), "count", "sum(SQ_INSTS_VALU_MFMA_MOPS_*)")

    def caches(self) -> None:
        """LDS bank conflicts, L2 and vL1D hit rates, VALU thread utilization."""
        c = self.c
        conflict, active = c["SQ_LDS_BANK_CONFLICT"], c["SQ_LDS_IDX_ACTIVE"]
        if conflict is not None and active is not None:
            self.put(
                "lds_bank_conflict_pct",
                100.0 * conflict / active if active > 0 else None,
                "%",
                "100*SQ_LDS_BANK_CONFLICT/SQ_LDS_IDX_ACTIVE (Bank Conflict Rate)",
                "no LDS activity (SQ_LDS_IDX_ACTIVE = 0)",
            )
        hit, miss = c["TCC_HIT_sum"], c["TCC_MISS_sum"]
        if hit is not None and miss is not None:
            self.put(
                "l2_hit_rate_pct",
                100.0 * hit / (hit + miss) if hit + miss > 0 else None,
                "%",
                "100*TCC_HIT_sum/(TCC_HIT_sum+TCC_MISS_sum)",
                "no L2 requests",
            )
        self.put("l2_requests", c["TCC_REQ_sum"], "count", "TCC_REQ_sum")
        tcp_total = c["TCP_TOTAL_CACHE_ACCESSES_sum"]
        tcp_parts = [c[n] for n in _TCP_TO_TCC]
        if tcp_total is not None and all(v is not None for v in tcp_parts):
            self.put(
                "vl1d_hit_rate_pct",
                100.0 - 100.0 * sum(v or 0.0 for v in tcp_parts) / tcp_total if tcp_total > 0 else None,
                "%",
                "100-100*(TCP_TCC_READ+WRITE+ATOMIC_WITH_RET+ATOMIC_WITHOUT_RET_REQ_sum)/TCP_TOTAL_CACHE_ACCESSES_sum",
                "no vL1D accesses",
            )
        if c["SQ_THREAD_CYCLES_VALU"] is not None and c["SQ_ACTIVE_INST_VALU"]:
            self.put(
                "valu_active_threads",
                c["SQ_THREAD_CYCLES_VALU"] / c["SQ_ACTIVE_INST_VALU"],
                "threads",
                "SQ_THREAD_CYCLES_VALU/SQ_ACTIVE_INST_VALU",
            )

    def busy(self, device: DeviceFacts) -> None:
        """Pipe utilizations and resource-allocation stalls as a share of the CU cycles (:data:`_BUSY`)."""
        grbm = self.c["GRBM_GUI_ACTIVE"]
        self.put("gpu_active_cycles", grbm, "cycles", "GRBM_GUI_ACTIVE")
        need = "needs the CU and XCD counts of the machine (agent_info.csv, or rocprof-compute's sysinfo.csv)"
        cu_cycles = None
        if grbm is not None and device.cu_count and device.num_xcc:
            cu_cycles = grbm / device.num_xcc * device.cu_count
        for name, counters, scale, formula in _BUSY:
            vals = [self.c[n] for n in counters]
            if all(v is None for v in vals):
                continue
            if any(v is None for v in vals) or grbm is None:
                self.put(name, None, "%", formula, "a counter of the formula was not collected")
            elif not cu_cycles:
                self.put(name, None, "%", formula, need)
            else:
                self.put(name, 100.0 * sum(v or 0.0 for v in vals) / (cu_cycles * scale), "%", formula)

    def hbm(self, device: DeviceFacts, duration_ns: float | None) -> None:
        """HBM bytes read and written, the bandwidth and its share of the spec sheet's."""
        c = self.c
        rd, rd32, bubble = c["TCC_EA0_RDREQ_sum"], c["TCC_EA0_RDREQ_32B_sum"], c["TCC_BUBBLE_sum"]
        wr, wr64 = c["TCC_EA0_WRREQ_sum"], c["TCC_EA0_WRREQ_64B_sum"]
        read_bytes = None
        if rd is not None and rd32 is not None:
            b = bubble or 0.0
            read_bytes = 128.0 * b + 64.0 * (rd - b - rd32) + 32.0 * rd32
            self.put(
                "hbm_read_bytes",
                read_bytes,
                "bytes",
                "128*TCC_BUBBLE_sum+64*(TCC_EA0_RDREQ_sum-TCC_BUBBLE_sum-TCC_EA0_RDREQ_32B_sum)+32*TCC_EA0_RDREQ_32B_sum",
            )
        write_bytes = None
        if wr is not None and wr64 is not None:
            write_bytes = 64.0 * wr64 + 32.0 * (wr - wr64)
            self.put(
                "hbm_write_bytes",
                write_bytes,
                "bytes",
                "64*TCC_EA0_WRREQ_64B_sum+32*(TCC_EA0_WRREQ_sum-TCC_EA0_WRREQ_64B_sum)",
            )
        if read_bytes is None or write_bytes is None:
            return
        if not duration_ns:
            self.put("dram_gbps", None, "GB/s", "(hbm_read_bytes+hbm_write_bytes)/duration", "kernel duration unknown")
            return
        gbps = (read_bytes + write_bytes) / duration_ns
        self.put("dram_gbps", gbps, "GB/s", "(hbm_read_bytes+hbm_write_bytes)/duration")
        if device.memory_bandwidth_gbps:
            self.m["dram_throughput_pct"] = Metric(
                value=100.0 * gbps / device.memory_bandwidth_gbps,
                unit="%",
                source=f"dram_gbps / {device.memory_bandwidth_gbps:g} GB/s ({device.bandwidth_source})",
            )
        else:
            self.m["dram_throughput_pct"] = Metric(
                value=None, unit="%", source=self.src, missing_reason="GPU model unknown: no spec-sheet bandwidth"
            )


def counter_metrics(
    dispatches: Sequence[AmdDispatch], device: DeviceFacts, duration_ns: float | None
) -> dict[str, Metric]:
    """Normalized metrics from the counters of one kernel's dispatches (means over dispatches).

    Formulas are rocprof-compute's gfx942 analysis-config formulas; each :class:`Metric` names them in
    its ``source``. Utilizations that need the CU and XCD counts are ``None`` with the reason when the
    machine description (``agent_info.csv``) is missing.
    """
    out = _CounterMetrics(dispatches)
    out.counts()
    out.caches()
    out.busy(device)
    out.hbm(device, duration_ns)
    return out.m


#: (metric, counters summed, MFMA scale, formula): shares of the CU cycles (GRBM_GUI_ACTIVE / XCDs x CUs).
_BUSY = (
    ("valu_busy_pct", ("SQ_ACTIVE_INST_VALU",), 1.0, "100*SQ_ACTIVE_INST_VALU/(GRBM_GUI_ACTIVE/XCDs*CUs)"),
    ("mfma_busy_pct", ("SQ_VALU_MFMA_BUSY_CYCLES",), 4.0, "100*SQ_VALU_MFMA_BUSY_CYCLES/(GRBM_GUI_ACTIVE/XCDs*CUs*4)"),
    (
        "vmem_busy_pct",
        ("SQ_ACTIVE_INST_VMEM", "SQ_ACTIVE_INST_FLAT"),
        1.0,
        "100*(SQ_ACTIVE_INST_FLAT+SQ_ACTIVE_INST_VMEM)/(GRBM_GUI_ACTIVE/XCDs*CUs)",
    ),
    (
        "insufficient_vgprs_pct",
        ("SPI_RA_VGPR_SIMD_FULL_CSN",),
        1.0,
        "100*SPI_RA_VGPR_SIMD_FULL_CSN/(GRBM_GUI_ACTIVE/XCDs*CUs) (Insufficient SIMD VGPRs)",
    ),
    (
        "insufficient_sgprs_pct",
        ("SPI_RA_SGPR_SIMD_FULL_CSN",),
        1.0,
        "100*SPI_RA_SGPR_SIMD_FULL_CSN/(GRBM_GUI_ACTIVE/XCDs*CUs) (Insufficient SIMD SGPRs)",
    ),
    (
        "insufficient_lds_pct",
        ("SPI_RA_LDS_CU_FULL_CSN",),
        1.0,
        "100*SPI_RA_LDS_CU_FULL_CSN/(GRBM_GUI_ACTIVE/XCDs*CUs) (Insufficient CU LDS)",
    ),
    (
        "insufficient_waveslots_pct",
        ("SPI_RA_WAVE_SIMD_FULL_CSN",),
        1.0,
        "100*SPI_RA_WAVE_SIMD_FULL_CSN/(GRBM_GUI_ACTIVE/XCDs*CUs) (Insufficient SIMD Waveslots)",
    ),
)


_RAW_COUNTS = {
    "waves": "SQ_WAVES",
    "valu_insts": "SQ_INSTS_VALU",
    "salu_insts": "SQ_INSTS_SALU",
    "vmem_read_insts": "SQ_INSTS_VMEM_RD",
    "vmem_write_insts": "SQ_INSTS_VMEM_WR",
    "flat_insts": "SQ_INSTS_FLAT",
    "lds_insts": "SQ_INSTS_LDS",
    "mfma_insts": "SQ_INSTS_MFMA",
    "lds_bank_conflict_cycles": "SQ_LDS_BANK_CONFLICT",
}
_MOPS = (
    "SQ_INSTS_VALU_MFMA_MOPS_I8",
    "SQ_INSTS_VALU_MFMA_MOPS_F8",
    "SQ_INSTS_VALU_MFMA_MOPS_F16",
    "SQ_INSTS_VALU_MFMA_MOPS_BF16",
    "SQ_INSTS_VALU_MFMA_MOPS_F32",
    "SQ_INSTS_VALU_MFMA_MOPS_F64",
)
_TCP_TO_TCC = (
    "TCP_TCC_READ_REQ_sum",
    "TCP_TCC_WRITE_REQ_sum",
    "TCP_TCC_ATOMIC_WITH_RET_REQ_sum",
    "TCP_TCC_ATOMIC_WITHOUT_RET_REQ_sum",
)
_USED_COUNTERS = (
    *_RAW_COUNTS.values(),
    *_MOPS,
    *_TCP_TO_TCC,
    "SQ_INSTS_VALU_FMA_F16",
    "SQ_INSTS_VALU_FMA_F32",
    "SQ_INSTS_VALU_FMA_F64",
    "SQ_LDS_IDX_ACTIVE",
    "SQ_ACTIVE_INST_VALU",
    "SQ_ACTIVE_INST_VMEM",
    "SQ_ACTIVE_INST_FLAT",
    "SQ_VALU_MFMA_BUSY_CYCLES",
    "SQ_THREAD_CYCLES_VALU",
    "TCC_HIT_sum",
    "TCC_MISS_sum",
    "TCC_REQ_sum",
    "TCP_TOTAL_CACHE_ACCESSES_sum",
    "GRBM_GUI_ACTIVE",
    "SPI_RA_VGPR_SIMD_FULL_CSN",
    "SPI_RA_SGPR_SIMD_FULL_CSN",
    "SPI_RA_LDS_CU_FULL_CSN",
    "SPI_RA_WAVE_SIMD_FULL_CSN",
    "TCC_EA0_RDREQ_sum",
    "TCC_EA0_RDREQ_32B_sum",
    "TCC_BUBBLE_sum",
    "TCC_EA0_WRREQ_sum",
    "TCC_EA0_WRREQ_64B_sum",
)


# ------------------------------------------------------------------------------ ASM metrics


def isa_metrics(facts: AmdIsaFacts) -> dict[str, Metric]:
    """Metrics of the compiler's output for one kernel (static counts, resource report)."""
    src = facts.source or "assembly"
    m: dict[str, Metric] = {}

    def put(name: str, value: float | int | None, unit: str, what: str) -> None:
        if value is not None:
            m[name] = Metric(value=float(value), unit=unit, source=f"{src}: {what}")

    put("asm_sgprs", facts.sgprs, "registers", ".sgpr_count")
    put("vgpr_spill_count", facts.vgpr_spill_count, "registers", ".vgpr_spill_count")
    put("sgpr_spill_count", facts.sgpr_spill_count, "registers", ".sgpr_spill_count")
    put("asm_scratch_bytes", facts.scratch_bytes, "bytes", ".private_segment_fixed_size (per work-item)")
    put("asm_lds_bytes", facts.lds_bytes, "bytes", ".group_segment_fixed_size (static LDS per workgroup)")
    put("occupancy_waves_per_simd", facts.occupancy_waves_per_simd, "waves", "; Occupancy (compiler estimate)")
    loads = facts.global_loads
    put("global_load_insts", loads, "count", "static global/buffer/flat loads")
    if loads:
        narrow = facts.narrow_global_loads(128)
        put("global_load_narrow_pct", 100.0 * narrow / loads, "%", "static loads < 128 bit / all global loads")
        put("global_load_max_bits", facts.global_load_bits, "bits", "widest global load")
        put("global_load_min_bits", facts.global_load_bits_min, "bits", "narrowest global load")
    put("lds_read_insts", sum(facts.lds_reads_by_bits.values()), "count", "static ds_read*")
    put("lds_write_insts", sum(facts.lds_writes_by_bits.values()), "count", "static ds_write*")
    put("lds_read2_insts", facts.lds_read2_insts, "count", "static ds_read2*")
    put("ds_bpermute_insts", facts.ds_bpermute_insts, "count", "static ds_bpermute/ds_permute")
    put("scratch_insts", facts.scratch_loads + facts.scratch_stores, "count", "static scratch_load/store")
    put("spill_insts", facts.spill_ops, "count", "scratch ops marked Spill/Reload by the compiler")
    put("mfma_static_insts", facts.tensor_instructions, "count", "static v_mfma/v_smfmac/v_wmma")
    fma = sum(n for op, n in facts.instruction_counts.items() if _VALU_FMA.match(op))
    put("valu_fma_static_insts", fma, "count", "static v_fma/v_fmac/v_pk_fma/v_dot/v_mac")
    put("waitcnt_insts", facts.waitcnt_insts, "count", "static s_waitcnt")
    return m


_VALU_FMA = re.compile(r"^v_(fma|fmac|pk_fma|dot\d|mac|mad)_")


def register_metrics(
    *,
    total: int | None,
    architected: int | None,
    accumulation: int | None,
    source: str,
    names: tuple[str, str, str],
) -> dict[str, Metric]:
    """The VGPR counts of one kernel under explicit names, per lane (work-item).

    * ``vgprs_total``: every vector register a wave allocates, architected plus accumulation; the
      headline figure, what the rules and the cross-vendor ``registers_per_thread`` use. From the
      compiler's ``.vgpr_count`` / ``TotalNumVgprs`` when given, else the sum of the two parts.
    * ``vgprs_architected``: the architected VGPRs alone (``NumVgprs``, ``Arch_VGPR``).
    * ``vgprs_accumulation``: the accumulation VGPRs (AGPRs) the MFMA instructions use
      (``.agpr_count``, ``Accum_VGPR``); 0 on targets without them.

    On gfx90a and later both parts share one register file of 512 per lane (AMDGPUUsage, "AMDGPU
    code object metadata": ``.vgpr_count`` counts both), so reading the architected count alone
    understates register pressure (a gfx942 MFMA kernel: 216 total, 152 architected).

    Args:
        total, architected, accumulation: the counts as the input gives them (``None`` when absent).
        source: the artifact (and record) they come from.
        names: the input's own names of the three counts, for each metric's ``source``.
    """
    m: dict[str, Metric] = {}
    total_from = names[0]
    if total is None and architected is not None:
        total = architected + (accumulation or 0)
        total_from = f"{names[1]} + {names[2]}" if accumulation is not None else names[1]
    for name, value, what in (
        ("vgprs_total", total, total_from),
        ("vgprs_architected", architected, names[1]),
        ("vgprs_accumulation", accumulation, names[2]),
    ):
        if value is not None:
            m[name] = Metric(value=float(value), unit="registers", source=f"{source}: {what}")
    if total is not None:
        m["registers_per_thread"] = Metric(
            value=float(total), unit="registers", source=f"{source}: {total_from} (= vgprs_total)"
        )
    return m


# ------------------------------------------------------------------------------------ merge


@dataclass
class AmdInputs:
    """Everything read from one AMD profile (any subset may be empty)."""

    dispatches: list[AmdDispatch] = field(default_factory=list)
    att: list[AttFile] = field(default_factory=list)
    asm: dict[str, AmdIsaFacts] = field(default_factory=dict)
    agents: list[AmdAgent] = field(default_factory=list)
    kernel_top: list[KernelTopRow] = field(default_factory=list)
    triton_lds_bytes: dict[str, int] = field(default_factory=dict)
    triton_lds_sources: dict[str, str] = field(default_factory=dict)
    artifacts: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)


def merge_agents(agents: Sequence[AmdAgent]) -> AmdAgent | None:
    """One description of the measured GPU from every source that has one (``agent_info.csv`` and
    rocprof-compute's ``sysinfo.csv``): each field from the first source that gives it, the product
    name from the first source whose name is not generic."""
    if not agents:
        return None
    first = agents[0]
    merged = {}
    for f in dataclasses.fields(AmdAgent):
        if f.name in ("name", "product_name", "source"):
            continue
        merged[f.name] = next((getattr(a, f.name) for a in agents if getattr(a, f.name) is not None), None)
    named = next((a for a in agents if not a.generic_name), first)
    sources = ", ".join(dict.fromkeys(a.source for a in agents))
    return AmdAgent(name=named.name, product_name=named.product_name, source=sources, **merged)


def device_facts(agents: Sequence[AmdAgent], gpu_name: str | None) -> DeviceFacts:
    """Machine facts: the GPU agents merged (:func:`merge_agents`), and the peak HBM bandwidth:
    rocprof-compute's own ``hbmBandwidth`` formula when ``sysinfo.csv`` gives the memory clock and
    channel count, else the spec-sheet figure of ``gpu_name`` (or the agent's product name) when a sheet
    matches it exactly. A gfx name alone is not looked up: one gfx target can be several products
    (gfx942 is MI300X and MI325X)."""
    from kernelopt.hardware import specs

    agent = merge_agents(agents)
    bw = None
    bw_source = None
    if agent is not None and agent.peak_hbm_gbps is not None:
        bw = agent.peak_hbm_gbps
        bw_source = (
            f"{agent.source}: rocprof-compute hbmBandwidth = max_mclk {agent.memory_clock_mhz} MHz/1000 x 32 x "
            f"{agent.hbm_channels} HBM channels"
        )
    for name in () if bw is not None else (gpu_name, agent.product_name if agent else None):
        if not name:
            continue
        try:
            sheet = specs.lookup(name)
        except UsageError:
            continue
        if agent and sheet.arch != agent.name:
            continue
        bw = sheet.memory_bandwidth_gbps
        bw_source = f"{sheet.name} spec sheet: {sheet.cite('memory_bandwidth_gbps')}"
        break
    if agent is None:
        return DeviceFacts(memory_bandwidth_gbps=bw, bandwidth_source=bw_source)
    return DeviceFacts(
        cu_count=agent.cu_count,
        num_xcc=agent.num_xcc,
        simds_per_cu=agent.simds_per_cu,
        max_waves_per_simd=agent.max_waves_per_simd,
        wave_size=agent.wave_size,
        lds_bytes_per_cu=agent.lds_bytes_per_cu,
        max_sclk_mhz=agent.max_engine_clock_mhz,
        memory_bandwidth_gbps=bw,
        source=agent.source,
        bandwidth_source=bw_source,
    )


def _launch_groups(
    order: Sequence[str], by_kernel: dict[str, list[AmdDispatch]], per_launch: bool
) -> list[tuple[str, list[AmdDispatch]]]:
    """Kernels split by launch configuration (grid and workgroup size), or by dispatch with ``per_launch``.

    Counter passes replay the same dispatches, so one dispatch id seen in several files is one launch.
    """
    out: list[tuple[str, list[AmdDispatch]]] = []
    for key in order:
        dispatches = by_kernel.get(key, [])
        if not dispatches:
            out.append((key, []))
            continue
        groups: dict[tuple[int | None, ...], list[AmdDispatch]] = {}
        for d in dispatches:
            config: tuple[int | None, ...] = (d.grid_size, d.workgroup_size)
            if per_launch:
                config = (*config, d.dispatch_id)
            groups.setdefault(config, []).append(d)
        out.extend((key, members) for members in groups.values())
    return out


def _launch_durations_us(dispatches: Sequence[AmdDispatch]) -> list[float]:
    """Per-launch durations in us of the pass :func:`_duration` uses (timing-only pass preferred)."""
    timing = [d for d in dispatches if d.timing_only and d.duration_ns is not None]
    group = timing or [d for d in dispatches if d.duration_ns is not None]
    return [float(d.duration_ns or 0) / 1000.0 for d in group]


def _duration(dispatches: Sequence[AmdDispatch]) -> tuple[float | None, str, str | None]:
    """Mean duration in ns, preferring timing-only dispatches (a kernel-trace pass) over counter passes."""
    for group in ([d for d in dispatches if d.timing_only], list(dispatches)):
        if not group:
            continue
        known = [d.duration_ns for d in group if d.duration_ns is not None]
        if known:
            srcs = ", ".join(sorted({d.source for d in group}))
            return sum(known) / len(known), srcs, None
    reasons = [d.duration_missing_reason for d in dispatches if d.duration_missing_reason]
    srcs = ", ".join(sorted({d.source for d in dispatches}))
    return None, srcs, reasons[0] if reasons else "no timestamps"


def _resource_metrics(dispatches: Sequence[AmdDispatch], device: DeviceFacts) -> dict[str, Metric]:
    m: dict[str, Metric] = {}
    first = dispatches[0]
    src = first.source
    m.update(
        register_metrics(
            total=None,
            architected=first.arch_vgprs,
            accumulation=first.accum_vgprs,
            source=f"{src}: dispatch record",
            names=("", "Arch_VGPR", "Accum_VGPR"),
        )
    )
    for name, value, unit in (
        ("grid_size", first.grid_size, "work-items"),
        ("workgroup_size", first.workgroup_size, "work-items"),
        ("sgprs", first.sgprs, "registers"),
        ("lds_bytes_per_workgroup", first.lds_bytes, "bytes"),
        ("scratch_bytes", first.scratch_bytes, "bytes"),
    ):
        if value is not None:
            m[name] = Metric(value=float(value), unit=unit, source=f"{src}: dispatch record")
    if first.grid_size and first.workgroup_size:
        m["workgroups"] = Metric(
            value=float(math.ceil(first.grid_size / first.workgroup_size)),
            unit="count",
            source=f"{src}: ceil(grid_size/workgroup_size)",
        )
    per_source = Counter(d.source for d in dispatches)  # every pass replays the same dispatches
    m["dispatches"] = Metric(
        value=float(max(per_source.values())), unit="count", source=f"{src}: dispatches per profiler pass"
    )
    return m


def _device_metrics(device: DeviceFacts) -> dict[str, Metric]:
    m: dict[str, Metric] = {}
    for name, value, unit in (
        ("cu_count", device.cu_count, "count"),
        ("simds_per_cu", device.simds_per_cu, "count"),
        ("max_waves_per_simd", device.max_waves_per_simd, "waves"),
        ("wave_size", device.wave_size, "work-items"),
        ("lds_bytes_per_cu", device.lds_bytes_per_cu, "bytes"),
        ("max_sclk_mhz", device.max_sclk_mhz, "MHz"),
    ):
        if value is not None:
            m[name] = Metric(value=float(value), unit=unit, source=f"{device.source}: machine description")
    if device.memory_bandwidth_gbps is not None:
        m["peak_hbm_gbps"] = Metric(
            value=device.memory_bandwidth_gbps, unit="GB/s", source=device.bandwidth_source or device.source
        )
    return m


def _asm_lds_metric(facts: AmdIsaFacts, triton_lds: dict[str, int], triton_sources: dict[str, str]) -> Metric:
    """LDS per workgroup from the compiler output, saying which of three cases it is.

    * static: ``.group_segment_fixed_size`` > 0, or 0 with no LDS instruction (the kernel uses none);
    * dynamic, size known: Triton allocates LDS at launch (0 static bytes in the assembly) and its
      metadata JSON beside the assembly gives ``shared``;
    * dynamic or unknown: LDS instructions with 0 static bytes and no metadata, or no size at all.
    """
    if facts.kernel in triton_lds:
        meta = triton_sources.get(facts.kernel, f"{facts.kernel}.json")
        static = facts.lds_bytes or 0
        return Metric(
            value=float(max(triton_lds[facts.kernel], static)),
            unit="bytes",
            source=f"{meta}: Triton metadata 'shared' (dynamic LDS, allocated at launch; the assembly states "
            f"{static} static bytes)",
        )
    uses_lds = bool(facts.lds_reads_by_bits or facts.lds_writes_by_bits)
    if facts.lds_bytes is None:
        return Metric(
            value=None,
            unit="bytes",
            source=f"{facts.source}: .group_segment_fixed_size",
            missing_reason="unknown: the assembly states no LDS size (no metadata block)",
        )
    if facts.lds_bytes == 0 and uses_lds:
        return Metric(
            value=None,
            unit="bytes",
            source=f"{facts.source}: .group_segment_fixed_size",
            missing_reason="dynamic: LDS is allocated at launch (as Triton does) and its size is not in the assembly; "
            "Triton's <kernel>.json beside the assembly gives it ('shared')",
        )
    return Metric(value=float(facts.lds_bytes), unit="bytes", source=f"{facts.source}: .group_segment_fixed_size")


class _Durations:
    """Checks durations against :func:`implausible_duration`; an implausible one becomes a summary note."""

    def __init__(self, run_wall_s: float | None, notes: list[str]) -> None:
        self.wall_ns = None if run_wall_s is None else run_wall_s * 1e9
        self.notes = notes

    def check(self, name: str, dur_ns: float | None, what: str) -> tuple[float | None, str | None]:
        """``(duration, None)`` when plausible; ``(None, reason)`` when not (and a note says so)."""
        if dur_ns is None:
            return None, None
        why = implausible_duration(dur_ns, run_wall_ns=self.wall_ns)
        if why is None:
            return dur_ns, None
        self.notes.append(f"IMPLAUSIBLE DURATION for {name}: {what} = {dur_ns:.6g} ns: {why}; not used")
        return None, f"implausible: {why}"


@dataclass
class _KernelIndex:
    """The kernels of one AMD profile by base name, in first-seen order, with what each source holds."""

    order: list[str] = field(default_factory=list)
    names: dict[str, str] = field(default_factory=dict)
    dispatches: dict[str, list[AmdDispatch]] = field(default_factory=dict)
    top: dict[str, KernelTopRow] = field(default_factory=dict)
    att: dict[str, AttKernel] = field(default_factory=dict)
    asm: dict[str, AmdIsaFacts] = field(default_factory=dict)

    def see(self, name: str) -> str:
        """The base-name key of kernel ``name`` (first sight fixes its order and shown name)."""
        key = kernel_base_name(name)
        if key not in self.names:
            self.order.append(key)
            self.names[key] = normalize_kernel_name(name)
        return key

    @classmethod
    def of(cls, inputs: AmdInputs) -> _KernelIndex:
        """Kernels matched across PMC, kernel trace, ATT and assembly, in that order of first sight."""
        index = cls()
        for d in inputs.dispatches:
            index.dispatches.setdefault(index.see(d.kernel_name), []).append(d)
        index.top = {index.see(r.kernel_name): r for r in inputs.kernel_top}
        for f in inputs.att:
            for ak in f.kernels:
                if ak.sampled:
                    name = ak.kernel_name or f"codeobj {ak.instructions[0].code_object}"
                    index.att.setdefault(index.see(name), ak)
        for name, facts in inputs.asm.items():
            key = kernel_base_name(name.split("#")[0])
            if key not in index.asm:
                index.asm[key] = facts
                index.see(name.split("#")[0])
        return index


def _dispatch_metrics(
    name: str, dispatches: list[AmdDispatch], device: DeviceFacts, durations: _Durations, metrics: dict[str, Metric]
) -> dict[str, MetricSpread]:
    """Add the duration, resources and counters of a launch group's dispatches; return the duration spread."""
    dur, dsrc, reason = _duration(dispatches)
    dur, bad = durations.check(name, dur, "End_Timestamp-Start_Timestamp")
    metrics["duration_us"] = Metric(
        value=None if dur is None else dur / 1000.0,
        unit="us",
        source=f"{dsrc}: End_Timestamp-Start_Timestamp (mean over dispatches)",
        missing_reason=bad or reason,
    )
    metrics.update(_resource_metrics(dispatches, device))
    spread: dict[str, MetricSpread] = {}
    if dur is not None:
        known = _launch_durations_us(dispatches)
        if len(known) > 1:
            spread["duration_us"] = MetricSpread(
                median=statistics.median(known), min=min(known), max=max(known), count=len(known)
            )
    counted = [d for d in dispatches if not d.timing_only and d.counters]
    if counted:
        metrics.update(counter_metrics(counted, device, dur))
    return spread


def _kernel_top_metrics(name: str, row: KernelTopRow, durations: _Durations, metrics: dict[str, Metric]) -> None:
    """Add what rocprof-compute's ``pmc_kernel_top.csv`` says of the kernel (the trace's duration wins)."""
    mean_col = row.mean_column
    mean, bad = durations.check(name, row.mean_ns, mean_col)
    if row.max_ns is not None and bad is None:
        _, bad = durations.check(name, row.max_ns, "MaxNs")
        mean = None if bad else mean
    if metrics.get("duration_us") is None or metrics["duration_us"].value is None:
        metrics["duration_us"] = Metric(
            value=None if mean is None else mean / 1000.0,
            unit="us",
            source=f"{row.source}: {mean_col}",
            missing_reason=bad,
        )
    metrics.setdefault("dispatches", Metric(value=float(row.count), unit="count", source=f"{row.source}: Count"))
    if row.pct is not None:
        metrics["time_share_pct"] = Metric(value=row.pct, unit="%", source=f"{row.source}: Pct")
    for metric, value in (("duration_min_us", row.min_ns), ("duration_max_us", row.max_ns)):
        if value is not None and bad is None:
            metrics[metric] = Metric(value=value / 1000.0, unit="us", source=f"{row.source}: {metric}")


def _asm_metrics(facts: AmdIsaFacts, inputs: AmdInputs, metrics: dict[str, Metric]) -> None:
    """Add the assembly's facts; a value the dispatch record already gave is kept."""
    metrics.update(isa_metrics(facts))
    if "vgprs_total" not in metrics:  # the dispatch record, when there is one, wins
        metrics.update(
            register_metrics(
                total=facts.registers_per_thread,
                architected=facts.arch_vgprs,
                accumulation=facts.agprs,
                source=facts.source or "assembly",
                names=(".vgpr_count / TotalNumVgprs", "NumVgprs", ".agpr_count / NumAgprs"),
            )
        )
    for name, value, unit, what in (
        ("sgprs", facts.sgprs, "registers", ".sgpr_count"),
        ("scratch_bytes", facts.scratch_bytes, "bytes", ".private_segment_fixed_size"),
    ):
        if name not in metrics and value is not None:
            metrics[name] = Metric(value=float(value), unit=unit, source=f"{facts.source}: {what}")
    if "lds_bytes_per_workgroup" not in metrics:
        metrics["lds_bytes_per_workgroup"] = _asm_lds_metric(facts, inputs.triton_lds_bytes, inputs.triton_lds_sources)
    if "workgroup_size" not in metrics and facts.max_workgroup_size:
        metrics["workgroup_size"] = Metric(
            value=float(facts.max_workgroup_size), unit="work-items", source=f"{facts.source}: .max_flat_workgroup_size"
        )
    if "wave_size" not in metrics and facts.wavefront_size:
        metrics["wave_size"] = Metric(
            value=float(facts.wavefront_size), unit="work-items", source=f"{facts.source}: .wavefront_size"
        )


def _kernel_evidence(
    key: str,
    dispatches: list[AmdDispatch],
    index: _KernelIndex,
    inputs: AmdInputs,
    device: DeviceFacts,
    durations: _Durations,
) -> KernelEvidence:
    """One entry of the summary: every source's metrics of the kernel ``key``, its rules and bottleneck."""
    name = index.names[key]
    metrics: dict[str, Metric] = _device_metrics(device)
    spread: dict[str, MetricSpread] = {}
    if dispatches:
        spread = _dispatch_metrics(name, dispatches, device, durations, metrics)
    if key in index.top:
        _kernel_top_metrics(name, index.top[key], durations, metrics)
    hotspots: list[Hotspot] = []
    if key in index.att:
        am, hotspots = att_metrics(index.att[key])
        metrics.update(am)
    isa = None
    if key in index.asm:
        _asm_metrics(index.asm[key], inputs, metrics)
        isa = index.asm[key].base()
    count = metrics.get("dispatches")
    k = KernelEvidence(
        kernel_name=name,
        launch_id=dispatches[0].dispatch_id if dispatches else None,
        metrics=metrics,
        hotspots=hotspots,
        isa=isa,
        launch_count=int(count.value) if count is not None and count.value else 1,
        launch_ids=list(dict.fromkeys(d.dispatch_id for d in dispatches if d.dispatch_id is not None)),
        metric_spread=spread,
    )
    k.findings = amd_rules.run_amd_rules(k)
    k.bottleneck = amd_rules.classify_amd(k)
    return k


def build_summary(
    inputs: AmdInputs,
    *,
    tool_used: str,
    version: str | None = None,
    gpu_name: str | None = None,
    counters_unavailable_reason: str | None = None,
    run_wall_s: float | None = None,
    per_launch: bool = False,
) -> ProfileSummary:
    """Merge everything read from one AMD profile into the vendor-neutral summary, rules applied.

    Kernels are matched across PMC, kernel trace, ATT and assembly by base name; each kernel gets the
    metrics of every source that has it, its ATT hotspots, its ISA facts, the AMD rules' findings and
    its bottleneck class. A per-launch duration that cannot be true (:func:`implausible_duration`,
    against ``run_wall_s`` when the caller knows the run's wall time) is reported as missing, with the
    raw figure in the reason and a summary note, so that no rule reads it. Dispatches of one kernel
    with different launch configurations (grid, workgroup) are separate entries, each a launch group
    (``launch_count``, ``launch_ids``, duration median/min/max in ``metric_spread``; counters are
    means, as rocprof-compute's ``AVG()``); ``per_launch`` gives one entry per dispatch. An entry whose
    measured metrics are all n/a is flagged as empty. Pure: no I/O.
    """
    device = device_facts(inputs.agents, gpu_name)
    notes = list(inputs.notes)
    durations = _Durations(run_wall_s, notes)
    index = _KernelIndex.of(inputs)
    kernels = [
        _kernel_evidence(key, dispatches, index, inputs, device, durations)
        for key, dispatches in _launch_groups(index.order, index.dispatches, per_launch)
    ]
    notes.extend(mark_empty(kernels))
    has_counters = any(not d.timing_only and d.counters for d in inputs.dispatches)
    for f in inputs.att:
        if f.empty:
            notes.append(
                f"ATT {f.source}: the trace holds no samples (no wave of the kernel ran on the traced CU; "
                "launch more workgroups, or widen --att-shader-engine-mask / change --att-target-cu)"
            )
    reason = counters_unavailable_reason
    if not has_counters and reason is None:
        reason = "this input holds no hardware counters"
    agent = merge_agents(inputs.agents)
    return ProfileSummary(
        version=version,
        vendor=Vendor.AMD,
        tool_used=tool_used,
        gpu=agent.label if agent is not None else (gpu_name or None),
        counters_available=has_counters,
        counters_unavailable_reason=None if has_counters else reason,
        artifacts=list(inputs.artifacts),
        kernels=kernels,
        notes=notes,
    )


# -------------------------------------------------------------------------------- file level

_ASM_SUFFIXES = (".s", ".amdgcn", ".asm", ".isa")


def _read_text(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8", errors="replace")
    except OSError as exc:
        raise InputFileError(path, f"cannot read ({exc.strerror or exc})") from None


def _csv_kind(path: Path) -> ReportKind | None:
    try:
        with path.open(encoding="utf-8", errors="replace") as fh:
            first = fh.readline()
    except OSError:
        return None
    header = next(csv.reader([first], skipinitialspace=True), [])
    return classify_header([h.strip() for h in header])


def _read_csv_file(path: Path) -> str:
    """A profiler CSV's text. Every profiler ends its CSV files with a line break, so a file that ends
    inside a line was cut off.

    Raises:
        InputFileError: unreadable, or cut off inside its last line.
    """
    text = _read_text(path)
    if text.strip() and not text.endswith(("\n", "\r")):
        raise InputFileError(
            path,
            "truncated: the file ends inside a line (no final line break)",
            hint="the copy was cut off; copy the file again or re-run the profiler",
        )
    return text


def _add_csv(inputs: AmdInputs, path: Path, label: str) -> bool:
    kind = _csv_kind(path)
    if kind is None or _API_STATS.search(path.name):
        return False
    text = _read_csv_file(path)
    if kind is ReportKind.ATT_STATS:
        inputs.att.append(parse_att_stats(text, label))
    elif kind is ReportKind.AGENT_INFO:
        inputs.agents.extend(parse_agent_info(text, label))
    elif kind is ReportKind.SYSINFO:
        inputs.agents.append(parse_sysinfo(text, label))
    elif kind is ReportKind.COUNTER_COLLECTION:
        inputs.dispatches.extend(parse_counter_collection(text, label))
    elif kind is ReportKind.KERNEL_TRACE:
        inputs.dispatches.extend(parse_kernel_trace(text, label))
    elif kind is ReportKind.KERNEL_TOP:
        inputs.kernel_top.extend(parse_kernel_top(text, label))
    elif kind is ReportKind.KERNEL_STATS:
        inputs.kernel_top.extend(parse_kernel_stats(text, label))
    else:
        inputs.dispatches.extend(parse_dispatch_table(text, label))
    inputs.artifacts.append(label)
    return True


def _add_asm(inputs: AmdInputs, path: Path, label: str) -> None:
    found = analyze(_read_text(path), label)
    for name, facts in found.items():
        key = name
        n = 2
        while key in inputs.asm:
            key = f"{name.split('#')[0]}#{n}"
            n += 1
        inputs.asm[key] = facts
    inputs.artifacts.append(label)
    for meta in _metadata_beside(path, list(found)):
        kernel, shared = _read_triton_metadata(meta)
        if kernel is not None and shared is not None:
            inputs.triton_lds_bytes.setdefault(kernel, shared)
            inputs.triton_lds_sources.setdefault(kernel, meta.name)
            inputs.artifacts.append(meta.name)


def _metadata_beside(asm: Path, kernels: Sequence[str]) -> list[Path]:
    """Triton metadata files that belong to an assembly file: ``<stem>.json`` and ``<kernel>.json``
    (Triton's cache names both files after the kernel)."""
    out = []
    for candidate in [asm.with_suffix(".json")] + [asm.parent / f"{k.split('#')[0]}.json" for k in kernels]:
        if candidate.is_file() and candidate not in out:
            out.append(candidate)
    return out


def _read_triton_metadata(path: Path) -> tuple[str | None, int | None]:
    """``(name, shared)`` of a Triton cache metadata JSON; ``(None, None)`` when it is another JSON.

    Raises:
        InputFileError: the file is not valid JSON (corrupt or truncated).
    """
    try:
        doc = json.loads(_read_text(path))
    except json.JSONDecodeError as exc:
        raise InputFileError(
            path,
            f"corrupt Triton metadata JSON ({exc.msg} at line {exc.lineno})",
            hint="the file is truncated or was edited; copy it again from Triton's cache (~/.triton/cache)",
        ) from None
    if not isinstance(doc, dict) or not isinstance(doc.get("name"), str):
        return None, None
    shared = doc.get("shared")
    return doc["name"], plain_int(shared)


def _triton_lds(folder: Path) -> dict[str, int]:
    """Triton's dynamic LDS per kernel (``shared`` in the cache's ``<kernel>.json``), when present."""
    out: dict[str, int] = {}
    for meta in sorted(folder.glob("*.json")):
        name, shared = _read_triton_metadata(meta)
        if name is not None and shared is not None:
            out[name] = shared
    return out


def unsupported_amd_file(path: Path) -> tuple[str, str] | None:
    """What an AMD output kernelopt cannot read is, and what to run instead; ``None`` for other files.

    Recognized: a raw, undecoded ATT stream (``.att``), rocprof API / copy statistics
    (``hip_stats.csv``, ``hsa_stats.csv``, ``copy_stats.csv``, ...), and rocprof-compute's
    ``sysinfo.csv`` on its own (a machine description without kernel data). Reads at most a header.
    """
    name = path.name
    if path.suffix.lower() == ".att":
        return (
            "a raw, undecoded AMD thread-trace (ATT) stream of one shader engine; kernelopt reads the decoder's "
            "per-instruction stats, not the stream",
            "re-run rocprofv3 --att with the ROCprof trace decoder installed (librocprof-trace-decoder.so, "
            "--att-library-path DIR) so that it writes stats_*.csv, or let 'kernelopt profile --vendor amd' do it",
        )
    if path.suffix.lower() == ".csv" and _API_STATS.search(name) and _csv_kind(path) is ReportKind.KERNEL_STATS:
        return (
            "rocprof API / copy statistics (calls of host API functions or memory copies), no kernel time",
            "give the kernel statistics of the same run: results.stats.csv (rocprof --stats) or kernel_stats.csv "
            "(rocprofv3 --kernel-trace --stats)",
        )
    if path.suffix.lower() == ".csv" and _csv_kind(path) is ReportKind.SYSINFO:
        return (
            "rocprof-compute's sysinfo.csv: the description of the machine (GPU model, CUs, clocks), no kernel data",
            "give the workload folder that holds it beside pmc_perf.csv (rocprof-compute profile -n NAME -- APP "
            "writes workloads/NAME/<GPU>/), or pmc_perf.csv itself",
        )
    return None


def collect_profile_dir(folder: Path) -> AmdInputs:
    """Read an AMD profile folder: ``att/``, ``pmc/`` (CSV anywhere below), ``kernel.s`` / ``*.amdgcn``.

    Raises:
        InputFileError: a file is malformed, or the folder holds nothing AMD.
    """
    inputs = AmdInputs()
    for sub in ("pmc", "att"):
        base = folder / sub
        if base.is_dir():
            for path in sorted(base.rglob("*.csv")):
                _add_csv(inputs, path, str(path.relative_to(folder)))
    for path in sorted(folder.glob("*.csv")):
        _add_csv(inputs, path, path.name)
    asm_files = [folder / "kernel.s"] if (folder / "kernel.s").is_file() else []
    asm_files += sorted(p for p in folder.glob("*.amdgcn"))
    if not asm_files:
        asm_files = sorted(p for p in folder.iterdir() if p.suffix in _ASM_SUFFIXES and p.is_file())
    for path in asm_files:
        _add_asm(inputs, path, path.name)
    if (folder / "asm").is_dir():
        for name, shared in _triton_lds(folder / "asm").items():
            inputs.triton_lds_bytes.setdefault(name, shared)
            inputs.triton_lds_sources.setdefault(name, f"asm/{name}.json")
    raw_att = sorted(folder.rglob("*.att"))
    if raw_att and not any(f.kernels for f in inputs.att):
        what, hint = unsupported_amd_file(raw_att[0]) or ("", "")
        inputs.notes.append(f"ATT: {len(raw_att)} raw .att stream(s) but no decoded stats_*.csv: {hint}")
    if not inputs.artifacts:
        if raw_att:
            what, hint = unsupported_amd_file(raw_att[0]) or ("", "")
            raise InputFileError(folder, f"holds only {what}", hint=hint)
        raise InputFileError(folder, "no AMD profile data (expected att/, pmc/, kernel.s or *.amdgcn)")
    if not inputs.dispatches and not inputs.kernel_top and not inputs.att and not inputs.asm:
        machine = ", ".join(inputs.artifacts)
        raise InputFileError(
            folder,
            f"holds only a machine description ({machine}), no kernel data",
            hint="profile again so that the folder also holds pmc_perf.csv / counter_collection.csv / "
            "kernel_trace.csv, or give the folder that does",
        )
    return inputs


def is_amd_path(path: Path) -> bool:
    """True when ``path`` is something :func:`read_amd_path` reads: an AMD profile folder, a rocprof /
    rocprof-compute / ATT CSV, or an AMDGCN assembly file. Reads at most a file header."""
    path = Path(path)
    if path.is_dir():
        if (path / "kernel.s").is_file() or any(path.glob("*.amdgcn")) or any(path.glob("*.att")):
            return True
        for sub in ("att", "pmc"):
            if (path / sub).is_dir() and any(_csv_kind(p) for p in (path / sub).rglob("*.csv")):
                return True
        return any(_csv_kind(p) for p in path.glob("*.csv"))
    if not path.is_file():
        return False
    if path.suffix.lower() == ".att":
        return True
    if path.suffix.lower() == ".csv":
        return _csv_kind(path) is not None
    if path.suffix.lower() in _ASM_SUFFIXES:
        try:
            with path.open(encoding="utf-8", errors="replace") as fh:
                return looks_like_amdgcn(fh.read(65536))
        except OSError:
            return False
    return False


def read_amd_profile_dir(
    folder: Path,
    *,
    tool_used: str | None = None,
    version: str | None = None,
    gpu_name: str | None = None,
    notes: Iterable[str] = (),
    counters_unavailable_reason: str | None = None,
    per_launch: bool = False,
) -> ProfileSummary:
    """The summary of an AMD profile folder (see :func:`collect_profile_dir`).

    Raises:
        InputFileError: malformed files, or nothing AMD in the folder.
    """
    inputs = collect_profile_dir(Path(folder))
    inputs.notes.extend(notes)
    return build_summary(
        inputs,
        tool_used=tool_used or "rocprofv3 (recorded outputs)",
        version=version,
        gpu_name=gpu_name,
        counters_unavailable_reason=counters_unavailable_reason,
        per_launch=per_launch,
    )


def read_amd_path(path: Path, *, per_launch: bool = False) -> ProfileSummary:
    """Evidence from any AMD input: a profile folder, one CSV, or one assembly file.

    Raises:
        InputFileError: missing, unreadable or malformed input, or not an AMD format.
    """
    path = Path(path)
    if path.is_dir():
        return read_amd_profile_dir(path, per_launch=per_launch)
    if not path.is_file():
        raise InputFileError(path, "no such file or folder")
    unsupported = unsupported_amd_file(path)
    if unsupported is not None:
        if _csv_kind(path) is ReportKind.SYSINFO:
            parse_sysinfo(_read_csv_file(path), path.name)  # a truncated one says so first
        what, hint = unsupported
        raise InputFileError(path, f"this is {what}", hint=hint)
    inputs = AmdInputs()
    if path.suffix.lower() == ".csv":
        if not _add_csv(inputs, path, path.name):
            raise InputFileError(path, "not an AMD profiler CSV (unknown header)")
        kind = _csv_kind(path)
        empty_trace = kind is ReportKind.ATT_STATS
        if not empty_trace and not (inputs.dispatches or inputs.kernel_top):
            what = "a machine description" if kind is ReportKind.AGENT_INFO else "a header"
            raise InputFileError(
                path,
                f"holds only {what}, no kernel",
                hint="give the profiler's dispatch, counter or kernel-trace output (or the whole output folder)",
            )
        tool = {
            ReportKind.ATT_STATS: "rocprofv3 --att (ATT decoder stats)",
            ReportKind.AGENT_INFO: "rocprofv3 (agent info)",
            ReportKind.COUNTER_COLLECTION: "rocprofv3 --pmc",
            ReportKind.KERNEL_TRACE: "rocprofv3 --kernel-trace",
            ReportKind.KERNEL_TOP: "rocprof-compute (pmc_kernel_top)",
            ReportKind.KERNEL_STATS: "rocprof --stats (kernel statistics)",
        }.get(kind or ReportKind.DISPATCH_TABLE, "rocprof-compute / rocprof (dispatch table)")
        return build_summary(inputs, tool_used=tool, per_launch=per_launch)
    if path.suffix.lower() in _ASM_SUFFIXES or looks_like_amdgcn(_read_text(path)[:65536]):
        _add_asm(inputs, path, path.name)
        return build_summary(
            inputs, tool_used="AMDGCN assembly", counters_unavailable_reason="assembly only: no counters in this input"
        )
    raise InputFileError(path, "not an AMD profile input (expected a folder, a .csv or a .s/.amdgcn file)")
