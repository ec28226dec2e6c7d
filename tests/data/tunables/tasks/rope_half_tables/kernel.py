"""Rotary embedding that reads only the first half of each cos/sin row: tables built the usual way hold
the same angles in both halves (``cat(freqs, freqs)``), so half is enough."""

import torch
import triton
import triton.language as tl


@triton.jit
def rope_kernel(x_ptr, cos_ptr, sin_ptr, out_ptr, seq_len, head_dim, HALF: tl.constexpr):
    row = tl.program_id(0)  # one (batch, position) row of x
    pos = row % seq_len
    offs = tl.arange(0, HALF)
    x1 = tl.load(x_ptr + row * head_dim + offs)
    x2 = tl.load(x_ptr + row * head_dim + HALF + offs)
    c = tl.load(cos_ptr + pos * head_dim + offs)
    s = tl.load(sin_ptr + pos * head_dim + offs)
    tl.store(out_ptr + row * head_dim + offs, x1 * c - x2 * s)
    tl.store(out_ptr + row * head_dim + HALF + offs, x2 * c + x1 * s)


def run(x, cos, sin):
    batch, seq_len, head_dim = x.shape
    out = torch.empty_like(x)
    rope_kernel[(batch * seq_len,)](x, cos, sin, out, seq_len, head_dim, HALF=head_dim // 2, num_warps=1)
    return out
