"""The process's own fork server for CPU runs (kernelopt.worker.forkpool.shared_cpu_pool): which variables
give a run a server of its own, and that the gate's CPU runs are children of one server, each a fresh child."""

from __future__ import annotations

import os
from pathlib import Path

from kernelopt.harness.gate import check_files
from kernelopt.harness.runner import worker_env
from kernelopt.harness.settings import HarnessSettings
from kernelopt.worker.forkpool import import_key, shared_cpu_pool

from .conftest import KERNELS


def test_only_variables_read_after_the_imports_may_differ_from_the_servers() -> None:
    base = {"PATH": "/usr/bin", "TRITON_INTERPRET": "1", "HOME": "/a", "KERNELOPT_BENCH_S": "1", "TMPDIR": "/t"}
    late = base | {"HOME": "/b", "KERNELOPT_BENCH_S": "0.1", "TMPDIR": "/u", "MALLOC_PERTURB_": "128"}
    assert import_key(late) == import_key(base)
    for name, value in (("TRITON_INTERPRET", "0"), ("OMP_NUM_THREADS", "1"), ("PYTHONPATH", "/src")):
        assert import_key(base | {name: value}) != import_key(base)


def test_cpu_runs_are_fresh_children_of_one_server(tmp_path: Path) -> None:
    settings = HarnessSettings(device="cpu", seeds=1)
    for k in range(2):
        report = check_files(
            KERNELS / "add_kernel.py", KERNELS / "add_reference.py", tmp_path / f"state{k}", settings=settings
        )
        assert report.passed, report.message
    pool = shared_cpu_pool(worker_env(None, {"KERNELOPT_WORKER": "1"}, device="cpu"))
    assert pool is not None and pool.ready is not None
    assert pool.launches >= 2 and pool.ready.pid != os.getpid()
