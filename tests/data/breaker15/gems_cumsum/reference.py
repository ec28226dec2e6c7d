import torch

# (A, N, K): the scan runs along N, A rows before it, K columns after it
SHAPES = [{"A": 20, "N": 50, "K": 3}, {"A": 3, "N": 200, "K": 1}, {"A": 70, "N": 7, "K": 5}]
ATOL = 1e-3  # an fp32 scan over N = 1024 (sums near 100): 1.6e-4 off in sequence (numpy), 2026-12-06
RTOL = 1e-4


def get_inputs(A=20, N=50, K=3, device="cpu"):
    g = torch.Generator().manual_seed(A * 100000 + N * 100 + K)
    return [torch.randn(A, N, K, generator=g).to(device)]


def reference(x):
    return torch.cumsum(x.double(), dim=1).float()
