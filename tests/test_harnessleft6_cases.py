"""Batch and gate leftovers of the fifth session (harnessleft6): a dtype branch in a helper module the reference
imports, an in-place reference whose kernel leaves the input alone, claims on identical kernels, one input walk.

Each case is a kernel and a reference under tests/data/harnessleft6/, checked in a worker of its own on the CPU
(``check_files``), as the batch's gate checks them.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from kernelopt.harness.gate import check_files
from kernelopt.harness.model import CorrectnessReport
from kernelopt.harness.settings import HarnessSettings
from kernelopt.memory.model import CorrectnessStatus

pytestmark = pytest.mark.timeout(120)

DATA = Path(__file__).parent / "data" / "harnessleft6"


def _check(tmp_path: Path, case: str, kernel: str, reference: str, *, seeds: int = 1) -> CorrectnessReport:
    """Check ``kernel`` against ``reference`` of the case folder, copied with every helper file beside them."""
    folder = tmp_path / "problem"
    shutil.copytree(DATA / case, folder)
    for name, role in ((kernel, "kernel.py"), (reference, "reference.py")):
        if name != role:
            shutil.copy(folder / name, folder / role)
    settings = HarnessSettings(device="cpu", case_timeout_s=30.0, seeds=seeds)
    return check_files(folder / "kernel.py", folder / "reference.py", tmp_path / "state", settings=settings)


@pytest.mark.parametrize(
    ("reference", "said"),
    [("reference_helper.py", "rowsums.py line(s) 9, 10"), ("reference_package.py", "lib/clamps.py line(s) 8, 9")],
)
def test_a_dtype_branch_in_a_helper_module_the_reference_imports_does_not_widen_the_tolerance(
    tmp_path: Path, reference: str, said: str
) -> None:
    # Seen (stop 39, left): the trace read reference.py's lines only; the same branch moved into a helper module
    # (beside it, or in a package of its folder) took the float64 run down the other path unseen, and the
    # branch's difference widened the tolerance: the kernel without the clamp passed
    left_out = _check(tmp_path / "without", "helper_branch", "kernel_without.py", reference)
    assert left_out.status is CorrectnessStatus.FAIL, left_out.message
    assert "beyond tolerance" in (left_out.message or "") and "expected 30" in (left_out.message or "")
    assert [(c.reference_precision, c.tolerance.basis if c.tolerance else None) for c in left_out.cases] == [
        ("native", "default")
    ]
    assert any("another path in float64" in w and said in w for w in left_out.warnings), left_out.warnings
    followed = _check(tmp_path / "with", "helper_branch", "kernel_with.py", reference, seeds=2)
    assert followed.passed, followed.message


def test_own_code_is_the_reference_and_its_helpers_never_a_library(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import os
    import sys
    import sysconfig
    from types import SimpleNamespace

    import kernelopt
    from kernelopt.harness.branches import OwnCode

    # a library installed from a source checkout, outside every site folder: not the reference's either
    monkeypatch.setitem(sys.modules, "triton", SimpleNamespace(__file__="/src/triton/python/triton/__init__.py"))
    reference = str(tmp_path / "reference.py")
    own = OwnCode(reference)
    assert reference in own
    assert str(tmp_path / "rowsums.py") in own and str(tmp_path / "lib" / "clamps.py") in own
    assert "/home/u/project/src/mylib/norms.py" in own  # the user's code on the path, wherever it lives
    assert "/src/triton/python/triton/language/core.py" not in own
    assert os.__file__ not in own and kernelopt.__file__ not in own
    assert os.path.join(sysconfig.get_paths()["purelib"], "foo", "bar.py") not in own
    assert "/opt/venv/lib/python3.11/site-packages/einops/einops.py" not in own
    assert "<frozen importlib._bootstrap>" not in own and "<string>" not in own
    assert str(tmp_path / "rowsums.py") not in OwnCode(None)
    assert own.name(str(tmp_path / "lib" / "clamps.py")) == os.path.join("lib", "clamps.py")


@pytest.mark.parametrize(
    ("kernel", "error_class", "said"),
    [
        ("kernel_both.py", None, None),
        (
            "kernel_output_only.py",
            "InputNotWritten",
            "kernel left input 1 as it was, which the reference modifies in place besides returning its output",
        ),
        ("kernel_other_input.py", "InputMutated", "kernel modified input 0 in place (256 of 256 elements changed)"),
        ("kernel_wrong_update.py", "InputMutated", "but not to what the reference leaves in it"),
    ],
)
def test_an_input_the_reference_modifies_besides_its_output_is_checked(
    tmp_path: Path, kernel: str, error_class: str | None, said: str | None
) -> None:
    # Seen (stop 39, left): a reference that updates an input in place and returns an output had only its output
    # compared; a kernel returning the right output and leaving the input as it was passed, though the caller
    # keeps that input (a running average, a KV cache). Now the input is checked whenever the reference modifies
    # it, and the verdict names it
    report = _check(tmp_path, "inplace_output", kernel, "reference.py", seeds=2)
    if error_class is None:
        assert report.passed, report.message
        return
    assert report.status is CorrectnessStatus.FAIL, report.message
    assert report.error_class == error_class, report.message
    assert said is not None and said in (report.message or ""), report.message


INPUT_CASES = ["pure", "in_place", "wrong_in_place", "other_input"]


def _after(case: str, x: object, avg: object) -> None:
    """What each kind of kernel does to (x, avg), where the reference updates avg in place."""
    import torch

    assert isinstance(x, torch.Tensor) and isinstance(avg, torch.Tensor)
    if case == "in_place":
        avg.mul_(0.9).add_(x, alpha=0.1)
    elif case == "wrong_in_place":
        avg.mul_(0.5)
    elif case == "other_input":
        avg.mul_(0.9).add_(x, alpha=0.1)
        x.zero_()


def test_the_gate_and_the_tuning_checks_judge_inputs_by_one_rule() -> None:
    # one input walk (harness/inplace.input_fault) for the gate worker's copy and the bench worker's fingerprint:
    # the same input, the same kind, the same words (the copy also counts the elements)
    import torch

    from kernelopt.harness.inplace import InPlaceContract, InputCopy, InputFaultKind, InputPrints, input_fault

    torch.manual_seed(0)
    x0, avg0 = torch.rand(8, 32), torch.rand(8, 32)
    expected_avg = avg0 * 0.9 + x0 * 0.1
    contract = InPlaceContract({1: expected_avg}, returns_nothing=False)
    kinds = {}
    for case in INPUT_CASES:
        verdicts = []
        for snapshot_kind in (InputCopy, InputPrints):
            x, avg = x0.clone(), avg0.clone()
            before = snapshot_kind.of([x, avg])
            _after(case, x, avg)
            verdicts.append(input_fault(before, [x, avg], contract, dtype_hint=None, atol=None, rtol=None))
        copy, prints = verdicts
        assert (copy is None) == (prints is None), case
        if copy is not None and prints is not None:
            assert (copy.index, copy.kind) == (prints.index, prints.kind), case
            assert prints.message == copy.message.replace(" (256 of 256 elements changed)", ""), case
        kinds[case] = None if copy is None else (copy.index, copy.kind)
    assert kinds == {
        "pure": (1, InputFaultKind.NOT_WRITTEN),
        "in_place": None,
        "wrong_in_place": (1, InputFaultKind.MUTATED),
        "other_input": (0, InputFaultKind.MUTATED),
    }
    # after a timing (many calls) an input the reference modifies may hold anything; the others may not
    x, avg = x0.clone(), avg0.clone()
    before = InputPrints.of([x, avg])
    avg.mul_(0.5)
    assert input_fault(before, [x, avg], contract, dtype_hint=None, atol=None, rtol=None, after_timing=True) is None
    x.zero_()
    late = input_fault(before, [x, avg], contract, dtype_hint=None, atol=None, rtol=None, after_timing=True)
    assert late is not None and (late.index, late.kind) == (0, InputFaultKind.MUTATED)
    # a reference that modifies nothing: every input must be left alone, none must be written
    assert input_fault(InputCopy.of([x0]), [x0], InPlaceContract(), dtype_hint=None, atol=None, rtol=None) is None
