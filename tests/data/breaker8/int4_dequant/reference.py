import torch

SHAPES = [{"N": 384}, {"N": 4800}]
ATOL = 1e-6
RTOL = 1e-6
BLOCKSIZE = 64
NF4 = [
    -1.0, -0.6961928009986877, -0.5250730514526367, -0.39491748809814453, -0.28444138169288635,
    -0.18477343022823334, -0.09105003625154495, 0.0, 0.07958029955625534, 0.16093020141124725,
    0.24611230194568634, 0.33791524171829224, 0.44070982933044434, 0.5626170039176941, 0.7229568362236023, 1.0,
]


def get_inputs(N=4800, device="cpu"):
    assert N % 2 == 0
    codes = torch.randint(0, 16, (N,), device=device, dtype=torch.uint8)
    packed = (codes[0::2] << 4) | codes[1::2]
    absmax = torch.rand(-(-N // BLOCKSIZE), device=device) + 0.1
    return [packed, absmax]


def reference(packed, absmax):
    code = torch.tensor(NF4, device=packed.device)
    values = torch.stack([code[(packed >> 4).long()], code[(packed & 0xF).long()]], dim=1).flatten()
    return values * absmax.repeat_interleave(BLOCKSIZE)[: values.numel()]
