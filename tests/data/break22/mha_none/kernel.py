"""The attention written out (one projection, scaled_dot_product_attention, the output projection), returning
(output, None) as the reference does."""

import torch.nn.functional as F
from torch import nn


class ModelNew(nn.Module):
    def __init__(self, embed_dim, num_heads):
        super().__init__()
        self.attn = nn.MultiheadAttention(embed_dim, num_heads, batch_first=True)

    def forward(self, x):
        a = self.attn
        b, t, d = x.shape
        q, k, v = F.linear(x, a.in_proj_weight, a.in_proj_bias).chunk(3, dim=-1)

        def heads(y):
            return y.view(b, t, a.num_heads, d // a.num_heads).transpose(1, 2)

        y = F.scaled_dot_product_attention(heads(q), heads(k), heads(v)).transpose(1, 2).reshape(b, t, d)
        return F.linear(y, a.out_proj.weight, a.out_proj.bias), None
