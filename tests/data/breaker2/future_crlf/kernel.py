"""GELU (tanh), autotuned over one config, heuristics stacked, tabs and CRLF."""

from __future__ import annotations

import torch
import triton
import triton.language as tl


@triton.autotune(configs=[triton.Config({"BLOCK": 128}, num_warps=4)], key=["n"])
@triton.heuristics({"EVEN": lambda args: args["n"] % args["BLOCK"] == 0})
@triton.jit
def _gelu(x_ptr, y_ptr, n, BLOCK: tl.constexpr, EVEN: tl.constexpr):
	offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
	if EVEN:
		x = tl.load(x_ptr + offs)
	else:
		x = tl.load(x_ptr + offs, mask=offs < n, other=0.0)
	t = 0.7978845608 * (x + 0.044715 * x * x * x)
	y = 0.5 * x * (1.0 + (2.0 / (1.0 + tl.exp(-2.0 * t)) - 1.0))
	if EVEN:
		tl.store(y_ptr + offs, y)
	else:
		tl.store(y_ptr + offs, y, mask=offs < n)


def run(x: torch.Tensor) -> torch.Tensor:
	y = torch.empty_like(x)
	n = x.numel()
	grid = lambda meta: (triton.cdiv(n, meta["BLOCK"]),)
	_gelu[grid](x, y, n)
	return y
