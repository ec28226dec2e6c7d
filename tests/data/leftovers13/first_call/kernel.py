"""A vector sum in two steps: each program stores its block's partial sum, then torch sums the partials. The
autotune list is keyed by n and names no reset_to_zero: on the first call at a new n the autotuner runs BLOCK=16
first, which writes a partial into every one of the cdiv(n, 16) slots, and the config it picks (a larger BLOCK)
overwrites only the first few; the rest keep the benchmark's partials, so the first call's sum is wrong and the
next call's right (break13's kernel, docs/faults.md)."""

import torch
import triton
import triton.language as tl


@triton.autotune(
    configs=[triton.Config({"BLOCK": b}, num_warps=4) for b in (16, 64, 256)],
    key=["n"],
)
@triton.jit
def partial_sum(x_ptr, parts_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs, mask=offs < n, other=0.0)
    tl.store(parts_ptr + pid, tl.sum(x, axis=0))


def run(x):
    n = x.numel()
    parts = torch.zeros(triton.cdiv(n, 16), dtype=torch.float32, device=x.device)
    partial_sum[lambda meta: (triton.cdiv(n, meta["BLOCK"]),)](x, parts, n)
    return parts.sum()
