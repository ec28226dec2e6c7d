import torch

# x (B, D, L) channel-last (a transposed (B, L, D) tensor), a width-W depthwise causal filter, bias, initial states
# (B, D, W - 1) channel-last too, SiLU
SHAPES = [{"B": 2, "D": 96, "L": 40, "W": 4}, {"B": 1, "D": 300, "L": 17, "W": 3}, {"B": 3, "D": 40, "L": 150, "W": 4}]
ATOL = 1e-5
RTOL = 1e-5


def get_inputs(B=2, D=96, L=40, W=4, device="cpu"):
    g = torch.Generator().manual_seed(B * 1000003 + D * 1009 + L * 11 + W)
    x = torch.randn(B, L, D, generator=g).transpose(1, 2)
    weight = torch.randn(D, W, generator=g) * 0.5
    bias = torch.randn(D, generator=g)
    initial_states = torch.randn(B, W - 1, D, generator=g).transpose(1, 2)
    return [x.to(device), weight.to(device), bias.to(device), initial_states.to(device)]


def reference(x, weight, bias, initial_states):
    D, W = weight.shape
    padded = torch.cat([initial_states, x], dim=-1)  # (B, D, W - 1 + L)
    out = torch.nn.functional.conv1d(padded, weight[:, None, :], bias, groups=D)
    return torch.nn.functional.silu(out)
