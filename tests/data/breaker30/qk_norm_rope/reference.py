import torch

# q (T, Hq, D) and k (T, Hk, D) float16, per-head norm weights (D,) float32, cos / sin (P, D // 2) float32 tables,
# positions (T,) int64 into them; each head RMS-normalized over D (eps 1e-6), then rotated (neox halves)
SHAPES = [{"T": 7, "HQ": 8, "HK": 2, "D": 64}, {"T": 33, "HQ": 12, "HK": 4, "D": 128}, {"T": 5, "HQ": 20, "HK": 20, "D": 40}]
ATOL = 1e-2
RTOL = 1e-2


def get_inputs(T=7, HQ=8, HK=2, D=64, device="cpu"):
    g = torch.Generator().manual_seed(T * 10007 + HQ * 1009 + HK * 101 + D)
    P = 2 * T + 3
    q = torch.randn(T, HQ, D, generator=g).half()
    k = (torch.randn(T, HK, D, generator=g) * 3).half()
    qw = 1 + 0.1 * torch.randn(D, generator=g)
    kw = 1 + 0.1 * torch.randn(D, generator=g)
    inv = 1.0 / (10000 ** (torch.arange(0, D // 2, dtype=torch.float32) / (D // 2)))
    ang = torch.arange(P, dtype=torch.float32)[:, None] * inv[None, :]
    pos = torch.randint(0, P, (T,), generator=g)
    return [t.to(device) for t in (q, k, qw, kw, ang.cos(), ang.sin(), pos)]


def _one(x, weight, cos, sin, positions, eps):
    x = x.float()
    y = x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + eps) * weight
    half = x.shape[-1] // 2
    c, s = cos[positions][:, None, :], sin[positions][:, None, :]
    y1, y2 = y[..., :half], y[..., half:]
    return torch.cat([y1 * c - y2 * s, y2 * c + y1 * s], dim=-1)


def reference(q, k, q_weight, k_weight, cos, sin, positions, eps=1e-6):
    return (
        _one(q, q_weight, cos, sin, positions, eps).to(q.dtype),
        _one(k, k_weight, cos, sin, positions, eps).to(k.dtype),
    )
