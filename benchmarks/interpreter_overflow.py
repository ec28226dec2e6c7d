#!/usr/bin/env python3
"""Triton's interpreter before and after two cuts of its own repeated work (suite22 s10, s11).

s10: Triton 3.6's interpreter runs every integer ``+``, ``-`` and ``*`` a second time in int64 and compares the
result with the type's bounds for an assertion its ``device_assert`` skips (the interpreter's ``debug`` is always
off); kernelopt's interpreter fixes turn that sanitizer off where nothing checks it. s11: a call of a helper of
``triton.language.standard`` (``tl.max``, ``tl.sum``) inside a launch read the whole of ``triton.language.core`` again
to patch it (``inspect.getmembers``), though the launch's first such call had patched it already; now only the first
does (:func:`kernelopt.harness.interpreter.patch_interpreter`). Two kernels of the tests' kind (a tiled GEMM whose
offsets are integer arithmetic, tests/data/suite22's row softmax over a loop of blocks) run in this one process as
before (both off), with s10 and with both, in turn, each the same number of calls; the outputs must be equal bit for
bit. Prints a table: CPU-s per call each way and the ratio of the last to the first. Run with ``OMP_NUM_THREADS=1``
as the workers do.

    python benchmarks/interpreter_overflow.py [--calls N]
"""

from __future__ import annotations

import argparse
import dataclasses
import importlib.util
import os
import sys
import time
from pathlib import Path

os.environ["TRITON_INTERPRET"] = "1"
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))

import torch
import triton
import triton.language as tl
import triton.runtime.interpreter as interp

from kernelopt.harness.interpreter import patch_interpreter

ROOT = Path(__file__).resolve().parents[1]


@triton.jit
def matmul_kernel(a, b, c, M, N, K, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    pid = tl.program_id(0)
    n_tiles = tl.cdiv(N, BN)
    rm = (pid // n_tiles) * BM + tl.arange(0, BM)
    rn = (pid % n_tiles) * BN + tl.arange(0, BN)
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k0 in range(0, K, BK):
        rk = k0 + tl.arange(0, BK)
        x = tl.load(a + rm[:, None] * K + rk[None, :], mask=(rm[:, None] < M) & (rk[None, :] < K), other=0.0)
        y = tl.load(b + rk[:, None] * N + rn[None, :], mask=(rk[:, None] < K) & (rn[None, :] < N), other=0.0)
        acc += tl.dot(x, y)
    tl.store(c + rm[:, None] * N + rn[None, :], acc, mask=(rm[:, None] < M) & (rn[None, :] < N))


def _gemm() -> tuple[str, object]:
    g = torch.Generator().manual_seed(0)
    m, n, k = 200, 130, 96
    a, b = torch.randn(m, k, generator=g), torch.randn(k, n, generator=g)
    c = torch.empty(m, n)

    def call() -> torch.Tensor:
        matmul_kernel[(triton.cdiv(m, 32) * triton.cdiv(n, 32),)](a, b, c, m, n, k, BM=32, BN=32, BK=32)
        return c.clone()

    return f"GEMM {m}x{n}x{k}, 32x32x32 tiles", call


def _softmax() -> tuple[str, object]:
    path = ROOT / "tests" / "data" / "suite22" / "rows" / "kernel.py"
    spec = importlib.util.spec_from_file_location("suite22_rows", path)
    assert spec is not None and spec.loader is not None
    rows = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(rows)
    x = torch.randn(32, 1000, generator=torch.Generator().manual_seed(1))
    return "row softmax 32x1000, blocks of 32", lambda: rows.run(x)


def _repatching(patch_lang: object) -> object:
    """kernelopt's ``_patch_lang`` as it was before s11: a helper's language was never added to what its launch had
    patched (the launch's record, the closure's ``patched``, put back after each helper's call)."""
    cells = dict(zip(patch_lang.__code__.co_freevars, patch_lang.__closure__ or (), strict=True))  # type: ignore[attr-defined]
    patched = cells["patched"].cell_contents

    def before(fn: object) -> object:
        kept = patched[-1] if patched else None
        try:
            return patch_lang(fn)  # type: ignore[operator]
        finally:
            if kept is not None:
                patched[-1] = kept

    return before


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--calls", type=int, default=3)
    args = parser.parse_args()
    patch_interpreter()
    builder = interp.interpreter_builder
    unasserted = builder.options
    sanitized = dataclasses.replace(unasserted, sanitize_overflow=True)
    patch_lang = interp._patch_lang
    ways = {
        "before": (sanitized, _repatching(patch_lang)),
        "s10": (unasserted, _repatching(patch_lang)),
        "s10+s11": (unasserted, patch_lang),
    }
    print(f"Triton {triton.__version__}; interpreter debug={unasserted.debug}; {args.calls} calls each way, in turn")
    print(f"{'kernel':40} " + " ".join(f"{name + ' CPU-s':>15}" for name in ways) + f" {'last/first':>11}")
    for label, call in (_gemm(), _softmax()):
        spent = dict.fromkeys(ways, 0.0)
        outs: dict[str, torch.Tensor] = {}
        call()  # the first call's one-time work (the kernel's source read and rewritten) off the clock
        for _ in range(args.calls):
            for name, (options, patching) in ways.items():
                builder.options, interp._patch_lang = options, patching
                t0 = time.process_time()
                outs[name] = call()
                spent[name] += time.process_time() - t0
        builder.options, interp._patch_lang = unasserted, patch_lang
        if any(not torch.equal(outs["before"], out) for out in outs.values()):
            print(f"{label}: the outputs differ", file=sys.stderr)
            return 1
        per = [spent[name] / args.calls for name in ways]
        print(f"{label:40} " + " ".join(f"{v:15.3f}" for v in per) + f" {per[-1] / per[0]:11.2f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
