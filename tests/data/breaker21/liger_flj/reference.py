import torch

# BT tokens, hidden H, vocabulary V (several chunks: chunk_size = next_power_of_2(cdiv(BT, cdiv(V, H)))); beta 0.5,
# temperature 2, two ignored labels, the loss's gradient 3 (the backward's element_mul launches)
SHAPES = [{"BT": 20, "H": 16, "V": 100}, {"BT": 8, "H": 64, "V": 40}, {"BT": 33, "H": 24, "V": 200}]
ATOL = 1e-5
RTOL = 1e-4
IGNORE = -100


def get_inputs(BT=20, H=16, V=100, device="cpu"):
    g = torch.Generator().manual_seed(BT * 100003 + H * 1009 + V)
    si = torch.randn(BT, H, generator=g)
    sw = torch.randn(V, H, generator=g) * 0.3
    ti = torch.randn(BT, H, generator=g)
    tw = torch.randn(V, H, generator=g) * 0.3
    labels = torch.randint(0, V, (BT,), generator=g)
    labels[1] = IGNORE
    labels[-1] = IGNORE
    return [t.to(device) for t in (si, sw, ti, tw, labels)]


def reference(si, sw, ti, tw, labels, beta=0.5, temperature=2.0):
    si = si.detach().requires_grad_(True)
    sw = sw.detach().requires_grad_(True)
    x = torch.log_softmax((si @ sw.t()) / temperature, dim=-1)  # log Q (student)
    y = torch.log_softmax((ti @ tw.t()) / temperature, dim=-1)  # log P (teacher)
    keep = (labels != IGNORE)[:, None]
    q, p = x.exp(), y.exp()
    m = beta * p + (1 - beta) * q
    per = beta * p * (y - m.log()) + (1 - beta) * q * (x - m.log())
    loss = torch.where(keep, per, torch.zeros_like(per)).sum() / keep.sum()
    gi, gw = torch.autograd.grad(loss, (si, sw), torch.tensor(3.0, device=loss.device))
    return loss.detach(), gi, gw
