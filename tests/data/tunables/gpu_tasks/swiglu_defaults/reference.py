"""H200 task for the SwiGLU kernel of the tunables corpus (launch options left to Triton): 2^26 fp16
elements per operand (384 MiB moved: memory-bound)."""

import torch

SHAPES = [{"n": 1 << 26}, {"n": 3000}]
ATOL = 1e-2
RTOL = 1e-2


def get_inputs(n: int = 1 << 26, device: str = "cuda"):
    return [torch.randn(n, device=device, dtype=torch.float16), torch.randn(n, device=device, dtype=torch.float16)]


def reference(gate, up):
    return (torch.nn.functional.silu(gate.float()) * up.float()).to(gate.dtype)


def bytes_moved(gate, up) -> int:
    return 3 * gate.numel() * gate.element_size()
