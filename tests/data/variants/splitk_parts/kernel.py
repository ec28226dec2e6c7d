"""Dot products of rows with a vector, split along K: each program sums 4 steps of BLOCK_K of one row into a slot of
partials; the host sums the partials. The number of parts is written with the value 4 * BLOCK_K (64)."""

import torch
import triton
import triton.language as tl


@triton.jit
def partial_dot(a_ptr, v_ptr, parts_ptr, K, n_parts, BLOCK_K: tl.constexpr, STEPS: tl.constexpr):
    row, part = tl.program_id(0), tl.program_id(1)
    acc = tl.zeros((BLOCK_K,), tl.float32)
    for s in range(STEPS):
        k = (part * STEPS + s) * BLOCK_K + tl.arange(0, BLOCK_K)
        a = tl.load(a_ptr + row * K + k, mask=k < K, other=0.0)
        v = tl.load(v_ptr + k, mask=k < K, other=0.0)
        acc += a * v
    tl.store(parts_ptr + row * n_parts + part, tl.sum(acc, axis=0))


def run(a, v):
    M, K = a.shape
    n_parts = triton.cdiv(K, 64)
    parts = torch.empty((M, n_parts), device=a.device, dtype=torch.float32)
    partial_dot[(M, n_parts)](a, v, parts, K, n_parts, BLOCK_K=16, STEPS=4)
    return parts.sum(dim=1)
