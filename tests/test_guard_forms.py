"""The guard's forms (issue 32 item 2, docs/faults.md "The guard's forms"): the same kernel written the many ways
public projects write it, each a folder of tests/data/guard_forms (its README lists them). For each form: what
``kernelopt tune`` writes when its session picks a block the SHAPES entries allow (the engine's own shaped edit,
on the CPU), and whether the written kernel is correct at the SHAPES entries, between them and above them, sizes
the original handled (Triton's interpreter, in this process). A lower block of a kernel that covers its row with
one block is guarded by the row it covers, or not written with one line saying why: never written bare. A block
that loops over the row moves plainly. An inline guard (``BLOCK=256 if n % 256 == 0 else 128``), written by a
user or by an earlier tune, is read as its fallback tuned where the guard holds, so a retune moves it."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from kernelopt.tunables import apply_source, discover_source
from kernelopt.tunables.guard import guard_edit, strip_stale_guards
from tests.test_breaker_cases import _correct_at, _tune_edit

DATA = Path(__file__).parent / "data" / "guard_forms"
TUNED = "# kernelopt: tuned"

# the larger SHAPES entry (of 100 and 300 columns; tune checks its write at each), one between, one above: the
# original (BLOCK 1024) handles all three
ROWS = [{"rows": 2, "cols": 300}, {"rows": 2, "cols": 200}, {"rows": 2, "cols": 800}]
LOOPED_ROWS = [*ROWS[:2], {"rows": 2, "cols": 1000}]
# SHAPES (n of 512 and 2048), and sizes between and above that a block of 128 divides
WHOLE = [{"n": 512}, {"n": 2048}, {"n": 384}, {"n": 640}, {"n": 768}, {"n": 1536}, {"n": 4096}]


def _copy(form: str, tmp_path: Path) -> Path:
    return Path(shutil.copytree(DATA / form, tmp_path / form))


def _all_correct(folder: Path, shapes: list[dict[str, int]]) -> None:
    got = _correct_at((folder, shapes))
    assert got == dict.fromkeys(got, True), got


def _one_line(note: str | None) -> str:
    assert note is not None and "\n" not in note.strip(), note
    return note


def _xfail(*values: str, why: str) -> object:
    return pytest.param(*values, marks=pytest.mark.xfail(strict=True, reason=why))


# ------------------------------------------------------------------------------- one block covers the row


@pytest.mark.timeout(120)
@pytest.mark.parametrize(
    ("form", "knob", "size"),
    [
        ("tutorial_mask", "BLOCK_SIZE", "n_cols"),
        ("inline_mask", "BLOCK", "n_cols"),
        ("neg_inf_other", "BLOCK_SIZE", "n_cols"),
        ("where_mask", "BLOCK", "n_cols"),
        ("and_mask", "BLOCK", "n_cols"),
        ("positional_name", "BLOCK_SIZE", "n_cols"),
        ("offs_intermediate", "BLOCK", "n_cols"),
        ("arange_2d", "BLOCK_N", "N"),
        ("reversed_compare", "BLOCK", "n_cols"),
    ],
)
def test_a_one_block_kernel_s_lower_block_is_guarded_by_the_row_it_covers(
    form: str, knob: str, size: str, tmp_path: Path
) -> None:
    """A session picks 512 (it covers both SHAPES entries); the original's 1024 handled rows up to 1024 columns,
    so 512 is written under ``if <size> <= 512`` (inline or on a line of its own), correct at 800 columns."""
    folder = _copy(form, tmp_path)
    written, note = _tune_edit(folder, {knob: 512})
    assert written is not None, note
    guarded = f"if {size} <= 512:  {TUNED}" in written or f"{knob}=512 if {size} <= 512 else 1024" in written
    assert guarded, written
    assert "covers" in _one_line(note)
    (folder / "kernel.py").write_text(written)
    _all_correct(folder, ROWS)


@pytest.mark.timeout(120)
@pytest.mark.parametrize(
    ("form", "pick", "reach", "fallback"),
    [
        ("derived_half", 1024, "1024 // 2", 2048),  # HALF: tl.constexpr = BLOCK // 2
        ("derived_double", 256, "256 * 2", 512),  # BLOCK_H: tl.constexpr = BLOCK * 2
    ],
)
def test_a_one_block_kernel_s_derived_range_is_guarded_by_what_it_covers(
    form: str, pick: int, reach: str, fallback: int, tmp_path: Path
) -> None:
    """``HALF: tl.constexpr = BLOCK // 2`` (or ``BLOCK * 2``) before ``tl.arange(0, HALF)``: the range, not the
    block, covers the row. It was not read as one block, and a lower block was written bare: ``BLOCK = 1024`` over
    ``BLOCK // 2`` covers 512 columns, wrong at 800 where the original 2048 covered 1024. The pick is guarded by
    what its range covers, written with the pick in sight (``n_cols <= 1024 // 2``: tuneleft6, so that the guard
    reads as one by its form once its comment is gone), the original elsewhere, correct at the larger entry,
    between, above."""
    folder = _copy(form, tmp_path)
    written, note = _tune_edit(folder, {"BLOCK": pick})
    assert written is not None, note
    assert f"    BLOCK = {fallback}\n    if n_cols <= {reach}:  {TUNED}\n        BLOCK = {pick}\n" in written, written
    assert "with a range of BLOCK" in _one_line(note), note
    (folder / "kernel.py").write_text(written)
    _all_correct(folder, ROWS)
    # a pick whose range still covers every row the original handled moves plainly
    higher, note = _tune_edit(_copy(form, tmp_path / "higher"), {"BLOCK": fallback * 2})
    assert higher is not None and f"    BLOCK = {fallback * 2}\n" in higher and TUNED not in higher, note


DERIVED = """import triton
import triton.language as tl


@triton.jit
def k(x_ptr, n_cols, FLAG: tl.constexpr, BLOCK: tl.constexpr):
{body}
    tl.store(x_ptr + cols, tl.load(x_ptr + cols, mask=cols < n_cols), mask=cols < n_cols)
"""


@pytest.mark.timeout(60)
@pytest.mark.parametrize(
    ("body", "scale"),
    [
        ("    cols = tl.arange(0, BLOCK // 2)", (1, 2)),  # inline
        ("    cols = tl.arange(0, BLOCK >> 1)", (1, 2)),
        ("    W: tl.constexpr = 2 * BLOCK\n    cols = tl.arange(0, W)", (2, 1)),
        (
            "    H: tl.constexpr = BLOCK // 2\n    Q: tl.constexpr = H // 2\n    cols = tl.arange(0, Q)",
            (1, 4),
        ),  # chained
        ("    cols = tl.arange(0, BLOCK)", (1, 1)),
        # assigned in two branches: the smaller scale, so a guard holds in both
        ("    if FLAG:\n        H = BLOCK // 2\n    else:\n        H = BLOCK // 4\n    cols = tl.arange(0, H)", (1, 4)),
        # computed from the block in a form not read: one block all the same, its scale unknown
        ("    H: tl.constexpr = tl.cdiv(BLOCK, 3)\n    cols = tl.arange(0, H)", "unread"),
        # the derived range steps with a program id: any block covers any size
        ("    H: tl.constexpr = BLOCK // 2\n    cols = tl.program_id(0) * H + tl.arange(0, H)", None),
        ("    cols = tl.arange(0, 64)", None),
    ],
)
def test_a_range_derived_from_the_block_is_read_with_its_scale(body: str, scale: tuple[int, int] | str | None) -> None:
    """``kernelopt.tunables.blocks.one_block`` reads the range's length through ``*``, ``//``, ``<<``, ``>>`` an
    integer, inline or through locals, and keeps the scale the guard tests the size with; a length computed from
    the block in another form is still one block, of unknown scale (no move of it is known to cover the row)."""
    import libcst as cst

    from kernelopt.tunables.blocks import one_block

    kernel = cst.ensure_type(cst.parse_module(DERIVED.format(body=body)).body[-1], cst.FunctionDef)
    readings = one_block(kernel)
    want = None if scale == "unread" else scale
    assert {(r.block, r.size, r.scale) for r in readings} == (set() if scale is None else {("BLOCK", "n_cols", want)})
    if isinstance(scale, tuple):
        assert readings[0].reach(1024) == 1024 * scale[0] // scale[1] and readings[0].holds(1024, 2048)
        assert not readings[0].holds(1024, 512)
    elif scale == "unread":
        assert readings[0].reach(1024) is None and not readings[0].holds(1024, 2048) and readings[0].holds(64, 64)


@pytest.mark.timeout(60)
def test_a_block_whose_range_length_is_not_read_is_not_moved() -> None:
    """``H: tl.constexpr = tl.cdiv(BLOCK, 3)`` then ``tl.arange(0, H)``: the range covers ``n_cols`` with a length
    kernelopt does not compute, so which rows another block covers is unknown. Before, nothing was read there and a
    lower block was written bare (wrong above its reach); now no move is written, one line saying why."""
    launcher = DERIVED.format(body="    H: tl.constexpr = tl.cdiv(BLOCK, 3)\n    cols = tl.arange(0, H)") + (
        "\n\ndef run(x):\n    n_cols = x.numel()\n    BLOCK = 1024\n    k[(1,)](x, n_cols, False, BLOCK=BLOCK)\n    return x\n"
    )
    for value in (512, 2048):
        moved = guard_edit(launcher, launcher.replace("BLOCK = 1024", f"BLOCK = {value}"))
        assert moved.new_source is None, moved
        assert "in a form kernelopt does not read, so no guard can be written: not written" in _one_line(moved.note)


FLAT = """import triton
import triton.language as tl


@triton.jit
def clamp_flat(x_ptr, y_ptr, n_rows, n_cols, lo, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs, mask={mask}, other=0.0)
    tl.store(y_ptr + offs, tl.where(x < lo, lo, x), mask={mask})


def run(x, y, lo):
    n_rows, n_cols = x.shape
    BLOCK = 1024
    clamp_flat[(1,)](x, y, n_rows, n_cols, lo, BLOCK=BLOCK)
    return y
"""


@pytest.mark.timeout(60)
def test_a_one_block_kernel_s_size_is_the_one_parameter_its_mask_names_else_nothing_is_written() -> None:
    """One block over a whole tensor: ``offs < n_cols`` names the size (a value compared with ``lo`` is data, not
    an index, and guards nothing); ``offs < n_rows * n_cols`` names two, so no guard can be written and a lower
    block is not written, in one line. A higher one is legal and written."""
    named = FLAT.format(mask="offs < n_cols")
    guarded = guard_edit(named, named.replace("BLOCK = 1024", "BLOCK = 512"))
    assert guarded.new_source is not None and f"    if n_cols <= 512:  {TUNED}\n" in guarded.new_source
    assert "lo <=" not in guarded.new_source
    product = FLAT.format(mask="offs < n_rows * n_cols")
    lower = guard_edit(product, product.replace("BLOCK = 1024", "BLOCK = 512"))
    assert lower.new_source is None
    assert "no one kernel parameter is that size, so no guard can be written: not written" in _one_line(lower.note)
    higher = product.replace("BLOCK = 1024", "BLOCK = 2048")
    assert guard_edit(product, higher).new_source == higher


@pytest.mark.timeout(60)
def test_a_one_block_kernel_s_literal_passed_positionally_is_refused_in_one_line() -> None:
    """positional_name with the literal itself in the launch's argument list: no guard is written for a positional
    literal, so a lower one is not written; a higher one is."""
    text = (DATA / "positional_name" / "kernel.py").read_text()
    old = text.replace("n_cols, BLOCK_SIZE)", "n_cols, 1024)")
    assert old != text
    lower = guard_edit(old, old.replace("n_cols, 1024)", "n_cols, 512)"))
    assert lower.new_source is None
    assert "a block passed positionally is not guarded: not written" in _one_line(lower.note)
    higher = old.replace("n_cols, 1024)", "n_cols, 2048)")
    assert guard_edit(old, higher).new_source == higher


@pytest.mark.timeout(120)
def test_a_block_computed_to_cover_the_row_at_the_launch_stays_computed(tmp_path: Path) -> None:
    """``BLOCK=triton.next_power_of_2(n_cols)`` at the launch: the pick goes into a table over the row length whose
    fallback is the computation, correct above the largest entry."""
    folder = _copy("next_pow2_launch", tmp_path)
    written, note = _tune_edit(folder, {"BLOCK": 512})
    assert written is not None, note
    assert "BLOCK = triton.next_power_of_2(n_cols)\n" in written and f"if n_cols <= 300:  {TUNED}" in written
    (folder / "kernel.py").write_text(written)
    _all_correct(folder, ROWS)


# ------------------------------------------------------------------------------- a block that loops is free


@pytest.mark.timeout(120)
@pytest.mark.parametrize(
    "form",
    [
        "tl_range_loop",
        "cdiv_loop",
        "static_range_loop",
        "static_range_hoisted",
    ],
)
def test_a_block_that_loops_over_the_row_moves_plainly(form: str, tmp_path: Path) -> None:
    """``tl.range(0, n_cols, BLOCK)``, ``range(tl.cdiv(n_cols, BLOCK))`` and ``tl.static_range(N_CHUNKS)`` loops
    cover any row with any block: a lower pick is written as it is, with no guard (a guard would write a kernel
    that never runs the pick at the sizes timed), correct at 1000 columns."""
    folder = _copy(form, tmp_path)
    source = (folder / "kernel.py").read_text()
    was = 128 if "BLOCK = 128" in source else 64
    written, note = _tune_edit(folder, {"BLOCK": 32})
    assert written is not None and note is None, note
    assert TUNED not in written and "    BLOCK = 32\n" in written and f"BLOCK = {was}" not in written
    (folder / "kernel.py").write_text(written)
    _all_correct(folder, LOOPED_ROWS)


@pytest.mark.timeout(120)
def test_a_kernel_without_masks_on_a_floor_grid_keeps_its_block_a_divisor(tmp_path: Path) -> None:
    """No mask at all, ``n // BLOCK`` programs: a block of 256 (it divides both SHAPES entries) is written under
    ``if n % 256 == 0``, the original 128 elsewhere, correct at 384 and 640 where 256 would leave a tail."""
    folder = _copy("nomask_floor_grid", tmp_path)
    written, note = _tune_edit(folder, {"BLOCK": 256})
    assert written is not None and f"    BLOCK = 128\n    if n % 256 == 0:  {TUNED}\n        BLOCK = 256\n" in written
    assert "must divide" in _one_line(note) or "only where n % 256 == 0" in _one_line(note)
    (folder / "kernel.py").write_text(written)
    _all_correct(folder, [{"n": 256}, {"n": 1024}, {"n": 384}, {"n": 640}])


# ------------------------------------------------------------------------------ an inline guard on a retune


@pytest.mark.timeout(60)
def test_an_inline_divisibility_guard_is_read_as_its_fallback() -> None:
    """``BLOCK=256 if n % 256 == 0 else 128`` at the launch (a user's, or the guard's own inline form): the knob is
    the fallback 128, editable, listed with no warning."""
    found = {t.name: t for t in discover_source((DATA / "inline_guard" / "kernel.py").read_text())}
    assert found["BLOCK"].value == 128 and found["BLOCK"].refused_reason is None, found["BLOCK"]


@pytest.mark.timeout(120)
@pytest.mark.parametrize(
    ("pick", "want"),
    [
        (512, "BLOCK=512 if n % 512 == 0 else 128)"),
        (64, "BLOCK=64)"),
    ],
)
def test_a_retune_of_an_inline_divisibility_guard_replaces_it(pick: int, want: str, tmp_path: Path) -> None:
    """A retune's pick replaces the inline guard: 512 (legal only where 512 divides n) under a new inline guard
    with the original fallback; 64 (it divides 128, legal at every size the original handled) plainly."""
    folder = _copy("inline_guard", tmp_path)
    written, note = _tune_edit(folder, {"BLOCK": pick})
    assert written is not None, note
    assert want in written and "% 256" not in written, written
    (folder / "kernel.py").write_text(written)
    _all_correct(folder, WHOLE)


@pytest.mark.timeout(120)
def test_a_retune_that_picks_the_inline_guard_s_own_value_is_already_tuned(tmp_path: Path) -> None:
    """The pick 256 is what the inline guard already runs wherever it holds: its write is kernel.py as it is
    (``tune`` then says "already tuned" and writes nothing), and the guard's value is the file's own configuration
    wherever it holds."""
    from kernelopt.tunables.guard import guarded_values

    folder = _copy("inline_guard", tmp_path)
    source = (folder / "kernel.py").read_text()
    assert guarded_values(source) == {"BLOCK": 256}
    written, note = _tune_edit(folder, {"BLOCK": 256})
    assert written == source, (written, note)


@pytest.mark.timeout(60)
def test_the_guard_s_own_inline_form_round_trips_through_a_retune() -> None:
    """The guard writes its inline form where the launching function already uses the knob's name; a second
    session's candidates run what they name (the inline guard taken out), and its write replaces the guard."""
    plain = (DATA / "nomask_floor_grid" / "kernel.py").read_text()
    launch = "    affine[(n // BLOCK,)](x, y, BLOCK=BLOCK)\n"
    source = (
        plain.replace("    BLOCK = 128\n", "")
        .replace("n % BLOCK", "n % 128")
        .replace(launch, "    BLOCK = None  # named here for another use\n    affine[(n // 128,)](x, y, BLOCK=128)\n")
    )
    first = guard_edit(source, apply_source(source, {"BLOCK": 256}).new_source).new_source
    assert first is not None and "BLOCK=256 if n % 256 == 0 else 128)" in first, first
    again = apply_source(first, {"BLOCK": 512}).new_source
    assert "BLOCK=512)" in strip_stale_guards(first, again)
    rewritten = guard_edit(first, again).new_source
    assert rewritten is not None and "BLOCK=512 if n % 512 == 0 else 128)" in rewritten, rewritten


@pytest.mark.timeout(120)
def test_a_user_s_inline_size_heuristic_over_a_tile_that_must_divide_is_refused_in_one_line(tmp_path: Path) -> None:
    """``BLOCK=256 if n >= 1024 else 128`` is no guard (256 is legal at 1024 and above only because the sizes served
    there are multiples of 256): a tuned value over it is not written, with one line saying why."""
    folder = _copy("inline_heuristic", tmp_path)
    written, note = _tune_edit(folder, {"BLOCK": 512})
    assert written is None
    assert "not written" in _one_line(note)


@pytest.mark.timeout(120)
def test_an_inline_cover_guard_is_read_as_its_fallback_and_retuned(tmp_path: Path) -> None:
    """``BLOCK_SIZE=512 if n_cols <= 512 else 1024`` (the guard's inline form for a one-block kernel): a pick of 512
    is what the file runs wherever the guard holds (already tuned: nothing written); 2048 covers every row the
    original handled and replaces the guard plainly, correct at 800 columns."""
    folder = _copy("inline_cover", tmp_path)
    found = {t.name: t.value for t in discover_source((folder / "kernel.py").read_text())}
    assert found["BLOCK_SIZE"] == 1024
    same, note = _tune_edit(folder, {"BLOCK_SIZE": 512})
    assert same in (None, (folder / "kernel.py").read_text()), same
    written, note = _tune_edit(folder, {"BLOCK_SIZE": 2048})
    assert written is not None and "BLOCK_SIZE=2048, num_warps=4)" in written, note
    (folder / "kernel.py").write_text(written)
    _all_correct(folder, ROWS)


@pytest.mark.timeout(120)
def test_a_guarded_file_the_user_edited_afterwards_is_retuned(tmp_path: Path) -> None:
    """The guard's own lines, then the user's edits (a comment above the guard, a new fallback): a retune reads the
    user's fallback as the knob and writes its pick under a new guard, correct between and above the entries."""
    folder = _copy("nomask_floor_grid", tmp_path)
    kernel = folder / "kernel.py"
    written, _ = _tune_edit(folder, {"BLOCK": 256})
    assert written is not None
    kernel.write_text(written.replace("    BLOCK = 128\n", "    # blocks of 64 on our small cards\n    BLOCK = 64\n"))
    assert {t.name: t.value for t in discover_source(kernel.read_text())}["BLOCK"] == 64
    again, note = _tune_edit(folder, {"BLOCK": 512})
    assert again is not None and f"    BLOCK = 64\n    if n % 512 == 0:  {TUNED}\n        BLOCK = 512\n" in again, note
    assert "% 256" not in again
    kernel.write_text(again)
    _all_correct(folder, [{"n": 256}, {"n": 1024}, {"n": 192}, {"n": 640}])


@pytest.mark.timeout(120)
@pytest.mark.parametrize(
    ("form", "knob", "first", "second", "test", "shapes"),
    [
        ("nomask_floor_grid", "BLOCK", 256, 512, "n % {} == 0", [{"n": 256}, {"n": 1024}, {"n": 384}, {"n": 2048}]),
        ("tutorial_mask", "BLOCK_SIZE", 512, 256, "n_cols <= {}", ROWS),
    ],
)
def test_a_guard_whose_comment_the_user_deleted_is_read_by_its_form(
    form: str,
    knob: str,
    first: int,
    second: int,
    test: str,
    shapes: list[dict[str, int]],
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """The guard's lines, then the user deletes ``# kernelopt: tuned``: the guard read as the user's conditional
    override, and a retune refused ("no tunable knob: ... the literal 128 is in effect at no SHAPES entry the run
    saw"), or stacked its guard above the old one, which still won where it held. By its form (an ``if`` over
    literal assignments whose test is ``<size> % A == 0`` or ``<size> <= A`` for the value it sets, as an inline
    guard is read) it is a guard kernelopt wrote: the literal above it the knob, said in one line; a retune replaces
    it, correct at the entries, between and above."""
    from kernelopt.cli.app import main
    from kernelopt.tunables.guard import guarded_values
    from kernelopt.tunables.inline_guard import unmarked_guards

    folder = _copy(form, tmp_path)
    kernel = folder / "kernel.py"
    written, _ = _tune_edit(folder, {knob: first})
    assert written is not None and f"if {test.format(first)}:  {TUNED}" in written, written
    bare = written.replace(f"  {TUNED}", "")
    kernel.write_text(bare)
    fallback = {t.name: t for t in discover_source((DATA / form / "kernel.py").read_text())}[knob].value
    found = {t.name: t for t in discover_source(bare)}[knob]
    assert found.value == fallback and found.refused_reason is None, found
    assert guarded_values(bare) == {knob: first}
    line = _one_line(unmarked_guards(bare))
    assert f"`if {test.format(first)}:` at kernel.py:" in line and f"({knob}={first})" in line, line
    assert main(["tunables", str(kernel), "--no-evaluate"]) == 0
    out = capsys.readouterr()
    assert line in " ".join((out.out + out.err).split()), out
    again, note = _tune_edit(folder, {knob: second})
    assert again is not None and f"if {test.format(second)}:  {TUNED}" in again, note
    assert test.format(first) not in again, again  # the user's copy of the old guard is replaced, not stacked
    kernel.write_text(again)
    _all_correct(folder, shapes)
    # a user's conditional override of another form stays the user's: no guard is read into it
    assert unmarked_guards(bare.replace(test.format(first), test.format(first + 1))) is None


@pytest.mark.timeout(60)
def test_a_user_s_inline_conditional_under_a_name_no_known_knob_is_said_by_tune() -> None:
    """``SPAN=256 if n >= 1024 else 128`` (a name no known knob, no guard): ``tune`` left it out of its space
    without a word; now one line says it is not tuned, and why."""
    from kernelopt.cli.tune import left_out
    from kernelopt.tuning.folder import TuneRequest, prepare_folder

    prepared = prepare_folder(TuneRequest(folder=DATA / "inline_unknown_name", device="cpu"))
    assert "SPAN" not in prepared.space.names
    lines = left_out(prepared)
    assert len(lines) == 1 and lines[0].startswith("not tuned: affine:SPAN: value is computed at the launch"), lines
    assert "not a known performance knob" in lines[0]


@pytest.mark.timeout(120)
def test_an_autotune_list_over_a_one_block_kernel_is_not_pinned_below_its_smallest_block(tmp_path: Path) -> None:
    """``@triton.autotune`` over ``BLOCK`` 1024 and 2048 of a one-block softmax: the list was pinned to
    ``[triton.Config({"BLOCK": 512}, num_warps=4)]`` with no word, wrong above 512 columns (the autotuner may run any
    config, so the original handled rows up to its smallest block). A pin below it is not written, one line; a pin
    above it is, correct at 800 columns."""
    folder = _copy("autotune_one_block", tmp_path)
    written, note = _tune_edit(folder, {"BLOCK": 512})
    assert written is None
    assert "BLOCK=512 does not cover every size the original BLOCK=1024 handled" in _one_line(note)
    assert "decorator cannot be guarded by a size: not written" in _one_line(note)
    written, note = _tune_edit(folder, {"BLOCK": 4096})
    assert written is not None and 'triton.Config({"BLOCK": 4096}' in written, note
    (folder / "kernel.py").write_text(written)
    _all_correct(folder, ROWS)


@pytest.mark.timeout(120)
def test_a_one_block_kernel_s_default_block_is_not_lowered_in_its_signature(tmp_path: Path) -> None:
    """``BLOCK: tl.constexpr = 1024`` in the kernel's signature, the launch leaving it out: ``tune`` wrote
    ``= 512`` with no word (the guard read no signature), wrong above 512 columns. A lower default is not written,
    one line; a higher one is, correct at 800 columns."""
    folder = _copy("default_block", tmp_path)
    written, note = _tune_edit(folder, {"BLOCK": 512})
    assert written is None
    assert "BLOCK=512 does not cover every size the original BLOCK=1024 handled" in _one_line(note)
    assert "softmax_def's signature cannot be guarded by a size: not written" in _one_line(note)
    written, note = _tune_edit(folder, {"BLOCK": 2048})
    assert written is not None and "BLOCK: tl.constexpr = 2048)" in written, note
    (folder / "kernel.py").write_text(written)
    _all_correct(folder, ROWS)


@pytest.mark.timeout(60)
def test_tunables_set_over_an_inline_guard_says_the_guard_still_holds(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``kernelopt tunables kernel.py --set affine:BLOCK=64`` over ``BLOCK=256 if n % 256 == 0 else 128``: the
    fallback is written as asked, and the warning said "kernelopt tune would write None" (the guard's text without
    the inline guard differed from the edit, with no note). Now one line says the guard still sets the value where
    it holds; a value legal only where a guard holds (512) is written with the guard tune writes (late32 z95)."""
    from kernelopt.cli.app import main

    folder = _copy("inline_guard", tmp_path)
    argv = ["tunables", str(folder / "kernel.py"), "--no-evaluate", "--set"]
    assert main([*argv, "affine:BLOCK=64"]) == 0
    err = capsys.readouterr().err
    assert "None" not in err and "still sets it where it holds; written as asked" in _one_line(err), err
    assert "BLOCK=256 if n % 256 == 0 else 64)" in (folder / "kernel.py").read_text()
    assert main([*argv, "affine:BLOCK=512"]) == 0
    err = capsys.readouterr().err
    assert "written as kernelopt tune writes it, BLOCK=512 only where n % 512 == 0" in _one_line(err), err


@pytest.mark.timeout(120)
def test_tune_says_the_current_file_runs_the_inline_guard_s_value_where_it_holds(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The current configuration of a file holding an inline guard is the file as written, timed once as the guard's
    value; ``tune`` says so, naming the inline guard (it said "the guard an earlier tune wrote ... (`# kernelopt:
    tuned`)", of a guard a user may have written, with no such comment)."""
    from kernelopt.cli.tune import _render
    from kernelopt.tuning.folder import FolderTuning, TuneRequest, prepare_folder
    from kernelopt.tuning.session import SessionResult, StopReason, judge_gain
    from tests.test_breaker_cases import Outcome, Result

    prepared = prepare_folder(TuneRequest(folder=_copy("inline_guard", tmp_path), device="cpu"))
    by_shape = {s.label(): 1.0 for s in prepared.shapes}
    current = Result(config={"BLOCK": 128}, outcome=Outcome.OK, latency_us=2.0, latency_us_by_shape=by_shape)
    result = SessionResult(
        best_config={"BLOCK": 128}, best_latency_us=2.0, current_config={"BLOCK": 128}, current_latency_us=2.0,
        results=[current], retimed=[], evaluations=1, served=0, budget=1, space_size=1, wall_s=1.0,
        stop=StopReason.CANDIDATES, strategy="exhaustive",
    )  # fmt: skip
    _render(
        FolderTuning(prepared, result, judge_gain(result), guarded={"BLOCK": 256}),
        "",
        written=False,
        dry_run=False,
        plot=None,
    )
    out = capsys.readouterr()
    said = out.out + out.err
    assert "current: BLOCK=128, and BLOCK=256 wherever the inline guard at the launch in kernel.py holds" in said, said
    assert "an earlier tune" not in said


@pytest.mark.timeout(120)
def test_a_one_block_kernel_s_global_block_is_not_lowered_at_module_level(tmp_path: Path) -> None:
    """``BLOCK = tl.constexpr(1024)`` at module level, read by the kernel as a global: ``tune`` wrote
    ``tl.constexpr(512)`` with no word, wrong above 512 columns. A module-level constant cannot be guarded by a size:
    a lower one is not written, one line; a higher one is, correct at 800 columns."""
    folder = _copy("global_block", tmp_path)
    written, note = _tune_edit(folder, {"BLOCK": 512})
    assert written is None
    assert "covers n_cols with one block of BLOCK (cols < n_cols)" in _one_line(note)
    assert "a module-level constant cannot be guarded by a size: not written" in _one_line(note)
    written, note = _tune_edit(folder, {"BLOCK": 2048})
    assert written is not None and "BLOCK = tl.constexpr(2048)\n" in written, note
    (folder / "kernel.py").write_text(written)
    _all_correct(folder, ROWS)


@pytest.mark.timeout(120)
def test_a_retune_of_a_derived_range_guard_whose_comment_was_deleted(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A guard of a range derived from the block (``HALF = BLOCK // 2``), its ``# kernelopt: tuned`` comment
    deleted by the user. Written ``if n_cols <= 512:`` over ``BLOCK = 1024``, its bound was not the value it sets,
    so it read as the user's conditional: a retune stacked its own guard above it (``if n_cols <= 256:  #
    kernelopt: tuned`` / ``BLOCK = 512``, then the old one setting 1024 wherever both held: the pick never ran) or,
    picking the old value, wrote a second copy. Now the guard writes what the range covers with the block in sight
    (``n_cols <= 1024 // 2``): by its form a guard, said in one line and replaced by a retune, never stacked. A
    conditional of another form right after the tuned literal stays the user's: a pick that needs a guard there is
    not written, in one line; one that needs none is written and the user's conditional kept."""
    from kernelopt.cli.app import main
    from kernelopt.tunables.guard import guarded_values
    from kernelopt.tunables.inline_guard import unmarked_guards

    folder = _copy("derived_half", tmp_path)
    kernel = folder / "kernel.py"
    written, _ = _tune_edit(folder, {"BLOCK": 1024})
    assert written is not None and f"if n_cols <= 1024 // 2:  {TUNED}" in written, written
    bare = written.replace(f"  {TUNED}", "")
    kernel.write_text(bare)
    assert guarded_values(bare) == {"BLOCK": 1024}
    line = _one_line(unmarked_guards(bare))
    assert "`if n_cols <= 1024 // 2:` at kernel.py:24 (BLOCK=1024)" in line, line
    assert main(["tunables", str(kernel), "--no-evaluate"]) == 0
    out = capsys.readouterr()
    assert line in " ".join((out.out + out.err).split()), out
    for pick, guard in ((512, f"    if n_cols <= 512 // 2:  {TUNED}\n        BLOCK = 512\n"), (4096, "")):
        again, note = _tune_edit(folder, {"BLOCK": pick})
        assert again is not None, note
        assert again.count("if n_cols") == (1 if guard else 0) and "1024 // 2" not in again, again  # replaced
        assert f"    BLOCK = {2048 if guard else pick}\n{guard}    y = " in again, again
        kernel.write_text(again)
        _all_correct(folder, [*ROWS, {"rows": 2, "cols": 100}])
        kernel.write_text(bare)

    # a conditional of the user's right after the literal: never stacked on, never lost
    own = bare.replace("1024 // 2", "512")
    kernel.write_text(own)
    (folder / "reference.py").write_text(
        (DATA / "derived_half" / "reference.py").read_text().replace('"cols": 300', '"cols": 800')
    )
    assert unmarked_guards(own) is None and guarded_values(own) == {}
    lower, note = _tune_edit(folder, {"BLOCK": 512})
    assert lower is None and "the conditional at line 24 (`if n_cols <= 512:`) sets BLOCK again" in _one_line(note)
    assert "not written" in note and "put back its `# kernelopt: tuned` comment" in note
    higher, note = _tune_edit(folder, {"BLOCK": 4096})
    assert higher == own.replace("BLOCK = 2048", "BLOCK = 4096"), higher  # the user's conditional kept
