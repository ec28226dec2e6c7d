import torch

SHAPES = [{"S": 6, "H": 4, "D": 16}, {"S": 3, "H": 2, "D": 40}, {"S": 9, "H": 3, "D": 8}]
ATOL = 1e-5
RTOL = 1e-5


def get_inputs(S=6, H=4, D=16, device="cpu"):
    g = torch.Generator().manual_seed(S * 10000 + H * 100 + D)
    v_a = torch.randn(S, H, D, generator=g)
    v_b = torch.randn(S, H, D, generator=g)
    s_a = torch.randn(S, H, generator=g) * 4
    s_b = torch.randn(S, H, generator=g) * 4
    return [v_a.to(device), s_a.to(device), v_b.to(device), s_b.to(device)]


def reference(v_a, s_a, v_b, s_b):
    m = torch.maximum(s_a, s_b)
    wa, wb = torch.exp2(s_a - m), torch.exp2(s_b - m)
    d = wa + wb
    v = (v_a * wa[..., None] + v_b * wb[..., None]) / d[..., None]
    return v, torch.log2(d) + m
