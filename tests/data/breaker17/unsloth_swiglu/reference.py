import torch

# elements 2*3*700 = 4200 (five 1024-blocks, the last partial), 1*5*333 = 1665, 3*7*100 = 2100
SHAPES = [{"B": 2, "S": 3, "D": 700}, {"B": 1, "S": 5, "D": 333}, {"B": 3, "S": 7, "D": 100}]
ATOL = 2e-2  # bf16 outputs (8-bit mantissas)
RTOL = 1e-2


def get_inputs(B=2, S=3, D=700, device="cpu"):
    gen = torch.Generator().manual_seed(B * 10000 + S * 1000 + D)
    e = torch.randn(B, S, D, generator=gen).to(torch.bfloat16)
    g = torch.randn(B, S, D, generator=gen).to(torch.bfloat16)
    dh = torch.randn(B, S, D, generator=gen).to(torch.bfloat16)
    return [e.to(device), g.to(device), dh.to(device)]


def reference(e, g, dh):
    ef = e.float()
    se = torch.sigmoid(ef)
    f = (ef * se).to(e.dtype)
    h = f * g
    df = dh * f
    dg = dh * g
    de = (dg.float() * se * (1.0 + ef * (1.0 - se))).to(e.dtype)
    return h, de, df
