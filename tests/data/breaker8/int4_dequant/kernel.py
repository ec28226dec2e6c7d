"""bitsandbytes' NF4 dequantization in Triton (bitsandbytes.backends.triton.kernels_4bit): each byte holds two 4-bit
codes (high nibble first), each code indexes the 16-entry NF4 table (a gather, ``tl.load(quant_ptr + lower)``), each
block of ``blocksize`` values has one absmax; the two halves are put back in order by ``tl.interleave``.
``@triton.autotune`` over ``SPLIT_SIZE`` (bytes a program) keyed on ``["num_paired_elements", "QUANT_BLOCK"]``,
a grid ``lambda META``; the blocksize is the checkpoint's format (the reference reads the same one)."""

import torch
import triton
import triton.language as tl

NF4_CODE = [
    -1.0, -0.6961928009986877, -0.5250730514526367, -0.39491748809814453, -0.28444138169288635,
    -0.18477343022823334, -0.09105003625154495, 0.0, 0.07958029955625534, 0.16093020141124725,
    0.24611230194568634, 0.33791524171829224, 0.44070982933044434, 0.5626170039176941, 0.7229568362236023, 1.0,
]


@triton.autotune(
    configs=[
        triton.Config({"SPLIT_SIZE": 64}, num_stages=2, num_warps=4),
        triton.Config({"SPLIT_SIZE": 128}, num_stages=2, num_warps=4),
        triton.Config({"SPLIT_SIZE": 256}, num_stages=2, num_warps=8),
    ],
    key=["num_paired_elements", "QUANT_BLOCK"],
)
@triton.jit
def dequant_4bit_kernel(a_ptr, c_ptr, quant_ptr, absmax_ptr, num_paired_elements,
                        QUANT_BLOCK: tl.constexpr, SPLIT_SIZE: tl.constexpr):
    PAIRED_QUANT_BLOCK: tl.constexpr = QUANT_BLOCK // 2
    pid = tl.program_id(axis=0)
    block_start = pid * SPLIT_SIZE
    offsets = block_start + tl.arange(0, SPLIT_SIZE)
    mask = offsets < num_paired_elements

    a = tl.load(a_ptr + offsets, mask, other=0).to(tl.int32)
    higher = (a >> 4) & 0xF
    lower = a & 0xF

    abs_offsets = offsets // PAIRED_QUANT_BLOCK
    absmax = tl.load(absmax_ptr + abs_offsets, mask, other=1.0, eviction_policy="evict_last")

    lower_4 = tl.load(quant_ptr + lower, eviction_policy="evict_last")
    higher_4 = tl.load(quant_ptr + higher, eviction_policy="evict_last")

    mul_high = higher_4 * absmax
    mul_low = lower_4 * absmax
    out_dq = tl.interleave(mul_high, mul_low)

    out_block_start = pid * SPLIT_SIZE * 2
    offs = out_block_start + tl.arange(0, SPLIT_SIZE * 2)
    mask = offs < num_paired_elements * 2
    tl.store(c_ptr + offs, out_dq, mask)


def dequantize_4bit_impl(A, absmax, blocksize, quant_type, shape, dtype):
    assert quant_type == "nf4"
    code = torch.tensor(NF4_CODE, dtype=torch.float32, device=A.device)
    out = torch.empty(shape, dtype=dtype, device=A.device)
    number_of_paired_elements = A.numel()
    grid = lambda META: (triton.cdiv(number_of_paired_elements, META["SPLIT_SIZE"]),)  # noqa: E731
    dequant_4bit_kernel[grid](A, out, code, absmax, number_of_paired_elements, blocksize)
    return out


BLOCKSIZE = 64


def run(packed, absmax):
    return dequantize_4bit_impl(packed, absmax, BLOCKSIZE, "nf4", (packed.numel() * 2,), torch.float32)
