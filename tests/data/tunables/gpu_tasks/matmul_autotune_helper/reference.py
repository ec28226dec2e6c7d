"""H200 task for the autotuned GEMM of the tunables corpus: C = A @ B in fp16, 4096 cubed (137 GFLOP)."""

import torch

SHAPES = [{"M": 4096, "N": 4096, "K": 4096}, {"M": 96, "N": 80, "K": 72}]
ATOL = 5e-2
RTOL = 1e-2


def get_inputs(M: int = 4096, N: int = 4096, K: int = 4096, device: str = "cuda"):
    return [torch.randn(M, K, device=device, dtype=torch.float16), torch.randn(K, N, device=device, dtype=torch.float16)]


def reference(a, b):
    return (a.float() @ b.float()).to(a.dtype)


def flops(a, b) -> int:
    return 2 * a.shape[0] * b.shape[1] * a.shape[1]


def bytes_moved(a, b) -> int:
    return (a.numel() + b.numel() + a.shape[0] * b.shape[1]) * a.element_size()
