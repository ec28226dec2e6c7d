"""Reference for the fused SiLU + residual add: out = x * sigmoid(x) + y, elementwise.

Main shape: 2**28 fp16 elements per input (512 MiB each, 1.5 GiB moved per call), far larger than
the H200's 60 MiB L2, so the kernel streams from HBM and is bound by memory bandwidth.
"""

import torch

# The main (timed) shape first, then a small one that also runs under TRITON_INTERPRET=1 on the CPU.
# 4099 is not a multiple of any block size, so the tail mask is exercised.
SHAPES = [{"n": 2**28}, {"n": 4099}]

# fp16 output: one rounding of a value of magnitude up to ~10 (about 5e-3 absolute) plus the
# difference between the kernel's fp32 sigmoid and torch's.
ATOL = 1e-2
RTOL = 1e-2


def _default_device() -> str:
    return "cuda" if torch.cuda.is_available() else "cpu"


def get_inputs(n: int = 2**28, device: str | None = None):
    """Two fp16 vectors of ``n`` standard-normal values on ``device`` (default: cuda when available)."""
    device = device or _default_device()
    x = torch.randn(n, device=device, dtype=torch.float16)
    y = torch.randn(n, device=device, dtype=torch.float16)
    return [x, y]


def reference(x, y):
    """x * sigmoid(x) + y computed in at least fp32, returned in the input dtype."""
    wide = torch.promote_types(x.dtype, torch.float32)
    xf, yf = x.to(wide), y.to(wide)
    return (xf * torch.sigmoid(xf) + yf).to(x.dtype)


def flops(x, y) -> int:
    """Arithmetic operations of the formula, 6 per element.

    sigmoid(x) = 1 / (1 + exp(-x)) is 4 (negate, exp, add, divide), then one multiply by x and one
    add of y.
    """
    return 6 * x.numel()


def bytes_moved(x, y) -> int:
    """Compulsory DRAM traffic: read x and y, write out (each numel * element size bytes)."""
    return 3 * x.numel() * x.element_size()
