"""An fp16 GEMM with fp32 accumulation at a small entry and the dtype's default tolerance (review23 r33, from
examples/matmul): the kernel and the reference sum K in other orders, so their fp16 results differ by a few flips
of the last bit, as many as chance makes; a BLOCK_K that sums in yet another order is as accurate.
"""

import torch

# The main (timed) shape first, then a small one that also runs under TRITON_INTERPRET=1 on the CPU.
# 96 x 80 x 72 is not a multiple of 32 in N or K, so the edge masks are exercised.
SHAPES = [{"M": 64, "N": 64, "K": 1024}]


def _default_device() -> str:
    return "cuda" if torch.cuda.is_available() else "cpu"


def get_inputs(M: int = 64, N: int = 64, K: int = 1024, device: str | None = None):
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
