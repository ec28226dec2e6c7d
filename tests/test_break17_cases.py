"""A fresh clone broken, seventeenth trial (break17, 2026-12-06): the sixteenth session's landings tried on near
neighbours of the kernels they were made for; one test per finding (docs/faults.md, "A fresh clone broken,
seventeenth trial")."""

from __future__ import annotations

from pathlib import Path

DATA = Path(__file__).parent / "data"


def test_b15_a_tuple_s_element_that_no_longer_divides_its_size_is_never_written() -> None:
    """break17 b15: leftovers17's l2 made each element of a module-level tuple unpacked in ``run`` (``TILE = (16,
    16)``, ``bm, bn = TILE``) a knob written in the tuple, but the guard read no move there (``TILE = (32, 16)`` is
    no assignment of an integer), so over ``M // bm`` programs without masks ``TILE = (32, 16)`` was written with no
    guard, wrong at M=80 where the original's 16 is right (the net caught it in ``tune``, M=112,N=64, after 8
    candidates). Now the element moves as the name its unpacking binds: a module-level constant, which no guard by a
    size can hold, refused as ``BM = 32`` is; a value that divides the original, and a masked grid, still written."""
    from kernelopt.tunables.guard import guard_edit

    old = (DATA / "break17" / "tuple_nomask" / "kernel.py").read_text()
    refused = guard_edit(old, old.replace("TILE = (16, 16)", "TILE = (32, 16)"))
    assert refused.new_source is None and refused.note is not None, refused
    assert refused.note.startswith("bm=32 does not divide every size the original bm=16 handled (the grid at line 23 "
                                   "has M // bm programs), and a module-level constant cannot be guarded"), refused.note  # fmt: skip
    smaller = old.replace("TILE = (16, 16)", "TILE = (8, 16)")
    assert guard_edit(old, smaller).new_source == smaller
    module = old.replace("    bm, bn = TILE\n", "").replace("TILE = (16, 16)", "TILE = (16, 16)\nbm, bn = TILE")
    at_module = guard_edit(module, module.replace("TILE = (16, 16)", "TILE = (16, 64)"))
    assert at_module.new_source is None and at_module.note is not None and at_module.note.startswith("bn=64 ")
    masked = (DATA / "leftovers17" / "tuple_run" / "kernel.py").read_text()
    moved = masked.replace("TILE = (16, 16)", "TILE = (32, 64)")
    assert guard_edit(masked, moved).new_source == moved
