import torch

SHAPES = [{"B": 64, "F": 40}, {"B": 50, "F": 100}, {"B": 200, "F": 24}]
ATOL = 1e-4
RTOL = 1e-4


def get_inputs(B=200, F=24, device="cpu"):
    x = torch.randn(B, F, device=device)
    weight = torch.rand(F, device=device) + 0.5
    bias = torch.randn(F, device=device) * 0.1
    return [x, weight, bias]


def reference(input, weight, bias, eps=1e-5):
    return torch.nn.functional.layer_norm(input, (input.shape[-1],), weight, bias, eps)
