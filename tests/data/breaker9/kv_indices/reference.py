import torch

SHAPES = [{"B": 3, "L": 700}, {"B": 5, "L": 1300}]
ATOL = 0
RTOL = 0


def get_inputs(B=5, L=1300, device="cpu"):
    g = torch.Generator().manual_seed(B * 1000 + L)
    pool = 2 * B + 1
    req_to_token = torch.randint(0, 1 << 20, (pool, L), generator=g, dtype=torch.int32)
    req_pool_indices = torch.randperm(pool, generator=g)[:B].to(torch.int32)
    seq_lens = torch.randint(1, L + 1, (B,), generator=g, dtype=torch.int32)
    seq_lens[0] = L
    return [req_to_token.to(device), req_pool_indices.to(device), seq_lens.to(device)]


def reference(req_to_token, req_pool_indices, seq_lens):
    rows = [req_to_token[int(r), : int(n)] for r, n in zip(req_pool_indices.tolist(), seq_lens.tolist())]
    return torch.cat(rows)
