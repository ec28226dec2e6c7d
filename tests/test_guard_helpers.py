"""A block followed into the ``@triton.jit`` helpers a kernel calls (variants v8, issue 32): whether an access
leaves a block unchecked is read at every load and store the kernel reaches, its own and its helpers' (their
parameters replaced by the call's arguments, helpers calling helpers), and a block one access checks and another
does not is unchecked. A helper imported from another module, its body not in the file, is read as leaving
unchecked every block it is given a range of. Pure text: each case is the guard's answer to one edit."""

from __future__ import annotations

from pathlib import Path

import pytest

from kernelopt.tunables.guard import guard_edit

VARIANTS = Path(__file__).parent / "data" / "variants"

TRANSPOSE = """import torch
import triton
import triton.language as tl
{imports}
{helpers}

@triton.jit
def transpose_kernel(
    x_ptr, y_ptr, M, N, stride_xm, stride_xn, stride_ym, stride_yn, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr
):
    pid_m = tl.program_id(axis=0)
    pid_n = tl.program_id(axis=1)
    offs_m = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_n = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
{body}


def run(x):
    M, N = x.shape
    assert N % 16 == 0
    y = torch.empty((N, M), device=x.device, dtype=x.dtype)
    grid = lambda meta: (triton.cdiv(M, meta["BLOCK_M"]), triton.cdiv(N, meta["BLOCK_N"]))  # noqa: E731
    transpose_kernel[grid](
        x, y, M, N, x.stride(0), x.stride(1), y.stride(0), y.stride(1), BLOCK_M=16, BLOCK_N=16, num_warps=8
    )
    return y
"""

FULL_LOAD = (
    "    mask = (offs_m[:, None] < M) & (offs_n[None, :] < N)\n"
    "    tile = tl.load(x_ptr + offs_m[:, None] * stride_xm + offs_n[None, :] * stride_xn, mask=mask)\n"
)
FULL_STORE = (
    "    tl.store(y_ptr + offs_n[None, :] * stride_ym + offs_m[:, None] * stride_yn, tile,\n"
    "             mask=(offs_m[:, None] < M) & (offs_n[None, :] < N))\n"
)
STORE_MASKED_BY = """@triton.jit
def _store_masked(ptr, vals, m):
    tl.store(ptr, vals, mask=m)
"""
OUT_PTRS = "    out = y_ptr + offs_n[None, :] * stride_ym + offs_m[:, None] * stride_yn\n"

CASES = {
    # name: (helpers, kernel body, BLOCK_N=32 guarded?)
    "a mask computed into a variable, passed to a helper that stores under it, checking the rows only": (
        STORE_MASKED_BY,
        FULL_LOAD + OUT_PTRS + "    rows = offs_m[:, None] < M\n    _store_masked(out, tile, rows)\n",
        True,
    ),
    "the same helper given the mask of both axes": (
        STORE_MASKED_BY,
        FULL_LOAD + OUT_PTRS + "    _store_masked(out, tile, mask)\n",
        False,
    ),
    "a helper calling a helper, the inner one storing under the rows only": (
        STORE_MASKED_BY
        + """

@triton.jit
def _store_rows(y_ptr, offs_m, offs_n, s_m, s_n, tile, M):
    rows = offs_m[:, None] < M
    _store_masked(y_ptr + offs_n[None, :] * s_m + offs_m[:, None] * s_n, tile, rows)
""",
        FULL_LOAD + "    _store_rows(y_ptr, offs_m, offs_n, stride_ym, stride_yn, tile, M)\n",
        True,
    ),
    "a helper building its own mask of both axes from its parameters": (
        """@triton.jit
def _store_tile(y_ptr, offs_m, offs_n, s_m, s_n, tile, M, N):
    inside = (offs_m[:, None] < M) & (offs_n[None, :] < N)
    tl.store(y_ptr + offs_n[None, :] * s_m + offs_m[:, None] * s_n, tile, mask=inside)
""",
        FULL_LOAD + "    _store_tile(y_ptr, offs_m, offs_n, stride_ym, stride_yn, tile, M, N)\n",
        False,
    ),
    "a helper load checking the rows only (by keyword arguments), the kernel's store both axes": (
        """@triton.jit
def _load_rows(base, rows, cols, s_r, s_c, R):
    return tl.load(base + rows[:, None] * s_r + cols[None, :] * s_c, mask=rows[:, None] < R, other=0.0)
""",
        "    tile = _load_rows(x_ptr, cols=offs_n, rows=offs_m, s_r=stride_xm, s_c=stride_xn, R=M)\n" + FULL_STORE,
        True,
    ),
    "a helper that shifts the index it is given (rebinding its parameter) before a store checking the rows": (
        """@triton.jit
def _store_shifted(ptr, offs_m, offs_n, s_m, s_n, tile, M):
    offs_n = offs_n + 0
    tl.store(ptr + offs_n[None, :] * s_m + offs_m[:, None] * s_n, tile, mask=offs_m[:, None] < M)
""",
        FULL_LOAD + "    _store_shifted(y_ptr, offs_m, offs_n, stride_ym, stride_yn, tile, M)\n",
        True,
    ),
    "a helper given a range of its own block, masking it": (
        """@triton.jit
def _store_span(y_ptr, start_n, offs_m, s_m, s_n, tile, M, N, WIDTH: tl.constexpr):
    cols = start_n + tl.arange(0, WIDTH)
    inside = (offs_m[:, None] < M) & (cols[None, :] < N)
    tl.store(y_ptr + cols[None, :] * s_m + offs_m[:, None] * s_n, tile, mask=inside)
""",
        FULL_LOAD
        + "    _store_span(y_ptr, pid_n * BLOCK_N, offs_m, stride_ym, stride_yn, tile, M, N, WIDTH=BLOCK_N)\n",
        False,
    ),
    "a helper given a range of its own block, masking the rows only": (
        """@triton.jit
def _store_span(y_ptr, start_n, offs_m, s_m, s_n, tile, M, WIDTH: tl.constexpr):
    cols = start_n + tl.arange(0, WIDTH)
    tl.store(y_ptr + cols[None, :] * s_m + offs_m[:, None] * s_n, tile, mask=offs_m[:, None] < M)
""",
        FULL_LOAD + "    _store_span(y_ptr, pid_n * BLOCK_N, offs_m, stride_ym, stride_yn, tile, M, WIDTH=BLOCK_N)\n",
        True,
    ),
}


def _kernel(helpers: str, body: str, imports: str = "") -> str:
    return TRANSPOSE.format(imports=imports, helpers="\n" + helpers + "\n" if helpers else "", body=body.rstrip("\n"))


@pytest.mark.parametrize("case", list(CASES))
@pytest.mark.timeout(30)
def test_a_column_tile_is_read_through_the_helpers_its_accesses_sit_in(case: str) -> None:
    """Each form a user factors an access into a helper: ``BLOCK_N`` 16 -> 32 is guarded, ``if N % 32 == 0:``,
    exactly where some access the kernel reaches leaves the columns unchecked (the grid is ``triton.cdiv(N,
    BLOCK_N)`` programs), and written plainly where every access checks them."""
    helpers, body, guarded = CASES[case]
    source = _kernel(helpers, body)
    compile(source, "kernel.py", "exec")
    got = guard_edit(source, source.replace("BLOCK_N=16, num_warps", "BLOCK_N=32, num_warps"))
    assert got.new_source is not None, got.note
    assert ("    if N % 32 == 0:  # kernelopt: tuned\n" in got.new_source) is guarded, (case, got.new_source)
    if guarded:
        assert got.note is not None and "leave BLOCK_N unchecked" in got.note, got.note
    else:
        assert "BLOCK_N=32, num_warps" in got.new_source and got.note is None


@pytest.mark.timeout(30)
def test_the_rows_every_access_checks_move_freely_through_helpers() -> None:
    """Beside the cases above: the rows, checked by every access the kernel reaches (a nested helper's too), move
    wider plainly."""
    helpers, body, _ = CASES["a helper calling a helper, the inner one storing under the rows only"]
    source = _kernel(helpers, body)
    rows = guard_edit(source, source.replace("BLOCK_M=16, BLOCK_N", "BLOCK_M=64, BLOCK_N"))
    assert rows.new_source is not None and "if M %" not in rows.new_source and "BLOCK_M=64, BLOCK_N" in rows.new_source


@pytest.mark.timeout(30)
def test_a_helper_imported_from_another_module_leaves_the_blocks_it_is_given_unchecked() -> None:
    """``from tile_ops import store_tile``: its body is not in the file, so nothing says it checks the columns it is
    given: ``BLOCK_N`` moved wider is guarded (a tuned value only where it divides N), the rows it is given too;
    a function of triton's own (``tl.where``, ``libdevice``) is no such helper."""
    body = FULL_LOAD + "    store_tile(y_ptr, offs_m, offs_n, stride_ym, stride_yn, tile, M, N)\n"
    source = _kernel("", body, imports="from tile_ops import store_tile\n")
    got = guard_edit(source, source.replace("BLOCK_N=16, num_warps", "BLOCK_N=32, num_warps"))
    assert got.new_source is not None and "    if N % 32 == 0:  # kernelopt: tuned\n" in got.new_source
    library = _kernel("", FULL_LOAD + FULL_STORE.replace("tile,\n", "tl.where(mask, tile, 0.0),\n"))
    assert "tl.where(mask" in library
    plain = guard_edit(library, library.replace("BLOCK_N=16, num_warps", "BLOCK_N=32, num_warps"))
    assert plain.note is None and plain.new_source is not None and "BLOCK_N=32, num_warps" in plain.new_source


GEMM_HELPER = """@triton.jit
def _load_rows(ptr, rows, cols, s_r, s_c, R):
    return tl.load(ptr + rows[:, None] * s_r + cols[None, :] * s_c, mask=rows[:, None] < R, other=0.0)


@triton.jit
def matmul_kernel"""


@pytest.mark.timeout(30)
def test_a_k_loop_whose_loads_sit_in_a_helper_checking_rows_keeps_its_step_a_divisor() -> None:
    """mm_evenk (v1) with its two K-loop loads in one helper that checks the rows it is given (A's rows, B's K rows
    transposed away: B is read through its columns as rows): the loop ``range(0, K, BLOCK_K)`` steps over loads
    leaving ``BLOCK_K`` unchecked inside the loop's body, read through the helper: ``if K % 32 == 0``."""
    source = (VARIANTS / "mm_evenk" / "kernel.py").read_text()
    helped = (
        source.replace("@triton.jit\ndef matmul_kernel", GEMM_HELPER)
        .replace(
            "a = tl.load(a_ptr + rm[:, None] * stride_am + (k + rk)[None, :] * stride_ak, mask=rm[:, None] < M, "
            "other=0.0)",
            "a = _load_rows(a_ptr, rm, k + rk, stride_am, stride_ak, M)",
        )
        .replace(
            "b = tl.load(b_ptr + (k + rk)[:, None] * stride_bk + rn[None, :] * stride_bn, mask=rn[None, :] < N, "
            "other=0.0)",
            "b = tl.trans(_load_rows(b_ptr, rn, k + rk, stride_bn, stride_bk, N))",
        )
    )
    assert helped.count("_load_rows(") == 3
    got = guard_edit(helped, helped.replace("BLOCK_K=16, num_warps", "BLOCK_K=32, num_warps"))
    assert got.new_source is not None and "    if K % 32 == 0:  # kernelopt: tuned\n" in got.new_source
    assert got.note is not None and "unchecked" in got.note
    wider_n = guard_edit(helped, helped.replace("BLOCK_N=16, BLOCK_K", "BLOCK_N=64, BLOCK_K"))
    assert wider_n.new_source is not None and "if N %" not in wider_n.new_source  # B's columns are its rows, checked


@pytest.mark.timeout(30)
def test_a_one_block_row_handed_to_an_imported_helper_moves_only_wider() -> None:
    """softmax_helper_rows (v14) with its helpers imported from another module (``from rowops import _load_row,
    _store_row``): their comparisons are not in the file, so a block given to them that nothing steps by may be the
    row they cover, its length unknown: ``BLOCK_SIZE=128`` is not written (one line), 2048 is (it covers more)."""
    source = (VARIANTS / "softmax_helper_rows" / "kernel.py").read_text()
    start, end = source.index("@triton.jit\ndef _load_row"), source.index("@triton.jit\ndef softmax_kernel")
    imported = (
        source[:start].replace(
            "import triton.language as tl\n", "import triton.language as tl\nfrom rowops import _load_row, _store_row\n"
        )
        + source[end:]
    )
    assert "def _load_row" not in imported
    narrower = guard_edit(imported, imported.replace("BLOCK_SIZE=1024, num_warps", "BLOCK_SIZE=128, num_warps"))
    assert narrower.new_source is None and narrower.note is not None
    assert "_load_row() is given a range of BLOCK_SIZE" in narrower.note and "not written" in narrower.note
    wider = guard_edit(imported, imported.replace("BLOCK_SIZE=1024, num_warps", "BLOCK_SIZE=2048, num_warps"))
    assert wider.note is None and wider.new_source is not None and "BLOCK_SIZE=2048, num_warps" in wider.new_source
