"""xent_inplace launched as FlagGems launches (``with torch_device_fn.device(x.device):``, ``torch.cuda`` there),
and Liger-Kernel and unsloth too: the launch inside ``with torch.cuda.device(logits.device):``."""

import torch
import triton
import triton.language as tl


@triton.jit
def _xent_fwd_grad(logits_ptr, stride, target_ptr, loss_ptr, V, BLOCK: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    logits_ptr += row * stride
    y = tl.load(target_ptr + row)
    m = float("-inf")
    d = 0.0
    for start in range(0, V, BLOCK):
        cols = start + tl.arange(0, BLOCK)
        x = tl.load(logits_ptr + cols, mask=cols < V, other=float("-inf")).to(tl.float32)
        m_new = tl.maximum(m, tl.max(x, axis=0))
        d = d * tl.exp(m - m_new) + tl.sum(tl.exp(x - m_new), axis=0)
        m = m_new
    lse = m + tl.log(d)
    x_y = tl.load(logits_ptr + y).to(tl.float32)
    for start in range(0, V, BLOCK):
        cols = start + tl.arange(0, BLOCK)
        x = tl.load(logits_ptr + cols, mask=cols < V, other=float("-inf")).to(tl.float32)
        g = tl.exp(x - lse)
        g = tl.where(cols == y, g - 1.0, g)
        tl.store(logits_ptr + cols, g, mask=cols < V)
    tl.store(loss_ptr + row, lse - x_y)


def run(logits, target):
    n_rows, V = logits.shape
    loss = torch.empty(n_rows, device=logits.device, dtype=torch.float32)
    with torch.cuda.device(logits.device):
        _xent_fwd_grad[(n_rows,)](logits, logits.stride(0), target, loss, V, BLOCK=512, num_warps=8)
    return loss
