import torch

# x (M, K) @ w (N, K)^T + bias (N), float16; (N, K) = (96, 200) has a tuned file of its own (split-K by 4)
SHAPES = [{"M": 40, "N": 96, "K": 200}, {"M": 7, "N": 130, "K": 72}, {"M": 300, "N": 64, "K": 48}]
ATOL = 1e-2
RTOL = 1e-2


def get_inputs(M=40, N=96, K=200, device="cpu"):
    g = torch.Generator().manual_seed(M * 10007 + N * 101 + K)
    x = torch.randn(M, K, generator=g).half()
    w = (torch.randn(N, K, generator=g) / K**0.5).half()
    bias = torch.randn(N, generator=g).half()
    return [x.to(device), w.to(device), bias.to(device)]


def reference(x, w, bias):
    return (x.float() @ w.float().T + bias.float()).half()
