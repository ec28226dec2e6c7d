"""The Triton tutorial's low-memory dropout (``_seeded_dropout``): the keep mask is never stored, each element draws
``tl.rand(seed, offsets)`` (Philox of the element's flat offset), keeps it with probability ``1 - p`` and scales it
by ``1 / (1 - p)``. ``BLOCK_SIZE=1024`` at the launch, the grid ``lambda meta: (triton.cdiv(n_elements,
meta['BLOCK_SIZE']),)``. The result depends on the offsets only, so every block gives the same values."""

import torch
import triton
import triton.language as tl


@triton.jit
def _seeded_dropout(
    x_ptr,
    output_ptr,
    n_elements,
    p,
    seed,
    BLOCK_SIZE: tl.constexpr,
):
    pid = tl.program_id(axis=0)
    block_start = pid * BLOCK_SIZE
    offsets = block_start + tl.arange(0, BLOCK_SIZE)
    mask = offsets < n_elements
    x = tl.load(x_ptr + offsets, mask=mask)
    random = tl.rand(seed, offsets)
    x_keep = random > p
    output = tl.where(x_keep, x / (1 - p), 0.0)
    tl.store(output_ptr + offsets, output, mask=mask)


def seeded_dropout(x, p, seed):
    output = torch.empty_like(x)
    assert x.is_contiguous()
    n_elements = x.numel()
    grid = lambda meta: (triton.cdiv(n_elements, meta["BLOCK_SIZE"]),)  # noqa: E731
    _seeded_dropout[grid](x, output, n_elements, p, seed, BLOCK_SIZE=1024)
    return output


def run(x):
    return seeded_dropout(x, p=0.5, seed=123)
