import torch

SHAPES = [
    {"B": 2, "H": 2, "G": 1, "D": 32, "P": 40, "E": 30},
    {"B": 3, "H": 4, "G": 2, "D": 64, "P": 70, "E": 50},
    {"B": 1, "H": 2, "G": 2, "D": 48, "P": 0, "E": 90},
]
ATOL = 1e-2
RTOL = 1e-2


def get_inputs(B=2, H=2, G=1, D=32, P=40, E=30, device="cpu"):
    """``B`` sequences of up to ``P`` cached and ``E`` new tokens, ``H`` query heads sharing a KV head ``G`` at a
    time, head dimension ``D``. The cache holds every token of every sequence at shuffled slots."""
    g = torch.Generator().manual_seed(B * 100000 + H * 10000 + D * 100 + P + E)
    prefix = torch.randint(0, P + 1, (B,), generator=g) if P else torch.zeros(B, dtype=torch.int64)
    extend = torch.randint(1, E + 1, (B,), generator=g)
    prefix[0], extend[0] = P, E
    kv_heads = H // G
    slots = int(prefix.sum())
    k_buffer = torch.randn(slots + 5, kv_heads, D, generator=g)
    v_buffer = torch.randn(slots + 5, kv_heads, D, generator=g)
    kv_indices = torch.randperm(slots + 5, generator=g)[:slots].to(torch.int64)
    kv_indptr = torch.zeros(B + 1, dtype=torch.int32)
    kv_indptr[1:] = torch.cumsum(prefix, 0)
    qo_indptr = torch.zeros(B + 1, dtype=torch.int32)
    qo_indptr[1:] = torch.cumsum(extend, 0)
    n = int(extend.sum())
    q = torch.randn(n, H, D, generator=g)
    k = torch.randn(n, kv_heads, D, generator=g)
    v = torch.randn(n, kv_heads, D, generator=g)
    return [t.to(device) for t in (q, k, v, k_buffer, v_buffer, qo_indptr, kv_indptr, kv_indices)]


def reference(q, k, v, k_buffer, v_buffer, qo_indptr, kv_indptr, kv_indices):
    out = torch.empty_like(q)
    H, D = q.shape[1], q.shape[2]
    G = H // k.shape[1]
    for b in range(qo_indptr.numel() - 1):
        q0, q1 = int(qo_indptr[b]), int(qo_indptr[b + 1])
        p0, p1 = int(kv_indptr[b]), int(kv_indptr[b + 1])
        idx = kv_indices[p0:p1]
        keys = torch.cat([k_buffer[idx], k[q0:q1]]).repeat_interleave(G, dim=1)
        vals = torch.cat([v_buffer[idx], v[q0:q1]]).repeat_interleave(G, dim=1)
        n_new, n_pre = q1 - q0, p1 - p0
        s = torch.einsum("qhd,khd->hqk", q[q0:q1], keys) / D**0.5
        at = torch.arange(n_pre + n_new, device=s.device)  # on the GPU too (H100, 2026-12-06: the mask was on the CPU)
        allowed = at[None, :] <= (n_pre + at[:n_new])[:, None]
        s = s.masked_fill(~allowed, float("-inf"))
        out[q0:q1] = torch.einsum("hqk,khd->qhd", torch.softmax(s, dim=-1), vals)
    return out
