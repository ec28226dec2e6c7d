"""Reference for GELU with the tanh approximation, elementwise over an fp32 vector.

Main shape: 2**27 fp32 elements (512 MiB in, 512 MiB out), far beyond the H200's 60 MiB L2, so the
kernel streams from HBM and is memory-bound.
"""

import torch

# The main (timed) shape first, then a small one that also runs under TRITON_INTERPRET=1 on the CPU.
# 20011 is not a multiple of any block size, so the tail mask is exercised.
SHAPES = [{"n": 2**27}, {"n": 20011}]

# fp32 throughout; the kernel's tanh (through exp) and torch's differ by a few ulp.
ATOL = 1e-5
RTOL = 1e-5


def _default_device() -> str:
    return "cuda" if torch.cuda.is_available() else "cpu"


def get_inputs(n: int = 2**27, device: str | None = None):
    """One fp32 vector of ``n`` values, standard normal times 3 (the tails of GELU are exercised)."""
    device = device or _default_device()
    return [3.0 * torch.randn(n, device=device, dtype=torch.float32)]


def reference(x):
    """torch's tanh-approximated GELU computed in at least fp32, returned in the input dtype."""
    wide = torch.promote_types(x.dtype, torch.float32)
    return torch.nn.functional.gelu(x.to(wide), approximate="tanh").to(x.dtype)


def flops(x) -> int:
    """Arithmetic operations of the formula, 9 per element.

    x^3 (2 multiplies), times 0.044715 (1), plus x (1), times sqrt(2/pi) (1), tanh (1), plus 1 (1),
    times x (1), times 0.5 (1). The kernel spells tanh through exp; only the formula's work is counted.
    """
    return 9 * x.numel()


def bytes_moved(x) -> int:
    """Compulsory DRAM traffic: read x once and write y once."""
    return 2 * x.numel() * x.element_size()
