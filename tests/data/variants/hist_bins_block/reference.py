import torch

SHAPES = [{"n": 4096, "n_bins": 100}, {"n": 2048, "n_bins": 64}]


def get_inputs(n: int = 4096, n_bins: int = 100, device: str = "cpu"):
    g = torch.Generator().manual_seed(0)
    return [torch.randint(0, n_bins, (n,), generator=g, dtype=torch.int32).to(device), n_bins]


def reference(x, n_bins):
    return torch.bincount(x.long(), minlength=n_bins).to(torch.int32)
