"""review24: the session's riskiest changes reread and tried as a user would (docs/faults.md, "Review,
twenty-fourth round"). The gateway's own cases (r40, r41) are in tests/test_proc.py."""

from __future__ import annotations

from pathlib import Path

from tests.test_leftovers24_cases import _entry

DATA = Path(__file__).parent / "data"


def test_r42_a_flat_original_s_chance_rise_along_the_rows_does_not_pick_the_size_judged() -> None:
    """r42: an original whose error is flat (an fp32 row sum: its output's rounding) rises along more rows only by its
    inputs' chance (8 outputs an entry: 6 % here). That chance chose n_rows as the reduction's size over n_cols, along
    which a candidate's fp16 lanes (6 to 22 times the original's error) rise while falling along the rows, and every
    size varying, the flat excess exonerated it: a WRONG pick kept, which its two entries of 8 rows alone refuse."""
    from kernelopt.tuning.accuracy import across_entries, chain_rise

    sizes = ({"n_rows": 8, "n_cols": 5000}, {"n_rows": 32, "n_cols": 5000}, {"n_rows": 8, "n_cols": 20000})
    original = (5.10e-6, 5.40e-6, 5.15e-6)
    lanes = (3.37e-5, 3.40e-5, 1.12e-4)
    errors = [_entry(v, e, o, roundoff=2.0**-23) for v, e, o in zip(sizes, lanes, original, strict=True)]
    rise = chain_rise(errors)
    assert rise is not None and rise.name == "n_cols", rise
    found = across_entries(errors)
    assert found is not None and found[0] == "n_rows=8,n_cols=20000" and "rises along n_cols" in found[1], found
    # a right pick beside it (its error no more than the original's rounding, by chance on either side) stays kept
    right = (5.30e-6, 5.05e-6, 5.20e-6)
    assert (
        across_entries([_entry(v, e, o, roundoff=2.0**-23) for v, e, o in zip(sizes, right, original, strict=True)])
        is None
    )


def test_r43_a_row_s_one_block_set_beside_another_knob_is_written_up_to_the_size_it_covers(tmp_path: Path) -> None:
    """r43: q55 wrote a covered block's value as a table row only when it was the call's one edit; ``tunables --set
    masked_softmax_kernel:BLOCK_SIZE=4096 --set masked_softmax_kernel:num_warps=8`` on DeepSpeed's softmax wrote
    ``BLOCK_SIZE = 4096`` for every size without a word, wrong at 5000 columns where the original is right."""
    import shutil

    from kernelopt.tunables.edit import apply
    from tests.test_breaker7_cases import _all_correct

    folder = Path(shutil.copytree(DATA / "breaker25" / "ds_softmax", tmp_path / "ds_softmax"))
    result = apply(
        folder / "kernel.py", {"masked_softmax_kernel:BLOCK_SIZE": 4096, "masked_softmax_kernel:num_warps": 8}
    )
    assert result.guard is not None and "only where n_cols <= 4096" in result.guard, result.guard
    text = (folder / "kernel.py").read_text()
    assert "    if n_cols <= 4096:  # kernelopt: tuned\n        BLOCK_SIZE = 4096\n    num_warps = 8\n" in text
    _all_correct(folder, [{"B": 1, "H": 1, "N": 5000}])
