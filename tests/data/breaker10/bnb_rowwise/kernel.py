"""bitsandbytes' ``quantize_rowwise`` (its Triton int8 path for SwitchBack layers): one program a row, the row's
absmax and ``llrint(127 * x / absmax)``. The row length is passed as ``BLOCK_SIZE=x.shape[1]`` (the name of a block,
the value the row's length) and the arange covers it with ``P2 = int(2 ** (math.ceil(math.log2(x.shape[1]))))``;
the kernel is autotuned over twelve configs of ``num_stages`` / ``num_warps`` only, keyed on ``n_elements``, and the
grid is ``lambda meta: (x.shape[0],)``. The library's ``tl.libdevice.llrint`` is ``tl.extra.cuda.libdevice.llrint``
in Triton 3."""

import math

import torch
import triton
import triton.language as tl


@triton.autotune(
    configs=[
        triton.Config({}, num_stages=1, num_warps=8),
        triton.Config({}, num_stages=2, num_warps=8),
        triton.Config({}, num_stages=4, num_warps=8),
        triton.Config({}, num_stages=8, num_warps=8),
        triton.Config({}, num_stages=1),
        triton.Config({}, num_stages=2),
        triton.Config({}, num_stages=4),
        triton.Config({}, num_stages=8),
        triton.Config({}, num_warps=1),
        triton.Config({}, num_warps=2),
        triton.Config({}, num_warps=4),
        triton.Config({}, num_warps=8),
    ],
    key=["n_elements"],
)
@triton.jit
def _quantize_rowwise(
    x_ptr,
    output_ptr,
    output_maxs,
    n_elements,
    BLOCK_SIZE: tl.constexpr,
    P2: tl.constexpr,
):
    pid = tl.program_id(axis=0)
    block_start = pid * BLOCK_SIZE
    arange = tl.arange(0, P2)
    offsets = block_start + arange
    row_mask = arange < BLOCK_SIZE
    x = tl.load(x_ptr + offsets, mask=row_mask)

    abs_x = tl.abs(x)
    max_val = tl.max(tl.where(row_mask, abs_x, 0), axis=0)
    output = tl.extra.cuda.libdevice.llrint(127.0 * (x / max_val))
    tl.store(output_ptr + offsets, output, mask=row_mask)
    tl.store(output_maxs + pid, max_val)


def quantize_rowwise(x: torch.Tensor):
    output = torch.empty(*x.shape, device=x.device, dtype=torch.int8)
    output_maxs = torch.empty(x.shape[0], device=x.device, dtype=torch.float16)

    P2 = int(2 ** (math.ceil(math.log2(x.shape[1]))))

    n_elements = output.numel()
    grid = lambda meta: (x.shape[0],)  # noqa: E731
    _quantize_rowwise[grid](x, output, output_maxs, n_elements, BLOCK_SIZE=x.shape[1], P2=P2)
    return output, output_maxs


def run(x):
    return quantize_rowwise(x)
