"""The linear layer as a float32 matmul rounded to fp16 as the reference's is, then the threshold."""

from torch import nn


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(256, 256).half()

    def forward(self, x):
        y = (x.float() @ self.lin.weight.float().t() + self.lin.bias.float()).half()
        return y > 1.0
