"""A table's bound bounds every setting the pick moved (tablebound11). A pick is measured as one joint configuration:
where a written form falls back on the original computation (a table bounded by the sizes checked), every setting
the pick moved falls back with it, never a mix of the pick's literals and the original's computed tiles, which no
session timed or checked."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import load_fresh, triton_interpreted
from tests.test_breaker7_cases import _all_correct
from tests.test_breaker_cases import _tune_edit

DATA = Path(__file__).parent / "data"
LAUNCH_SETTINGS = ("BLOCK_DMODEL", "BLOCK_M", "BLOCK_N", "num_warps", "num_stages")


def _launch_settings(kernel_py: Path, reference_py: Path, shapes: list[dict[str, int]]) -> list[dict[str, Any]]:
    """The settings each shape's launch of ``_fwd_kernel`` is given by ``kernel_py`` (Triton's interpreter)."""
    seen: list[dict[str, Any]] = []
    with triton_interpreted():
        ref = load_fresh(reference_py, "_tablebound11_ref")
        ker = load_fresh(kernel_py, "_tablebound11_ker")
        jitted = ker._fwd_kernel

        class Spy:
            def __getitem__(self, grid: object) -> Any:
                def launch(*args: Any, **kwargs: Any) -> Any:
                    seen.append({k: kwargs[k] for k in LAUNCH_SETTINGS})
                    return jitted[grid](*args, **kwargs)

                return launch

        ker._fwd_kernel = Spy()
        for shape in shapes:
            ker.run(*ref.get_inputs(**shape))
    return seen


@pytest.mark.timeout(300)
def test_extend_attn_s_six_stages_fall_back_with_its_table_above_the_sizes_checked(tmp_path: Path) -> None:
    """Seen on an H100 on 2026-12-06 (docs/gpu-runs/2026-12-06-h100-c): ``tune --device cuda`` of breaker10's
    extend_attn picked ``BLOCK_M=16, BLOCK_N=64, num_stages=6``. The tiles are computed from the head dimension ``Lq``
    by a settings helper, so they went into a table over ``Lq`` up to 48 (the sizes checked), the original
    computation above it; ``num_stages = 1`` is a literal and was written ``num_stages = 6`` for every size. At D=65
    the kernel ran the helper's tiles (BLOCK_DMODEL 128) with six stages, never timed: 458752 B of shared memory of
    232448, it failed where the original ran (the net caught it, nothing was written). Now the literal is set under
    the table's bound, ``num_stages = 1`` / ``if Lq <= 48:  # kernelopt: tuned`` / ``num_stages = 6``: at D=65 the
    launch gets every one of the original's settings, at D=32 every one of the pick's, and a re-tune reads the
    literal as 1, its bound taken out when it moves."""
    from kernelopt.tunables import discover_source
    from kernelopt.tunables.edit import apply_source
    from kernelopt.tunables.guard import guard_edit

    folder = Path(shutil.copytree(DATA / "breaker10" / "extend_attn", tmp_path / "extend_attn"))
    original = (folder / "kernel.py").read_text()
    written, note = _tune_edit(folder, {"BLOCK_M": 16, "BLOCK_N": 64, "num_stages": 6})
    assert written is not None, note
    assert "    if Lq <= 48:  # kernelopt: tuned\n        BLOCK_M = 16\n        BLOCK_N = 64\n" in written
    assert "    num_stages = 1\n    if Lq <= 48:  # kernelopt: tuned\n        num_stages = 6\n" in written
    assert "num_stages=6 only where Lq <= 48, the original values above it" in (note or "")
    (folder / "kernel.py").write_text(written)
    (tmp_path / "original.py").write_text(original)
    small = {"B": 1, "H": 2, "G": 1, "P": 6, "E": 20}
    shapes = [{**small, "D": 65}, {**small, "D": 32}]
    above, below = _launch_settings(folder / "kernel.py", folder / "reference.py", shapes)
    was_above, was_below = _launch_settings(tmp_path / "original.py", folder / "reference.py", shapes)
    assert above == was_above and above["num_stages"] == 1 and above["BLOCK_DMODEL"] == 128, above
    assert below == {**was_below, "BLOCK_M": 16, "BLOCK_N": 64, "num_stages": 6}, (below, was_below)
    _all_correct(folder, shapes)
    knobs = {t.key: t for t in discover_source(written)}
    assert knobs["_fwd_kernel:num_stages"].value == 1, knobs["_fwd_kernel:num_stages"]
    moved = apply_source(written, {"_fwd_kernel:num_stages": 2}).new_source
    retuned = guard_edit(written, moved).new_source
    assert retuned is not None and "    num_stages = 2\n\n" in retuned and "num_stages = 6" not in retuned
