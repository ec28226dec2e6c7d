"""RMSNorm the way kernel libraries often write it: a helper picks the block and the warp count from the
row length, and the kernel is called from an ``autograd.Function`` (bf16, 32768 x 8192).

The knobs are computed settings: ``calculate_settings`` returns BLOCK_SIZE and num_warps from the row
length; kernelopt overrides them at the launch with literals (and records the expression it replaced).
"""

import torch
import triton
import triton.language as tl

MAX_FUSED_SIZE = 65536


def calculate_settings(n):
    block = triton.next_power_of_2(n)
    if block > MAX_FUSED_SIZE:
        raise RuntimeError(f"a row of {n} columns does not fit one block")
    warps = 4
    if block >= 32768:
        warps = 32
    elif block >= 8192:
        warps = 16
    elif block >= 2048:
        warps = 8
    return block, warps


@triton.jit
def rmsnorm_fwd_kernel(y_ptr, x_ptr, w_ptr, stride, n_cols, eps, BLOCK_SIZE: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK_SIZE)
    mask = cols < n_cols
    x = tl.load(x_ptr + row * stride + cols, mask=mask, other=0.0).to(tl.float32)
    rstd = 1.0 / tl.sqrt(tl.sum(x * x, axis=0) / n_cols + eps)
    w = tl.load(w_ptr + cols, mask=mask, other=0.0).to(tl.float32)
    tl.store(y_ptr + row * stride + cols, (x * rstd * w).to(y_ptr.dtype.element_ty), mask=mask)


class RMSNormFunction(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, weight, eps):
        n_rows, n_cols = x.shape
        y = torch.empty_like(x)
        BLOCK_SIZE, num_warps = calculate_settings(n_cols)
        rmsnorm_fwd_kernel[(n_rows,)](
            y, x, weight, x.stride(0), n_cols, eps, BLOCK_SIZE=BLOCK_SIZE, num_warps=num_warps
        )
        return y


def run(x, weight):
    return RMSNormFunction.apply(x, weight, 1e-6)
