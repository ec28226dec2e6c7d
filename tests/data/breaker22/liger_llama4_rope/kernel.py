"""Liger-Kernel's Llama 4 RoPE (``src/liger_kernel/ops/llama4_rope.py``, BSD-2-Clause): q and k of (batch, seq,
heads, head_dim) rotated by complex frequencies (``freqs_cis``, complex, viewed as real pairs), IN PLACE (a float32
contiguous q is its own ``.to(...).contiguous()``, so the caller's tensors are rewritten and returned). The grid
``(batch_size * seq_len, max(n_q_heads, n_k_heads))``, a bounds check by early ``return``, the head's half dimension
walked by ``tl.static_range(0, head_dim_half, BLOCK_SIZE)`` (an unrolled loop), pairs through ``tl.split`` and
``tl.math.fma``; the settings from a HELPER OF THRESHOLDS ``BLOCK_SIZE, num_warps = _select_kernel_meta(head_dim_half)``
unless the caller pins ``BLOCK_SIZE`` (a parameter defaulting to ``None``), every argument POSITIONAL but
``num_warps=num_warps, num_stages=2``; ``imag_sign`` a runtime float (the backward's conjugate). Through the
``torch.autograd.Function``; cut to the forward."""

import torch
import triton
import triton.language as tl


def _cast_and_contiguous(q, k, freqs_complex):
    # float32 only when q is float32; q's dtype otherwise
    compute_dtype = torch.float32 if q.dtype == torch.float32 else q.dtype

    if k.dtype != q.dtype:
        k = k.to(q.dtype)

    q = q.to(compute_dtype).contiguous()
    k = k.to(compute_dtype).contiguous()
    freqs_complex = freqs_complex.contiguous()
    return q, k, freqs_complex


@triton.jit
def _llama4_rope_kernel(
    q_ptr,
    k_ptr,
    freqs_complex_ptr,
    q_row_stride,
    k_row_stride,
    q_head_stride,
    k_head_stride,
    freqs_row_stride,
    seq_len,
    batch_size,
    imag_sign,
    head_dim_half: tl.constexpr,
    n_q_heads: tl.constexpr,
    n_k_heads: tl.constexpr,
    BLOCK_SIZE: tl.constexpr,
):
    """
    RoPE over (batch*seq, head) programs, tuned on an H100.
    """
    # the 2-D grid
    pid_bs = tl.program_id(0)  # batch*seq
    pid_h = tl.program_id(1)  # heads

    batch_idx = pid_bs // seq_len
    seq_idx = pid_bs % seq_len

    # out of range: nothing to do
    if batch_idx >= batch_size or seq_idx >= seq_len:
        return

    # this (batch, seq) position's rows
    base_offset = batch_idx * seq_len + seq_idx
    q_base = q_ptr + base_offset * q_row_stride
    k_base = k_ptr + base_offset * k_row_stride
    freq_base = seq_idx * freqs_row_stride

    # over dim/2 in BLOCK_SIZE steps
    for d_start in tl.static_range(0, head_dim_half, BLOCK_SIZE):
        d_indices = d_start + tl.arange(0, BLOCK_SIZE)
        mask_d = d_indices < head_dim_half

        # the block's (real, imag) pairs of frequencies
        freq_offsets = d_indices[:, None] * 2 + tl.arange(0, 2)[None, :]
        freqs_complex = tl.load(freqs_complex_ptr + freq_base + freq_offsets, mask=mask_d[:, None], other=0.0)
        freqs_real, freqs_imag = tl.split(freqs_complex)
        freqs_imag = freqs_imag * imag_sign

        # one query head a program (pid_h)
        if pid_h < n_q_heads:
            q_head_ptr = q_base + pid_h * q_head_stride
            q_real = tl.load(q_head_ptr + d_indices * 2, mask=mask_d, other=0.0)
            q_imag = tl.load(q_head_ptr + d_indices * 2 + 1, mask=mask_d, other=0.0)

            # (a+ib)*(c+id) = (ac - bd) + i(ad + bc), by FMAs
            new_q_real = tl.math.fma(q_real, freqs_real, -(q_imag * freqs_imag))
            new_q_imag = tl.math.fma(q_real, freqs_imag, q_imag * freqs_real)

            tl.store(q_head_ptr + d_indices * 2, new_q_real, mask=mask_d)
            tl.store(q_head_ptr + d_indices * 2 + 1, new_q_imag, mask=mask_d)

        # one key head a program (pid_h)
        if pid_h < n_k_heads:
            k_head_ptr = k_base + pid_h * k_head_stride
            k_real = tl.load(k_head_ptr + d_indices * 2, mask=mask_d, other=0.0)
            k_imag = tl.load(k_head_ptr + d_indices * 2 + 1, mask=mask_d, other=0.0)

            new_k_real = tl.math.fma(k_real, freqs_real, -(k_imag * freqs_imag))
            new_k_imag = tl.math.fma(k_real, freqs_imag, k_imag * freqs_real)

            tl.store(k_head_ptr + d_indices * 2, new_k_real, mask=mask_d)
            tl.store(k_head_ptr + d_indices * 2 + 1, new_k_imag, mask=mask_d)


def _select_kernel_meta(head_dim_half: int):
    # the block and the warps by the half dimension
    if head_dim_half >= 256:
        return 128, 8
    if head_dim_half >= 96:
        return 128, 4
    if head_dim_half >= 48:
        return 64, 4
    if head_dim_half >= 24:
        return 32, 2
    return 16, 2


def llama4_rope_forward(q, k, freqs_cis, BLOCK_SIZE: int = None, imag_sign: float = 1.0):
    # the caller's dtype, cast back to at the end
    original_dtype = q.dtype

    batch_size, seq_len, n_q_heads, head_dim = q.shape
    _, _, n_k_heads, _ = k.shape
    head_dim_half = head_dim // 2
    if freqs_cis.is_complex():
        freqs_cis = freqs_cis.reshape(-1, freqs_cis.shape[-1])
        if freqs_cis.shape[0] > seq_len:
            freqs_cis = freqs_cis[:seq_len]
        freqs_cis = torch.view_as_real(freqs_cis)

    # the compute dtype, contiguous only where needed
    q, k, freqs_cis = _cast_and_contiguous(q, k, freqs_cis)

    # settings tuned on an H100
    if BLOCK_SIZE is None:
        BLOCK_SIZE, num_warps = _select_kernel_meta(head_dim_half)
    else:
        # a pinned BLOCK_SIZE keeps the helper's warps
        _, num_warps = _select_kernel_meta(head_dim_half)

    # one program a (batch, seq, head)
    n_heads_max = max(n_q_heads, n_k_heads)
    grid = (batch_size * seq_len, n_heads_max)

    _llama4_rope_kernel[grid](
        q,
        k,
        freqs_cis,
        q.stride(1),
        k.stride(1),
        q.stride(2),
        k.stride(2),
        freqs_cis.stride(0),
        seq_len,
        batch_size,
        imag_sign,
        head_dim_half,
        n_q_heads,
        n_k_heads,
        BLOCK_SIZE,
        num_warps=num_warps,
        num_stages=2,
    )

    # the caller's dtype again where it differs
    if q.dtype != original_dtype:
        q = q.to(original_dtype)
    if k.dtype != original_dtype:
        k = k.to(original_dtype)

    return q, k


class LigerLlama4RopeFunction(torch.autograd.Function):
    @staticmethod
    def forward(ctx, q, k, freqs_cis, BLOCK_SIZE: int = None):
        q_out, k_out = llama4_rope_forward(q, k, freqs_cis, BLOCK_SIZE, imag_sign=1.0)
        ctx.save_for_backward(freqs_cis.detach() if isinstance(freqs_cis, torch.Tensor) else freqs_cis)
        ctx.BLOCK_SIZE = BLOCK_SIZE
        return q_out, k_out


def run(q, k, freqs_cis):
    """Llama 4's RoPE of q (GQA: fewer k heads) by complex frequencies of (seq, head_dim / 2), in place."""
    return LigerLlama4RopeFunction.apply(q, k, freqs_cis)
