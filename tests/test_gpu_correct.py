"""The GPU tests' one loop (:mod:`tests.gpu_correct`) run on the CPU in Triton's interpreter: what it says of a
correct kernel, of a wrong one and of one that raises is what the GPU tests assert on (leftovers10 folded four
near-copies of it into that module; each file's judgement of an output stays its own)."""

from __future__ import annotations

from pathlib import Path

import pytest

import tests.gpu_correct as gpu_correct
from tests.conftest import triton_interpreted
from tests.test_variants_cases import _close_padded, _padded

DATA = Path(__file__).parent / "data" / "variants"


@pytest.mark.timeout(120)
def test_the_gpu_tests_loop_tells_a_correct_kernel_a_wrong_one_and_one_that_raises(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(gpu_correct, "DEVICE", "cpu")
    folder = DATA / "transpose_rowmask"
    plain = tmp_path / "plain.py"  # wrong where a row is shorter than 20: its last column NaN (read past the end)
    plain.write_text(
        "def run(x):\n    y = x.t().contiguous()\n    if x.shape[1] < 20:\n        y[-1] = float('nan')\n    return y\n"
    )
    raising = tmp_path / "raising.py"
    raising.write_text("def run(*args):\n    raise ValueError('no kernel here')\n")
    shapes = [{"M": 20, "N": 32}, {"M": 7, "N": 16}]
    with triton_interpreted():
        good = gpu_correct.correct_on_device(folder, shapes, _close_padded, prepare=_padded)
        wrong = gpu_correct.correct_on_device(folder, shapes, _close_padded, kernel_py=plain, prepare=_padded)
        error = gpu_correct.correct_on_device(folder, shapes[:1], _close_padded, kernel_py=raising)
    assert good == {"M=20,N=32": True, "M=7,N=16": True}
    assert wrong == {"M=20,N=32": True, "M=7,N=16": False}
    assert error == {"M=20,N=32": "ValueError: no kernel here"}
    with pytest.raises(AssertionError, match="M=7,N=16"), triton_interpreted():
        gpu_correct.assert_correct(folder, shapes, _close_padded, kernel_py=plain, prepare=_padded)
