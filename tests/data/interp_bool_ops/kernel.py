"""Python's ``and`` / ``or`` / ``not`` in a kernel body, as a GPU compile reads them: elementwise on blocks, a
constexpr's short circuit kept (``HAS_SKIP and tl.load(skip_ptr) > 0`` with ``skip_ptr`` None never loads), scalar
tensors joined as blocks are (``n > 0 and n < 1 << 30``: ``n > 0 and n`` compiles for no GPU, an int32 joined by
``logical_and``)."""

import torch
import triton
import triton.language as tl


@triton.jit
def _bool_ops(x_ptr, out_ptr, skip_ptr, n, lo, hi, HAS_SKIP: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    inside = offs < n
    x = tl.load(x_ptr + offs, mask=inside, other=0.0)
    outer = offs < lo or offs >= hi
    keep = not outer
    if HAS_SKIP and tl.load(skip_ptr) > 0:
        x = x * 0.0
    n_pos = n > 0 and n < 1 << 30
    x = tl.where(keep and inside, x * 2.0, x)
    tl.store(out_ptr + offs, x + n_pos * 0, mask=inside)


def run(x):
    n = x.numel()
    out = torch.empty_like(x)
    _bool_ops[(1,)](x, out, None, n, n // 4, n - n // 4, HAS_SKIP=False, BLOCK=triton.next_power_of_2(n))
    return out
