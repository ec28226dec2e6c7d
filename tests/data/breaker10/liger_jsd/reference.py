import torch

SHAPES = [{"BT": 6, "V": 300}, {"BT": 4, "V": 1000}, {"BT": 9, "V": 64}]
ATOL = 1e-5
RTOL = 1e-4
BETA = 0.5
IGNORE = -100


def get_inputs(BT=6, V=300, device="cpu"):
    g = torch.Generator().manual_seed(BT * 10000 + V)
    x = torch.log_softmax(torch.randn(BT, V, generator=g), dim=-1)
    y = torch.log_softmax(torch.randn(BT, V, generator=g), dim=-1)
    labels = torch.randint(0, V, (BT,), generator=g)
    labels[1] = IGNORE
    return [x.to(device), y.to(device), labels.to(device)]


def reference(x, y, labels):
    keep = (labels != IGNORE)[:, None]
    n = keep.sum()
    x_ = x.detach().requires_grad_(True)
    q, p = x_.exp(), y.exp()
    m = BETA * p + (1 - BETA) * q
    per = BETA * p * (y - m.log()) + (1 - BETA) * q * (x_ - m.log())
    loss = torch.where(keep, per, torch.zeros_like(per)).sum() / n
    (grad,) = torch.autograd.grad(loss, x_)
    return loss.detach(), grad
