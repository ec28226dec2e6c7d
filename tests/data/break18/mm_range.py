"""A plain fp16 matmul whose K loop sets its own pipeline depth (``tl.range(0, K, BLOCK_K, num_stages=2)``), launched
with ``num_warps=4, num_stages=4``, compiled for sm_90 by Triton 3.6.0 at ``M=N=128, K=256``, 64 x 64 x 32 tiles:
``mm_range_ns4_loop2.ttgir.gz`` (``kernelopt.harness.target_compile.target_launches``). Each operand's ring has 2
slots, the loop ``{tt.num_stages = 2 : i32}``, its copies one iteration ahead, its wgmma wait ``pendings = 1``: a
proper two-stage pipeline, read as racing under the launch's 4 before break18 b20 (tests/test_break18_cases.py)."""

import triton
import triton.language as tl


@triton.jit
def mm_kernel(a_ptr, b_ptr, c_ptr, M, N, K, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    rm = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
    rn = tl.program_id(1) * BLOCK_N + tl.arange(0, BLOCK_N)
    rk = tl.arange(0, BLOCK_K)
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in tl.range(0, K, BLOCK_K, num_stages=2):
        a_mask = (rm[:, None] < M) & ((k + rk)[None, :] < K)
        b_mask = ((k + rk)[:, None] < K) & (rn[None, :] < N)
        a = tl.load(a_ptr + rm[:, None] * K + (k + rk)[None, :], mask=a_mask, other=0.0)
        b = tl.load(b_ptr + (k + rk)[:, None] * N + rn[None, :], mask=b_mask, other=0.0)
        acc += tl.dot(a, b)
    tl.store(c_ptr + rm[:, None] * N + rn[None, :], acc.to(tl.float16), mask=(rm[:, None] < M) & (rn[None, :] < N))
