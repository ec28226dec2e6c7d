"""Measured ceilings of the GPU in this machine: the record and its cache.

Spec-sheet peaks (:mod:`kernelopt.hardware.specs`) are what the vendor promises; measured ceilings are
what the machine delivers, and what the stop condition compares a kernel with. This module owns the
:class:`Ceilings` record (memory bandwidth per stream, dense matmul rate per dtype) and its cache per
GPU name and driver version under ``$KERNELOPT_CACHE_DIR/ceilings/`` (default
``~/.cache/kernelopt/ceilings/``). The measurement itself, which uses the harness's worker and timers,
lives in :mod:`kernelopt.harness.ceilings`.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from datetime import datetime
from enum import StrEnum
from pathlib import Path
from typing import Annotated, Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from kernelopt.env import EnvSettings
from kernelopt.fileio import atomic_write_text
from kernelopt.proc import run_command

COPY_REPS = 20
MATMUL_N = 8192
MATMUL_REPS = 10


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
    base = EnvSettings.read(env).cache_dir
    root = base if base is not None else Path.home() / ".cache" / "kernelopt"
    return root / "ceilings"


def _slug(text: str) -> str:
    return re.sub(r"[^a-z0-9.]+", "-", text.strip().lower()).strip("-") or "unknown"


def same_gpu_name(a: str, b: str) -> bool:
    """Whether two GPU names name the same GPU as the cache keys them (case, spaces and punctuation ignored)."""
    return _slug(a) == _slug(b)


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
    driver = ident[1] if ident is not None and same_gpu_name(ident[0], gpu_name) else None
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
