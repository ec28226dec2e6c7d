import torch

# (M, K) @ (K, N) + bias(N), float32 (bf16 on a GPU is the authors' main use); the tolerance TF32's, which a GPU's
# tl.dot of float32 operands uses (Triton's default input precision)
SHAPES = [{"M": 130, "N": 72, "K": 40}, {"M": 7, "N": 260, "K": 33}, {"M": 300, "N": 128, "K": 64}]
ATOL = 2e-2
RTOL = 1e-2


def get_inputs(M=130, N=72, K=40, device="cpu", dtype=torch.float32):
    g = torch.Generator().manual_seed(M * 10007 + N * 101 + K)
    a = torch.randn(M, K, generator=g).to(dtype)
    b = (torch.randn(K, N, generator=g) / K**0.5).to(dtype)
    bias = torch.randn(N, generator=g).to(dtype)
    return [a.to(device), b.to(device), bias.to(device)]


def reference(a, b, bias):
    return (a.float() @ b.float() + bias.float()).to(a.dtype)
