"""Build the ``ncu`` command line (pure) and parse what ``ncu`` prints about itself.

The argv is built by one pure function so that tests can assert it exactly. Defaults follow the spec
and the measurements in DESIGN.md: ``--set full``; ``--import-source yes`` (source lines in the report);
``--clock-control none`` (leave the GPU clocks as they are: the kernel is measured at the clocks it will
run at, and the machine's clock settings are not touched); ``--target-processes all``;
``--profile-from-start off`` (the driver starts the profiler after warm-up, so JIT compilation and
autotuning launches are never profiled); ``--kernel-name-base function`` with ``--kernel-name
regex:<R>``; ``--launch-skip``/``--launch-count`` (which count only launches that match the filter) and
optionally ``--launch-skip-before-match`` (which counts every launch before the first match).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

#: The oldest Nsight Compute release kernelopt drives (the oldest report version it was tested on is
#: 2022.3; ``--import-source`` and the Python report interface's rule results exist since 2022.1).
MIN_NCU_VERSION = (2022, 1)

#: ``--fast``: the Speed-Of-Light, launch and occupancy sections (they decide the bottleneck class) plus
#: the few hardware counters the evidence rules need for the access-pattern, bank-conflict, spill and
#: tensor-pipe findings. On the H200 (2026-11-29, ncu 2025.3.1) it takes 12 replay passes against 38 for
#: ``--set full`` and gave the same bottleneck and top symptom on all six fixture kernels
#: (benchmarks/profile_cost.py, docs/nvidia-profiling.md). Dropped: the warp-state stall breakdown,
#: source counters (SASS patching, PC sampling), the memory tables and charts, roofline, PM sampling.
FAST_SECTIONS = ("SpeedOfLight", "LaunchStats", "Occupancy")
FAST_METRICS = (
    "dram__bytes_read.sum",
    "dram__bytes_write.sum",
    "l1tex__t_sector_hit_rate.pct",
    "lts__t_sector_hit_rate.pct",
    "smsp__issue_active.avg.pct_of_peak_sustained_active",
    "sm__pipe_tensor_cycles_active.avg.pct_of_peak_sustained_active",
    "sm__pipe_fma_cycles_active.avg.pct_of_peak_sustained_active",
    "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum",
    "l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum",
    "l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum",
    "l1tex__t_requests_pipe_lsu_mem_global_op_st.sum",
    "l1tex__t_sectors_pipe_lsu_mem_local_op_ld.sum",
    "l1tex__t_sectors_pipe_lsu_mem_local_op_st.sum",
    "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum",
    "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum",
    "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum",
    "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum",
)

_VERSION = re.compile(r"Version\s+(\d{4})\.(\d+)(?:\.(\d+))?")
_PASSES = re.compile(r'==PROF== Profiling "(?P<name>[^"]*)"(?:\s*-\s*(?P<id>\d+))?:.*?-\s*(?P<passes>\d+)\s+pass')
_REPORT = re.compile(r"==PROF== Report:\s*(?P<path>\S.*\S)\s*$", re.MULTILINE)


@dataclass(frozen=True)
class NcuOptions:
    """What to ask ``ncu`` for.

    Attributes:
        export: report path without the ``.ncu-rep`` suffix (``profiles/v3/ncu``).
        set_name: section set (``full``); ``None`` to use only ``sections``.
        sections: section identifiers (``SpeedOfLight``); used when ``set_name`` is ``None``.
        metrics: extra metrics to collect (``--metrics``), on top of the set or sections.
        kernel_regex: regular expression on the kernel's function name; ``None`` profiles every kernel.
        launch_skip: matching launches to skip before profiling (ncu counts only launches that pass the
            kernel filter).
        launch_count: matching launches to profile; ``None`` for all of them.
        launch_skip_before_match: launches of any kernel to skip before the first matching one.
        import_source: store the CUDA/Triton source in the report (needs line info in the binary).
        clock_control: ``none`` (leave clocks alone) or ``base`` (lock to base clocks).
        profile_from_start: ``False`` when the program starts the profiler itself (cudaProfilerStart).
        target_processes: ``all`` to follow child processes.
    """

    export: Path
    set_name: str | None = "full"
    sections: tuple[str, ...] = ()
    metrics: tuple[str, ...] = ()
    kernel_regex: str | None = None
    launch_skip: int = 0
    launch_count: int | None = 1
    launch_skip_before_match: int | None = None
    import_source: bool = True
    clock_control: str = "none"
    profile_from_start: bool = False
    target_processes: str = "all"

    def __post_init__(self) -> None:
        if self.launch_skip < 0:
            raise ValueError(f"launch_skip must be >= 0, got {self.launch_skip}")
        if self.launch_count is not None and self.launch_count < 1:
            raise ValueError(f"launch_count must be >= 1, got {self.launch_count}")
        if self.launch_skip_before_match is not None and self.launch_skip_before_match < 0:
            raise ValueError(f"launch_skip_before_match must be >= 0, got {self.launch_skip_before_match}")
        if self.set_name is None and not self.sections and not self.metrics:
            raise ValueError("give a section set, a section or a metric")
        if self.clock_control not in ("none", "base"):
            raise ValueError(f"clock_control must be 'none' or 'base', got {self.clock_control!r}")


def build_ncu_argv(ncu: str, options: NcuOptions, program: Sequence[str]) -> list[str]:
    """The full ``ncu`` command line that profiles ``program``.

    Args:
        ncu: path of the ``ncu`` executable.
        options: what to collect and which launches.
        program: the profiled program and its arguments (the kernelopt driver).

    Returns:
        The argv list, in a fixed order.
    """
    argv = [ncu]
    if options.set_name is not None:
        argv += ["--set", options.set_name]
    for section in options.sections:
        argv += ["--section", section]
    if options.metrics:
        argv += ["--metrics", ",".join(options.metrics)]
    argv += [
        "--import-source",
        "yes" if options.import_source else "no",
        "--clock-control",
        options.clock_control,
        "--target-processes",
        options.target_processes,
        "--profile-from-start",
        "on" if options.profile_from_start else "off",
    ]
    if options.kernel_regex:
        argv += ["--kernel-name-base", "function", "--kernel-name", f"regex:{options.kernel_regex}"]
    if options.launch_skip_before_match is not None:
        argv += ["--launch-skip-before-match", str(options.launch_skip_before_match)]
    argv += ["--launch-skip", str(options.launch_skip)]
    if options.launch_count is not None:
        argv += ["--launch-count", str(options.launch_count)]
    argv += ["--force-overwrite", "--export", str(options.export)]
    return argv + [str(p) for p in program]


def kernel_regex_for(names: Sequence[str]) -> str | None:
    """An anchored regex matching exactly these function names (``^(a|b)$``); ``None`` for none.

    Plain groups only: ncu's regex engine is not Python's, so the pattern stays in the common subset.
    """
    unique = list(dict.fromkeys(n for n in names if n))
    if not unique:
        return None
    return "^(" + "|".join(re.escape(n) for n in unique) + ")$"


def parse_version(text: str) -> tuple[int, int, int] | None:
    """``(2025, 3, 1)`` from ``ncu --version`` output (``Version 2025.3.1.0 (build ...)``)."""
    m = _VERSION.search(text)
    if not m:
        return None
    return int(m.group(1)), int(m.group(2)), int(m.group(3) or 0)


def parse_passes(output: str) -> list[tuple[str, int]]:
    """``[(kernel, replay passes), ...]`` from ncu's ``==PROF== Profiling "k" - 0: ... - 38 passes`` lines."""
    return [(m.group("name"), int(m.group("passes"))) for m in _PASSES.finditer(output)]


def parse_report_path(output: str) -> str | None:
    """The report path from ncu's ``==PROF== Report: <path>`` line."""
    m = _REPORT.search(output)
    return m.group("path") if m else None
