import torch

SHAPES = [{"n": 65536, "chunk": 4096}, {"n": 32768, "chunk": 8192}]
ATOL = 1e-3
RTOL = 1e-4


def get_inputs(n=65536, chunk=4096, device="cpu"):
    g = torch.Generator().manual_seed(chunk)
    return [torch.randn(n, generator=g).to(device), chunk]


def reference(x, chunk):
    return x.view(-1, chunk).sum(-1)
