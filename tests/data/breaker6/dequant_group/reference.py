import torch

GROUP_SIZE = 32
SHAPES = [{"M": 4, "N": 128}, {"M": 16, "N": 640}]
ATOL = 1e-5
RTOL = 1e-5


def get_inputs(M=16, N=640, device="cpu"):
    w = torch.randn(M, N // GROUP_SIZE, GROUP_SIZE, device=device)
    scales = w.abs().amax(dim=-1) / 127.0
    q = torch.round(w / scales[..., None]).clamp(-127, 127).to(torch.int8)
    return [q.reshape(M, N), scales.contiguous()]


def reference(q, scales):
    M, N = q.shape
    return (q.reshape(M, -1, GROUP_SIZE).float() * scales[..., None]).reshape(M, N)
