import torch

# a [M, K] and b [N, K] in e4m3 with a scale a row; K of 100 and 72 not a multiple of any BLOCK_K
SHAPES = [{"M": 70, "N": 96, "K": 128}, {"M": 33, "N": 50, "K": 100}, {"M": 5, "N": 200, "K": 72}]
ATOL = 2e-2  # a bf16 output (8-bit mantissas) of values near 1
RTOL = 1e-2


def get_inputs(M=70, N=96, K=128, device="cpu"):
    gen = torch.Generator().manual_seed(M * 100000 + N * 100 + K)
    a = torch.randn(M, K, generator=gen).to(torch.float8_e4m3fn)
    b = torch.randn(N, K, generator=gen).to(torch.float8_e4m3fn)
    a_scale = (torch.rand(M, generator=gen) + 0.5) / K**0.5
    b_scale = torch.rand(N, generator=gen) + 0.5
    return [a.to(device), b.to(device), a_scale.to(device), b_scale.to(device)]


def reference(a, b, a_scale, b_scale):
    out = (a.float() @ b.float().T) * a_scale[:, None] * b_scale[None, :]
    return out.to(torch.bfloat16)
