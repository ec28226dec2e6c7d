"""Reference for RMSNorm: x / sqrt(mean(x^2) + eps) * weight, computed in fp32, returned in bf16.

Main shape: 32768 x 8192 bf16, 512 MiB in and 512 MiB out (issue 22: realistic sizes): memory-bound.
"""

import torch

SHAPES = [{"n_rows": 32768, "n_cols": 8192}, {"n_rows": 6, "n_cols": 300}]
EPS = 1e-6

# bf16 keeps 8 significant bits: the output rounding alone is up to 2^-8 relative.
ATOL = 1e-2
RTOL = 1e-2


def _default_device() -> str:
    return "cuda" if torch.cuda.is_available() else "cpu"


def get_inputs(n_rows: int = 32768, n_cols: int = 8192, device: str | None = None):
    """x (n_rows x n_cols) standard normal and a weight of n_cols values near 1, bf16 on ``device``."""
    device = device or _default_device()
    x = torch.randn(n_rows, n_cols, device=device, dtype=torch.bfloat16)
    w = (1 + 0.1 * torch.randn(n_cols, device=device)).to(torch.bfloat16)
    return [x, w]


def reference(x, weight):
    xf = x.float()
    rstd = torch.rsqrt(xf.pow(2).mean(dim=-1, keepdim=True) + EPS)
    return (xf * rstd * weight.float()).to(x.dtype)


def flops(x, weight) -> int:
    """4 operations per element (square, sum, scale, weight)."""
    return 4 * x.numel()


def bytes_moved(x, weight) -> int:
    """Read x once, write y once."""
    return 2 * x.numel() * x.element_size() + weight.numel() * weight.element_size()
