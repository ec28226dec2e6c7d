import torch
import torch.nn.functional as F

# g of B x T tokens x H heads x K (KDA's head size 128 in Kimi Linear), one A_log a head, a bias per (head, channel)
SHAPES = [{"B": 2, "T": 37, "H": 4, "K": 64}, {"B": 1, "T": 130, "H": 2, "K": 48}, {"B": 3, "T": 9, "H": 8, "K": 16}]
# a GPU's softplus is FLA's PTX (ex2 / lg2 .approx.ftz)
ATOL = 1e-4
RTOL = 1e-4


def get_inputs(B=2, T=37, H=4, K=64, device="cpu"):
    gen = torch.Generator().manual_seed(B * 100003 + T * 101 + H * 7 + K)
    g = torch.randn(B, T, H, K, generator=gen) * 4
    A_log = torch.randn(H, generator=gen)
    dt_bias = torch.randn(H * K, generator=gen)
    return [g.to(device), A_log.to(device), dt_bias.to(device)]


def reference(g, A_log, dt_bias):
    H = g.shape[-2]
    return -A_log.view(H, 1).float().exp() * F.softplus(g.float() + dt_bias.view(H, -1))
