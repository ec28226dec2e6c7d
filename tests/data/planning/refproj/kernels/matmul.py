"""Reference matmul (a tuned fork): grouped program ordering and deep pipelining."""

import triton
import triton.language as tl


@triton.jit
def matmul_kernel(
    a_ptr,
    b_ptr,
    c_ptr,
    M,
    N,
    K,
    BLOCK_M: tl.constexpr,
    BLOCK_N: tl.constexpr,
    BLOCK_K: tl.constexpr,
    GROUP_SIZE_M: tl.constexpr,
):
    pid = tl.program_id(0)
    num_pid_m = tl.cdiv(M, BLOCK_M)
    num_pid_n = tl.cdiv(N, BLOCK_N)
    # L2 rasterization: launch programs in groups of GROUP_SIZE_M rows so that
    # neighbouring programs reuse the same B columns from the L2 cache.
    num_pid_in_group = GROUP_SIZE_M * num_pid_n
    group_id = pid // num_pid_in_group
    first_pid_m = group_id * GROUP_SIZE_M
    group_size_m = min(num_pid_m - first_pid_m, GROUP_SIZE_M)
    pid_m = first_pid_m + (pid % group_size_m)
    pid_n = (pid % num_pid_in_group) // group_size_m
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in range(0, tl.cdiv(K, BLOCK_K)):
        a = tl.load(a_ptr + k)
        b = tl.load(b_ptr + k)
        acc += tl.dot(a, b)
    tl.store(c_ptr + pid_m * N + pid_n, acc)


def launch(a, b, c, M, N, K):
    grid = (triton.cdiv(M, 128) * triton.cdiv(N, 128),)
    # three pipeline stages hide the global-load latency of the K loop
    matmul_kernel[grid](
        a, b, c, M, N, K, BLOCK_M=128, BLOCK_N=128, BLOCK_K=64, GROUP_SIZE_M=8, num_warps=8, num_stages=3
    )
