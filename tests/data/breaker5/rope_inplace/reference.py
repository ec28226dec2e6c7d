import torch

SHAPES = [{"batch": 2, "seq": 8, "heads": 3, "head_dim": 16}, {"batch": 2, "seq": 24, "heads": 4, "head_dim": 32}]
ATOL = 1e-5
RTOL = 1e-5


def get_inputs(batch=2, seq=24, heads=4, head_dim=32, device="cpu"):
    q = torch.randn(batch, seq, heads, head_dim, device=device)
    inv_freq = 1.0 / (10000 ** (torch.arange(0, head_dim, 2, device=device).float() / head_dim))
    angles = torch.arange(seq, device=device).float()[:, None] * inv_freq[None, :]
    return [q, angles.cos(), angles.sin()]


def reference(q, cos, sin):
    """In place, as the kernel: q is rotated and returned."""
    half = q.shape[-1] // 2
    x1, x2 = q[..., :half], q[..., half:]
    c, s = cos[None, :, None, :], sin[None, :, None, :]
    q.copy_(torch.cat([x1 * c - x2 * s, x2 * c + x1 * s], dim=-1))
    return q
