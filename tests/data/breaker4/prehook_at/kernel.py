"""Sum of squares by atomic adds into an output each config zeroes in its pre_hook (run allocates it empty, and the
autotuner runs the kernel many times while timing); the autotune has its own warmup and rep."""

import torch
import triton
import triton.language as tl


def _zero_out(nargs):
    nargs["out_ptr"].zero_()


@triton.autotune(
    configs=[
        triton.Config({"BLOCK": 64}, num_warps=2, pre_hook=_zero_out),
        triton.Config({"BLOCK": 256}, num_warps=4, pre_hook=_zero_out),
    ],
    key=["n"],
    warmup=5,
    rep=20,
)
@triton.jit
def _sumsq(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs, mask=offs < n, other=0.0)
    tl.atomic_add(out_ptr, tl.sum(x * x, axis=0))


def run(x):
    n = x.numel()
    out = torch.empty(1, device=x.device, dtype=torch.float32)  # zeroed by the pre_hook
    _sumsq[lambda meta: (triton.cdiv(n, meta["BLOCK"]),)](x, out, n)
    return out
