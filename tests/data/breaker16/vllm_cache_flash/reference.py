import torch

SHAPES = [
    {"T": 20, "H": 4, "D": 64, "NB": 8, "BS": 16},
    {"T": 37, "H": 3, "D": 40, "NB": 5, "BS": 16},
    {"T": 9, "H": 8, "D": 128, "NB": 3, "BS": 32},
]
ATOL = 0.0
RTOL = 0.0


def get_inputs(T=20, H=4, D=64, NB=8, BS=16, device="cpu"):
    g = torch.Generator().manual_seed(T * 1000 + H * 100 + D + NB + BS)
    key = torch.randn(T, H, D, generator=g).half()
    value = torch.randn(T, H, D, generator=g).half()
    key_cache = torch.randn(NB, BS, H, D, generator=g).half()
    value_cache = torch.randn(NB, BS, H, D, generator=g).half()
    slot_mapping = torch.randperm(NB * BS, generator=g)[:T]
    slot_mapping[::5] = -1  # padding tokens
    one = torch.ones(1)
    return [t.to(device) for t in (key, value, key_cache, value_cache, slot_mapping, one, one.clone())]


def reference(key, value, key_cache, value_cache, slot_mapping, k_scale, v_scale):
    keep = slot_mapping >= 0
    slots = slot_mapping[keep]
    BS = key_cache.shape[1]
    key_cache[slots // BS, slots % BS] = key[keep]
    value_cache[slots // BS, slots % BS] = value[keep]
    return key_cache, value_cache
