"""reference_half_loop.py's sum, column by column in fp16 from the last column to the first: another order of
rounding, correct within the reference's own error."""

from torch import nn


class ModelNew(nn.Module):
    def forward(self, x):
        acc = x[:, -1]
        for i in range(x.shape[1] - 2, -1, -1):
            acc = acc + x[:, i]
        return acc
