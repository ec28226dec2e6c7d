import torch

SHAPES = [{"BT": 6, "V": 300}, {"BT": 3, "V": 20000}, {"BT": 9, "V": 17}]
ATOL = 1e-5
RTOL = 1e-5
IGNORE = -100


def get_inputs(BT=6, V=300, device="cpu"):
    g = torch.Generator().manual_seed(BT * 100000 + V)
    p = torch.softmax(torch.randn(BT, V, generator=g), dim=-1)
    q = torch.softmax(torch.randn(BT, V, generator=g), dim=-1)
    labels = torch.randint(0, V, (BT,), generator=g)
    labels[::3] = IGNORE
    return [p.to(device), q.to(device), labels.to(device)]


def reference(p, q, labels):
    keep = (labels != IGNORE).to(p.dtype)[:, None]
    n = keep.sum()
    loss = (0.5 * (p - q).abs() * keep).sum() / n
    grads = torch.where(p > q, 0.5, -0.5) * keep / n
    return loss, grads
