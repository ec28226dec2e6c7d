#!/usr/bin/env python3
"""Triton's interpreter with and without the overflow sanitizer that ``device_assert`` drops unread (suite22 s10).

Triton 3.6's interpreter runs every integer ``+``, ``-`` and ``*`` a second time in int64 and compares the result
with the type's bounds for an assertion its ``device_assert`` skips (the interpreter's ``debug`` is always off);
kernelopt's interpreter fixes turn that sanitizer off where nothing checks it
(:func:`kernelopt.harness.interpreter.patch_interpreter`). Two kernels of the tests' kind (a tiled GEMM whose offsets
are integer arithmetic, a row softmax over a loop of blocks) run in this one process with the sanitizer on (Triton's
own, "before") and off ("after"), alternating, each the same number of calls; the outputs must be equal bit for bit.
Prints a table: CPU-s per call before and after, and the ratio.

    python benchmarks/interpreter_overflow.py [--calls N]
"""

from __future__ import annotations

import argparse
import dataclasses
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


@triton.jit
def softmax_kernel(x, y, n_cols, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    biggest = -float("inf")
    for start in range(0, n_cols, BLOCK):
        cols = start + tl.arange(0, BLOCK)
        v = tl.load(x + row * n_cols + cols, mask=cols < n_cols, other=-float("inf"))
        biggest = tl.maximum(biggest, tl.max(v, 0))
    total = 0.0
    for start in range(0, n_cols, BLOCK):
        cols = start + tl.arange(0, BLOCK)
        v = tl.load(x + row * n_cols + cols, mask=cols < n_cols, other=-float("inf"))
        total += tl.sum(tl.exp(v - biggest), 0)
    for start in range(0, n_cols, BLOCK):
        cols = start + tl.arange(0, BLOCK)
        v = tl.load(x + row * n_cols + cols, mask=cols < n_cols, other=-float("inf"))
        tl.store(y + row * n_cols + cols, tl.exp(v - biggest) / total, mask=cols < n_cols)


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
    x = torch.randn(64, 1000, generator=torch.Generator().manual_seed(1))
    y = torch.empty_like(x)

    def call() -> torch.Tensor:
        softmax_kernel[(x.shape[0],)](x, y, x.shape[1], BLOCK=256)
        return y.clone()

    return "row softmax 64x1000, blocks of 256", call


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--calls", type=int, default=3)
    args = parser.parse_args()
    patch_interpreter()
    builder = interp.interpreter_builder
    after = builder.options
    before = dataclasses.replace(after, sanitize_overflow=True)
    print(f"Triton {triton.__version__}; interpreter debug={after.debug}; {args.calls} calls each, alternating")
    print(f"{'kernel':40} {'before CPU-s/call':>18} {'after CPU-s/call':>17} {'after/before':>13}")
    for label, call in (_gemm(), _softmax()):
        spent = {"before": 0.0, "after": 0.0}
        outs: dict[str, torch.Tensor] = {}
        call()  # the first call's one-time work (the kernel's source read and rewritten) off the clock
        for _ in range(args.calls):
            for name, options in (("before", before), ("after", after)):
                builder.options = options
                t0 = time.process_time()
                outs[name] = call()
                spent[name] += time.process_time() - t0
        builder.options = after
        if not torch.equal(outs["before"], outs["after"]):
            print(f"{label}: the outputs differ with the sanitizer off", file=sys.stderr)
            return 1
        b, a = spent["before"] / args.calls, spent["after"] / args.calls
        print(f"{label:40} {b:18.3f} {a:17.3f} {a / b:13.2f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
