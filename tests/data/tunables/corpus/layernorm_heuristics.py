"""LayerNorm whose block and warp count come from @triton.heuristics, with a flag that says whether the
row needs masking."""

import torch
import triton
import triton.language as tl


@triton.heuristics(
    {
        "BLOCK_N": lambda args: triton.next_power_of_2(args["N"]),
        "EVEN_N": lambda args: args["N"] % 16 == 0,
        "num_warps": lambda args: 4,
    }
)
@triton.jit
def layernorm_kernel(y_ptr, x_ptr, w_ptr, b_ptr, stride, N, eps, BLOCK_N: tl.constexpr, EVEN_N: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK_N)
    mask = cols < N
    x = tl.load(x_ptr + row * stride + cols, mask=mask, other=0.0).to(tl.float32)
    mean = tl.sum(x, axis=0) / N
    diff = tl.where(mask, x - mean, 0.0)
    rstd = 1.0 / tl.sqrt(tl.sum(diff * diff, axis=0) / N + eps)
    w = tl.load(w_ptr + cols, mask=mask, other=1.0)
    b = tl.load(b_ptr + cols, mask=mask, other=0.0)
    tl.store(y_ptr + row * stride + cols, (diff * rstd * w + b).to(y_ptr.dtype.element_ty), mask=mask)


def run(x, weight, bias):
    M, N = x.shape
    y = torch.empty_like(x)
    layernorm_kernel[(M,)](y, x, weight, bias, x.stride(0), N, 1e-5)
    return y
