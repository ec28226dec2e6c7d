import torch

SHAPES = [{"BT": 16, "H": 32, "V": 100}, {"BT": 40, "H": 16, "V": 500}]
ATOL = 1e-4
RTOL = 1e-3


def get_inputs(BT=40, H=16, V=500, device="cpu"):
    target = torch.randint(0, V, (BT,), device=device)
    target[::7] = -100
    return [torch.randn(BT, H, device=device), torch.randn(V, H, device=device) * 0.2, target]


def reference(x, weight, target):
    with torch.enable_grad():
        x = x.detach().requires_grad_(True)
        loss = torch.nn.functional.cross_entropy(x @ weight.t(), target, ignore_index=-100)
        (grad,) = torch.autograd.grad(loss, (x,))
    return torch.cat([loss.detach().reshape(1), grad.flatten()])
