import torch

SHAPES = [{"n": 4096, "n_bins": 100}, {"n": 2048, "n_bins": 64}]


def get_inputs(n: int = 4096, n_bins: int = 100, device: str = "cpu"):
    codes = (torch.arange(n, dtype=torch.int32) * 7919) % n_bins  # every bin hit, in a scattered order
    return [codes.to(device), n_bins]


def reference(x, n_bins):
    return torch.bincount(x.long(), minlength=n_bins).to(torch.int32)
