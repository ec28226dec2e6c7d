"""A group-wise absmax scale (per-group quantization's first step, as fp8/int8 group quantizers do): each program
loads `BLOCK = 256` values, reshapes them into `BLOCK // GROUP` groups of `GROUP` values (`GROUP` the model's group
size, passed as a `tl.constexpr`) and divides each group by its absmax over 127; the group size a power of two up to
the block (`tl.reshape` needs `BLOCK // GROUP` whole groups): right at every group of 1 to 256 values."""

import torch
import triton
import triton.language as tl


@triton.jit
def group_scale(x_ptr, y_ptr, n, BLOCK: tl.constexpr, GROUP: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=0.0)
    groups = tl.reshape(x, (BLOCK // GROUP, GROUP))
    amax = tl.max(tl.abs(groups), axis=1)
    scale = tl.maximum(amax, 1e-6) / 127.0
    q = groups / scale[:, None]
    tl.store(y_ptr + offs, tl.reshape(q, (BLOCK,)), mask=mask)


def run(x, group_size):
    n = x.numel()
    assert n % group_size == 0
    y = torch.empty_like(x)
    BLOCK = 256
    group_scale[(triton.cdiv(n, BLOCK),)](x, y, n, BLOCK=BLOCK, GROUP=group_size)
    return y
