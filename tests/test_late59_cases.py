"""late59: host checks on a tile that no guard rule read (review29's Seen line, docs/faults.md "Host checks no rule
read (late59, 2026-12-07)"): a smaller tile was written plainly, failing the check at sizes the original handled.
Each test failed on main before its fix; none runs a kernel."""

from __future__ import annotations

import pytest

from kernelopt.tunables.guard import guard_edit
from tests.test_wrongkernel30_cases import V158

#: v158's launcher check (``BLOCK = 256``, masked), replaced below by each form
_V158_CHECK = '    assert BLOCK <= 1024, "the kernel keeps a block to 1024 lanes"\n'


@pytest.mark.parametrize(
    "check",
    ["    assert triton.cdiv(n, BLOCK) == 1\n", "    assert 1 == (n + BLOCK - 1) // BLOCK\n"],
    ids=["cdiv", "spelled"],
)
def test_l290_a_count_of_one_tile_is_guarded_by_the_size(check: str) -> None:
    """``assert triton.cdiv(n, BLOCK) == 1`` reads a size, so no tile check read it, and a count compared by ``==`` is
    no bound: ``BLOCK = 64`` over 256 was written plainly, failing the check at every ``n`` from 65 to 256. A smaller
    tile is written only where the size is within it; a larger one passes wherever the original did."""
    base = (V158 / "kernel.py").read_text(encoding="utf-8").replace(_V158_CHECK, check)
    smaller = guard_edit(base, base.replace("    BLOCK = 256\n", "    BLOCK = 64\n"))
    assert smaller.new_source is not None, smaller.note
    guarded = "    BLOCK = 256\n    if n <= 64:  # kernelopt: tuned\n        BLOCK = 64\n"
    assert guarded in smaller.new_source, smaller.note
    larger = guard_edit(base, base.replace("    BLOCK = 256\n", "    BLOCK = 512\n"))
    assert larger.new_source is not None and "    BLOCK = 512\n" in larger.new_source and larger.note is None


@pytest.mark.parametrize(
    ("check", "guard"),
    [
        ("    assert BLOCK - n >= 0\n", "if n <= 64:"),
        ("    assert 0 <= BLOCK - n\n", "if n <= 64:"),
        ("    assert not n - BLOCK > 0\n", "if n <= 64:"),
        ("    assert BLOCK - n > 0\n", "if (n + 1) <= 64:"),
    ],
    ids=["ge", "zero-left", "not", "strict"],
)
def test_l291_a_difference_with_zero_is_read_as_its_terms(check: str, guard: str) -> None:
    """``assert BLOCK - n >= 0`` was read by no rule (a difference is neither a tile's bound nor a count), and
    ``BLOCK = 64`` over 256 was written plainly, failing the check at every ``n`` from 65 to 256. The difference is
    read as its terms compared (``BLOCK >= n``, r90's floor): a smaller tile is guarded by the size."""
    base = (V158 / "kernel.py").read_text(encoding="utf-8").replace(_V158_CHECK, check)
    smaller = guard_edit(base, base.replace("    BLOCK = 256\n", "    BLOCK = 64\n"))
    assert smaller.new_source is not None, smaller.note
    assert f"    BLOCK = 256\n    {guard}  # kernelopt: tuned\n        BLOCK = 64\n" in smaller.new_source, smaller.note
    larger = guard_edit(base, base.replace("    BLOCK = 256\n", "    BLOCK = 512\n"))
    assert larger.new_source is not None and "    BLOCK = 512\n" in larger.new_source and larger.note is None


@pytest.mark.parametrize(
    "check",
    [
        "    cover = BLOCK\n    assert cover >= n\n",
        "    rem = BLOCK - n\n    assert rem >= 0\n",
        "    cover = BLOCK\n    if cover < n:\n        raise ValueError(n)\n",
    ],
    ids=["alias", "difference", "raise"],
)
def test_l292_a_local_holding_the_tile_is_read_as_the_tile(check: str) -> None:
    """``cover = BLOCK; assert cover >= n`` read no tile, so ``BLOCK = 64`` over 256 was written plainly, failing the
    check at every ``n`` from 65 to 256. A local bound once to the tile (or a difference reading it) is read as its
    value: a smaller tile is guarded by the size, a larger one written as before."""
    base = (V158 / "kernel.py").read_text(encoding="utf-8").replace(_V158_CHECK, check)
    smaller = guard_edit(base, base.replace("    BLOCK = 256\n", "    BLOCK = 64\n"))
    assert smaller.new_source is not None, smaller.note
    guarded = "    BLOCK = 256\n    if n <= 64:  # kernelopt: tuned\n        BLOCK = 64\n"
    assert guarded in smaller.new_source, smaller.note
    larger = guard_edit(base, base.replace("    BLOCK = 256\n", "    BLOCK = 512\n"))
    assert larger.new_source is not None and "    BLOCK = 512\n" in larger.new_source and larger.note is None


@pytest.mark.parametrize(
    "check",
    [
        "    assert BLOCK >= n or n == 0\n",
        "    if not (BLOCK >= n or n == 0):\n        raise ValueError(n)\n",
        "    assert n == 0 or (n > 4 and BLOCK >= n)\n",
    ],
    ids=["or", "raise", "nested"],
)
def test_l293_a_floor_inside_an_or_is_kept_true(check: str) -> None:
    """``assert BLOCK >= n or n == 0``: a floor one disjunct sets is needed by no reading of the assert as a whole,
    so ``BLOCK = 64`` over 256 was written plainly, failing the check at every ``n`` from 65 to 256. A floor under
    ``and``, ``or`` and ``not`` alone, kept true, keeps the check passing: a smaller tile is guarded by the size."""
    base = (V158 / "kernel.py").read_text(encoding="utf-8").replace(_V158_CHECK, check)
    smaller = guard_edit(base, base.replace("    BLOCK = 256\n", "    BLOCK = 64\n"))
    assert smaller.new_source is not None, smaller.note
    guarded = "    BLOCK = 256\n    if n <= 64:  # kernelopt: tuned\n        BLOCK = 64\n"
    assert guarded in smaller.new_source, smaller.note
    larger = guard_edit(base, base.replace("    BLOCK = 256\n", "    BLOCK = 512\n"))
    assert larger.new_source is not None and "    BLOCK = 512\n" in larger.new_source and larger.note is None


def test_l294_a_local_integer_times_the_tile_is_read_as_the_integer() -> None:
    """``UNROLL = 2; assert n <= BLOCK * UNROLL``: r90's floor reads a tile times integers alone, and ``UNROLL`` is a
    name, so ``BLOCK = 64`` over 256 was written plainly, failing the check at every ``n`` from 129 to 512. A local
    bound once to an integer is read as the integer: a smaller tile is guarded by the size, two blocks of it."""
    check = "    UNROLL = 2\n    assert n <= BLOCK * UNROLL\n"
    base = (V158 / "kernel.py").read_text(encoding="utf-8").replace(_V158_CHECK, check)
    smaller = guard_edit(base, base.replace("    BLOCK = 256\n", "    BLOCK = 64\n"))
    assert smaller.new_source is not None, smaller.note
    guarded = "    BLOCK = 256\n    if n <= 128:  # kernelopt: tuned\n        BLOCK = 64\n"
    assert guarded in smaller.new_source, smaller.note
    larger = guard_edit(base, base.replace("    BLOCK = 256\n", "    BLOCK = 512\n"))
    assert larger.new_source is not None and "    BLOCK = 512\n" in larger.new_source and larger.note is None


@pytest.mark.parametrize(
    ("params", "check"),
    [
        ("x, allowed", "    assert allowed.count(BLOCK)\n"),
        ("x, allowed", "    assert allowed[BLOCK]\n"),
        ("x, ok", "    assert ok(BLOCK)\n"),
    ],
    ids=["method", "item", "predicate"],
)
def test_l295_a_tile_passed_to_what_is_not_read_holds_only_the_original(params: str, check: str) -> None:
    """``assert ok(BLOCK)`` (also ``allowed.count(BLOCK)``, ``allowed[BLOCK]``, over ``def run(x, allowed)``) has no
    comparison, so no rule read it, and ``BLOCK = 64`` over 256 was written plainly, where ``ok`` may refuse it. Such
    a check holds only the original: any other tile refused with one line; ``isinstance(BLOCK, int)`` is left."""
    text = (V158 / "kernel.py").read_text(encoding="utf-8").replace("def run(x):", f"def run({params}):")
    base = text.replace(_V158_CHECK, check)
    for tile in (64, 512):
        refused = guard_edit(base, base.replace("    BLOCK = 256\n", f"    BLOCK = {tile}\n"))
        assert refused.new_source is None, refused.note
        assert "a check on BLOCK kernelopt does not read" in (refused.note or ""), refused.note
    typed = text.replace(_V158_CHECK, "    assert isinstance(BLOCK, int)\n")
    kept = guard_edit(typed, typed.replace("    BLOCK = 256\n", "    BLOCK = 64\n"))
    assert kept.new_source is not None and "    BLOCK = 64\n" in kept.new_source, kept.note
