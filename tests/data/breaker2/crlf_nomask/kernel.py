"""Scale a 2-D tensor as a flat vector: whole blocks, no mask (the element count must be a multiple of BLOCK)."""

import torch
import triton
import triton.language as tl


@triton.jit
def _scale(x_ptr, y_ptr, alpha, BLOCK: tl.constexpr):
	offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
	tl.store(y_ptr + offs, tl.load(x_ptr + offs) * alpha)


def run(x):
	n = x.shape[0] * x.shape[1]
	y = torch.empty_like(x)
	_scale[(n // 64,)](x, y, 2.5, BLOCK=64)
	return y
