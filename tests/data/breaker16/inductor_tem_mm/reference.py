import torch

SHAPES = [{"M": 96, "N": 80, "K": 64}, {"M": 130, "N": 33, "K": 50}, {"M": 17, "N": 200, "K": 100}]
ATOL = 1e-3  # ALLOW_TF32 False: a full fp32 dot on a GPU too
RTOL = 1e-4


def get_inputs(M=96, N=80, K=64, device="cpu"):
    g = torch.Generator().manual_seed(M * 10000 + N * 100 + K)
    return [torch.randn(M, K, generator=g).to(device), torch.randn(K, N, generator=g).to(device)]


def reference(a, b):
    return a @ b
