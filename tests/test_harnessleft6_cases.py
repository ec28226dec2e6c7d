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
    shutil.copy(folder / kernel, folder / "kernel.py")
    shutil.copy(folder / reference, folder / "reference.py")
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
