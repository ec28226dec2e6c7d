"""LMDeploy's W8A8 linear with dynamic per-token quantization (``lmdeploy/pytorch/kernels/cuda/w8a8_triton_kernels.py``
with ``get_kernel_meta`` from ``triton_utils.py``; Apache-2.0, OpenMMLab): two launches. ``per_token_quant_int8``
quantizes each row of the activations to int8 with its own scale (``BLOCK = next_power_of_2(N)``, the whole row one
block; ``num_warps = min(max(BLOCK // 256, 1), 8)``; ``y_stride`` / ``yq_stride`` / ``eps`` / ``Q_MAX`` as
``tl.constexpr``s; libdevice ``round``); ``matmul_kernel_dynamic_quant`` multiplies the int8 rows by an int8 weight
(N, K) read TRANSPOSED through its strides (``b.stride(1), b.stride(0)``) into an int32 accumulator
(``ACCUMULATOR_DTYPE=tl.int32`` a constexpr by keyword), then scales by the row and column scales. ``_linear`` is
``@triton.autotune`` of two configs (128 x 256 x 128 and 256 x 128 x 128, 8 warps, 3 stages) keyed on ``['N',
'K']`` with ``warmup=5, rep=20``, under ``@triton.jit(do_not_specialize=['M'])``; ``GROUP_SIZE_M=8`` at the launch;
its pointer arguments ``rms_scale_ptr`` / ``linear_scale_ptr`` come AFTER the constexprs, by keyword; the launch
splats ``**kernel_meta``, a module dict ``KERNEL_META`` a helper returns (empty); rows and columns WRAPPED (``% M``,
``% N``), the K tail masked with ``other=None``; a named ``def grid(META)``. ``run`` quantizes the activations and
returns the float16 product.

Kept as the authors wrote it, cut to ``per_token_quant_int8`` and the plain ``_linear`` path of
``matmul_kernel_dynamic_quant`` (the residual variant and the RMS-norm quant kernels left out; ``get_kernel_meta``
and ``KERNEL_META`` copied from ``triton_utils.py``). One change: ``tl_round`` taken as their Triton 3 branch takes it (``TRITON_VERSION >= 3.0.0``).
Comments reworded."""

import torch
import triton
import triton.language as tl

tl_round = tl.extra.cuda.libdevice.round

KERNEL_META = dict()


def get_kernel_meta(tensor: torch.Tensor):
    """Kernel meta."""
    return KERNEL_META


@triton.autotune(
    configs=[
        triton.Config({
            'BLOCK_M': 128,
            'BLOCK_N': 256,
            'BLOCK_K': 128,
        }, num_stages=3, num_warps=8),
        triton.Config({
            'BLOCK_M': 256,
            'BLOCK_N': 128,
            'BLOCK_K': 128,
        }, num_stages=3, num_warps=8)
    ],
    key=['N', 'K'],
    warmup=5,
    rep=20,
)
@triton.jit(do_not_specialize=['M'])
def _linear(
    A,
    B,
    C,
    M,
    N,
    K,
    stride_am,
    stride_ak,
    stride_bk,
    stride_bn,
    stride_cm,
    stride_cn,
    BLOCK_M: tl.constexpr,
    BLOCK_N: tl.constexpr,
    BLOCK_K: tl.constexpr,
    GROUP_SIZE_M: tl.constexpr,
    rms_scale_ptr,
    linear_scale_ptr,
    ACCUMULATOR_DTYPE: tl.constexpr,
):
    """A linear (dot product) of `A` and `B` into `C`, autotuned and JIT compiled."""

    pid = tl.program_id(axis=0)
    num_pid_m = tl.cdiv(M, BLOCK_M)
    num_pid_n = tl.cdiv(N, BLOCK_N)
    num_pid_in_group = GROUP_SIZE_M * num_pid_n
    group_id = pid // num_pid_in_group
    first_pid_m = group_id * GROUP_SIZE_M
    group_size_m = min(num_pid_m - first_pid_m, GROUP_SIZE_M)
    pid_m = first_pid_m + (pid % group_size_m)
    pid_n = (pid % num_pid_in_group) // group_size_m

    offs_am = (pid_m * BLOCK_M + tl.arange(0, BLOCK_M)) % M
    offs_bn = (pid_n * BLOCK_N + tl.arange(0, BLOCK_N)) % N
    offs_k = tl.arange(0, BLOCK_K)
    a_ptrs = A + (offs_am[:, None] * stride_am + offs_k[None, :] * stride_ak)
    b_ptrs = B + (offs_k[:, None] * stride_bk + offs_bn[None, :] * stride_bn)
    accumulator = tl.zeros((BLOCK_M, BLOCK_N), dtype=ACCUMULATOR_DTYPE)
    for k in range(0, tl.cdiv(K, BLOCK_K)):
        a = tl.load(a_ptrs, mask=offs_k[None, :] < K - k * BLOCK_K, other=None)
        b = tl.load(b_ptrs, mask=offs_k[:, None] < K - k * BLOCK_K, other=None)
        accumulator = tl.dot(a, b, accumulator, out_dtype=ACCUMULATOR_DTYPE)
        a_ptrs += BLOCK_K * stride_ak
        b_ptrs += BLOCK_K * stride_bk
    c = accumulator.to(tl.float32)

    rms_scale = tl.load(rms_scale_ptr + offs_am)[:, None]
    linear_scale = tl.load(linear_scale_ptr + offs_bn)[None, :]
    c = c * rms_scale * linear_scale

    offs_cm = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_cn = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    c_ptrs = C + stride_cm * offs_cm[:, None] + stride_cn * offs_cn[None, :]
    c_mask = (offs_cm[:, None] < M) & (offs_cn[None, :] < N)
    tl.store(c_ptrs, c, mask=c_mask)


def matmul_kernel_dynamic_quant(a, b, rms_scale, linear_scale, residual=None, bias=None, output_dtype=torch.float16):
    """The product of `a` and `b` with dynamic quantization: scaled by `rms_scale` and `linear_scale`, a `bias`
    added where given, returned in `output_dtype`."""

    assert a.shape[-1] == b.shape[-1]
    assert b.ndim == 2 and b.is_contiguous()
    M = a.numel() // a.shape[-1]
    N, K = b.shape
    c_shape = a.shape[:-1] + (N, )
    c = a.new_empty(c_shape, dtype=output_dtype)
    accumulator_dtype = tl.float32 if a.is_floating_point() else tl.int32

    def grid(META):
        return (triton.cdiv(M, META['BLOCK_M']) * triton.cdiv(N, META['BLOCK_N']), )

    kernel_meta = get_kernel_meta(a)
    _linear[grid](a,
                  b,
                  c,
                  M,
                  N,
                  K,
                  a.stride(-2),
                  a.stride(-1),
                  b.stride(1),
                  b.stride(0),
                  c.stride(-2),
                  c.stride(-1),
                  GROUP_SIZE_M=8,
                  rms_scale_ptr=rms_scale,
                  linear_scale_ptr=linear_scale,
                  ACCUMULATOR_DTYPE=accumulator_dtype,
                  **kernel_meta)
    if bias is not None:
        c += bias

    return c


@triton.jit
def _per_token_quant_int8(
        y_ptr,
        y_q_ptr,
        y_s_ptr,
        y_stride: tl.constexpr,
        yq_stride: tl.constexpr,
        N,  # columns of X
        eps: tl.constexpr,  # keeps the scale off zero
        BLOCK: tl.constexpr,
        Q_MAX: tl.constexpr,
        IS_FLOATING_POINT: tl.constexpr,  # True for a floating point dtype
):
    """Per-token quantization of a tensor into signed 8-bit values."""
    # this program's row
    row = tl.program_id(0)
    y_ptr += row * y_stride
    y_q_ptr += row * yq_stride
    y_s_ptr += row

    cols = tl.arange(0, BLOCK)  # N <= BLOCK
    mask = cols < N

    y = tl.load(y_ptr + cols, mask=mask, other=0.).to(tl.float32)
    # Quant
    _absmax = tl.maximum(tl.max(tl.abs(y)), eps)
    y_s = _absmax / Q_MAX
    y_q = y / y_s
    if not IS_FLOATING_POINT:
        y_q = tl_round(y_q).to(tl.int8)

    tl.store(y_q_ptr + cols, y_q, mask=mask)
    tl.store(y_s_ptr, y_s)


def per_token_quant_int8(x, eps, quant_dtype=torch.int8):
    """Per-token quantization of `x` into signed 8-bit values; returns them and their scales."""
    qdtype_info = torch.finfo(quant_dtype) if quant_dtype.is_floating_point else torch.iinfo(quant_dtype)
    q_max = qdtype_info.max
    x_q = torch.empty_like(x, device=x.device, dtype=quant_dtype)
    M = x.numel() // x.shape[-1]
    N = x.shape[-1]
    x_s = torch.empty(x.shape[:-1] + (1, ), device=x.device, dtype=torch.float32)
    BLOCK = triton.next_power_of_2(N)
    # the warps by the block
    num_warps = min(max(BLOCK // 256, 1), 8)

    if x.dim() > 2:
        x = x.flatten(0, -2)
    assert x.stride(-1) == 1
    # launch
    kernel_meta = get_kernel_meta(x)
    _per_token_quant_int8[(M, )](x,
                                 x_q,
                                 x_s,
                                 y_stride=x.stride(-2),
                                 yq_stride=x_q.stride(-2),
                                 N=N,
                                 eps=eps,
                                 BLOCK=BLOCK,
                                 Q_MAX=q_max,
                                 IS_FLOATING_POINT=quant_dtype.is_floating_point,
                                 num_warps=num_warps,
                                 **kernel_meta)

    return x_q, x_s


def run(x, w_q, w_s):
    x_q, x_s = per_token_quant_int8(x, 1e-7)
    return matmul_kernel_dynamic_quant(x_q, w_q, x_s, w_s, output_dtype=torch.float16)
