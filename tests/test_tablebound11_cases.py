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
    literal as 1, its bound taken out when it moves. wrongkernel24: the row ``if Lq <= 48:`` / ``BLOCK_M = 16`` over the
    helper's 32 to 128 launches ``triton.cdiv(max_len_extend, 16)`` programs on the grid's third axis, past 65535
    from an extend of 1048577 tokens, which the helper's tiles launch: refused (its test bounds no extend); the rest of
    the pick, ``BLOCK_N=64, num_stages=6``, is written as before. refusals23 (u31): the whole pick is written, each of
    its rows ``if Lq <= 48 and max_len_extend <= 16 * 65535:``, so a longer extend runs the original whole."""
    from kernelopt.tunables import discover_source
    from kernelopt.tunables.edit import apply_source
    from kernelopt.tunables.guard import guard_edit

    folder = Path(shutil.copytree(DATA / "breaker10" / "extend_attn", tmp_path / "extend_attn"))
    original = (folder / "kernel.py").read_text()
    whole, why = _tune_edit(folder, {"BLOCK_M": 16, "BLOCK_N": 64, "num_stages": 6})
    assert whole is not None and "BLOCK_M=16 only where max_len_extend <= 16 * 65535 (the grid's axis 2" in (why or "")
    bounded = "    if Lq <= 48 and max_len_extend <= 16 * 65535:  # kernelopt: tuned\n"
    assert f"{bounded}        BLOCK_M = 16\n        BLOCK_N = 64\n" in whole, whole
    assert f"    num_stages = 1\n{bounded}        num_stages = 6\n" in whole, whole
    written, note = _tune_edit(folder, {"BLOCK_N": 64, "num_stages": 6})
    assert written is not None, note
    assert "    if Lq <= 48:  # kernelopt: tuned\n        BLOCK_N = 64\n\n" in written
    assert "    num_stages = 1\n    if Lq <= 48:  # kernelopt: tuned\n        num_stages = 6\n" in written
    assert "num_stages=6 only where Lq <= 48, the original values elsewhere" in (note or "")
    (folder / "kernel.py").write_text(written)
    (tmp_path / "original.py").write_text(original)
    small = {"B": 1, "H": 2, "G": 1, "P": 6, "E": 20}
    shapes = [{**small, "D": 65}, {**small, "D": 32}]
    above, below = _launch_settings(folder / "kernel.py", folder / "reference.py", shapes)
    was_above, was_below = _launch_settings(tmp_path / "original.py", folder / "reference.py", shapes)
    assert above == was_above and above["num_stages"] == 1 and above["BLOCK_DMODEL"] == 128, above
    assert below == {**was_below, "BLOCK_N": 64, "num_stages": 6}, (below, was_below)
    _all_correct(folder, shapes)
    knobs = {t.key: t for t in discover_source(written)}
    assert knobs["_fwd_kernel:num_stages"].value == 1, knobs["_fwd_kernel:num_stages"]
    moved = apply_source(written, {"_fwd_kernel:num_stages": 2}).new_source
    retuned = guard_edit(written, moved).new_source
    assert retuned is not None and "    num_stages = 2\n\n" in retuned and "num_stages = 6" not in retuned


def _rows_folder(tmp_path: Path, name: str, text: str) -> Path:
    """A folder of breaker10's two-size softmax (``BLOCK_M`` computed from ``M``, tabled over it) in the form
    ``text`` gives it."""
    from tests.test_breaker10_cases import TWO_SIZES_REFERENCE

    folder = tmp_path / name
    folder.mkdir()
    (folder / "kernel.py").write_text(text)
    (folder / "reference.py").write_text(TWO_SIZES_REFERENCE)
    return folder


@pytest.mark.timeout(120)
def test_a_launch_literal_moved_beside_a_table_gets_a_line_of_its_own_under_the_table_s_bound(tmp_path: Path) -> None:
    """A ``num_warps=4`` literal at the launch beside a ``BLOCK_M`` computed from ``M`` (a pick of ``BLOCK_M=16,
    num_warps=2``, the SHAPES up to 100 rows) was written ``num_warps=2`` for every size, the original ``BLOCK_M`` with
    two warps above 100 rows, never timed. Now the literal gets a line of its own before the launch and the table's
    bound (``num_warps = 4`` / ``if M <= 100:  # kernelopt: tuned`` / ``num_warps = 2``), read back as the literal 4;
    correct at 300 rows, above the bound."""
    from kernelopt.tunables import discover_source
    from tests.test_breaker10_cases import TWO_SIZES

    text = TWO_SIZES.replace("BLOCK_N=BLOCK_N)", "BLOCK_N=BLOCK_N, num_warps=4)")
    folder = _rows_folder(tmp_path, "rows", text)
    written, note = _tune_edit(folder, {"BLOCK_M": 16, "num_warps": 2})
    assert written is not None, note
    assert (
        "    num_warps = 4\n    if M <= 100:  # kernelopt: tuned\n        num_warps = 2\n    _softmax_rows[" in written
    )
    assert "BLOCK_N=BLOCK_N, num_warps=num_warps)" in written and "num_warps=2 only where M <= 100" in (note or "")
    assert {t.key: t.value for t in discover_source(written)}["_softmax_rows:num_warps"] == 4
    (folder / "kernel.py").write_text(written)
    _all_correct(folder, [{"M": 300, "N": 60}, {"M": 20, "N": 100}])
    # an option the launch leaves to Triton whose default every backend shares (four warps): inserted the same way
    inserted, note = _tune_edit(_rows_folder(tmp_path, "inserted", TWO_SIZES), {"BLOCK_M": 16, "num_warps": 8})
    assert (
        inserted is not None
        and "    num_warps = 4\n    if M <= 100:  # kernelopt: tuned\n        num_warps = 8\n" in (inserted)
    ), note
    assert "BLOCK_N=BLOCK_N, num_warps=num_warps)" in inserted


@pytest.mark.timeout(120)
def test_a_literal_no_bound_can_hold_writes_the_table_alone_only_where_the_session_timed_it(tmp_path: Path) -> None:
    """Where the moved literal cannot be set under the table's bound, the mixed form is not written: a module
    constant (``NUM_WARPS = 4``, no size in scope) writes the table alone, the constant at its 4, when the session
    timed those tiles with four warps, and nothing, one line, when it did not; an option the launch does not pass
    (``num_stages``: Triton's default, 3 on NVIDIA and 2 on AMD, no one value to fall back on) writes nothing."""
    from tests.test_breaker10_cases import TWO_SIZES

    constant = TWO_SIZES.replace("BLOCK_N=BLOCK_N)", "BLOCK_N=BLOCK_N, num_warps=NUM_WARPS)")
    constant = constant.replace("\n\n@triton.jit", "\nNUM_WARPS = 4\n\n\n@triton.jit", 1)
    folder = _rows_folder(tmp_path, "constant", constant)
    written, note = _tune_edit(folder, {"BLOCK_M": 16, "NUM_WARPS": 2})
    assert written is None and "NUM_WARPS=2 cannot be set under M <= 100 (it is set outside a launching function)" in (
        note or ""
    ), note
    assert (note or "").endswith(": not written")
    written, note = _tune_edit(folder, {"BLOCK_M": 16, "NUM_WARPS": 2}, also=[{"BLOCK_M": 16, "NUM_WARPS": 4}])
    assert written is not None and "the table written alone, NUM_WARPS=4 as the original has them" in (note or "")
    assert "    if M <= 100:  # kernelopt: tuned\n        BLOCK_M = 16\n" in written and "NUM_WARPS = 4\n" in written
    written, note = _tune_edit(_rows_folder(tmp_path, "inserted", TWO_SIZES), {"BLOCK_M": 16, "num_stages": 2})
    assert written is None and "num_stages is not passed at the launch" in (note or ""), note


def test_a_launch_literal_whose_name_the_function_uses_is_bounded_inline() -> None:
    """Where the launching function already uses the option's name, the literal is bounded at the launch
    (``num_warps=8 if n <= 64 else 4``); a re-tune moving the literal takes the bound out."""
    from kernelopt.tunables.guard import bound_moves

    old = (
        "def run(x, n):\n    num_warps = 2\n    if n <= 64:  # kernelopt: tuned\n        BLOCK = 32\n"
        "    k[(1,)](x, n, BLOCK=BLOCK, num_warps=4)\n    return num_warps\n"
    )
    bounded = bound_moves(old, old.replace("num_warps=4", "num_warps=8"), "n <= 64")
    assert bounded.new_source == old.replace("num_warps=4", "num_warps=8 if n <= 64 else 4"), bounded
    assert bound_moves(old, old.replace("num_warps=4", "num_warps=8"), "m <= 64").note == (
        "num_warps=8 cannot be set under m <= 64 (m is not known where it is set)"
    )


def test_an_assigned_literal_is_bounded_on_the_guard_s_lines() -> None:
    """The bound writes an assignment as the guard does (one writer, guard._set_under): the original kept, the
    pick under the bound on the lines after it."""
    from kernelopt.tunables.guard import bound_moves

    old = "def run(x, n):\n    stages = 2\n    k[(1,)](x, n, num_stages=stages)\n"
    bounded = bound_moves(old, old.replace("stages = 2", "stages = 5"), "n <= 64")
    assert bounded.new_source == old.replace(
        "    stages = 2\n", "    stages = 2\n    if n <= 64:  # kernelopt: tuned\n        stages = 5\n"
    ), bounded
    assert bounded.note == "stages=5 only where n <= 64, the original values elsewhere"


@pytest.mark.timeout(120)
def test_a_literal_moved_beside_a_guarded_tile_falls_back_with_it(tmp_path: Path) -> None:
    """A guarded tile beside a moved ``num_warps`` mixed the same way: guard_forms/and_mask's pick ``BLOCK=512,
    num_warps=8`` (a one-block softmax, the original 1024) was written ``if n_cols <= 512: BLOCK = 512`` with
    ``num_warps=8`` for every size: rows of 513 to 1024 columns ran the original block with eight warps, never timed.
    Now the moved literal is set under the guard's own condition, and a re-tune reads it as the original 4; correct at
    800 columns, where the guard fails."""
    from kernelopt.tunables import discover_source

    folder = Path(shutil.copytree(DATA / "guard_forms" / "and_mask", tmp_path / "and_mask"))
    written, note = _tune_edit(folder, {"BLOCK": 512, "num_warps": 8})
    assert written is not None, note
    assert "    if n_cols <= 512:  # kernelopt: tuned\n        BLOCK = 512\n" in written
    assert "    num_warps = 4\n    if n_cols <= 512:  # kernelopt: tuned\n        num_warps = 8\n" in written
    assert "num_warps=8 only where n_cols <= 512, the original values elsewhere" in (note or ""), note
    assert {t.name: t.value for t in discover_source(written)}["num_warps"] == 4
    (folder / "kernel.py").write_text(written)
    _all_correct(folder, [{"rows": 3, "cols": 800}, {"rows": 2, "cols": 300}])


def test_an_absent_num_stages_is_bounded_only_where_the_session_s_gpu_tells_its_default() -> None:
    """``num_stages`` left to Triton is 3 on NVIDIA (CUDAOptions) and 2 on AMD (HIPOptions): a session on an H100
    bounds the inserted option with 3 as the original's value there; with no NVIDIA GPU named, no one value stands for
    it, and nothing is written."""
    from kernelopt.tunables.guard import bound_moves, option_defaults

    old = "def run(x, n):\n    k[(1,)](x, n, BLOCK=64)\n"
    new = old.replace("BLOCK=64)", "BLOCK=64, num_stages=4)")
    assert bound_moves(old, new, "n <= 64", option_defaults("H100")).new_source == (
        "def run(x, n):\n    num_stages = 3\n    if n <= 64:  # kernelopt: tuned\n        num_stages = 4\n"
        "    k[(1,)](x, n, BLOCK=64, num_stages=num_stages)\n"
    )
    refused = bound_moves(old, new, "n <= 64", option_defaults(None))
    assert refused.new_source is None and "num_stages is not passed at the launch" in (refused.note or "")
