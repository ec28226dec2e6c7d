"""Liger-Kernel's DyT (dynamic tanh, ``y = tanh(alpha * x) * gamma + beta``) forward, ``liger_dyt_fwd``: the launch
settings a dict chosen by an ``if N >= 4096:`` / ``else:`` pair, each ``{"BLOCK_N": min(next_power_of_2(N), cap),
"num_warps": 4, "num_stages": 1}`` with its own cap (2048 / 1024), splatted ``**kwargs`` after positional
arguments; the grid ``lambda meta: (triton.cdiv(N, meta["BLOCK_N"]), M)`` puts the column blocks on axis 0 and the
rows on axis 1; ``N`` and ``HAVE_BETA`` are constexprs passed positionally; ``tanh`` through libdevice (here
``2 * sigmoid(2x) - 1``, the interpreter's stand-in)."""

import torch
import triton
import triton.language as tl


@triton.jit
def tanh(x):
    return 2 * tl.sigmoid(2 * x) - 1


@triton.jit
def _dyt_fwd_kernel(X, Y, Alpha, Gamma, Beta, HAVE_BETA: tl.constexpr, N: tl.constexpr, BLOCK_N: tl.constexpr):
    col = tl.cast(tl.program_id(0), tl.int64) * BLOCK_N + tl.arange(0, BLOCK_N)
    mask = col < N
    row_id = tl.cast(tl.program_id(1), tl.int64)

    X += row_id * N
    Y += row_id * N
    alpha = tl.load(Alpha).to(tl.float32)
    gamma = tl.load(Gamma + col, mask=mask, other=0.0).to(tl.float32)
    x = tl.load(X + col, mask=mask, other=0.0).to(tl.float32)
    tanh_x = tanh(alpha * x)
    y = tanh_x * gamma
    if HAVE_BETA:
        beta = tl.load(Beta + col, mask=mask, other=0.0).to(tl.float32)
        y += beta
    tl.store(Y + col, y, mask=mask)


def liger_dyt_fwd(x, alpha, gamma, beta):
    assert x.is_contiguous()
    HAVE_BETA = True if beta is not None else False
    input_shape = x.shape
    x = x.view(-1, input_shape[-1])
    M, N = x.shape

    y = torch.empty_like(x)

    if N >= 4096:
        kwargs = {"BLOCK_N": min(triton.next_power_of_2(N), 2048), "num_warps": 4, "num_stages": 1}
    else:
        kwargs = {"BLOCK_N": min(triton.next_power_of_2(N), 1024), "num_warps": 4, "num_stages": 1}
    if N <= 33:  # kernelopt: tuned
        kwargs = dict(kwargs)
        kwargs["BLOCK_N"] = 64
        kwargs["num_warps"] = 8
    elif N <= 5000:  # kernelopt: tuned
        kwargs = dict(kwargs)
        kwargs["BLOCK_N"] = 256

    grid = lambda meta: (triton.cdiv(N, meta["BLOCK_N"]), M)  # noqa: E731
    _dyt_fwd_kernel[(grid)](
        x,
        y,
        alpha,
        gamma,
        beta,
        HAVE_BETA,
        N,
        **kwargs,
    )
    return y.view(input_shape)


def run(x, alpha, gamma, beta):
    return liger_dyt_fwd(x, alpha, gamma, beta)
