"""A CPU elementwise add over chunks of BLOCK elements, one torch call per chunk: a larger BLOCK means
fewer calls, so the knob the rules backend tunes changes the latency far beyond timing noise, up to one
chunk for the largest shape (max=4096), where the knob has converged (the README's CPU example). The loop
tests' fake gate times BLOCK itself."""

import torch

BLOCK = 64  # kernelopt: tunable max=4096


def run(x, y):
    out = torch.empty_like(x)
    for start in range(0, x.numel(), BLOCK):
        end = start + BLOCK
        torch.add(x[start:end], y[start:end], out=out[start:end])
    return out
