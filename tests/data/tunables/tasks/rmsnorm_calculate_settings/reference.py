"""Reference for the RMSNorm corpus kernel (block and warps from calculate_settings), CPU-sized."""

import torch

SHAPES = [{"rows": 6, "cols": 300}]


def get_inputs(rows: int = 6, cols: int = 300, device: str = "cpu"):
    return [torch.randn(rows, cols, device=device), torch.randn(cols, device=device)]


def reference(x, weight):
    x32 = x.float()
    return x32 * torch.rsqrt(x32.pow(2).mean(-1, keepdim=True) + 1e-6) * weight.float()
