"""late24: wrongkernel22's seen items (docs/faults.md), a count of tiles on a grid's second axis in a form no rule
read: taken by a method of the launcher's class (v99), by a helper of another module of the folder (v100), or a
product kept from zero under ``max`` (v101). Each smaller tile was written plainly with the rules on: a launch a GPU
refuses at sizes the original runs."""

from __future__ import annotations

from kernelopt.harness.interpreter import grid_problem
from kernelopt.tunables.guard import guard_edit
from tests.test_wrongkernel17_cases import VARIANTS

GUARD = "if n_cols <= 256 * 65535:  # kernelopt: tuned\n"


def test_v99_a_count_by_a_method_of_the_launcher_s_class_is_read_as_triton_cdiv_s() -> None:
    """v99 (grid_method_count: v88's row scale launched from ``_RowScale.__call__``, ``n_blocks =
    self._num_blocks(n_cols, BLOCK)`` with ``def _num_blocks(self, n, block): return triton.cdiv(n, block)``):
    ``BLOCK = 256`` was written plainly, a launch a GPU refuses past 256 * 65535 columns. A method's one returned
    count is read where it is called, its ``self`` left out, as a module helper's is: guarded. A method over
    the module's own tile, ``self._num_blocks(n_cols)`` returning ``triton.cdiv(n, BLOCK)``, is read too: its smaller
    module-level tile refused (a constant no size guards)."""
    base = (VARIANTS / "grid_method_count" / "kernel.py").read_text()
    own = base.replace("def _num_blocks(self, n, block):", "def _num_blocks(self, n):").replace(
        "triton.cdiv(n, block)", "triton.cdiv(n, BLOCK)"
    )
    own = own.replace("self._num_blocks(n_cols, BLOCK)", "self._num_blocks(n_cols)").replace(
        "import triton.language as tl\n", "import triton.language as tl\n\nBLOCK = 1024\n"
    )
    own = own.replace("        BLOCK = 1024\n", "")
    guarded = guard_edit(base, base.replace("        BLOCK = 1024\n", "        BLOCK = 256\n"))
    assert guarded.new_source is not None and GUARD in guarded.new_source, guarded.note
    refused = guard_edit(own, own.replace("\nBLOCK = 1024\n", "\nBLOCK = 256\n"))  # a module constant: no guard
    assert refused.new_source is None, refused.new_source
    assert "the grid's axis 1 at line 30 has n_blocks programs, at most 65535 on a GPU" in (refused.note or "")
    assert grid_problem((1, -(-(256 * 65535 + 1) // 256), 1)) is not None  # the plain pick's launch, one row past
    assert grid_problem((1, -(-(256 * 65535 + 1) // 1024), 1)) is None  # the original's


def test_v100_a_count_by_another_module_s_helper_keeps_a_smaller_tile_out_and_a_larger_one_written() -> None:
    """v100 (grid_module_count: v88 with ``from blocks import num_blocks``, the folder's own module, ``n_blocks =
    num_blocks(n_cols, BLOCK)``): ``BLOCK = 256`` was written plainly; the guard reads kernel.py alone, so a call
    handed the tile whose count it cannot read now refuses a smaller tile, with the call named (no size bounds it,
    no guard); a larger tile counts fewer programs and is written. So is ``blocks.num_blocks(...)``; a helper of this
    module that floors and adds one (``a // b + 1``, no count the rules read) is refused the same way."""
    base = (VARIANTS / "grid_module_count" / "kernel.py").read_text()
    dotted = base.replace("from blocks import num_blocks\n", "import blocks\n").replace(
        "= num_blocks(", "= blocks.num_blocks("
    )
    for text in (base, dotted):
        refused = guard_edit(text, text.replace("    BLOCK = 1024\n", "    BLOCK = 256\n"))
        assert refused.new_source is None, refused.new_source
        assert "num_blocks(n_cols, BLOCK), a call whose count no rule reads" in (refused.note or ""), refused.note
        grown = guard_edit(text, text.replace("    BLOCK = 1024\n", "    BLOCK = 4096\n"))
        assert grown.new_source is not None and "BLOCK = 4096\n" in grown.new_source, grown.note


def test_v101_a_product_of_counts_kept_from_zero_under_max_refuses_a_smaller_tile() -> None:
    """v101 (grid_heads_max: v89's per-head scale with its grid ``(B, max(1, H * n_blocks))``): ``BLOCK = 256`` was
    written plainly, the ``max`` read as no product, a launch a GPU refuses past 65535 // H head blocks where the
    original launches. A ``max``/``min``/``int`` whose other arguments are integers is read as the one it keeps: the
    pick refused as v89's bare product is; a larger tile written."""
    text = (VARIANTS / "grid_heads_max" / "kernel.py").read_text()
    assert "head_scale[(B, max(1, H * n_blocks))]" in text
    refused = guard_edit(text, text.replace("    BLOCK = 1024\n", "    BLOCK = 256\n"))
    assert refused.new_source is None, refused.new_source
    assert "max(1, H * n_blocks) programs, at most 65535 on a GPU, a product of H and" in (refused.note or "")
    grown = guard_edit(text, text.replace("    BLOCK = 1024\n", "    BLOCK = 2048\n"))
    assert grown.new_source is not None and "BLOCK = 2048\n" in grown.new_source, grown.note
    # the plain pick at 32 heads of 600000: past the axis's limit, the original's within
    assert grid_problem((1, 32 * -(-600000 // 256), 1)) is not None
    assert grid_problem((1, 32 * -(-600000 // 1024), 1)) is None
