import torch

SHAPES = [{"n_rows": 4, "n_cols": 256}, {"n_rows": 3, "n_cols": 512}]
ATOL = 1e-6
RTOL = 1e-6


def get_inputs(n_rows=4, n_cols=256, device="cpu"):
    return [torch.randn(n_rows, n_cols, device=device) - 10.0]


def reference(x):
    return x.max(dim=1).values
