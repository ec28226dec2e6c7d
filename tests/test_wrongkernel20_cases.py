"""wrongkernel20: a kernel written wrong on the path of a layout the net never took (docs/faults.md v83, v84): a key
the net keeps at the primary's value (``transposed`` 0 and 1; a divisor, ``heads`` 4 and 1) chose the kernel, and
every size of the net ran the primary's, so a pick read only by the other value's kernel was checked at its own entry
alone; a small code handed to ``run()`` (v85: ``op`` 1 and 2) ran at its largest wherever a size moved it; and a
shrunk tile's sizes went no lower than half the smallest entry, where a path for short rows reads it (v87)."""

from __future__ import annotations

from pathlib import Path

import pytest

from kernelopt.harness.sizekeys import key_roles
from kernelopt.tuning.net import SizeClass, code_keys, derived_sizes, layout_keys
from kernelopt.tuning.problem import ProblemShape
from tests.test_wrongkernel17_cases import VARIANTS, _caught, _checked


def test_a_kept_key_the_entries_give_different_values_is_a_layout_each_and_a_seed_is_not() -> None:
    """``transposed`` 0 and 1 (no tensor dimension in get_inputs): every size is derived once with each value, taken
    in turn, the largest the same (the past size 129 x 1025 in both layouts); a divisor's values are layouts too; a
    seed that differs stays the primary's, and with one value there is one layout, as before."""
    text = (VARIANTS / "layout_two_kernels" / "reference.py").read_text()
    roles = key_roles(text)
    entries = [
        ProblemShape(kwargs={"n_rows": 64, "n_cols": 1024, "transposed": 0}),
        ProblemShape(kwargs={"n_rows": 128, "n_cols": 512, "transposed": 1}),
    ]
    assert layout_keys(entries, roles, None) == ["transposed"]
    sizes = derived_sizes(entries, (), roles)
    past = [s.tries[0].label() for s in sizes if s.kind is SizeClass.PAST]
    assert past == ["n_rows=129,n_cols=1025,transposed=0", "n_rows=129,n_cols=1025,transposed=1"], past
    by_layout = [[t.kwargs["transposed"] for t in s.tries] for s in sizes]
    assert all(len(set(values)) == 1 for values in by_layout) and [v[0] for v in by_layout[:4]] == [0, 1, 0, 1]
    one = [ProblemShape(kwargs={**e.kwargs, "transposed": 0}) for e in entries]
    assert layout_keys(one, roles, None) == [] and len(derived_sizes(one, (), roles)) * 2 == len(sizes)
    seeded = "def get_inputs(n=64, seed=3):\n    torch.manual_seed(seed)\n    return [torch.randn(n)]\n"
    seeds = [ProblemShape(kwargs={"n": 64, "seed": 1}), ProblemShape(kwargs={"n": 128, "seed": 2})]
    assert layout_keys(seeds, key_roles(seeded), None) == []
    heads = key_roles((VARIANTS / "heads_one_path" / "reference.py").read_text())
    divided = [ProblemShape(kwargs={"T": 16, "hidden": 256, "heads": h}) for h in (4, 1, 4)]
    assert layout_keys(divided, heads, None) == ["heads"]
    assert [t.kwargs["heads"] for s in derived_sizes(divided, (), heads)[:2] for t in s.tries[:1]] == [4, 1]


@pytest.mark.timeout(120)
def test_v83_a_pick_read_only_by_the_transposed_input_s_kernel_fails_a_transposed_size_with_the_rules_on(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """v83 (layout_two_kernels: row sums, a row-major input one program a row over masked blocks, a transposed one
    tiles of rows walking the columns in whole blocks of ``BLOCK_K=16`` without a column mask, the rest in one masked
    block of ``TAIL=16``; SHAPES 16 x 512 row-major and 64 x 256 transposed): ``BLOCK_K=32`` was written plainly with
    the rules on, "correct at n_rows=65,n_cols=513,transposed=0, ...", every size of the net row-major, and sums a
    transposed row of 1050 columns wrong (a rest of 26 past a block of 16), which the original sums. Now each size is
    taken in each layout and the pick fails at 16 x 17 transposed; nothing is written."""
    done = _checked(tmp_path, monkeypatch, "layout_two_kernels", {"BLOCK_K": 32})
    _caught(done, SizeClass.FLOOR, "n_rows=16,n_cols=17,transposed=1")


@pytest.mark.timeout(120)
def test_v84_a_pick_read_only_by_one_head_s_kernel_fails_a_one_head_size_with_the_rules_on(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """v84 (heads_one_path: each head's sum of squares of ``(T, heads, hidden // heads)``, many heads one program a
    head over masked blocks, one head tiles of tokens walking the head's dimension in whole blocks of ``BLOCK_D=16``
    without a mask, the rest in one masked block of ``TAIL=16``; SHAPES 16 tokens x 256 in 4 heads and 64 x 512 in
    one): ``BLOCK_D=32`` was written plainly with the rules on, "correct at T=65,hidden=513,heads=4, ...,
    T=16,hidden=1024,heads=16; kept heads (divides a dimension)", every size of the net at 4 heads or the divisor
    size's 16, and sums one head of 312 wrong, which the original sums. Now each size is taken at 4 heads and at 1,
    and the pick fails at one token of one head of 17; nothing is written."""
    done = _checked(tmp_path, monkeypatch, "heads_one_path", {"BLOCK_D": 32})
    _caught(done, SizeClass.FLOOR, "T=1,hidden=17,heads=1")


def test_a_small_code_handed_to_run_is_moved_as_before_and_held_at_each_value_below_its_largest_too() -> None:
    """v85's ``op`` (1 and 2, handed to ``run()``): the sizes of the primary move it as before (its largest where the
    original refuses it moved), then the same sizes with it held at 1, taken in turn; v86's 10 and 20 alike (an
    activation's codes, above :data:`SMALL_KEY`); one value alone is no code."""
    roles = key_roles((VARIANTS / "op_code_reshape" / "reference.py").read_text())
    entries = [
        ProblemShape(kwargs={"n_rows": 40, "n": 64, "op": 1}),
        ProblemShape(kwargs={"n_rows": 20, "n": 128, "op": 2}),
    ]
    assert code_keys(entries, roles, None) == ["op"] and layout_keys(entries, roles, None) == []
    power = [[t.label() for t in s.tries] for s in derived_sizes(entries, (), roles) if s.kind is SizeClass.POWER]
    assert power == [
        ["n_rows=40,n=512,op=2", "n_rows=40,n=256,op=2"],  # n four times its largest, else twice, op at its largest
        ["n_rows=40,n=512,op=1", "n_rows=40,n=256,op=1"],  # the same, op held at 1
        ["n_rows=40,n=128,op=8", "n_rows=40,n=128,op=4"],  # op moved alone, as before (the original refuses it)
    ], power
    tens = [ProblemShape(kwargs={**e.kwargs, "op": 10 * int(e.kwargs["op"])}) for e in entries]
    same = [ProblemShape(kwargs={**e.kwargs, "op": 2}) for e in entries]
    assert code_keys(tens, roles, None) == ["op"] and code_keys(same, roles, None) == []
    # v86 (op_code_tens: v85's kernel with the codes 10 and 20, an activation's as break11's x1 had them): above
    # SMALL_KEY, no code before, and with the rules off BLOCK=256 passed the net at op 20 alone; v85's end-to-end case
    # runs the same kernel
    held = [t.label() for s in derived_sizes(tens, (), roles) if s.kind is SizeClass.POWER for t in s.tries]
    assert "n_rows=40,n=512,op=10" in held, held


@pytest.mark.timeout(120)
def test_v85_a_pick_read_only_on_a_small_code_s_path_fails_a_size_with_the_code_held_with_the_rules_off(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """v85 (op_code_reshape: softmax (``op`` 1) of rows a power of two long by v44's ``tl.reshape(x, (BLOCK // N,
    N))`` over ``BLOCK=1024``, log-softmax (``op`` 2) one row a program; SHAPES 40 x 64 of op 1 and 20 x 128 of op 2):
    with the rules off, ``BLOCK=256`` passed the net, "correct at n_rows=10,n=32,op=1, n_rows=40,n=512,op=2, ...",
    every size but the one below the entries at op 2 (the code moved from its largest, refused, kept there), and
    raises at 512 columns of op 1, which the original runs (with the rules on it is guarded ``if 256 % n == 0``). Now
    each size is taken with ``op`` held at 1 too, and the pick fails the power size there; nothing is written."""
    from tests.test_tuning_net import plain_pick_checked

    done = plain_pick_checked(tmp_path, monkeypatch, "op_code_reshape", {"BLOCK": 256})
    _caught(done, SizeClass.POWER, "n_rows=40,n=512,op=1")


@pytest.mark.timeout(120)
def test_v87_a_shrunk_block_a_path_for_short_rows_reads_fails_the_floor_with_the_rules_on(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """v87 (packed_budget: rows of more than 64 columns one program over masked blocks of a module-level
    ``BLOCK_SIZE = 1024``, rows of at most 64 packed ``BLOCK_SIZE // 64`` a program; SHAPES 4 x 1024 and 8 x 512):
    ``BLOCK_SIZE = 32`` was written plainly with the rules on, "correct at n_rows=9,n_cols=1025, ..., n_rows=3,n_cols=257,
    ...": a shrunk tile's sizes went no lower than half the smallest entry (the floor was cast for a tile grown), and
    it divides by zero packing rows of 64 columns or fewer, which the original sums. Now the floor descends for a tile
    shrunk too, and the pick fails at one row of 33; nothing is written."""
    done = _checked(tmp_path, monkeypatch, "packed_budget", {"BLOCK": 32})
    _caught(done, SizeClass.FLOOR, "n_rows=1,n_cols=33")


# ------------------------------------------------------------------------------------- on a GPU

_REALISTIC = {
    "v83": (
        "layout_two_kernels",
        'SHAPES = [{"n_rows": 16, "n_cols": 512, "transposed": 0}, {"n_rows": 64, "n_cols": 256, "transposed": 1}]',
        'SHAPES = [{"n_rows": 4096, "n_cols": 8192, "transposed": 0}, {"n_rows": 8192, "n_cols": 4096, "transposed": 1}]',
        {"BLOCK_K": 32},
        "transposed=1",
    ),
    "v84": (
        "heads_one_path",
        'SHAPES = [{"T": 16, "hidden": 256, "heads": 4}, {"T": 64, "hidden": 512, "heads": 1}]',
        'SHAPES = [{"T": 8192, "hidden": 4096, "heads": 32}, {"T": 16384, "hidden": 4096, "heads": 1}]',
        {"BLOCK_D": 32},
        "heads=1",
    ),
}


@pytest.mark.gpu
@pytest.mark.timeout(600)
@pytest.mark.parametrize("case", sorted(_REALISTIC))
def test_on_cuda_v83_v84_a_pick_read_only_on_another_value_s_path_fails_a_size_of_that_value_rules_on_or_off(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, case: str
) -> None:
    """On a GPU, compiled, over 128-256 MB entries (v83: 4096 x 8192 row-major, 8192 x 4096 transposed; v84: 8192
    tokens of 32 heads of 128, 16384 of one head of 4096), the primary the row-major one or the one of 32 heads: each
    pick fails the net at a size of the other value (a rest of 17 or more columns past a block of 32, which a ``TAIL``
    of 16 leaves unsummed), where the original passes, whether the rules are on or off; nothing is written."""
    from tests.test_tuning_net import realistic_picks

    variant, shapes, realistic, pick, value = _REALISTIC[case]
    for done in realistic_picks(tmp_path, monkeypatch, variant, shapes, realistic, pick):
        assert done.edit is None and done.net is not None and done.net.failed is not None, done.edit_note
        assert value in done.net.failed.shape.label(), done.net.line()


@pytest.mark.gpu
@pytest.mark.timeout(600)
def test_on_cuda_v85_a_reshape_on_op_1_s_path_fails_op_1_s_power_size_rules_off_and_is_guarded_rules_on(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """On a GPU, compiled, over 262144 rows of 64 (op 1) and 131072 of 128 (op 2): ``BLOCK=256`` with the rules off
    fails the power size at 262144 x 512 of op 1 (``tl.reshape`` of 256 elements into 0 rows of 512), where the
    original runs; with them on it is written ``if 256 % n == 0`` and passes every size, op 1's among them."""
    from tests.test_tuning_net import realistic_picks

    shapes = 'SHAPES = [{"n_rows": 40, "n": 64, "op": 1}, {"n_rows": 20, "n": 128, "op": 2}]'
    realistic = 'SHAPES = [{"n_rows": 262144, "n": 64, "op": 1}, {"n_rows": 131072, "n": 128, "op": 2}]'
    off, on = realistic_picks(tmp_path, monkeypatch, "op_code_reshape", shapes, realistic, {"BLOCK": 256})
    _caught(off, SizeClass.POWER, "n_rows=262144,n=512,op=1")
    assert on.edit is not None and "if 256 % n == 0" in on.edit.new_source, on.edit_note
    assert on.net is not None and on.net.failed is None and "op=1" in on.net.line(), on.net.line()


@pytest.mark.gpu
@pytest.mark.timeout(600)
def test_on_cuda_v87_a_shrunk_block_the_short_rows_path_divides_by_fails_the_floor_rules_on_or_off(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """On a GPU, compiled, over 4096 x 8192 and 8192 x 4096 rows (128 MB): ``BLOCK_SIZE = 32`` fails the floor at a
    row of 64 columns or fewer (``triton.cdiv(n_rows, 0)`` packing the short rows), where the original runs, whether
    the rules are on or off; nothing is written."""
    from tests.test_tuning_net import realistic_picks

    shapes = 'SHAPES = [{"n_rows": 4, "n_cols": 1024}, {"n_rows": 8, "n_cols": 512}]'
    realistic = 'SHAPES = [{"n_rows": 4096, "n_cols": 8192}, {"n_rows": 8192, "n_cols": 4096}]'
    for done in realistic_picks(tmp_path, monkeypatch, "packed_budget", shapes, realistic, {"BLOCK": 32}):
        assert done.edit is None and done.net is not None and done.net.failed is not None, done.edit_note
        failed = done.net.failed
        assert failed.kind is SizeClass.FLOOR and int(failed.shape.kwargs["n_cols"]) <= 64, done.net.line()
