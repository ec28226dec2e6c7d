"""y = 2x + 1 in whole spans (no mask), each program a span of SPAN elements in chunks of BLOCK; SPAN, a name no
known knob, picked at the launch by a size threshold (a heuristic, not a guard)."""

import torch
import triton
import triton.language as tl


@triton.jit
def affine(x_ptr, y_ptr, SPAN: tl.constexpr, BLOCK: tl.constexpr):
    base = tl.program_id(0) * SPAN
    for start in tl.static_range(0, SPAN, BLOCK):
        offs = base + start + tl.arange(0, BLOCK)
        tl.store(y_ptr + offs, 2.0 * tl.load(x_ptr + offs) + 1.0)


def run(x):
    n = x.numel()
    y = torch.empty_like(x)
    grid = lambda meta: (n // meta["SPAN"],)  # noqa: E731
    affine[grid](x, y, SPAN=256 if n >= 1024 else 128, BLOCK=64)
    return y
