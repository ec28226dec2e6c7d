import math

import torch

# q [B, H, M, D], k / v [B, H / 2, N, D] fp16 (two query heads a key head), causal with the queries last (N >= M)
SHAPES = [{"B": 1, "H": 2, "M": 1, "N": 1000, "D": 64}, {"B": 1, "H": 4, "M": 16, "N": 256, "D": 32},
          {"B": 2, "H": 2, "M": 5, "N": 300, "D": 16}]
ATOL = 2e-2
RTOL = 2e-2


def get_inputs(B=1, H=2, M=1, N=1000, D=64, device="cpu"):
    g = torch.Generator().manual_seed(B * 10**7 + H * 10**6 + M * 10**4 + N * 10 + D)
    q = torch.randn(B, H, M, D, generator=g).half()
    k = torch.randn(B, H // 2, N, D, generator=g).half()
    v = torch.randn(B, H // 2, N, D, generator=g).half()
    return [q.to(device), k.to(device), v.to(device)]


def reference(q, k, v):
    B, H, M, D = q.shape
    N = k.shape[2]
    kk = k.float().repeat_interleave(H // k.shape[1], dim=1)
    vv = v.float().repeat_interleave(H // v.shape[1], dim=1)
    s = q.float() @ kk.transpose(-1, -2) / math.sqrt(D)
    keep = (torch.arange(M, device=q.device)[:, None] + (N - M)) >= torch.arange(N, device=q.device)[None, :]
    s = s.masked_fill(~keep, float("-inf"))
    return (torch.softmax(s, -1) @ vv).to(q.dtype)
