import torch

SHAPES = [{"T": 37, "HQ": 8, "HK": 2, "D": 64}, {"T": 5, "HQ": 6, "HK": 6, "D": 32}, {"T": 20, "HQ": 3, "HK": 1, "D": 128}]
ATOL = 1e-5
RTOL = 1e-5


def get_inputs(T=37, HQ=8, HK=2, D=64, device="cpu"):
    g = torch.Generator().manual_seed(T * 100000 + HQ * 1000 + HK * 100 + D)
    q = torch.randn(T, HQ, D, generator=g)
    k = torch.randn(T, HK, D, generator=g)
    pos = torch.arange(T, dtype=torch.float32)[:, None]
    inv = 1.0 / (10000 ** (torch.arange(0, D, 2, dtype=torch.float32) / D))
    ang = pos * inv
    return [q.to(device), k.to(device), ang.cos().to(device), ang.sin().to(device)]


def _rotate(x, cos, sin):
    h = x.shape[-1] // 2
    x0, x1 = x[..., :h], x[..., h:]
    c, s = cos[:, None, :], sin[:, None, :]
    return torch.cat([x0 * c - x1 * s, x0 * s + x1 * c], dim=-1)


def reference(q, k, cos, sin):
    q.copy_(_rotate(q, cos, sin))
    k.copy_(_rotate(k, cos, sin))
    return q, k
