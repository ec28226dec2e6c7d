import torch

# batch, time steps, heads, key and value widths (K = 96 splits the state over two K blocks of 64)
SHAPES = [{"B": 2, "T": 9, "H": 2, "K": 32, "V": 48}, {"B": 1, "T": 5, "H": 3, "K": 96, "V": 20}, {"B": 3, "T": 4, "H": 1, "K": 16, "V": 130}]
ATOL = 1e-4
RTOL = 1e-4


def get_inputs(B=2, T=9, H=2, K=32, V=48, device="cpu"):
    gen = torch.Generator().manual_seed(B * 100000 + T * 1000 + H * 100 + K + V)
    q = torch.randn(B, T, H, K, generator=gen)
    k = torch.randn(B, T, H, K, generator=gen) / K**0.5
    v = torch.randn(B, T, H, V, generator=gen)
    g = -torch.rand(B, T, H, generator=gen)  # log decay
    h0 = torch.randn(B, H, K, V, generator=gen)
    return [t.to(device) for t in (q, k, v, g, h0)]


def reference(q, k, v, g, h0):
    B, T, H, K = q.shape
    scale = K**-0.5
    h = h0.double().clone()
    out = []
    for t in range(T):
        h = h * g[:, t].double().exp()[..., None, None] + k[:, t].double()[..., None] * v[:, t].double()[..., None, :]
        out.append(torch.einsum("bhk,bhkv->bhv", q[:, t].double() * scale, h))
    return torch.stack(out, 1).float(), h.float()
