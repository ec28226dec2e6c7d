import torch
import torch.nn.functional as F

# x [B, S, K] fp16, weight [N, K] fp16, bias [N] fp16
SHAPES = [{"B": 2, "S": 24, "K": 64, "N": 96}, {"B": 1, "S": 50, "K": 72, "N": 40}, {"B": 3, "S": 7, "K": 128, "N": 130}]
ATOL = 2e-2
RTOL = 2e-2


def get_inputs(B=2, S=24, K=64, N=96, device="cpu"):
    g = torch.Generator().manual_seed(B * 10**6 + S * 10**4 + K * 100 + N)
    x = (torch.randn(B, S, K, generator=g) / K**0.25).half()
    w = (torch.randn(N, K, generator=g) / K**0.25).half()
    b = torch.randn(N, generator=g).half()
    return [x.to(device), w.to(device), b.to(device)]


def reference(x, weight, bias):
    y = x.float() @ weight.float().t() + bias.float()
    return F.gelu(y).to(x.dtype)
