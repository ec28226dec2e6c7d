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


# ------------------------------------------------------------------------------------- compiled for sm_90, no GPU


@pytest.mark.timeout(300)
def test_host_code_reading_the_autotuner_s_pick_runs_on_in_a_compile_for_a_target(tmp_path: Path) -> None:
    """Seen on 2026-12-06: mamba_state_bwd, Mamba-2's state passing, sums the backward's per-block partials over
    ``cdiv(dim, _state_passing_bwd_kernel.best_config.kwargs["BLOCK_SIZE"])`` after the launch. Compiled for sm_90
    without a GPU (``compile_for_target``, which compiles every config instead of timing them), the folder reported
    no launch at all, only "AttributeError: 'Autotuner' object has no attribute 'best_config'". The compile sets
    the pick Triton's timing would (the first config it kept): both kernels compile, the host code runs on."""
    import re

    from kernelopt.harness.target_compile import compile_for_target
    from tests.conftest import skip_without

    skip_without("triton.backends.nvidia.compiler", reason="Triton without its NVIDIA backend")
    folder = _copy("mamba_state_bwd", tmp_path)
    # one config a list and one size: two compiles (the rule is the same for six)
    kernel = folder / "kernel.py"
    kernel.write_text(
        re.sub(r'\n\s+triton\.Config\(\{"BLOCK_SIZE": (128|256|512|1024|2048)\}\),', "", kernel.read_text())
    )
    ref = folder / "reference.py"
    ref.write_text(re.sub(r"^SHAPES = .*$", 'SHAPES = [{"B": 1, "C": 2, "H": 1, "D": 3}]', ref.read_text(), flags=re.M))
    (report,) = compile_for_target([folder], "sm_90")
    assert report.problem is None, report.problem
    assert (
        sorted(launch.kernel for launch in report.launches)
        == [
            "_state_passing_bwd_kernel",
            "_state_passing_fwd_kernel",
        ]
        and not report.failed
    )
