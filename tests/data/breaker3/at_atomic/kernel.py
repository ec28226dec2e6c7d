"""Sum of a vector by atomics; the autotune list is built by a comprehension, pruned by size, and the output
is zeroed before every benchmark run (reset_to_zero)."""

import torch
import triton
import triton.language as tl


def _prune(configs, named_args, **kwargs):
    n = named_args["n"]
    kept = [c for c in configs if c.kwargs["BLOCK"] <= max(128, triton.next_power_of_2(n))]
    return kept or configs[:1]


@triton.autotune(
    configs=[triton.Config({"BLOCK": b}, num_warps=w) for b in (128, 256, 1024) for w in (2, 4)],
    key=["n"],
    prune_configs_by={"early_config_prune": _prune},
    reset_to_zero=["out_ptr"],
)
@triton.jit
def _sum_atomic(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    v = tl.load(x_ptr + offs, mask=offs < n, other=0.0)
    tl.atomic_add(out_ptr, tl.sum(v, axis=0))


def run(x):
    n = x.numel()
    out = torch.zeros(1, device=x.device, dtype=torch.float32)
    _sum_atomic[lambda meta: (triton.cdiv(n, meta["BLOCK"]),)](x, out, n)
    return out
