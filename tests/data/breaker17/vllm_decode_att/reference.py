import torch

# B requests of up to L keys in pages of P slots, H query heads over KVH key heads of widths D / DV
SHAPES = [
    {"B": 3, "L": 70, "H": 4, "KVH": 2, "D": 48, "DV": 40, "P": 1},
    {"B": 2, "L": 150, "H": 2, "KVH": 2, "D": 64, "DV": 64, "P": 16},
    {"B": 5, "L": 9, "H": 6, "KVH": 1, "D": 20, "DV": 24, "P": 4},
]
ATOL = 2e-3
RTOL = 1e-3


def get_inputs(B=3, L=70, H=4, KVH=2, D=48, DV=40, P=1, device="cpu"):
    gen = torch.Generator().manual_seed(B * 100000 + L * 100 + H * 10 + D + P)
    pages_per_req = (L + P - 1) // P
    n_pages = B * pages_per_req + 3
    q = torch.randn(B, H, D, generator=gen)
    k_buffer = torch.randn(n_pages * P, KVH, D, generator=gen)
    v_buffer = torch.randn(n_pages * P, KVH, DV, generator=gen)
    # each request owns a random set of pages; its length is at most L (the first is L)
    req_to_token = torch.randperm(n_pages, generator=gen)[: B * pages_per_req].reshape(B, pages_per_req)
    b_seq_len = torch.randint(1, L + 1, (B,), generator=gen)
    b_seq_len[0] = L
    return [
        q.to(device), k_buffer.to(device), v_buffer.to(device), req_to_token.to(torch.int32).to(device),
        b_seq_len.to(torch.int32).to(device), torch.tensor([P], device=device),
    ]  # fmt: skip


def reference(q, k_buffer, v_buffer, req_to_token, b_seq_len, page):
    P = int(page.item())
    B, H, D = q.shape
    KVH = k_buffer.shape[1]
    out = torch.zeros(B, H, v_buffer.shape[-1], device=q.device, dtype=q.dtype)
    for b in range(B):
        n = int(b_seq_len[b])
        pos = torch.arange(n, device=q.device)
        slots = req_to_token[b, pos // P].long() * P + pos % P
        k = k_buffer[slots]  # n, KVH, D
        v = v_buffer[slots]
        for h in range(H):
            kh = h // (H // KVH)
            s = (k[:, kh] @ q[b, h]) / D**0.5
            out[b, h] = torch.softmax(s, 0) @ v[:, kh]
    return out
