"""A helper module beside reference.py with a plain branch on its input's dtype: in float32 it clamps the row sums,
in float64 it does not (reference_dtype_branch.py's branch, moved out of reference.py)."""

import torch


def row_sums(x):
    if x.dtype == torch.float32:
        return x.sum(dim=1, keepdim=True).clamp(max=30.0)
    return x.sum(dim=1, keepdim=True)
