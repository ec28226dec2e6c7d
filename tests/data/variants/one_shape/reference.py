import torch

# One entry: the row length comes from the seed, so each correctness seed checks another size.
SHAPES = [{"n_rows": 3}]
ROW_LENGTHS = (100, 37, 250, 700)
ATOL = 1e-5
RTOL = 1e-4


def get_inputs(n_rows=3, seed=0, device="cpu"):
    return [torch.randn(n_rows, ROW_LENGTHS[seed % len(ROW_LENGTHS)], device=device)]


def reference(x):
    return torch.softmax(x, dim=-1)
