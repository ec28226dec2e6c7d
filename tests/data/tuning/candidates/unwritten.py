import torch


def run(x, y):
    out = torch.empty_like(x)
    half = x.numel() // 2
    out[:half] = x[:half] + y[:half]
    return out
