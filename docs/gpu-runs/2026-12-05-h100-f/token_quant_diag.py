"""Why breaker7's token_quant (SGLang's per-token int8 quantization, as written) failed torch.allclose at
B=4, T=512, D=4096 on the H100 of 2026-12-05: how many int8 values differ from the reference, by how much, and
whether they sit at a rounding tie (|q| mod 1 near 0.5) in fp32 and in float64. Run from the repository root on a GPU."""

import importlib.util
import sys
from pathlib import Path

import torch

folder = Path("tests/data/breaker7/token_quant")


def load(name: str):
    spec = importlib.util.spec_from_file_location(f"_diag_{name}", folder / f"{name}.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


ref, ker = load("reference"), load("kernel")
for shape in ({"B": 3, "T": 7, "D": 300}, {"B": 4, "T": 512, "D": 4096}):
    torch.manual_seed(0)
    (x,) = ref.get_inputs(**shape, device="cuda")
    q, s = ker.run(x.clone())
    rq, rs = ref.reference(x.clone())
    d = (q.int() - rq.int()).abs()
    scaled = (x.float() * (127 / x.abs().amax(-1, keepdim=True).clamp(min=1e-10)))
    frac = (scaled.abs() - scaled.abs().floor())
    where = d > 0
    print(shape, "int8 differ:", int(where.sum()), "of", q.numel(), "max", int(d.max()),
          "at ties (|frac-0.5|<1e-4):", int(((frac - 0.5).abs() < 1e-4)[where].sum()),
          "scale max abs err:", float((s - rs).abs().max()), "scale allclose:",
          bool(torch.allclose(s, rs, atol=ref.ATOL, rtol=ref.RTOL)))
sys.exit(0)
