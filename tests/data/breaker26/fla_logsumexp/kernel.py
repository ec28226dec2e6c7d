"""flash-linear-attention's logsumexp over the last dimension (``fla/ops/utils/logsumexp.py``; ``exp`` / ``log``
from ``fla/ops/utils/op.py``, ``autotune_cache_kwargs`` from ``fla/utils``; MIT). ``@triton.heuristics`` of
``HAS_SCALE`` (from a ``None`` argument) OVER ``@triton.autotune`` of a COMPREHENSION of settings-only configs
(``num_warps`` 1 ... 32, no block) keyed on ``['D']`` with ``**autotune_cache_kwargs``; the row cut into ``ND =
cdiv(D, B)`` blocks of ``B = min(next_power_of_2(D), 64 * 1024)`` on a second grid axis, each block's logsumexp
stored to a float32 ``(N, ND)`` buffer that torch reduces (``B`` sets how many partials there are); program ids
cast to int64; every argument by keyword. ``run`` calls ``logsumexp_fwd`` twice: with a scale and without.

Kept as the authors wrote it; ``exp`` / ``log`` as fla's without ``FLA_USE_FAST_OPS``, ``autotune_cache_kwargs``
written here; comments reworded."""

import inspect

import torch
import triton
import triton.language as tl


@triton.jit
def exp(x):
    return tl.exp(x.to(tl.float32))


@triton.jit
def log(x):
    return tl.log(x.to(tl.float32))


# cache_results exists from Triton 3.4 on
SUPPORTS_AUTOTUNE_CACHE = "cache_results" in inspect.signature(triton.autotune).parameters
autotune_cache_kwargs = {"cache_results": False} if SUPPORTS_AUTOTUNE_CACHE else {}



@triton.heuristics({
    'HAS_SCALE': lambda args: args['scale'] is not None,
})
@triton.autotune(
    configs=[
        triton.Config({}, num_warps=num_warps)
        for num_warps in [1, 2, 4, 8, 16, 32]
    ],
    key=['D'],
    **autotune_cache_kwargs,
)
@triton.jit
def logsumexp_fwd_kernel(
    x,
    z,
    scale,
    D: tl.constexpr,
    B: tl.constexpr,
    HAS_SCALE: tl.constexpr,
):
    i_n, i_d = tl.program_id(0).to(tl.int64), tl.program_id(1).to(tl.int64)
    o_d = i_d * B + tl.arange(0, B)
    m_d = o_d < D

    b_x = tl.load(x + i_n * D + o_d, mask=m_d, other=-float('inf'))
    if HAS_SCALE:
        b_x = b_x * scale
    b_m = tl.max(b_x, 0)
    b_z = log(tl.sum(exp(b_x - b_m), 0)) + b_m
    tl.store(z + i_n * tl.cdiv(D, B) + i_d, b_z)


def logsumexp_fwd(
    x,
    scale: float | None = None,
    dtype: torch.dtype | None = None,
):
    r"""
    Compute the logsumexp of the input tensor over the last dimension.

    Args:
        x (Tensor):
            The input tensor of any shape.
        scale (Optional[float]):
            The scale applied to the input tensor. Default: `None`.
        dtype (Optional[torch.dtype]):
            The data type of the output tensor. Default: `None`.
    Returns:
        Tensor: The logsumexp of the input tensor.
    """

    shape = x.shape
    x = x.view(-1, shape[-1])
    N, D = x.shape
    B = min(triton.next_power_of_2(D), 64 * 1024)
    ND = triton.cdiv(D, B)

    z = x.new_empty(N, ND, dtype=torch.float)
    logsumexp_fwd_kernel[(N, ND)](
        x=x,
        z=z,
        scale=scale,
        D=D,
        B=B,
    )
    z = z.logsumexp(-1).view(*shape[:-1])
    if dtype is not None and dtype != torch.float:
        z = z.to(dtype)
    return z


def run(x):
    return logsumexp_fwd(x, scale=0.5), logsumexp_fwd(x)
