import torch

# x (T, K) float16 sorted by expert, w (E, K, N) float16, offsets (E + 1,) int32 (each expert owns 0..2*R rows, the
# first at least one); the output (T, N) float16 is each row times its expert's weight, accumulated in float32
SHAPES = [{"E": 4, "R": 20, "K": 64, "N": 96}, {"E": 8, "R": 50, "K": 100, "N": 40}, {"E": 2, "R": 130, "K": 32, "N": 130}]
ATOL = 2e-2
RTOL = 1e-2


def get_inputs(E=4, R=20, K=64, N=96, device="cpu"):
    g = torch.Generator().manual_seed(E * 100003 + R * 1009 + K * 31 + N)
    counts = torch.randint(0, 2 * R + 1, (E,), generator=g)
    counts[0] = max(int(counts[0]), 1)
    offsets = torch.zeros(E + 1, dtype=torch.int32)
    offsets[1:] = torch.cumsum(counts, 0)
    x = (torch.randn(int(offsets[-1]), K, generator=g) / K**0.5).half()
    w = torch.randn(E, K, N, generator=g).half()
    return [x.to(device), w.to(device), offsets.to(device)]


def reference(x, w, offsets):
    out = torch.empty((x.shape[0], w.shape[2]), dtype=x.dtype, device=x.device)
    cut = offsets.tolist()
    for e, (a, b) in enumerate(zip(cut[:-1], cut[1:])):
        out[a:b] = (x[a:b].float() @ w[e].float()).to(x.dtype)
    return out
