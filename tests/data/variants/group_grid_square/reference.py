import torch

SHAPES = [{"M": 64, "N": 64, "K": 64}, {"M": 128, "N": 128, "K": 64}]


def get_inputs(M=64, N=64, K=64, device="cpu"):
    g = torch.Generator().manual_seed(M * 3 + N * 5 + K)
    return [torch.randn(M, K, generator=g).to(device), torch.randn(K, N, generator=g).to(device)]


def reference(a, b):
    return a @ b
