"""Row sums, BLOCK_M rows a program, the rows a heuristic that falls as the rows grow (``max(1, 1024 //
next_power_of_2(N))``: a program holds about 1024 elements), each row covered by one block ``BLOCK_N =
next_power_of_2(N)`` from the launcher."""

import torch
import triton
import triton.language as tl


@triton.heuristics({"BLOCK_M": lambda args: max(1, 1024 // triton.next_power_of_2(args["N"]))})
@triton.jit
def _rows_sum(x_ptr, y_ptr, R, N, BLOCK_N: tl.constexpr, BLOCK_M: tl.constexpr):
    rows = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
    cols = tl.arange(0, BLOCK_N)
    mask = (rows[:, None] < R) & (cols[None, :] < N)
    v = tl.load(x_ptr + rows[:, None] * N + cols[None, :], mask=mask, other=0.0)
    tl.store(y_ptr + rows, tl.sum(v, axis=1), mask=rows < R)


def run(x):
    R, N = x.shape
    y = torch.empty(R, device=x.device, dtype=x.dtype)
    grid = lambda meta: (triton.cdiv(R, meta["BLOCK_M"]),)  # noqa: E731
    _rows_sum[grid](x, y, R, N, BLOCK_N=triton.next_power_of_2(N))
    return y
