"""A router's logits (a few expert scores per token, ``x @ w.T`` with ``w`` of ``NUM_OUT`` rows), written with
Triton 3.x's loop hints: the K loop is ``tl.range(0, K, BLOCK_K, loop_unroll_factor=UNROLL)`` (the compiler
unrolls it ``UNROLL`` times), the outputs ``tl.static_range(NUM_OUT)`` (unrolled at compile time, one accumulator
column each, gathered with ``tl.where``); the grid ``lambda META`` reads ``BLOCK_M``. ``NUM_OUT`` is the number of
experts (the reference's), a power of two."""

import torch
import triton
import triton.language as tl


@triton.jit
def _router_logits_kernel(x_ptr, w_ptr, out_ptr, M, K, stride_xm, stride_wn,
                          NUM_OUT: tl.constexpr, BLOCK_M: tl.constexpr, BLOCK_K: tl.constexpr,
                          UNROLL: tl.constexpr):
    pid = tl.program_id(0)
    offs_m = pid * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_o = tl.arange(0, NUM_OUT)
    acc = tl.zeros((BLOCK_M, NUM_OUT), dtype=tl.float32)
    for k0 in tl.range(0, K, BLOCK_K, loop_unroll_factor=UNROLL):
        offs_k = k0 + tl.arange(0, BLOCK_K)
        x = tl.load(x_ptr + offs_m[:, None] * stride_xm + offs_k[None, :],
                    mask=(offs_m[:, None] < M) & (offs_k[None, :] < K), other=0.0).to(tl.float32)
        for o in tl.static_range(NUM_OUT):
            w = tl.load(w_ptr + o * stride_wn + offs_k, mask=offs_k < K, other=0.0).to(tl.float32)
            part = tl.sum(x * w[None, :], axis=1)
            acc += tl.where(offs_o[None, :] == o, part[:, None], 0.0)
    tl.store(out_ptr + offs_m[:, None] * NUM_OUT + offs_o[None, :], acc, mask=offs_m[:, None] < M)


def run(x, w):
    M, K = x.shape
    num_out = w.shape[0]
    out = torch.empty((M, num_out), device=x.device, dtype=torch.float32)
    grid = lambda META: (triton.cdiv(M, META["BLOCK_M"]),)  # noqa: E731
    _router_logits_kernel[grid](x, w, out, M, K, x.stride(0), w.stride(0), NUM_OUT=num_out,
                                BLOCK_M=16, BLOCK_K=64, UNROLL=2, num_warps=4)
    return out
