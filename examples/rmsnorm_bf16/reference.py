"""Reference for RMSNorm over the last dimension with a weight (bf16 in and out, fp32 inside).

Main shape: 65536 x 2048 bf16 (256 MiB in, 256 MiB out), far beyond the H200's 60 MiB L2, so the
kernel streams from HBM and is memory-bound.
"""

import torch

# The main (timed) shape first, then a small one that also runs under TRITON_INTERPRET=1 on the CPU.
# 300 columns is not a multiple of any chunk width, so the column mask is exercised.
SHAPES = [{"n_rows": 65536, "n_cols": 2048}, {"n_rows": 6, "n_cols": 300}]

EPS = 1e-6

# Outputs are about standard normal times a weight near 1; bf16 keeps 8 significant bits (relative
# rounding up to 2^-8 = 0.4 %), and the fp32 sums of squares are added in a different order.
ATOL = 2e-2
RTOL = 2e-2


def _default_device() -> str:
    return "cuda" if torch.cuda.is_available() else "cpu"


def get_inputs(n_rows: int = 65536, n_cols: int = 2048, device: str | None = None):
    """x (n_rows x n_cols) standard normal and a weight of n_cols values near 1, bf16 on ``device``."""
    device = device or _default_device()
    x = torch.randn(n_rows, n_cols, device=device, dtype=torch.bfloat16)
    w = (1.0 + 0.1 * torch.randn(n_cols, device=device, dtype=torch.float32)).to(torch.bfloat16)
    return [x, w]


def reference(x, weight):
    """x / sqrt(mean(x^2, dim=-1) + eps) * weight, computed in at least fp32, returned in the input dtype."""
    wide = torch.promote_types(x.dtype, torch.float32)
    xf = x.to(wide)
    rstd = torch.rsqrt(xf.pow(2).mean(dim=-1, keepdim=True) + EPS)
    return (xf * rstd * weight.to(wide)).to(x.dtype)


def flops(x, weight) -> int:
    """Arithmetic operations of the formula: 4 per element and 3 per row.

    Per element: square (1), sum-reduction (1 add), multiply by rstd (1), multiply by the weight (1).
    Per row: divide the sum by n_cols (1), add eps (1), reciprocal square root (1).
    """
    n_rows, n_cols = x.shape
    return 4 * n_rows * n_cols + 3 * n_rows


def bytes_moved(x, weight) -> int:
    """Compulsory DRAM traffic: read x and the weight once, write y once."""
    return (2 * x.numel() + weight.numel()) * x.element_size()
