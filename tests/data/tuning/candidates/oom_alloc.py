import torch


def run(x, y):
    scratch = torch.empty(1 << 50, dtype=torch.uint8)  # a petabyte: the allocator refuses
    return x + y + scratch[0]
