"""Reference for the sum of squares of an fp16 vector, returned as a one-element fp32 tensor.

Main shape: 2**28 fp16 elements (512 MiB read, 4 bytes written), far beyond the H200's 60 MiB L2: a
reduction that streams its input from HBM once, memory-bound.
"""

import torch

# The main (timed) shape first, then a small one that also runs under TRITON_INTERPRET=1 on the CPU.
# 50021 is not a multiple of any block size, so the tail mask is exercised.
SHAPES = [{"n": 2**28}, {"n": 50021}]

# The result is about n (2.7e8 at the main shape). The kernel adds fp32 partial sums in whatever
# order the atomics land: each add rounds by up to 2^-24 relative, about 1e-4 relative in all after
# the half a million adds of the naive block size (a random walk of roundings); the reference sums in
# fp64.
ATOL = 1e-3
RTOL = 1e-3


def _default_device() -> str:
    return "cuda" if torch.cuda.is_available() else "cpu"


def get_inputs(n: int = 2**28, device: str | None = None):
    """One fp16 vector of ``n`` standard-normal values on ``device`` (default: cuda when available)."""
    device = device or _default_device()
    return [torch.randn(n, device=device, dtype=torch.float16)]


def reference(x):
    """sum(x^2) in fp64, returned as a one-element fp32 tensor."""
    return x.double().pow(2).sum().reshape(1).to(torch.float32)


def flops(x) -> int:
    """Two operations per element: the square and the add of the reduction."""
    return 2 * x.numel()


def bytes_moved(x) -> int:
    """Compulsory DRAM traffic: read x once and write the 4-byte result."""
    return x.numel() * x.element_size() + 4
