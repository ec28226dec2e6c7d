import torch

# requests, the most draft tokens one request has (vLLM allows up to 32), vocabulary
SHAPES = [{"B": 6, "S": 5, "V": 50}, {"B": 3, "S": 12, "V": 20}, {"B": 9, "S": 2, "V": 33}]
ATOL = 0
RTOL = 0


def get_inputs(B=6, S=5, V=50, device="cpu"):
    g = torch.Generator().manual_seed(B * 10000 + S * 100 + V)
    n = torch.randint(0, S + 1, (B,), generator=g)
    n[0] = S
    cu = torch.cumsum(n, 0).to(torch.int32)
    total = int(cu[-1])
    logits = torch.randn(total, V, generator=g)
    target = logits.argmax(-1)
    # a draft token matches the target's argmax three times in four
    draft = torch.where(torch.rand(total, generator=g) < 0.75, target, torch.randint(0, V, (total,), generator=g))
    bonus = torch.randint(0, V, (B,), generator=g).to(torch.int32)
    temperature = torch.where(torch.rand(B, generator=g) < 0.6, -1.0, 0.5 + torch.rand(B, generator=g))
    tensors = [draft.to(torch.int32), cu, logits, bonus, temperature.float()]
    return [t.to(device) for t in tensors]


def reference(draft, cu, logits, bonus, temperature):
    B = cu.shape[0]
    starts = [0, *cu.tolist()[:-1]]
    lens = [e - s for s, e in zip(starts, cu.tolist())]
    S = max(lens)
    out = torch.full((B, S + 1), -1, dtype=torch.int32, device=draft.device)
    target = logits.argmax(-1).to(torch.int32)
    for r in range(B):
        if float(temperature[r]) != -1.0:
            continue
        s, n = starts[r], lens[r]
        for p in range(n):
            out[r, p] = target[s + p]
            if int(draft[s + p]) != int(target[s + p]):
                break
        else:
            out[r, n] = bonus[r]
    tok_temp = torch.repeat_interleave(torch.where(temperature == -1.0, 1.0, temperature), torch.tensor(lens, device=temperature.device))
    return out, tok_temp
