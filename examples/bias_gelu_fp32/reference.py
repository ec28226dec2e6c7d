"""Reference for bias + GELU: gelu(x + bias, approximate="tanh"), fp32.

Main shape: 16384 x 16384 fp32, 1 GiB in and 1 GiB out (issue 22: realistic sizes, 256 MB to 1 GB per
tensor), far beyond the H200's L2: memory-bound, the roofline bound is the HBM bandwidth.
"""

import torch

SHAPES = [{"n_rows": 16384, "n_cols": 16384}, {"n_rows": 7, "n_cols": 300}]

# fp32 throughout; the kernel's tanh through exp and torch's differ by a few ulp.
ATOL = 1e-5
RTOL = 1e-5


def _default_device() -> str:
    return "cuda" if torch.cuda.is_available() else "cpu"


def get_inputs(n_rows: int = 16384, n_cols: int = 16384, device: str | None = None):
    """x (n_rows x n_cols) standard normal times 3, and a bias of n_cols values; fp32 on ``device``."""
    device = device or _default_device()
    x = 3 * torch.randn(n_rows, n_cols, device=device, dtype=torch.float32)
    bias = torch.randn(n_cols, device=device, dtype=torch.float32)
    return [x, bias]


def reference(x, bias):
    return torch.nn.functional.gelu(x + bias, approximate="tanh")


def flops(x, bias) -> int:
    """About 10 operations per element (bias add, cubic, tanh argument, tanh, final product)."""
    return 10 * x.numel()


def bytes_moved(x, bias) -> int:
    """Read x once, write y once (the bias row stays in cache)."""
    return 2 * x.numel() * x.element_size() + bias.numel() * bias.element_size()
