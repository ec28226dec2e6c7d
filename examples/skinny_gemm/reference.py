"""Reference for the tall-skinny fp16 GEMM C = A @ B (fp32 accumulation, fp16 result).

Main shape: M=16384, N=128, K=4096. A is 128 MiB and is read once; B (1 MiB) and C (4 MiB) are small.
17.2 GFLOP against 133 MiB of compulsory traffic, about 123 FLOP/byte: below the H200's fp16 ridge
point (about 206 FLOP/byte at 989.5 TFLOP/s and 4.8 TB/s), so the roofline bound is streaming A from
HBM, not the tensor cores.
"""

import math

import torch

# The main (timed) shape first, then a small one that also runs under TRITON_INTERPRET=1 on the CPU.
# 72 x 48 x 80 is not a multiple of 32 in any dimension, so every edge mask is exercised.
SHAPES = [{"M": 16384, "N": 128, "K": 4096}, {"M": 72, "N": 48, "K": 80}]

# B is scaled by 1/sqrt(K), so entries of C are about standard normal whatever K; the fp16 result keeps
# about 3 significant digits, and the fp32 accumulation order differs between kernel and reference.
ATOL = 1e-2
RTOL = 1e-2


def _default_device() -> str:
    return "cuda" if torch.cuda.is_available() else "cpu"


def get_inputs(M: int = 16384, N: int = 128, K: int = 4096, device: str | None = None):
    """A (M x K) standard normal and B (K x N) normal with std 1/sqrt(K), fp16 on ``device``."""
    device = device or _default_device()
    a = torch.randn(M, K, device=device, dtype=torch.float16)
    b = (torch.randn(K, N, device=device, dtype=torch.float32) / math.sqrt(K)).to(torch.float16)
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
    """Compulsory DRAM traffic: read A and B once, write C once."""
    M, K = a.shape
    N = b.shape[1]
    return (M * K + K * N + M * N) * a.element_size()
