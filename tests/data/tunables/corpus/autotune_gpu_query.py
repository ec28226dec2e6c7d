"""A persistent elementwise kernel whose autotune list is sized from the GPU at import time: on a
machine without a GPU the module cannot even be imported."""

import torch
import triton
import triton.language as tl

NUM_SMS = torch.cuda.get_device_properties(0).multi_processor_count


def persistent_configs():
    return [triton.Config({"BLOCK": b, "NUM_PROGRAMS": NUM_SMS * w}, num_warps=4) for b in (512, 1024) for w in (1, 2)]


@triton.autotune(configs=persistent_configs(), key=["n"])
@triton.jit
def scale_kernel(x_ptr, out_ptr, n, alpha, BLOCK: tl.constexpr, NUM_PROGRAMS: tl.constexpr):
    for start in range(tl.program_id(0) * BLOCK, n, NUM_PROGRAMS * BLOCK):
        offs = start + tl.arange(0, BLOCK)
        mask = offs < n
        tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=mask) * alpha, mask=mask)


def run(x):
    out = torch.empty_like(x)
    grid = lambda meta: (meta["NUM_PROGRAMS"],)  # noqa: E731
    scale_kernel[grid](x, out, x.numel(), 2.0)
    return out
