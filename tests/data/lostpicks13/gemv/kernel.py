import torch
import triton
import triton.language as tl


@triton.jit
def gemv_kernel(a_ptr, x_ptr, y_ptr, M, K, BLOCK_M: tl.constexpr, BLOCK_K: tl.constexpr):
    pid = tl.program_id(0)
    rows = pid * BLOCK_M + tl.arange(0, BLOCK_M)
    acc = tl.zeros((BLOCK_M,), dtype=tl.float32)
    for k in range(0, K, BLOCK_K):
        cols = k + tl.arange(0, BLOCK_K)
        a = tl.load(a_ptr + rows[:, None] * K + cols[None, :], mask=rows[:, None] < M)
        x = tl.load(x_ptr + cols)
        acc += tl.sum(a * x[None, :], axis=1)
    tl.store(y_ptr + rows, acc, mask=rows < M)


def run(a, x):
    M, K = a.shape
    y = torch.empty(M, device=a.device, dtype=torch.float32)
    BLOCK_M = min(triton.next_power_of_2(M), 16)
    gemv_kernel[(triton.cdiv(M, BLOCK_M),)](a, x, y, M, K, BLOCK_M=BLOCK_M, BLOCK_K=32)
    return y
