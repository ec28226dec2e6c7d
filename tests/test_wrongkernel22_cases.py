"""wrongkernel22: wrongkernel21's seen items (docs/faults.md): a count of tiles in a form no rule read, a grid of a
kernel without masks counted by the module's own ceiling helper (v95), a count wrapped in ``max``/``min``/``int`` or
taken by a lambda bound to a name (v96), and a host assert bounding a size padded to whole tiles (v97), each written
plainly with the rules on: a kernel wrong at sizes the original handled."""

from __future__ import annotations

import types
from pathlib import Path

import pytest

from kernelopt.harness.interpreter import grid_problem
from kernelopt.tunables.guard import guard_edit
from tests.test_wrongkernel17_cases import VARIANTS


@pytest.mark.filterwarnings("ignore::RuntimeWarning")  # the plain pick reads past the end: garbage into exp
def test_v95_a_grid_without_masks_counted_by_the_module_s_ceiling_helper_needs_the_tile_to_divide(
    tmp_path: Path,
) -> None:
    """v95 (gelu_ceil_helper: gelu_nomask's kernel without masks, ``assert n % 128 == 0``, its grid
    ``(ceil_div(n, BLOCK_SIZE),)`` by the module's ``def ceil_div(a, b): return (a + b - 1) // b`` beside ``BLOCK_SIZE =
    128``; reference.py builds 4 heads of whole groups of 128, so every timed size is a multiple of 512):
    ``BLOCK_SIZE = 512`` was written plainly with the rules on, the net "correct at batch=17,n_groups=17, ...", and
    writes past the end of a tensor of 384 values, which the original covers. The divisor rule read ``triton.cdiv``
    and the floor spellings only; now a ceiling helper's call (or a helper over ``triton.cdiv``) is read where it is
    called, the pick guarded ``if n % 512 == 0``."""
    import torch

    from tests.conftest import load_fresh, triton_interpreted

    base = (VARIANTS / "gelu_ceil_helper" / "kernel.py").read_text()
    plain = base.replace("    BLOCK_SIZE = 128\n", "    BLOCK_SIZE = 512\n")
    guard = "    BLOCK_SIZE = 128\n    if n % 512 == 0:  # kernelopt: tuned\n        BLOCK_SIZE = 512\n"
    over_cdiv = base.replace("return (a + b - 1) // b", "return triton.cdiv(a, b)")
    for text in (base, over_cdiv):
        guarded = guard_edit(text, text.replace("    BLOCK_SIZE = 128\n", "    BLOCK_SIZE = 512\n"))
        assert guarded.new_source is not None and guard in guarded.new_source, (guarded.note, guarded.new_source)
    assert "the grid at line 31 has ceil_div(n, BLOCK_SIZE) programs of a kernel without masks" in (guarded.note or "")
    # the plain pick at 3 x 128 values, its output inside a fenced buffer: it writes past the end, the original not
    (tmp_path / "plain.py").write_text(plain)
    (tmp_path / "kernel.py").write_text(base)
    x, bias = torch.randn(3, 128), torch.randn(128)
    with triton_interpreted():
        for name, past in (("kernel", False), ("plain", True)):
            module = load_fresh(tmp_path / f"{name}.py", f"wrongkernel22_v95_{name}")
            fenced = torch.full((1024,), float("nan"))
            module.torch = types.SimpleNamespace(empty_like=lambda t, f=fenced: f[: t.numel()].view_as(t))
            module.run(x, bias)
            assert bool(torch.isnan(fenced[384:]).all()) is not past, name


def test_v96_a_count_kept_from_zero_capped_or_taken_by_a_lambda_keeps_the_second_axis_within_the_limit() -> None:
    """v96 (grid_max_count: v88's row scale with ``n_blocks = max(1, triton.cdiv(n_cols, BLOCK))`` beside ``BLOCK =
    1024``): ``BLOCK = 256`` was written plainly with the rules on, the net "correct at n_rows=5,n_cols=8193, ...", a
    launch a GPU refuses past 256 * 65535 columns; so were ``min(triton.cdiv(n_cols, BLOCK), 1 << 20)``,
    ``int(...)``, ``int(math.ceil(n_cols / BLOCK))`` and a lambda bound to a name, ``nb = lambda n: triton.cdiv(n,
    BLOCK)`` called ``nb(n_cols)``. Now each is read as the count inside it: guarded ``if n_cols <= 256 * 65535``."""
    base = (VARIANTS / "grid_max_count" / "kernel.py").read_text()
    count = "    n_blocks = max(1, triton.cdiv(n_cols, BLOCK))\n"
    assert count in base
    guard = "    if n_cols <= 256 * 65535:  # kernelopt: tuned\n        BLOCK = 256\n"
    forms = (
        count,
        "    n_blocks = min(triton.cdiv(n_cols, BLOCK), 1 << 20)\n",
        "    n_blocks = int(math.ceil(n_cols / BLOCK))\n",
        "    nb = lambda n: triton.cdiv(n, BLOCK)  # noqa: E731\n    n_blocks = nb(n_cols)\n",
    )
    for form in forms:
        text = base.replace(count, form).replace("import torch\n", "import math\n\nimport torch\n", 1)
        guarded = guard_edit(text, text.replace("    BLOCK = 1024\n", "    BLOCK = 256\n"))
        assert guarded.new_source is not None and guard in guarded.new_source, (form, guarded.note)
    # the plain pick's launch at one row past its limit: more programs than a GPU takes, the original's within
    n_cols = 256 * 65535 + 1
    assert grid_problem((1, max(1, -(-n_cols // 1024)), 1)) is None
    assert grid_problem((1, max(1, -(-n_cols // 256)), 1)) is not None


def test_v97_a_tile_a_host_assert_pads_against_a_workspace_holds_only_as_a_divisor(tmp_path: Path) -> None:
    """v97 (pad_workspace: rows copied into a staging workspace of ``WORKSPACE = 3_000_000`` values padded to whole
    tiles, ``n_pad = triton.cdiv(n_cols, BLOCK) * BLOCK`` beside ``BLOCK = 1024``, ``assert n_rows * n_pad <=
    WORKSPACE``, the tile in the numerator): ``BLOCK = 2048`` was written plainly with the rules on (wrongkernel21's
    rule read the count alone, a smaller tile kept out and a larger one let in), the net "correct at
    n_rows=5,n_cols=8193, ...", and raises the assert at one row of 2999296, which the original pads to 2999296 and
    sums. A count times its own tile is a padded size: only a divisor of the original pads no further."""
    import torch

    from tests.conftest import load_fresh, triton_interpreted

    base = (VARIANTS / "pad_workspace" / "kernel.py").read_text()
    inline = base.replace("n_rows * n_pad <= WORKSPACE", "n_rows * triton.cdiv(n_cols, BLOCK) * BLOCK <= WORKSPACE")
    # refusals24 (u41): a tile that does not divide the original is guarded by dividing the size, where it pads
    # nothing (v97's rule refused it whole)
    for text, value in ((base, 2048), (base, 768), (inline, 2048)):
        guarded = guard_edit(text, text.replace("    BLOCK = 1024\n", f"    BLOCK = {value}\n"))
        assert guarded.new_source is not None and f"n_cols % {value} == 0" in guarded.tests[0], guarded.note
        said = "a size padded to whole tiles of BLOCK bounded from above; where the tile divides n_cols it pads nothing"
        assert value != 2048 or said in (guarded.note or ""), guarded.note
    # a divisor pads no further (its own limit, the grid's second axis, still asks a guard it cannot write here)
    halved = guard_edit(base, base.replace("    BLOCK = 1024\n", "    BLOCK = 512\n"))
    assert "padded" not in (halved.note or ""), halved.note
    plain = base.replace("    BLOCK = 1024\n", "    BLOCK = 2048\n")
    (tmp_path / "kernel.py").write_text(plain)
    assert -(-2999296 // 1024) * 1024 <= 3_000_000 < -(-2999296 // 2048) * 2048
    with triton_interpreted():
        module = load_fresh(tmp_path / "kernel.py", "wrongkernel22_v97_plain")
        with pytest.raises(AssertionError, match="the padded rows fit the workspace"):
            module.run(torch.empty(1, 1).expand(1, 2999296))


def test_v98_a_value_by_size_given_to_a_compile_cached_by_less_than_it_is_not_written() -> None:
    """v98 (gelu_cached_compile: v95's kernel compiled once a dtype into a module-level ``_compiled[x.dtype] =
    bias_gelu_kernel.warmup(..., BLOCK_SIZE=BLOCK_SIZE, grid=(1,))``, the softmax tutorial's form keyed by less than
    its ``BLOCK_SIZE``, and launched from there): a per-bucket table or a guard setting ``BLOCK_SIZE`` by size would
    launch the first call's compile at every size, its grid counted with another row's value (a call at 384 values,
    then at 8192: 16 programs of 128), and ``BLOCK_SIZE = 512`` was written plainly (the launch from the cache was no
    launch the rules read: past the end of 3 x 128 values). Now such a launch is read as the kernel's, and a value set
    by size and given to a cached compile whose key does not name it is not written. One value for every size is,
    and a key naming it lets a table and a guard in."""
    base = (VARIANTS / "gelu_cached_compile" / "kernel.py").read_text()
    row = "    BLOCK_SIZE = 128\n    if n >= 4096:  # kernelopt: tuned\n        BLOCK_SIZE = 512\n"
    table = base.replace("    BLOCK_SIZE = 128\n", row)
    refused = guard_edit(base, table)
    assert refused.new_source is None and refused.note is not None, refused.new_source
    assert "_compiled[x.dtype] keeps the kernel compiled with the first call's BLOCK_SIZE" in refused.note
    inline = base.replace("BLOCK_SIZE=BLOCK_SIZE, num_warps", "BLOCK_SIZE=512 if n >= 4096 else 128, num_warps")
    assert guard_edit(base, inline).new_source is None
    one = guard_edit(base, base.replace("    BLOCK_SIZE = 128\n", "    BLOCK_SIZE = 64\n"))
    assert one.new_source is not None and "kernelopt: tuned" not in one.new_source, one.note
    # the launch from the cache is read as the kernel's own: 512 needs ``n % 512 == 0``, a guard the cache refuses
    wider = guard_edit(base, base.replace("    BLOCK_SIZE = 128\n", "    BLOCK_SIZE = 512\n"))
    assert wider.new_source is None and "keeps the kernel compiled with" in (wider.note or ""), wider.new_source
    keyed = base.replace("_compiled[x.dtype]", "_compiled[x.dtype, BLOCK_SIZE]").replace(
        "x.dtype not in _compiled", "(x.dtype, BLOCK_SIZE) not in _compiled"
    )
    assert guard_edit(keyed, keyed.replace("    BLOCK_SIZE = 128\n", row)).new_source is not None
    guarded = guard_edit(keyed, keyed.replace("    BLOCK_SIZE = 128\n", "    BLOCK_SIZE = 512\n"))
    assert "    if n % 512 == 0:  # kernelopt: tuned\n        BLOCK_SIZE = 512\n" in (guarded.new_source or ""), (
        guarded.note
    )
