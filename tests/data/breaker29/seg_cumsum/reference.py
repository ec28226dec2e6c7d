import torch

# x (T, D) float32, T the sum of B sequence lengths (lengths drawn 0..2*L, the first at least 1), with
# cu_seqlens (B + 1,) int32; the output is each sequence's prefix sum along tokens (float32)
SHAPES = [{"B": 3, "L": 20, "D": 48}, {"B": 5, "L": 70, "D": 100}, {"B": 1, "L": 300, "D": 8}]
ATOL = 1e-3
RTOL = 1e-4


def get_inputs(B=3, L=20, D=48, device="cpu"):
    g = torch.Generator().manual_seed(B * 10007 + L * 101 + D)
    lens = torch.randint(0, 2 * L + 1, (B,), generator=g)
    lens[0] = max(int(lens[0]), 1)
    cu = torch.zeros(B + 1, dtype=torch.int32)
    cu[1:] = torch.cumsum(lens, 0)
    x = torch.randn(int(cu[-1]), D, generator=g)
    return [x.to(device), cu.to(device)]


def reference(x, cu_seqlens):
    out = torch.empty_like(x)
    cu = cu_seqlens.tolist()
    for a, b in zip(cu[:-1], cu[1:]):
        out[a:b] = x[a:b].double().cumsum(0).to(x.dtype)
    return out
