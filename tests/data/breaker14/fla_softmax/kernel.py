"""flash-linear-attention's ``softmax_fwd`` (fla/ops/utils/softmax.py): a row softmax over the last dimension, the
input viewed as ``(-1, D)``; the block a one-letter ``B = triton.next_power_of_2(D)`` (beside ``D``, both
constexprs), every argument by keyword (``x=x, p=p, D=D, B=B``); ``@triton.autotune`` of a comprehension of
``num_warps``-only configs (``[1, 2, 4, 8, 16, 32]``) keyed on ``["D"]``; the output ``torch.empty_like(x,
dtype=dtype)`` in fp32 whatever the input's dtype; fla's ``exp = tl.exp`` bound at module level (its fast-ops
switch picks ``tl.exp`` or a fast libdevice exp) and called by that name in the kernel."""

import torch
import triton
import triton.language as tl

exp = tl.exp


@triton.autotune(
    configs=[triton.Config({}, num_warps=num_warps) for num_warps in [1, 2, 4, 8, 16, 32]],
    key=["D"],
)
@triton.jit
def softmax_fwd_kernel(x, p, D: tl.constexpr, B: tl.constexpr):
    i_n = tl.program_id(0).to(tl.int64)
    o_d = tl.arange(0, B)
    m_d = o_d < D

    b_x = tl.load(x + i_n * D + o_d, mask=m_d, other=-float("inf"))
    b_m = tl.max(b_x, 0)
    b_x = exp(b_x - b_m)
    b_p = b_x / tl.sum(b_x, 0)

    tl.store(p + i_n * D + o_d, b_p.to(p.dtype.element_ty), mask=m_d)


def softmax_fwd(x: torch.Tensor, dtype=torch.float) -> torch.Tensor:
    shape = x.shape
    x = x.view(-1, x.shape[-1])

    N, D = x.shape
    B = triton.next_power_of_2(D)

    p = torch.empty_like(x, dtype=dtype)
    softmax_fwd_kernel[(N,)](x=x, p=p, D=D, B=B)
    return p.view(*shape)


def run(x):
    return softmax_fwd(x)
