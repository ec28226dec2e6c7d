import torch

SHAPES = [{"B": 2, "HQ": 4, "HK": 2, "S": 5, "D": 32}, {"B": 1, "HQ": 7, "HK": 1, "S": 9, "D": 48}]
ATOL = 1e-5
RTOL = 1e-5


def get_inputs(B=2, HQ=4, HK=2, S=5, D=32, device="cpu"):
    g = torch.Generator().manual_seed(B * 1000 + HQ * 100 + HK * 10 + S + D)
    # as the attention hands them over: projections viewed (B, S, heads, D), transposed to (B, heads, S, D)
    q = torch.randn(B, S, HQ, D, generator=g).transpose(1, 2)
    k = torch.randn(B, S, HK, D, generator=g).transpose(1, 2)
    pos = torch.randint(0, 64, (3, B, S), generator=g).float()
    inv = 1.0 / (10000 ** (torch.arange(0, D, 2).float() / D))
    ang = pos[..., None] * inv  # (3, B, S, D/2)
    ang = torch.cat([ang, ang], dim=-1)
    return [q.to(device), k.to(device), ang.cos().to(device), ang.sin().to(device)]


def _rotate_half(x):
    x1, x2 = x[..., : x.shape[-1] // 2], x[..., x.shape[-1] // 2 :]
    return torch.cat((-x2, x1), dim=-1)


def reference(q, k, cos, sin):
    """In place, as the kernel: the transposed views' storage is already contiguous, so Liger rotates it there."""
    D = q.shape[-1]
    t, h = D // 8, D // 8 * 3 // 2
    section = [t, h, D // 2 - t - h] * 2
    cos_m = torch.cat([m[i % 3] for i, m in enumerate(cos.split(section, dim=-1))], dim=-1).unsqueeze(1)
    sin_m = torch.cat([m[i % 3] for i, m in enumerate(sin.split(section, dim=-1))], dim=-1).unsqueeze(1)
    q.copy_(q * cos_m + _rotate_half(q) * sin_m)
    k.copy_(k * cos_m + _rotate_half(k) * sin_m)
    return q, k
