import torch


def run(x, y):
    raise torch.OutOfMemoryError("CUDA out of memory. Tried to allocate 64.00 GiB")
