import torch

SHAPES = [{"T": 12, "D": 32, "N": 48}, {"T": 40, "D": 64, "N": 96}]
ATOL = 1e-3
RTOL = 1e-3
EXPERTS = 4
TOPK = 2


def get_inputs(T=40, D=64, N=96, device="cpu"):
    x = torch.randn(T, D, device=device)
    w = torch.randn(EXPERTS, N, D, device=device) / D**0.5
    scores = torch.randn(T, EXPERTS, device=device)
    topk_weights, topk_ids = torch.softmax(scores, dim=-1).topk(TOPK, dim=-1)
    return [x, w, topk_ids, topk_weights.contiguous()]


def reference(x, w, topk_ids, topk_weights):
    out = torch.zeros(x.shape[0], w.shape[1], device=x.device)
    for j in range(topk_ids.shape[1]):
        out += topk_weights[:, j, None] * torch.einsum("td,tnd->tn", x, w[topk_ids[:, j]])
    return out
