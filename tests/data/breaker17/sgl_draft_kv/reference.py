import torch

# B sequences of up to L tokens, S draft steps of TOPK branches each, a pool of P request rows
SHAPES = [{"B": 3, "L": 150, "S": 3, "TOPK": 2, "P": 5}, {"B": 5, "L": 40, "S": 5, "TOPK": 4, "P": 8},
          {"B": 2, "L": 300, "S": 2, "TOPK": 1, "P": 3}]  # fmt: skip
ATOL = 0.0
RTOL = 0.0


def get_inputs(B=3, L=150, S=3, TOPK=2, P=5, device="cpu"):
    gen = torch.Generator().manual_seed(B * 100000 + L * 100 + S * 10 + TOPK + P)
    width = L + S * TOPK + 8  # a row holds the sequence and every draft step's slots
    req_to_token = torch.randperm(P * width, generator=gen).to(torch.int32).reshape(P, width)
    req_pool_indices = torch.randperm(P, generator=gen)[:B].to(torch.int32)
    seq_lens = torch.randint(1, L + 1, (B,), generator=gen).to(torch.int32)
    seq_lens[0] = L
    positions = seq_lens.repeat_interleave(TOPK)  # one position a branch: its sequence's length
    meta = torch.tensor([S, TOPK])
    return [t.to(device) for t in (req_pool_indices, req_to_token, seq_lens, positions, meta)]


def reference(req_pool_indices, req_to_token, seq_lens, positions, meta):
    S, topk = int(meta[0]), int(meta[1])
    B = seq_lens.numel()
    bs = B * topk
    kv_indices = torch.zeros((S, bs * req_to_token.shape[1]), dtype=torch.int32, device=seq_lens.device)
    kv_indptr = torch.zeros((S, bs + 1), dtype=torch.int32, device=seq_lens.device)
    lens = [int(x) for x in seq_lens]
    for s in range(S):
        it = s + 1
        for b in range(B):
            row = req_to_token[int(req_pool_indices[b])]
            n = lens[b]
            for t in range(topk):
                off = sum(lens[:b]) * topk + b * it * topk + t * (n + it)
                kv_indices[s, off : off + n] = row[:n]
                kv_indices[s, off + n : off + n + it] = row[n + t : n + t + it * topk : topk]
        for z in range(1, bs + 1):
            kv_indptr[s, z] = int(positions[:z].sum()) + z * it
    return kv_indices, kv_indptr
