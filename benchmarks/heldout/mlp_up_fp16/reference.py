"""Reference for the fp16 MLP up-projection y = x @ W^T (fp32 accumulation, fp16 result).

Main shape: M=16384 tokens, K=8192 in, N=4096 out: x 256 MiB, W 64 MiB, y 128 MiB; 1.1 TFLOP a call.
"""

import math

import torch

# The main (timed) shape first, then a small one with edges that are no multiple of the tiles (it also
# runs under TRITON_INTERPRET=1 on the CPU).
SHAPES = [{"M": 16384, "N": 4096, "K": 8192}, {"M": 72, "N": 40, "K": 100}]

# W has std 1/sqrt(K), so y is about standard normal; fp16 keeps 11 significant bits.
ATOL = 1e-2
RTOL = 1e-2


def _default_device() -> str:
    return "cuda" if torch.cuda.is_available() else "cpu"


def get_inputs(M: int = 16384, N: int = 4096, K: int = 8192, device: str | None = None):
    """x (M x K) standard normal, W (N x K) with std 1/sqrt(K); fp16 on ``device``."""
    device = device or _default_device()
    x = torch.randn(M, K, device=device, dtype=torch.float16)
    w = (torch.randn(N, K, device=device, dtype=torch.float32) / math.sqrt(K)).to(torch.float16)
    return [x, w]


def reference(x, w):
    wide = torch.float32
    return (x.to(wide) @ w.to(wide).T).to(x.dtype)


def flops(x, w) -> int:
    return 2 * x.shape[0] * w.shape[0] * x.shape[1]


def bytes_moved(x, w) -> int:
    return (x.numel() + w.numel() + x.shape[0] * w.shape[0]) * x.element_size()
