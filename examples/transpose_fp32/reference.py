"""Reference for the out-of-place transpose of an fp32 matrix (y = x^T, contiguous).

Main shape: 8192 x 16384 fp32 (512 MiB in, 512 MiB out), far beyond the H200's 60 MiB L2: pure data
movement, memory-bound.
"""

import torch

# The main (timed) shape first, then a small one that also runs under TRITON_INTERPRET=1 on the CPU.
# 100 x 70 is not a multiple of 16 in either dimension, so both edge masks are exercised.
SHAPES = [{"M": 8192, "N": 16384}, {"M": 100, "N": 70}]

# A transpose copies values: the result is exact up to these guards.
ATOL = 1e-6
RTOL = 1e-6


def _default_device() -> str:
    return "cuda" if torch.cuda.is_available() else "cpu"


def get_inputs(M: int = 8192, N: int = 16384, device: str | None = None):
    """One fp32 matrix (M x N) of standard-normal values on ``device`` (default: cuda when available)."""
    device = device or _default_device()
    return [torch.randn(M, N, device=device, dtype=torch.float32)]


def reference(x):
    """x^T as a new contiguous tensor."""
    return x.t().contiguous()


def flops(x) -> int:
    """A transpose does no arithmetic."""
    return 0


def bytes_moved(x) -> int:
    """Compulsory DRAM traffic: read x once and write y once."""
    return 2 * x.numel() * x.element_size()
