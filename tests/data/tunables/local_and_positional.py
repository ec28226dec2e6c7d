"""Knobs defined in the launching function: a parameter default, a local, and a positional constexpr."""

import triton
import triton.language as tl


@triton.jit
def rms_kernel(x, out, n, eps, BLOCK: tl.constexpr, ROWS: tl.constexpr):
    pass


def run(x, out, block=512):
    n = x.shape[-1]
    warps = 4
    rms_kernel[(x.shape[0],)](x, out, n, 1e-6, block, 2, num_warps=warps)
    return out


def run_computed(x, out):
    n = x.shape[-1]
    rms_kernel[(x.shape[0],)](x, out, n, 1e-6, triton.next_power_of_2(n), 1, num_warps=4)
    return out
