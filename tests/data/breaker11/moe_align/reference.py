import torch

SHAPES = [{"T": 9, "TOPK": 2, "E": 4, "BM": 16}, {"T": 40, "TOPK": 2, "E": 8, "BM": 16}, {"T": 5, "TOPK": 1, "E": 3, "BM": 64}]
ATOL = 0
RTOL = 0


def get_inputs(T=9, TOPK=2, E=4, BM=16, device="cpu"):
    g = torch.Generator().manual_seed(T * 1000 + TOPK * 100 + E * 10 + BM)
    topk = torch.stack([torch.randperm(E, generator=g)[:TOPK] for _ in range(T)]).to(torch.int32)
    # the experts and the GEMM's BLOCK_SIZE_M are the format of the output, given as 0-d tensors
    return [topk.to(device), torch.tensor(E), torch.tensor(BM)]


def reference(topk_ids, num_experts, block_size):
    E, BM = int(num_experts), int(block_size)
    flat = topk_ids.flatten().long()
    n = flat.numel()
    cap = n + E * (BM - 1)
    dev = topk_ids.device
    sorted_ids = torch.full((cap,), n, dtype=torch.int32, device=dev)
    expert_ids = torch.zeros(((cap + BM - 1) // BM,), dtype=torch.int32, device=dev)
    pos = 0
    for e in range(E):
        idx = (flat == e).nonzero().flatten()
        sorted_ids[pos : pos + idx.numel()] = idx.to(torch.int32)
        padded = (idx.numel() + BM - 1) // BM * BM
        expert_ids[pos // BM : (pos + padded) // BM] = e
        pos += padded
    return sorted_ids, expert_ids, torch.tensor([pos], dtype=torch.int32, device=dev)
