"""v150: breaker19's lmd_silu with its grid's limit checked on each element, ``assert all(g < 65536 for g in grid)``
(v148's ``max(grid)`` spelled as a comprehension, which kernelopt read as no check): a smaller ``BLOCK_SIZE_N`` counts
more programs and fails the assert at sizes the original's 512 passes (N = 2**24: 1048576 programs of 16 where 512's
are 32768).

LMDeploy's Triton SiLU-and-mul (``lmdeploy/pytorch/kernels/cuda/activation.py`` and ``utils.py``, Apache-2.0), as in
v148 (grid_assert_max): the hidden size ``N: tl.constexpr`` and the kernel's own EVEN test in its body;
``BLOCK_SIZE_N = min(next_power_of_2(N), 512)`` in two host statements; the rows walked persistently; the grid
``(cdiv(N, BLOCK_SIZE_N), min(M, num_sm * warps_per_sm // num_warps))``. Off a GPU the device is 4 SMs with the
table's default 32 warps an SM."""

import functools

import torch
import triton
import triton.language as tl
from packaging import version

TRITON_VERSION = version.parse(triton.__version__)

if TRITON_VERSION >= version.parse("3.0.0"):
    fast_expf = tl.math.exp
else:
    fast_expf = tl.math.fast_expf

WARPS_PER_SM = {
    (8, 0): 64,
    (8, 6): 48,
    (8, 7): 48,
    (8, 9): 48,
    (9, 0): 64,
    (10, 0): 64,
}


@functools.lru_cache
def get_device_props(device=None):
    if not torch.cuda.is_available():
        return dict(multi_processor_count=4, warps_per_sm=32)
    if device is None:
        device = torch.cuda.current_device()
    props = torch.cuda.get_device_properties(device)
    warps_per_sm = WARPS_PER_SM.get((props.major, props.minor), 32)
    return dict(multi_processor_count=props.multi_processor_count, warps_per_sm=warps_per_sm)


@triton.jit
def _silu_and_mul_kernel(
    gateup_ptr,
    out_ptr,
    N: tl.constexpr,
    M,
    stride_gum: tl.constexpr,
    stride_gun: tl.constexpr,
    stride_om: tl.constexpr,
    stride_on: tl.constexpr,
    BLOCK_SIZE_N: tl.constexpr,
):
    """Silu and mul kernel."""
    n_block_id = tl.program_id(0)
    m_id_start = tl.program_id(1)
    m_id_stride = tl.num_programs(1)

    up_ptr = gateup_ptr + N * stride_gun
    offs_n = n_block_id * BLOCK_SIZE_N + tl.arange(0, BLOCK_SIZE_N)

    if N % BLOCK_SIZE_N == 0:
        mask = None
    else:
        mask = offs_n < N

    gate_ptrs = gateup_ptr + m_id_start * stride_gum + offs_n * stride_gun
    up_ptrs = up_ptr + m_id_start * stride_gum + offs_n * stride_gun
    out_ptrs = out_ptr + m_id_start * stride_om + offs_n * stride_on

    for _ in tl.range(m_id_start, M, m_id_stride):
        gate = tl.load(gate_ptrs, mask=mask)
        up = tl.load(up_ptrs, mask=mask)
        # exp expect fp32
        gate = gate.to(tl.float32)

        gate = gate / (1 + fast_expf(-gate))
        gate = gate.to(gateup_ptr.dtype.element_ty)
        out = gate * up

        tl.store(out_ptrs, out, mask=mask)

        gate_ptrs += m_id_stride * stride_gum
        up_ptrs += m_id_stride * stride_gum
        out_ptrs += m_id_stride * stride_om


def silu_and_mul(gate_up: torch.Tensor, out: torch.Tensor = None):
    """Silu and mul."""
    assert gate_up.dim() == 2

    M = gate_up.size(0)
    N = gate_up.size(-1) // 2
    if out is None:
        out_shape = (M, N)
        out = gate_up.new_empty(out_shape)

    BLOCK_SIZE_N = triton.next_power_of_2(N)
    BLOCK_SIZE_N = min(BLOCK_SIZE_N, 512)
    num_warps = 4
    num_stages = 1

    props = get_device_props(gate_up.device.index)
    num_sm = props["multi_processor_count"]
    warps_per_sm = props["warps_per_sm"]
    grid_size0 = triton.cdiv(N, BLOCK_SIZE_N)
    grid_size1 = min(M, num_sm * warps_per_sm // num_warps)
    grid = (grid_size0, grid_size1)
    assert all(g < 65536 for g in grid)
    _silu_and_mul_kernel[grid](
        gate_up,
        out,
        N,
        M,
        stride_gum=gate_up.stride(0),
        stride_gun=gate_up.stride(1),
        stride_om=out.stride(0),
        stride_on=out.stride(1),
        BLOCK_SIZE_N=BLOCK_SIZE_N,
        num_warps=num_warps,
        num_stages=num_stages,
    )

    return out


def run(gate_up):
    return silu_and_mul(gate_up)
