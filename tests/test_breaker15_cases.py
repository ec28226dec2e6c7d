"""The fifteenth new user's trial of ``kernelopt tunables`` / ``tune`` / ``validate`` / ``optimize`` / ``batch``,
held out (issue 32: "kernels, shapes and clients we have never seen are the test"). Each folder of
tests/data/breaker15 is a public Triton kernel written for the trial in a form the first fourteen trials did not try
(its README lists them). What tuning writes is judged as a user would: the written kernel against the reference at
every ``SHAPES`` entry and at sizes not in ``SHAPES`` that the original handled, its inputs and its ``torch.empty``
outputs in the middle of NaN (tests/test_variants_cases.py's rule), loaded afresh in this process with Triton's
interpreter."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from tests.test_breaker7_cases import _all_correct

DATA = Path(__file__).parent / "data" / "breaker15"


def _copy(name: str, tmp_path: Path) -> Path:
    return Path(shutil.copytree(DATA / name, tmp_path / name))


def _source(name: str) -> str:
    return (DATA / name / "kernel.py").read_text()


# ------------------------------------------------------------------------------------- V0 on the CPU


@pytest.mark.timeout(60)
def test_python_s_and_of_two_block_masks_is_elementwise_in_the_interpreter(tmp_path: Path) -> None:
    """Seen on 2026-12-06: gems_cumsum, FlagGems' cumsum, joins its masks with Python's ``and`` (``mask =
    m_offset[:, None, None] < M and n_offset[None, :, None] < N``), which a GPU compile makes an elementwise
    ``logical_and``. Triton's interpreter ran Python's ``and``: a block is always true there, so the mask was the
    column mask alone, the rows past M were stored past the output, and ``validate --device cpu`` of the correct
    original died with the heap ("corrupted double-linked list", the worker aborted). ``and`` / ``or`` / ``not`` of
    blocks are rewritten as the compiler reads them; the kernel is right at its entries' forms and at M = 1."""
    _all_correct(DATA / "gems_cumsum", [{"A": 3, "N": 9, "K": 2}, {"A": 1, "N": 5, "K": 1}])
    # the rule's other forms, in one small kernel: ``or`` and ``not`` of blocks, a constexpr's short circuit before a
    # load that would fault, and scalars keeping Python's values
    kernel = DATA.parent / "interp_bool_ops"
    _all_correct(kernel, [{"N": 37}, {"N": 5}])
