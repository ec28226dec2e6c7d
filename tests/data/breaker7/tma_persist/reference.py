import torch

SHAPES = [{"M": 64, "N": 64, "K": 64}, {"M": 100, "N": 72, "K": 96}]
ATOL = 2e-2
RTOL = 2e-2


def get_inputs(M=100, N=72, K=96, device="cpu"):
    return [torch.randn(M, K, device=device).half(), torch.randn(N, K, device=device).half()]


def reference(a, b):
    return (a.float() @ b.float().T).half()
