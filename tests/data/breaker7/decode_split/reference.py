import torch

SHAPES = [{"B": 2, "H": 4, "H_KV": 2, "D": 32, "L": 40}, {"B": 3, "H": 4, "H_KV": 4, "D": 64, "L": 100}]
ATOL = 1e-4
RTOL = 1e-4


def get_inputs(B=3, H=4, H_KV=4, D=64, L=100, device="cpu"):
    lens = torch.tensor([L - 7 * i for i in range(B)], dtype=torch.int32)
    total = int(lens.sum()) + 16
    kv_indptr = torch.zeros(B + 1, dtype=torch.int32)
    kv_indptr[1:] = torch.cumsum(lens, 0)
    kv_indices = torch.randperm(total)[: int(lens.sum())].to(torch.int32)
    return [torch.randn(B, H, D, device=device), torch.randn(total, H_KV, D, device=device),
            torch.randn(total, H_KV, D, device=device), kv_indptr.to(device), kv_indices.to(device)]


def reference(q, k_buffer, v_buffer, kv_indptr, kv_indices):
    B, H, D = q.shape
    group = H // k_buffer.shape[1]
    out = torch.empty_like(q)
    for b in range(B):
        slots = kv_indices[int(kv_indptr[b]): int(kv_indptr[b + 1])].long()
        k = k_buffer[slots].repeat_interleave(group, dim=1)  # (L, H, D)
        v = v_buffer[slots].repeat_interleave(group, dim=1)
        s = torch.einsum("hd,lhd->hl", q[b], k) * D ** -0.5
        out[b] = torch.einsum("hl,lhd->hd", torch.softmax(s, -1), v)
    return out
