"""Kakao Brain's trident cosine similarity, forward (``trident/kernel/cosine_similarity.py``,
``trident/operation/cosine_similarity.py``, ``trident/util/util.py`` and ``trident/config.py``, Apache-2.0): the
cosine similarity of two tensors along one dimension, the dimension walked in ``block_size`` steps through 3-D block
pointers of shape ``(block_size, 1, 1)``. The kernel is a STATICMETHOD of a class (``kernel.CosineSimilarity.forward``)
under TRIDENT'S OWN AUTOTUNE WRAPPER ``@util.autotune(cosine_similarity_configs(), ["y_size", "x_size"])`` (a function
that calls ``triton.autotune`` with every config, or only the first when ``config.use_autotune`` is off), over
``@triton.heuristics({"require_boundary_check": lambda args: args["size_along_dim"] % args["block_size"]})`` (an int
used as a flag); the configs a module-level function's loop building ``triton.Config({"block_size": ...}, 2 if
block_size <= 512 else 4, num_stages)`` (warps and stages POSITIONAL); the output dtype a constexpr from
``util.dtype``, the grid a named ``def grid(meta)``. The operation, a ``torch.autograd.Function`` also named
``CosineSimilarity``, reaches its helpers through NAME-MANGLED private static methods (``CosineSimilarity.__forward``).
Trident's ``kernel``, ``util`` and ``config`` packages are modules built here; ``util.push_trace`` / ``pop_trace``
(nvtx ranges, off by ``config.use_trace``) and the backward are left out. One change: trident's ``util.autotune``
passed ``warmup`` and ``rep`` POSITIONALLY after ``reset_to_zero``, which since Triton 2.2 are ``restore_value`` and
``pre_hook`` (``rep=100`` called as a hook: "'int' object is not callable"); they are passed by keyword here. And
``tl.math.max`` (Triton 2.1's libdevice name, gone since 3.0: "module 'triton.language.math' has no attribute 'max'")
is ``tl.maximum``."""

import types
from typing import Any, Callable, List

import torch
import triton
import triton.language as tl

# ---------------------------------------------------------------------------------------- trident.config

config = types.ModuleType("trident.config")
config.use_autotune = True
config.use_trace = False

# ---------------------------------------------------------------------------------------- trident.util


def autotune(
    configs: List[triton.Config],
    key: List[str],
    prune_configs_by: Callable = None,
    reset_to_zero: List[str] = None,
    warmup: int = 25,
    rep: int = 100,
):
    return triton.autotune(
        configs if config.use_autotune else [configs[0]], key, prune_configs_by, reset_to_zero, warmup=warmup, rep=rep
    )


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
    elif input.dim() == 3:
        if dim == 0:
            z_size, y_size, x_size = input.shape[0], input.shape[1], input.shape[2]
            z_stride, y_stride, x_stride = input.stride(0), input.stride(1), input.stride(2)
        elif dim == 1:
            z_size, y_size, x_size = input.shape[1], input.shape[0], input.shape[2]
            z_stride, y_stride, x_stride = input.stride(1), input.stride(0), input.stride(2)
        else:
            z_size, y_size, x_size = input.shape[2], input.shape[0], input.shape[1]
            z_stride, y_stride, x_stride = input.stride(2), input.stride(0), input.stride(1)

        return z_size, y_size, x_size, z_stride, y_stride, x_stride
    else:
        raise ValueError(f"{dim} is not supported.")


util = types.ModuleType("trident.util")
util.autotune = autotune
util.dtype = _dtype
util.size_and_stride = size_and_stride

# ---------------------------------------------------------------------------------------- trident.kernel


def cosine_similarity_configs():
    configs = []
    for block_size in [256, 512, 1024, 2048]:
        for num_stages in [4, 5]:
            config = triton.Config({"block_size": block_size}, 2 if block_size <= 512 else 4, num_stages)
            configs.append(config)
    return configs


class _KernelCosineSimilarity:
    @staticmethod
    @util.autotune(cosine_similarity_configs(), ["y_size", "x_size"])
    @triton.heuristics(
        {
            "require_boundary_check": lambda args: args["size_along_dim"] % args["block_size"],
        }
    )
    @triton.jit
    def forward(
        output_ptr: tl.tensor,
        denominator_ptr: tl.tensor,
        numerator_ptr: tl.tensor,
        x1_ptr: tl.tensor,
        x2_ptr: tl.tensor,
        z_size: tl.int32,
        y_size: tl.int32,
        x_size: tl.int32,
        z_stride: tl.int32,
        y_stride: tl.int32,
        x_stride: tl.int32,
        eps: tl.float32,
        size_along_dim: tl.int32,
        output_y_size: tl.int32,
        output_x_size: tl.int32,
        dtype: tl.constexpr,
        block_size: tl.constexpr,
        require_boundary_check: tl.constexpr,
    ):
        pid = tl.program_id(0)

        num_output_y = pid // output_x_size
        num_output_x = pid % output_x_size

        x1_block_ptr = tl.make_block_ptr(
            x1_ptr,
            shape=(z_size, y_size, x_size),
            strides=(z_stride, y_stride, x_stride),
            offsets=(0, num_output_y, num_output_x),
            block_shape=(block_size, 1, 1),
            order=(2, 1, 0),
        )
        x2_block_ptr = tl.make_block_ptr(
            x2_ptr,
            shape=(z_size, y_size, x_size),
            strides=(z_stride, y_stride, x_stride),
            offsets=(0, num_output_y, num_output_x),
            block_shape=(block_size, 1, 1),
            order=(2, 1, 0),
        )
        output_block_ptr = tl.make_block_ptr(
            output_ptr,
            shape=(output_y_size, output_x_size),
            strides=(output_x_size, 1),
            offsets=(num_output_y, num_output_x),
            block_shape=(1, 1),
            order=(1, 0),
        )
        denominator_block_ptr = tl.make_block_ptr(
            denominator_ptr,
            shape=(output_y_size, output_x_size),
            strides=(output_x_size, 1),
            offsets=(num_output_y, num_output_x),
            block_shape=(1, 1),
            order=(1, 0),
        )
        numerator_block_ptr = tl.make_block_ptr(
            numerator_ptr,
            shape=(output_y_size, output_x_size),
            strides=(output_x_size, 1),
            offsets=(num_output_y, num_output_x),
            block_shape=(1, 1),
            order=(1, 0),
        )

        denominator_accumulation1 = tl.zeros((block_size, 1, 1), tl.float32)
        denominator_accumulation2 = tl.zeros((block_size, 1, 1), tl.float32)
        numerator_accumulation = tl.zeros((block_size, 1, 1), tl.float32)

        for _ in range(0, size_along_dim, block_size):
            if require_boundary_check:
                x1 = tl.load(x1_block_ptr, boundary_check=(0,), padding_option="zero")
                x2 = tl.load(x2_block_ptr, boundary_check=(0,), padding_option="zero")
            else:
                x1 = tl.load(x1_block_ptr)
                x2 = tl.load(x2_block_ptr)

            denominator_accumulation1 += x1 * x1
            denominator_accumulation2 += x2 * x2
            numerator_accumulation += x1 * x2

            x1_block_ptr = tl.advance(x1_block_ptr, (block_size, 0, 0))
            x2_block_ptr = tl.advance(x2_block_ptr, (block_size, 0, 0))

        denominator1 = tl.sum(denominator_accumulation1, 0)
        denominator2 = tl.sum(denominator_accumulation2, 0)
        denominator = tl.sqrt(denominator1) * tl.sqrt(denominator2)

        numerator = tl.sum(numerator_accumulation, 0)
        output = numerator / tl.maximum(denominator, eps)

        tl.store(output_block_ptr, output.to(dtype))
        tl.store(denominator_block_ptr, denominator.to(dtype))
        tl.store(numerator_block_ptr, numerator.to(dtype))


kernel = types.ModuleType("trident.kernel")
kernel.CosineSimilarity = _KernelCosineSimilarity

# ---------------------------------------------------------------------------------------- trident.operation


class CosineSimilarity(torch.autograd.Function):
    @staticmethod
    def forward(ctx: Any, *args: Any, **kwargs: Any):
        x1, x2, dim, eps = args

        if dim >= x1.dim():
            raise ValueError(f"Unable to process the given dim: '{dim}'.")

        output, denominator, numerator = CosineSimilarity.__forward(
            x1.view(CosineSimilarity.__input_shape(x1)),
            x2.view(CosineSimilarity.__input_shape(x2)),
            CosineSimilarity.__dim(x1, dim),
            eps,
        )

        ctx.save_for_backward(x1, x2, denominator, numerator)
        ctx.dim = dim

        return output.view(CosineSimilarity.__output_shape(x1, output))

    @staticmethod
    def __forward(x1: torch.Tensor, x2: torch.Tensor, dim: torch.int32, eps: torch.float32):
        assert x1.is_contiguous() and x2.is_contiguous() and x1.shape == x2.shape

        factory_kwargs = {"device": x1.device, "dtype": x1.dtype}
        z_size, y_size, x_size, z_stride, y_stride, x_stride = util.size_and_stride(x1, dim)
        output_y_size, output_x_size, size_along_dim = CosineSimilarity.__output_size_and_size_along_dim(x1, dim)
        output = torch.empty(output_y_size, output_x_size, **factory_kwargs)
        denominator = torch.empty_like(output)
        numerator = torch.empty_like(output)

        def grid(meta):
            return (output_y_size * output_x_size,)

        kernel.CosineSimilarity.forward[grid](
            output,
            denominator,
            numerator,
            x1,
            x2,
            z_size,
            y_size,
            x_size,
            z_stride,
            y_stride,
            x_stride,
            eps,
            size_along_dim,
            output_y_size,
            output_x_size,
            util.dtype(x1.dtype),
        )
        return output, denominator, numerator

    @staticmethod
    def __output_size_and_size_along_dim(input: torch.Tensor, dim: int):
        z_size, y_size, x_size = input.shape

        if dim == 0:
            output_y_size, output_x_size = y_size, x_size
            size_along_dim = z_size
        elif dim == 1:
            output_y_size, output_x_size = z_size, x_size
            size_along_dim = y_size
        else:
            output_y_size, output_x_size = z_size, y_size
            size_along_dim = x_size

        return output_y_size, output_x_size, size_along_dim

    @staticmethod
    def __input_shape(input: torch.Tensor):
        if input.dim() == 1:
            return (1, 1, *input.shape)
        elif input.dim() == 2:
            return (1, *input.shape)
        elif input.dim() == 3:
            return input.shape
        else:
            raise ValueError(f"Unable to convert the given input: '{input}'.")

    @staticmethod
    def __output_shape(input: torch.Tensor, output: torch.Tensor):
        if input.dim() == 1:
            return ()
        if input.dim() == 2:
            return output.shape[1]
        elif input.dim() == 3:
            return output.shape
        else:
            raise ValueError(f"Unable to convert the given x: '{input}'.")

    @staticmethod
    def __dim(input: torch.Tensor, dim: torch.int32):
        return dim + 3 - input.dim()


def run(x1, x2):
    """Cosine similarity of (B, T, D) tensors over the last dimension, then over the middle one (strided reads)."""
    return CosineSimilarity.apply(x1, x2, 2, 1e-8), CosineSimilarity.apply(x1, x2, 1, 1e-8)
