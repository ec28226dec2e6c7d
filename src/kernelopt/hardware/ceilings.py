"""Measured ceilings of the GPU in this machine: memory bandwidth and dense matmul rate per dtype.

Spec-sheet peaks (:mod:`kernelopt.hardware.specs`) are what the vendor promises; these are what the
machine delivers, and what the stop condition compares a kernel with. On the H200 test machine
(2026-11-29, DESIGN.md) a device-to-device copy reached 4.25 TB/s (read + write) against 4.8 TB/s on
the datasheet, and bf16 GEMM 8192^3 about 715 TFLOP/s against 989.5 dense.

- memory bandwidth: three streams over 1 GiB fp32 buffers, each ``(bytes read + bytes written) / time``:
  ``copy`` (``dst.copy_(src)``, 1 read : 1 write), ``add`` (``torch.add(a, b, out=c)``, 2 reads : 1
  write) and ``sum`` (``x.sum()``, reads only). The memory ceiling is the fastest of them, named by
  :attr:`Ceilings.memory_stream`. A copy alone is not a ceiling: on the H200 (2026-11-29,
  docs/results.md) an elementwise kernel with 2 reads : 1 write moved 4345 GB/s while the copy
  reached 4128 GB/s, i.e. 105 % of the "measured ceiling", because read-heavy traffic gets more out
  of HBM than an even read/write mix. Each stream: median of 20 repetitions after 3 warm-ups, CUDA
  events, the L2 flushed (and a short spin queued) before each start event, the harness's timing
  helpers (:mod:`kernelopt.harness.timers`).
- matmul: ``A @ B`` with 8192 x 8192 operands, ``2 * n^3 / time``, median of 10 repetitions after 3
  warm-ups, for bf16, fp16, tf32 (fp32 inputs with TF32 allowed) and fp32 (TF32 off); fp8 e4m3 through
  ``torch._scaled_mm`` when the GPU and torch support it.

The measurement runs in a worker process (``python -m kernelopt.hardware.ceilings --measure OUT``), so
the orchestrator never imports torch. Results are cached per GPU name and driver version under
``$KERNELOPT_CACHE_DIR/ceilings/`` (default ``~/.cache/kernelopt/ceilings/``).
"""

from __future__ import annotations

import functools
import json
import os
import re
import sys
import tempfile
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from enum import StrEnum
from pathlib import Path
from typing import Annotated, Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from kernelopt.errors import CommandTimeout, EnvironmentProblem
from kernelopt.fileio import atomic_write_text
from kernelopt.proc import run_command

ENV_CACHE_DIR = "KERNELOPT_CACHE_DIR"
COPY_BYTES = 1024**3
COPY_REPS = 20
MATMUL_N = 8192
MATMUL_REPS = 10
WARMUP = 3
MEASURE_TIMEOUT_S = 600.0
EXIT_NO_GPU = 3


class BandwidthStream(StrEnum):
    """A memory stream timed for the bandwidth ceiling (buffers of ``copy_bytes`` each).

    ``copy``: ``dst.copy_(src)``, 1 read : 1 write; ``add``: ``torch.add(a, b, out=c)``, 2 reads : 1
    write; ``sum``: ``x.sum()``, reads only (the one-element result is counted as written).
    """

    COPY = "copy"
    ADD = "add"
    SUM = "sum"


#: How each stream moves memory, in words (CLI and report labels).
STREAM_TRAFFIC: dict[BandwidthStream, str] = {
    BandwidthStream.COPY: "1 read : 1 write",
    BandwidthStream.ADD: "2 reads : 1 write",
    BandwidthStream.SUM: "read only",
}


class Ceilings(BaseModel):
    """What the GPU delivers, measured.

    Attributes:
        gpu_name: the device name as torch reports it (``NVIDIA H200``).
        driver: the NVIDIA driver version (``580.159.04``), or the CUDA/HIP driver API version when
            nvidia-smi is absent; ``None`` when unknown.
        stream_gbps: bandwidth of each memory stream, GB/s (1e9 bytes/s), counting bytes read + bytes
            written; always holds ``copy``. A cache entry written before the read-heavy streams were
            measured (a top-level ``copy_gbps`` only) is read as ``{copy: copy_gbps}``.
        matmul_tflops: dense matmul TFLOP/s per dtype (``bf16``, ``fp16``, ``tf32``, ``fp32``, ``fp8``).
        measured_at: when.
        device_index: the CUDA device index measured.
        copy_bytes: size of each buffer of every bandwidth stream, bytes.
        matmul_n: matmul size (n x n times n x n).
        torch_version: torch used for the measurement.
        method: how the figures were obtained, in words.
    """

    model_config = ConfigDict(extra="forbid")

    gpu_name: str
    driver: str | None = None
    stream_gbps: dict[BandwidthStream, Annotated[float, Field(gt=0)]]
    matmul_tflops: dict[str, float] = Field(default_factory=dict)
    measured_at: datetime
    device_index: int = 0
    copy_bytes: int | None = None
    matmul_n: int | None = None
    torch_version: str | None = None
    method: str = (
        f"bandwidth: median of {COPY_REPS} passes of each stream over 1 GiB buffers (copy 1 read : 1 write, "
        "add 2 reads : 1 write, sum read only), (read + write) bytes / time, L2 flushed before each; "
        f"matmul: median of {MATMUL_REPS} {MATMUL_N}^3 GEMMs, 2 n^3 / time; CUDA events"
    )

    @model_validator(mode="before")
    @classmethod
    def _copy_only_entry(cls, data: Any) -> Any:
        """Read an older cache entry (``copy_gbps`` only) as a measurement of the copy stream alone."""
        if isinstance(data, Mapping) and "copy_gbps" in data and "stream_gbps" not in data:
            rest = {k: v for k, v in data.items() if k != "copy_gbps"}
            return {**rest, "stream_gbps": {BandwidthStream.COPY.value: data["copy_gbps"]}}
        return data

    @model_validator(mode="after")
    def _has_copy(self) -> Ceilings:
        if BandwidthStream.COPY not in self.stream_gbps:
            raise ValueError("stream_gbps must hold the copy stream")
        return self

    @property
    def copy_gbps(self) -> float:
        """Device-to-device copy bandwidth (1 read : 1 write), GB/s: the figure shown before read-heavy streams."""
        return self.stream_gbps[BandwidthStream.COPY]

    @property
    def memory_stream(self) -> BandwidthStream:
        """The stream that moved the most bytes per second (ties: the first in :class:`BandwidthStream` order)."""
        order = list(BandwidthStream)
        return max(self.stream_gbps, key=lambda s: (self.stream_gbps[s], -order.index(s)))

    @property
    def memory_gbps(self) -> float:
        """The memory bandwidth ceiling, GB/s: the fastest measured stream (:attr:`memory_stream`)."""
        return self.stream_gbps[self.memory_stream]

    @property
    def read_heavy_measured(self) -> bool:
        """False for an older cache entry that holds the copy stream only."""
        return len(self.stream_gbps) > 1


def cache_dir(env: dict[str, str] | None = None) -> Path:
    """``$KERNELOPT_CACHE_DIR/ceilings`` or ``~/.cache/kernelopt/ceilings``."""
    env = dict(os.environ) if env is None else env
    base = env.get(ENV_CACHE_DIR)
    root = Path(base).expanduser() if base else Path.home() / ".cache" / "kernelopt"
    return root / "ceilings"


def _slug(text: str) -> str:
    return re.sub(r"[^a-z0-9.]+", "-", text.strip().lower()).strip("-") or "unknown"


def cache_path(gpu_name: str, driver: str | None, folder: Path | None = None) -> Path:
    """The cache file of one GPU and driver."""
    return (folder or cache_dir()) / f"{_slug(gpu_name)}__{_slug(driver or 'unknown-driver')}.json"


def current_gpu(device_index: int = 0) -> tuple[str, str] | None:
    """(name, driver version) of GPU ``device_index`` from ``nvidia-smi``, or ``None`` when there is none."""
    try:
        res = run_command(
            [
                "nvidia-smi",
                f"--id={device_index}",
                "--query-gpu=name,driver_version",
                "--format=csv,noheader",
            ],
            timeout_s=30,
        )
    except (FileNotFoundError, PermissionError):
        return None
    if not res.ok:
        return None
    line = res.stdout.strip().splitlines()[0] if res.stdout.strip() else ""
    name, _, driver = line.partition(",")
    if not name.strip():
        return None
    return name.strip(), driver.strip() or "unknown-driver"


def _load(path: Path) -> Ceilings | None:
    try:
        return Ceilings.model_validate(json.loads(path.read_text(encoding="utf-8")))
    except (OSError, json.JSONDecodeError, ValidationError):
        return None  # a corrupt cache entry is as good as none: it will be measured again


def cached_ceilings(gpu_name: str | None = None) -> Ceilings | None:
    """The cached ceilings of ``gpu_name`` (default: the GPU nvidia-smi reports), or ``None``.

    With a known driver (the named GPU is the one in this machine) only that driver's entry counts;
    without one (no nvidia-smi, or another GPU named), the newest entry for that GPU name is used.
    """
    ident = current_gpu()
    if gpu_name is None:
        if ident is None:
            return None
        gpu_name = ident[0]
    driver = ident[1] if ident is not None and _slug(ident[0]) == _slug(gpu_name) else None
    folder = cache_dir()
    if driver is not None:
        path = cache_path(gpu_name, driver, folder)
        return _load(path) if path.is_file() else None
    found = [c for p in folder.glob(f"{_slug(gpu_name)}__*.json") if (c := _load(p)) is not None]
    return max(found, key=lambda c: c.measured_at) if found else None


def store_ceilings(ceilings: Ceilings) -> Path:
    """Write ``ceilings`` to the cache (atomically); returns the path."""
    path = cache_path(ceilings.gpu_name, ceilings.driver)
    atomic_write_text(path, ceilings.model_dump_json(indent=2) + "\n")
    return path


def measure_ceilings(device_index: int = 0, *, timeout_s: float = MEASURE_TIMEOUT_S) -> Ceilings:
    """Measure copy bandwidth and matmul rates of GPU ``device_index`` in a worker process, and cache them.

    Raises:
        EnvironmentProblem: no CUDA GPU, or the measurement failed.
        CommandTimeout: the worker ran past ``timeout_s`` and was killed.
    """
    from kernelopt.harness.runner import worker_env

    ident = current_gpu(device_index)
    with tempfile.TemporaryDirectory(prefix="kernelopt-ceilings-") as tmp:
        out = Path(tmp) / "ceilings.json"
        argv = [
            sys.executable,
            "-m",
            "kernelopt.hardware.ceilings",
            "--measure",
            str(out),
            "--device-index",
            str(device_index),
        ]
        res = run_command(argv, timeout_s=timeout_s, env=worker_env(os.environ, {}))
        if res.timed_out:
            raise CommandTimeout(argv, timeout_s, res.stdout, res.stderr)
        if res.returncode == EXIT_NO_GPU:
            raise EnvironmentProblem(
                res.stderr.strip().splitlines()[-1] if res.stderr.strip() else "no CUDA GPU",
                hint="run `kernelopt doctor` to check the setup",
            )
        if not res.ok or not out.is_file():
            raise EnvironmentProblem(
                f"ceilings measurement failed (exit {res.returncode}): {res.stderr_tail(3)}",
                hint="run `kernelopt doctor`",
            )
        data = json.loads(out.read_text(encoding="utf-8"))
    if ident is not None and _slug(ident[0]) == _slug(data["gpu_name"]):
        data["driver"] = ident[1]
    ceilings = Ceilings.model_validate(data)
    store_ceilings(ceilings)
    return ceilings


# -- worker side (imports torch) ---------------------------------------------------------------


def _median(xs: list[float]) -> float:
    s = sorted(xs)
    mid = len(s) // 2
    return s[mid] if len(s) % 2 else 0.5 * (s[mid - 1] + s[mid])


#: Takes ``reps`` timing samples of a callable after its warm-up; milliseconds per call.
Timer = Callable[[Callable[[], object], int], list[float]]


def cuda_timer(device: str, *, flush_l2: bool) -> Timer:
    """CUDA events around one call per sample, a spin queued before the start event (harness timers).

    With ``flush_l2`` the L2 is flushed before each sample, outside the timed window, by the harness's
    :class:`~kernelopt.harness.timers.L2Flusher`, so a stream never reads what the last pass left in L2.
    """
    import torch

    from kernelopt.harness.timers import SPIN_US, L2Flusher, spin

    flusher = L2Flusher(device) if flush_l2 else None

    def take(fn: Callable[[], object], reps: int) -> list[float]:
        for _ in range(WARMUP):
            fn()
        torch.cuda.synchronize()
        times = []
        for _ in range(reps):
            start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            if flusher is not None:
                flusher()
            spin(SPIN_US)
            start.record()
            fn()
            end.record()
            end.synchronize()
            times.append(float(start.elapsed_time(end)))
        return times

    return take


def cpu_timer(fn: Callable[[], object], reps: int) -> list[float]:
    """``time.perf_counter`` around one call per sample, milliseconds (the CPU path of the tests)."""
    for _ in range(WARMUP):
        fn()
    times = []
    for _ in range(reps):
        t0 = time.perf_counter()
        fn()
        times.append((time.perf_counter() - t0) * 1e3)
    return times


@dataclass
class StreamCase:
    """One bandwidth stream ready to time.

    Attributes:
        stream: which stream.
        run: one pass over the buffers.
        bytes_moved: bytes read + bytes written by one pass.
        buffers: the tensors the pass reads and writes (kept alive with the case).
    """

    stream: BandwidthStream
    run: Callable[[], object]
    bytes_moved: int
    buffers: tuple[Any, ...]


def _filled(n: int, device: str) -> Any:
    import torch

    return torch.empty(n, dtype=torch.float32, device=device).uniform_()


def _copy_case(n: int, device: str) -> StreamCase:
    src = _filled(n, device)
    dst = src.new_empty(n)
    return StreamCase(BandwidthStream.COPY, lambda: dst.copy_(src), src.nbytes + dst.nbytes, (src, dst))


def _add_case(n: int, device: str) -> StreamCase:
    import torch

    a, b = _filled(n, device), _filled(n, device)
    c = a.new_empty(n)
    return StreamCase(BandwidthStream.ADD, lambda: torch.add(a, b, out=c), a.nbytes + b.nbytes + c.nbytes, (a, b, c))


def _sum_case(n: int, device: str) -> StreamCase:
    x = _filled(n, device)
    return StreamCase(BandwidthStream.SUM, x.sum, x.nbytes + x.element_size(), (x,))


_STREAM_CASES: dict[BandwidthStream, Callable[[int, str], StreamCase]] = {
    BandwidthStream.COPY: _copy_case,
    BandwidthStream.ADD: _add_case,
    BandwidthStream.SUM: _sum_case,
}


def stream_case(stream: BandwidthStream, device: str, buffer_bytes: int) -> StreamCase:
    """Allocate and fill the fp32 buffers of ``stream`` (``buffer_bytes`` each, rounded down to 4 bytes)."""
    return _STREAM_CASES[stream](max(1, buffer_bytes // 4), device)


def measure_bandwidth(
    device: str,
    timer: Timer,
    *,
    buffer_bytes: int = COPY_BYTES,
    reps: int = COPY_REPS,
    streams: tuple[BandwidthStream, ...] = tuple(BandwidthStream),
) -> dict[BandwidthStream, float]:
    """GB/s (1e9 bytes/s) of each stream: (bytes read + bytes written) / median time of ``reps`` passes.

    One stream's buffers are freed before the next is allocated (at most three buffers at a time).

    Args:
        device: ``cuda``/``cuda:<i>`` (the ceiling) or ``cpu`` (tests).
        timer: takes the samples (:func:`cuda_timer` with the L2 flushed on a GPU).
        buffer_bytes: size of each buffer, bytes.
        reps: samples per stream.
        streams: which streams.
    """
    import torch

    out: dict[BandwidthStream, float] = {}
    for stream in streams:
        case = stream_case(stream, device, buffer_bytes)
        ms = _median(timer(case.run, reps))
        out[stream] = case.bytes_moved / (ms * 1e-3) / 1e9
        del case
        if device.startswith("cuda"):
            torch.cuda.empty_cache()
    return out


def measure_in_process(device_index: int = 0) -> dict[str, object]:
    """The measurement itself (needs torch and a CUDA GPU); returns the fields of :class:`Ceilings`."""
    import torch

    torch.cuda.set_device(device_index)
    dev = torch.device("cuda", device_index)
    streams = measure_bandwidth(str(dev), cuda_timer(str(dev), flush_l2=True))
    timed = cuda_timer(str(dev), flush_l2=False)

    n = MATMUL_N
    flop = 2.0 * n**3
    rates: dict[str, float] = {}
    old_tf32 = torch.backends.cuda.matmul.allow_tf32
    try:
        for name, dtype, tf32 in (
            ("bf16", torch.bfloat16, False),
            ("fp16", torch.float16, False),
            ("tf32", torch.float32, True),
            ("fp32", torch.float32, False),
        ):
            torch.backends.cuda.matmul.allow_tf32 = tf32
            a = torch.randn(n, n, device=dev, dtype=dtype)
            b = torch.randn(n, n, device=dev, dtype=dtype)
            ms = _median(timed(functools.partial(torch.mm, a, b), MATMUL_REPS))
            rates[name] = flop / (ms * 1e-3) / 1e12
            del a, b
    finally:
        torch.backends.cuda.matmul.allow_tf32 = old_tf32
    fp8 = getattr(torch, "float8_e4m3fn", None)
    scaled_mm = getattr(torch, "_scaled_mm", None)
    if fp8 is not None and scaled_mm is not None:
        a8 = torch.randn(n, n, device=dev).to(fp8)
        b8 = torch.randn(n, n, device=dev).to(fp8).t()  # column-major second operand, as _scaled_mm needs
        one = torch.ones((), device=dev)
        try:
            ms = _median(
                timed(lambda: scaled_mm(a8, b8, scale_a=one, scale_b=one, out_dtype=torch.bfloat16), MATMUL_REPS)
            )
            rates["fp8"] = flop / (ms * 1e-3) / 1e12
        except (RuntimeError, TypeError, ValueError):
            pass  # fp8 GEMM not supported on this GPU / build / signature: leave it out rather than guess
    driver_api = torch._C._cuda_getDriverVersion() if hasattr(torch._C, "_cuda_getDriverVersion") else None
    return {
        "gpu_name": torch.cuda.get_device_name(dev),
        "driver": f"cuda-driver-api-{driver_api}" if driver_api else None,
        "stream_gbps": {stream.value: gbps for stream, gbps in streams.items()},
        "matmul_tflops": rates,
        "measured_at": datetime.now(UTC).isoformat(),
        "device_index": device_index,
        "copy_bytes": COPY_BYTES,
        "matmul_n": n,
        "torch_version": torch.__version__,
    }


def _worker_main(argv: list[str]) -> int:
    import argparse

    parser = argparse.ArgumentParser(prog="python -m kernelopt.hardware.ceilings")
    parser.add_argument("--measure", required=True, type=Path, help="write the measured ceilings (JSON) here")
    parser.add_argument("--device-index", type=int, default=0)
    args = parser.parse_args(argv)
    import torch

    if not torch.cuda.is_available():
        sys.stderr.write("no CUDA GPU visible to torch: ceilings can only be measured on a GPU\n")
        return EXIT_NO_GPU
    data = measure_in_process(args.device_index)
    atomic_write_text(args.measure, json.dumps(data, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(_worker_main(sys.argv[1:]))
