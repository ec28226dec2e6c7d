"""SwiGLU forward, c = silu(a) * b over (M, N): ROWS rows and BLOCK_N columns a program; the column block and the
warps from a ``calculate_settings`` helper that refuses rows wider than MAX_FUSED_SIZE; the output dtype a
constexpr; the grid a lambda reading two META keys."""

import torch
import triton
import triton.language as tl

MAX_FUSED_SIZE = 65536
_TL_DTYPE = {torch.float32: tl.float32, torch.float16: tl.float16, torch.bfloat16: tl.bfloat16}


def calculate_settings(n):
    BLOCK_SIZE = triton.next_power_of_2(n)
    if BLOCK_SIZE > MAX_FUSED_SIZE:
        raise RuntimeError(f"cannot launch a block of {n} columns: the maximum is {MAX_FUSED_SIZE}")
    num_warps = 4
    if BLOCK_SIZE >= 32768:
        num_warps = 32
    elif BLOCK_SIZE >= 8192:
        num_warps = 16
    elif BLOCK_SIZE >= 2048:
        num_warps = 8
    return BLOCK_SIZE, num_warps


@triton.jit
def _swiglu_fwd(a_ptr, b_ptr, c_ptr, M, N, OUT_DTYPE: tl.constexpr, ROWS: tl.constexpr, BLOCK_N: tl.constexpr):
    rows = tl.program_id(0) * ROWS + tl.arange(0, ROWS)
    cols = tl.program_id(1) * BLOCK_N + tl.arange(0, BLOCK_N)
    mask = (rows[:, None] < M) & (cols[None, :] < N)
    offs = rows[:, None] * N + cols[None, :]
    a = tl.load(a_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    b = tl.load(b_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    c = a * tl.sigmoid(a) * b
    tl.store(c_ptr + offs, c.to(OUT_DTYPE), mask=mask)


def run(a, b):
    M, N = a.shape
    c = torch.empty_like(a)
    BLOCK_N, num_warps = calculate_settings(N)
    grid = lambda META: (triton.cdiv(M, META["ROWS"]), triton.cdiv(N, META["BLOCK_N"]))  # noqa: E731
    _swiglu_fwd[grid](a, b, c, M, N, OUT_DTYPE=_TL_DTYPE[a.dtype], ROWS=2, BLOCK_N=BLOCK_N, num_warps=num_warps)
    return c
