"""H200 task for the helper-computed RMSNorm of the tunables corpus: 16384 rows of 4096 fp16 values
(128 MiB in, 128 MiB out: memory-bound)."""

import torch

SHAPES = [{"rows": 16384, "cols": 4096}, {"rows": 6, "cols": 300}]
ATOL = 1e-2
RTOL = 1e-2


def get_inputs(rows: int = 16384, cols: int = 4096, device: str = "cuda"):
    return [torch.randn(rows, cols, device=device, dtype=torch.float16), torch.randn(cols, device=device, dtype=torch.float16)]


def reference(x, weight):
    x32 = x.float()
    return (x32 * torch.rsqrt(x32.pow(2).mean(-1, keepdim=True) + 1e-6) * weight.float()).to(x.dtype)


def bytes_moved(x, weight) -> int:
    return 2 * x.numel() * x.element_size() + weight.numel() * weight.element_size()
