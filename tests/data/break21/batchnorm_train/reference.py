"""KernelBench level 1 33_BatchNorm at small sizes: the module is left in training mode, as KernelBench runs it."""
import torch
from torch import nn
batch_size = 16
features = 8
dim1 = 16
dim2 = 16

class Model(nn.Module):
    def __init__(self, num_features):
        super().__init__()
        self.bn = nn.BatchNorm2d(num_features=num_features)

    def forward(self, x):
        return self.bn(x)

def get_inputs():
    return [torch.randn(batch_size, features, dim1, dim2) * 3 + 1]

def get_init_inputs():
    return [features]
