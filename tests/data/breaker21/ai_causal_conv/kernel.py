"""IBM Research's Triton causal 1-D convolution for Mamba, in PyTorch Labs' applied-ai
(``kernels/triton/inference/mamba/causal_1d_conv/causal_1d_conv/causal_1d_conv.py``, BSD-3-Clause): one program a
``BLOCK_M`` run of (sequence, token) rows x ``BLOCK_N`` features, a ``for j in range(KERNEL_WIDTH)`` loop over the
taps; the input CHANNEL-LAST ((batch, dim, seqlen) with ``stride(1) == 1``, asserted: a transposed view), the
weight transposed and made contiguous by the launcher; optional bias, SiLU and initial states (read where a token's
tap falls before the sequence: ``tl.load(..., other=initial_states)``). ``@triton.autotune`` of eleven literal
``BLOCK_M`` x ``BLOCK_N`` configs keyed on ``["seqlen", "dim", "batch"]``; the grid a named ``def grid(META)``
inside an ``else`` branch, the launch inside ``with torch.cuda.device(x.device.index)``, the flags by keyword. Cut
to the forward launcher (the autograd wrapper calls a backward the file does not hold; einops' ``rearrange`` of a
3-D weight is a ``squeeze`` here)."""

import torch
import triton
import triton.language as tl
from typing import Literal, Optional


@triton.autotune(
    configs=[
        triton.Config({"BLOCK_M": 128, "BLOCK_N": 256}, num_stages=3, num_warps=8),
        triton.Config({"BLOCK_M": 128, "BLOCK_N": 128}, num_stages=3, num_warps=8),
        triton.Config({"BLOCK_M": 128, "BLOCK_N": 64}, num_stages=3, num_warps=8),
        triton.Config({"BLOCK_M": 128, "BLOCK_N": 32}, num_stages=3, num_warps=8),
        triton.Config({"BLOCK_M": 64, "BLOCK_N": 128}, num_stages=3, num_warps=8),
        triton.Config({"BLOCK_M": 64, "BLOCK_N": 64}, num_stages=3, num_warps=8),
        triton.Config({"BLOCK_M": 64, "BLOCK_N": 32}, num_stages=3, num_warps=8),
        triton.Config({"BLOCK_M": 32, "BLOCK_N": 256}, num_stages=3, num_warps=8),
        triton.Config({"BLOCK_M": 32, "BLOCK_N": 128}, num_stages=3, num_warps=8),
        triton.Config({"BLOCK_M": 32, "BLOCK_N": 64}, num_stages=3, num_warps=8),
        triton.Config({"BLOCK_M": 32, "BLOCK_N": 32}, num_stages=3, num_warps=8),
    ],
    key=["seqlen", "dim", "batch"],
)
@triton.jit()
def _causal_conv1d_fwd_kernel(
    # Pointers to matrices
    x_ptr,  # (batch, dim, seqlen)
    w_ptr,  # (dim, width)
    bias_ptr,
    initial_states_ptr,
    o_ptr,  # (batch, dim, seqlen)
    # Matrix dimensions
    batch,
    dim,
    seqlen,
    # Strides
    stride_x_seq,  # from one sequence to the next
    stride_x_dim,  # from one feature to the next
    stride_x_token,  # from one token to the next (same feature, same sequence)
    stride_weight_dim,  # along the weight's dim axis
    stride_weight_width,  # along the weight's width axis
    stride_istate_seq,
    stride_istate_dim,
    stride_istate_token,
    stride_o_seq,
    stride_o_dim,
    stride_o_token,
    # Meta-parameters
    HAS_BIAS: tl.constexpr,
    KERNEL_WIDTH: tl.constexpr,  # (the authors: with it, 'width' may not be needed)
    SILU_ACTIVATION: tl.constexpr,
    HAS_INITIAL_STATES: tl.constexpr,
    BLOCK_M: tl.constexpr,
    BLOCK_N: tl.constexpr,
):
    indices_0 = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
    idx_seqs = indices_0 // seqlen
    idx_tokens = indices_0 % seqlen

    x_base = x_ptr + (idx_seqs * stride_x_seq)[:, None]  # each row's sequence start (its features at token 0)
    idx_feats = tl.program_id(1) * BLOCK_N + tl.arange(0, BLOCK_N)
    w_base = w_ptr + (idx_feats * stride_weight_dim)  # the taps' first column for this program's BLOCK_N features
    load_init_state = False
    if HAS_INITIAL_STATES:
        load_init_state = tl.min(idx_tokens) < KERNEL_WIDTH - 1
        initial_states_base = initial_states_ptr + (idx_seqs * stride_istate_seq)[:, None] + (idx_feats * stride_istate_dim)[None, :]

    # the accumulator: BLOCK_M (sequence, token) rows x BLOCK_N features, the bias first
    if HAS_BIAS:
        bias = bias_ptr + idx_feats
        mask_bias = idx_feats < dim
        acc = tl.load(bias, mask=mask_bias, other=0.0).to(tl.float32)[None, :]  # [BLOCK_N]
        acc = tl.broadcast_to(acc, (BLOCK_M, BLOCK_N))
    else:
        acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    PADDING_W = KERNEL_WIDTH - 1
    for j in range(KERNEL_WIDTH):
        idx_x_w = j - PADDING_W + idx_tokens  # the token tap j multiplies
        x_ptrs = x_base + ((idx_x_w * stride_x_token)[:, None] + (idx_feats * stride_x_dim)[None, :])  # [BLOCK_M, BLOCK_N]
        mask_x = ((idx_seqs < batch)[:, None]  # sequence-index
                  & (idx_x_w >= 0)[:, None]  # token-index
                  & (idx_x_w < seqlen)[:, None]  # token-index
                  & (idx_feats < dim)[None, :]  # feature-index
                  )
        if HAS_INITIAL_STATES:
            if load_init_state:
                initial_states_ptrs = initial_states_base + ((idx_x_w + KERNEL_WIDTH - 1) * stride_istate_token)[:, None]  # [BLOCK_M, BLOCK_N]
                mask_w = (idx_seqs < batch)[:, None] & (idx_x_w < 0)[:, None] & (idx_feats < dim)[None, :]  # sequence-index  # token-index  # feature-index
                initial_states = tl.load(initial_states_ptrs, mask_w, 0.0)
            else:
                initial_states = tl.zeros((BLOCK_M, BLOCK_N), dtype=x_ptr.dtype.element_ty)
            matrix_x = tl.load(x_ptrs, mask=mask_x, other=initial_states)
        else:
            matrix_x = tl.load(x_ptrs, mask=mask_x, other=0.0)

        w_ptrs = w_base[None, :] + \
            (j * stride_weight_width)  # [1, BLOCK_N] tensor
        mask_w = (idx_feats < dim)[None, :]
        matrix_w = tl.load(w_ptrs, mask_w, other=0.0)
        acc += matrix_x * matrix_w

    if SILU_ACTIVATION:
        acc = acc / (1 + tl.exp(-acc))
    mask = (
        (idx_seqs < batch)[:, None]  # sequence-index
        & (idx_tokens < seqlen)[:, None]  # token-index
        & (idx_feats < dim)[None, :]  # feature-index
    )
    o_ptrs = (
        o_ptr
        + (idx_seqs * stride_o_seq)[:, None]
        + (idx_tokens * stride_o_token)[:, None]
        + (idx_feats * stride_o_dim)[None, :]
    )

    tl.store(o_ptrs, acc, mask=mask)


def causal_conv1d_fwd(
    x: torch.Tensor,
    weight: torch.Tensor,
    bias: Optional[torch.Tensor] = None,
    seq_idx: Optional[torch.Tensor] = None,
    initial_states: Optional[torch.Tensor] = None,
    return_final_states: Optional[torch.Tensor] = False,
    final_states_out: Optional[torch.Tensor] = None,
    activation: Optional[Literal["silu", "swish"]] = None,
):
    batch, dim, seqlen = x.shape
    _, width = weight.shape
    assert (dim, width) == weight.shape
    assert x.stride(2) == 1 or x.stride(1) == 1
    # (the authors' TODO: a weight with stride(dim) == 1 may be wanted)
    assert weight.stride(1) == 1
    # NHWC-like: channel last, 'C' the time axis
    is_channel_last = (x.stride(1) == 1) & (x.stride(2) > 1)
    stride_w_dim = weight.stride(0)
    stride_w_width = weight.stride(1)
    # the weight made contiguous along dim:
    weight = weight.transpose(0, 1).contiguous()
    stride_w_dim = weight.stride(1)
    stride_w_width = weight.stride(0)

    assert return_final_states is False
    stride_istate_seq = 0
    stride_istate_dim = 0
    stride_istate_token = 0
    if initial_states is not None:
        assert (batch, dim, width - 1) == initial_states.shape
        stride_istate_seq = initial_states.stride(0)
        stride_istate_dim = initial_states.stride(1)
        stride_istate_token = initial_states.stride(2)
        assert stride_istate_dim == 1

    out = torch.empty_like(x)

    if not is_channel_last:
        assert 0, "Need to run in channel-last layout"
    else:

        def grid(META):
            return (
                triton.cdiv(batch * seqlen, META["BLOCK_M"]),
                triton.cdiv(dim, META["BLOCK_N"]),
            )

        with torch.cuda.device(x.device.index):
            _causal_conv1d_fwd_kernel[grid](
                # Pointers to matrices
                x,
                weight,
                bias,
                initial_states,
                out,
                # Matrix dimensions
                batch,
                dim,
                seqlen,
                # stride
                x.stride(0),
                x.stride(1),
                x.stride(2),
                stride_w_dim,
                stride_w_width,
                stride_istate_seq,
                stride_istate_dim,
                stride_istate_token,
                out.stride(0),
                out.stride(1),
                out.stride(2),
                # META
                HAS_BIAS=bias is not None,
                KERNEL_WIDTH=width,
                SILU_ACTIVATION=activation in ["silu", "swish"],
                HAS_INITIAL_STATES=initial_states is not None,
            )
    return out


def causal_conv1d_fn(
    x,  # channel last, i.e. (batch, dim, seqlen)
    weight,  # (dim, w)
    bias=None,  # (dim, )scalar
    seq_idx=None,
    initial_states=None,
    return_final_states=False,
    final_states_out=None,
    activation: Optional[Literal["silu", "swish"]] = None,
):
    if weight.dim() == 3:
        assert weight.shape[1] == 1
        weight = weight.squeeze(1)  # einops: rearrange(weight, "d 1 w -> d w")
    return causal_conv1d_fwd(
        x,
        weight,
        bias,
        seq_idx,
        initial_states,
        return_final_states,
        final_states_out,
        activation,
    )


def run(x, weight, bias, initial_states):
    return causal_conv1d_fn(x, weight, bias, initial_states=initial_states, activation="silu")
