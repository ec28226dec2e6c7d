import torch

SHAPES = [{"R": 50, "C": 300, "I": 17}, {"R": 200, "C": 1100, "I": 90}]
ATOL = 0
RTOL = 0


def get_inputs(R=200, C=1100, I=90, device="cpu"):  # noqa: E741
    g = torch.Generator().manual_seed(R + C + I)
    source = torch.randn(R, C, generator=g)
    index = torch.randint(0, R, (I,), generator=g)
    return [source.to(device), index.to(device)]


def reference(source, index):
    return source.index_select(0, index)
