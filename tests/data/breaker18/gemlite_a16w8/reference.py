import torch

# x [M, K] fp16, W_q [K, N] int8, scales [N] fp16 (1 / (127 sqrt(K)): outputs of order 1)
SHAPES = [{"M": 7, "N": 100, "K": 96}, {"M": 40, "N": 130, "K": 200}, {"M": 3, "N": 64, "K": 33}]
ATOL = 1e-2
RTOL = 1e-2


def get_inputs(M=7, N=100, K=96, device="cpu"):
    gen = torch.Generator().manual_seed(M * 100000 + N * 100 + K)
    x = torch.randn(M, K, generator=gen).to(torch.float16)
    w = torch.randint(-127, 128, (K, N), generator=gen).to(torch.int8)
    scales = (torch.rand(N, generator=gen) + 0.5) / (127.0 * K**0.5)
    return [x.to(device), w.to(device), scales.to(torch.float16).to(device)]


def reference(x, W_q, scales):
    b = W_q.to(torch.float16).float() * scales.float()[None, :]
    b = b.to(torch.float16).float()
    return (x.float() @ b).to(torch.float16)
