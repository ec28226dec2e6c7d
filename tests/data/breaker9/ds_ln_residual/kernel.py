"""DeepSpeed's inference layer norm with a residual (``deepspeed/ops/transformer/inference/triton/layer_norm.py``):
``ln_input = a + input_bias + residual`` written to a scratch row, then its mean, its variance and the normalized
row, each a loop over the row in ``BLOCK_SIZE`` steps. The block is a chain of clamps as DeepSpeed writes it:
``min(MAX_FUSED_SIZE, next_power_of_2(N))``, then ``max(.., 128)``, ``min(.., 4096)``, and
``BLOCK_SIZE if N <= 4096 else 8192``; ``num_warps = min(max(BLOCK_SIZE // 256, 1), 8)``."""

import torch
import triton
import triton.language as tl


@triton.jit
def layer_norm_residual(Out, A, Residual, ln_input, Weight, Bias, InputBias, stride, N, eps,
                        BLOCK_SIZE: tl.constexpr):
    row = tl.program_id(0)
    Out += row * stride
    A += row * stride
    Residual += row * stride
    ln_input += row * stride
    _mean = tl.zeros([BLOCK_SIZE], dtype=tl.float32)
    for off in range(0, N, BLOCK_SIZE):
        cols = off + tl.arange(0, BLOCK_SIZE)
        a = tl.load(A + cols, mask=cols < N, other=0.0).to(tl.float32)
        res = tl.load(Residual + cols, mask=cols < N, other=0.0).to(tl.float32)
        ib = tl.load(InputBias + cols, mask=cols < N, other=0.0).to(tl.float32)
        a = a + ib + res
        tl.store(ln_input + cols, a, mask=cols < N)
        _mean += a
    mean = tl.sum(_mean, axis=0) / N
    _var = tl.zeros([BLOCK_SIZE], dtype=tl.float32)
    for off in range(0, N, BLOCK_SIZE):
        cols = off + tl.arange(0, BLOCK_SIZE)
        a = tl.load(ln_input + cols, mask=cols < N, other=0.0).to(tl.float32)
        a = tl.where(cols < N, a - mean, 0.0)
        _var += a * a
    var = tl.sum(_var, axis=0) / N
    rstd = 1 / tl.sqrt(var + eps)
    for off in range(0, N, BLOCK_SIZE):
        cols = off + tl.arange(0, BLOCK_SIZE)
        mask = cols < N
        weight = tl.load(Weight + cols, mask=mask)
        bias = tl.load(Bias + cols, mask=mask)
        a = tl.load(ln_input + cols, mask=mask, other=0.0).to(tl.float32)
        a_hat = (a - mean) * rstd
        out = a_hat * weight + bias
        tl.store(Out + cols, out, mask=mask)


def run(a, input_bias, residual, weight, bias, eps=1e-5):
    assert a.is_contiguous() and residual.is_contiguous()
    out = torch.empty_like(a)
    ln_input = torch.empty_like(a)
    a_arg = a.view(-1, a.shape[-1])
    residual = residual.view(-1, residual.shape[-1])
    M, N = a_arg.shape
    # Less than 64KB per feature: enqueue fused kernel
    MAX_FUSED_SIZE = 65536 // a.element_size()
    BLOCK_SIZE = min(MAX_FUSED_SIZE, triton.next_power_of_2(N))
    BLOCK_SIZE = max(BLOCK_SIZE, 128)
    BLOCK_SIZE = min(BLOCK_SIZE, 4096)
    BLOCK_SIZE = BLOCK_SIZE if N <= 4096 else 8192
    # heuristics for number of warps
    num_warps = min(max(BLOCK_SIZE // 256, 1), 8)
    layer_norm_residual[(M,)](
        out, a_arg, residual, ln_input, weight, bias, input_bias, a_arg.stride(0), N, eps,
        BLOCK_SIZE=BLOCK_SIZE, num_warps=num_warps,
    )
    return out
