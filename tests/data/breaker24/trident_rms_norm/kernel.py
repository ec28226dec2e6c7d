"""Kakao Brain's trident RMS norm, forward (``trident/kernel/rms_norm.py`` and ``trident/operation/rms_norm.py``,
with ``util.size_and_stride`` / ``util.dtype`` from ``trident/util/util.py``; Apache-2.0). The KERNEL IS A
``@staticmethod`` OF A CLASS (``RMSNorm.forward``, launched as ``kernel.RMSNorm.forward[grid]`` by the operation's
own class, a ``torch.autograd.Function`` whose name-mangled ``__forward`` computes the launch). A
``triton.heuristics``-ONLY launch: ``require_x_boundary_check`` is ``x_size % x_block_size`` (an int, not a bool);
block pointers (``tl.make_block_ptr``) over the row, loads and stores ``boundary_check``ed only under that flag; the
row's block ``triton.next_power_of_2(x_size)`` and the output dtype ``util.dtype(...)`` passed POSITIONALLY; the
partial RMS (pRMSNorm) over the first ``x_size * p`` columns, a ``tl.constexpr`` that is a FLOAT when ``0 <= p <= 1``;
every size and stride annotated ``tl.int32``; the grid a ``def grid(meta)`` closure of one program a row; the bias
optional through ``if bias_ptr is not None``.

Cut to the forward (the backward kernels and trident's NVTX trace calls left out); the two classes both named
``RMSNorm`` in trident's two modules are ``RMSNorm`` (the kernel) and ``RMSNormOperation`` here."""

from typing import Any

import torch
import triton
import triton.language as tl


# ---------------------------------------------------------------------------------------- util


def dtype(input):
    if input == torch.float32:
        return tl.float32
    elif input == torch.float16:
        return tl.float16
    elif input == torch.bfloat16:
        return tl.bfloat16
    elif input == torch.int64:
        return tl.int64
    else:
        raise ValueError(f"Unable to convert the given input: '{input}'.")


def size_and_stride(input: torch.Tensor, dim: int):
    if input.dim() == 2:
        if dim == 0:
            x_size, y_size = input.shape
            y_stride = input.stride(1)
            x_stride = input.stride(0)
        else:
            y_size, x_size = input.shape
            y_stride = input.stride(0)
            x_stride = input.stride(1)

        return y_size, x_size, y_stride, x_stride
    raise ValueError(f"Unable to get size and stride of the given input: '{input.dim()}'.")


# ---------------------------------------------------------------------------------------- kernel


class RMSNorm:
    @staticmethod
    @triton.heuristics({"require_x_boundary_check": lambda args: args["x_size"] % args["x_block_size"]})
    @triton.jit
    def forward(
        output_ptr: tl.tensor,
        rms_ptr: tl.tensor,
        input_ptr: tl.tensor,
        y_size: tl.int32,
        x_size: tl.int32,
        y_stride: tl.int32,
        x_stride: tl.int32,
        partial_size: tl.constexpr,
        weight_ptr: tl.tensor,
        bias_ptr: tl.tensor,
        eps: tl.float32,
        dtype: tl.constexpr,
        x_block_size: tl.constexpr,
        require_x_boundary_check: tl.constexpr,
    ):
        y_offset = tl.program_id(0)

        output_block_ptr = tl.make_block_ptr(
            output_ptr,
            shape=(y_size, x_size),
            strides=(y_stride, x_stride),
            offsets=(y_offset, 0),
            block_shape=(1, x_block_size),
            order=(1, 0),
        )
        rms_block_ptr = tl.make_block_ptr(
            rms_ptr,
            shape=(y_size,),
            strides=(1,),
            offsets=(y_offset,),
            block_shape=(1,),
            order=(0,),
        )
        input_block_ptr = tl.make_block_ptr(
            input_ptr,
            shape=(y_size, x_size),
            strides=(y_stride, x_stride),
            offsets=(y_offset, 0),
            block_shape=(1, x_block_size),
            order=(1, 0),
        )
        weight_block_ptr = tl.make_block_ptr(
            weight_ptr,
            shape=(x_size,),
            strides=(1,),
            offsets=(0,),
            block_shape=(x_block_size,),
            order=(0,),
        )

        if require_x_boundary_check:
            input = tl.load(input_block_ptr, boundary_check=(1,))
        else:
            input = tl.load(input_block_ptr)

        if x_block_size != partial_size:
            condition = tl.arange(0, x_block_size) < partial_size
            partial_input = tl.where(condition, input, 0)
        else:
            partial_input = input

        rms = tl.math.sqrt(tl.sum(partial_input * partial_input / partial_size, 1))
        norm = input / (rms + eps)

        if require_x_boundary_check:
            weight = tl.load(weight_block_ptr, boundary_check=(0,))
        else:
            weight = tl.load(weight_block_ptr)

        output = norm * weight

        if bias_ptr is not None:
            bias_block_ptr = tl.make_block_ptr(
                bias_ptr,
                shape=(1, x_size),
                strides=(x_stride, 1),
                offsets=(0, 0),
                block_shape=(1, x_block_size),
                order=(1, 0),
            )

            if require_x_boundary_check:
                bias = tl.load(bias_block_ptr, boundary_check=(1,))
            else:
                bias = tl.load(bias_block_ptr)

            output += bias

        tl.store(rms_block_ptr, rms.to(dtype))

        if require_x_boundary_check:
            tl.store(output_block_ptr, output.to(dtype), boundary_check=(1,))
        else:
            tl.store(output_block_ptr, output.to(dtype))


# ---------------------------------------------------------------------------------------- operation


class RMSNormOperation(torch.autograd.Function):
    @staticmethod
    def forward(ctx: Any, *args: Any, **kwargs: Any):
        input, p, weight, bias, eps = args

        output, rms = RMSNormOperation.__forward(input, p, weight, bias, eps)

        ctx.save_for_backward(input, rms, weight, bias)
        ctx.p = p
        ctx.eps = eps

        return output, rms

    @staticmethod
    def __forward(input: torch.Tensor, p: float, weight: torch.Tensor, bias: torch.Tensor, eps: float):
        factory_kwargs = {"device": input.device, "dtype": input.dtype}
        y_size, x_size, y_stride, x_stride = size_and_stride(input, 1)
        output = torch.empty_like(input)
        rms = torch.empty(y_size, **factory_kwargs)

        def grid(meta):
            return (y_size,)

        RMSNorm.forward[grid](
            output,
            rms,
            input,
            y_size,
            x_size,
            y_stride,
            x_stride,
            x_size if p < 0.0 or p > 1.0 else x_size * p,
            weight,
            bias,
            eps,
            dtype(input.dtype),
            triton.next_power_of_2(x_size),
        )

        return output, rms


def run(x, weight, bias, p):
    """The (partial) RMS norm of each row of x, and each row's RMS."""
    return RMSNormOperation.apply(x, p, weight, bias, 1e-8)
