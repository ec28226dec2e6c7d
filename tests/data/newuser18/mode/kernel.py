import torch
import torch.nn.functional as F

MODE = "default"  # kernelopt: tunable values=default,max-autotune-no-cudagraphs


def _swiglu(a, b):
    return F.silu(a) * b


_fast = torch.compile(_swiglu, mode=MODE, dynamic=False)


def run(x):
    a, b = x.chunk(2, dim=-1)
    return _fast(a, b)
