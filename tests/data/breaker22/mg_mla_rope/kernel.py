"""Megatron-LM's fused MLA (YaRN) RoPE applied in place (``megatron/core/fusions/fused_mla_yarn_rope_apply.py``,
NVIDIA, Apache-2.0 with Megatron's BSD-style notice): the trailing ``emb_dim`` elements of each head rotated, the
first ``nope_dim`` left alone, the interleaved pairs written back de-interleaved (left halves, then right halves).
``@triton.autotune`` of eight literal ``BLOCK_H`` configs keyed on ``["emb_dim", "head_num"]`` with
``restore_value=["Q"]`` (the tensor is rewritten IN PLACE); a grid ``lambda META: (total_seqlen, cdiv(nheads,
META["BLOCK_H"]))`` inside a ``torch.autograd.Function``; ``emb_dim`` and ``head_num`` constexprs, the offsets a
``tl.arange(0, BLOCK_H)[:, None] * stride_x_nheads`` beside a head mask ``x_off < head_num * stride_x_nheads`` that
is relative to the block (see the README: right when the block divides the head count or covers it); the sbhd path
(``cu_seqlens_q=None``) with the thd helper kept. Cut to the forward; Megatron's ``null_decorator`` is its own."""

from typing import Optional
from unittest.mock import MagicMock

import torch
from packaging import version


def null_decorator(*args, **kwargs):
    """A decorator that does nothing (megatron.core.utils)."""
    if len(kwargs) == 0 and len(args) == 1 and callable(args[0]):
        return args[0]
    else:

        def inner(func):
            return func

        return inner


try:
    import triton
    import triton.language as tl

    if version.parse(triton.__version__) < version.parse("3.4.0") and not torch.cuda.is_available():
        HAVE_TRITON = False
    else:
        HAVE_TRITON = tl.constexpr(version.parse(triton.__version__) >= version.parse("2.0.0"))
except ImportError:
    HAVE_TRITON = False

if not HAVE_TRITON:
    triton = MagicMock()
    triton.jit = null_decorator
    triton.autotune = null_decorator
    triton.heuristics = null_decorator
    tl = MagicMock()


@triton.jit
def _get_thd_token_idx(cu_seqlens, pid_m, seq_num, cp_rank, cp_size):
    # one dtype (int64) for pid_m and the loads, so the loop's reassignments keep their type
    pid_m = pid_m.to(tl.int64)
    token_idx = tl.full((), -1, dtype=tl.int64)
    this_seq_len = tl.full((), 0, dtype=tl.int64)
    seq_idx = 0
    last_cum_seqlen = tl.load(cu_seqlens).to(tl.int64) // cp_size
    while seq_idx < seq_num:
        cur_cum_seqlen = tl.load(cu_seqlens + seq_idx + 1).to(tl.int64) // cp_size
        if token_idx == -1 and cur_cum_seqlen > pid_m:
            token_idx = pid_m - last_cum_seqlen
            this_seq_len = cur_cum_seqlen - last_cum_seqlen
        last_cum_seqlen = cur_cum_seqlen
        seq_idx += 1
    # padding rows past cu_seqlens[-1] match no sequence: clamped to 0 (the loss mask drops them)
    if token_idx == -1:
        token_idx = tl.full((), 0, dtype=tl.int64)
    if cp_size > 1:
        if token_idx < this_seq_len // 2:
            token_idx = token_idx + cp_rank * this_seq_len // 2
        else:
            token_idx = (token_idx - this_seq_len // 2) + (
                2 * cp_size - cp_rank - 1
            ) * this_seq_len // 2
    return token_idx


@triton.autotune(
    configs=[
        triton.Config({"BLOCK_H": 1}),
        triton.Config({"BLOCK_H": 2}),
        triton.Config({"BLOCK_H": 4}),
        triton.Config({"BLOCK_H": 8}),
        triton.Config({"BLOCK_H": 16}),
        triton.Config({"BLOCK_H": 32}),
        triton.Config({"BLOCK_H": 64}),
        triton.Config({"BLOCK_H": 128}),
    ],
    key=["emb_dim", "head_num"],
    restore_value=["Q"],
)
@triton.jit
def _mla_rope_fwd_inplace_kernel(
    Q,
    COS,
    SIN,
    nope_dim,
    emb_dim: tl.constexpr,
    head_num: tl.constexpr,
    batch_size,
    seq_num,
    cu_seqlens_q,
    position_ids,
    stride_x_seq,
    stride_x_nheads,
    stride_cos_seq,
    stride_sin_seq,
    cp_rank,
    cp_size,
    INVERSE: tl.constexpr,
    REMOVE_INTERLEAVING: tl.constexpr,
    BLOCK_H: tl.constexpr,
):
    """
    Forward: RoPE applied in place to the trailing emb_dim elements, read interleaved, written back.

    Input:
        Q: [seq_len, batch_size, head_num, nope_dim + emb_dim]
            or [total_seq_len, head_num, nope_dim + emb_dim]
        COS/SIN: [max_seq_len, emb_dim]

        batch_size: the batch (sbhd only)
        seq_num: the number of sequences (thd only)
        cu_seqlens_q: [seq_num + 1] cumulative sequence lengths (thd only)
    """
    pid_m = tl.program_id(axis=0)
    pid_head = tl.program_id(axis=1)

    if position_ids is not None:
        token_idx = tl.load(position_ids + pid_m)
    elif cu_seqlens_q is None:
        token_idx = pid_m // batch_size
    else:
        token_idx = _get_thd_token_idx(cu_seqlens_q, pid_m, seq_num, cp_rank, cp_size)

    cos_left = tl.load(COS + token_idx * stride_cos_seq + tl.arange(0, emb_dim // 2))
    sin_left = tl.load(SIN + token_idx * stride_sin_seq + tl.arange(0, emb_dim // 2))
    cos_right = tl.load(
        COS + token_idx * stride_cos_seq + emb_dim // 2 + tl.arange(0, emb_dim // 2)
    )
    sin_right = tl.load(
        SIN + token_idx * stride_sin_seq + emb_dim // 2 + tl.arange(0, emb_dim // 2)
    )
    if INVERSE:
        sin_left = -sin_left
        sin_right = -sin_right
    cos_left = cos_left.expand_dims(0).broadcast_to(BLOCK_H, emb_dim // 2)
    sin_left = sin_left.expand_dims(0).broadcast_to(BLOCK_H, emb_dim // 2)
    cos_right = cos_right.expand_dims(0).broadcast_to(BLOCK_H, emb_dim // 2)
    sin_right = sin_right.expand_dims(0).broadcast_to(BLOCK_H, emb_dim // 2)

    Q = Q + pid_m * stride_x_seq + pid_head * BLOCK_H * stride_x_nheads

    x_off = tl.arange(0, BLOCK_H)[:, None] * stride_x_nheads + nope_dim
    mask = x_off < head_num * stride_x_nheads
    # x1 = t[..., 0::2], x2 = t[..., 1::2]
    x_1_off = x_off + tl.arange(0, emb_dim // 2)[None, :] * 2
    x_2_off = x_1_off + 1
    x_1 = tl.load(Q + x_1_off, mask=mask)
    x_2 = tl.load(Q + x_2_off, mask=mask)

    x_left = x_1 * cos_left - x_2 * sin_left
    x_right = x_2 * cos_right + x_1 * sin_right

    if REMOVE_INTERLEAVING:
        tl.store(Q + x_1_off, x_left, mask=mask)
        tl.store(Q + x_2_off, x_right, mask=mask)
    else:
        x_left_off = x_off + tl.arange(0, emb_dim // 2)[None, :]
        x_right_off = x_left_off + emb_dim // 2
        tl.store(Q + x_left_off, x_left, mask=mask)
        tl.store(Q + x_right_off, x_right, mask=mask)


class _FusedMLARoPEInplace(torch.autograd.Function):
    """
    RoPE applied in place to the trailing emb_dim elements of a multi-head tensor (the first nope_dim untouched).
    """

    @staticmethod
    def forward(
        ctx,
        q,
        cos,
        sin,
        nope_dim,
        emb_dim,
        cu_seqlens_q,
        cp_rank,
        cp_size,
        rotary_interleaved=False,
        inverse=False,
        remove_interleaving=False,
        position_ids=None,
    ):
        """
        Args:
            q: [seq_len, batch_size, head_num, nope_dim + emb_dim]
                or [total_seq_len, head_num, nope_dim + emb_dim]
            cos/sin: [max_seq_len, 1, 1, emb_dim]
            cu_seqlens_q: [seq_num + 1] cumulative sequence lengths (thd)
            rotary_interleaved: only False is supported
            inverse: sin negated in the kernel (the inverse rotation)
        """
        assert not rotary_interleaved
        max_seqlen = None
        batch_size = None
        seq_num = None
        if cu_seqlens_q is None:
            # sbhd
            assert position_ids is None
            max_seqlen, batch_size, nheads, headdim = q.shape
            q = q.view(-1, nheads, headdim)
            total_seqlen = q.shape[0]
        else:
            # thd
            total_seqlen, nheads, headdim = q.shape
            seq_num = len(cu_seqlens_q) - 1
            if position_ids is not None:
                assert position_ids.shape == (total_seqlen,)
        assert q.stride(-1) == 1
        assert cos.stride(-1) == 1
        assert sin.stride(-1) == 1
        assert headdim == nope_dim + emb_dim
        assert emb_dim % 4 == 0

        grid = lambda META: (total_seqlen, triton.cdiv(nheads, META["BLOCK_H"]))
        _mla_rope_fwd_inplace_kernel[grid](
            q,
            cos,
            sin,
            nope_dim,
            emb_dim,
            nheads,
            batch_size,
            seq_num,
            cu_seqlens_q,
            position_ids,
            q.stride(0),
            q.stride(1),
            cos.stride(0),
            sin.stride(0),
            cp_rank,
            cp_size,
            INVERSE=inverse,
            REMOVE_INTERLEAVING=remove_interleaving,
        )
        ctx.save_for_backward(cos, sin, *(() if position_ids is None else (position_ids,)))
        ctx.has_position_ids = position_ids is not None
        ctx.nope_dim = nope_dim
        ctx.emb_dim = emb_dim
        ctx.cu_seqlens_q = cu_seqlens_q
        ctx.rotary_interleaved = rotary_interleaved
        ctx.inverse = inverse
        ctx.remove_interleaving = remove_interleaving
        ctx.cp_rank = cp_rank
        ctx.cp_size = cp_size
        if cu_seqlens_q is None:
            q = q.view(max_seqlen, batch_size, nheads, headdim)
        return q


def fused_mla_rope_inplace(
    t: torch.Tensor,
    cos: torch.Tensor,
    sin: torch.Tensor,
    nope_dim: int,
    emb_dim: int,
    cu_seqlens_q: Optional[torch.Tensor] = None,
    cp_rank: int = 0,
    cp_size: int = 1,
    rotary_interleaved: bool = False,
    inverse: bool = False,
    remove_interleaving: bool = False,
    position_ids: Optional[torch.Tensor] = None,
) -> torch.Tensor:
    """RoPE applied in place to the trailing emb_dim elements of t (sbhd or thd), the first nope_dim untouched;
    returns t."""
    return _FusedMLARoPEInplace.apply(
        t,
        cos,
        sin,
        nope_dim,
        emb_dim,
        cu_seqlens_q,
        cp_rank,
        cp_size,
        rotary_interleaved,
        inverse,
        remove_interleaving,
        position_ids,
    )


def run(q, cos, sin):
    """The query's rope part rotated in place, sbhd (nope_dim = head size - cos's last size)."""
    emb_dim = cos.shape[-1]
    return fused_mla_rope_inplace(q, cos, sin, q.shape[-1] - emb_dim, emb_dim)
