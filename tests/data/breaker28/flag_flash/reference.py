import math

import torch

# q (B, H, M, D), k, v (B, H, N, D) float16, causal a flag (a 0-d int tensor; causal rows see the P_SEQ = N - M keys
# before their own; with M > N the first M - N rows see none: 0 and -inf); out = softmax(q k^T / sqrt(D)) v (float16)
# and L = the rows' log-sum-exp (float32). M and N any length (masks unless a block divides them), D in {16, 32, 64,
# 128}
SHAPES = [
    {"B": 1, "H": 2, "M": 64, "N": 64, "D": 64, "CAUSAL": 1},
    {"B": 2, "H": 1, "M": 50, "N": 77, "D": 32, "CAUSAL": 1},
    {"B": 1, "H": 1, "M": 96, "N": 40, "D": 128, "CAUSAL": 0},
]
ATOL = 1e-2
RTOL = 1e-2


def get_inputs(B=1, H=2, M=64, N=64, D=64, CAUSAL=1, device="cpu"):
    g = torch.Generator().manual_seed(B * 1000003 + H * 10007 + M * 101 + N * 7 + D + CAUSAL)
    q = torch.empty(B, H, M, D).normal_(0.0, 0.5, generator=g).half()
    k = torch.empty(B, H, N, D).normal_(0.0, 0.5, generator=g).half()
    v = torch.empty(B, H, N, D).normal_(0.0, 0.5, generator=g).half()
    return [q.to(device), k.to(device), v.to(device), torch.tensor(CAUSAL, device=device)]


def reference(q, k, v, causal):
    M, N, D = q.shape[2], k.shape[2], q.shape[3]
    s = (q.double() @ k.double().transpose(2, 3)) / math.sqrt(D)
    if bool(causal.item()):
        rows = torch.arange(M, device=q.device)[:, None] + (N - M)
        s = s.masked_fill(rows < torch.arange(N, device=q.device)[None, :], float("-inf"))
    lse = torch.logsumexp(s, -1)
    # a causal row before every key (M > N) sees none: the kernel writes 0 and a log normalizer of -inf there
    out = (torch.softmax(s, -1) @ v.double()).nan_to_num(0.0)
    return out.half(), lse.float()
