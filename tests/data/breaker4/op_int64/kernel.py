"""Scaled SiLU as a torch.library custom op: the op calls a launch helper through a lambda; offsets are int64, so a
tensor of more than 2**31 elements is addressed correctly."""

import torch
import triton
import triton.language as tl


@triton.jit
def _scaled_silu(x_ptr, y_ptr, n, scale, BLOCK: tl.constexpr):
    pid = tl.program_id(0).to(tl.int64)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=0.0)
    tl.store(y_ptr + offs, scale * x * tl.sigmoid(x), mask=mask)


def _launch(x, y, scale, block=512, warps=4):
    n = x.numel()
    _scaled_silu[(triton.cdiv(n, block),)](x, y, n, scale, BLOCK=block, num_warps=warps)


_LAUNCH = lambda x, y, s: _launch(x, y, s, block=512, warps=4)  # noqa: E731


@torch.library.custom_op("breaker4::scaled_silu", mutates_args=())
def scaled_silu(x: torch.Tensor, scale: float) -> torch.Tensor:
    y = torch.empty_like(x)
    _LAUNCH(x, y, scale)
    return y


@scaled_silu.register_fake
def _(x, scale):
    return torch.empty_like(x)


def run(x):
    return scaled_silu(x, 1.5)
