"""The gate's timing of one kernel against its reference, in this process: a BENCH job of the worker's own code
(``run_job``), case 0 only, the reference untimed. For tests that stand in for part of the timers (a CUDA graph the CPU
plays) or run on a GPU."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from kernelopt.harness.model import BenchSettings, JobMode, KernelSource, WorkerJob, WorkerResult
from kernelopt.harness.progress import ProgressWriter
from kernelopt.harness.worker import run_job


def bench_job(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    reference: str,
    kernel: str,
    *,
    device: str = "cpu",
    case_timeout_s: float = 60.0,
    seconds_per_case: float = 0.01,
    time_reference: bool = False,
) -> WorkerResult:
    """``reference`` and ``kernel`` (their sources) written under ``tmp_path`` and timed on case 0."""
    monkeypatch.setenv("TRITON_CACHE_DIR", str(tmp_path / "triton"))  # run_job sets them; restored after
    monkeypatch.setenv("TORCH_EXTENSIONS_DIR", str(tmp_path / "ext"))
    (tmp_path / "reference.py").write_text(reference)
    (tmp_path / "kernel.py").write_text(kernel)
    job = WorkerJob(
        mode=JobMode.BENCH,
        device=device,
        reference_py=str(tmp_path / "reference.py"),
        kernels=[KernelSource(label="t", kernel_py=str(tmp_path / "kernel.py"), build_dir=str(tmp_path / "build"))],
        progress_path=str(tmp_path / "progress.jsonl"),
        result_path=str(tmp_path / "result.json"),
        cases=[0],
        case_timeout_s=case_timeout_s,
        bench=BenchSettings(seconds_per_case=seconds_per_case, time_reference=time_reference, compile_reference=False),
    )
    writer = ProgressWriter(tmp_path / "progress.jsonl", time.monotonic)
    try:
        return run_job(job, writer)
    finally:
        writer.close()


def failed_or_timed(res: WorkerResult, failed: str | None, method: object) -> list[str] | None:
    """``res`` failed with the timed path's mismatch (``failed``: the failure's start) and None is returned, or it
    passed timed by ``method``, its samples taken, and its timing's warnings are returned for the caller to read."""
    if failed is not None:
        assert res.failure is not None, res.timings
        said = f"{res.failure.error_class}: {res.failure.message}"
        assert said.startswith(failed) and "the timed path's output differed from the reference" in said, said
        return None
    assert res.failure is None, res.failure
    timing = res.timings[0].versions[-1]
    assert timing.method is method and timing.samples_us, timing
    return timing.warnings
