"""flash-linear-attention's chunk-local cumulative sum of a vector gate (fla.ops.utils.cumsum
``chunk_local_cumsum_vector_kernel``): within each chunk of ``BT`` steps a lower-triangular ``tl.dot`` sums the
rows; ``@triton.heuristics({"IS_VARLEN": ...})`` for packed sequences (off here: ``cu_seqlens`` is None),
``@triton.autotune`` over ``BS`` (the feature block) from a module-level ``BS_LIST`` chosen by the device's
shared memory, and ``num_warps``, keyed on ``["S", "BT", "IS_VARLEN", "REVERSE"]``; a named ``grid(meta)``
function reading ``BS``; block pointers with ``boundary_check=(0, 1)``. ``BT`` is the model's chunk (the
reference uses the same one)."""

import torch
import triton
import triton.language as tl


def check_shared_mem(arch="none"):
    """fla asks the device for its shared memory per block; a CPU has none to ask."""
    try:
        props = triton.runtime.driver.active.utils.get_device_properties(torch.cuda.current_device())
        return props["max_shared_mem"] >= 102400
    except Exception:
        return False


BS_LIST = [32, 64] if check_shared_mem() else [16, 32]


@triton.heuristics({"IS_VARLEN": lambda args: args["cu_seqlens"] is not None})
@triton.autotune(
    configs=[triton.Config({"BS": BS}, num_warps=num_warps) for BS in BS_LIST for num_warps in [2, 4, 8]],
    key=["S", "BT", "IS_VARLEN", "REVERSE"],
)
@triton.jit(do_not_specialize=["T"])
def chunk_local_cumsum_vector_kernel(
    s, o, cu_seqlens, chunk_indices, T,
    H: tl.constexpr, S: tl.constexpr, BT: tl.constexpr, BS: tl.constexpr,
    REVERSE: tl.constexpr, IS_VARLEN: tl.constexpr,
):
    i_s, i_t, i_bh = tl.program_id(0), tl.program_id(1), tl.program_id(2)
    i_b, i_h = i_bh // H, i_bh % H
    if IS_VARLEN:
        i_n, i_t = tl.load(chunk_indices + i_t * 2).to(tl.int32), tl.load(chunk_indices + i_t * 2 + 1).to(tl.int32)
        bos, eos = tl.load(cu_seqlens + i_n).to(tl.int32), tl.load(cu_seqlens + i_n + 1).to(tl.int32)
        T = eos - bos
    else:
        bos, eos = i_b * T, i_b * T + T

    o_i = tl.arange(0, BT)
    if REVERSE:
        m_s = tl.where(o_i[:, None] <= o_i[None, :], 1.0, 0.0)
    else:
        m_s = tl.where(o_i[:, None] >= o_i[None, :], 1.0, 0.0)

    p_s = tl.make_block_ptr(s + (bos * H + i_h) * S, (T, S), (H * S, 1), (i_t * BT, i_s * BS), (BT, BS), (1, 0))
    p_o = tl.make_block_ptr(o + (bos * H + i_h) * S, (T, S), (H * S, 1), (i_t * BT, i_s * BS), (BT, BS), (1, 0))
    # [BT, BS]
    b_s = tl.load(p_s, boundary_check=(0, 1)).to(tl.float32)
    b_o = tl.dot(m_s, b_s, allow_tf32=False)
    tl.store(p_o, b_o.to(p_o.dtype.element_ty), boundary_check=(0, 1))


def chunk_local_cumsum_vector(g, chunk_size, reverse=False, cu_seqlens=None, head_first=False):
    B, T, H, S = g.shape
    BT = chunk_size
    chunk_indices = None
    NT = triton.cdiv(T, BT)
    assert chunk_size == 2 ** (chunk_size.bit_length() - 1), "chunk_size must be a power of 2"
    g_org, g = g, torch.empty_like(g, dtype=torch.float)

    def grid(meta):
        return (triton.cdiv(meta["S"], meta["BS"]), NT, B * H)

    # keep cumulative normalizer in fp32
    chunk_local_cumsum_vector_kernel[grid](
        g_org, g, cu_seqlens, chunk_indices, T=T, H=H, S=S, BT=BT, REVERSE=reverse,
    )
    return g


CHUNK_SIZE = 16


def run(g):
    return chunk_local_cumsum_vector(g, CHUNK_SIZE)
