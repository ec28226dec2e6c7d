"""PyTorch Inductor's generated persistent scan (``triton_per_fused_cumsum_0`` of ``torch.cumsum(x, -1)``): the
combine function a separate ``@triton.jit`` helper (``_triton_helper_fn_add0``) handed to ``tl.associative_scan``;
``XBLOCK`` rows a program from ``@triton.autotune`` of Inductor's persistent-reduction configs keyed on
``["xnumel", "rnumel"]``; ``RBLOCK`` the row's power of two, passed by the caller; the index arithmetic of
generated code (``xoffset``, ``xindex``, ``rindex``, ``x0``/``r1``), the grid ``lambda meta`` of ``XBLOCK``."""

import torch
import triton
import triton.language as tl


@triton.jit
def _triton_helper_fn_add0(arg0_0, arg1_0):
    tmp0 = arg0_0 + arg1_0
    return tmp0


@triton.autotune(
    configs=[
        triton.Config({"XBLOCK": 1}, num_warps=1, num_stages=1),
        triton.Config({"XBLOCK": 8}, num_warps=2, num_stages=1),
        triton.Config({"XBLOCK": 32}, num_warps=8, num_stages=1),
    ],
    key=["xnumel", "rnumel"],
)
@triton.jit
def triton_per_fused_cumsum_0(in_ptr0, out_ptr0, xnumel, rnumel, XBLOCK: tl.constexpr, RBLOCK: tl.constexpr):
    xoffset = tl.program_id(0) * XBLOCK
    xindex = xoffset + tl.arange(0, XBLOCK)[:, None]
    xmask = xindex < xnumel
    rindex = tl.arange(0, RBLOCK)[None, :]
    rmask = rindex < rnumel
    r1 = rindex
    x0 = xindex
    tmp0 = tl.load(in_ptr0 + (r1 + (rnumel * x0)), rmask & xmask, other=0.0)
    tmp1 = tmp0.to(tl.float32)
    tmp2 = tl.broadcast_to(tmp1, [XBLOCK, RBLOCK])
    (tmp3,) = tl.associative_scan((tmp2,), 1, _triton_helper_fn_add0)
    tl.store(out_ptr0 + (r1 + (rnumel * x0)), tmp3, rmask & xmask)


def call(arg0_1):
    xnumel = arg0_1.numel() // arg0_1.shape[-1]
    rnumel = arg0_1.shape[-1]
    buf0 = torch.empty_like(arg0_1, dtype=torch.float32)
    grid = lambda meta: (triton.cdiv(xnumel, meta["XBLOCK"]),)  # noqa: E731
    triton_per_fused_cumsum_0[grid](arg0_1, buf0, xnumel, rnumel, RBLOCK=triton.next_power_of_2(rnumel))
    return buf0


def run(x):
    return call(x)
