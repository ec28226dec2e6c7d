"""The environment of a worker process: :func:`worker_env`.

One place builds what every child of kernelopt gets (the harness's workers, the tuning engine's bench and
compile workers, the fork servers, profiler runs): this kernelopt first on ``PYTHONPATH``, Python's fault
handler on, output unbuffered, no bytecode, and Triton's interpreter for a worker on the CPU.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path

import kernelopt
from kernelopt.env import TRITON_INTERPRET, inherited
from kernelopt.vocabulary import Device


def worker_env(
    base: Mapping[str, str] | None = None, extra: Mapping[str, str] | None = None, *, device: str | None = None
) -> dict[str, str]:
    """A worker's environment: ``base`` (default: this process's) plus ``extra``, this kernelopt first on
    ``PYTHONPATH`` (the child imports the parent's kernelopt, a source checkout included), Python's fault
    handler on (a segfault prints its Python stack to the log), output unbuffered, no bytecode written.
    On ``device="cpu"`` (``--device cpu``) Triton kernels run in Triton's interpreter: ``TRITON_INTERPRET=1``,
    whatever ``base`` says (``TRITON_INTERPRET=0`` left in a shell would make Triton find "0 active drivers" and
    every Triton candidate fail). On ``device="cuda"`` they are compiled: ``TRITON_INTERPRET`` is dropped
    (``TRITON_INTERPRET=1`` left in a shell, or set by a test for its own checks, ran every candidate of a
    ``--device cuda`` tune in the interpreter on device tensors, without kernelopt's fixes to it: all 145 failed,
    the kernel as written too; H200, 2026-12-05).

    On the CPU, torch (and numpy's BLAS under Triton's interpreter) get one thread (:data:`CPU_THREADS`) unless
    ``OMP_NUM_THREADS`` is set: the kernel, the reference and every candidate are timed alike, and steadily.
    """
    env = inherited() if base is None else dict(base)
    pkg_parent = str(Path(kernelopt.__file__).resolve().parent.parent)
    parts = [pkg_parent] + [p for p in env.get("PYTHONPATH", "").split(os.pathsep) if p and p != pkg_parent]
    env["PYTHONPATH"] = os.pathsep.join(parts)
    env["PYTHONFAULTHANDLER"] = "1"
    env["PYTHONUNBUFFERED"] = "1"
    env["PYTHONDONTWRITEBYTECODE"] = "1"
    kind = Device.of(device) if device is not None else None
    if kind is Device.CPU:
        env[TRITON_INTERPRET] = "1"
        env.setdefault(OMP_NUM_THREADS, CPU_THREADS)
    elif kind is Device.CUDA:
        env.pop(TRITON_INTERPRET, None)
    env.update(extra or {})
    return env


OMP_NUM_THREADS = "OMP_NUM_THREADS"
CPU_THREADS = "1"
"""A CPU worker's threads when ``OMP_NUM_THREADS`` is not set. Our choice, measured on the shared 2-core CI machine
(load 5-10, 2026-12-05): ``validate --device cpu`` of ``torch.softmax`` on 2 x 16 elements gave medians of 2.5 us,
4.2 us and 20,010 us (95 % interval 19,980-23,000 us: each call waited a scheduler slice for torch's second
OpenMP thread) in three runs with torch's default of 2 threads; with 1 thread, 1.15-1.28 us in four runs of 400
samples each, the interquartile range under 0.32 us. The reference is timed in the same worker, so a speedup
over it compares like with like."""
