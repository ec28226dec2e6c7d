"""Level 3: self-attention through nn.MultiheadAttention, returned whole: with need_weights=False its result is
(output, None), a None among the outputs (break22 b52)."""

import torch
from torch import nn

batch_size = 2
seq_len = 16
embed_dim = 32
num_heads = 4


class Model(nn.Module):
    def __init__(self, embed_dim, num_heads):
        super().__init__()
        self.attn = nn.MultiheadAttention(embed_dim, num_heads, batch_first=True)

    def forward(self, x):
        return self.attn(x, x, x, need_weights=False)


def get_inputs():
    return [torch.randn(batch_size, seq_len, embed_dim)]


def get_init_inputs():
    return [embed_dim, num_heads]
