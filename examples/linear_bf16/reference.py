"""Reference for the bf16 linear layer y = x @ W^T + b (fp32 accumulation, bf16 result).

Main shape: M=8192 tokens, K=4096 input features, N=4096 output features (W is N x K, as in
torch.nn.Linear). 275 GFLOP per call against 160 MiB of compulsory traffic: compute-bound on the
H200's bf16 tensor cores.
"""

import math

import torch

# The main (timed) shape first, then a small one that also runs under TRITON_INTERPRET=1 on the CPU.
# 80 x 48 x 96 is not a multiple of 64 in M or N, nor of BLOCK_K=256, so the edge masks are exercised.
SHAPES = [{"M": 8192, "N": 4096, "K": 4096}, {"M": 80, "N": 48, "K": 96}]

# W has std 1/sqrt(K) (nn.Linear's scale), so y is about standard normal; bf16 keeps 8 significant
# bits (relative rounding up to 2^-8 = 0.4 %), and fp32 accumulation order differs from the reference.
ATOL = 2e-2
RTOL = 2e-2


def _default_device() -> str:
    return "cuda" if torch.cuda.is_available() else "cpu"


def get_inputs(M: int = 8192, N: int = 4096, K: int = 4096, device: str | None = None):
    """x (M x K) standard normal, W (N x K) with std 1/sqrt(K), b (N) with std 0.1; bf16 on ``device``."""
    device = device or _default_device()
    x = torch.randn(M, K, device=device, dtype=torch.bfloat16)
    w = (torch.randn(N, K, device=device, dtype=torch.float32) / math.sqrt(K)).to(torch.bfloat16)
    b = (0.1 * torch.randn(N, device=device, dtype=torch.float32)).to(torch.bfloat16)
    return [x, w, b]


def reference(x, weight, bias):
    """x @ W^T + b computed in at least fp32, returned in the input dtype."""
    wide = torch.promote_types(x.dtype, torch.float32)
    return (x.to(wide) @ weight.to(wide).T + bias.to(wide)).to(x.dtype)


def flops(x, weight, bias) -> int:
    """2 * M * N * K for the product plus M * N bias adds."""
    M, K = x.shape
    N = weight.shape[0]
    return 2 * M * N * K + M * N


def bytes_moved(x, weight, bias) -> int:
    """Compulsory DRAM traffic: read x, W and b once, write y once."""
    M, K = x.shape
    N = weight.shape[0]
    return (M * K + N * K + N + M * N) * x.element_size()
