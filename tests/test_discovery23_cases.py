"""discovery23's cases (docs/faults.md, "Discovery and agents, twenty-third round (discovery23, 2026-12-07)"): knob
discovery for the patterns people write (a lone kernel file, AITER's ``**config`` read from JSON, a compile cache)
and the agent path's last two items. Each on the CPU, in process where it can be."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

DATA = Path(__file__).parent / "data"


def test_d30_a_lone_kernel_py_lists_no_entry_as_the_launch_s_and_says_what_a_run_needs(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A lone kernel.py (no reference.py beside it) of Megatron's GEMM, whose ``**configs[dtype]`` entries differ in
    ``BLOCK_SIZE_K``: the listing gave the first entry's 64 at its line (kernel.py:185) where the task runs float32's
    32. Without a run no entry is the launch's: the value is unset, the place the launch's, and one line says what a
    run needs (the task's reference.py); the settings every entry shares are listed as before."""
    from kernelopt.cli.app import main

    lone = tmp_path / "kernel.py"
    shutil.copyfile(DATA / "breaker22" / "mg_bi_matmul" / "kernel.py", lone)
    assert main(["tunables", str(lone), "--json"]) == 0
    out, err = capsys.readouterr()
    listed = {t["key"]: t for t in json.loads(out)}
    block_k = listed["matmul_kernel_persistent:BLOCK_SIZE_K"]
    assert (block_k["value"], block_k["location"]) == (None, "kernel.py:207"), block_k
    assert "torch.float32: 32" in block_k["refused_reason"] and "run of the task" in block_k["value_source"]
    assert listed["matmul_kernel_persistent:BLOCK_SIZE_M"]["value"] == 128  # every entry's 128: moved together
    assert (
        "matmul_kernel_persistent:BLOCK_SIZE_N, matmul_kernel_persistent:BLOCK_SIZE_K: only a run of the task tells "
        "their values at the launch, and no reference.py lies beside kernel.py to run it: give --reference" in err
    ), err
    assert main(["tunables", str(lone), "--no-evaluate"]) == 0
    assert "--no-evaluate runs nothing: drop it" in capsys.readouterr().err
