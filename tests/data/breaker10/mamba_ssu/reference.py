import torch
import torch.nn.functional as F

SHAPES = [{"B": 2, "D": 48, "S": 16}, {"B": 3, "D": 40, "S": 24}, {"B": 2, "D": 20, "S": 100}]
ATOL = 1e-4
RTOL = 1e-4


def get_inputs(B=2, D=48, S=16, device="cpu"):
    g = torch.Generator().manual_seed(B * 10000 + D * 100 + S)
    state = torch.randn(B, D, S, generator=g)
    x = torch.randn(B, D, generator=g)
    dt = torch.randn(B, D, generator=g)
    A = -torch.rand(D, S, generator=g) - 0.5
    Bm = torch.randn(B, S, generator=g)
    C = torch.randn(B, S, generator=g)
    Dv = torch.randn(D, generator=g)
    z = torch.randn(B, D, generator=g)
    dt_bias = torch.rand(D, generator=g) - 0.5
    return [t.to(device) for t in (state, x, dt, A, Bm, C, Dv, z, dt_bias)]


def reference(state, x, dt, A, B, C, D, z, dt_bias):
    dt = F.softplus(dt + dt_bias)
    dA = torch.exp(dt[:, :, None] * A)
    dB = dt[:, :, None] * B[:, None, :]
    state.copy_(state * dA + dB * x[:, :, None])
    out = torch.einsum("bdn,bn->bd", state, C) + x * D
    return out * F.silu(z)
