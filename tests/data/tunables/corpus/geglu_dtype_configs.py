"""GEGLU forward with its launch settings in a table keyed by dtype, splatted at the launch as
``**LAUNCH_CONFIGS[x.dtype]``: half precision gets a larger block than float32."""

import torch
import triton
import triton.language as tl

LAUNCH_CONFIGS = {
    torch.float16: {"BLOCK": 2048, "num_warps": 8, "num_stages": 2},
    torch.bfloat16: {"BLOCK": 2048, "num_warps": 8, "num_stages": 2},
    torch.float32: {"BLOCK": 1024, "num_warps": 4, "num_stages": 2},
}


@triton.jit
def geglu_kernel(gate_ptr, up_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    g = tl.load(gate_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    u = tl.load(up_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    act = 0.5 * g * (1.0 + tl.erf(g * 0.7071067811865476))
    tl.store(out_ptr + offs, (act * u).to(out_ptr.dtype.element_ty), mask=mask)


def run(gate, up):
    out = torch.empty_like(gate)
    n = gate.numel()
    settings = LAUNCH_CONFIGS[gate.dtype]
    grid = (triton.cdiv(n, settings["BLOCK"]),)
    geglu_kernel[grid](gate, up, out, n, **LAUNCH_CONFIGS[gate.dtype])
    return out
