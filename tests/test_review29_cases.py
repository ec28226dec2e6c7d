"""review29: faults found reading the landings of 2026-12-07 (docs/faults.md, "Review of the twenty-sixth session's
landings (review29, 2026-12-07)"). Each test failed on main before its fix; none runs a kernel."""

from __future__ import annotations

import pytest

from tests.test_wrongkernel30_cases import V158

#: v158's launcher check (``BLOCK = 256``, masked), replaced below by a bound from below
_V158_CHECK = '    assert BLOCK <= 1024, "the kernel keeps a block to 1024 lanes"\n'


@pytest.mark.parametrize(
    ("params", "check", "guard"),
    [
        ("x", "    assert BLOCK >= n\n", "if n <= 64:"),
        ("x", "    if n > BLOCK:\n        raise ValueError(n)\n", "if n <= 64:"),
        ("x", "    assert BLOCK > n\n", "if (n + 1) <= 64:"),
        ("x", "    assert BLOCK * 2 >= x.shape[-1]\n", "if x.shape[-1] <= 128:"),
        ("x, lo=256", "    assert BLOCK >= lo\n", "if lo <= 64:"),
    ],
    ids=["ge", "raise", "strict", "times", "param"],
)
def test_r90_a_tile_bounded_from_below_by_a_size_is_guarded_by_it(params: str, check: str, guard: str) -> None:
    """A host check bounding the tile from below by a value that is no integer (``assert BLOCK >= n``, ``if n >
    BLOCK: raise``) was read by no rule: ``_bounded_tiles`` reads a floor only where it is an integer. ``BLOCK = 64``
    over 256 was written plainly, failing the check at every ``n`` from 65 to 256, where the original ran. A smaller
    tile is now written only where the floor is within it; a larger one passes wherever the original did."""
    from kernelopt.tunables.guard import guard_edit

    text = (V158 / "kernel.py").read_text(encoding="utf-8")
    base = text.replace("def run(x):", f"def run({params}):").replace(_V158_CHECK, check)
    smaller = guard_edit(base, base.replace("    BLOCK = 256\n", "    BLOCK = 64\n"))
    assert smaller.new_source is not None, smaller.note
    assert f"    BLOCK = 256\n    {guard}  # kernelopt: tuned\n        BLOCK = 64\n" in smaller.new_source, smaller.note
    larger = guard_edit(base, base.replace("    BLOCK = 256\n", "    BLOCK = 512\n"))
    assert larger.new_source is not None and "    BLOCK = 512\n" in larger.new_source and larger.note is None


def test_r90_a_floor_that_reads_another_tile_is_no_guard() -> None:
    """A floor that reads a tile (``assert BLOCK >= HALF * 2``, ``HALF`` a second setting) is no size a guard can
    test: a smaller tile is refused, saying so."""
    from kernelopt.tunables.guard import guard_edit

    text = (V158 / "kernel.py").read_text(encoding="utf-8")
    base = text.replace("    BLOCK = 256\n", "    BLOCK = 256\n    HALF = 128\n").replace(
        _V158_CHECK, "    assert BLOCK >= HALF * 2\n"
    )
    base = base.replace("BLOCK=BLOCK)", "BLOCK=BLOCK, HALF=HALF)").replace(
        "BLOCK: tl.constexpr):", "BLOCK: tl.constexpr, HALF: tl.constexpr):"
    )
    refused = guard_edit(base, base.replace("    BLOCK = 256\n", "    BLOCK = 64\n"))
    assert refused.new_source is None and "the bound reads a tile" in (refused.note or ""), refused.note
