"""A vector sum in two steps: each program adds its block's partial sum into its slot, then torch sums the partials.
The autotune list is keyed by n and names no reset_to_zero: on the first call at a new n the autotuner benchmarks each
config on the call's own (zeroed) partials, and every run adds into them, so the first call's sum is wrong whichever
config it picks, and the next call's (fresh zeros, the pick cached) right (break13's kernel, docs/faults.md). Its
first form stored the partials, wrong only when the pick was not BLOCK=16: on the H100 (2026-12-06) the autotuner
once picked BLOCK=16 and the first call was right."""

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
    tl.atomic_add(parts_ptr + pid, tl.sum(x, axis=0))


def run(x):
    n = x.numel()
    parts = torch.zeros(triton.cdiv(n, 16), dtype=torch.float32, device=x.device)
    partial_sum[lambda meta: (triton.cdiv(n, meta["BLOCK"]),)](x, parts, n)
    return parts.sum()
