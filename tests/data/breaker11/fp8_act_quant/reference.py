import torch

# one scale per 128 values: the format the fp8 GEMM reads, not a launch setting
QBLOCK = 128
SHAPES = [{"T": 3, "D": 512}, {"T": 17, "D": 256}, {"T": 2, "D": 1024}]
ATOL = 0
RTOL = 1e-6


def get_inputs(T=3, D=512, device="cpu"):
    g = torch.Generator().manual_seed(T * 10000 + D)
    return [(torch.randn(T, D, generator=g) * 3).to(device)]


def reference(x):
    blocks = x.float().reshape(*x.shape[:-1], x.shape[-1] // QBLOCK, QBLOCK)
    s = blocks.abs().amax(dim=-1) / 448.0
    y = (blocks / s[..., None]).reshape(x.shape).to(torch.float8_e4m3fn)
    return y, s
