"""late22: verdicts at the edges of fp16 (docs/faults.md, "Verdicts at the edges of fp16"): CPU, in process."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

DATA = Path(__file__).parent / "data"


# ------------------------------------------------- z12: an overflow's trace widens no tolerance


@pytest.mark.timeout(60)
def test_z12_a_kernel_10_percent_off_fails_beside_a_reference_whose_fp16_sum_overflowed(tmp_path: Path) -> None:
    """A reference computing ``exp(s) / exp(s).sum()`` in fp16 gives 0 across each row whose sum overflowed (a
    quotient by inf); read as its own rounding, those zeros widened the tolerance x918 (rtol 1.79), and a kernel
    returning 1.1 x the softmax passed (review21's seen item, main at 28d0964c). An own-run 0 where the float64 value
    is past the floor widens nothing now; ``torch.softmax`` still passes, and so does the reference's own code, its 0
    there one answer (as its NaN is, review21 r18)."""
    from tests.conftest import check_in_process

    folder = Path(shutil.copytree(DATA / "review21" / "fp16_naive_softmax", tmp_path / "a"))
    right = check_in_process(folder, "v1")
    assert right.failure is None, right.failure
    kernel = folder / "kernel.py"
    kernel.write_text(kernel.read_text().replace("dim=-1).to(s.dtype)", "dim=-1).mul(1.1).to(s.dtype)"))
    failure = check_in_process(folder, "v1").failure
    assert failure is not None and "differs from the reference beyond tolerance" in failure.message, failure
    # the reference's own code as the kernel: its zeros there are the reference's answer reproduced (one of two)
    kernel.write_text((folder / "reference.py").read_text().replace("class Model(", "class ModelNew("))
    same = check_in_process(folder, "v1")
    assert same.failure is None, same.failure


# ------------------------------------------------- z13: tune's setup reads bf16's largest value as the gate does


def test_z13_tune_s_setup_takes_a_bf16_reference_at_its_largest_value_as_the_gate_does(tmp_path: Path) -> None:
    """review21's r17 gave the gate's check the reference's float64 run to tell bf16's largest value (bytes 0x7F7F,
    ``torch.nan_to_num`` of a division by zero) from the poison pattern; ``tune``'s setup read the own run only and
    refused the same reference, "holds 256 of 4096 elements it never wrote" (main at 1b5c6c40). It makes the float64
    run where the own run's line names a bf16 output now, and gives the one rule it: built; a bf16 reference leaving
    half its output unwritten is still refused."""
    import torch

    from kernelopt.harness.inputs import ReferenceNotWritten
    from kernelopt.tuning.checks import LoadedProblem
    from kernelopt.tuning.problem import Problem, ProblemShape
    from tests.test_review21_cases import _BF16, _HALF, _SATURATED

    for name, body in (("saturated", _SATURATED), ("half", _HALF)):
        folder = tmp_path / name
        folder.mkdir()
        (folder / "reference.py").write_text(_BF16.format(cls="Model", body=body))
        (folder / "kernel.py").write_text(_BF16.format(cls="ModelNew", body=_SATURATED))
        loaded = LoadedProblem.load(
            Problem(reference_py=folder / "reference.py", kernel_py=folder / "kernel.py"), "cpu"
        )
        if body is _SATURATED:
            loaded.build(ProblemShape(kwargs={}))
            assert int(loaded.expected.eq(torch.finfo(torch.bfloat16).max).sum()) == 256  # the largest value, kept
        else:
            with pytest.raises(ReferenceNotWritten, match="holds 2048 of 4096 elements"):
                loaded.build(ProblemShape(kwargs={}))


# ------------------------------------------------- z14: near 65520 either answer of the reference's overflow passes

_EDGE = """import torch
from torch import nn


class {cls}(nn.Module):
    def forward(self, x):
{body}


def get_inputs():
    x = torch.full((8, 4), 8.0, dtype=torch.float16)
    x[:4, :2] = 32752  # these rows sum to 65520 exactly: inf in fp16 (its tie rounds to even, past 65504)
    return [x]


def get_init_inputs():
    return []
"""
_SUM = "        return x.sum(dim=1)"
_HALF_ACC = """        acc = torch.zeros(x.shape[0], dtype=x.dtype)
        for j in range(x.shape[1]):  # accumulated in fp16, as a kernel with a half accumulator: 65504 + 8 is 65504
            acc = acc + x[:, j]
        return acc"""


@pytest.mark.timeout(60)
def test_z14_a_kernel_within_tolerance_below_65520_passes_where_the_reference_overflowed(tmp_path: Path) -> None:
    """b47 wrote the reference's own infinity over its float64 value wherever that value rounds to it in fp16: a
    kernel giving 65504 for a float64 65520 (an fp16 accumulator, 0.02 % short, rtol 0.2 %) failed "output is finite
    where the reference is NaN or Inf (4 of 8 elements ...)" (main at 9ae46f0f). Either answer passes there now, as
    r18 made it for the own run's NaN: the infinity reproduced (a float32 sum rounded once), or the float64 value
    within tolerance."""
    from tests.conftest import check_in_process

    for name, body in (("half_acc", _HALF_ACC), ("exact", "        return x.float().sum(dim=1).half()")):
        folder = tmp_path / name
        folder.mkdir()
        (folder / "reference.py").write_text(_EDGE.format(cls="Model", body=_SUM))
        (folder / "kernel.py").write_text(_EDGE.format(cls="ModelNew", body=body))
        result = check_in_process(folder, "v1")
        assert result.failure is None, (name, result.failure)
