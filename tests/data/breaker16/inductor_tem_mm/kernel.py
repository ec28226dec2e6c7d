"""PyTorch Inductor's generated mm template (``triton_tem_fused_mm_0`` of a dynamic-shape compile, as
``TORCH_COMPILE_DEBUG`` writes it): the kernel's settings are constexprs BOUND IN ITS BODY (``GROUP_M : tl.constexpr =
8``, ``BLOCK_M : tl.constexpr = 64`` ...), never passed; the wrapper's module-level ``meta0`` dict repeats them and
only the grid reads it (``mm_grid(m, n, meta)``: ``(cdiv(m, meta["BLOCK_M"]) * cdiv(n, meta["BLOCK_N"]), 1, 1)``);
the sizes arrive as ``ks0, ks1, ks2``; the rows and columns wrapped by ``% M`` with ``tl.max_contiguous`` /
``tl.multiple_of`` hints, the K tail masked (``EVEN_K`` False), ``tl.dot(a, b, allow_tf32=ALLOW_TF32,
out_dtype=ACC_TYPE)``, the store through ``xindex``."""

import torch
import triton
import triton.language as tl

meta0 = {
    "GROUP_M": 8,
    "EVEN_K": False,
    "ALLOW_TF32": False,
    "ACC_TYPE": "tl.float32",
    "BLOCK_M": 64,
    "BLOCK_N": 64,
    "BLOCK_K": 32,
}


def mm_grid(m, n, meta):
    """The grid of Inductor's mm templates (torch/_inductor/kernel/mm_common.py)."""
    return (triton.cdiv(m, meta["BLOCK_M"]) * triton.cdiv(n, meta["BLOCK_N"]), 1, 1)


@triton.jit
def triton_tem_fused_mm_0(arg_A, arg_B, out_ptr0, ks0, ks1, ks2):
    GROUP_M: tl.constexpr = 8
    EVEN_K: tl.constexpr = False
    ALLOW_TF32: tl.constexpr = False
    ACC_TYPE: tl.constexpr = tl.float32
    BLOCK_M: tl.constexpr = 64
    BLOCK_N: tl.constexpr = 64
    BLOCK_K: tl.constexpr = 32
    A = arg_A
    B = arg_B

    M = ks0
    N = ks1
    K = ks2
    if M * N == 0:
        # early exit due to zero-size input(s)
        return
    stride_am = ks2
    stride_ak = 1
    stride_bk = ks1
    stride_bn = 1

    # based on triton.ops.matmul
    pid = tl.program_id(0)
    grid_m = (M + BLOCK_M - 1) // BLOCK_M
    grid_n = (N + BLOCK_N - 1) // BLOCK_N

    # re-order program ID for better L2 performance
    width = GROUP_M * grid_n
    group_id = pid // width
    group_size = min(grid_m - group_id * GROUP_M, GROUP_M)
    pid_m = group_id * GROUP_M + (pid % group_size)
    pid_n = (pid % width) // (group_size)

    rm = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    rn = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    if (stride_am == 1 and stride_ak == M) or (stride_am == K and stride_ak == 1):
        ram = tl.max_contiguous(tl.multiple_of(rm % M, BLOCK_M), BLOCK_M)
    else:
        ram = rm % M
    if (stride_bk == 1 and stride_bn == K) or (stride_bk == N and stride_bn == 1):
        rbn = tl.max_contiguous(tl.multiple_of(rn % N, BLOCK_N), BLOCK_N)
    else:
        rbn = rn % N
    rk = tl.arange(0, BLOCK_K)
    A = A + (ram[:, None] * stride_am + rk[None, :] * stride_ak)
    B = B + (rk[:, None] * stride_bk + rbn[None, :] * stride_bn)

    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=ACC_TYPE)
    for k in range(K, 0, -BLOCK_K):
        if EVEN_K:
            a = tl.load(A)
            b = tl.load(B)
        else:
            a = tl.load(A, mask=rk[None, :] < k, other=0.0)
            b = tl.load(B, mask=rk[:, None] < k, other=0.0)
        acc += tl.dot(a, b, allow_tf32=ALLOW_TF32, out_dtype=ACC_TYPE)
        A += BLOCK_K * stride_ak
        B += BLOCK_K * stride_bk

    # rematerialize rm and rn to save registers
    rm = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    rn = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    idx_m = rm[:, None]
    idx_n = rn[None, :]
    mask = (idx_m < M) & (idx_n < N)

    # inductor generates a suffix
    xindex = idx_n + (ks1 * idx_m)
    tl.store(out_ptr0 + (tl.broadcast_to(xindex, acc.shape)), acc, mask)


def call(arg0_1, arg1_1):
    s0, s2 = arg0_1.shape
    s1 = arg1_1.shape[1]
    buf0 = torch.empty((s0, s1), device=arg0_1.device, dtype=torch.float32)
    triton_tem_fused_mm_0[mm_grid(s0, s1, meta0)](arg0_1, arg1_1, buf0, s0, s1, s2)
    return (buf0,)


def run(a, b):
    return call(a.contiguous(), b.contiguous())[0]
