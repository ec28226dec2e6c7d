"""The grid repeats the block size in an expression that cannot be rewritten safely."""

import triton
import triton.language as tl


@triton.jit
def copy_kernel(src, dst, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(dst + offs, tl.load(src + offs, mask=offs < n), mask=offs < n)


def run(src, dst):
    n = src.numel()
    grid = (n // 1024 + (1 if n % 1024 else 0),)
    copy_kernel[grid](src, dst, n, BLOCK=1024, num_warps=4)
    return dst
