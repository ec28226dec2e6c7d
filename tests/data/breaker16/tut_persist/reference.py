import torch

SHAPES = [{"M": 256, "N": 256, "K": 128}, {"M": 300, "N": 130, "K": 72}, {"M": 70, "N": 520, "K": 200}]
ATOL = 5e-2  # fp16 operands and output, fp32 sums
RTOL = 1e-2


def get_inputs(M=256, N=256, K=128, device="cpu"):
    g = torch.Generator().manual_seed(M * 10000 + N * 10 + K)
    a = (torch.randn(M, K, generator=g) * 0.2).half()
    b = (torch.randn(K, N, generator=g) * 0.2).half()
    return [a.to(device), b.to(device)]


def reference(a, b):
    return (a.float() @ b.float()).half()
