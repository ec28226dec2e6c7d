"""Row-wise KL divergence whose block is the row length rounded up to a power of two, capped by a
module constant; the kernel loops over the row, so any cap is correct and the cap is a knob (the
comment of such code often names the values worth trying)."""

import torch
import triton
import triton.language as tl

# 65536 would fit one block of a long row; 4096 or 8192 keep more blocks in flight
MAX_FUSED_SIZE = 65536


@triton.jit
def kl_div_kernel(p_ptr, q_ptr, out_ptr, stride, n_cols, BLOCK_SIZE: tl.constexpr):
    row = tl.program_id(0)
    total = 0.0
    for start in range(0, n_cols, BLOCK_SIZE):
        cols = start + tl.arange(0, BLOCK_SIZE)
        mask = cols < n_cols
        p = tl.load(p_ptr + row * stride + cols, mask=mask, other=1.0).to(tl.float32)
        q = tl.load(q_ptr + row * stride + cols, mask=mask, other=1.0).to(tl.float32)
        total += tl.sum(tl.where(mask, p * (tl.log(p) - tl.log(q)), 0.0), axis=0)
    tl.store(out_ptr + row, total)


def run(p, q):
    n_rows, n_cols = p.shape
    out = torch.empty(n_rows, device=p.device, dtype=torch.float32)
    BLOCK_SIZE = min(MAX_FUSED_SIZE, triton.next_power_of_2(n_cols))
    num_warps = 4 if BLOCK_SIZE <= 2048 else 8
    kl_div_kernel[(n_rows,)](p, q, out, p.stride(0), n_cols, BLOCK_SIZE=BLOCK_SIZE, num_warps=num_warps)
    return out
