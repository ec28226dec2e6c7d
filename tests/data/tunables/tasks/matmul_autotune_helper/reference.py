"""Reference for the autotuned GEMM of the corpus (configs from helpers), CPU-sized for the interpreter."""

import torch

SHAPES = [{"M": 64, "N": 64, "K": 64}]
ATOL = 1e-3
RTOL = 1e-3


def get_inputs(M: int = 64, N: int = 64, K: int = 64, device: str = "cpu"):
    return [torch.randn(M, K, device=device), torch.randn(K, N, device=device)]


def reference(a, b):
    return a @ b
