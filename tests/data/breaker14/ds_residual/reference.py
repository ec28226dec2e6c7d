import torch

SHAPES = [{"B": 2, "T": 37, "H": 96}, {"B": 1, "T": 3, "H": 1000}, {"B": 4, "T": 65, "H": 64}]
ATOL = 1e-6
RTOL = 1e-5


def get_inputs(B=2, T=37, H=96, device="cpu"):
    g = torch.Generator().manual_seed(B * 100000 + T * 1000 + H)
    hs, res, attn = (torch.randn(B, T, H, generator=g) for _ in range(3))
    ab, fb = torch.randn(H, generator=g), torch.randn(H, generator=g)
    return [t.to(device) for t in (hs, res, attn, ab, fb)]


def reference(hidden_state, residual, attn_output, attn_bias, final_bias):
    return hidden_state + (residual + final_bias + attn_output + attn_bias) / 2
