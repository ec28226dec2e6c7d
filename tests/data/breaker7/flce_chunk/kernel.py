"""Fused linear cross-entropy as Liger-Kernel writes its forward: the tokens go through in chunks sized so a chunk
of logits is about as large as the input (chunk_size from inc_factor = cdiv(V, H)), each chunk's logits are made
by a matmul, a Triton kernel turns them in place into the gradient of the mean loss (an online softmax over V in
BLOCK_SIZE steps, BLOCK_SIZE = min(MAX_FUSED_SIZE, next_power_of_2(V))), and the input gradient is accumulated
chunk by chunk. Returns the loss and the gradient of the input."""

import torch
import triton
import triton.language as tl

MAX_FUSED_SIZE = 65536 // 2


@triton.jit
def liger_cross_entropy_kernel(X_ptr, X_stride, Y_ptr, Y_stride, loss_ptr, loss_stride, n_cols, n_non_ignore,
                               ignore_index, BLOCK_SIZE: tl.constexpr):
    program_id = tl.program_id(0).to(tl.int64)
    Y_ptr += program_id * Y_stride
    y = tl.load(Y_ptr)
    X_ptr += program_id * X_stride
    if y == ignore_index:
        for i in range(0, n_cols, BLOCK_SIZE):
            X_offsets = i + tl.arange(0, BLOCK_SIZE)
            tl.store(X_ptr + X_offsets, 0.0, mask=X_offsets < n_cols)
        return
    loss_ptr += program_id * loss_stride
    m = float("-inf")
    d = 0.0
    ori_X_y = tl.load(X_ptr + y).cast(tl.float32)
    for i in range(0, n_cols, BLOCK_SIZE):
        X_offsets = i + tl.arange(0, BLOCK_SIZE)
        X_block = tl.load(X_ptr + X_offsets, mask=X_offsets < n_cols, other=float("-inf")).cast(tl.float32)
        block_max = tl.max(X_block)
        m_new = tl.maximum(m, block_max)
        d = d * tl.exp(m - m_new) + tl.sum(tl.exp(X_block - m_new))
        m = m_new
    lse = m + tl.log(d)
    for i in range(0, n_cols, BLOCK_SIZE):
        X_offsets = i + tl.arange(0, BLOCK_SIZE)
        X_block = tl.load(X_ptr + X_offsets, mask=X_offsets < n_cols, other=float("-inf")).cast(tl.float32)
        X_block = tl.exp(X_block - m) / d
        X_block = tl.where(X_offsets != y, X_block, X_block - 1.0)
        X_block = X_block / n_non_ignore
        tl.store(X_ptr + X_offsets, X_block, mask=X_offsets < n_cols)
    loss = (lse - ori_X_y) / n_non_ignore
    tl.store(loss_ptr, loss)


def fused_linear_cross_entropy_forward(_input, weight, target, ignore_index=-100):
    BT, H = _input.shape
    V = weight.shape[0]
    BLOCK_SIZE = min(MAX_FUSED_SIZE, triton.next_power_of_2(V))
    inc_factor = triton.cdiv(V, H)
    chunk_size = triton.next_power_of_2(triton.cdiv(BT, inc_factor))
    num_chunks = triton.cdiv(BT, chunk_size)
    grad_input = torch.zeros_like(_input)
    loss_1d = torch.zeros(BT, dtype=torch.float32, device=_input.device)
    total_n_non_ignore = (target != ignore_index).sum().item()
    for chunk_id in range(num_chunks):
        start_idx = chunk_id * chunk_size
        end_idx = min((chunk_id + 1) * chunk_size, BT)
        _input_chunk = _input[start_idx:end_idx]
        logits_chunk = _input_chunk @ weight.t()
        target_chunk = target[start_idx:end_idx]
        n_rows = logits_chunk.shape[0]
        loss_1d_slice = loss_1d[start_idx:end_idx]
        logits_chunk = logits_chunk.contiguous()
        target_chunk = target_chunk.contiguous()
        liger_cross_entropy_kernel[(n_rows,)](
            X_ptr=logits_chunk, X_stride=logits_chunk.stride(-2), Y_ptr=target_chunk, Y_stride=target_chunk.stride(-1),
            loss_ptr=loss_1d_slice, loss_stride=loss_1d_slice.stride(-1), n_cols=V, n_non_ignore=total_n_non_ignore,
            ignore_index=ignore_index, BLOCK_SIZE=BLOCK_SIZE, num_warps=32,
        )
        grad_input[start_idx:end_idx] = logits_chunk @ weight
    loss = torch.sum(loss_1d)
    return loss, grad_input


def run(x, weight, target):
    loss, grad_input = fused_linear_cross_entropy_forward(x, weight, target)
    return torch.cat([loss.reshape(1), grad_input.flatten()])
