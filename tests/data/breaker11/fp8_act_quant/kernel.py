"""DeepSeek-V3's activation quantization to fp8 (``act_quant`` of its inference kernels; torchao's
``fp8_blockwise_act_quant`` is the same): one fp32 scale per ``block_size`` consecutive values (``amax / 448``),
each value divided by it and stored into a ``float8_e4m3fn`` tensor. No mask: ``assert x.size(-1) % block_size ==
0``; the block is the launcher's keyword default ``block_size: int = 128`` passed as ``BLOCK_SIZE=block_size``, the
same value sizing the scales' tensor (``x.size(-1) // block_size``); a grid ``lambda meta`` over ``x.numel()``."""

from typing import Tuple

import torch
import triton
import triton.language as tl


@triton.jit
def act_quant_kernel(x_ptr, y_ptr, s_ptr, BLOCK_SIZE: tl.constexpr):
    pid = tl.program_id(axis=0)
    offs = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    x = tl.load(x_ptr + offs).to(tl.float32)
    s = tl.max(tl.abs(x)) / 448.0
    y = x / s
    y = y.to(y_ptr.dtype.element_ty)
    tl.store(y_ptr + offs, y)
    tl.store(s_ptr + pid, s)


def act_quant(x: torch.Tensor, block_size: int = 128) -> Tuple[torch.Tensor, torch.Tensor]:
    assert x.is_contiguous()
    assert x.size(-1) % block_size == 0
    y = torch.empty_like(x, dtype=torch.float8_e4m3fn)
    s = x.new_empty(*x.size()[:-1], x.size(-1) // block_size, dtype=torch.float32)
    grid = lambda meta: (triton.cdiv(x.numel(), meta["BLOCK_SIZE"]),)  # noqa: E731
    act_quant_kernel[grid](x, y, s, BLOCK_SIZE=block_size)
    return y, s


def run(x):
    return act_quant(x)
