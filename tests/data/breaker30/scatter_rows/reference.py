import torch

# src (R, C) float32 rows, index (R,) int64 into num_rows output rows (repeats likely, some rows never named); the
# output (num_rows, C) float32 is the sum of the rows sent to each
SHAPES = [{"R": 100, "C": 48, "V": 30}, {"R": 300, "C": 300, "V": 500}, {"R": 37, "C": 1000, "V": 8}]
ATOL = 1e-4
RTOL = 1e-5


def get_inputs(R=100, C=48, V=30, device="cpu"):
    g = torch.Generator().manual_seed(R * 10007 + C * 101 + V)
    src = torch.randn(R, C, generator=g)
    index = torch.randint(0, V, (R,), generator=g)
    return [src.to(device), index.to(device), V]


def reference(src, index, num_rows):
    out = torch.zeros((num_rows, src.shape[1]), dtype=torch.float64, device=src.device)
    return out.index_add_(0, index, src.double()).float()
