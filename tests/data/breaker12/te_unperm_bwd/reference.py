import torch

SHAPES = [{"T": 5, "E": 4, "H": 300}, {"T": 3, "E": 6, "H": 5000}, {"T": 9, "E": 3, "H": 40}]
ATOL = 1e-4
RTOL = 1e-5


def get_inputs(T=5, E=4, H=300, device="cpu"):
    g = torch.Generator().manual_seed(T * 100000 + E * 1000 + H)
    routing_map = torch.rand(T, E, generator=g) < 0.5
    routing_map[0] = False
    routing_map[-1] = True
    n_out = int(routing_map.sum())
    grad = torch.randn(T, H, generator=g)
    fwd_input = torch.randn(n_out, H, generator=g)
    merging_probs = torch.rand(T, E, generator=g)
    return [grad.to(device), fwd_input.to(device), routing_map.to(device), merging_probs.to(device)]


def reference(grad, fwd_input, routing_map, merging_probs):
    T, E = routing_map.shape
    act_grad = torch.empty_like(fwd_input)
    probs_grad = torch.zeros(T, E, dtype=merging_probs.dtype)
    row = 0
    for e in range(E):
        for t in range(T):
            if routing_map[t, e]:
                act_grad[row] = grad[t] * merging_probs[t, e]
                probs_grad[t, e] = (fwd_input[row].double() * grad[t].double()).sum().float()
                row += 1
    return act_grad, probs_grad
