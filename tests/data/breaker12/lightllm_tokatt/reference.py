import torch

SHAPES = [
    {"B": 3, "HQ": 4, "HK": 4, "D": 64, "S": 70},
    {"B": 2, "HQ": 8, "HK": 2, "D": 128, "S": 150},
    {"B": 5, "HQ": 2, "HK": 1, "D": 16, "S": 9},
]
ATOL = 1e-5
RTOL = 1e-5


def get_inputs(B=3, HQ=4, HK=4, D=64, S=70, device="cpu"):
    g = torch.Generator().manual_seed(B * 100000 + HQ * 1000 + HK * 100 + D + S)
    b_seqlen = torch.randint(1, S + 1, (B,), generator=g)
    b_seqlen[0] = S
    slots = 2 * (B + 2) * S
    k_cache = torch.randn(slots, HK, D, generator=g)
    n_req = B + 2
    req_to_tokens = torch.randperm(slots, generator=g)[: n_req * S].reshape(n_req, S).to(torch.int32)
    b_req_idx = torch.randperm(n_req, generator=g)[:B].to(torch.int32)
    q = torch.randn(B, HQ, D, generator=g)
    return [q.to(device), k_cache.to(device), req_to_tokens.to(device), b_req_idx.to(device), b_seqlen.to(device)]


def reference(q, k_cache, req_to_tokens, b_req_idx, b_seqlen):
    HQ, D = q.shape[1], q.shape[2]
    group = HQ // k_cache.shape[1]
    cols = []
    for b, n in enumerate(b_seqlen.tolist()):
        keys = k_cache[req_to_tokens[b_req_idx[b], :n].long()].double()  # (n, HK, D)
        keys = keys.repeat_interleave(group, dim=1)  # (n, HQ, D)
        cols.append((keys * q[b].double()[None]).sum(-1).t() / D**0.5)
    return torch.cat(cols, dim=1).float()
