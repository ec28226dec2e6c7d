"""Tokens grouped by expert (a mixture of experts' dispatch): an argsort of the expert ids, the router's scores the
first input; many equal keys, and the scores distinct (review23 r30)."""

import torch
from torch import nn

batch_size = 8
tokens = 512
experts = 8


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, scores, expert_ids):
        return torch.argsort(expert_ids, dim=-1)


def get_inputs():
    return [torch.rand(batch_size, tokens), torch.randint(0, experts, (batch_size, tokens))]


def get_init_inputs():
    return []
