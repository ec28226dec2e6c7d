"""FlagGems' layer norm forward: three kernels chosen by the row's length. ``N <= 128``: several rows a program,
``TILE_N = triton.next_power_of_2(N)``, ``TILE_M = triton.cdiv(1024, TILE_N)`` (one tile follows the other), grid
``(triton.cdiv(M, TILE_M), 1, 1)``; ``N <= 4096``: one row a program in one ``TILE_N`` block; longer rows: a loop
kernel autotuned over ``runtime.get_tuned_config("layer_norm_loop")`` (configs built from a table keyed by the op's
name, FlagGems' ``tune_configs.yaml``) keyed on ``["M", "N"]``, Welford's sums over full tiles loaded without masks,
the last tile masked, then the second sweep from the last tile (``prev_multiple_of(N, TILE_N)``) backwards, again
unmasked but for the first. The tiles passed positionally, ``@triton.jit(do_not_specialize=["eps"])``, the launches
inside ``with torch_device_fn.device(x.device):``. Returns the output, the means and the reciprocal deviations."""

import itertools
import math

import torch
import triton
import triton.language as tl

torch_device_fn = torch.cuda

# FlagGems' tune_configs.yaml, its layer_norm_loop entry (the tiles cut down for the interpreter)
_TUNED_CONFIGS = {"layer_norm_loop": {"gen": True, "META": {"TILE_N": [256, 512, 1024]}, "num_warps": [4, 8]}}


class _Runtime:
    @staticmethod
    def get_tuned_config(op_name):
        entry = _TUNED_CONFIGS[op_name]
        names = list(entry["META"])
        configs = []
        for values in itertools.product(*(entry["META"][n] for n in names), entry["num_warps"]):
            configs.append(triton.Config(dict(zip(names, values[:-1])), num_warps=values[-1]))
        return configs


runtime = _Runtime()


@triton.jit
def prev_multiple_of(a, b):
    # the largest x<a that x%b ==0
    return tl.cdiv(a, b) * b - b


@triton.jit(do_not_specialize=["eps"])
def layer_norm_persistent_kernel(
    in_ptr,
    out_ptr,
    weight_ptr,
    bias_ptr,
    out_mean_ptr,  # pointer to the mean
    out_rstd_ptr,  # pointer to the 1/std
    M,
    N,
    eps,
    TILE_N: tl.constexpr,
):
    # using 1d tile makes code clean
    # Map the program id to the row of X and Y it should compute.
    pid = tl.program_id(0)

    n_offsets = tl.arange(0, TILE_N)
    mask = n_offsets < N

    x = tl.load(in_ptr + pid * N + n_offsets, mask, other=0.0).to(tl.float32)
    m = tl.sum(x) / N
    d = x - m  # deviation
    s = tl.where(mask, d * d, 0)
    sum_square = tl.sum(s)  # sum of square of deviation
    var = sum_square / N
    rstd = tl.math.rsqrt(var + eps)

    tl.store(out_mean_ptr + pid, m)
    tl.store(out_rstd_ptr + pid, rstd)

    w = tl.load(weight_ptr + n_offsets, mask=mask)
    b = tl.load(bias_ptr + n_offsets, mask=mask)
    out = (x - m) * rstd * w + b

    tl.store(out_ptr + pid * N + n_offsets, out, mask=mask)


@triton.jit(do_not_specialize=["eps"])
def layer_norm_persistent_kernel_multiline(
    in_ptr,
    out_ptr,
    weight_ptr,
    bias_ptr,
    out_mean_ptr,  # pointer to the mean
    out_rstd_ptr,  # pointer to the 1/std
    M,
    N,
    eps,
    TILE_M: tl.constexpr,
    TILE_N: tl.constexpr,
):
    # Map the program id to the row of X and Y it should compute.
    pid = tl.program_id(0)
    m_offsets = pid * TILE_M + tl.arange(0, TILE_M)
    m_mask = m_offsets < M

    n_offsets = tl.arange(0, TILE_N)[None, :]
    n_mask = n_offsets < N
    mask = m_mask[:, None] & n_mask

    x = tl.load(in_ptr + m_offsets[:, None] * N + n_offsets, mask, other=0.0).to(tl.float32)
    m = tl.sum(x, axis=1) / N
    d = tl.where(mask, x - m[:, None], 0)
    s = d * d
    sum_square = tl.sum(s, axis=1)  # sum of square of deviation
    var = sum_square / N
    rstd = tl.math.rsqrt(var + eps)

    tl.store(out_mean_ptr + m_offsets, m, mask=m_mask)
    tl.store(out_rstd_ptr + m_offsets, rstd, mask=m_mask)

    w = tl.load(weight_ptr + n_offsets, mask=n_mask)
    b = tl.load(bias_ptr + n_offsets, mask=n_mask)
    out = (x - m[:, None]) * rstd[:, None] * w + b

    tl.store(out_ptr + m_offsets[:, None] * N + n_offsets, out, mask=mask)


@triton.autotune(
    configs=runtime.get_tuned_config("layer_norm_loop"),
    key=["M", "N"],
)
@triton.jit(do_not_specialize=["eps"])
def layer_norm_loop_kernel(
    in_ptr,
    out_ptr,
    weight_ptr,
    bias_ptr,
    out_mean_ptr,  # pointer to the mean
    out_rstd_ptr,  # pointer to the 1/std
    M,
    N,
    eps,
    TILE_N: tl.constexpr,
):
    # Map the program id to the row of X and Y it should compute.
    pid = tl.program_id(0)

    # Compute mean
    m = tl.zeros((TILE_N,), dtype=tl.float32)  # mean
    s = tl.zeros((TILE_N,), dtype=tl.float32)  # sum((x - m)^2)
    cnt = tl.zeros((TILE_N,), dtype=tl.int32)
    num_steps = tl.cdiv(N, TILE_N)
    for step in range(0, num_steps - 1, 1):
        start_n = step * TILE_N
        n_offsets = start_n + tl.arange(0, TILE_N)
        x = tl.load(in_ptr + pid * N + n_offsets).to(tl.float32)
        new_m = m + (x - m) / (step + 1)
        new_s = s + (x - new_m) * (x - m)
        cnt += 1
        m = new_m
        s = new_s

    # the last step
    for step in range(num_steps - 1, num_steps, 1):
        start_n = step * TILE_N
        n_offsets = start_n + tl.arange(0, TILE_N)
        mask = n_offsets < N
        x = tl.load(in_ptr + pid * N + n_offsets, mask=mask).to(tl.float32)
        new_m = tl.where(mask, m + (x - m) / (step + 1), m)
        new_s = tl.where(mask, s + (x - new_m) * (x - m), s)
        cnt += mask.to(tl.int32)
        m = new_m
        s = new_s

    final_m = tl.sum(m * cnt) / N
    var = tl.sum(s + cnt * (m - final_m) * (m - final_m)) / N
    rstd = tl.math.rsqrt(var + eps)
    m = final_m
    # Write mean / rstd
    tl.store(out_mean_ptr + pid, m)
    tl.store(out_rstd_ptr + pid, rstd)

    # reverse the order of the second sweep
    # Normalize and apply linear transformation
    prev_multiple = prev_multiple_of(N, TILE_N)
    # the first step, masking is needed
    for start_n in range(0, TILE_N, TILE_N):
        n_offsets = (prev_multiple - start_n) + tl.arange(0, TILE_N)
        mask = n_offsets < N
        x = tl.load(in_ptr + pid * N + n_offsets, mask=mask, other=0.0, eviction_policy="evict_first").to(tl.float32)
        w = tl.load(weight_ptr + n_offsets, mask=mask)
        b = tl.load(bias_ptr + n_offsets, mask=mask)
        out = w * (x - m) * rstd + b
        tl.store(out_ptr + pid * N + n_offsets, out, mask=mask)

    for start_n in range(TILE_N, N, TILE_N):
        n_offsets = (prev_multiple - start_n) + tl.arange(0, TILE_N)
        x = tl.load(in_ptr + pid * N + n_offsets, eviction_policy="evict_first").to(tl.float32)
        w = tl.load(weight_ptr + n_offsets)
        b = tl.load(bias_ptr + n_offsets)
        out = w * (x - m) * rstd + b
        tl.store(out_ptr + pid * N + n_offsets, out)


def layer_norm(x, normalized_shape, weight, bias, eps=1e-5):
    dim = x.ndim - len(normalized_shape)
    M = math.prod(x.shape[:dim])
    N = math.prod(normalized_shape)

    x = x.contiguous()
    weight = weight.contiguous()
    bias = bias.contiguous()
    y = torch.empty_like(x)

    # NOTE: when the input is half-precision(either float16 or bfloat16)
    # these statistical data saved for backward is in single precision
    acc_type = torch.float32
    mean = torch.empty(M, dtype=acc_type, device=x.device)
    rstd = torch.empty(M, dtype=acc_type, device=x.device)

    with torch_device_fn.device(x.device):
        if N <= 128:
            TILE_N = triton.next_power_of_2(N)
            TILE_M = triton.cdiv(1024, TILE_N)
            grid = (triton.cdiv(M, TILE_M), 1, 1)
            layer_norm_persistent_kernel_multiline[grid](x, y, weight, bias, mean, rstd, M, N, eps, TILE_M, TILE_N)
        elif N <= 4096:
            TILE_N = triton.next_power_of_2(N)
            grid = (M, 1, 1)
            layer_norm_persistent_kernel[grid](x, y, weight, bias, mean, rstd, M, N, eps, TILE_N)
        else:
            grid = (M, 1, 1)
            layer_norm_loop_kernel[grid](x, y, weight, bias, mean, rstd, M, N, eps)
    return y, mean, rstd


def run(x, weight, bias):
    return layer_norm(x, (x.shape[-1],), weight, bias)
