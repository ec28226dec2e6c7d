import torch

SHAPES = [{"B": 3, "L": 4, "R": 16, "K": 256}, {"B": 2, "L": 2, "R": 8, "K": 300}, {"B": 3, "L": 3, "R": 32, "K": 96}]
# a GPU's tl.dot on fp32 rounds the operands to tf32 (10 bits): within 1e-2 of outputs near 1
ATOL = 1e-2
RTOL = 1e-2


def get_inputs(B=3, L=4, R=16, K=512, device="cpu"):
    g = torch.Generator().manual_seed(B * 100000 + L * 10000 + R * 100 + K)
    seq_lens = torch.randint(1, 20, (B,), generator=g)
    seq_lens[0] = 33  # more rows than one BLOCK_M
    inputs = torch.randn(int(seq_lens.sum()), K, generator=g) / K**0.5
    lora_a = torch.randn(L, R, K, generator=g)
    lora_indices = torch.randint(0, L, (B,), generator=g)
    lora_indices[-1] = -1  # a sequence without an adapter
    return [inputs.to(device), lora_a.to(device), seq_lens.to(device), lora_indices.to(device)]


def reference(inputs, lora_a, seq_lens, lora_indices):
    out = torch.zeros(inputs.shape[0], lora_a.shape[1], device=inputs.device)
    start = 0
    for n, idx in zip(seq_lens.tolist(), lora_indices.tolist(), strict=True):
        if idx != -1:
            out[start : start + n] = (inputs[start : start + n].double() @ lora_a[idx].double().t()).float() * 0.5
        start += n
    return out
