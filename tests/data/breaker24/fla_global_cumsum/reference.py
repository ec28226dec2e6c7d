import torch

# g: a [1, T, H] gate cut into the sequences of cu_seqlens (NSEQ of them); k: [B, T, H, S]; both bfloat16, the
# scans in float32 (BT of 32 - 256 steps a chunk from the autotune list)
SHAPES = [
    {"B": 2, "T": 300, "H": 3, "S": 40, "NSEQ": 3},
    {"B": 1, "T": 65, "H": 2, "S": 7, "NSEQ": 2},
    {"B": 3, "T": 17, "H": 1, "S": 64, "NSEQ": 1},
]
ATOL = 1e-3
RTOL = 1e-3


def get_inputs(B=2, T=300, H=3, S=40, NSEQ=3, TK=None, device="cpu"):
    """TK: k's length where it is not T (the GPU test's gate past 2**31 elements beside a short k)."""
    gen = torch.Generator().manual_seed(B * 1009 + T * 31 + H * 7 + S + NSEQ * 100003)
    g = -torch.rand(1, T, H, generator=gen).bfloat16()
    k = torch.randn(B, TK or T, H, S, generator=gen).bfloat16()
    cuts = sorted(torch.randperm(T - 1, generator=gen)[: NSEQ - 1].add(1).tolist())
    cu_seqlens = torch.tensor([0, *cuts, T], dtype=torch.int32)
    return [g.to(device), k.to(device), cu_seqlens.to(device)]


def reference(g, k, cu_seqlens):
    go = torch.empty(g.shape, dtype=torch.float32, device=g.device)
    bounds = cu_seqlens.tolist()
    for bos, eos in zip(bounds[:-1], bounds[1:]):
        go[:, bos:eos] = g[:, bos:eos].double().cumsum(1).float()
    ko = (k.double().flip(1).cumsum(1).flip(1) * 0.5).float()
    return go, ko
