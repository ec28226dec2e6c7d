import torch

SHAPES = [{"n_rows": 4, "n_cols": 64}, {"n_rows": 2, "n_cols": 128}]
ATOL = 1e-5
RTOL = 1e-5


def get_inputs(n_rows=4, n_cols=64, device="cpu"):
    return [torch.randn(n_rows, n_cols, device=device)]


def reference(x):
    return torch.sort(x, 1).values
