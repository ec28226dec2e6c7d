"""Liger-Kernel's generalized Jensen-Shannon divergence (``_jsd_kernel``): one program a row of ``(BT, V)``
log-probabilities, looping over the vocabulary in ``BLOCK_SIZE`` chunks and writing the per-element loss and the
input's gradient (the loss is their sum on the host). ``beta`` a float ``tl.constexpr`` choosing forward KL, reverse
KL or the mix at compile time, ``n_non_ignore: int`` annotated, ``HAS_LABEL`` with ignored rows. The block is
``min(MAX_FUSED_SIZE, triton.next_power_of_2(V))`` where ``MAX_FUSED_SIZE = 4096 if infer_device() == "xpu" else
65536`` is decided at import."""

import torch
import triton
import triton.language as tl


def infer_device():
    if torch.cuda.is_available():
        return "cuda"
    if getattr(torch, "xpu", None) is not None and torch.xpu.is_available():
        return "xpu"
    return "cpu"


@triton.jit
def _jsd_kernel(
    X_ptr,
    X_stride,
    Y_ptr,
    Y_stride,
    loss_ptr,
    loss_stride,
    dX_ptr,
    dX_stride,
    label_ptr,
    beta: tl.constexpr,
    n_non_ignore: int,
    ignore_index: tl.constexpr,
    n_cols,
    BLOCK_SIZE: tl.constexpr,
    HAS_LABEL: tl.constexpr,
):
    pid = tl.program_id(0).to(tl.int64)
    X_ptr += pid * X_stride
    dX_ptr += pid * dX_stride
    Y_ptr += pid * Y_stride
    loss_ptr += pid * loss_stride
    label_ptr += pid

    if HAS_LABEL:
        label = tl.load(label_ptr)
        if label == ignore_index:
            for i in range(0, n_cols, BLOCK_SIZE):
                offsets = i + tl.arange(0, BLOCK_SIZE)
                tl.store(dX_ptr + offsets, 0.0, mask=offsets < n_cols)
            return

    for i in range(0, n_cols, BLOCK_SIZE):
        offsets = i + tl.arange(0, BLOCK_SIZE)
        mask = offsets < n_cols
        X = tl.load(X_ptr + offsets, mask=mask, other=float("-inf")).to(tl.float32)
        Y = tl.load(Y_ptr + offsets, mask=mask, other=float("-inf")).to(tl.float32)

        if beta == 0.0:  # forward KL
            Y_prob = tl.exp(Y)
            loss = Y_prob * (Y - X)
            dX = -Y_prob
        elif beta == 1.0:  # reverse KL
            X_prob = tl.exp(X)
            loss = X_prob * (X - Y)
            dX = loss + X_prob
        else:
            Q = tl.exp(X)
            P = tl.exp(Y)
            M = beta * P + (1 - beta) * Q
            log_M = tl.log(M)
            loss = beta * P * Y + (1 - beta) * Q * X - M * log_M
            dX = (1 - beta) * Q * (X - log_M)

        loss = loss / n_non_ignore
        dX = dX / n_non_ignore
        tl.store(loss_ptr + offsets, loss, mask=mask)
        tl.store(dX_ptr + offsets, dX, mask=mask)


MAX_FUSED_SIZE = 4096 if infer_device() == "xpu" else 65536


def jsd_forward(_input, target, shift_labels, beta, ignore_index, has_label):
    BT, V = _input.shape
    n_rows = BT
    BLOCK_SIZE = min(MAX_FUSED_SIZE, triton.next_power_of_2(V))
    loss = torch.zeros(_input.shape, dtype=torch.float32, device=_input.device)
    dX = torch.empty_like(_input)

    if has_label:
        n_non_ignore = (shift_labels != ignore_index).sum().item()
    else:
        n_non_ignore = BT

    _jsd_kernel[(n_rows,)](
        X_ptr=_input,
        X_stride=_input.stride(-2),
        Y_ptr=target,
        Y_stride=target.stride(-2),
        loss_ptr=loss,
        loss_stride=loss.stride(-2),
        dX_ptr=dX,
        dX_stride=dX.stride(-2),
        label_ptr=(shift_labels if has_label else torch.empty(1, device=_input.device)),
        beta=beta,
        n_non_ignore=n_non_ignore,
        ignore_index=ignore_index,
        n_cols=V,
        BLOCK_SIZE=BLOCK_SIZE,
        HAS_LABEL=has_label,
    )

    loss = torch.sum(loss)
    return loss.to(_input.dtype), dX


def run(x, y, labels):
    return jsd_forward(x, y, labels, 0.5, -100, True)
