import torch
import torch.nn.functional as F

SHAPES = [dict(m=512, d=256)]


def get_inputs(m=512, d=256):
    return [torch.randn(m, 2 * d)]


def reference(x):
    a, b = x.chunk(2, dim=-1)
    return F.silu(a) * b
