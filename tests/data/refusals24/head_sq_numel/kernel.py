"""Sum of squares over each head of x (T, H, D), a QK-norm's reduction: ``ROWS`` tokens by ``HEADS`` heads a
program, each head in one block of ``BLOCK_D = triton.next_power_of_2(D)`` values (heads of at most 65536), the
tile ``(ROWS, HEADS, BLOCK_D)`` 2 x 2 x 65536 values at most, within Triton's 1048576."""

import torch
import triton
import triton.language as tl


@triton.jit
def _head_sq(x_ptr, y_ptr, T, H, D, ROWS: tl.constexpr, HEADS: tl.constexpr, BLOCK_D: tl.constexpr):
    t = tl.program_id(0) * ROWS + tl.arange(0, ROWS)
    h = tl.program_id(1) * HEADS + tl.arange(0, HEADS)
    d = tl.arange(0, BLOCK_D)
    acc = tl.zeros((ROWS, HEADS, BLOCK_D), dtype=tl.float32)
    mask = (t[:, None, None] < T) & (h[None, :, None] < H) & (d[None, None, :] < D)
    acc += tl.load(x_ptr + (t[:, None, None] * H + h[None, :, None]) * D + d[None, None, :], mask=mask, other=0.0)
    out = tl.sum(acc * acc, axis=2)
    tl.store(y_ptr + t[:, None] * H + h[None, :], out, mask=(t[:, None] < T) & (h[None, :] < H))


def run(x):
    T, H, D = x.shape
    assert D <= 65536, "one block a head"
    BLOCK_D = triton.next_power_of_2(D)
    ROWS, HEADS = 2, 2
    y = torch.empty(T, H, device=x.device, dtype=torch.float32)
    _head_sq[(triton.cdiv(T, ROWS), triton.cdiv(H, HEADS))](x, y, T, H, D, ROWS=ROWS, HEADS=HEADS, BLOCK_D=BLOCK_D)
    return y
