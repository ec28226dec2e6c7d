import torch

SHAPES = [{"T": 5, "E": 4, "H": 300}, {"T": 3, "E": 6, "H": 5000}, {"T": 9, "E": 3, "H": 40}]
# the probabilities' gradients are sums over H in fp32 (a GPU's order of addition differs from the CPU's)
ATOL = 1e-3
RTOL = 1e-4


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
    expert, token = routing_map.t().nonzero(as_tuple=True)  # the permuted rows: expert-major, tokens in order
    act_grad = grad[token] * merging_probs[token, expert][:, None]
    probs_grad = torch.zeros_like(merging_probs)
    probs_grad[token, expert] = (fwd_input.double() * grad[token].double()).sum(-1).to(merging_probs.dtype)
    return act_grad, probs_grad
