import torch

# x is a transposed view (strides (1, M)); a second input, a column slice, has a row stride of 2 N.
SHAPES = [{"M": 20, "N": 36}, {"M": 45, "N": 70}]
ATOL = 1e-6
RTOL = 1e-6


def get_inputs(M=45, N=70, device="cpu"):
    base = torch.randn(N, M, device=device)
    return [base.t()]


def reference(x):
    return x.t().contiguous()
