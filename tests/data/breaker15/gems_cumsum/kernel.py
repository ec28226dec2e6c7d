"""FlagGems' cumulative sum (flag_gems/ops/cumsum.py, the 2.x form): a tensor seen as (M, N, K) around the scanned
dimension, each program ``BLOCK_M`` rows of M for one k, the whole of N one block scanned by ``tl.cumsum(..., axis=1)``
on a 3-D tile; ``@triton.autotune`` of six configs (``BLOCK_M`` 8 / 16 / 32 x ``num_stages`` 4 / 5, ``num_warps=8``)
keyed on ``["M", "N"]`` OVER ``@triton.heuristics(values={"BLOCK_N": lambda args: next_power_of_2(args["N"])})``; the
masks joined by Python's ``and``; the grid ``lambda meta: (cdiv(M, meta["BLOCK_M"]), K)`` (K on axis 1); the
output ``torch.empty_like(inp, dtype=dtype)``, bools summed as int64."""

import torch
import triton
import triton.language as tl


@triton.autotune(
    configs=[
        triton.Config({"BLOCK_M": 8}, num_warps=8, num_stages=4),
        triton.Config({"BLOCK_M": 8}, num_warps=8, num_stages=5),
        triton.Config({"BLOCK_M": 16}, num_warps=8, num_stages=4),
        triton.Config({"BLOCK_M": 16}, num_warps=8, num_stages=5),
        triton.Config({"BLOCK_M": 32}, num_warps=8, num_stages=4),
        triton.Config({"BLOCK_M": 32}, num_warps=8, num_stages=5),
    ],
    key=[
        "M",
        "N",
    ],
)
@triton.heuristics(
    values={"BLOCK_N": lambda args: triton.next_power_of_2(args["N"])},
)
@triton.jit
def cumsum_kernel(
    inp,
    out,
    M,
    N,
    K,
    BLOCK_M: tl.constexpr,
    BLOCK_N: tl.constexpr,
):
    pid_m = tl.program_id(0)
    pid_k = tl.program_id(1)
    m_offset = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    n_offset = tl.arange(0, BLOCK_N)
    offset = m_offset[:, None, None] * N * K + n_offset[None, :, None] * K + pid_k
    mask = m_offset[:, None, None] < M and n_offset[None, :, None] < N
    inp_ptrs = inp + offset
    inp_vals = tl.load(inp_ptrs, mask=mask).to(tl.float32)
    result = tl.cumsum(inp_vals, axis=1)
    out_ptrs = out + offset
    tl.store(out_ptrs, result, mask=mask)


def cumsum(inp, dim=1, *, dtype=None):
    assert dim >= -inp.ndim and dim < inp.ndim, "Invalid dim"
    shape = inp.shape
    dim = dim % inp.ndim
    M = 1
    N = shape[dim]
    for i in range(dim):
        M *= shape[i]
    inp = inp.contiguous()
    K = inp.numel() // M // N

    if dtype is None:
        dtype = inp.dtype
        if dtype is torch.bool:
            dtype = torch.int64
    out = torch.empty_like(inp, dtype=dtype)

    grid = lambda meta: (  # noqa: E731
        triton.cdiv(M, meta["BLOCK_M"]),
        K,
    )
    cumsum_kernel[grid](inp, out, M, N, K)
    return out


def run(x):
    return cumsum(x, dim=1)
