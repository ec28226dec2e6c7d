"""An add whose reference is as noisy as a busy CPU core makes it: each call sleeps 0 or 3 ms, in a
fixed pseudo-random order (issue 23: the reference's samples swung from 4 us to 15 ms)."""

import random
import time

import torch

_coin = random.Random(0)


def get_inputs(n: int = 4096, device: str = "cpu"):
    g = torch.Generator().manual_seed(0)
    return [torch.randn(n, generator=g).to(device), torch.randn(n, generator=g).to(device)]


def reference(x, y):
    if _coin.random() < 0.5:
        time.sleep(0.003)
    return x + y
