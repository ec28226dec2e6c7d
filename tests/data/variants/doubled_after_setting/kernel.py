"""v130 (late39, l73): a vector doubled in tiles of a computed BLOCK, whose launcher doubles `n` after the setting is
computed (`n = n * 2`): a tuned table's rows stand where `n` is half the size the launch reads and records."""

import torch
import triton
import triton.language as tl


@triton.jit
def double(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(y_ptr + offs, tl.load(x_ptr + offs, mask=mask) * 2, mask=mask)


def run(x):
    n = x.shape[0] // 2
    BLOCK = min(triton.next_power_of_2(n), 1024)
    n = n * 2
    y = torch.empty_like(x)
    double[(triton.cdiv(n, BLOCK),)](x, y, n, BLOCK=BLOCK)
    return y
