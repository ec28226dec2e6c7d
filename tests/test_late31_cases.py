"""review22's seen items (late31, 2026-12-07): each case's one rule, proved in process on the CPU."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest

DATA = Path(__file__).parent / "data"


def test_z90_a_kernel_py_saved_during_the_run_is_not_called_as_left_nor_given_a_cp(tmp_path: Path) -> None:
    """n127's last line said DIR/kernel.py "is as you left it" and gave `cp BEST MINE` from its bytes differing from
    the best's alone: a save of the user's during the run was called as they left it, and the cp replaced it. Now the
    bytes the run started from are read: a save is named and only the diff is given; an untouched file keeps n127's
    line."""
    from kernelopt.cli.optimize import take_back
    from kernelopt.loop.summary import LoopSummary

    folder, ws = tmp_path / "my dir", tmp_path / "kernel_opt_k"
    folder.mkdir()
    ws.mkdir()
    (ws / "kernel.py").write_text("BLOCK = 4096\n")
    (folder / "kernel.py").write_text("BLOCK = 128  # my save during the run\n")
    values: dict[str, object] = {name: None for name in LoopSummary.model_fields}
    values.update(workspace=str(ws), best_version="v2")
    summary = LoopSummary.model_construct(**values)  # type: ignore[arg-type]
    line = take_back(folder, summary, b"BLOCK = 128\n")
    assert line is not None and "saved during the run" in line and "as you left it" not in line, line
    commands = re.findall(r"`([^`]+)`", line)
    assert [c.split()[0] for c in commands] == ["diff"], line  # never a cp that loses the save
    diff = subprocess.run(commands[0], shell=True, capture_output=True, text=True, check=False)
    assert diff.returncode == 1 and "-BLOCK = 128  # my save during the run" in diff.stdout
    assert (folder / "kernel.py").read_text() == "BLOCK = 128  # my save during the run\n"
    untouched = take_back(folder, summary, (folder / "kernel.py").read_bytes())
    assert untouched is not None and "as you left it" in untouched and "`cp " in untouched


_ROWS = """import torch
import triton
import triton.language as tl


@triton.jit
def double_rows(x_ptr, y_ptr, M, N, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    rows = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
    cols = tl.arange(0, BLOCK_N)
    mask = (rows[:, None] < M) & (cols[None, :] < N)
    offs = rows[:, None] * N + cols[None, :]
    tl.store(y_ptr + offs, tl.load(x_ptr + offs, mask=mask) * 2.0, mask=mask)


def run(x):
    y = torch.empty_like(x)
    M, N = x.shape
    BLOCK_M = 1
    BLOCK_N = triton.next_power_of_2(N)
    double_rows[(triton.cdiv(M, BLOCK_M),)](x, y, M, N, BLOCK_M=BLOCK_M, BLOCK_N=BLOCK_N)
    return y
"""


def test_z91_tunables_set_refuses_an_edit_tune_refuses_and_writes_nothing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """tune writes a pick only where the guard gives a text for it (``guard_edit``); `tunables --set` wrote any edit
    and said the guard's refusal as a warning, "written as asked". A row kernel whose ``BLOCK_N`` is
    ``next_power_of_2(N)`` (up to 2^20 where the original's one row a program runs): ``--set BLOCK_M=16`` wrote tiles
    of 16 x 2^20 values, past Triton's limit at sizes the original handles (exit 0). Now --set (and --dry-run) refuse
    it in one line by the guard's own refusal, the file as it was; review22's l22 form (a grid bound apart reading
    cfg[0]) is refused too; a setting the guard passes is still written."""
    from kernelopt.cli.app import main
    from kernelopt.tunables.edit import apply_source
    from kernelopt.tunables.guard import guard_edit, unproven_edit

    kernel = tmp_path / "kernel.py"
    kernel.write_text(_ROWS)
    edited = apply_source(_ROWS, {"BLOCK_M": 16}).new_source
    assert guard_edit(_ROWS, edited).new_source is None  # tune's pick: not written
    argv = ["tunables", str(kernel), "--no-evaluate", "--set"]
    for extra in ([], ["--dry-run"]):
        assert main([*argv, "BLOCK_M=16", *extra]) == 2
        err = capsys.readouterr().err.strip()
        assert len(err.splitlines()) == 1 and "holds at most 1048576 values in Triton" in err, err
        assert err.count("not written") == 1 and unproven_edit(_ROWS, edited) in err
        assert kernel.read_text() == _ROWS
    assert main([*argv, "num_warps=8"]) == 0  # no tile moves: written
    assert "num_warps=8" in kernel.read_text() and "warning" not in capsys.readouterr().err

    source = (DATA / "leftovers22" / "cfg_index" / "kernel.py").read_text()  # review22's seen l22 form
    launch = "    scale_kernel[(triton.cdiv(n, cfg[0]),)]("
    assert launch in source
    source = source.replace(launch, "    grid = (triton.cdiv(n, cfg[0]),)\n    scale_kernel[grid](")
    kernel.write_text(source)
    assert main([*argv, "BLOCK=512"]) == 2 and kernel.read_text() == source
    assert "the grid of BLOCK reads cfg[0]" in capsys.readouterr().err
