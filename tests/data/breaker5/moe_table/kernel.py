"""Fused mixture-of-experts layer (one matmul per expert): tokens are sorted by the expert they are routed to and
each expert's run is padded to a whole number of BLOCK_M rows, so every program's rows share one expert
(``expert_ids[pid_m]``). The padding and the kernel's row block are one setting; the grid comes from the length
of the sorted index tensor. The settings come from a table of configs by number of tokens, the nearest entry
serving any other count, as serving engines keep tuned MoE configs."""

import torch
import triton
import triton.language as tl

# tuned offline per number of tokens; the nearest entry serves any other count
MOE_CONFIGS = {
    16: {"BLOCK_M": 16, "BLOCK_N": 32, "BLOCK_K": 32, "num_warps": 4},
    64: {"BLOCK_M": 32, "BLOCK_N": 32, "BLOCK_K": 32, "num_warps": 4},
}


def _get_config(num_tokens):
    return MOE_CONFIGS[min(MOE_CONFIGS, key=lambda m: abs(m - num_tokens))]


def _align(topk_ids, block_m, num_experts):
    """Token slots sorted by expert, each expert padded to a multiple of ``block_m`` with the sentinel
    ``topk_ids.numel()``; the expert of every block of ``block_m`` slots."""
    flat = topk_ids.flatten()
    sentinel = flat.numel()
    order = torch.argsort(flat, stable=True)
    counts = torch.bincount(flat, minlength=num_experts)
    sorted_ids, expert_ids = [], []
    start = 0
    for e in range(num_experts):
        n = int(counts[e])
        padded = triton.cdiv(n, block_m) * block_m
        ids = torch.full((padded,), sentinel, dtype=torch.int32, device=flat.device)
        ids[:n] = order[start:start + n].to(torch.int32)
        start += n
        sorted_ids.append(ids)
        expert_ids += [e] * (padded // block_m)
    return torch.cat(sorted_ids), torch.tensor(expert_ids, dtype=torch.int32, device=flat.device)


@triton.jit
def _moe_mm(x_ptr, w_ptr, out_ptr, sorted_ptr, expert_ptr, route_w_ptr, num_slots, N, D, TOPK: tl.constexpr,
            BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    slots = tl.load(sorted_ptr + pid_m * BLOCK_M + tl.arange(0, BLOCK_M))
    valid = slots < num_slots
    expert = tl.load(expert_ptr + pid_m)
    tokens = slots // TOPK
    offs_n = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k0 in range(0, D, BLOCK_K):
        kk = k0 + tl.arange(0, BLOCK_K)
        a = tl.load(x_ptr + tokens[:, None] * D + kk[None, :], mask=valid[:, None] & (kk[None, :] < D), other=0.0)
        w = tl.load(w_ptr + expert * N * D + offs_n[None, :] * D + kk[:, None],
                    mask=(kk[:, None] < D) & (offs_n[None, :] < N), other=0.0)
        acc = tl.dot(a, w, acc)
    gate = tl.load(route_w_ptr + slots, mask=valid, other=0.0)
    acc = acc * gate[:, None]
    tl.store(out_ptr + slots[:, None] * N + offs_n[None, :], acc, mask=valid[:, None] & (offs_n[None, :] < N))


def run(x, w, topk_ids, topk_weights):
    T, D = x.shape
    E, N, _ = w.shape
    topk = topk_ids.shape[1]
    config = _get_config(T)
    sorted_ids, expert_ids = _align(topk_ids, config["BLOCK_M"], E)
    out = torch.zeros((T * topk, N), device=x.device, dtype=torch.float32)
    grid = (expert_ids.shape[0], triton.cdiv(N, config["BLOCK_N"]))
    _moe_mm[grid](x, w, out, sorted_ids, expert_ids, topk_weights, T * topk, N, D, TOPK=topk, **config)
    return out.view(T, topk, N).sum(dim=1)
