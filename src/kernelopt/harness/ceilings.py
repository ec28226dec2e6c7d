"""Measuring the ceilings of the GPU in this machine: memory bandwidth and dense matmul rate per dtype.

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

The measurement runs in a worker process (``python -m kernelopt.harness.ceilings --measure OUT``), so
the orchestrator never imports torch. Results are cached per GPU name and driver version under
``$KERNELOPT_CACHE_DIR/ceilings/`` (default ``~/.cache/kernelopt/ceilings/``).
The record and its cache are :mod:`kernelopt.hardware.ceilings`.
"""

from __future__ import annotations

import functools
import json
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from kernelopt.errors import CommandTimeout, EnvironmentProblem
from kernelopt.fileio import atomic_write_text
from kernelopt.hardware.ceilings import (
    COPY_REPS,
    MATMUL_N,
    MATMUL_REPS,
    BandwidthStream,
    Ceilings,
    current_gpu,
    same_gpu_name,
    store_ceilings,
)
from kernelopt.harness.runner import worker_env
from kernelopt.proc import exit_process, run_command

COPY_BYTES = 1024**3
WARMUP = 3
MEASURE_TIMEOUT_S = 600.0
EXIT_NO_GPU = 3


def measure_ceilings(device_index: int = 0, *, timeout_s: float = MEASURE_TIMEOUT_S) -> Ceilings:
    """Measure copy bandwidth and matmul rates of GPU ``device_index`` in a worker process, and cache them.

    Raises:
        EnvironmentProblem: no CUDA GPU, or the measurement failed.
        CommandTimeout: the worker ran past ``timeout_s`` and was killed.
    """
    ident = current_gpu(device_index)
    with tempfile.TemporaryDirectory(prefix="kernelopt-ceilings-") as tmp:
        out = Path(tmp) / "ceilings.json"
        argv = [
            sys.executable,
            "-m",
            "kernelopt.harness.ceilings",
            "--measure",
            str(out),
            "--device-index",
            str(device_index),
        ]
        res = run_command(argv, timeout_s=timeout_s, env=worker_env())
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
    if ident is not None and same_gpu_name(ident[0], data["gpu_name"]):
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

    from kernelopt.harness.timers import SPIN_US, L2Flusher, spin  # worker side: imports torch

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

    parser = argparse.ArgumentParser(prog="python -m kernelopt.harness.ceilings")
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
    exit_process(_worker_main(sys.argv[1:]))
