"""Reference for layer norm over the last dimension with weight and bias (eps 1e-5).

Main shape: 16384 x 8192 fp16 (256 MiB in, 256 MiB out, plus 32 KiB of weight and bias), beyond the
H200's 60 MiB L2, so the kernel streams from HBM and is memory-bound.
"""

import torch
import torch.nn.functional as F

EPS = 1e-5

# The main (timed) shape first, then a small one that also runs under TRITON_INTERPRET=1 on the CPU.
# 1000 columns is not a multiple of any chunk width, so the column mask is exercised.
SHAPES = [{"n_rows": 16384, "n_cols": 8192}, {"n_rows": 6, "n_cols": 1000}]

# Normalized values are O(1) (|y| up to ~10 with the random weight and bias); fp16 output rounding
# is ~5e-3 there, and the kernel's fp32 reductions differ from torch's in order only.
ATOL = 1e-2
RTOL = 1e-2


def _default_device() -> str:
    return "cuda" if torch.cuda.is_available() else "cpu"


def get_inputs(n_rows: int = 16384, n_cols: int = 8192, device: str | None = None):
    """x (n_rows x n_cols), weight and bias (n_cols), fp16 on ``device`` (default: cuda when available).

    The weight is drawn around 1 and the bias around 0 so that neither hides an error in the other.
    """
    device = device or _default_device()
    x = torch.randn(n_rows, n_cols, device=device, dtype=torch.float16)
    weight = (1.0 + 0.5 * torch.randn(n_cols, device=device)).to(torch.float16)
    bias = (0.5 * torch.randn(n_cols, device=device)).to(torch.float16)
    return [x, weight, bias]


def reference(x, weight, bias):
    """layer_norm(x, (n_cols,), weight, bias, eps) in at least fp32, returned in the input dtype."""
    wide = torch.promote_types(x.dtype, torch.float32)
    out = F.layer_norm(x.to(wide), (x.shape[-1],), weight.to(wide), bias.to(wide), EPS)
    return out.to(x.dtype)


def flops(x, weight, bias) -> int:
    """Arithmetic operations of the formula: 7 per element plus 5 per row.

    Per element: the sum for the mean (1 add), centering x - mean (1), squaring (1), the sum for the
    variance (1 add), times rstd (1), times weight (1), plus bias (1). Per row: mean = sum / n (1),
    var = sum / n (1), var + eps (1), sqrt (1), reciprocal (1). The kernel centers x twice; only the
    formula's work is counted.
    """
    n_rows, n_cols = x.shape
    return 7 * n_rows * n_cols + 5 * n_rows


def bytes_moved(x, weight, bias) -> int:
    """Compulsory DRAM traffic: read x, write y, read weight and bias once."""
    n_rows, n_cols = x.shape
    return 2 * n_rows * n_cols * x.element_size() + n_cols * (weight.element_size() + bias.element_size())
