"""torch.softmax itself (the max subtracted, as every fast softmax kernel does): finite everywhere."""

import torch
from torch import nn


class ModelNew(nn.Module):
    def forward(self, s):
        return torch.softmax(s.float(), dim=-1).to(s.dtype)  # the max subtracted: the softmax itself
