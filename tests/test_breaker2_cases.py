"""The second new user's trial of ``kernelopt tune`` / ``optimize`` (issue 32: "a tuner that writes a kernel that
is wrong at any size the original handled is worse than none"). Each folder of tests/data/breaker2 is a Triton
kernel written for the trial (its README lists the patterns). What tuning writes is judged as a user would: the
written kernel against the reference at every ``SHAPES`` entry and at sizes not in ``SHAPES`` (one between, one
above) that the original handled. A strict xfail is a defect found and not yet fixed."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from kernelopt.tunables.guard import guard_edit
from tests.test_breaker_cases import _correct_at

DATA = Path(__file__).parent / "data" / "breaker2"


def _copy(name: str, tmp_path: Path) -> Path:
    return Path(shutil.copytree(DATA / name, tmp_path / name))


@pytest.mark.timeout(120)
def test_a_grid_that_repeats_the_launch_literal_is_guarded_with_it(tmp_path: Path) -> None:
    """Seen on 2026-12-05: ``kernelopt tune flat_nomask --device cpu`` (``_scale[(n // 64,)](.., BLOCK=64)``, no
    mask, ``n = x.shape[0] * x.shape[1]``; SHAPES of 256 and 1024 elements) wrote ``_scale[(n // 128,)](..,
    BLOCK=128)``: wrong at 192 and 576 elements, which the original handled (a quarter of them never written).
    The grid's 64 is the launch literal's copy: the tile is guarded by ``n`` and the grid names it."""
    folder = _copy("flat_nomask", tmp_path)
    old = (folder / "kernel.py").read_text()
    literal = old.replace("_scale[(n // 64,)](x, y, 2.5, BLOCK=64)", "_scale[(n // 128,)](x, y, 2.5, BLOCK=128)")
    guarded = guard_edit(old, literal)
    assert guarded.new_source is not None
    assert "    BLOCK = 64\n    if n % 128 == 0:  # kernelopt: tuned\n        BLOCK = 128\n" in guarded.new_source
    assert "_scale[(n // BLOCK,)](x, y, 2.5, BLOCK=BLOCK)" in guarded.new_source
    (folder / "kernel.py").write_text(guarded.new_source)
    shapes = [{"rows": 4, "cols": 64}, {"rows": 8, "cols": 128}, {"rows": 3, "cols": 64}, {"rows": 6, "cols": 96}]
    assert _correct_at((folder, shapes)) == {f"rows={s['rows']},cols={s['cols']}": True for s in shapes}


def test_a_grid_literal_inline_where_the_name_is_taken_gets_the_same_conditional() -> None:
    """Where the launching function already uses the keyword's name, the guard is inline at the launch, and the
    grid's copy of the literal takes the same conditional (never the bare tuned value)."""
    old = DATA.joinpath("flat_nomask", "kernel.py").read_text().replace("    y = torch.empty_like(x)\n", "    BLOCK = 'x'\n    y = torch.empty_like(x)\n")  # fmt: skip
    new = old.replace("_scale[(n // 64,)](x, y, 2.5, BLOCK=64)", "_scale[(n // 128,)](x, y, 2.5, BLOCK=128)")
    guarded = guard_edit(old, new).new_source
    assert guarded is not None
    assert "_scale[(n // (128 if n % 128 == 0 else 64),)](x, y, 2.5, BLOCK=128 if n % 128 == 0 else 64)" in guarded


@pytest.mark.timeout(120)
def test_a_module_level_constexpr_tile_that_no_longer_divides_is_not_written() -> None:
    """Seen on 2026-12-05: ``kernelopt tune global_tile --device cpu`` (``TILE = tl.constexpr(32)`` at module level,
    no mask, grid ``x.numel() // TILE``; SHAPES 128 and 512) wrote ``TILE = tl.constexpr(128)``: wrong at 96 and
    800 elements. A module-level constant cannot be guarded by a size: a tile that does not divide the original
    is not written (one line says why); one that does (16) is."""
    old = DATA.joinpath("global_tile", "kernel.py").read_text()
    wider = guard_edit(old, old.replace("tl.constexpr(32)", "tl.constexpr(128)"))
    assert wider.new_source is None
    assert wider.note is not None and "TILE=128 does not divide every size the original TILE=32 handled" in wider.note
    narrower = old.replace("tl.constexpr(32)", "tl.constexpr(16)")
    assert guard_edit(old, narrower).new_source == narrower  # a divisor of 32: legal wherever 32 was


LAUNCH = "_scale[(n // 64,)](x, y, 2.5, BLOCK=64)"


@pytest.mark.parametrize(
    ("before", "after"),
    [
        ("_scale[(n // 64,)](x, y, 2.5, 64)", "_scale[(n // 128,)](x, y, 2.5, 128)"),
        ("grid = (n // 64,)\n    _scale[grid](x, y, 2.5, BLOCK=64)", "grid = (n // 128,)\n    _scale[grid](x, y, 2.5, BLOCK=128)"),
    ],
    ids=["tile passed positionally", "grid on a line of its own"],
)  # fmt: skip
def test_a_moved_grid_divisor_no_guard_covers_is_not_written(before: str, after: str) -> None:
    """Found beside case 13: the tile of a kernel without masks passed positionally (``_scale[(n // 64,)](x, y, 2.5,
    64)``), or the grid on a line of its own (``grid = (n // 64,)``): the linked edit moved the grid's divisor to
    128 and nothing read it as a requirement, so the text went out unguarded (wrong at 192 elements). Now a moved
    literal divisor that no guard covers keeps the edit out, with one line."""
    base = DATA.joinpath("flat_nomask", "kernel.py").read_text()
    guarded = guard_edit(base.replace(LAUNCH, before), base.replace(LAUNCH, after))
    assert guarded.new_source is None
    assert guarded.note is not None and guarded.note.startswith("the divisor 64 at line 17 moved to 128")


def test_a_masked_kernel_s_cdiv_grid_and_positional_tile_move_freely() -> None:
    """The other side of the rule: autograd_pos's kernel has masks, so ``triton.cdiv(n, 1024)`` with the block
    passed positionally is legal at every size (tune wrote it on 2026-12-05; correct at 333 and 5000 elements)."""
    old = DATA.joinpath("autograd_pos", "kernel.py").read_text()
    new = old.replace("(triton.cdiv(n, 128),)](x, y, n, slope, 128,", "(triton.cdiv(n, 1024),)](x, y, n, slope, 1024,")
    assert new != old
    assert guard_edit(old, new).new_source == new


@pytest.mark.timeout(120)
@pytest.mark.parametrize(
    ("folder", "wider", "narrower"),
    [
        ("at_nomask", {"BLOCK": 128}, {"BLOCK": 32}),
        ("heur_tile", {"_sq.heuristics.BLOCK": 128}, {"_sq.heuristics.BLOCK": 32}),
    ],
)
def test_a_decorator_s_tile_that_no_longer_divides_is_not_written(
    folder: str, wider: dict[str, int], narrower: dict[str, int], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Seen on 2026-12-05: a kernel without masks whose tile is set in its decorator, an autotune list of one
    ``Config({"BLOCK": 64})`` (at_nomask) or ``@triton.heuristics({"BLOCK": lambda args: 64})`` (heur_tile), the
    grid ``n // meta["BLOCK"]``: a session whose best is 128 wrote ``Config({"BLOCK": 128}, ...)`` / ``lambda args:
    128``, wrong at 192 and 1600 elements (the guard read statements only, and the pinned autotune list bypassed
    it). A decorator cannot be guarded by a launch's size: 128 is not written; 32, which divides 64, is."""
    from tests.test_breaker_cases import _edit_for

    monkeypatch.setenv("TRITON_INTERPRET", "1")
    original = (DATA / folder / "kernel.py").read_text()
    assert _edit_for(DATA / folder, wider) == original
    written = _edit_for(DATA / folder, narrower)
    assert written != original and "32" in written.split("@triton.jit")[0]
    assert "num_stages" not in written  # a pinned list adds no Triton default the user's list left out


def test_a_pinned_autotune_list_adds_no_default_the_user_left_out() -> None:
    """Seen on 2026-12-05: ``tune future_crlf`` pinned ``triton.Config({"BLOCK": 128}, num_warps=4)`` as
    ``triton.Config({"BLOCK": 256}, num_warps=4, num_stages=3)``: Triton's default, never tuned on the CPU (the
    interpreter ignores it), read in the diff as a choice. A list that writes it keeps it."""
    from kernelopt.tunables.edit import pin_configs
    from kernelopt.tunables.model import AutotuneConfig

    source = DATA.joinpath("at_nomask", "kernel.py").read_text()
    pinned = pin_configs(source, "_neg", [AutotuneConfig(kwargs={"BLOCK": 32}, num_warps=4, num_stages=3)])
    assert 'configs=[triton.Config({"BLOCK": 32}, num_warps=4)]' in pinned.new_source
    staged = source.replace("num_warps=4)", "num_warps=4, num_stages=3)")
    pinned = pin_configs(staged, "_neg", [AutotuneConfig(kwargs={"BLOCK": 32}, num_warps=8, num_stages=3)])
    assert 'configs=[triton.Config({"BLOCK": 32}, num_warps=8, num_stages=3)]' in pinned.new_source


@pytest.mark.timeout(120)
@pytest.mark.parametrize(
    ("folder", "best", "inserted"),
    [
        ("crlf_nomask", {"_scale:BLOCK": 128}, "\tBLOCK = 64\r\n\tif n % 128 == 0:  # kernelopt: tuned\r\n\t\tBLOCK = 128\r\n"),
        ("crlf_inline", {"BLOCK": 128}, "\t\tBLOCK = triton.next_power_of_2(N)\r\n\t\tif N <= 100:  # kernelopt: tuned\r\n\t\t\tBLOCK = 128\r\n"),
    ],
)  # fmt: skip
def test_lines_written_into_a_crlf_file_indented_with_tabs_end_and_indent_as_its_own(
    folder: str, best: dict[str, int], inserted: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Seen on 2026-12-05: in a kernel.py written with tabs and CRLF, the guard (case 13's) and the table over an
    inline computation came out with LF endings in a CRLF file, the guard's body indented with a tab and four
    spaces. Correct, but a diff of every inserted line in the user's editor. Now they take the file's endings and
    its indentation; every line of the written file ends in CRLF."""
    from tests.test_breaker_cases import _edit_for

    monkeypatch.setenv("TRITON_INTERPRET", "1")
    written = _edit_for(DATA / folder, best)
    assert inserted in written
    assert written.count("\n") == written.count("\r\n")
    compile(written, "kernel.py", "exec")


@pytest.mark.timeout(120)
def test_a_second_launch_s_grid_literal_is_left_to_it(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Seen on 2026-12-05 with case 13's first fix: two launches of kernels without masks, each
    ``k[(n // 64,)](.., BLOCK=64)``; tuning the first's BLOCK to 128 rewrote the second's grid too, and with the
    tuned value's length: ``_double[(n // BLOCK)](t, y, BLOCK=64)`` (its comma eaten: "object of type 'int' has
    no len()" at every size). A grid's literal is a launch's copy only where it moved with that launch's literal."""
    from tests.test_breaker_cases import _edit_for

    monkeypatch.setenv("TRITON_INTERPRET", "1")
    folder = _copy("two_lit", tmp_path)
    written = _edit_for(folder, {"_add_one:BLOCK": 128})
    assert "_add_one[(n // BLOCK,)](x, t, BLOCK=BLOCK)\n    _double[(n // 64,)](t, y, BLOCK=64)\n" in written
    (folder / "kernel.py").write_text(written)
    shapes = [{"n": 256}, {"n": 1024}, {"n": 192}, {"n": 1600}]
    assert _correct_at((folder, shapes)) == {f"n={s['n']}": True for s in shapes}


@pytest.mark.timeout(120)
def test_a_settings_helper_that_returns_a_dict_is_followed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Seen on 2026-12-05: helper_dict's ``launch_config(n)`` returns ``{"BLOCK": 512 if n >= 4096 else 128,
    "num_warps": 4}``, splatted at the launch (``**cfg``), the grid reading ``cfg["BLOCK"]``. ``kernelopt tunables``
    listed ``_softplus:**cfg`` as not editable and ``tune`` exited 2; the same settings returned as a tuple were
    followed (issue 32, "a tuple-unpacked settings helper"). Now each setting is a computed setting tuned after the
    call, the helper's result the fallback: what ``tune`` writes is correct at every ``SHAPES`` entry, between
    them and above them (the table's fallback)."""
    from kernelopt.tunables import TunableKind, discover_source
    from tests.test_breaker_cases import _edit_for

    found = {t.key: t for t in discover_source(DATA.joinpath("helper_dict", "kernel.py").read_text())}
    for key in ("_softplus:BLOCK", "_softplus:num_warps"):
        assert found[key].editable and found[key].kind is TunableKind.COMPUTED_SETTING, found[key]
        assert found[key].computed == "cfg = launch_config(n)" and found[key].size_names == ["n"]
    assert "_softplus:**cfg" not in found
    monkeypatch.setenv("TRITON_INTERPRET", "1")
    folder = _copy("helper_dict", tmp_path)
    written = _edit_for(folder, {"BLOCK": 2048, "num_warps": 2})
    # the warp count the helper gives every size (4) joins the block's table by n (tablebound11: a pick is one
    # configuration, so above the table both fall back on the helper; it was one value for every size)
    tuned = (
        '    if n <= 5000:  # kernelopt: tuned\n        cfg = dict(cfg)\n        cfg["BLOCK"] = 2048\n'
        '        cfg["num_warps"] = 2\n'
    )
    assert f"    cfg = launch_config(n)\n{tuned}" in written
    (folder / "kernel.py").write_text(written)
    shapes = [{"n": 300}, {"n": 5000}, {"n": 1000}, {"n": 4096}, {"n": 9000}]
    assert _correct_at((folder, shapes)) == {f"n={s['n']}": True for s in shapes}


@pytest.mark.parametrize("head", ["if n:", "for _ in range(1):"])
def test_a_launch_on_a_one_line_compound_statement_is_not_written_unguarded(head: str) -> None:
    """Seen on 2026-12-05: flat_nomask's launch written ``if n: _scale[(n // 64,)](x, y, 2.5, BLOCK=64)``: the guard
    read only statement lines, not the body of a one-line ``if`` / ``for``, and ``tune`` wrote ``BLOCK=128`` and
    ``n // 128`` there, wrong at 192 and 576 elements. A guard cannot go into that line: not written, one line; a
    tile that divides the original (32) is written there."""
    base = DATA.joinpath("flat_nomask", "kernel.py").read_text()
    old = base.replace(f"    {LAUNCH}", f"    {head} {LAUNCH}")
    wider = guard_edit(old, old.replace("64", "128"))
    assert wider.new_source is None
    assert wider.note is not None and "cannot be written into a one-line compound statement" in wider.note
    narrower = old.replace("64", "32")
    assert guard_edit(old, narrower).new_source == narrower


def test_a_module_constant_a_kernel_without_masks_steps_by_is_not_written_wider() -> None:
    """Seen on 2026-12-05: global_loop's kernel steps ``for start in range(0, N, TILE)`` over loads without masks,
    ``TILE = tl.constexpr(32)`` at module level and no grid reading it: a session's ``TILE=128`` was written, wrong
    at 96 and 416 columns (the guard read loop steps only where a launch passes them). Now it is not written, with
    one line; 16 (which divides 32) is."""
    old = DATA.joinpath("global_loop", "kernel.py").read_text()
    wider = guard_edit(old, old.replace("tl.constexpr(32)", "tl.constexpr(128)"))
    assert wider.new_source is None
    assert wider.note is not None and "the kernel _rowsum steps range(0, N, TILE)" in wider.note
    narrower = old.replace("tl.constexpr(32)", "tl.constexpr(16)")
    assert guard_edit(old, narrower).new_source == narrower


def test_a_decorator_s_tile_a_kernel_without_masks_steps_by_is_not_written_wider() -> None:
    """Seen on 2026-12-05: heur_loop's kernel steps ``range(0, N, BLOCK)`` over loads without masks, ``BLOCK`` from
    ``@triton.heuristics({"BLOCK": lambda args: 32})``: a session's 128 was written as ``lambda args: 128``, wrong
    at 96 and 416 columns (no grid reads the tile, and the launch does not pass it). Now not written, one line;
    16 is."""
    old = DATA.joinpath("heur_loop", "kernel.py").read_text()
    wider = guard_edit(old, old.replace("lambda args: 32", "lambda args: 128"))
    assert wider.new_source is None
    assert wider.note is not None and "the kernel _rowsum steps range(0, N, BLOCK)" in wider.note
    narrower = old.replace("lambda args: 32", "lambda args: 16")
    assert guard_edit(old, narrower).new_source == narrower


@pytest.mark.parametrize(("pinned", "written"), [(128, False), (64, True), (16, True)])
def test_a_list_of_two_configs_pinned_to_one_is_judged_by_every_size_the_list_handled(
    pinned: int, written: bool
) -> None:
    """Seen on 2026-12-05: at_nomask with two configs (``BLOCK`` 64 and 32; the autotuner may run either, so the
    original handled multiples of 64) pinned to one config of 128: the decorator's literals were compared one to
    one, the lists' lengths differed, and the pin was written, wrong at 192 elements. Now a pinned value must
    divide the least common multiple of the list's values."""
    old = DATA.joinpath("at_nomask", "kernel.py").read_text()
    one = 'configs=[triton.Config({"BLOCK": 64}, num_warps=4)]'
    two = old.replace(one, 'configs=[triton.Config({"BLOCK": 64}, num_warps=4), triton.Config({"BLOCK": 32}, num_warps=2)]')  # fmt: skip
    new = two.replace(two[two.index("configs=[") : two.index(", key=")], one.replace("64", str(pinned)))
    assert (guard_edit(two, new).new_source == new) is written


def test_tunables_set_warns_when_the_value_set_leaves_a_size_the_original_handled(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Seen on 2026-12-05: ``kernelopt tunables flat_nomask/kernel.py --set _scale:BLOCK=128`` wrote ``n // 128`` and
    ``BLOCK=128`` without a word, wrong at 192 elements, where ``tune`` writes a guard. It then wrote the plain value
    with a warning naming the guard; since late32 (z95) it writes the guard's text, as tune does, the warning saying
    so and naming the size; a divisor (32) is written with no warning and no guard."""
    from kernelopt.cli.app import main

    folder = _copy("flat_nomask", tmp_path)
    argv = ["tunables", str(folder / "kernel.py"), "--no-evaluate", "--set"]
    assert main([*argv, "_scale:BLOCK=128"]) == 0
    err = capsys.readouterr().err
    said = "warning: not legal at every size the original handled: written as kernelopt tune writes it, BLOCK=128 "
    assert said in err and "n % 128 == 0" in err
    assert "    if n % 128 == 0:  # kernelopt: tuned\n        BLOCK = 128\n" in (folder / "kernel.py").read_text()
    folder = _copy("flat_nomask", tmp_path / "again")
    assert main(["tunables", str(folder / "kernel.py"), "--no-evaluate", "--set", "_scale:BLOCK=32"]) == 0
    assert "_scale[(n // 32,)](x, y, 2.5, BLOCK=32)" in (folder / "kernel.py").read_text()
    assert "warning" not in capsys.readouterr().err
