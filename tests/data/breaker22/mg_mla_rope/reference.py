import torch

# q of S positions x B sequences x H heads x (NOPE + EMB); the EMB trailing elements rotated (DeepSeek's MLA:
# 128 + 64); H a power of two (the kernel's head mask is right when its block divides the head count or covers it)
SHAPES = [{"S": 5, "B": 2, "H": 4, "NOPE": 16, "EMB": 16}, {"S": 33, "B": 1, "H": 16, "NOPE": 8, "EMB": 8},
          {"S": 3, "B": 3, "H": 2, "NOPE": 32, "EMB": 32}]
ATOL = 1e-5
RTOL = 1e-5


def get_inputs(S=5, B=2, H=4, NOPE=16, EMB=16, device="cpu"):
    g = torch.Generator().manual_seed(S * 10007 + B * 1009 + H * 101 + NOPE + EMB)
    q = torch.randn(S, B, H, NOPE + EMB, generator=g)
    freqs = torch.randn(S + 3, 1, 1, EMB, generator=g)
    return [q.to(device), freqs.cos().to(device), freqs.sin().to(device)]


def reference(q, cos, sin):
    emb = cos.shape[-1]
    half = emb // 2
    rope = q[..., -emb:]
    x1, x2 = rope[..., 0::2], rope[..., 1::2]
    c = cos[: q.shape[0]]
    s = sin[: q.shape[0]]
    left = x1 * c[..., :half] - x2 * s[..., :half]
    right = x2 * c[..., half:] + x1 * s[..., half:]
    q[..., -emb:] = torch.cat([left, right], dim=-1)
    return q
