import torch

# batch sequences, sequence b with Q new tokens after hist + 3 * b cached ones; k_states / v_states (batch * Q, H, D)
# float16; paged caches (pages, BS, H, D) float8_e4m3fn and their scale caches (pages, BS, H, D // 64) float32, zeros
# to start; block_offsets (batch, pages a sequence) int32, the pages shuffled. Each new token's row of a head is
# quantized in groups of 64 features (scale = max(absmax, 1e-6) / 448) into its page's slot; the caches come back
# filled in place. Q = 1 takes the kernel's decoding path. D a multiple of 64 (the group), BS any page size
SHAPES = [
    {"batch": 2, "Q": 5, "hist": 3, "H": 2, "D": 64, "BS": 16},
    {"batch": 3, "Q": 1, "hist": 20, "H": 1, "D": 128, "BS": 8},
    {"batch": 1, "Q": 40, "hist": 7, "H": 3, "D": 192, "BS": 16},
]
ATOL = 1e-6
RTOL = 1e-6


def get_inputs(batch=2, Q=5, hist=3, H=2, D=64, BS=16, device="cpu"):
    g = torch.Generator().manual_seed(batch * 1000003 + Q * 10007 + hist * 101 + H * 13 + D + BS)
    kv = [hist + 3 * b + Q for b in range(batch)]
    per_seq = -(-max(kv) // BS)
    pages = batch * per_seq + 1
    k = torch.randn(batch * Q, H, D, generator=g).half()
    v = torch.randn(batch * Q, H, D, generator=g).half()
    k_caches = torch.zeros(pages, BS, H, D).to(torch.float8_e4m3fn)
    v_caches = torch.zeros(pages, BS, H, D).to(torch.float8_e4m3fn)
    ks_caches = torch.zeros(pages, BS, H, D // 64)
    vs_caches = torch.zeros(pages, BS, H, D // 64)
    cu = torch.arange(0, batch + 1, dtype=torch.int32) * Q
    kv_seqlens = torch.tensor(kv, dtype=torch.int32)
    block_offsets = torch.randperm(pages, generator=g)[: batch * per_seq].view(batch, per_seq).to(torch.int32)
    out = [k, v, k_caches, v_caches, ks_caches, vs_caches, cu, kv_seqlens, block_offsets]
    return [t.to(device) for t in out]


def _quant(x):
    x = x.float().reshape(*x.shape[:-1], -1, 64)
    scale = x.abs().amax(-1, keepdim=True).clamp_min(1e-6) * (1 / 448.0)
    out = (x / scale).clamp(-448.0, 448.0).to(torch.float8_e4m3fn)
    return out.reshape(*out.shape[:-2], -1), scale.squeeze(-1)


def reference(k_states, v_states, k_caches, v_caches, ks_caches, vs_caches, cu_seqlen_q, kv_seqlens, block_offsets):
    BS = k_caches.shape[1]
    for b in range(block_offsets.shape[0]):
        start, end = int(cu_seqlen_q[b]), int(cu_seqlen_q[b + 1])
        hist = int(kv_seqlens[b]) - (end - start)
        for t in range(end - start):
            pos = hist + t
            page, slot = int(block_offsets[b, pos // BS]), pos % BS
            for states, cache, scales in ((k_states, k_caches, ks_caches), (v_states, v_caches, vs_caches)):
                q, s = _quant(states[start + t])
                cache[page, slot] = q
                scales[page, slot] = s
    return k_caches, v_caches, ks_caches, vs_caches
