"""review22's seen items (late31, 2026-12-07): each case's one rule, proved in process on the CPU."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path


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
