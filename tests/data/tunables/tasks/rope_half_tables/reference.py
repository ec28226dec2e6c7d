"""Reference for the half-table RoPE kernel; get_inputs seeds its own generator and takes no seed, so
the harness makes the other seeds' inputs itself."""

import torch

SHAPES = [{"batch": 2, "seq_len": 8, "head_dim": 16}]


def get_inputs(batch: int = 2, seq_len: int = 8, head_dim: int = 16):
    gen = torch.Generator().manual_seed(1234)
    x = torch.randn(batch, seq_len, head_dim, generator=gen)
    inv_freq = 1.0 / (10000 ** (torch.arange(0, head_dim, 2).float() / head_dim))
    freqs = torch.outer(torch.arange(seq_len).float(), inv_freq)
    emb = torch.cat([freqs, freqs], dim=-1)
    return [x, emb.cos(), emb.sin()]


def reference(x, cos, sin):
    half = x.shape[-1] // 2
    rotated = torch.cat([-x[..., half:], x[..., :half]], dim=-1)
    return x * cos + rotated * sin
