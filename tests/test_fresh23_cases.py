"""fresh23: this session's landings broken as a fresh user would (docs/faults.md, "Fresh eyes on the twenty-second
session"). Each test is a case, on the CPU, in process."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import torch

from kernelopt.harness.compare import check_outputs


def _said(out: torch.Tensor, ref: torch.Tensor, inputs: list[torch.Tensor]) -> str | None:
    """The gate's comparison of an index output with the reference's, given the call's inputs: its message."""
    return check_outputs(out, ref, ref, inputs=inputs).message


def test_f10_an_index_output_passes_only_where_it_selects_right_under_every_reading_of_the_reference() -> None:
    """f10: l30 judged a kernel's indices under the first (input, dimension) the reference's indices order, and a
    WRONG kernel passed. An argmax over the rows of a square input whose maximum repeats (on the diagonal and once
    more in row 0): the reference's indices also order its columns, dim 0 came first, and an argmax whose row 1
    picks a 0 passed as a column's. A sort of keys passed beside a buffer of zeros (input 0): any indices in range
    order a constant, and an unsorted identity passed. Now each reading must hold; the right kernels still pass."""
    x = torch.zeros(6, 6)
    x.fill_diagonal_(5.0)
    x[0, 1] = 5.0
    ref = torch.argmax(x, dim=1)
    wrong = ref.clone()
    wrong[1] = 0  # x[1, 0] is 0, row 1's maximum 5 is at 1
    said = _said(wrong, ref, [x])
    assert said is not None and "selects other values than the reference's indices from input 0 along dim 1" in said
    assert _said(ref.clone(), ref, [x]) is None
    other_tie = ref.clone()
    other_tie[0] = 1  # right as a row's argmax, wrong as a column's: strict, as index equality was, and said why
    said = _said(other_tie, ref, [x])
    assert (
        said is not None and "order input 0 along dim 0 and input 0 along dim 1 alike: each reading is judged" in said
    )

    keys = torch.randn(64, generator=torch.Generator().manual_seed(0))
    ref = torch.sort(keys).indices
    said = _said(torch.arange(64), ref, [torch.zeros(64), keys])
    assert said is not None and "from input 1 along dim 0" in said
    tied = torch.tensor([3.0, 1.0, 3.0, 2.0, 1.0, 3.0])  # a sort ordering equal keys otherwise still passes
    ref = torch.sort(tied, stable=True).indices
    assert _said(torch.tensor([4, 1, 3, 5, 2, 0]), ref, [torch.zeros(6), tied]) is None


def test_f12_status_counts_no_version_in_flight_as_recorded(
    add_workspace: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    """f12: `optimize` killed (SIGKILL to its group) in V1's gate stage, then `kernelopt status WS`: "versions: 2
    recorded; best V0" beside "run: interrupted (V1 at its gate stage)": V1's Stage 3 record, written at its implement
    stage and uncommitted until its record stage, was counted as a version recorded. The version in flight is not."""
    from kernelopt.cli.app import main
    from kernelopt.loop.journal import IterationState, Journal, RunState
    from kernelopt.memory.model import CorrectnessStatus, IterationRecord
    from kernelopt.stagenames import Stage

    ws = add_workspace
    draft = IterationRecord(version="v1")
    draft.correctness.status = CorrectnessStatus.PASS
    ws.memory.write(draft)
    state = RunState(current=IterationState(version=1, stage=Stage.GATE, base_commit=ws.head(), good_version=0))
    Journal(ws.state_dir).save(state)
    assert main(["status", str(ws.root)]) == 0
    out = capsys.readouterr().out
    assert "run: interrupted (V1 at its gate stage)" in out and "versions:" not in out, out


CONFIG_BESIDE = """
import json
from pathlib import Path

import torch
import triton
import triton.language as tl


@triton.jit
def _scale(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(y_ptr + offs, tl.load(x_ptr + offs, mask=offs < n) * 2, mask=offs < n)


class ModelNew(torch.nn.Module):
    def forward(self, x):
        y, n = torch.empty_like(x), x.numel()
        config = json.loads((Path(__file__).parent / "config.json").read_text())
        _scale[(triton.cdiv(n, config["BLOCK"]),)](x, y, n, BLOCK=config["BLOCK"], num_warps=4)
        return y
"""


def test_f13_tunables_says_tune_refuses_a_kernel_reading_a_file_beside_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """f13: `kernelopt tunables` of a kernel.py reading its settings from a config.json beside it listed them as knobs
    ("tuned where it is computed"), and `kernelopt tune` of the same folder then refused the file in one line ("reads
    config.json ... from its own folder"): the listing never said so. It says it, in the refusal's own words."""
    from kernelopt.cli.app import main

    (tmp_path / "kernel.py").write_text(CONFIG_BESIDE)
    (tmp_path / "config.json").write_text('{"BLOCK": 256}')
    assert main(["tunables", str(tmp_path / "kernel.py"), "--no-evaluate"]) == 0
    err = capsys.readouterr().err
    # tune carries the JSON into each candidate's folder since configs23's c30; a workspace still refuses it
    said = "optimize refuses this file as it stands (tune carries the data it reads beside it)"
    assert said in err and "reads config.json (line 19)" in err, err
