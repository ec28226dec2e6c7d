"""v151: v141's GEMM over block pointers with an int8 path (bp_int8_path), its block shapes bound to locals first,
``a_block = (BLOCK_M, BLOCK_K)`` and ``b_block = (BLOCK_K, BLOCK_N)`` passed as ``block_shape=a_block``, as kernels
that reuse a shape for a load and a store write them: the accumulator and the output int32 for int8 operands (``ACC
= tl.int32``, chosen by the launcher), the loads checking the rows of A and the columns of B, not K (``assert K % 32
== 0``), ``BLOCK_K = 32`` (a dot of 8-bit operands needs K >= 32 on a GPU, of 16- and 32-bit ones K >= 16). fp32 in
the entries; int8 as a quantized model calls it."""

import torch
import triton
import triton.language as tl


@triton.jit
def bp_matmul(a_ptr, b_ptr, c_ptr, M, N, K, stride_am, stride_ak, stride_bk, stride_bn, stride_cm, stride_cn,
              BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr, ACC: tl.constexpr):
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    a_block = (BLOCK_M, BLOCK_K)
    b_block = (BLOCK_K, BLOCK_N)
    a_blk = tl.make_block_ptr(a_ptr, shape=(M, K), strides=(stride_am, stride_ak), offsets=(pid_m * BLOCK_M, 0),
                              block_shape=a_block, order=(1, 0))
    b_blk = tl.make_block_ptr(b_ptr, shape=(K, N), strides=(stride_bk, stride_bn), offsets=(0, pid_n * BLOCK_N),
                              block_shape=b_block, order=(1, 0))
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=ACC)
    for _ in range(0, K, BLOCK_K):
        a = tl.load(a_blk, boundary_check=(0,), padding_option="zero")
        b = tl.load(b_blk, boundary_check=(1,), padding_option="zero")
        acc = tl.dot(a, b, acc, out_dtype=ACC)
        a_blk = tl.advance(a_blk, (0, BLOCK_K))
        b_blk = tl.advance(b_blk, (BLOCK_K, 0))
    c_blk = tl.make_block_ptr(c_ptr, shape=(M, N), strides=(stride_cm, stride_cn),
                              offsets=(pid_m * BLOCK_M, pid_n * BLOCK_N), block_shape=(BLOCK_M, BLOCK_N), order=(1, 0))
    tl.store(c_blk, acc, boundary_check=(0, 1))


def run(a, b):
    M, K = a.shape
    _, N = b.shape
    assert K % 32 == 0, "K must be a multiple of 32"
    integer = not a.dtype.is_floating_point
    c = torch.empty((M, N), device=a.device, dtype=torch.int32 if integer else torch.float32)
    grid = lambda META: (triton.cdiv(M, META["BLOCK_M"]), triton.cdiv(N, META["BLOCK_N"]))  # noqa: E731
    bp_matmul[grid](a, b, c, M, N, K, a.stride(0), a.stride(1), b.stride(0), b.stride(1), c.stride(0), c.stride(1),
                    BLOCK_M=16, BLOCK_N=16, BLOCK_K=32, ACC=tl.int32 if integer else tl.float32, num_warps=4)
    return c
