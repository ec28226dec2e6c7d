"""flash-linear-attention's ``chunk_scaled_dot_kkt_fwd`` (fla/ops/common/chunk_scaled_dot_kkt.py): per chunk of
``BT = 64`` positions (the operator's chunk: the reference works in the same 64), ``A = (beta * K) @ K^T`` kept
strictly below the diagonal, through block pointers; ``@triton.heuristics({"IS_VARLEN": lambda args:
args["cu_seqlens"] is not None})`` over ``@triton.autotune`` of a comprehension ``BK`` x ``num_warps`` x
``num_stages`` keyed on ``["H", "K", "BT", "IS_VARLEN"]``; the K loop ``for i_k in range(tl.cdiv(K, BK))``; ``T``
an int the body reads, ``H``, ``K``, ``BT`` constexprs; the grid ``(NT, B * H)`` of the chunks; ``fp32`` dots
(TF32 on a GPU)."""

import torch
import triton
import triton.language as tl


@triton.heuristics({"IS_VARLEN": lambda args: args["cu_seqlens"] is not None})
@triton.autotune(
    configs=[
        triton.Config({"BK": BK}, num_warps=num_warps, num_stages=num_stages)
        for BK in [32, 64, 128]
        for num_warps in [2, 4, 8]
        for num_stages in [2, 3, 4]
    ],
    key=["H", "K", "BT", "IS_VARLEN"],
)
@triton.jit(do_not_specialize=["T"])
def chunk_scaled_dot_kkt_fwd_kernel(
    k,
    beta,
    A,
    cu_seqlens,
    chunk_indices,
    T,
    H: tl.constexpr,
    K: tl.constexpr,
    BT: tl.constexpr,
    BK: tl.constexpr,
    IS_VARLEN: tl.constexpr,
):
    i_t, i_bh = tl.program_id(0), tl.program_id(1)
    i_b, i_h = i_bh // H, i_bh % H
    if IS_VARLEN:
        i_n, i_t = tl.load(chunk_indices + i_t * 2).to(tl.int32), tl.load(chunk_indices + i_t * 2 + 1).to(tl.int32)
        bos, eos = tl.load(cu_seqlens + i_n).to(tl.int32), tl.load(cu_seqlens + i_n + 1).to(tl.int32)
        T = eos - bos
    else:
        bos, eos = i_b * T, i_b * T + T
    o_t = i_t * BT + tl.arange(0, BT)
    m_t = o_t < T

    p_beta = tl.make_block_ptr(beta + bos * H + i_h, (T,), (H,), (i_t * BT,), (BT,), (0,))
    b_beta = tl.load(p_beta, boundary_check=(0,))

    b_A = tl.zeros([BT, BT], dtype=tl.float32)
    for i_k in range(tl.cdiv(K, BK)):
        p_k = tl.make_block_ptr(k + (bos * H + i_h) * K, (T, K), (H * K, 1), (i_t * BT, i_k * BK), (BT, BK), (1, 0))
        b_k = tl.load(p_k, boundary_check=(0, 1))
        b_kb = b_k * b_beta[:, None]
        b_A += tl.dot(b_kb.to(b_k.dtype), tl.trans(b_k))

    b_A = tl.where((o_t[:, None] > o_t[None, :]) & (m_t[:, None] & m_t), b_A, 0)
    p_A = tl.make_block_ptr(A + (bos * H + i_h) * BT, (T, BT), (BT * H, 1), (i_t * BT, 0), (BT, BT), (1, 0))
    tl.store(p_A, b_A.to(p_A.dtype.element_ty), boundary_check=(0, 1))


def chunk_scaled_dot_kkt_fwd(k, beta, cu_seqlens=None, chunk_size=64, output_dtype=torch.float32):
    B, T, H, K = k.shape
    BT = chunk_size
    chunk_indices = None
    NT = triton.cdiv(T, BT)
    A = torch.empty(B, T, H, BT, device=k.device, dtype=output_dtype)
    chunk_scaled_dot_kkt_fwd_kernel[(NT, B * H)](
        k=k,
        beta=beta,
        A=A,
        cu_seqlens=cu_seqlens,
        chunk_indices=chunk_indices,
        T=T,
        H=H,
        K=K,
        BT=BT,
    )
    return A


def run(k, beta):
    return chunk_scaled_dot_kkt_fwd(k, beta)
