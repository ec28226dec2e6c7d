"""AMD AITER's Triton 8-bit GEMM ``gemm_a8w8`` (``aiter/ops/triton/gemm/basic/gemm_a8w8.py``,
``aiter/ops/triton/_triton_kernels/gemm/basic/gemm_a8w8.py``, ``_triton_kernels/common/splitk_reduce.py``,
``utils/gemm_config_utils.py``, ``utils/core.py``, ``utils/_triton/arch_info.py`` and ``pid_preprocessing.py``, MIT):
``y = (x @ w.T) * (x_scale * w_scale) + bias`` of int8 operands with per-row / per-column float32 scales, into
bfloat16. Split along K when the config says so: each split's scaled fp32 partial into a ``(NUM_KSPLIT, M, N)``
buffer, then the reduce kernel adds the splits and the bias (the chain of additions into the output is a LAUNCH
SETTING, ``NUM_KSPLIT``). The settings come from JSON FILES keyed by the DEVICE'S ARCHITECTURE and the SHAPE:
``configs/gemm/{arch}-GEMM-A8W8-N={N}-K={K}.json`` if it exists, else ``configs/gemm/{arch}-GEMM-A8W8.json``, then the
first ``M_LEQ_{bound}`` key with ``M <= bound``, else an ``M_GEQ_{bound}``, else ``any``, through an ``lru_cache``d
getter over an ``lru_cache``d JSON reader; ``compute_splitk_params`` derives ``SPLITK_BLOCK_SIZE`` and may shrink
``NUM_KSPLIT`` / ``BLOCK_SIZE_K``; the dict is splatted ``**config``. A ``triton.heuristics``-ONLY launch
(``EVEN_K`` from three divisibilities, ``GRID_MN`` a constexpr tile count), offsets wrapped ``% M`` / ``% N`` (the
scales loaded unmasked through them), ``tl.assume`` hints, the programs remapped over 8 XCDs and grouped only when
unsplit; the reduce kernel's tiles literal locals (``REDUCE_BLOCK_SIZE_M = 32``), its K axis
``triton.next_power_of_2(NUM_KSPLIT)`` masked to ``ACTUAL_KSPLIT``.

Cut to the Triton path (the kernel ``repr`` and logging left out). The config machinery is the same AITER code
breaker22's ``aiter_gemm`` carries (the one change there: off a GPU the architecture is ``"cpu"``; on an NVIDIA GPU
it is the compute capability, ``90`` on an H100 / H200). The trial ships ``configs/gemm/cpu-GEMM-A8W8.json`` (split-K
by 4 at M <= 64), a tuned ``cpu-GEMM-A8W8-N=80-K=320.json`` and ``90-GEMM-A8W8.json`` (AMD's files name gfx942 and
the like)."""

import copy
import functools
import itertools
import json
import os

import torch
import triton
import triton.language as tl

# ---------------------------------------------------------------------------------------- utils

this_dir = os.path.dirname(os.path.abspath(__file__))
AITER_TRITON_CONFIGS_PATH = os.path.abspath(f"{this_dir}/configs")

# True unless debugging: False reads the JSON files again on every call
USE_LRU_CACHE = True

try:
    _CACHED_ARCH = triton.runtime.driver.active.get_current_target().arch
except RuntimeError:
    _CACHED_ARCH = "cpu"


def get_arch():
    return _CACHED_ARCH


@functools.lru_cache(maxsize=None if USE_LRU_CACHE else 0)
def load_config_json(fpath: str, required: bool = True) -> dict | None:
    """A config JSON file, cached per path (a missing file too); FileNotFoundError if it is missing and required,
    else None. The dict returned is the cached one: copy it before changing it."""
    try:
        with open(fpath, "r") as file:
            return json.load(file)
    except FileNotFoundError:
        if required:
            raise FileNotFoundError(
                f"Required config file doesn't exist: {fpath}"
            ) from None
        return None


# the M_LEQ_x bounds (a tuple: hashable for the LRU cache)
STANDARD_M_BOUNDS = (1, 4, 8, 16, 32, 64, 128, 256, 512, 1024, 2048, 4096, 8192)


@functools.lru_cache(maxsize=1024 if USE_LRU_CACHE else 0)
def _get_gemm_config_cached(
    config_name: str,
    M: int,
    N: int | None = None,
    K: int | None = None,
    bounds: tuple[int, ...] | None = None,
    specialized_filename: str | None = None,
) -> tuple[dict, bool]:
    """The cached lookup behind ``get_gemm_config()`` (which returns a deep copy): the arch's file, a specialized
    N/K file over it, then the M bucket."""
    assert M >= 0, "M must be positive."
    assert N is None or N > 0, "N must be positive when provided."
    assert K is None or K > 0, "K must be positive when provided."
    assert bounds is None or (
        len(bounds) > 0
        and all(x > 0 for x in bounds)
        and all(x < y for x, y in itertools.pairwise(bounds))
    ), "When provided, bounds must be a non-empty tuple of strictly increasing positive numbers."

    dev = get_arch()

    cfg_dir, name_prefix = f"{AITER_TRITON_CONFIGS_PATH}/gemm", f"{dev}-"

    # the default file (must exist)
    default_fpath = f"{cfg_dir}/{name_prefix}{config_name}.json"
    config_dict = load_config_json(default_fpath, required=False)
    if config_dict is None:
        raise AssertionError(f"Required config file doesn't exist: {default_fpath}")

    # a specialized file overrides it, the first that exists
    specialized_suffixes = []
    if specialized_filename is not None:
        specialized_suffixes = [specialized_filename]
    elif N is not None and K is not None:
        specialized_suffixes.append(f"N={N}-K={K}")

    is_tuned = False
    for suffix in specialized_suffixes:
        specialized_config = load_config_json(
            f"{cfg_dir}/{name_prefix}{config_name}-{suffix}.json", required=False
        )
        if specialized_config is not None:
            config_dict, is_tuned = specialized_config, True
            break

    search_bounds = bounds if bounds is not None else STANDARD_M_BOUNDS

    # M_LEQ_x keys
    for bound in search_bounds:
        key = f"M_LEQ_{bound}"
        if M <= bound and key in config_dict:
            return dict(config_dict[key]), is_tuned

    # M_GEQ_x keys
    for bound in reversed(search_bounds):
        key = f"M_GEQ_{bound}"
        if M >= bound and key in config_dict:
            return dict(config_dict[key]), is_tuned

    if "any" in config_dict:
        return dict(config_dict["any"]), False

    raise KeyError(
        f"No matching configuration found for M={M}, N={N}, K={K}, "
        f"specialized_filename={specialized_filename!r} in config '{config_name}'."
    )


def get_gemm_config(
    config_name: str,
    M: int,
    N: int | None = None,
    K: int | None = None,
    bounds: tuple[int, ...] | None = None,
    specialized_filename: str | None = None,
) -> tuple[dict, bool]:
    """A GEMM's config by the M_LEQ_x / M_GEQ_y / any format: the arch's file ({arch}-{config_name}.json), a
    specialized {config_name}-N={N}-K={K}.json over it, then M's bucket. A deep copy (safe to change), and whether
    it was tuned."""
    config, is_tuned = _get_gemm_config_cached(
        config_name, M, N, K, bounds, specialized_filename
    )
    return copy.deepcopy(config), is_tuned


def add_default_gemm_config_params(config: dict) -> dict:
    """The values every config must have."""
    if "NUM_KSPLIT" not in config:
        config["NUM_KSPLIT"] = 1

    if "cache_modifier" not in config and "BLOCK_SIZE_K" in config:
        config["cache_modifier"] = None

    return config


def compute_splitk_params(config: dict, K: int) -> dict:
    """SPLITK_BLOCK_SIZE from NUM_KSPLIT; NUM_KSPLIT and BLOCK_SIZE_K shrunk where K is too short for them."""
    assert K > 0, "K must be positive"

    add_default_gemm_config_params(config)

    config["SPLITK_BLOCK_SIZE"] = triton.cdiv(K, config["NUM_KSPLIT"])

    if "BLOCK_SIZE_K" in config:
        # a split too short for BLOCK_SIZE_K: fewer splits
        while (
            config["NUM_KSPLIT"] > 1
            and config["BLOCK_SIZE_K"] > config["SPLITK_BLOCK_SIZE"]
        ):
            config["NUM_KSPLIT"] = max(config["NUM_KSPLIT"] // 2, 1)
            config["SPLITK_BLOCK_SIZE"] = triton.cdiv(K, config["NUM_KSPLIT"])

        # still too long with one split: the power of two at or below K
        if config["BLOCK_SIZE_K"] > config["SPLITK_BLOCK_SIZE"]:
            config["BLOCK_SIZE_K"] = triton.next_power_of_2(config["SPLITK_BLOCK_SIZE"])

            if config["BLOCK_SIZE_K"] > config["SPLITK_BLOCK_SIZE"]:
                config["BLOCK_SIZE_K"] = config["BLOCK_SIZE_K"] // 2

        config["BLOCK_SIZE_K"] = max(config["BLOCK_SIZE_K"], 16)

    return config


@triton.jit
def remap_xcd(pid, GRID_MN, NUM_XCDS: tl.constexpr = 8):
    # pids spread over the XCDs round robin, regrouped
    pids_per_xcd = (GRID_MN + NUM_XCDS - 1) // NUM_XCDS
    # GRID_MN not a multiple of NUM_XCDS: tall_xcds of them get pids_per_xcd pids, the rest one fewer
    tall_xcds = GRID_MN % NUM_XCDS
    if tall_xcds == 0:
        tall_xcds = tl.cast(NUM_XCDS, tall_xcds.type)
    xcd = pid % NUM_XCDS
    local_pid = pid // NUM_XCDS
    # on a tall XCD, or on a short one
    if xcd < tall_xcds:
        pid = xcd * pids_per_xcd + local_pid
    else:
        pid = (
            tall_xcds * pids_per_xcd
            + (xcd - tall_xcds) * (pids_per_xcd - 1)
            + local_pid
        )

    return pid


@triton.jit
def pid_grid(pid: int, num_pid_m: int, num_pid_n: int, GROUP_SIZE_M: tl.constexpr = 1):
    """A 1-D pid to (pid_m, pid_n), GROUP_SIZE_M rows of tiles a group."""
    if GROUP_SIZE_M == 1:
        pid_m = pid // num_pid_n
        pid_n = pid % num_pid_n
    else:
        num_pid_in_group = GROUP_SIZE_M * num_pid_n
        group_id = pid // num_pid_in_group
        first_pid_m = group_id * GROUP_SIZE_M
        group_size_m = min(num_pid_m - first_pid_m, GROUP_SIZE_M)
        tl.assume(group_size_m >= 0)
        pid_m = first_pid_m + (pid % group_size_m)
        pid_n = (pid % num_pid_in_group) // group_size_m

    return pid_m, pid_n


@triton.jit
def _relu(x):
    return tl.maximum(0.0, x)


@triton.jit
def _silu_exp2(x):
    return x / (1.0 + tl.exp2(-(x * 1.44269504089)))


def _get_activation_from_str(activation: str):
    mapping = {
        "silu_exp2": _silu_exp2,
        "relu": _relu,
    }
    return mapping[activation]

# ---------------------------------------------------------------------------------------- kernels


@triton.jit
def _gemm_splitk_reduce_kernel(
    c_in_ptr,
    c_out_ptr,
    bias_ptr,
    M,
    N,
    stride_c_in_k,
    stride_c_in_m,
    stride_c_in_n,
    stride_c_out_m,
    stride_c_out_n,
    BLOCK_SIZE_M: tl.constexpr,
    BLOCK_SIZE_N: tl.constexpr,
    ACTUAL_KSPLIT: tl.constexpr,
    MAX_KSPLIT: tl.constexpr,
    ADD_BIAS: tl.constexpr,
    activation: tl.constexpr,
    use_activation: tl.constexpr,
    KERNEL_NAME: tl.constexpr = "_gemm_splitk_reduce_kernel",
):
    tl.assume(stride_c_in_k > 0)
    tl.assume(stride_c_in_m > 0)
    tl.assume(stride_c_in_n > 0)
    tl.assume(stride_c_out_m > 0)
    tl.assume(stride_c_out_n > 0)

    pid_m = tl.program_id(axis=0)
    pid_n = tl.program_id(axis=1)

    # pid * stride stays non-negative: AMD's buffer loads
    tl.assume(pid_m >= 0)
    tl.assume(pid_n >= 0)

    offs_m = (pid_m * BLOCK_SIZE_M + tl.arange(0, BLOCK_SIZE_M)) % M
    offs_n = (pid_n * BLOCK_SIZE_N + tl.arange(0, BLOCK_SIZE_N)) % N
    offs_k = tl.arange(0, MAX_KSPLIT)
    c_in_ptrs = (
        c_in_ptr
        + (offs_k[:, None, None] * stride_c_in_k)
        + (offs_m[None, :, None] * stride_c_in_m)
        + (offs_n[None, None, :] * stride_c_in_n)
    )

    if ACTUAL_KSPLIT == MAX_KSPLIT:
        c = tl.load(c_in_ptrs)
    else:
        c = tl.load(c_in_ptrs, mask=offs_k[:, None, None] < ACTUAL_KSPLIT, other=0.0)
    c = tl.sum(c, axis=0)

    if ADD_BIAS:
        acc_dtype = tl.float32 if c_in_ptr.type.element_ty != tl.int8 else tl.int32
        bias = tl.load(bias_ptr + offs_n).to(dtype=acc_dtype)
        bias = tl.broadcast_to(bias[None, :], (BLOCK_SIZE_M, BLOCK_SIZE_N))
        c += bias

    if use_activation:
        c = activation(c)

    c = c.to(c_out_ptr.type.element_ty)

    c_out_ptrs = (
        c_out_ptr
        + (offs_m[:, None] * stride_c_out_m)
        + (offs_n[None, :] * stride_c_out_n)
    )

    tl.store(c_out_ptrs, c)


@triton.heuristics(
    {
        "EVEN_K": lambda args: (args["K"] % args["BLOCK_SIZE_K"] == 0)
        and (args["SPLITK_BLOCK_SIZE"] % args["BLOCK_SIZE_K"] == 0)
        and (args["K"] % args["SPLITK_BLOCK_SIZE"] == 0),
        "GRID_MN": lambda args: triton.cdiv(args["M"], args["BLOCK_SIZE_M"])
        * triton.cdiv(args["N"], args["BLOCK_SIZE_N"]),
    }
)
@triton.jit
def _gemm_a8w8_kernel(
    # Pointers to matrices
    a_ptr,
    b_ptr,
    a_scale_ptr,
    b_scale_ptr,
    bias_ptr,
    c_ptr,
    # Matrix dimensions
    M,
    N,
    K,
    # The strides: how far the pointer moves for one step along each dimension
    # (stride_am: one row of A further).
    stride_am,
    stride_ak,
    stride_bk,
    stride_bn,
    stride_ck,
    stride_cm,
    stride_cn,
    # Meta-parameters
    HAS_BIAS: tl.constexpr,
    BLOCK_SIZE_M: tl.constexpr,
    BLOCK_SIZE_N: tl.constexpr,
    BLOCK_SIZE_K: tl.constexpr,
    GROUP_SIZE_M: tl.constexpr,
    NUM_KSPLIT: tl.constexpr,
    SPLITK_BLOCK_SIZE: tl.constexpr,
    EVEN_K: tl.constexpr,
    GRID_MN: tl.constexpr,
    cache_modifier: tl.constexpr,
):
    """
    Called through gemm_a8w8, never directly.

    C = A x B in 8 bits, scaled by the outer product of two 1-D scales, plus an optional bias.

    - A: (M, K).
    - B: (K, N).
    - C: (M, N) when NUM_KSPLIT == 1, else (NUM_KSPLIT, M, N).
    - A_scale: (M, 1).
    - B_scale: (1, N).
    - Bias: (1, N).
    """

    tl.assume(stride_am > 0)
    tl.assume(stride_ak > 0)
    tl.assume(stride_bk > 0)
    tl.assume(stride_bn > 0)
    tl.assume(stride_cm > 0)
    tl.assume(stride_cn > 0)

    # -----------------------------------------------------------
    # The program's block of C, in a grouped order for L2 reuse.
    pid_unified = tl.program_id(axis=0)
    # consecutive pids (CHUNK_SIZE of them) on one XCD
    pid_unified = remap_xcd(pid_unified, GRID_MN * NUM_KSPLIT, NUM_XCDS=8)

    pid_k = pid_unified % NUM_KSPLIT
    pid = pid_unified // NUM_KSPLIT
    num_pid_m = tl.cdiv(M, BLOCK_SIZE_M)
    num_pid_n = tl.cdiv(N, BLOCK_SIZE_N)

    if NUM_KSPLIT == 1:
        pid_m, pid_n = pid_grid(pid, num_pid_m, num_pid_n, GROUP_SIZE_M=GROUP_SIZE_M)
    else:
        pid_m = pid // num_pid_n
        pid_n = pid % num_pid_n

    tl.assume(pid_m >= 0)
    tl.assume(pid_n >= 0)
    tl.assume(pid_k >= 0)

    split_k_start = pid_k * SPLITK_BLOCK_SIZE
    if split_k_start < K:

        # pointers to the first blocks of A and B
        offs_k = tl.arange(0, BLOCK_SIZE_K)
        offs_k_split = split_k_start + offs_k
        offs_am = (pid_m * BLOCK_SIZE_M + tl.arange(0, BLOCK_SIZE_M)) % M
        offs_bn = (pid_n * BLOCK_SIZE_N + tl.arange(0, BLOCK_SIZE_N)) % N
        a_ptrs = a_ptr + (
            offs_am[:, None] * stride_am + offs_k_split[None, :] * stride_ak
        )
        b_ptrs = b_ptr + (
            offs_k_split[:, None] * stride_bk + offs_bn[None, :] * stride_bn
        )

        # the scales' pointers, loaded
        a_scale = tl.load(a_scale_ptr + offs_am)
        b_scale = tl.load(b_scale_ptr + offs_bn)

        acc_dtype = tl.float32 if c_ptr.type.element_ty != tl.int8 else tl.int32
        accumulator = tl.zeros((BLOCK_SIZE_M, BLOCK_SIZE_N), dtype=acc_dtype)

        split_k_end = tl.minimum(split_k_start + SPLITK_BLOCK_SIZE, K)
        k_span = split_k_end - split_k_start
        num_k_iter = tl.cdiv(k_span, BLOCK_SIZE_K)

        for k in range(num_k_iter):
            if EVEN_K:
                a = tl.load(a_ptrs)
                b = tl.load(b_ptrs, cache_modifier=cache_modifier)
            else:
                a = tl.load(
                    a_ptrs, mask=offs_k[None, :] < k_span - k * BLOCK_SIZE_K, other=0.0
                )
                b = tl.load(
                    b_ptrs,
                    mask=offs_k[:, None] < k_span - k * BLOCK_SIZE_K,
                    other=0.0,
                    cache_modifier=cache_modifier,
                )

            accumulator += tl.dot(a, b)

            # the next K block
            a_ptrs += BLOCK_SIZE_K * stride_ak
            b_ptrs += BLOCK_SIZE_K * stride_bk

        # the scales
        accumulator *= a_scale[:, None] * b_scale[None, :]

        # the bias (unsplit only; a split adds it in the reduce)
        if HAS_BIAS:
            bias = tl.load(bias_ptr + offs_bn)
            accumulator = accumulator.to(bias_ptr.type.element_ty) + bias[None, :]

        c = accumulator.to(c_ptr.type.element_ty)

        # the block of C, masked
        offs_cm = pid_m * BLOCK_SIZE_M + tl.arange(0, BLOCK_SIZE_M)
        offs_cn = pid_n * BLOCK_SIZE_N + tl.arange(0, BLOCK_SIZE_N)
        c_ptrs = (
            c_ptr
            + stride_cm * offs_cm[:, None]
            + stride_cn * offs_cn[None, :]
            + pid_k * stride_ck
        )
        c_mask = (offs_cm[:, None] < M) & (offs_cn[None, :] < N)
        tl.store(c_ptrs, c, mask=c_mask)


def _get_config(
    M: int,
    N: int,
    K: int,
):
    config, is_tunned = get_gemm_config("GEMM-A8W8", M, N, K)
    return compute_splitk_params(config, K), is_tunned

# ---------------------------------------------------------------------------------------- ops


def gemm_a8w8(
    x: torch.Tensor,
    w: torch.Tensor,
    x_scale: torch.Tensor,
    w_scale: torch.Tensor,
    bias: torch.Tensor | None = None,
    dtype: float | None = torch.bfloat16,
    y: torch.Tensor | None = None,
    config: dict | None = None,
    skip_reduce: bool | None = False,
):
    """
    Y = (X @ W^T) * (x_scale * w_scale) (+ bias), 8-bit operands scaled back per row and per column.

    Args:
        x (torch.Tensor): (M, K).
        w (torch.Tensor): (N, K), transposed inside.
        x_scale (torch.Tensor): (M, 1) or (M,).
        w_scale (torch.Tensor): (1, N) or (N,).
        bias (Optional[torch.Tensor]): (N,).
        dtype (Optional[torch.dtype]): the output's (BF16 or FP16).
        y (Optional[torch.Tensor]): an output of (M, N) to write.
        config (Optional[dict]): the kernel's settings (else the JSON files').
        skip_reduce (Optional[bool]): split-K's partials returned unreduced, (NUM_KSPLIT, M, N).
    """
    assert x.shape[1] == w.shape[1], "Incompatible dimensions!!!"

    M, K = x.shape
    N, K = w.shape

    w = w.T

    if config is None:
        config, _ = _get_config(M, N, K)

    if y is None and (config["NUM_KSPLIT"] == 1 or not skip_reduce):
        y = torch.empty((M, N), dtype=dtype, device=x.device)

    if config["NUM_KSPLIT"] > 1:
        y_pp = torch.empty(
            (config["NUM_KSPLIT"], M, N),
            dtype=torch.float32,
            device=y.device if y is not None else x.device,
        )
    else:
        y_pp = None

    grid = lambda META: (
        (
            META["NUM_KSPLIT"]
            * triton.cdiv(M, META["BLOCK_SIZE_M"])
            * triton.cdiv(N, META["BLOCK_SIZE_N"])
        ),
    )
    _gemm_a8w8_kernel[grid](
        x,
        w,
        x_scale,
        w_scale,
        bias,
        y if config["NUM_KSPLIT"] == 1 else y_pp,
        M,
        N,
        K,
        x.stride(0),
        x.stride(1),
        w.stride(0),
        w.stride(1),
        0 if config["NUM_KSPLIT"] == 1 else y_pp.stride(0),
        y.stride(0) if config["NUM_KSPLIT"] == 1 else y_pp.stride(1),
        y.stride(1) if config["NUM_KSPLIT"] == 1 else y_pp.stride(2),
        (bias is not None) and (config["NUM_KSPLIT"] == 1),
        **config,
    )

    if config["NUM_KSPLIT"] > 1:
        if skip_reduce:
            return y_pp

        REDUCE_BLOCK_SIZE_M = 32
        REDUCE_BLOCK_SIZE_N = 32
        ACTUAL_KSPLIT = triton.cdiv(K, config["SPLITK_BLOCK_SIZE"])

        grid_reduce = (
            triton.cdiv(M, REDUCE_BLOCK_SIZE_M),
            triton.cdiv(N, REDUCE_BLOCK_SIZE_N),
        )
        _gemm_splitk_reduce_kernel[grid_reduce](
            y_pp,
            y,
            bias,
            M,
            N,
            y_pp.stride(0),
            y_pp.stride(1),
            y_pp.stride(2),
            y.stride(0),
            y.stride(1),
            BLOCK_SIZE_M=REDUCE_BLOCK_SIZE_M,
            BLOCK_SIZE_N=REDUCE_BLOCK_SIZE_N,
            ACTUAL_KSPLIT=ACTUAL_KSPLIT,
            MAX_KSPLIT=triton.next_power_of_2(config["NUM_KSPLIT"]),
            ADD_BIAS=bias is not None,
            activation="",
            use_activation=False,
            KERNEL_NAME="_gemm_a8w8_reduce_kernel",
        )

    return y


def run(x, w, x_scale, w_scale, bias):
    """The scaled int8 GEMM into bfloat16 (the JSON files' settings for this device and shape)."""
    return gemm_a8w8(x, w, x_scale, w_scale, bias, dtype=torch.bfloat16)
