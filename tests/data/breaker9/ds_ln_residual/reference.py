import torch

SHAPES = [{"M": 6, "N": 200}, {"M": 3, "N": 1000}, {"M": 2, "N": 4500}]
ATOL = 1e-4
RTOL = 1e-4


def get_inputs(M=3, N=1000, device="cpu"):
    a = torch.randn(M, N, device=device)
    input_bias = torch.randn(N, device=device) * 0.1
    residual = torch.randn(M, N, device=device)
    weight = torch.rand(N, device=device) + 0.5
    bias = torch.randn(N, device=device) * 0.1
    return [a, input_bias, residual, weight, bias]


def reference(a, input_bias, residual, weight, bias, eps=1e-5):
    x = a + input_bias + residual
    return torch.nn.functional.layer_norm(x, (x.shape[-1],), weight, bias, eps)
