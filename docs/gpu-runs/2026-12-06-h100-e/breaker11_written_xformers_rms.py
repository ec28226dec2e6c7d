"""xformers' Triton RMS norm forward (``_rms_norm_kernel`` behind ``xformers.ops.rms_norm``): one program a row of
the input flattened to 2-D (``x.reshape(-1, x.shape[-1])``), two loops over the row in ``BLOCK_SIZE`` steps (the sum
of squares, then the scaled store) with ``eviction_policy`` hints; ``N_COLS`` a constexpr, ``INCLUDE_WEIGHT`` a
flag. The block is assigned three times in a row: ``min(MAX_FUSED_SIZE, next_power_of_2(N))`` with
``MAX_FUSED_SIZE = 65536 // x.element_size()``, then ``max(BLOCK_SIZE, 128)``, then ``min(BLOCK_SIZE, 8192)``;
``num_warps = min(max(BLOCK_SIZE // 256, 1), 8)``; the launch inside ``with torch.cuda.device(x.device):``."""

import torch
import triton
import triton.language as tl


@triton.jit
def _rms_norm_kernel(
    x_ptr,
    h1_ptr,
    w_ptr,
    eps,
    stride,
    N_COLS: tl.constexpr,
    BLOCK_SIZE: tl.constexpr,
    INCLUDE_WEIGHT: tl.constexpr,
):
    row = tl.program_id(0).to(tl.int64)
    x_ptr += row * stride
    h1_ptr += row * stride

    _mean = tl.zeros([BLOCK_SIZE], dtype=tl.float32)
    for offset in range(0, N_COLS, BLOCK_SIZE):
        cols = offset + tl.arange(0, BLOCK_SIZE)
        a = tl.load(x_ptr + cols, mask=cols < N_COLS, other=0.0, eviction_policy="evict_last").to(tl.float32)
        _mean += a * a
    rstd = tl.rsqrt((tl.sum(_mean, axis=0) / N_COLS) + eps)
    for offset in range(0, N_COLS, BLOCK_SIZE):
        cols = offset + tl.arange(0, BLOCK_SIZE)
        mask = cols < N_COLS
        a = tl.load(x_ptr + cols, mask=mask, other=0.0, eviction_policy="evict_first").to(tl.float32)
        if INCLUDE_WEIGHT:
            w = tl.load(w_ptr + cols, mask=mask)
            x_hat = (a * rstd) * w
        else:
            x_hat = a * rstd
        tl.store(h1_ptr + cols, x_hat, mask=mask)


def _rms_norm_forward(x, attn_norm_weights, eps):
    if not x.is_contiguous():
        raise ValueError("data must be contiguous")
    if attn_norm_weights is not None:
        if not attn_norm_weights.is_contiguous():
            raise ValueError("weights must be contiguous")
    out = torch.empty_like(x)
    x_arg = x.reshape(-1, x.shape[-1])
    M, N = x_arg.shape
    # the block: a whole row up to 64 KB, at least 128 and at most 8192 values
    MAX_FUSED_SIZE = 65536 // x.element_size()
    BLOCK_SIZE = min(MAX_FUSED_SIZE, triton.next_power_of_2(N))
    BLOCK_SIZE = max(BLOCK_SIZE, 128)
    BLOCK_SIZE = min(BLOCK_SIZE, 8192)
    if N <= 100:  # kernelopt: tuned
        BLOCK_SIZE = 64
    elif N <= 777:  # kernelopt: tuned
        BLOCK_SIZE = 256
    num_warps = min(max(BLOCK_SIZE // 256, 1), 8)
    with torch.cuda.device(x.device):
        num_stages = 3
        if N <= 9000:  # kernelopt: tuned
            num_stages = 6
        _rms_norm_kernel[(M,)](
            x_arg,
            out,
            attn_norm_weights,
            eps,
            x_arg.stride(0),
            N,
            BLOCK_SIZE=BLOCK_SIZE,
            num_warps=num_warps,
            INCLUDE_WEIGHT=attn_norm_weights is not None, num_stages=num_stages,
        )
    return out


def run(x, w):
    return _rms_norm_forward(x, w, 1e-6)
