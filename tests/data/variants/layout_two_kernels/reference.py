import torch

SHAPES = [{"n_rows": 16, "n_cols": 512, "transposed": 0}, {"n_rows": 64, "n_cols": 256, "transposed": 1}]


def get_inputs(n_rows=16, n_cols=512, transposed=0, device="cpu"):
    g = torch.Generator().manual_seed(n_rows * 7 + n_cols)
    if transposed:
        return [torch.randn(n_cols, n_rows, generator=g).to(device).t()]
    return [torch.randn(n_rows, n_cols, generator=g).to(device)]


def reference(x):
    return x.sum(dim=1)
