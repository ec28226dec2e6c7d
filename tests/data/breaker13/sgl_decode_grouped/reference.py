import torch

# requests, query heads, KV heads, head dimension (Lk = Lv), the longest request, the most KV splits
SHAPES = [
    {"B": 3, "HQ": 8, "HK": 2, "D": 64, "S": 70, "P": 4},
    {"B": 2, "HQ": 32, "HK": 1, "D": 80, "S": 40, "P": 2},
    {"B": 4, "HQ": 6, "HK": 3, "D": 32, "S": 100, "P": 3},
]
ATOL = 1e-2
RTOL = 1e-2  # TF32 tl.dot on an NVIDIA GPU


def get_inputs(B=3, HQ=8, HK=2, D=64, S=70, P=4, device="cpu"):
    g = torch.Generator().manual_seed(B * 1000000 + HQ * 10000 + HK * 1000 + D * 10 + S + P)
    lens = torch.randint(1, S + 1, (B,), generator=g)
    lens[0] = S
    indptr = torch.zeros(B + 1, dtype=torch.int32)
    indptr[1:] = torch.cumsum(lens, 0)
    total = int(indptr[-1])
    pool = total + 13
    indices = torch.randperm(pool, generator=g)[:total].to(torch.int32)  # the cache's slots, page size 1
    q = torch.randn(B, HQ, D, generator=g)
    k = torch.randn(pool, HK, D, generator=g)
    v = torch.randn(pool, HK, D, generator=g)
    splits = torch.randint(1, P + 1, (B,), generator=g).to(torch.int32)
    tensors = [q, k, v, indptr, indices, splits, torch.tensor(P)]
    return [t.to(device) for t in tensors]


def reference(q, k, v, indptr, indices, splits, max_splits):
    B, HQ, D = q.shape
    group = HQ // k.shape[1]
    out = torch.empty_like(q)
    for b in range(B):
        idx = indices[int(indptr[b]) : int(indptr[b + 1])].long()
        kb = k[idx].double().repeat_interleave(group, 1)  # (n, HQ, D)
        vb = v[idx].double().repeat_interleave(group, 1)
        s = torch.einsum("hd,nhd->hn", q[b].double(), kb) * D**-0.5
        out[b] = torch.einsum("hn,nhd->hd", s.softmax(-1), vb).to(q.dtype)
    return out
