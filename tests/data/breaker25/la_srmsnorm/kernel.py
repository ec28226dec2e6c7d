"""Lightning Attention's simple RMS norm (no weight), forward and backward (OpenNLPLab's
``lightning_attn/ops/triton/srmsnorm.py``, Doraemonzzz; MIT; taken by its author almost as-is from Triton's
layer-norm tutorial). One row ONE block: ``MAX_FUSED_SIZE = 65536 // x.element_size()``, ``BLOCK_SIZE_N =
min(MAX_FUSED_SIZE, triton.next_power_of_2(N))`` with a host ``RuntimeError`` past it; ``num_warps = min(max(
BLOCK_SIZE_N // 256, 1), 16)``; both handed to the backward through ``ctx`` (``ctx.BLOCK_SIZE_N``; the backward
computes ``num_warps`` again from it); the backward's ``GROUP_SIZE_M`` a chain of ``if``s on N (and halved for
float32) that NOTHING reads (the tutorial's partial-dw group count, with no weight to reduce); ``eps`` raised to
1.6e-5 for float16; the row stride of x serves y (``y`` is ``torch.empty_like(x)``); the forward's ``rstd`` one float32
per row. ``run`` applies the Function and backpropagates a given ``dy`` (two kernels).

Kept as the authors wrote it; comments reworded."""


import torch
import triton
import triton.language as tl


# fmt: off
@triton.jit
def srms_norm_fw(X, Y, V, stride, N, eps, BLOCK_SIZE_N: tl.constexpr):
    # fmt: on
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK_SIZE_N)
    mask = cols < N

    # this row
    x_ptrs = X + row * stride + cols
    x = tl.load(x_ptrs, mask=mask, other=0.0).to(tl.float32)

    x_zm = tl.where(mask, x, 0.0)

    x_var = tl.sum(x_zm * x_zm, axis=0) / N
    rstd = 1.0 / tl.sqrt(x_var + eps)

    # normalize
    y = x_zm * rstd
    tl.store(V + row, rstd)

    y_ptrs = Y + row * stride + cols
    tl.store(y_ptrs, y, mask=mask)


# the backward: dx
# fmt: off
@triton.jit
def srms_norm_bwd_dx_fused(
    DX, DY,
    X, V,
    stride, N,
    # meta-parameters
    BLOCK_SIZE_N: tl.constexpr,
):
    # fmt: on

    # the elements of this program
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK_SIZE_N)
    mask = cols < N

    # pointers at this row
    x_ptrs = X + row * stride + cols
    dy_ptrs = DY + row * stride + cols

    # load
    x = tl.load(x_ptrs, mask=mask, other=0)
    dy = tl.load(dy_ptrs, mask=mask, other=0)
    rstd = tl.load(V + row)

    # dx
    xhat = x * rstd
    wdy = dy

    xhat = tl.where(mask, xhat, 0.)
    wdy = tl.where(mask, wdy, 0.)
    mean1 = tl.sum(xhat * wdy, axis=0) / N
    dx = (wdy - (xhat * mean1)) * rstd

    # store dx
    mask = cols < N  # the mask again, to spare registers
    dx_ptrs = DX + row * stride + cols
    tl.store(dx_ptrs, dx, mask=mask)

class _SrmsNorm(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, eps):
        # an eps too small for float16 raised
        if x.dtype == torch.float16:
            eps = max(eps, 1.6e-5)

        # the output
        y = torch.empty_like(x)

        # x as a 2-D tensor
        x_arg = x.reshape(-1, x.shape[-1])
        M, N = x_arg.shape

        # one rstd a row, for the backward
        rstd = torch.empty((M,), dtype=torch.float32, device=x.device)

        # under 64 KB a row: the fused kernel
        MAX_FUSED_SIZE = 65536 // x.element_size()
        BLOCK_SIZE_N = min(MAX_FUSED_SIZE, triton.next_power_of_2(N))
        if N > BLOCK_SIZE_N:
            raise RuntimeError("This layer norm doesn't support feature dim >= 64KB.")

        if not x_arg.is_contiguous() or not y.is_contiguous():
            x_arg = x_arg.contiguous()
            y = y.contiguous()

        # the warps, from the block
        num_warps = min(max(BLOCK_SIZE_N // 256, 1), 16)

        # launch
        # fmt: off
        srms_norm_fw[(M,)](
            x_arg, y, rstd,
            x_arg.stride(0),
            N,
            eps,
            num_warps=num_warps,
            BLOCK_SIZE_N=BLOCK_SIZE_N,
        )
        # fmt: on

        ctx.save_for_backward(x, rstd)
        ctx.BLOCK_SIZE_N = BLOCK_SIZE_N
        ctx.num_warps = num_warps

        return y.reshape_as(x)

    @staticmethod
    def backward(
        ctx, dy
    ):  # pragma: no cover  # covered, but called from C++
        x, rstd = ctx.saved_tensors

        # the batch dimensions flattened: samples x the normalized dimension
        x = x.reshape(-1, x.size(-1))
        M, N = x.size()

        # how many partial rows reduce DG / DB in parallel
        GROUP_SIZE_M = 32
        if N <= 8192:
            GROUP_SIZE_M = 64
        if N <= 4096:
            GROUP_SIZE_M = 96
        if N <= 2048:
            GROUP_SIZE_M = 128
        if N <= 1024:
            GROUP_SIZE_M = 256

        if dy.dtype == torch.float32:
            GROUP_SIZE_M = GROUP_SIZE_M // 2

        # the output
        dy = dy.contiguous()
        dx = torch.empty_like(dy)

        # the kernel assumes equal sizes and contiguous layouts
        assert (
            dy.numel() == x.numel()
        ), "Something is wrong in the backward graph, possibly because of an inplace operation after the layernorm"

        # the forward's settings; the warps again
        num_warps = min(max(ctx.BLOCK_SIZE_N // 256, 1), 16)

        # fmt: off
        srms_norm_bwd_dx_fused[(M,)](
            dx, dy, x,
            rstd,
            x.stride(0),
            N,
            BLOCK_SIZE_N=ctx.BLOCK_SIZE_N,
            num_warps=num_warps
        )
        # fmt: on

        dx = dx.reshape_as(dy)
        return dx, None, None


class SimpleRMSNorm(torch.nn.Module):
    def __init__(self, dim: int, eps: float = 1e-6):
        super().__init__()
        self.eps = eps
        self.dim = dim

    def forward(self, x):
        return _SrmsNorm.apply(x, self.eps)


def run(x, dy):
    """x / rms(x) over the last dimension, then the gradient of x for the output's gradient dy."""
    with torch.enable_grad():
        x = x.detach().requires_grad_()
        y = SimpleRMSNorm(x.shape[-1])(x)
        (dx,) = torch.autograd.grad(y, (x,), dy)
    return y.detach(), dx
