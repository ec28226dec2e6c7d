"""Layer-norm backward in two launches: the first writes dx for ROWS rows a program and one partial row of
dw and db per program; the second sums the partials, its grid and loop bound following the first's block."""

import torch
import triton
import triton.language as tl


@triton.jit
def _ln_bwd_dx(dy_ptr, x_ptr, w_ptr, mean_ptr, rstd_ptr, dx_ptr, pdw_ptr, pdb_ptr, M, N,
               ROWS: tl.constexpr, BLOCK_N: tl.constexpr):
    pid = tl.program_id(0)
    cols = tl.arange(0, BLOCK_N)
    cmask = cols < N
    w = tl.load(w_ptr + cols, mask=cmask, other=0.0)
    dw = tl.zeros([BLOCK_N], dtype=tl.float32)
    db = tl.zeros([BLOCK_N], dtype=tl.float32)
    for r in range(ROWS):
        row = pid * ROWS + r
        if row < M:
            x = tl.load(x_ptr + row * N + cols, mask=cmask, other=0.0)
            dy = tl.load(dy_ptr + row * N + cols, mask=cmask, other=0.0)
            mean = tl.load(mean_ptr + row)
            rstd = tl.load(rstd_ptr + row)
            xhat = tl.where(cmask, (x - mean) * rstd, 0.0)
            wdy = w * dy
            c1 = tl.sum(xhat * wdy, axis=0) / N
            c2 = tl.sum(wdy, axis=0) / N
            tl.store(dx_ptr + row * N + cols, (wdy - (xhat * c1 + c2)) * rstd, mask=cmask)
            dw += dy * xhat
            db += dy
    tl.store(pdw_ptr + pid * N + cols, dw, mask=cmask)
    tl.store(pdb_ptr + pid * N + cols, db, mask=cmask)


@triton.jit
def _ln_bwd_dwdb(pdw_ptr, pdb_ptr, dw_ptr, db_ptr, n_parts, N, BLOCK_P: tl.constexpr, BLOCK_COL: tl.constexpr):
    cols = tl.program_id(0) * BLOCK_COL + tl.arange(0, BLOCK_COL)
    dw = tl.zeros([BLOCK_COL], dtype=tl.float32)
    db = tl.zeros([BLOCK_COL], dtype=tl.float32)
    for start in range(0, n_parts, BLOCK_P):
        parts = start + tl.arange(0, BLOCK_P)
        mask = (parts[:, None] < n_parts) & (cols[None, :] < N)
        offs = parts[:, None] * N + cols[None, :]
        dw += tl.sum(tl.load(pdw_ptr + offs, mask=mask, other=0.0), axis=0)
        db += tl.sum(tl.load(pdb_ptr + offs, mask=mask, other=0.0), axis=0)
    tl.store(dw_ptr + cols, dw, mask=cols < N)
    tl.store(db_ptr + cols, db, mask=cols < N)


def run(dy, x, w, mean, rstd):
    M, N = x.shape
    ROWS = 4
    BLOCK_N = triton.next_power_of_2(N)
    n_parts = triton.cdiv(M, ROWS)
    dx = torch.empty_like(x)
    pdw = torch.empty((n_parts, N), device=x.device, dtype=torch.float32)
    pdb = torch.empty((n_parts, N), device=x.device, dtype=torch.float32)
    _ln_bwd_dx[(n_parts,)](dy, x, w, mean, rstd, dx, pdw, pdb, M, N, ROWS=ROWS, BLOCK_N=BLOCK_N, num_warps=4)
    dw = torch.empty(N, device=x.device, dtype=torch.float32)
    db = torch.empty(N, device=x.device, dtype=torch.float32)
    BLOCK_COL = 32
    _ln_bwd_dwdb[(triton.cdiv(N, BLOCK_COL),)](pdw, pdb, dw, db, n_parts, N, BLOCK_P=16, BLOCK_COL=BLOCK_COL)
    return torch.cat([dx.flatten(), dw, db])
