"""Reference for the fp16 matmul C = A @ B (fp32 accumulation, fp16 result).

Main shape: 8192 x 8192 x 8192 (1.1 TFLOP per call, 384 MiB of operands and result): compute-bound on
the H200's tensor cores.
"""

import torch

# The main (timed) shape first, then a small one that also runs under TRITON_INTERPRET=1 on the CPU.
# 96 x 80 x 72 is not a multiple of 32 in N or K, so the edge masks are exercised.
SHAPES = [{"M": 8192, "N": 8192, "K": 8192}, {"M": 96, "N": 80, "K": 72}]

# Entries are sums of K products of standard-normal values (|c| up to ~5 sqrt(K), about 450 at
# K = 8192); the fp16 result keeps about 3 significant digits, and fp32 accumulation order differs
# between the kernel and the reference.
ATOL = 5e-2
RTOL = 1e-2


def _default_device() -> str:
    return "cuda" if torch.cuda.is_available() else "cpu"


def get_inputs(M: int = 8192, N: int = 8192, K: int = 8192, device: str | None = None):
    """A (M x K) and B (K x N), fp16 standard-normal values on ``device`` (default: cuda when available)."""
    device = device or _default_device()
    a = torch.randn(M, K, device=device, dtype=torch.float16)
    b = torch.randn(K, N, device=device, dtype=torch.float16)
    return [a, b]


def reference(a, b):
    """A @ B computed in at least fp32, returned in the input dtype."""
    wide = torch.promote_types(a.dtype, torch.float32)
    return (a.to(wide) @ b.to(wide)).to(a.dtype)


def flops(a, b) -> int:
    """2 * M * N * K: one multiply and one add per term of every dot product."""
    M, K = a.shape
    N = b.shape[1]
    return 2 * M * N * K


def bytes_moved(a, b) -> int:
    """Compulsory DRAM traffic: read A and B once, write C once (tile re-reads are not counted)."""
    M, K = a.shape
    N = b.shape[1]
    return (M * K + K * N + M * N) * a.element_size()
