"""fresh25's cases: a fresh clone taking issue 32's examples, written anew, through tunables, tune, optimize and
batch on the CPU (docs/faults.md, "A fresh clone, twenty-fifth round")."""

from __future__ import annotations

from pathlib import Path

import pytest

ROWSUM_OVERRIDE = """
import torch
import triton
import triton.language as tl


@triton.jit
def _rowsum(x_ptr, out_ptr, n_cols, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    acc = tl.zeros([BLOCK], dtype=tl.float32)
    for start in range(0, n_cols, BLOCK):
        offs = start + tl.arange(0, BLOCK)
        acc += tl.load(x_ptr + row * n_cols + offs, mask=offs < n_cols, other=0.0)
    tl.store(out_ptr + row, tl.sum(acc, axis=0))


def run(x):
    n_rows, n_cols = x.shape
    out = torch.empty(n_rows, device=x.device, dtype=torch.float32)
    BLOCK = 1024
    if n_cols <= 2048:  # TODO: tune on the target board
        BLOCK = triton.next_power_of_2(n_cols)
    _rowsum[(n_rows,)](x, out, n_cols, BLOCK=BLOCK)
    return out
"""

ROWSUM_REFERENCE = """
import torch

SHAPES = [{"rows": 4, "cols": 300}, {"rows": 2, "cols": 3000}]


def get_inputs(rows=4, cols=300, device="cpu"):
    return [torch.randn(rows, cols, device=device)]


def reference(x):
    return x.sum(dim=1)
"""


@pytest.mark.timeout(120)
def test_f30_an_entry_where_the_override_replaces_the_literal_is_checked_not_timed(tmp_path: Path) -> None:
    """``BLOCK = 1024`` then ``if n_cols <= 2048: BLOCK = next_power_of_2(n_cols)``: at 300 columns the launch gets
    512 whatever the literal, so every candidate is the kernel as written there. ``tune`` timed it anyway and ranked
    and reported that noise ("no slower beyond 2 % on any shape (least +26.6 % on rows=8,cols=300)" on an entry no
    candidate changed). The entry is now checked and not timed, and one line says why."""
    from kernelopt.tunables import discover
    from kernelopt.tuning.folder import TuneRequest, idle_line, prepare_folder

    folder = tmp_path / "rowsum_override"
    folder.mkdir()
    (folder / "kernel.py").write_text(ROWSUM_OVERRIDE)
    (folder / "reference.py").write_text(ROWSUM_REFERENCE)
    prepared = prepare_folder(TuneRequest(folder=folder, device="cpu"))
    assert [t.overridden for t in prepared.tunables if t.name == "BLOCK"] == [True]
    assert prepared.idle == ("rows=4,cols=300",)
    assert [s.label() for s in prepared.ran_shapes] == ["rows=2,cols=3000"]
    assert idle_line(prepared) == (
        "the literal BLOCK is overridden at rows=4,cols=300 (the launch got BLOCK=512 there; a SHAPES entry past "
        "the override's condition times it at another size): every candidate is checked there, and timed only where "
        "the launch runs with the literal in effect"
    )
    # an override that reads the literal (``min(BLOCK, ...)``) keeps it in effect where it holds: timed there
    reads = ROWSUM_OVERRIDE.replace("BLOCK = triton.next_power_of_2(n_cols)", "BLOCK = min(BLOCK, 4 * n_cols)")
    (folder / "kernel.py").write_text(reads)
    assert [t.overridden for t in discover(folder / "kernel.py") if t.name == "BLOCK"] == [False]


@pytest.mark.parametrize(
    ("kernel", "words"),
    [
        (
            "import triton\n",
            "runs it on the CPU (its Triton kernel in Triton's interpreter) in timing-only mode: "
            "`kernelopt optimize {folder} --device cpu --max-iters 1`",
        ),
        (
            'import torch\nfrom torch.utils.cpp_extension import load_inline\nSRC = "__global__ void k() {}"\n',
            "runs torch CPU tensors and Triton kernels (in Triton's interpreter) in timing-only mode (try "
            "`kernelopt optimize tests/data/loop --device cpu`)",
        ),
    ],
    ids=["triton", "cuda"],
)
def test_f31_the_no_gpu_line_names_the_user_s_own_cpu_command_where_it_runs(
    tmp_path: Path, kernel: str, words: str
) -> None:
    """README's main job, ``kernelopt optimize examples/softmax`` without a GPU, said "--device cpu runs kernels
    written for torch CPU tensors ... (try `kernelopt optimize tests/data/loop --device cpu`)": a Triton kernel
    was sent away to another folder, though README's own next lines run examples/softmax on the CPU. The line now
    gives the user's folder's command where its kernel runs on the CPU, the CPU example where it is GPU-only code."""
    from kernelopt.cli.optimize import _on_cpu_words

    (tmp_path / "kernel.py").write_text(kernel)
    assert _on_cpu_words(tmp_path) == words.format(folder=tmp_path)
