"""Cross-entropy loss per row with an online logsumexp over the vocabulary in chunks."""

import torch
import triton
import triton.language as tl

MAX_FUSED_SIZE = 65536 // 2  # the largest chunk of the vocabulary loaded at once


@triton.jit
def _xent_fwd(logits_ptr, labels_ptr, loss_ptr, stride, V, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    logits_ptr += row * stride
    label = tl.load(labels_ptr + row)
    m = -float("inf")
    s = 0.0
    for off in range(0, V, BLOCK):
        cols = off + tl.arange(0, BLOCK)
        x = tl.load(logits_ptr + cols, mask=cols < V, other=-float("inf")).to(tl.float32)
        new_m = tl.maximum(m, tl.max(x, axis=0))
        s = s * tl.exp(m - new_m) + tl.sum(tl.exp(x - new_m), axis=0)
        m = new_m
    lse = m + tl.log(s)
    target = tl.load(logits_ptr + label).to(tl.float32)
    tl.store(loss_ptr + row, lse - target)


def run(logits, labels):
    n_rows, V = logits.shape
    loss = torch.empty(n_rows, device=logits.device, dtype=torch.float32)
    BLOCK = min(MAX_FUSED_SIZE, triton.next_power_of_2(V))
    _xent_fwd[(n_rows,)](logits, labels, loss, logits.stride(0), V, BLOCK=BLOCK, num_warps=8)
    return loss
