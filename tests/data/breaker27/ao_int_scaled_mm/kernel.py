"""torchao's int8 matmul with a row scale (``torchao/kernel/intmm_triton.py`` with the search of
``torchao/kernel/autotuner.py``; BSD-3-Clause): ``c = (a @ b) * scales1``, int8 operands, an int32 accumulator
(``ACC_TYPE: tl.constexpr = tl.int32`` a DEFAULT), the row scale loaded through Inductor's suffix. The settings are
NO ``@triton.autotune``: a module list of ``triton.Config`` built by a COMPREHENSION over ``itertools.product`` of
tiles and a list of ``(stages, warps)`` tuples, searched by torchao's own ``get_best_config_fn`` (each config run and
timed, the best kept in a module dict ``BEST_CONFIGS`` keyed by the arguments' dtypes, sizes and strides), and the
chosen ``Config`` OBJECT handed to the launcher, which splats it: ``num_warps=config.num_warps``,
``num_stages=config.num_stages``, ``num_ctas=config.num_ctas``, ``**config.kwargs``; the grid ``lambda META`` of
``BLOCK_M`` / ``BLOCK_N``; the grouped tile order; rows and columns wrapped ``% M`` / ``% N`` under
``tl.max_contiguous(tl.multiple_of(...))``; ``range(K, 0, -BLOCK_K)``; ``EVEN_K=(K % 2 == 0)`` passed by keyword
(as written the K loads go unmasked where K is even: right only where ``BLOCK_K`` divides K, or K is odd); int32
``N * idx_m`` store offsets.

Kept as the authors wrote it, cut to the scaled kernel. Changes: the tile product cut from ``[32, 64, 128, 256]`` to
``[32, 64]`` and the fifteen ``(stages, warps)`` tuples to one (interpreter); ``_load_best_configs`` reads no
pickle (the file's is segment-anything-fast's A100 one); ``do_bench_basic`` times with ``time.perf_counter`` off
CUDA (CUDA events need a GPU) and ``do_bench`` stops after its five-run estimate (the last full
``do_bench_triton`` pass left out); comments reworded."""

import itertools
import logging
import os
import time

import torch
import triton
import triton.language as tl

int8_mm_kernel_configs = sum(
    [
        # "BLOCK_M", "BLOCK_N", "BLOCK_K", "num_stages", "num_warps"
        [
            (i, j, k, 2, 4),
        ]
        for (i, j, k) in itertools.product([32, 64], repeat=3)
    ],
    [],
)

int8_mm_kernel_configs = [
    triton.Config(
        {"BLOCK_M": i, "BLOCK_N": j, "BLOCK_K": k, "GROUP_M": 8},
        num_stages=s,
        num_warps=w,
    )
    for (i, j, k, s, w) in int8_mm_kernel_configs
]


# ---------------------------------------------------------------- torchao/kernel/autotuner.py (cut)

BEST_CONFIGS = None


def _load_best_configs():
    # torchao reads a pickle of earlier searches here; none is shipped with this copy
    return None


def get_arg_key(a):
    if torch.is_tensor(a):
        return (a.dtype, a.size(), a.stride())
    return (a,)


def get_args_key(args):
    return sum(tuple(get_arg_key(a) for a in args), ())


def do_bench_basic(fn, rep):
    # Triton's basic bench as torchao modifies it; off CUDA the wall clock (the change)
    fn()
    if not torch.cuda.is_available():
        start = time.perf_counter()
        for _ in range(rep):
            fn()
        return (time.perf_counter() - start) * 1000 / rep
    torch.cuda.synchronize()
    cache = torch.empty(int(256e6 // 4), dtype=torch.int, device="cuda")
    cache.zero_()
    start_event = torch.cuda.Event(enable_timing=True)
    end_event = torch.cuda.Event(enable_timing=True)
    start_event.record()
    for _ in range(rep):
        fn()
    end_event.record()
    torch.cuda.synchronize()
    estimate_ms = start_event.elapsed_time(end_event) / rep
    return estimate_ms


def do_bench(fn, args, config, best_time=None):
    def wrapped_fn():
        return fn(*(args + [config]))

    # one run first: a config that fails or is 100x slower is dropped
    try:
        time_ms = do_bench_basic(wrapped_fn, 1)
    except RuntimeError:
        time_ms = None
    except triton.runtime.OutOfResources:
        time_ms = None
    if time_ms is None or (best_time is not None and time_ms > best_time * 100):
        return float("inf")

    # then five runs: 10x slower is dropped
    time_ms = do_bench_basic(wrapped_fn, 5)
    if best_time is not None and time_ms > best_time * 10:
        return float("inf")
    return time_ms


ALWAYS_SEARCH = bool(int(os.getenv("TORCHAO_AUTOTUNER_ALWAYS_SEARCH", 0)))


def get_best_config_by_key(key):
    if not ALWAYS_SEARCH and key in BEST_CONFIGS:
        return BEST_CONFIGS[key][0]


def get_best_config_fn(fn, args, configs):
    global BEST_CONFIGS
    if BEST_CONFIGS is None:
        BEST_CONFIGS = _load_best_configs()

    # no earlier searches loaded
    if BEST_CONFIGS is None:
        BEST_CONFIGS = {}

    if len(configs) == 0:
        return None

    key = get_args_key(args)
    best_config = get_best_config_by_key(key)
    if best_config is not None:
        return best_config

    # walk every config in order, keeping the fastest
    best_config = configs[0]
    best_time = do_bench(fn, args, configs[0])
    logging.info(" ".join(map(str, [key, best_time, best_config])))
    for config in configs[1:]:
        time_ms = do_bench(fn, args, config, best_time)
        if time_ms < best_time:
            best_time = time_ms
            best_config = config
    # the time kept beside it, as proof the config ran
    BEST_CONFIGS[key] = (best_config, best_time)
    return best_config


# ---------------------------------------------------------------- torchao/kernel/intmm_triton.py


@triton.jit
def scaled_matmul_kernel_with_block_pointers(
    # Pointers to matrices
    a_ptr,
    b_ptr,
    c_ptr,
    s1_ptr,
    # Matrix dimensions
    M,
    N,
    K,
    # how far the pointer moves for one element along each dimension (stride_am: one row down A)
    stride_am,
    stride_ak,
    stride_bk,
    stride_bn,
    stride_cm,
    stride_cn,
    stride_s1m,
    stride_s1n,
    # Meta-parameters
    BLOCK_M: tl.constexpr,
    BLOCK_N: tl.constexpr,
    BLOCK_K: tl.constexpr,
    GROUP_M: tl.constexpr,
    EVEN_K: tl.constexpr,
    ACC_TYPE: tl.constexpr = tl.int32,
):
    # based on triton.ops.matmul
    pid = tl.program_id(0)
    grid_m = (M + BLOCK_M - 1) // BLOCK_M
    grid_n = (N + BLOCK_N - 1) // BLOCK_N

    # the grouped program order (L2 reuse)
    width = GROUP_M * grid_n
    group_id = pid // width
    group_size = min(grid_m - group_id * GROUP_M, GROUP_M)
    pid_m = group_id * GROUP_M + (pid % group_size)
    pid_n = (pid % width) // (group_size)

    rm = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    rn = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    ram = tl.max_contiguous(tl.multiple_of(rm % M, BLOCK_M), BLOCK_M)
    rbn = tl.max_contiguous(tl.multiple_of(rn % N, BLOCK_N), BLOCK_N)
    rk = tl.arange(0, BLOCK_K)
    A = a_ptr + (ram[:, None] * stride_am + rk[None, :] * stride_ak)
    B = b_ptr + (rk[:, None] * stride_bk + rbn[None, :] * stride_bn)

    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=ACC_TYPE)
    for k in range(K, 0, -BLOCK_K):
        if EVEN_K:
            a = tl.load(A)
            b = tl.load(B)
        else:
            a = tl.load(A, mask=rk[None, :] < k, other=0.0)
            b = tl.load(B, mask=rk[:, None] < k, other=0.0)
        acc += tl.dot(a, b)  # , allow_tf32=ALLOW_TF32)
        A += BLOCK_K * stride_ak
        B += BLOCK_K * stride_bk

    # rm and rn computed again (fewer registers live across the loop)
    rm = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    rn = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    idx_m = rm[:, None]
    idx_n = rn[None, :]
    mask = (idx_m < M) & (idx_n < N)

    # the suffix Inductor generates
    xindex = idx_n + (N * idx_m)
    tmp0 = tl.load(
        s1_ptr + (tl.broadcast_to(idx_m, mask.shape)),
        mask,
        eviction_policy="evict_last",
    )
    tl.store(c_ptr + (tl.broadcast_to(xindex, mask.shape)), acc * tmp0, mask)


def int_scaled_matmul_kernel(a, b, scales1, c, config):
    M, K = a.shape
    K, N = b.shape
    grid = lambda META: (
        triton.cdiv(M, META["BLOCK_M"]) * triton.cdiv(N, META["BLOCK_N"]),
    )
    scaled_matmul_kernel_with_block_pointers[grid](
        a,
        b,
        c,
        scales1,
        M,
        N,
        K,  #
        a.stride(0),
        a.stride(1),  #
        b.stride(0),
        b.stride(1),  #
        c.stride(0),
        c.stride(1),
        scales1.stride(0),
        scales1.stride(1),
        num_warps=config.num_warps,
        num_stages=config.num_stages,
        num_ctas=config.num_ctas,
        EVEN_K=(K % 2 == 0),
        **config.kwargs,
    )
    return c


def int_scaled_matmul(a, b, scales1):
    # the op's CUDA implementation (torch.library registration left out)
    assert a.shape[1] == b.shape[0], "Incompatible dimensions"
    M, K = a.shape
    K, N = b.shape
    c = torch.empty((M, N), device=a.device, dtype=scales1.dtype)
    # one program a tile of c
    best_config = get_best_config_fn(
        int_scaled_matmul_kernel, [a, b, scales1, c], int8_mm_kernel_configs
    )
    return int_scaled_matmul_kernel(a, b, scales1, c, best_config)


def run(a, b, scales1):
    return int_scaled_matmul(a, b, scales1)
