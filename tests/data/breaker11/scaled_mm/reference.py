import torch

SHAPES = [{"M": 5, "N": 48, "K": 200}, {"M": 70, "N": 96, "K": 128}, {"M": 150, "N": 40, "K": 72}]
ATOL = 1e-4
RTOL = 1e-5


def get_inputs(M=5, N=48, K=200, device="cpu"):
    g = torch.Generator().manual_seed(M * 1000 + N * 10 + K)
    a = torch.randint(-127, 128, (M, K), generator=g, dtype=torch.int8)
    b = torch.randint(-127, 128, (K, N), generator=g, dtype=torch.int8)
    scale_a = torch.rand(M, 1, generator=g) / 100 + 1e-3
    scale_b = torch.rand(N, 1, generator=g) / 100 + 1e-3
    return [a.to(device), b.to(device), scale_a.to(device), scale_b.to(device)]


def reference(a, b, scale_a, scale_b):
    acc = (a.double() @ b.double()).float()
    return acc * scale_a.reshape(-1, 1) * scale_b.reshape(1, -1)
