import torch

# q (S, Hq, D), k (S, Hk, D) float32, cos / sin (S, R) float32, R = D here (with R < D the kernel ropes the first R
# features and leaves the rest of q_embed / k_embed as torch.empty made it). S any length, D even
SHAPES = [{"S": 40, "Hq": 4, "Hk": 2, "D": 64, "R": 64}, {"S": 17, "Hq": 3, "Hk": 1, "D": 128, "R": 128}, {"S": 100, "Hq": 2, "Hk": 2, "D": 48, "R": 48}]
ATOL = 1e-5
RTOL = 1e-5


def get_inputs(S=40, Hq=4, Hk=2, D=64, R=64, device="cpu"):
    g = torch.Generator().manual_seed(S * 1000003 + Hq * 10007 + Hk * 101 + D * 7 + R)
    q = torch.randn(S, Hq, D, generator=g)
    k = torch.randn(S, Hk, D, generator=g)
    pos = torch.arange(S, dtype=torch.float64)[:, None]
    inv = 1.0 / (10000 ** (torch.arange(0, R, 2, dtype=torch.float64) / R))
    ang = torch.cat([pos * inv, pos * inv], -1)
    return [q.to(device), k.to(device), ang.cos().float().to(device), ang.sin().float().to(device)]


def _rope(x, cos, sin):
    half = cos.shape[-1] // 2
    x = x[..., : 2 * half].double()
    c, s = cos.double()[:, None, :], sin.double()[:, None, :]
    lo, hi = x[..., :half], x[..., half:]
    return torch.cat([lo * c[..., :half] - hi * s[..., :half], hi * c[..., half:] + lo * s[..., half:]], -1).float()


def reference(q, k, cos, sin):
    return _rope(q, cos, sin), _rope(k, cos, sin)
