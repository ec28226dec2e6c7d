"""netgaps11: the net's two blind spots (docs/faults.md, "netgaps11"; :mod:`kernelopt.tuning.net`).

The net ran the written kernel only above the largest ``SHAPES`` entry and never moved a size every entry gives 1.
wrongkernel11 found a kernel wrong at each (v36, sort_pow2: a table row wrong below the smallest entry; v40,
padded_rows: a buffer padded to the block, wrong with more than one row, the entries one row each). The rules catch
both now; here they are switched off (the pick written plainly, or the written table checked as it is) to show the
net alone keeps them out, in the session's own workers under Triton's interpreter.
"""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pytest

from kernelopt.harness.sizekeys import KeyReading, KeyRole, key_roles
from kernelopt.tunables.guard import Guarded
from kernelopt.tuning.net import SizeClass, cast, derived_sizes
from kernelopt.tuning.problem import ProblemShape
from tests.test_tuning_net import _evaluator
from tests.test_variants_cases import _POW2, _POW2_ROWS

VARIANTS = Path(__file__).parent / "data" / "variants"


def _sizes(entries: list[dict[str, Any]], roles: dict[str, KeyReading]) -> dict[str, list[str]]:
    sizes = derived_sizes([ProblemShape(kwargs=e) for e in entries], roles=roles)
    return {s.kind.value: [t.label() for t in s.tries] for s in sizes}


def test_a_size_below_the_smallest_entry_and_a_dimension_of_one_moved_only_where_get_inputs_makes_a_tensor() -> None:
    """Below: each dimension's smallest value halved and made odd, then halved (an original asserting a power of two
    refuses the odd one), the other keys at their smallest; ones: a dimension every entry gives 1 moved to 3, the
    rest at their largest. Neither for a key ``get_inputs`` does not make a dimension of (a seed, a code, a key the
    text cannot follow) nor for an exponent or module-level sizes."""
    sort = key_roles((VARIANTS / "sort_pow2" / "reference.py").read_text())
    assert _sizes([{"n_rows": 4, "n_cols": 64}, {"n_rows": 2, "n_cols": 128}], sort)["below"] == [
        "n_rows=1,n_cols=33",
        "n_rows=1,n_cols=32",
    ]
    padded = key_roles((VARIANTS / "padded_rows" / "reference.py").read_text())
    got = _sizes([{"M": 1, "N": 100}, {"M": 1, "N": 60}], padded)
    assert got == {
        "past": ["M=1,N=129"],
        "half": ["M=1,N=102"],
        "below": ["M=1,N=31", "M=1,N=30"],
        "ones": ["M=3,N=100"],
    }
    size, seed = KeyReading(KeyRole.SIZE), KeyReading(KeyRole.KEPT, "a seed")
    # a seed of 1, a flag of 1 not read (UNKNOWN) and a code stay; only the dimension of 1 moves
    got = _sizes([{"B": 1, "n": 64, "seed": 1, "causal": 1}], {"B": size, "n": size, "seed": seed})
    assert got["ones"] == ["B=3,n=64,seed=1,causal=1"] and got["below"][0] == "B=1,n=33,seed=1,causal=1", got
    # every key a dimension of 1: no size above or below, the ones size alone
    assert _sizes([{"M": 1}], {"M": size}) == {"ones": ["M=3"]}
    # an exponent moves by one in the past size, by two in the power size (wrongkernel13); no key read: no new size
    # (the value rule of net10)
    exponent = {"log_n": KeyReading(KeyRole.EXPONENT, "a dimension is a power of it")}
    assert _sizes([{"log_n": 17}, {"log_n": 12}], exponent) == {"past": ["log_n=18"], "power": ["log_n=19"]}
    assert set(_sizes([{"M": 1, "N": 100}], {})) == {"past", "half"}
    module = derived_sizes([ProblemShape(kwargs={})], constants={"N": 128})
    assert [s.kind for s in module] == [SizeClass.PAST, SizeClass.HALF]


def _prepared(tmp_path: Path, name: str, device: str) -> Any:
    from kernelopt.tuning import folder as tf

    folder = Path(shutil.copytree(VARIANTS / name, tmp_path / name))
    return tf.prepare_folder(tf.TuneRequest(folder=folder, device=device))


def _table_below(tmp_path: Path, device: str) -> None:
    """sort_pow2's v36 table and its ``+inf`` form checked at the size below on ``device``."""
    prepared = _prepared(tmp_path, "sort_pow2", device)
    base = prepared.base_source
    roles = key_roles(prepared.problem.reference_py.read_text())
    [below] = [s for s in derived_sizes(prepared.shapes, (), roles) if s.kind is SizeClass.BELOW]
    last = base.replace("other=0.0", 'other=float("inf")')
    with _evaluator(prepared) as evaluator:
        evaluator.start()
        known: dict[str, Any] = {}  # the original's outcomes, found once
        wrong = cast([below], base, base.replace(_POW2, _POW2 + _POW2_ROWS), evaluator.check_at, known=known)
        right = cast([below], base, last.replace(_POW2, _POW2 + _POW2_ROWS), evaluator.check_at, known=known)
    bad = wrong.failed
    assert bad is not None and bad.shape.label() == "n_rows=1,n_cols=32", wrong.line()
    assert wrong.line().startswith("the written kernel fails at n_rows=1,n_cols=32 (below the smallest entry)")
    assert right.failed is None and [c.passed for c in right.checks] == [True], right.line()


def _padded_ones(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, device: str) -> None:
    """padded_rows' plain ``BLOCK_N=256`` (its rule off) through ``tune``'s check on ``device``, and the buffer moved
    with the block at the ones size."""
    from kernelopt.tuning import folder as tf
    from tests.test_tuning_net import _session

    monkeypatch.setattr(tf, "guard_edit", lambda old, new: Guarded(new_source=new, note=None))
    prepared = _prepared(tmp_path, "padded_rows", device)
    base = prepared.base_source
    copied = base.replace("BLOCK_N=128)", "BLOCK_N=256)").replace("torch.empty(M, 128,", "torch.empty(M, 256,")
    roles = key_roles(prepared.problem.reference_py.read_text())
    [ones] = [s for s in derived_sizes(prepared.shapes, (), roles) if s.kind is SizeClass.ONES]
    with _evaluator(prepared) as evaluator:
        evaluator.start()
        done = tf._checked_edit(_session(prepared, [({"BLOCK_N": 256}, 1.0)], ({"BLOCK_N": 128}, 2.0)), evaluator)
        right = cast([ones], base, copied, evaluator.check_at)
    assert done.edit is None and done.edit_note is not None, done.edit_note
    assert done.edit_note.startswith("the written kernel fails at M=3,N=100 (a dimension every entry gives 1 moved"), (
        done.edit_note
    )
    assert right.failed is None and [c.passed for c in right.checks] == [True], right.line()


@pytest.mark.timeout(120)
def test_a_table_row_wrong_below_every_entry_fails_the_net_at_the_size_below(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """v36 as written before its rule: sort_pow2's table ``if n_cols <= 64: BLOCK = 64`` / ``elif n_cols <= 128:
    BLOCK = 128``, right at 64 and 128 columns; at 32 the masked-out lanes' zeros sort into the row. The size below
    the smallest entry: 33 columns, which the original's power-of-two assert refuses, then 32, where it passes and
    the table fails. The same table over a ``+inf`` fill (sorted last) passes there."""
    monkeypatch.setenv("TRITON_INTERPRET", "1")
    _table_below(tmp_path, "cpu")


@pytest.mark.timeout(120)
def test_a_buffer_padded_to_the_block_fails_the_net_with_three_rows_where_every_entry_has_one(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """v40 with its rule switched off: padded_rows' ``BLOCK_N=256`` beside ``y = torch.empty(M, 128)`` passes the
    entries (one row each) and the sizes above them (one row of 129 or 102 columns); at 3 rows, which the original
    handles, the second row lands past the first's end. The net moves the dimension of 1 to 3: nothing written, the
    line naming the size. The buffer moved with the block passes there."""
    monkeypatch.setenv("TRITON_INTERPRET", "1")
    _padded_ones(tmp_path, monkeypatch, "cpu")


@pytest.mark.gpu
@pytest.mark.timeout(600)
def test_on_cuda_the_net_fails_v36_s_table_below_the_entries_and_v40_s_buffer_at_three_rows(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The two CPU cases above on a GPU, compiled (``tl.sort`` in one block, the strided store): v36's table fails at
    32 columns, its ``+inf`` form passes; v40's plain ``BLOCK_N=256`` is not written, failing at 3 rows."""
    _table_below(tmp_path / "sort", "cuda")
    _padded_ones(tmp_path / "padded", monkeypatch, "cuda")
