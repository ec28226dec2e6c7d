import torch

# C = A @ B, fp8 (e4m3) in as the authors feed it, fp16 out; M and N multiples of 64 (the original loads rows and
# columns without a mask), K any
SHAPES = [{"M": 64, "N": 128, "K": 1000}, {"M": 128, "N": 64, "K": 512}, {"M": 64, "N": 64, "K": 2500}]
ATOL = 1e-2
RTOL = 1e-2


def get_inputs(M=64, N=128, K=1000, device="cpu"):
    g = torch.Generator().manual_seed(M * 1000003 + N * 1009 + K)
    scale = K**-0.25
    a = (torch.randn(M, K, generator=g) * scale).to(torch.float8_e4m3fn)
    b = (torch.randn(K, N, generator=g) * scale).to(torch.float8_e4m3fn)
    return [a.to(device), b.to(device)]


def reference(a, b):
    return (a.float() @ b.float()).to(torch.float16)
