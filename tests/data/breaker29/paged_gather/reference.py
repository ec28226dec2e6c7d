import torch

# k_cache / v_cache (pages, P, H, D) float16 (pages shuffled, one spare), block_table (B, max_pages) int32, seq_lens
# (B,) int32 drawn 1..L; returns the contiguous (sum of lengths, H, D) keys and values
SHAPES = [{"B": 3, "L": 40, "H": 2, "D": 64, "P": 16}, {"B": 2, "L": 100, "H": 1, "D": 80, "P": 32}, {"B": 6, "L": 9, "H": 4, "D": 16, "P": 4}]
ATOL = 0
RTOL = 0


def get_inputs(B=3, L=40, H=2, D=64, P=16, device="cpu"):
    g = torch.Generator().manual_seed(B * 1009 + L * 31 + H * 7 + D + P)
    lens = torch.randint(1, L + 1, (B,), generator=g, dtype=torch.int32)
    max_pages = (L + P - 1) // P
    pages = B * max_pages + 1
    k_cache = torch.randn(pages, P, H, D, generator=g).half()
    v_cache = torch.randn(pages, P, H, D, generator=g).half()
    block_table = torch.randperm(pages, generator=g)[: B * max_pages].reshape(B, max_pages).to(torch.int32)
    return [k_cache.to(device), v_cache.to(device), block_table.to(device), lens.to(device)]


def reference(k_cache, v_cache, block_table, seq_lens):
    ks, vs = [], []
    P = k_cache.shape[1]
    for b, n in enumerate(seq_lens.tolist()):
        t = torch.arange(n, device=k_cache.device)
        page = block_table[b].long()[t // P]
        ks.append(k_cache[page, t % P])
        vs.append(v_cache[page, t % P])
    return torch.cat(ks), torch.cat(vs)
