import torch

# a (M, K), b (K, N) float32, cut by the kernel's run into 2 x 2 tiles of uneven sizes; c = a @ b, float32 (M, N)
SHAPES = [{"M": 96, "N": 64, "K": 128}, {"M": 50, "N": 70, "K": 90}, {"M": 130, "N": 33, "K": 64}]
ATOL = 1e-3
RTOL = 1e-4


def get_inputs(M=96, N=64, K=128, device="cpu"):
    g = torch.Generator().manual_seed(M * 1000003 + N * 1009 + K)
    return [torch.randn(M, K, generator=g).to(device), torch.randn(K, N, generator=g).to(device)]


def reference(a, b):
    return (a.double() @ b.double()).float()
