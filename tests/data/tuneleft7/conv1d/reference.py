import torch

SHAPES = [{"n": 100}, {"n": 300}]


def get_inputs(n=300):
    return [torch.randn(n), torch.randn(5)]


def reference(x, w):
    return torch.nn.functional.conv1d(x[None, None], w[None, None], padding=2)[0, 0]
