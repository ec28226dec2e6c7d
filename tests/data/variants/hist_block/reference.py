import torch

SHAPES = [{"n": 512}, {"n": 1024}]
ATOL = 0
RTOL = 0


def get_inputs(n=512, device="cpu"):
    return [torch.randint(1, 16, (n,), device=device, dtype=torch.int32)]


def reference(x):
    return torch.bincount(x.long(), minlength=16).to(torch.int32)
