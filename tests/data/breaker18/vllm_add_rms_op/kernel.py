"""A fused residual add + RMS norm registered as a ``torch.library.triton_op`` (torch.compile traces through it) in
the form vLLM's and SGLang's Triton fallbacks take: ``residual`` updated IN PLACE (``residual += x``; the op declares
``mutates_args={"residual"}``), the kernel launched through ``torch.library.wrap_triton``; the kernel
``@triton.autotune`` of ``ROWS`` per program keyed on ``["n_rows", "n_cols"]`` with ``restore_value=["res_ptr"]``
(each timing run sees the original residual); ``BLOCK_N = triton.next_power_of_2(n_cols)`` a local; the grid
``lambda meta`` of ``ROWS``; a host check ``if n_cols > 8192: raise ValueError``."""

import torch
import triton
import triton.language as tl


@triton.autotune(
    configs=[triton.Config({"ROWS": 1}, num_warps=4), triton.Config({"ROWS": 4}, num_warps=8)],
    key=["n_rows", "n_cols"],
    restore_value=["res_ptr"],
)
@triton.jit
def _fused_add_rms_kernel(
    x_ptr, res_ptr, w_ptr, out_ptr, n_rows, n_cols, eps, BLOCK_N: tl.constexpr, ROWS: tl.constexpr
):
    pid = tl.program_id(0)
    cols = tl.arange(0, BLOCK_N)
    cmask = cols < n_cols
    w = tl.load(w_ptr + cols, mask=cmask, other=0.0).to(tl.float32)
    for i in tl.static_range(ROWS):
        row = pid * ROWS + i
        if row < n_rows:
            offs = row.to(tl.int64) * n_cols + cols
            x = tl.load(x_ptr + offs, mask=cmask, other=0.0).to(tl.float32)
            r = tl.load(res_ptr + offs, mask=cmask, other=0.0).to(tl.float32)
            s = x + r
            tl.store(res_ptr + offs, s.to(res_ptr.dtype.element_ty), mask=cmask)
            var = tl.sum(s * s, axis=0) / n_cols
            y = s * tl.math.rsqrt(var + eps) * w
            tl.store(out_ptr + offs, y.to(out_ptr.dtype.element_ty), mask=cmask)


@torch.library.triton_op("breaker18::fused_add_rms_norm", mutates_args={"residual"})
def fused_add_rms_norm(x: torch.Tensor, residual: torch.Tensor, weight: torch.Tensor, eps: float) -> torch.Tensor:
    n_cols = x.shape[-1]
    if n_cols > 8192:
        raise ValueError(f"fused_add_rms_norm: hidden size {n_cols} exceeds 8192")
    n_rows = x.numel() // n_cols
    out = torch.empty_like(x)
    BLOCK_N = triton.next_power_of_2(n_cols)
    grid = lambda meta: (triton.cdiv(n_rows, meta["ROWS"]),)  # noqa: E731
    torch.library.wrap_triton(_fused_add_rms_kernel)[grid](x, residual, weight, out, n_rows, n_cols, eps, BLOCK_N=BLOCK_N)
    return out


def run(x, residual, weight):
    out = fused_add_rms_norm(x, residual, weight, 1e-6)
    return out, residual
