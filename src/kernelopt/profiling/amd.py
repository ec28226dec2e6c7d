"""Stage 1 on AMD CDNA3/CDNA4: run rocprofv3 (ATT, PMC) and collect the kernel's assembly (ASM).

Layout written into ``profiles/v<N>/`` (the spec's ``profile_kernel.sh`` artifacts)::

    att/            rocprofv3 --att output: stats_*.csv (decoder per-instruction stats), ui_output_*/,
                    raw .att / .out files, agent_info.csv, rocprofv3.log
    pmc/timing/     rocprofv3 --kernel-trace pass (clean kernel durations)
    pmc/<batch>/    one rocprofv3 --pmc pass per counter batch (counter_collection.csv, <batch>.log)
    asm/            Triton cache files of the profiled kernels (<kernel>.amdgcn, <kernel>.json)
    kernel.s        the AMDGCN assembly of those kernels, concatenated
    summary.json / summary.txt

Every command is an argv list built by a pure function (:func:`timing_argv`, :func:`pmc_argv`,
:func:`att_argv`, :func:`asm_argv`) and run through :func:`kernelopt.proc.run_command` (timeout,
process-group kill). CSV output is always requested explicitly (``--output-format csv``: recent
rocprofv3 versions default to a rocpd database). The profiled program is the kernelopt driver
(``python -m kernelopt.profiling.driver --kernel WS/kernel.py --reference WS/reference.py ...``);
by default the first (warm-up) dispatch of each kernel is skipped with ``--kernel-iteration-range``
(1-based, inclusive).

A mode that fails is a result, not an exception: its reason becomes a ``NOTE:`` line of the summary and
the other modes still run. A missing ATT decoder fails ATT alone, with a one-line explanation of where
to install it and which flag points at it. Only when every requested mode fails is it an error.
"""

from __future__ import annotations

import contextlib
import os
import re
import shutil
import signal
import sys
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path

from kernelopt.env import inherited
from kernelopt.errors import EnvironmentProblem, UsageError, WorkspaceError
from kernelopt.evidence.model import ProfileSummary
from kernelopt.evidence.summary import write_summary
from kernelopt.oneline import one_line
from kernelopt.proc import CommandResult, run_command
from kernelopt.profiling.amd_reports import read_amd_profile_dir
from kernelopt.worker.environment import worker_env
from kernelopt.workspace import Workspace

DRIVER_MODULE = "kernelopt.profiling.driver"
DEFAULT_LAUNCHES = 3
"""Launches of the kernel per profiled run: one warm-up plus two measured dispatches."""
MODES = ("pmc", "att", "asm")
DECODER_LIB = "librocprof-trace-decoder.so"
DECODER_ENV = "ROCPROF_TRACE_DECODER_DIR"
ROCPROF_DECODER_ENV = "ROCPROF_ATT_LIBRARY_PATH"
"""rocprofv3's own variable for the decoder folder (used when ``--att-library-path`` is not given)."""
DECODER_RELEASES = "https://github.com/ROCm/rocprof-trace-decoder/releases"
DEFAULT_ROCM = "/opt/rocm"


class ModeStatus(StrEnum):
    OK = "ok"
    FAILED = "failed"
    TIMEOUT = "timeout"


@dataclass(frozen=True)
class ModeOutcome:
    """What one profiler pass produced.

    Attributes:
        mode: ``pmc:<batch>``, ``pmc:timing``, ``att`` or ``asm``.
        status: ok / failed / timeout.
        message: one line: what was produced, or why not.
        log: the pass's log file (stdout and stderr of the command), when one was written.
    """

    mode: str
    status: ModeStatus
    message: str
    log: Path | None = None

    @property
    def ok(self) -> bool:
        return self.status is ModeStatus.OK


# ------------------------------------------------------------------------------- counters

BLOCK_LIMITS: dict[str, int] = {
    "SQ": 8,
    "SQC": 8,
    "TA": 2,
    "TD": 2,
    "TCP": 4,
    "TCC": 4,
    "CPC": 2,
    "CPF": 2,
    "SPI": 2,
    "GRBM": 2,
    "GDS": 4,
}
"""Counters one pass can collect per hardware block on gfx90a/gfx942/gfx950. Source: rocprof-compute's
per-SoC ``perfmon_config`` (``SQ: 8, TA: 2, TD: 2, TCP: 4, TCC: 4, CPC: 2, CPF: 2, SPI: 2, GRBM: 2,
GDS: 4``), which it uses to split counters into passes; rocprofv3 fails a pass whose set does not fit."""


@dataclass(frozen=True)
class CounterBatch:
    """One rocprofv3 ``--pmc`` pass: counters that fit the block limits together, and what they feed."""

    name: str
    counters: tuple[str, ...]
    feeds: str


PMC_BATCHES: tuple[CounterBatch, ...] = (
    CounterBatch(
        "instructions",
        (
            "GRBM_GUI_ACTIVE",
            "SQ_WAVES",
            "SQ_INSTS_VALU",
            "SQ_INSTS_SALU",
            "SQ_INSTS_VMEM_RD",
            "SQ_INSTS_VMEM_WR",
            "SQ_INSTS_LDS",
            "SQ_INSTS_MFMA",
            "SQ_INSTS_FLAT",
        ),
        "VMEM/LDS/MFMA instruction counts",
    ),
    CounterBatch(
        "lds_busy",
        (
            "GRBM_GUI_ACTIVE",
            "SQ_LDS_BANK_CONFLICT",
            "SQ_LDS_IDX_ACTIVE",
            "SQ_ACTIVE_INST_LDS",
            "SQ_ACTIVE_INST_VALU",
            "SQ_VALU_MFMA_BUSY_CYCLES",
            "SQ_ACTIVE_INST_VMEM",
            "SQ_ACTIVE_INST_FLAT",
            "SQ_BUSY_CU_CYCLES",
        ),
        "LDS bank conflicts, VALU/MFMA/VMEM busy",
    ),
    CounterBatch(
        "valu_mix",
        (
            "SQ_INSTS_VALU_FMA_F16",
            "SQ_INSTS_VALU_FMA_F32",
            "SQ_INSTS_VALU_FMA_F64",
            "SQ_INSTS_VALU_MFMA_MOPS_F16",
            "SQ_INSTS_VALU_MFMA_MOPS_BF16",
            "SQ_INSTS_VALU_MFMA_MOPS_F32",
            "SQ_INSTS_VALU_MFMA_MOPS_F64",
            "SQ_THREAD_CYCLES_VALU",
        ),
        "VALU FMA vs MFMA work (MFMA underuse)",
    ),
    CounterBatch(
        "spi_vgpr_lds",
        ("GRBM_GUI_ACTIVE", "SPI_RA_VGPR_SIMD_FULL_CSN", "SPI_RA_LDS_CU_FULL_CSN"),
        "occupancy limited by VGPRs / LDS",
    ),
    CounterBatch(
        "spi_waves_sgpr",
        ("GRBM_GUI_ACTIVE", "SPI_RA_WAVE_SIMD_FULL_CSN", "SPI_RA_SGPR_SIMD_FULL_CSN"),
        "occupancy limited by wave slots / SGPRs",
    ),
    CounterBatch(
        "l2",
        (
            "GRBM_GUI_ACTIVE",
            "TCC_HIT_sum",
            "TCC_MISS_sum",
            "TCC_REQ_sum",
            "TCC_EA0_RDREQ_sum",
            "TCP_TOTAL_CACHE_ACCESSES_sum",
            "TCP_TCC_READ_REQ_sum",
            "TCP_TCC_WRITE_REQ_sum",
            "TCP_TCC_ATOMIC_WITH_RET_REQ_sum",
        ),
        "L2 hit/miss, vL1D hit rate",
    ),
    CounterBatch(
        "hbm",
        (
            "GRBM_GUI_ACTIVE",
            "TCC_EA0_RDREQ_32B_sum",
            "TCC_BUBBLE_sum",
            "TCC_EA0_WRREQ_sum",
            "TCC_EA0_WRREQ_64B_sum",
            "TCP_TCC_ATOMIC_WITHOUT_RET_REQ_sum",
        ),
        "HBM read/write bytes (with TCC_EA0_RDREQ_sum of the l2 pass)",
    ),
)
"""The counter passes, chosen for the AMD evidence rules (see docs/amd-profiling.md)."""


def counter_block(counter: str) -> str:
    """The hardware block of a counter: the text before the first ``_`` (``TCC_HIT_sum`` -> ``TCC``)."""
    return counter.split("_", 1)[0]


def batch_fits(counters: Sequence[str], limits: Mapping[str, int] = BLOCK_LIMITS) -> bool:
    """True when no hardware block is asked for more counters than one pass collects."""
    per_block: dict[str, int] = {}
    for c in counters:
        block = counter_block(c)
        per_block[block] = per_block.get(block, 0) + 1
    return all(n <= limits.get(block, 0) for block, n in per_block.items())


# ---------------------------------------------------------------------------- argv builders


def driver_argv(workspace_root: Path, launches: int, *, python: str | None = None) -> list[str]:
    """The profiled program: the kernelopt driver running the workspace kernel ``launches`` times.

    One warm-up call comes first (JIT compilation); the default iteration ranges then skip the first
    profiled dispatch as well, so a kernel whose first launch still differs is never the one measured.
    """
    return [
        python or sys.executable,
        "-m",
        DRIVER_MODULE,
        "--kernel",
        str(workspace_root / "kernel.py"),
        "--reference",
        str(workspace_root / "reference.py"),
        "--mode",
        "profile",
        "--warmup",
        "1",
        "--launches",
        str(launches),
    ]


_RANGE_SIMPLE = re.compile(r"^\s*(\d+)\s*(?:-\s*(\d+)\s*)?$")
_RANGE_BRACKETED = re.compile(r"^\[[\d\s,\-\[\]]+\]$")


def normalize_iteration_range(text: str | None, *, default: str) -> str:
    """A rocprofv3 ``--kernel-iteration-range`` value: ``"2-3"`` -> ``"[2-3]"``, ``"5"`` -> ``"[5]"``,
    ``"[1, [3-4]]"`` kept as is; ``None`` -> ``default``. Iterations are 1-based and inclusive.

    Raises:
        UsageError: not a range rocprofv3 accepts.
    """
    if text is None:
        return default
    m = _RANGE_SIMPLE.match(text)
    if m:
        lo, hi = int(m.group(1)), int(m.group(2) or m.group(1))
        if hi < lo:
            raise UsageError(f"iteration range {text!r} ends before it starts")
        return f"[{lo}]" if lo == hi else f"[{lo}-{hi}]"
    if _RANGE_BRACKETED.match(text.strip()):
        return text.strip()
    raise UsageError(
        f"invalid iteration range {text!r}", hint="use A-B (1-based, inclusive), A, or rocprofv3's [A-B],[C] form"
    )


def _filters(kernel_regex: str | None, iteration: str) -> list[str]:
    out = ["--kernel-include-regex", kernel_regex] if kernel_regex else []
    return [*out, "--kernel-iteration-range", iteration]


def _pass_argv(
    rocprofv3: str,
    flags: Sequence[str],
    name: str,
    out_dir: Path,
    program: Sequence[str],
    kernel_regex: str | None,
    iteration: str,
) -> list[str]:
    """One rocprofv3 pass: its own ``flags``, CSV output ``out_dir/name``, the kernel filters, the program."""
    return [
        rocprofv3,
        *flags,
        "--output-format",
        "csv",
        "-d",
        str(out_dir),
        "-o",
        name,
        *_filters(kernel_regex, iteration),
        "--",
        *program,
    ]


def timing_argv(
    *, rocprofv3: str, out_dir: Path, program: Sequence[str], kernel_regex: str | None, iteration: str
) -> list[str]:
    """The kernel-trace pass (clean durations, no counters)."""
    return _pass_argv(rocprofv3, ["--kernel-trace"], "timing", out_dir, program, kernel_regex, iteration)


def pmc_argv(
    *,
    rocprofv3: str,
    batch: CounterBatch,
    out_dir: Path,
    program: Sequence[str],
    kernel_regex: str | None,
    iteration: str,
) -> list[str]:
    """One counter pass."""
    return _pass_argv(rocprofv3, ["--pmc", *batch.counters], batch.name, out_dir, program, kernel_regex, iteration)


def att_argv(
    *,
    rocprofv3: str,
    decoder_dir: Path,
    out_dir: Path,
    program: Sequence[str],
    kernel_regex: str | None,
    iteration: str,
) -> list[str]:
    """The thread-trace pass; the decoder folder is always passed explicitly."""
    flags = ["--att", "--att-library-path", str(decoder_dir)]
    return _pass_argv(rocprofv3, flags, "att", out_dir, program, kernel_regex, iteration)


def asm_argv(program: Sequence[str]) -> list[str]:
    """The ASM pass runs the program itself (no profiler): Triton writes ``.amdgcn`` into its cache."""
    return list(program)


def asm_env(base: Mapping[str, str], cache_dir: Path) -> dict[str, str]:
    """Environment of the ASM pass: a fresh Triton cache that is always compiled into."""
    env = dict(base)
    env["TRITON_CACHE_DIR"] = str(cache_dir)
    env["TRITON_ALWAYS_COMPILE"] = "1"
    return env


# --------------------------------------------------------------------------- tool discovery


@dataclass(frozen=True)
class DecoderLookup:
    """Where the ATT decoder library was looked for and found.

    Attributes:
        directory: the folder holding the library (passed to ``--att-library-path``), or ``None``.
        library: the library file found.
        searched: folders looked in, in order.
        version: the decoder version, when its file name carries one (``.so.0.1.4``).
    """

    directory: Path | None
    library: Path | None
    searched: tuple[str, ...]
    version: str | None = None

    def missing_message(self) -> str:
        where = ", ".join(self.searched) or "nowhere"
        return (
            f"ATT not run: {DECODER_LIB} not found (looked in {where}); install rocprof-trace-decoder outside "
            f"the workspace ({DECODER_RELEASES}) and pass its lib folder with --att-library-path DIR "
            f"(or set {DECODER_ENV}=DIR)"
        )


def _rocm_root(env: Mapping[str, str]) -> Path:
    return Path(env.get("ROCM_PATH") or DEFAULT_ROCM)


def find_trace_decoder(att_library_path: Path | None, env: Mapping[str, str]) -> DecoderLookup:
    """Find ``librocprof-trace-decoder.so``: ``--att-library-path`` (only there when given), else
    ``$ROCPROF_TRACE_DECODER_DIR``, ``$ROCPROF_ATT_LIBRARY_PATH`` (rocprofv3's own variable),
    ``$ROCM_PATH/lib`` (default ``/opt/rocm/lib``) and ``$LD_LIBRARY_PATH`` (where rocprofv3 itself
    looks by default). A relative folder is taken from this process's folder and given to rocprofv3 whole: it
    runs in the workspace, where ``--att-library-path ./lib`` named nothing."""
    if att_library_path is not None:
        candidates = [Path(att_library_path).expanduser().absolute()]
    else:
        candidates = []
        for var in (DECODER_ENV, ROCPROF_DECODER_ENV):
            if env.get(var):
                candidates.append(Path(env[var]))
        candidates.append(_rocm_root(env) / "lib")
        candidates += [Path(p) for p in env.get("LD_LIBRARY_PATH", "").split(os.pathsep) if p]
        candidates = [c.absolute() for c in candidates]
    searched: list[str] = []
    for folder in candidates:
        if str(folder) in searched:
            continue
        searched.append(str(folder))
        if not folder.is_dir():
            continue
        found = sorted(folder.glob(f"{DECODER_LIB}*"))
        if found:
            lib = found[0]
            versions = [m.group(1) for f in found if (m := re.search(r"\.so\.(\d+(?:\.\d+)+)$", f.name))]
            return DecoderLookup(folder, lib, tuple(searched), max(versions, key=len) if versions else None)
    return DecoderLookup(None, None, tuple(searched))


def find_rocprofv3(env: Mapping[str, str]) -> str | None:
    """``rocprofv3`` on ``PATH``, else in ``$ROCM_PATH/bin``; ``None`` when absent."""
    found = shutil.which("rocprofv3", path=env.get("PATH"))
    if found:
        return found
    candidate = _rocm_root(env) / "bin" / "rocprofv3"
    return str(candidate) if candidate.is_file() and os.access(candidate, os.X_OK) else None


# ------------------------------------------------------------------------------ diagnosis

_DECODER_LOAD = re.compile(r"Error loading decoder|undefined symbol|rocprof[-_]trace[-_]decoder.*(fail|error)", re.I)


def _signal_name(result: CommandResult) -> str | None:
    rc = result.returncode
    if rc is not None and rc < 0:
        try:
            return signal.Signals(-rc).name
        except ValueError:
            return f"signal {-rc}"
    m = re.search(r"died with <Signals\.(\w+)", result.stderr)
    if m:
        return m.group(1)
    if rc is not None and rc > 128:
        try:
            return signal.Signals(rc - 128).name
        except ValueError:
            return None
    return None


def _last_line(result: CommandResult) -> str:
    lines = [ln.strip() for ln in (result.stderr or result.stdout).splitlines() if ln.strip()]
    return one_line(lines[-1], 240) if lines else "no output"


def diagnose_att_failure(result: CommandResult, decoder: DecoderLookup) -> str:
    """One line saying why ``rocprofv3 --att`` failed, naming a decoder/SDK mismatch when that is the cause."""
    text = result.stderr + "\n" + result.stdout
    lib = f"{decoder.library} (version {decoder.version or 'unknown'})"
    if "unrecognized arguments" in text and "--att" in text:
        return "ATT failed: this rocprofv3 has no --att option (thread trace needs ROCm 7.0 or later rocprofiler-sdk)"
    if _DECODER_LOAD.search(text):
        return (
            f"ATT failed: decoder/SDK mismatch: rocprofv3 could not load {lib}; install the rocprof-trace-decoder "
            f"release built for this rocprofiler-sdk ({DECODER_RELEASES})"
        )
    if "INVALID_SHADER_DATA" in text or "Agent not supported" in text:
        return "ATT failed: aqlprofile does not support thread trace on this GPU/ROCm (needs the ROCm 7 aqlprofile)"
    sig = _signal_name(result)
    if sig:
        return (
            f"ATT failed: rocprofv3 --att died with {sig}; with a decoder found at {lib} this is the typical sign "
            f"of a decoder/SDK version mismatch: install the decoder release matching this ROCm ({DECODER_RELEASES})"
        )
    return f"ATT failed: rocprofv3 exited {result.returncode}: {_last_line(result)}"


def diagnose_pmc_failure(result: CommandResult, batch: CounterBatch) -> str:
    """One line saying why a counter pass failed (unsupported counter, or the command's own error)."""
    text = result.stderr + "\n" + result.stdout
    missing = [
        c
        for c in batch.counters
        if c in text and re.search(r"not (found|supported|available)|invalid|unknown", text, re.I)
    ]
    if missing:
        return f"PMC pass '{batch.name}' failed: counter(s) {', '.join(missing)} not available on this GPU/ROCm"
    sig = _signal_name(result)
    if sig:
        return f"PMC pass '{batch.name}' failed: rocprofv3 died with {sig}"
    return f"PMC pass '{batch.name}' failed: rocprofv3 exited {result.returncode}: {_last_line(result)}"


# ---------------------------------------------------------------------------------- passes


def _write_log(path: Path, result: CommandResult) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(
        f"$ {' '.join(result.argv)}\n# exit {result.returncode} timed_out={result.timed_out} "
        f"{result.duration_s:.1f}s\n--- stdout\n{result.stdout}\n--- stderr\n{result.stderr}\n",
        encoding="utf-8",
    )
    return path


def _run(argv: list[str], *, timeout_s: float, env: Mapping[str, str], cwd: Path) -> CommandResult:
    try:
        return run_command(argv, timeout_s=timeout_s, env=env, cwd=cwd)
    except FileNotFoundError:
        return CommandResult(tuple(argv), 127, "", f"{argv[0]}: not found", 0.0, False)


def _timeout_message(what: str, timeout_s: float) -> str:
    return f"{what} ran past its {timeout_s:g} s limit; its process group was killed"


@dataclass(frozen=True)
class _Pass:
    """One rocprofv3 pass as its outcome says it.

    Attributes:
        mode: the outcome's mode (``pmc:timing``, ``pmc:<batch>``, ``att``).
        what: the pass in words, for the time-out message.
        out: the folder the pass writes.
        expect: a file pattern the pass must write there (else nothing matched the filters).
        log: where its output is kept.
        diagnose: why a pass that exited non-zero failed, in one line.
        empty: what it means that it wrote no ``expect``.
        done: what a pass that worked gave.
    """

    mode: str
    what: str
    out: Path
    expect: str
    log: Path
    diagnose: Callable[[CommandResult], str]
    empty: str
    done: str


@dataclass(frozen=True)
class Target:
    """The profiled program and how every pass runs it.

    Attributes:
        program: the kernelopt driver's command line (:func:`driver_argv`).
        kernel_regex: the kernel filter (``--kernel-include-regex``, and of assembly kernel names).
        timeout_s: wall-clock limit of each pass, seconds.
        env: the passes' environment.
        cwd: the folder they run in (the workspace).
    """

    program: list[str]
    kernel_regex: str | None
    timeout_s: float
    env: Mapping[str, str]
    cwd: Path


def _run_pass(p: _Pass, argv: list[str], target: Target) -> ModeOutcome:
    result = _run(argv, timeout_s=target.timeout_s, env=target.env, cwd=target.cwd)
    log = _write_log(p.log, result)
    if result.timed_out:
        return ModeOutcome(p.mode, ModeStatus.TIMEOUT, _timeout_message(p.what, target.timeout_s), log)
    if not result.ok:
        return ModeOutcome(p.mode, ModeStatus.FAILED, p.diagnose(result), log)
    if not any(p.out.rglob(p.expect)):
        return ModeOutcome(p.mode, ModeStatus.FAILED, p.empty, log)
    return ModeOutcome(p.mode, ModeStatus.OK, p.done, log)


def run_timing(target: Target, rocprofv3: str, pmc_dir: Path, iteration: str) -> ModeOutcome:
    """The kernel-trace pass, into ``pmc_dir/timing``."""
    out = pmc_dir / "timing"
    argv = timing_argv(
        rocprofv3=rocprofv3, out_dir=out, program=target.program, kernel_regex=target.kernel_regex, iteration=iteration
    )
    timing = _Pass(
        mode="pmc:timing",
        what="timing pass",
        out=out,
        expect="*kernel_trace.csv",
        log=out / "timing.log",
        diagnose=lambda r: f"timing pass failed: exit {r.returncode}: {_last_line(r)}",
        empty="timing pass wrote no kernel_trace.csv (no dispatch matched the kernel filter)",
        done="kernel trace written",
    )
    return _run_pass(timing, argv, target)


def run_pmc_batch(target: Target, rocprofv3: str, batch: CounterBatch, pmc_dir: Path, iteration: str) -> ModeOutcome:
    """One counter pass, into ``pmc_dir/<batch>``."""
    out = pmc_dir / batch.name
    argv = pmc_argv(
        rocprofv3=rocprofv3,
        batch=batch,
        out_dir=out,
        program=target.program,
        kernel_regex=target.kernel_regex,
        iteration=iteration,
    )
    pmc = _Pass(
        mode=f"pmc:{batch.name}",
        what=f"PMC pass '{batch.name}'",
        out=out,
        expect="*counter_collection.csv",
        log=out / f"{batch.name}.log",
        diagnose=lambda r: diagnose_pmc_failure(r, batch),
        empty=f"PMC pass '{batch.name}' wrote no counter_collection.csv although rocprofv3 exited 0 "
        "(no dispatch matched the kernel filter / iteration range, or the counters were dropped)",
        done=f"{len(batch.counters)} counters ({batch.feeds})",
    )
    return _run_pass(pmc, argv, target)


def run_att(target: Target, rocprofv3: str, att_dir: Path, decoder: DecoderLookup, iteration: str) -> ModeOutcome:
    """The thread-trace pass, into ``att_dir``."""
    if decoder.directory is None:
        return ModeOutcome("att", ModeStatus.FAILED, decoder.missing_message())
    argv = att_argv(
        rocprofv3=rocprofv3,
        decoder_dir=decoder.directory,
        out_dir=att_dir,
        program=target.program,
        kernel_regex=target.kernel_regex,
        iteration=iteration,
    )
    att = _Pass(
        mode="att",
        what="ATT pass",
        out=att_dir,
        expect="stats_*.csv",
        log=att_dir / "rocprofv3.log",
        diagnose=lambda r: diagnose_att_failure(r, decoder),
        empty="ATT wrote no stats_*.csv: no dispatch matched the kernel filter / iteration range, or decoding "
        f"produced nothing (decoder {decoder.library})",
        done=f"thread trace decoded with {decoder.library}",
    )
    return _run_pass(att, argv, target)


def collect_triton_asm(cache_dir: Path, asm_dir: Path, kernel_regex: str | None) -> list[Path]:
    """Copy the ``.amdgcn`` (and Triton ``.json`` metadata) of the cache into ``asm_dir``; returns the copies."""
    pattern = re.compile(kernel_regex) if kernel_regex else None
    asm_dir.mkdir(parents=True, exist_ok=True)
    copied = []
    for src in sorted(cache_dir.rglob("*.amdgcn")):
        if pattern and not pattern.search(src.stem):
            continue
        dst = asm_dir / f"{src.stem}.amdgcn"
        n = 2
        while dst.exists():
            dst = asm_dir / f"{src.stem}-{n}.amdgcn"
            n += 1
        shutil.copyfile(src, dst)
        meta = src.with_suffix(".json")
        if meta.is_file():
            shutil.copyfile(meta, dst.with_suffix(".json"))
        copied.append(dst)
    return copied


def run_asm(target: Target, profile_dir: Path) -> ModeOutcome:
    """One kernel run with a fresh Triton cache; its AMDGCN assembly into ``kernel.s``."""
    asm_dir = profile_dir / "asm"
    cache = asm_dir / "triton_cache"
    timeout_s = target.timeout_s
    result = _run(asm_argv(target.program), timeout_s=timeout_s, env=asm_env(target.env, cache), cwd=target.cwd)
    log = _write_log(asm_dir / "asm.log", result)
    try:
        if result.timed_out:
            return ModeOutcome(
                "asm",
                ModeStatus.TIMEOUT,
                _timeout_message("ASM pass (kernel run with a fresh Triton cache)", timeout_s),
                log,
            )
        if not result.ok:
            return ModeOutcome(
                "asm",
                ModeStatus.FAILED,
                f"ASM pass failed: the kernel run exited {result.returncode}: {_last_line(result)}",
                log,
            )
        files = collect_triton_asm(cache, asm_dir, target.kernel_regex) if cache.is_dir() else []
        if not files:
            return ModeOutcome(
                "asm",
                ModeStatus.FAILED,
                "ASM: no .amdgcn in the Triton cache (not a Triton kernel, or the kernel regex matched none); for "
                "HIP kernels give 'kernelopt evidence' the .s of 'hipcc --save-temps'",
                log,
            )
        parts = [f"; kernelopt: {f.name} (Triton cache)\n{f.read_text(encoding='utf-8')}" for f in files]
        (profile_dir / "kernel.s").write_text("\n".join(parts), encoding="utf-8")
        return ModeOutcome("asm", ModeStatus.OK, f"{len(files)} kernel(s) from the Triton cache -> kernel.s", log)
    finally:
        shutil.rmtree(cache, ignore_errors=True)


# ------------------------------------------------------------------------------------- run


def _rocprofv3_version(rocprofv3: str, env: Mapping[str, str], cwd: Path) -> str | None:
    result = _run([rocprofv3, "--version"], timeout_s=30, env=env, cwd=cwd)
    for line in (result.stdout + result.stderr).splitlines():
        m = re.search(r"(\d+\.\d+(?:\.\d+)?)", line)
        if m:
            return m.group(1)
    return None


def _check_fresh(profile_dir: Path) -> None:
    for name in ("att", "pmc", "asm", "kernel.s"):
        if (profile_dir / name).exists():
            raise WorkspaceError(
                f"{profile_dir} already holds AMD profile artifacts ({name})",
                hint="profile artifacts are never reused across versions; profile a new version",
            )


def _remove_artifacts(profile_dir: Path) -> None:
    for name in ("att", "pmc", "asm"):
        shutil.rmtree(profile_dir / name, ignore_errors=True)
    (profile_dir / "kernel.s").unlink(missing_ok=True)


def rocm_present(env: Mapping[str, str] | None = None) -> bool:
    """True on a machine with the ROCm GPU driver (``/dev/kfd``) and rocprofv3; what ``kernelopt
    profile`` uses to pick the AMD path when ``--vendor`` is not given."""
    return Path("/dev/kfd").exists() and find_rocprofv3(inherited() if env is None else env) is not None


def profile_amd(
    workspace: Workspace,
    version: int,
    *,
    modes: set[str],
    kernel_regex: str | None,
    iteration_range: str | None,
    att_library_path: Path | None,
    timeout_s: float,
) -> ProfileSummary:
    """Stage 1 on an AMD GPU: ATT, PMC and ASM evidence for ``profiles/v<version>/``.

    Args:
        workspace: the workspace whose ``kernel.py`` is profiled (through the kernelopt driver).
        version: the version number N of ``profiles/v<N>/``.
        modes: a subset of ``{"att", "pmc", "asm"}``.
        kernel_regex: ``--kernel-include-regex`` (and the filter on assembly kernel names).
        iteration_range: 1-based inclusive dispatch range per kernel (``"2-3"``); default skips the
            warm-up dispatch (PMC ``[2-3]``, ATT ``[2]``).
        att_library_path: folder of ``librocprof-trace-decoder.so`` (else ``$ROCPROF_TRACE_DECODER_DIR``,
            ``$ROCM_PATH/lib``, ``$LD_LIBRARY_PATH``).
        timeout_s: wall-clock limit of each profiler pass, seconds.

    Returns:
        The summary written to ``summary.json`` / ``summary.txt``; failed modes are ``NOTE:`` lines.

    Raises:
        UsageError: unknown mode or invalid iteration range.
        WorkspaceError: the profile folder already holds AMD artifacts.
        EnvironmentProblem: every requested mode failed (each reason in the message; the partial
            artifacts of this call are removed).
    """
    unknown = set(modes) - set(MODES)
    if unknown or not modes:
        raise UsageError(
            f"unknown AMD profiling mode(s) {sorted(unknown) or '(none)'}", hint=f"choose from {', '.join(MODES)}"
        )
    pmc_iter = normalize_iteration_range(iteration_range, default=f"[2-{DEFAULT_LAUNCHES}]")
    att_iter = normalize_iteration_range(iteration_range, default="[2]")
    profile_dir = workspace.profile_dir(version)
    _check_fresh(profile_dir)
    made = not profile_dir.exists()
    profile_dir.mkdir(parents=True, exist_ok=True)
    env = worker_env()
    target = Target(driver_argv(workspace.root, DEFAULT_LAUNCHES), kernel_regex, timeout_s, env, workspace.root)
    rocprofv3 = find_rocprofv3(env) if modes & {"pmc", "att"} else None
    outcomes: list[ModeOutcome] = []
    if "pmc" in modes:
        outcomes += _pmc_outcomes(target, rocprofv3, profile_dir / "pmc", pmc_iter)
    if "att" in modes:
        outcomes.append(_att_outcome(target, rocprofv3, profile_dir / "att", att_library_path, att_iter))
    if "asm" in modes:
        asm_target = Target(driver_argv(workspace.root, 1), kernel_regex, timeout_s, env, workspace.root)
        outcomes.append(run_asm(asm_target, profile_dir))
    notes = [o.message for o in outcomes if not o.ok]
    if not any(o.ok for o in outcomes):
        _remove_artifacts(profile_dir)  # nothing half-written is left behind; the reasons are in the error
        if made:  # nor the folder this call made: an empty profiles/v<N>/ took the number, the next profile was v1
            with contextlib.suppress(OSError):
                profile_dir.rmdir()
        raise EnvironmentProblem("AMD profiling produced no evidence: " + "; ".join(notes))
    summary = read_amd_profile_dir(
        profile_dir,
        tool_used=_tool_used(target, rocprofv3, outcomes),
        version=f"v{version}",
        gpu_name=workspace.task_card().gpu,
        notes=notes,
        counters_unavailable_reason=_counters_reason(outcomes),
    )
    write_summary(profile_dir, summary)
    return summary


_NO_TOOL = "rocprofv3 not found on PATH or in $ROCM_PATH/bin (install ROCm 6.2+ rocprofiler-sdk)"


def _pmc_outcomes(target: Target, rocprofv3: str | None, pmc_dir: Path, iteration: str) -> list[ModeOutcome]:
    """The PMC mode: the timing pass, then one pass per counter batch."""
    if rocprofv3 is None:
        return [ModeOutcome("pmc", ModeStatus.FAILED, f"PMC not run: {_NO_TOOL}")]
    outcomes = [run_timing(target, rocprofv3, pmc_dir, iteration)]
    outcomes += [run_pmc_batch(target, rocprofv3, batch, pmc_dir, iteration) for batch in PMC_BATCHES]
    return outcomes


def _att_outcome(
    target: Target, rocprofv3: str | None, att_dir: Path, att_library_path: Path | None, iteration: str
) -> ModeOutcome:
    """The ATT mode: the thread-trace pass with the decoder found."""
    if rocprofv3 is None:
        return ModeOutcome("att", ModeStatus.FAILED, f"ATT not run: {_NO_TOOL}")
    decoder = find_trace_decoder(att_library_path, target.env)
    return run_att(target, rocprofv3, att_dir, decoder, iteration)


def _counters_reason(outcomes: list[ModeOutcome]) -> str | None:
    """Why no counter was read (None when a PMC counter pass worked)."""
    if any(o.ok and o.mode.startswith("pmc:") and o.mode != "pmc:timing" for o in outcomes):
        return None
    pmc_notes = [o.message for o in outcomes if o.mode.startswith("pmc") and not o.ok]
    return pmc_notes[0] if pmc_notes else "PMC mode not requested"


def _tool_used(target: Target, rocprofv3: str | None, outcomes: list[ModeOutcome]) -> str:
    """``rocprofv3 <version> (<the modes that worked>)``."""
    tool = "rocprofv3"
    if rocprofv3 is not None:
        ver = _rocprofv3_version(rocprofv3, target.env, target.cwd)
        tool = f"rocprofv3 {ver}" if ver else tool
    ran = [m for m in MODES if any(o.ok and o.mode.split(":")[0] == m for o in outcomes)]
    return f"{tool} ({', '.join(ran)})"
