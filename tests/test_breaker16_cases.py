"""The sixteenth new user's trial of ``kernelopt tunables`` / ``tune`` / ``validate`` / ``optimize`` / ``batch``,
held out (issue 32: "kernels, shapes and clients we have never seen are the test"). Each folder of
tests/data/breaker16 is a public Triton kernel written for the trial in a form the first fifteen trials did not try
(its README lists them). What tuning writes is judged as a user would: the written kernel against the reference at
every ``SHAPES`` entry and at sizes not in ``SHAPES`` that the original handled, its inputs and its ``torch.empty``
outputs in the middle of NaN (tests/test_variants_cases.py's rule), loaded afresh in this process with Triton's
interpreter."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pytest

from kernelopt.tunables import discover_source
from tests.test_breaker7_cases import _all_correct
from tests.test_breaker_cases import _tune_edit

DATA = Path(__file__).parent / "data" / "breaker16"


def _copy(name: str, tmp_path: Path) -> Path:
    return Path(shutil.copytree(DATA / name, tmp_path / name))


def _tunables(name: str) -> dict[str, Any]:
    return {t.key: t for t in discover_source((DATA / name / "kernel.py").read_text())}


# ------------------------------------------------------------------------------------- knobs refused


@pytest.mark.timeout(120)
def test_a_tile_the_kernel_body_binds_and_its_programs_step_by_is_not_a_knob(tmp_path: Path) -> None:
    """Seen on 2026-12-06: inductor_tem_mm, Inductor's generated mm template, binds its tiles in its body
    (``BLOCK_M : tl.constexpr = 64``) and launches on ``mm_grid(s0, s1, meta0)``, the wrapper's own copy of them.
    ``tune`` searched ``BLOCK_M`` / ``BLOCK_N`` in the body: the grid kept ``cdiv(M, 64) * cdiv(N, 64)`` programs, so
    a smaller tile left tiles undone ("output not written" on one entry) and a pair like 32 x 128 is right at some
    sizes and wrong at others (a wrong kernel the checks of the entries may miss). Such a tile is held with its
    reason; ``BLOCK_K`` (a loop's step) and ``GROUP_M`` (an order of the programs) stay knobs, and a written
    ``BLOCK_K`` is right at sizes no entry names."""
    found = _tunables("inductor_tem_mm")
    for name in ("BLOCK_M", "BLOCK_N"):
        why = found[f"triton_tem_fused_mm_0:{name}"].refused_reason
        assert why is not None and "programs step through the data by it" in why, why
    assert found["triton_tem_fused_mm_0:BLOCK_K"].editable and found["triton_tem_fused_mm_0:GROUP_M"].editable
    written, note = _tune_edit(_copy("inductor_tem_mm", tmp_path), {"BLOCK_K": 64, "GROUP_M": 4})
    assert written is not None and "BLOCK_K: tl.constexpr = 64" in written, note
    _all_correct(tmp_path / "inductor_tem_mm", [{"M": 65, "N": 129, "K": 70}, {"M": 1, "N": 3, "K": 1}])
    # Inductor's persistent reduction (breaker13): its body-bound RBLOCK covers a row, no program steps by it
    per = {t.key: t for t in discover_source((DATA.parent / "breaker13" / "inductor_per" / "kernel.py").read_text())}
    assert any(k.endswith(":RBLOCK") and t.editable for k, t in per.items()), sorted(per)
