"""Position ids of a batch from its attention mask (Hugging Face's form), every token attended in the test inputs:
an integer output that is a permutation of each row, of an input whose rows hold one value (review23 r30)."""

import torch
from torch import nn

batch_size = 8
seq_len = 512


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, attention_mask):
        return attention_mask.cumsum(-1) - 1


def get_inputs():
    return [torch.ones(batch_size, seq_len, dtype=torch.int64)]


def get_init_inputs():
    return []
