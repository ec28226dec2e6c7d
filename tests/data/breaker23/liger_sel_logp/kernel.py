"""Liger-Kernel's fused selective log-softmax (``src/liger_kernel/ops/grpo_loss.py``, ``fused_selective_log_softmax``
with ``_selective_log_softmax_kernel``, BSD-2-Clause; GRPO's old / reference log-probabilities): for each of B x L
positions, the log-probability of the next token under ``softmax(logits / TEMPERATURE)``, by an ONLINE LOG-SUM-EXP
over the vocabulary in ``BLOCK_N`` steps (``for start in range(0, N, BLOCK_N)``: the chain of the running sum's
rescalings is ``cdiv(N, BLOCK_N)`` long), then one gathered logit. ``BLOCK_N: tl.constexpr = 4096`` a DEFAULT of the
signature that the launch overrides from a DICT LITERAL ``kwargs = {"BLOCK_N": 2048, "num_stages": 4, "num_warps":
1}`` splatted ``**kwargs`` (a block and two launch options in one dict); ``L`` and ``N`` ``tl.constexpr``; the
program ids cast to int64 (``.cast(tl.int64)``) before ``off_b * (L + 1) * N`` (the logits of a real batch pass
2**31 elements); an optional ``MASK`` (``if MASK is not None``, an early ``return`` for a masked position, whose
output stays the zero of ``torch.zeros``); the logits ``(B, L + 1, N)``, the ids ``input_ids[:, -L:]`` (a strided
view: ``stride_input_ids_b``). Kept as written, under its ``@torch.no_grad``."""

import torch
import triton
import triton.language as tl


@triton.jit
def _selective_log_softmax_kernel(
    LOGITS,
    INPUT_IDS,
    LOG_P,
    MASK,
    TEMPERATURE: tl.constexpr,
    stride_input_ids_b,
    L: tl.constexpr,
    N: tl.constexpr,
    BLOCK_N: tl.constexpr = 4096,
):
    off_b = tl.program_id(0).cast(tl.int64)
    off_l = tl.program_id(1).cast(tl.int64)

    LOGITS += off_b * (L + 1) * N + off_l * N
    INPUT_IDS += off_b * stride_input_ids_b + off_l
    LOG_P += off_b * L + off_l

    if MASK is not None:
        MASK += off_b * stride_input_ids_b + off_l
        not_skip = tl.load(MASK)
        if not_skip == 0:
            return

    m_i = float("-inf")
    l_i = 0.0
    for start in range(0, N, BLOCK_N):
        cols = start + tl.arange(0, BLOCK_N)
        logits = tl.load(LOGITS + cols, mask=cols < N, other=float("-inf")).to(tl.float32) / TEMPERATURE
        new_m_i = tl.maximum(m_i, tl.max(logits))
        alpha = tl.exp(m_i - new_m_i)
        l_i = l_i * alpha + tl.sum(tl.exp(logits - new_m_i))
        m_i = new_m_i
    lse = m_i + tl.log(l_i)

    ids = tl.load(INPUT_IDS)
    x = tl.load(LOGITS + ids).to(tl.float32) / TEMPERATURE
    logp = x - lse
    tl.store(LOG_P, logp)


# the old and reference log-probabilities, without grad (about 10 GB less peak memory)
@torch.no_grad
def fused_selective_log_softmax(logits: torch.Tensor, input_ids: torch.Tensor, temperature: float = 0.9, mask=None):
    assert logits.is_contiguous()
    B, L_ADD_1, N = logits.shape
    L = L_ADD_1 - 1
    input_ids = input_ids[:, -L:]
    if mask is not None:
        mask = mask[:, -L:]
    log_p = torch.zeros(B, L, dtype=torch.float32, device=logits.device)
    kwargs = {"BLOCK_N": 2048, "num_stages": 4, "num_warps": 1}
    _selective_log_softmax_kernel[(B, L)](
        logits, input_ids, log_p, mask, temperature, input_ids.stride(0), L, N, **kwargs
    )
    return log_p


def run(logits, input_ids, mask):
    return fused_selective_log_softmax(logits, input_ids, 0.9, mask)
