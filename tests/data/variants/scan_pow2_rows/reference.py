import torch

SHAPES = [{"rows": 8, "log_cols": 5}, {"rows": 4, "log_cols": 6}]
ATOL = 1e-4
RTOL = 1e-4


def get_inputs(rows=4, log_cols=6, device="cpu"):
    return [torch.randn(rows, 1 << log_cols, device=device)]


def reference(x):
    return torch.cumsum(x, dim=-1)
