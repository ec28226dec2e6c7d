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
    is past the floor widens nothing now; ``torch.softmax`` still passes."""
    from tests.conftest import check_in_process

    folder = Path(shutil.copytree(DATA / "review21" / "fp16_naive_softmax", tmp_path / "a"))
    right = check_in_process(folder, "v1")
    assert right.failure is None, right.failure
    kernel = folder / "kernel.py"
    kernel.write_text(kernel.read_text().replace("dim=-1).to(s.dtype)", "dim=-1).mul(1.1).to(s.dtype)"))
    failure = check_in_process(folder, "v1").failure
    assert failure is not None and "differs from the reference beyond tolerance" in failure.message, failure
