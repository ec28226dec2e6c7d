"""Reference for the row softmax: softmax(x, dim=-1) of a 2-D fp16 tensor.

Main shape: 32768 x 4096 fp16 (256 MiB in, 256 MiB out), well beyond the H200's 60 MiB L2, so the
kernel streams from HBM and is memory-bound.
"""

import torch

# The main (timed) shape first, then a small one that also runs under TRITON_INTERPRET=1 on the CPU.
# 300 columns is not a multiple of any chunk width, so the column mask is exercised.
SHAPES = [{"n_rows": 32768, "n_cols": 4096}, {"n_rows": 5, "n_cols": 300}]

# Outputs lie in (0, 1]; fp16 keeps about 3 significant digits. The absolute floor covers the
# smallest probabilities (about 1e-6 for randn rows of 4096), the relative part the fp16 rounding.
ATOL = 1e-5
RTOL = 1e-2


def _default_device() -> str:
    return "cuda" if torch.cuda.is_available() else "cpu"


def get_inputs(n_rows: int = 32768, n_cols: int = 4096, device: str | None = None):
    """One fp16 matrix of standard-normal values on ``device`` (default: cuda when available)."""
    device = device or _default_device()
    return [torch.randn(n_rows, n_cols, device=device, dtype=torch.float16)]


def reference(x):
    """softmax over the last dimension, computed in at least fp32, returned in the input dtype."""
    wide = torch.promote_types(x.dtype, torch.float32)
    return torch.softmax(x.to(wide), dim=-1).to(x.dtype)


def flops(x) -> int:
    """Arithmetic operations of the formula, 5 per element.

    max-reduction (1 compare), subtract the max (1), exp (1), sum-reduction (1 add), divide by the sum
    (1). The kernel evaluates exp twice per element; only the formula's work is counted.
    """
    return 5 * x.numel()


def bytes_moved(x) -> int:
    """Compulsory DRAM traffic: read the input once and write the output once."""
    return 2 * x.numel() * x.element_size()
