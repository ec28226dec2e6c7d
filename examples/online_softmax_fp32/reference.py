"""Reference for the row softmax in fp32: softmax(x, dim=-1).

Main shape: 16384 x 8192 fp32, 512 MiB in and 512 MiB out (issue 22: realistic sizes): memory-bound.
"""

import torch

SHAPES = [{"n_rows": 16384, "n_cols": 8192}, {"n_rows": 5, "n_cols": 700}]

# fp32 throughout; the online rescaling changes the rounding order of the sum.
ATOL = 1e-7
RTOL = 1e-4


def _default_device() -> str:
    return "cuda" if torch.cuda.is_available() else "cpu"


def get_inputs(n_rows: int = 16384, n_cols: int = 8192, device: str | None = None):
    """One fp32 matrix of standard-normal values times 4 on ``device``."""
    device = device or _default_device()
    return [4 * torch.randn(n_rows, n_cols, device=device, dtype=torch.float32)]


def reference(x):
    return torch.softmax(x, dim=-1)


def flops(x) -> int:
    """5 operations per element of the formula (max, subtract, exp, sum, divide)."""
    return 5 * x.numel()


def bytes_moved(x) -> int:
    """Compulsory DRAM traffic: read the input once and write the output once."""
    return 2 * x.numel() * x.element_size()
