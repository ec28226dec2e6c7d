"""A CPU elementwise add over whole chunks of BLOCK elements with no tail: correct only when BLOCK divides the
size (issue 35, defect 2). The largest block is the fastest on the first SHAPES entry (n=4096) and leaves the
second (n=1024) unwritten, so a block that does not divide every entry must never be written."""

import torch

BLOCK = 64  # kernelopt: tunable max=4096


def run(x, y):
    out = torch.empty_like(x)
    for start in range(0, x.numel() - BLOCK + 1, BLOCK):
        end = start + BLOCK
        torch.add(x[start:end], y[start:end], out=out[start:end])
    return out
