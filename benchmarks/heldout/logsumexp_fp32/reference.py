"""Reference for the row log-sum-exp in fp32: torch.logsumexp(x, dim=-1).

Main shape: 32768 x 8192 fp32, 1 GiB in, 128 KiB out: memory-bound.
"""

import torch

SHAPES = [{"n_rows": 32768, "n_cols": 8192}, {"n_rows": 6, "n_cols": 900}]

ATOL = 1e-5
RTOL = 1e-5


def _default_device() -> str:
    return "cuda" if torch.cuda.is_available() else "cpu"


def get_inputs(n_rows: int = 32768, n_cols: int = 8192, device: str | None = None):
    device = device or _default_device()
    return [3 * torch.randn(n_rows, n_cols, device=device, dtype=torch.float32)]


def reference(x):
    return torch.logsumexp(x, dim=-1)


def flops(x) -> int:
    """4 operations per element (max, subtract, exp, add)."""
    return 4 * x.numel()


def bytes_moved(x) -> int:
    return (x.numel() + x.shape[0]) * x.element_size()
