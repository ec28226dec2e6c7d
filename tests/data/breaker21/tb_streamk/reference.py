import torch

# C = A @ B in fp16: tile counts that do not divide by the 4 programs (the stream-K tiles), K off BLOCK_K, M / N off
# the tiles; the last entry small enough for the interpreter's checks (M * N * K under 2**22) with 6 tiles of 128
SHAPES = [{"M": 384, "N": 384, "K": 200}, {"M": 256, "N": 640, "K": 128}, {"M": 257, "N": 130, "K": 40}]
ATOL = 1e-2
RTOL = 1e-2


def get_inputs(M=384, N=384, K=200, device="cpu"):
    g = torch.Generator().manual_seed(M * 1000003 + N * 1009 + K)
    scale = K**-0.25
    a = (torch.randn(M, K, generator=g) * scale).to(torch.float16)
    b = (torch.randn(K, N, generator=g) * scale).to(torch.float16)
    return [a.to(device), b.to(device)]


def reference(a, b):
    return (a.float() @ b.float()).to(torch.float16)
