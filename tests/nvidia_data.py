"""Paths of the NVIDIA test data (reports are stored gzipped; they are unpacked once per session)."""

from __future__ import annotations

import gzip
import hashlib
import shutil
import tempfile
from pathlib import Path

NVIDIA = Path(__file__).parent / "data" / "nvidia"
STUB_NCU = NVIDIA / "stub_ncu.py"
OUTPUTS = NVIDIA / "ncu_outputs"
KERNELS = NVIDIA / "kernels"
H200_FIXTURES = ("softmax", "matmul", "small_grid", "uncoalesced", "bank_conflict", "register_spill")


def report(name: str) -> Path:
    """The unpacked ``tests/data/nvidia/<name>.ncu-rep`` (``name`` without suffix)."""
    packed = NVIDIA / f"{name}.ncu-rep.gz"
    digest = hashlib.sha1(packed.read_bytes()).hexdigest()[:12]
    folder = Path(tempfile.gettempdir()) / "kernelopt-test-reports" / digest
    target = folder / f"{name}.ncu-rep"
    if not target.is_file():
        folder.mkdir(parents=True, exist_ok=True)
        tmp = folder / f".{name}.tmp"
        with gzip.open(packed, "rb") as src, open(tmp, "wb") as dst:
            shutil.copyfileobj(src, dst)
        tmp.replace(target)
    return target


_RAW: dict[str, object] = {}


def raw_report(name: str):
    """The parsed report (read once per session, in a worker process).

    ncu_report 2025.3.1 crashes (SIGSEGV in ``IMetric.unit``) in a process that imported torch before it,
    and other tests import torch; kernelopt itself always reads reports in a worker for that reason.
    """
    from kernelopt.profiling.ncu_rep import read_ncu_rep_isolated

    if name not in _RAW:
        _RAW[name] = read_ncu_rep_isolated(report(name), artifact=f"{name}.ncu-rep")
    return _RAW[name]
