"""Tuning keeps kernel.py as general as it was (issue 32 item 2), for a pattern the first round missed: a value
computed inline at the launch (the other, a cap inside a settings helper, is tests/test_knob_helper_caps.py). The
corpus kernel is tuned end to end on the CPU (Triton's interpreter, tiny sizes) by ``kernelopt tune`` (``optimize``'s
Stage 3 is the same session and edit, :mod:`kernelopt.backends.launch_tuning`), and the kernel written is checked
against its reference at both ``SHAPES`` entries and at sizes no entry names (:func:`correct_at`)."""

from __future__ import annotations

import json
import shutil
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest

from .conftest import load_fresh, triton_interpreted
from .steady_timing import programs, steady_timing

DATA = Path(__file__).parent / "data" / "tunables"


def task(tmp_path: Path, name: str) -> Path:
    folder = tmp_path / name
    folder.mkdir()
    shutil.copyfile(DATA / "corpus" / f"{name}.py", folder / "kernel.py")
    shutil.copyfile(DATA / "tasks" / name / "reference.py", folder / "reference.py")
    return folder


def correct_at(folder: Path, sizes: list[tuple[int, int]]) -> dict[str, bool]:
    """The kernel of ``folder`` as written against its reference at ``sizes`` (rows x cols -> correct?), in
    Triton's interpreter with kernelopt's fixes to it (a loop over a runtime length works on this numpy)."""
    import torch

    out = {}
    with triton_interpreted():
        ref, ker = load_fresh(folder / "reference.py", "_knob_ref"), load_fresh(folder / "kernel.py", "_knob_ker")
        for rows, cols in sizes:
            torch.manual_seed(0)
            inputs = ref.get_inputs(rows=rows, cols=cols)
            got = ker.run(*inputs)
            out[f"{rows}x{cols}"] = bool(torch.allclose(got, ref.reference(*inputs), atol=1e-4, rtol=1e-4))
    return out


def row_programs(config: Mapping[str, Any], entry: Mapping[str, Any]) -> float:
    """A row kernel's candidate as the interpreter's time follows it (``steady_timing``): a program per BLOCK_M
    rows, the smaller tile faster at a tie; a computed value is the corpus kernels' (``1 if n_cols > 256 else 2``,
    the row's power of two)."""
    rows, cols = entry["rows"], entry["cols"]
    m, n = config.get("BLOCK_M", "computed"), config.get("BLOCK_N", "computed")
    m = m if isinstance(m, int) else 1 if cols > 256 else 2
    n = n if isinstance(n, int) else 1 << (cols - 1).bit_length()
    return programs(-(-rows // m)) + m * n / 1000


@pytest.fixture(autouse=True)
def _interpreter(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TRITON_INTERPRET", "1")


# -- a value computed inline at the launch ----------------------------------------------------------

INLINE = "row_sumsq_inline_launch"
# SHAPES: 32 rows of 100 and of 300 columns; 700 and 1500 columns are sizes no entry names
INLINE_SIZES = [(32, 100), (32, 300), (5, 700), (3, 1500)]


def _kept_inline(text: str) -> None:
    """Both expressions of the launch are still computed (each once, on a line of its own or at the launch), and
    a moved one is passed through its variable with a table bounded by the sizes checked."""
    assert text.count("1 if n_cols > 256 else 2") == 1 and text.count("triton.next_power_of_2(n_cols)") == 1, text
    if "BLOCK_M=BLOCK_M" in text:
        assert "    BLOCK_M = 1 if n_cols > 256 else 2\n    if n_cols <= " in text, text
    assert "BLOCK_M=" in text and "BLOCK_N=" in text
    for line in text.splitlines():  # a tuned row never reaches past the largest SHAPES entry (300 columns)
        if "<= " in line and "# kernelopt: tuned" in line:
            assert int(line.split("<= ")[1].split(":")[0]) <= 300, line


@pytest.mark.timeout(240)
def test_tune_keeps_a_value_computed_at_the_launch_computed(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """``BLOCK_M=1 if n_cols > 256 else 2`` at the launch was overridden there with a literal, wrong or slow at
    sizes never timed: now its expression gets a line of its own and the pick is a table over ``n_cols`` that
    falls back on it. Two rows per program on 32 rows is 16 interpreted programs; a larger tile is one, so the
    pick moves BLOCK_M (the block must cover the row, so BLOCK_N cannot shrink). The figures are those programs
    (:func:`row_programs`)."""
    from kernelopt.cli.app import main

    steady_timing(monkeypatch, row_programs)
    folder = task(tmp_path, INLINE)
    args = ["tune", str(folder), "--device", "cpu", "--budget", "4", "--repetitions", "1", "--json"]
    assert main(args) == 0, capsys.readouterr().err
    out = json.loads(capsys.readouterr().out)
    text = (folder / "kernel.py").read_text()
    assert out["written"] and "BLOCK_M=BLOCK_M" in text, out
    assert "tuned in a table over n_cols up to 300" in (out["edit_note"] or ""), out
    _kept_inline(text)
    assert all(correct_at(folder, INLINE_SIZES).values())


@pytest.mark.timeout(120)
def test_a_value_computed_from_no_size_a_shapes_entry_names_is_left_alone(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Both tiles computed from ``x.shape[1]``: no size name to bucket a table on, and a literal would be less
    general than the computation: one line naming both, exit 2, before any candidate runs; kernel.py as it was."""
    from kernelopt.cli.app import main

    folder = task(tmp_path, INLINE)
    text = (folder / "kernel.py").read_text()
    text = text.replace("BLOCK_N=triton.next_power_of_2(n_cols)", "BLOCK_N=triton.next_power_of_2(x.shape[1])")
    text = text.replace("BLOCK_M=1 if n_cols > 256 else 2", "BLOCK_M=1 if x.shape[1] > 256 else 2")
    (folder / "kernel.py").write_text(text)
    code = main(["tune", str(folder), "--device", "cpu", "--budget", "2", "--repetitions", "2"])
    err = [line for line in capsys.readouterr().err.splitlines() if "kernelopt: error" in line]
    assert code == 2 and len(err) == 1, err
    assert "row_sumsq_kernel:BLOCK_N (computed (triton.next_power_of_2(x.shape[1])) from x, which no SHAPES" in err[0]
    assert "row_sumsq_kernel:BLOCK_M (computed (1 if x.shape[1] > 256 else 2) from x" in err[0]
    assert (folder / "kernel.py").read_text() == text


@pytest.mark.gpu
@pytest.mark.timeout(600)
@pytest.mark.parametrize(
    ("name", "sizes", "computed"),
    [
        (INLINE, INLINE_SIZES, ["1 if n_cols > 256 else 2", "triton.next_power_of_2(n_cols)"]),
        ("row_sumsq_heuristics", INLINE_SIZES, ['1 if args["n_cols"] > 256 else 2', 'next_power_of_2(args["n_cols"])']),
        ("row_logsumexp_helper_cap", [(4, 300), (4, 1000), (3, 50), (2, 2500)], ["min(MAX_FUSED, "]),
    ],
)
def test_on_a_gpu_computed_values_stay_computed_and_correct(
    name: str, sizes: list[tuple[int, int]], computed: list[str], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """On a GPU (num_warps and num_stages timed too) tune writes each corpus kernel with its computations kept (a
    table after them, in the lambda, or a cap) and the text is correct at sizes no SHAPES entry names (checked in
    the interpreter: the source is the same)."""
    from kernelopt.cli.app import main

    folder = task(tmp_path, name)
    assert main(["tune", str(folder), "--device", "cuda", "--budget-wall-s", "60", "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert len(doc["shapes"]) == 2 and "num_warps" in doc["knobs"], doc
    text = (folder / "kernel.py").read_text()
    assert all(text.count(c) == 1 for c in computed), text
    assert all(correct_at(folder, sizes).values())
