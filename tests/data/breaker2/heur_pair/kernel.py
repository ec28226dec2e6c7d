"""Row sum with a block and an evenness flag from @triton.heuristics, the second reading the first."""

import torch
import triton
import triton.language as tl


@triton.heuristics(
    {
        "BLOCK_N": lambda args: min(256, triton.next_power_of_2(args["N"])),
        "EVEN_N": lambda args: args["N"] % args["BLOCK_N"] == 0,
    }
)
@triton.jit
def _rowsum(x_ptr, y_ptr, N, BLOCK_N: tl.constexpr, EVEN_N: tl.constexpr):
    row = tl.program_id(0)
    acc = tl.zeros((BLOCK_N,), dtype=tl.float32)
    for start in range(0, N, BLOCK_N):
        cols = start + tl.arange(0, BLOCK_N)
        if EVEN_N:
            acc += tl.load(x_ptr + row * N + cols)
        else:
            acc += tl.load(x_ptr + row * N + cols, mask=cols < N, other=0.0)
    tl.store(y_ptr + row, tl.sum(acc, axis=0))


def run(x):
    M, N = x.shape
    y = torch.empty(M, device=x.device, dtype=torch.float32)
    _rowsum[(M,)](x, y, N)
    return y
