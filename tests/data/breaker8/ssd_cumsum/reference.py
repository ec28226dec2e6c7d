import torch
import torch.nn.functional as F

SHAPES = [{"B": 1, "L": 40, "H": 3}, {"B": 2, "L": 64, "H": 8}]
ATOL = 1e-4
RTOL = 1e-4
CHUNK_SIZE = 16


def get_inputs(B=2, L=64, H=8, device="cpu"):
    dt = torch.randn(B, L, H, device=device)
    A = -torch.rand(H, device=device) * 4
    dt_bias = torch.randn(H, device=device) * 0.5
    return [dt, A, dt_bias]


def reference(dt, A, dt_bias):
    B, L, H = dt.shape
    nchunks = -(-L // CHUNK_SIZE)
    d = F.softplus(dt.float() + dt_bias, threshold=20.0).clamp(0.0, float("inf"))
    d = F.pad(d, (0, 0, 0, nchunks * CHUNK_SIZE - L))  # padded steps are 0
    d = d.view(B, nchunks, CHUNK_SIZE, H).permute(0, 3, 1, 2)  # b h c l
    return torch.cumsum(d * A[None, :, None, None], dim=-1), d
