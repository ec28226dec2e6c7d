import torch

SHAPES = [{"B": 2, "T": 5, "H": 6, "D": 32}, {"B": 1, "T": 9, "H": 12, "D": 64}]
ATOL = 1e-5
RTOL = 1e-5


def get_inputs(B=1, T=9, H=12, D=64, device="cpu"):
    q = torch.randn(B, T, H, D, device=device)
    pos = torch.arange(T, dtype=torch.float32, device=device)[:, None]
    inv = 1.0 / (10000 ** (torch.arange(0, D // 2, dtype=torch.float32, device=device) / (D // 2)))
    angle = pos * inv[None, :]
    return [q, torch.cos(angle), torch.sin(angle)]


def reference(Q, cos, sin):
    half = Q.shape[-1] // 2
    q1, q2 = Q[..., :half], Q[..., half:]
    c = cos[: Q.shape[1]][None, :, None, :]
    s = sin[: Q.shape[1]][None, :, None, :]
    return torch.cat([q1 * c - q2 * s, q2 * c + q1 * s], dim=-1)
