"""Row softmax with its backward: the forward computes the block and warps and saves them on ctx, the backward
launches with ctx.BLOCK_SIZE. run() returns the input gradient for a given output gradient."""

import torch
import triton
import triton.language as tl


@triton.jit
def _softmax_fwd(x_ptr, y_ptr, stride, n_cols, BLOCK_SIZE: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK_SIZE)
    mask = cols < n_cols
    x = tl.load(x_ptr + row * stride + cols, mask=mask, other=float("-inf"))
    e = tl.exp(x - tl.max(x, axis=0))
    tl.store(y_ptr + row * stride + cols, e / tl.sum(e, axis=0), mask=mask)


@triton.jit
def _softmax_bwd(y_ptr, dy_ptr, dx_ptr, stride, n_cols, BLOCK_SIZE: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK_SIZE)
    mask = cols < n_cols
    y = tl.load(y_ptr + row * stride + cols, mask=mask, other=0.0)
    dy = tl.load(dy_ptr + row * stride + cols, mask=mask, other=0.0)
    dot = tl.sum(y * dy, axis=0)
    tl.store(dx_ptr + row * stride + cols, y * (dy - dot), mask=mask)


class _Softmax(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        n_rows, n_cols = x.shape
        BLOCK_SIZE = triton.next_power_of_2(n_cols)
        num_warps = 4 if BLOCK_SIZE < 2048 else 8
        y = torch.empty_like(x)
        _softmax_fwd[(n_rows,)](x, y, x.stride(0), n_cols, BLOCK_SIZE=BLOCK_SIZE, num_warps=num_warps)
        ctx.save_for_backward(y)
        ctx.BLOCK_SIZE = BLOCK_SIZE
        ctx.num_warps = num_warps
        return y

    @staticmethod
    def backward(ctx, dy):
        (y,) = ctx.saved_tensors
        dy = dy.contiguous()
        dx = torch.empty_like(y)
        _softmax_bwd[(y.shape[0],)](y, dy, dx, y.stride(0), y.shape[1], BLOCK_SIZE=ctx.BLOCK_SIZE,
                                    num_warps=ctx.num_warps)
        return dx


def run(x, dy):
    x = x.detach().requires_grad_(True)
    y = _Softmax.apply(x)
    (dx,) = torch.autograd.grad(y, x, dy)
    return dx
