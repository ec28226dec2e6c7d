import torch

# the most draft tokens of a request is 32 (vLLM's MAX_SPEC_LEN); the entries carry up to 7, 20 and 32
SHAPES = [{"B": 5, "MAXLEN": 7}, {"B": 13, "MAXLEN": 20}, {"B": 3, "MAXLEN": 32}]
ATOL = 0.0
RTOL = 0.0


def get_inputs(B=5, MAXLEN=7, device="cpu"):
    g = torch.Generator().manual_seed(B * 100 + MAXLEN)
    lens = torch.randint(1, MAXLEN + 1, (B,), generator=g)
    lens[0] = MAXLEN
    cu = torch.cumsum(lens, 0).to(torch.int32)
    temperature = torch.rand(B, generator=g) + 0.5
    temperature[::2] = -1.0
    seeds = torch.randint(0, 1 << 30, (B,), generator=g)
    seeds[1::3] = 0
    return [temperature.to(device), seeds.to(device), cu.to(device), cu[-1:].clone().to(device)]


def reference(temperature, seeds, cu_num_tokens, num_tokens):
    starts = torch.cat([cu_num_tokens.new_zeros(1), cu_num_tokens[:-1]])
    lens = (cu_num_tokens - starts).long()
    t = torch.where(temperature == -1.0, torch.ones_like(temperature), temperature)
    return torch.repeat_interleave(t, lens), torch.repeat_interleave(seeds, lens)
