"""Kakao Brain's trident ``var_mean`` (``trident/kernel/var_mean.py``, ``trident/language/var_mean.py``,
``trident/language/combine.py``, ``trident/operation/var_mean.py`` and ``trident/util/util.py``, Apache-2.0): the
variance and the mean over one dimension of a 2-D tensor by Welford's running update in ``x_block_size`` steps
through a block pointer, the lanes combined by ``tl.reduce(..., language.combine_welford)``. The kernel is a
STATICMETHOD of a class (``kernel.VarMean.forward``) under ``@triton.autotune(configs(), ["x_size"])`` (both given
positionally), ``configs`` another staticmethod of the class building ``triton.Config({"x_block_size": ...}, 2 if
x_block_size <= 512 else 4, num_stages)`` with ``num_warps`` and ``num_stages`` POSITIONAL; the device function is
``language.VarMean.forward`` of another class; the output dtype a ``tl.constexpr`` from ``util.dtype``; the grid a
named ``def grid(meta): return (y_size,)``. The operation (a ``torch.autograd.Function`` named ``VarMean`` too)
reads ``dim`` through ``util.size_and_stride``: over dim 0 the rows are read with the column stride. Trident's
``language``, ``kernel`` and ``util`` packages are modules built here from their parts (``language.eps`` a
constexpr, ``language.pow2``); the backward is left out."""

import types

import torch
import triton
import triton.language as tl

# ---------------------------------------------------------------------------------------- trident.language

eps = tl.constexpr(2.220446049250313e-16)


@triton.jit
def pow2(input: tl.tensor):
    return input * input


@triton.jit
def combine_welford(m2_a, mean_a, count_a, m2_b, mean_b, count_b):
    return (
        m2_a + m2_b + language.pow2(mean_b - mean_a) * count_a * count_b / (count_a + count_b),
        (mean_a * count_a + mean_b * count_b) / (count_a + count_b),
        count_a + count_b,
    )


class _LanguageVarMean:
    @staticmethod
    @triton.jit
    def forward(
        input_ptr: tl.tensor,
        y_size: int,
        x_size: int,
        y_stride: int,
        x_stride: int,
        y_offset: int,
        correction: tl.constexpr,
        dtype: tl.constexpr,
        x_block_size: tl.constexpr,
    ):
        input_block_ptr = tl.make_block_ptr(
            input_ptr,
            shape=(y_size, x_size),
            strides=(y_stride, x_stride),
            offsets=(y_offset, 0),
            block_shape=(1, x_block_size),
            order=(1, 0),
        )
        m2 = tl.zeros((1, x_block_size), tl.float32)
        count = tl.zeros((1, x_block_size), tl.float32)
        mean = tl.zeros((1, x_block_size), tl.float32)

        for x_offset in range(0, x_size, x_block_size):
            input = tl.load(input_block_ptr, boundary_check=(1,))
            condition = tl.arange(0, x_block_size) + x_offset < x_size
            delta = tl.where(condition, input - mean, 0.0)
            count += tl.where(condition, 1.0, language.eps)
            mean += delta / count
            m2 += delta * tl.where(condition, input - mean, 0.0)
            input_block_ptr = tl.advance(input_block_ptr, (0, x_block_size))

        m2, mean, count = tl.reduce((m2, mean, count), 1, language.combine_welford)
        output = m2 / (x_size - correction)

        return output.to(dtype), mean.to(dtype)


language = types.ModuleType("trident.language")
language.eps = eps
language.pow2 = pow2
language.combine_welford = combine_welford
language.VarMean = _LanguageVarMean

# ------------------------------------------------------------------------------------------ trident.kernel


class _KernelVarMean:
    @staticmethod
    def configs():
        configs = []
        for x_block_size in [512, 1024, 2048, 4096]:
            for num_stages in [4, 5]:
                config = triton.Config({"x_block_size": x_block_size}, 2 if x_block_size <= 512 else 4, num_stages)
                configs.append(config)
        return configs

    @staticmethod
    @triton.autotune(configs(), ["x_size"])
    @triton.jit
    def forward(
        output_ptr: tl.tensor,
        mean_ptr: tl.tensor,
        input_ptr: tl.tensor,
        y_size: int,
        x_size: int,
        y_stride: int,
        x_stride: int,
        correction: tl.constexpr,
        dtype: tl.constexpr,
        x_block_size: tl.constexpr,
    ):
        y_offset = tl.program_id(0)
        output, mean = language.VarMean.forward(
            input_ptr,
            y_size,
            x_size,
            y_stride,
            x_stride,
            y_offset,
            correction,
            dtype,
            x_block_size,
        )
        output_block_ptr = tl.make_block_ptr(
            output_ptr,
            shape=(y_size,),
            strides=(1,),
            offsets=(y_offset,),
            block_shape=(1,),
            order=(0,),
        )
        mean_block_ptr = tl.make_block_ptr(
            mean_ptr,
            shape=(y_size,),
            strides=(1,),
            offsets=(y_offset,),
            block_shape=(1,),
            order=(0,),
        )
        tl.store(output_block_ptr, output)
        tl.store(mean_block_ptr, mean)


kernel = types.ModuleType("trident.kernel")
kernel.VarMean = _KernelVarMean

# -------------------------------------------------------------------------------------------- trident.util


def _dtype(input):
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
    if dim == 0:
        x_size, y_size = input.shape
        y_stride = input.stride(1)
        x_stride = input.stride(0)
    else:
        y_size, x_size = input.shape
        y_stride = input.stride(0)
        x_stride = input.stride(1)

    return y_size, x_size, y_stride, x_stride


util = types.ModuleType("trident.util")
util.dtype = _dtype
util.size_and_stride = size_and_stride

# --------------------------------------------------------------------------------------- trident.operation


class VarMean(torch.autograd.Function):
    @staticmethod
    def forward(*args, **kwargs):
        input, dim, correction = args
        return VarMean.__forward(input, dim, correction)

    @staticmethod
    def setup_context(ctx, inputs, output):
        input, dim, correction = inputs
        output, mean = output
        ctx.save_for_backward(input, mean)
        ctx.dim = dim
        ctx.correction = correction

    @staticmethod
    def __forward(input: torch.Tensor, dim: int, correction: int):
        factory_kwargs = {"device": input.device, "dtype": input.dtype}
        y_size, x_size, y_stride, x_stride = util.size_and_stride(input, dim)

        def grid(meta):
            return (y_size,)

        output = torch.empty(y_size, **factory_kwargs)
        mean = torch.empty(y_size, **factory_kwargs)

        kernel.VarMean.forward[grid](
            output,
            mean,
            input,
            y_size,
            x_size,
            y_stride,
            x_stride,
            correction,
            util.dtype(input.dtype),
        )

        return output, mean


def run(x):
    """var_mean over the rows (dim 1), then over the columns (dim 0: strided reads), Bessel's correction."""
    var1, mean1 = VarMean.apply(x, 1, 1)
    var0, mean0 = VarMean.apply(x, 0, 1)
    return var1, mean1, var0, mean0
