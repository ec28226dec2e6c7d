"""Measured ceilings of the GPU in this machine: copy bandwidth and dense matmul rate per dtype.

Spec-sheet peaks (:mod:`kernelopt.hardware.specs`) are what the vendor promises; these are what the
machine delivers, and what the stop condition compares a kernel with. On the H200 test machine
(2026-11-29, DESIGN.md) a device-to-device copy reached 4.25 TB/s (read + write) against 4.8 TB/s on
the datasheet, and bf16 GEMM 8192^3 about 715 TFLOP/s against 989.5 dense.

- copy: ``dst.copy_(src)`` of 1 GiB buffers, CUDA events, ``2 * bytes / time`` (read + write), median
  of 20 repetitions after 3 warm-up copies.
- matmul: ``A @ B`` with 8192 x 8192 operands, ``2 * n^3 / time``, median of 10 repetitions after 3
  warm-ups, for bf16, fp16, tf32 (fp32 inputs with TF32 allowed) and fp32 (TF32 off); fp8 e4m3 through
  ``torch._scaled_mm`` when the GPU and torch support it.

The measurement runs in a worker process (``python -m kernelopt.hardware.ceilings --measure OUT``), so
the orchestrator never imports torch. Results are cached per GPU name and driver version under
``$KERNELOPT_CACHE_DIR/ceilings/`` (default ``~/.cache/kernelopt/ceilings/``).
"""

from __future__ import annotations

import json
import os
import re
import sys
import tempfile
from datetime import UTC, datetime
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from kernelopt.errors import CommandTimeout, EnvironmentProblem
from kernelopt.memory.store import atomic_write_text
from kernelopt.proc import run_command

ENV_CACHE_DIR = "KERNELOPT_CACHE_DIR"
COPY_BYTES = 1024**3
COPY_REPS = 20
MATMUL_N = 8192
MATMUL_REPS = 10
WARMUP = 3
MEASURE_TIMEOUT_S = 600.0
EXIT_NO_GPU = 3


class Ceilings(BaseModel):
    """What the GPU delivers, measured.

    Attributes:
        gpu_name: the device name as torch reports it (``NVIDIA H200``).
        driver: the NVIDIA driver version (``580.159.04``), or the CUDA/HIP driver API version when
            nvidia-smi is absent; ``None`` when unknown.
        copy_gbps: device-to-device copy bandwidth, GB/s (1e9 bytes/s), counting read + write.
        matmul_tflops: dense matmul TFLOP/s per dtype (``bf16``, ``fp16``, ``tf32``, ``fp32``, ``fp8``).
        measured_at: when.
        device_index: the CUDA device index measured.
        copy_bytes: size of each copy buffer, bytes.
        matmul_n: matmul size (n x n times n x n).
        torch_version: torch used for the measurement.
        method: how the figures were obtained, in words.
    """

    model_config = ConfigDict(extra="forbid")

    gpu_name: str
    driver: str | None = None
    copy_gbps: float = Field(gt=0)
    matmul_tflops: dict[str, float] = Field(default_factory=dict)
    measured_at: datetime
    device_index: int = 0
    copy_bytes: int | None = None
    matmul_n: int | None = None
    torch_version: str | None = None
    method: str = (
        f"copy: median of {COPY_REPS} 1 GiB device-to-device copies, (read + write) bytes / time; "
        f"matmul: median of {MATMUL_REPS} {MATMUL_N}^3 GEMMs, 2 n^3 / time; CUDA events"
    )


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
            raise EnvironmentProblem(res.stderr.strip().splitlines()[-1] if res.stderr.strip() else "no CUDA GPU")
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


def _time_ms(fn: object, reps: int) -> list[float]:
    import torch

    assert callable(fn)
    for _ in range(WARMUP):
        fn()
    torch.cuda.synchronize()
    times = []
    for _ in range(reps):
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        fn()
        end.record()
        end.synchronize()
        times.append(float(start.elapsed_time(end)))
    return times


def measure_in_process(device_index: int = 0) -> dict[str, object]:
    """The measurement itself (needs torch and a CUDA GPU); returns the fields of :class:`Ceilings`."""
    import torch

    torch.cuda.set_device(device_index)
    dev = torch.device("cuda", device_index)
    src = torch.empty(COPY_BYTES // 4, dtype=torch.float32, device=dev).uniform_()
    dst = torch.empty_like(src)
    copy_ms = _median(_time_ms(lambda s=src, d=dst: d.copy_(s), COPY_REPS))
    copy_gbps = 2.0 * COPY_BYTES / (copy_ms * 1e-3) / 1e9
    del src, dst
    torch.cuda.empty_cache()

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
            ms = _median(_time_ms(lambda a=a, b=b: torch.mm(a, b), MATMUL_REPS))
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
                _time_ms(lambda: scaled_mm(a8, b8, scale_a=one, scale_b=one, out_dtype=torch.bfloat16), MATMUL_REPS)
            )
            rates["fp8"] = flop / (ms * 1e-3) / 1e12
        except (RuntimeError, TypeError, ValueError):
            pass  # fp8 GEMM not supported on this GPU / build / signature: leave it out rather than guess
    driver_api = torch._C._cuda_getDriverVersion() if hasattr(torch._C, "_cuda_getDriverVersion") else None
    return {
        "gpu_name": torch.cuda.get_device_name(dev),
        "driver": f"cuda-driver-api-{driver_api}" if driver_api else None,
        "copy_gbps": copy_gbps,
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
