"""Cross-entropy forward as unsloth writes it: a vocabulary up to MAX_FUSED_SIZE goes through one kernel whose block
covers the row (calculate_settings); a larger one is cut into n_chunks of MAX_FUSED_SIZE columns, a grid
(n_rows, n_chunks) writes each chunk's log-sum-exp, and torch merges them. Soft-capping and logit scaling are
constexpr flags set by @triton.heuristics from the arguments. MAX_FUSED_SIZE is 65536 in the library; here 256,
so the interpreter sees both paths."""

import torch
import triton
import triton.language as tl

MAX_FUSED_SIZE = 256


def calculate_settings(n):
    BLOCK_SIZE = triton.next_power_of_2(n)
    if BLOCK_SIZE > MAX_FUSED_SIZE:
        raise RuntimeError(f"Cannot launch Triton kernel since n = {n} exceeds the maximum CUDA blocksize = "
                           f"{MAX_FUSED_SIZE}.")
    num_warps = 4
    if BLOCK_SIZE >= 32768:
        num_warps = 32
    elif BLOCK_SIZE >= 8192:
        num_warps = 16
    elif BLOCK_SIZE >= 2048:
        num_warps = 8
    return BLOCK_SIZE, num_warps


@triton.heuristics({
    "DO_SOFTCAPPING": lambda args: bool(args["DO_SOFTCAPPING"]),
    "DO_LOGIT_SCALING": lambda args: bool(args["DO_LOGIT_SCALING"]),
})
@triton.jit
def _cross_entropy_forward(logits_ptr, logits_row_stride, loss_ptr, logsumexp_ptr, labels_ptr,
                           VOCAB_SIZE: tl.constexpr, BLOCK_SIZE: tl.constexpr, DO_SOFTCAPPING: tl.constexpr,
                           SOFTCAP: tl.constexpr, DO_LOGIT_SCALING: tl.constexpr, LOGIT_SCALE: tl.constexpr):
    row_idx = tl.program_id(0)
    logits_ptr += row_idx * logits_row_stride
    loss_ptr += row_idx
    logsumexp_ptr += row_idx
    labels_ptr += row_idx
    col_offsets = tl.arange(0, BLOCK_SIZE)
    mask = col_offsets < VOCAB_SIZE
    label_idx = tl.load(labels_ptr).to(tl.int32)
    logits = tl.load(logits_ptr + col_offsets, mask=mask, other=-float("inf")).to(tl.float32)
    if DO_LOGIT_SCALING:
        logits = LOGIT_SCALE * logits
    if DO_SOFTCAPPING:
        logits = SOFTCAP * tl.extra.cuda.libdevice.tanh(logits / SOFTCAP)
    c = tl.max(logits, 0)
    logsumexp = c + tl.log(tl.sum(tl.exp(logits - c), 0))
    if label_idx != -100:
        x = tl.load(logits_ptr + label_idx).to(tl.float32)
        if DO_LOGIT_SCALING:
            x = LOGIT_SCALE * x
        if DO_SOFTCAPPING:
            x = SOFTCAP * tl.extra.cuda.libdevice.tanh(x / SOFTCAP)
        loss = logsumexp - x
    else:
        loss = 0.0
    tl.store(logsumexp_ptr, logsumexp)
    tl.store(loss_ptr, loss)


@triton.heuristics({
    "DO_SOFTCAPPING": lambda args: bool(args["DO_SOFTCAPPING"]),
    "DO_LOGIT_SCALING": lambda args: bool(args["DO_LOGIT_SCALING"]),
})
@triton.jit
def _chunked_cross_entropy_forward(logits_ptr, logits_row_stride, loss_ptr, logsumexp_ptr, labels_ptr,
                                   VOCAB_SIZE: tl.constexpr, N_CHUNKS: tl.constexpr, BLOCK_SIZE: tl.constexpr,
                                   DO_SOFTCAPPING: tl.constexpr, SOFTCAP: tl.constexpr,
                                   DO_LOGIT_SCALING: tl.constexpr, LOGIT_SCALE: tl.constexpr):
    row_idx = tl.program_id(0)
    chunk_idx = tl.program_id(1)
    logits_ptr += row_idx * logits_row_stride
    loss_ptr += row_idx
    logsumexp_ptr += row_idx * N_CHUNKS + chunk_idx
    labels_ptr += row_idx
    col_offsets = chunk_idx * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = col_offsets < VOCAB_SIZE
    label_idx = tl.load(labels_ptr).to(tl.int32)
    logits = tl.load(logits_ptr + col_offsets, mask=mask, other=-float("inf")).to(tl.float32)
    if DO_LOGIT_SCALING:
        logits = LOGIT_SCALE * logits
    if DO_SOFTCAPPING:
        logits = SOFTCAP * tl.extra.cuda.libdevice.tanh(logits / SOFTCAP)
    c = tl.max(logits, 0)
    logsumexp = c + tl.log(tl.sum(tl.exp(logits - c), 0))
    if chunk_idx == 0:
        if label_idx != -100:
            x = tl.load(logits_ptr + label_idx).to(tl.float32)
            if DO_LOGIT_SCALING:
                x = LOGIT_SCALE * x
            if DO_SOFTCAPPING:
                x = SOFTCAP * tl.extra.cuda.libdevice.tanh(x / SOFTCAP)
            loss = -1.0 * x
        else:
            loss = 0.0
        tl.store(loss_ptr, loss)
    tl.store(logsumexp_ptr, logsumexp)


def cross_entropy_forward(logits, labels, logit_softcapping=0, logit_scaling=0):
    n_rows, vocab_size = logits.shape
    div, mod = divmod(vocab_size, MAX_FUSED_SIZE)
    n_chunks = div + (mod != 0)
    losses = torch.empty(n_rows, dtype=torch.float32, device=logits.device)
    DO_SOFTCAPPING = bool(logit_softcapping != 0)
    DO_LOGIT_SCALING = bool(logit_scaling != 0)
    if n_chunks == 1:
        BLOCK_SIZE, num_warps = calculate_settings(vocab_size)
        logsumexp = torch.empty(n_rows, dtype=torch.float32, device=logits.device)
        _cross_entropy_forward[(n_rows,)](
            logits, logits.stride(0), losses, logsumexp, labels, VOCAB_SIZE=vocab_size, BLOCK_SIZE=BLOCK_SIZE,
            DO_SOFTCAPPING=DO_SOFTCAPPING, SOFTCAP=logit_softcapping, DO_LOGIT_SCALING=DO_LOGIT_SCALING,
            LOGIT_SCALE=logit_scaling, num_warps=num_warps,
        )
    else:
        logsumexp = torch.empty((n_rows, n_chunks), dtype=torch.float32, device=logits.device)
        _chunked_cross_entropy_forward[(n_rows, n_chunks)](
            logits, logits.stride(0), losses, logsumexp, labels, VOCAB_SIZE=vocab_size, N_CHUNKS=n_chunks,
            BLOCK_SIZE=MAX_FUSED_SIZE, DO_SOFTCAPPING=DO_SOFTCAPPING, SOFTCAP=logit_softcapping,
            DO_LOGIT_SCALING=DO_LOGIT_SCALING, LOGIT_SCALE=logit_scaling, num_warps=32,
        )
        logsumexp = torch.logsumexp(logsumexp, dim=1)
        losses += logsumexp
        losses.masked_fill_(labels == -100, 0)
    return losses


def run(logits, labels):
    return cross_entropy_forward(logits, labels, logit_softcapping=30.0)
