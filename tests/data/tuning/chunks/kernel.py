"""A CPU elementwise a*x + y over chunks of BLOCK elements, a few torch calls per chunk: the latency is about
proportional to the number of chunks, so each doubling of BLOCK is close to 2x faster up to one chunk
(BLOCK=4096 for n=4096), the best by about 2x. The noise test times it under background load."""

import torch

BLOCK = 64  # kernelopt: tunable max=4096


def run(x, y):
    out = torch.empty_like(x)
    for start in range(0, x.numel(), BLOCK):
        end = start + BLOCK
        t = torch.mul(x[start:end], 2.0)
        t = torch.add(t, y[start:end])
        t = torch.sub(t, 0.5)
        torch.add(t, 0.5, out=out[start:end])
    return out
