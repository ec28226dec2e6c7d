import torch

# T tokens of hidden size K routed to topk of E experts (float16), each expert's gate-up weight (N, K): every routed
# slot's row times its expert's weight, in the stable sort of the expert ids; the sort's inverse and the segments
SHAPES = [{"T": 40, "K": 64, "N": 48, "E": 4, "TOPK": 2}, {"T": 150, "K": 96, "N": 130, "E": 3, "TOPK": 2}, {"T": 9, "K": 40, "N": 24, "E": 8, "TOPK": 1}]
ATOL = 2e-2
RTOL = 2e-2


def get_inputs(T=40, K=64, N=48, E=4, TOPK=2, device="cpu"):
    g = torch.Generator().manual_seed(T * 4001 + K * 37 + N * 7 + E * 3 + TOPK)
    x = torch.randn(T, K, generator=g).to(torch.float16)
    topk_ids = torch.stack([torch.randperm(E, generator=g)[:TOPK] for _ in range(T)]).to(torch.int32)
    w = (torch.randn(E, N, K, generator=g) / K**0.5).to(torch.float16)
    return [x.to(device), topk_ids.to(device), w.to(device)]


def reference(x, topk_ids, w):
    E = w.shape[0]
    flat = topk_ids.view(-1).long()
    _, order = torch.sort(flat, stable=True)
    src2dst = torch.empty_like(order)
    src2dst[order] = torch.arange(order.numel(), device=order.device)
    token = order // topk_ids.shape[1]
    out = torch.empty(order.numel(), w.shape[1], dtype=x.dtype, device=x.device)
    counts = torch.bincount(flat, minlength=E)
    seg = torch.zeros(E + 1, dtype=torch.int64, device=x.device)
    seg[1:] = counts.cumsum(0)
    for e in range(E):
        rows = slice(int(seg[e]), int(seg[e + 1]))
        out[rows] = (x[token[rows]].float() @ w[e].float().t()).to(x.dtype)
    return out, src2dst.to(torch.int32), seg
