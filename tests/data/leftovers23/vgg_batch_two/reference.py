"""KernelBench level 3 form: a small VGG-like head over a batch of 2 3-channel 16 x 16 images; every module-level size
below 16 (break22's VGG head; leftovers23 l31)."""

import torch
from torch import nn

batch_size = 2


class Model(nn.Module):
    def __init__(self, num_classes=10):
        super().__init__()
        self.features = nn.Sequential(nn.Conv2d(3, 8, 3, padding=1), nn.ReLU(inplace=True), nn.MaxPool2d(2, 2))
        self.classifier = nn.Sequential(nn.Linear(8 * 8 * 8, 64), nn.ReLU(inplace=True), nn.Linear(64, num_classes))

    def forward(self, x):
        return self.classifier(torch.flatten(self.features(x), 1))


def get_inputs():
    return [torch.randn(batch_size, 3, 16, 16)]


def get_init_inputs():
    return [10]
