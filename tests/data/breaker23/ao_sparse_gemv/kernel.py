"""torchao's ``splitk_sparse_gemv`` (``torchao/kernel/splitk_sparse_gemv.py`` of May 2025, Meta, BSD-3-Clause; adapted
by torchao from TEAL's ``kernels/sparse_gemv.py``): ``y = x @ weight.T`` for one row ``x`` made sparse by a ReLU, the
weight column major. SPLIT-K: a 2-D grid ``(cdiv(N, BLOCK_N), cdiv(Z, BLOCK_M))``, each program a ``BLOCK_M`` slice
of the reduction whose partial row is added into an fp16 output by ``tl.atomic_add`` (so the chain of fp16 additions
into each output is ``cdiv(Z, BLOCK_M)`` long: a launch setting sets the precision). Weight rows whose ``x`` is zero
are never loaded (``mask=idx[:, None]``, no column mask: the authors' loads read past ``N`` in the last row where
``BLOCK_N`` does not divide ``N``; the store is masked). Launched as the authors wrote it for ``torch.compile``: a
``torch.library.triton_op`` calling ``wrap_triton(kernel)[grid]``, a grid ``lambda META``, every argument positional
("can't use kwargs because auto-tuner requires args"); ``@triton.autotune`` of twenty literal configs (one listed
twice) keyed on ``CACHE_KEY_M`` / ``CACHE_KEY_N`` (``N // 16`` and ``Z // 16``, computed at the launch) with
``reset_to_zero=["Y"]``. Kept as written; the ``warnings`` filter and comments reworded."""

import torch
import triton
import triton.language as tl
from torch.library import triton_op, wrap_triton

configs = [
    triton.Config({"BLOCK_M": 64, "BLOCK_N": 128}, num_warps=2),
    triton.Config({"BLOCK_M": 64, "BLOCK_N": 64}, num_warps=4),
    triton.Config({"BLOCK_M": 8, "BLOCK_N": 128}, num_warps=2),
    triton.Config({"BLOCK_M": 16, "BLOCK_N": 256}, num_warps=4),
    triton.Config({"BLOCK_M": 16, "BLOCK_N": 256}, num_warps=4),
    triton.Config({"BLOCK_M": 32, "BLOCK_N": 256}, num_warps=4),
    triton.Config({"BLOCK_M": 64, "BLOCK_N": 256}, num_warps=4),
    triton.Config({"BLOCK_M": 128, "BLOCK_N": 16}, num_warps=4),
    triton.Config({"BLOCK_M": 128, "BLOCK_N": 32}, num_warps=4),
    triton.Config({"BLOCK_M": 128, "BLOCK_N": 64}, num_warps=4),
    triton.Config({"BLOCK_M": 128, "BLOCK_N": 128}, num_warps=4),
    triton.Config({"BLOCK_M": 128, "BLOCK_N": 256}, num_warps=4),
    triton.Config({"BLOCK_M": 128, "BLOCK_N": 512}, num_warps=4),
    triton.Config({"BLOCK_M": 64, "BLOCK_N": 512}, num_warps=4),
    triton.Config({"BLOCK_M": 32, "BLOCK_N": 512}, num_warps=4),
    triton.Config({"BLOCK_M": 16, "BLOCK_N": 512}, num_warps=4),
    # Llama 3's shapes can use BLOCK_N of 1024 and more
    triton.Config({"BLOCK_M": 128, "BLOCK_N": 1024}, num_warps=4),
    triton.Config({"BLOCK_M": 64, "BLOCK_N": 1024}, num_warps=4),
    triton.Config({"BLOCK_M": 32, "BLOCK_N": 1024}, num_warps=4),
    triton.Config({"BLOCK_M": 16, "BLOCK_N": 1024}, num_warps=4),
]


@triton.autotune(
    configs=configs,
    key=["CACHE_KEY_M", "CACHE_KEY_N"],
    reset_to_zero=["Y"],  # Y is zeroed before each configuration runs
)
@triton.jit
def splitk_sparse_gemv_kernel(
    Y,  # pointers
    A,
    X,
    # sizes
    N,
    M,
    CACHE_KEY_N,
    CACHE_KEY_M,
    # meta-parameters
    BLOCK_N: tl.constexpr,
    BLOCK_M: tl.constexpr,
):
    start_n = tl.program_id(0)
    start_m = tl.program_id(1)
    # the block this program walks: rn indexes A's rows (resp. rm its columns)

    rn = start_n * BLOCK_N + tl.arange(0, BLOCK_N)
    rm = start_m * BLOCK_M + tl.arange(0, BLOCK_M)

    A_ptr = A + (rm[:, None] * N + rn[None, :])
    X_ptr = X + rm
    Y_ptr = Y + rn

    # x is read by every block along N: keep it cached
    x0 = tl.load(X_ptr, mask=rm < M, other=0.0, eviction_policy="evict_last")
    idx = x0 != 0.0
    # only the weight rows a nonzero x needs, each read once
    a = tl.load(A_ptr, mask=idx[:, None], other=0.0, eviction_policy="evict_first")
    acc0 = tl.sum(a.to(tl.float32) * x0.to(tl.float32)[:, None], axis=0)

    # rn again, to spare registers
    rn = start_n * BLOCK_N + tl.arange(0, BLOCK_N)
    # TODO: newer Triton adds bfloat16 atomically; switch to it
    tl.atomic_add(Y_ptr, acc0, mask=rn < N)


# the weight is column major
@triton_op("torchao::splitk_sparse_gemv", mutates_args={})
def splitk_sparse_gemv(
    x: torch.Tensor,
    weight: torch.Tensor,
) -> torch.Tensor:
    """
    y = sparse(x) @ weight.T
    :param x: the input, [1, Z]
    :param weight: the weight, [N, Z], column major
    :return: y, [1, N]
    """
    N, Z = weight.shape
    seq_len, _ = x.shape
    assert x.shape[-1] == Z
    assert x.is_contiguous()

    assert weight.stride(1) > 1, "weight should be column major"

    # one program a block of N and a block of Z
    grid = lambda META: (
        triton.cdiv(N, META["BLOCK_N"]),
        triton.cdiv(Z, META["BLOCK_M"]),
    )

    output = torch.zeros(
        seq_len,
        N,
        device=x.device,
        dtype=torch.float16,
    )

    kernel = wrap_triton(splitk_sparse_gemv_kernel)
    kernel[grid](
        output,  # pointers
        weight,
        x,
        N,  # sizes
        Z,
        N // 16,  # the autotuner's key (fewer compilations)
        Z // 16,
        # positional only: the autotuner needs the arguments so
    )

    if x.dtype is not output.dtype:
        return output.to(dtype=x.dtype)

    return output


def run(x, weight):
    return splitk_sparse_gemv(x, weight)
