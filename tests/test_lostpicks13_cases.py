"""Correct picks lost and notes that are untrue (lostpicks13, 2026-12-06): a 1-D block's "tile <= problem" bound, one
test per fix (docs/faults.md, "Correct picks lost, and notes that are untrue")."""

from __future__ import annotations

from pathlib import Path

DATA = Path(__file__).parent / "data"
FLAT = DATA / "lostpicks13" / "flat_vector"
GRID = "scale_kernel[(triton.cdiv(n, 256),)]"


def _block_bound(source: str, tmp_path: Path, evaluation: object = None) -> int:
    from kernelopt.tunables.analysis import discover
    from kernelopt.tuning.launch import space_from_tunables

    kernel = tmp_path / "kernel.py"
    kernel.write_text(source)
    tunables = discover(kernel)
    space = space_from_tunables(
        tunables,
        problem_sizes={"M": 1024, "K": 1024},
        source=source,
        evaluation=evaluation,  # type: ignore[arg-type]
    )
    (rule,) = [r for r in space.fit_rules if r.startswith("tile <= problem")]
    return int(rule.rsplit("<= ", 1)[1])


def test_l2_a_1d_block_is_bounded_by_the_extent_its_grid_counts_not_the_largest_size(tmp_path: Path) -> None:
    """l2 (newuser11's seen): ``n = M * K`` with M = K = 1024 is a vector of 2**20 elements, tiled by ``triton.cdiv(n,
    BLOCK)``; the bound read the largest single size (``BLOCK <= 1024``, "space 7 of 13 fit") and pruned the larger
    blocks. It reads the extent the grid counts: the product of the sizes, or the value a run of the task told for
    ``n``; a grid over what is read no way (``x.numel()``) keeps the largest size."""
    from kernelopt.tunables.model import AutotuneEvaluation, ShapeSizes

    source = (FLAT / "kernel.py").read_text()
    assert GRID in source
    assert _block_bound(source, tmp_path) == 1 << 20
    unread = source.replace(GRID, "scale_kernel[(triton.cdiv(x.numel(), 256),)]")
    assert _block_bound(unread, tmp_path) == 1024
    # the same grid over a size no product of the problem's names, told by a run of the task at each entry
    numel = source.replace("    n = M * K\n", "    n = x.numel()\n")
    assert _block_bound(numel, tmp_path) == 1024
    told = AutotuneEvaluation(
        shape_sizes=[
            ShapeSizes(shape={"M": 64, "K": 64}, sizes={"scale_kernel": {"n": 4096}}),
            ShapeSizes(shape={"M": 1024, "K": 1024}, sizes={"scale_kernel": {"n": 1 << 20}}),
        ]
    )
    assert _block_bound(numel, tmp_path, told) == 1 << 20
