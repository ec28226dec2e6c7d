import torch

# a jagged batch: values [sum of lengths, M] fp32 and offsets [B + 1] int64 (lengths up to L, one empty)
SHAPES = [{"B": 4, "L": 50, "M": 70}, {"B": 9, "L": 20, "M": 9}, {"B": 2, "L": 130, "M": 200}]
ATOL = 1e-4
RTOL = 1e-4


def get_inputs(B=4, L=50, M=70, device="cpu"):
    g = torch.Generator().manual_seed(B * 100000 + L * 1000 + M)
    lengths = torch.randint(1, L + 1, (B,), generator=g)
    lengths[0] = L
    if B > 2:
        lengths[1] = 0
    offsets = torch.zeros(B + 1, dtype=torch.int64)
    offsets[1:] = torch.cumsum(lengths, 0)
    values = torch.randn(int(offsets[-1]), M, generator=g)
    return [values.to(device), offsets.to(device)]


def reference(values, offsets):
    rows = [values[int(a) : int(b)].sum(0) for a, b in zip(offsets[:-1], offsets[1:])]
    return torch.stack(rows)
