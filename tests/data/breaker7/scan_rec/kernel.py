"""First-order linear recurrence h_t = a_t * h_(t-1) + b_t along time with tl.associative_scan over a pair of
tensors and a combine function, as Triton's own scan tests and the parallel-scan SSM kernels write it: one program
a block of BLOCK_D channels, the whole sequence in one block (BLOCK_T = next_power_of_2(T))."""

import torch
import triton
import triton.language as tl


@triton.jit
def _first_order_op(l_a, l_b, r_a, r_b):
    return r_a * l_a, r_a * l_b + r_b


@triton.jit
def _linear_recurrence(a_ptr, b_ptr, h_ptr, T, D, BLOCK_T: tl.constexpr, BLOCK_D: tl.constexpr):
    pid = tl.program_id(0)
    t = tl.arange(0, BLOCK_T)
    d = pid * BLOCK_D + tl.arange(0, BLOCK_D)
    mask = (t[:, None] < T) & (d[None, :] < D)
    offs = t[:, None] * D + d[None, :]
    a = tl.load(a_ptr + offs, mask=mask, other=1.0)
    b = tl.load(b_ptr + offs, mask=mask, other=0.0)
    _, h = tl.associative_scan((a, b), axis=0, combine_fn=_first_order_op)
    tl.store(h_ptr + offs, h, mask=mask)


def run(a, b):
    """a, b: (T, D) fp32; returns h (T, D) with h_0 = b_0."""
    T, D = a.shape
    h = torch.empty_like(b)
    BLOCK_T = triton.next_power_of_2(T)
    BLOCK_D = 16
    _linear_recurrence[(triton.cdiv(D, BLOCK_D),)](a, b, h, T, D, BLOCK_T=BLOCK_T, BLOCK_D=BLOCK_D, num_warps=4)
    return h
