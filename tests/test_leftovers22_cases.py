"""leftovers22: the twenty-first session's closing note's "Left" items (docs/faults.md, "Leftovers (leftovers22,
2026-12-07)"): knob discovery for the launch patterns people write (a config list local to the launcher, l15), ..."""

from __future__ import annotations

from pathlib import Path

import pytest

DATA = Path(__file__).parent / "data" / "leftovers22"


# ------------------------------------------------- l15: a grid reading cfg[0], the value BLOCK is computed from

_CFG_FORMS = {
    "list": ("cfg = [1024, 4]", "cfg[0]", "cfg[1]"),
    "dict": ('cfg = {"BLOCK": 1024, "warps": 4}', 'cfg["BLOCK"]', 'cfg["warps"]'),
}


@pytest.mark.parametrize("form", sorted(_CFG_FORMS))
def test_l15_a_grid_reading_the_config_element_moves_with_the_tuned_block(form: str, tmp_path: Path) -> None:
    """``cfg = [1024, 4]`` local to ``run()``, launched ``scale_kernel[(triton.cdiv(n, cfg[0]),)](.., BLOCK=cfg[0])``:
    on main a BLOCK of 512 hoisted ``BLOCK = cfg[0]`` and overrode it, but the grid kept ``cfg[0]``, counting tiles
    of 1024 for a kernel stepping by 512 (half the values never written, at every size). Now the grid's copy is
    replaced by the variable too, and the written kernel doubles every value in Triton's interpreter at sizes no
    SHAPES entry names; a constant list is no size a table reads."""
    import torch

    from kernelopt.tunables import discover_source
    from kernelopt.tunables.edit import apply_source
    from kernelopt.tunables.guard import guard_edit
    from tests.conftest import load_fresh, triton_interpreted

    bind, block, warps = _CFG_FORMS[form]
    source = (DATA / "cfg_index" / "kernel.py").read_text()
    source = source.replace("cfg = [1024, 4]", bind).replace("cfg[0]", block).replace("cfg[1]", warps)
    found = {t.key: t for t in discover_source(source)}
    assert found["scale_kernel:BLOCK"].editable and found["scale_kernel:BLOCK"].size_names == []
    written = apply_source(source, {"scale_kernel:BLOCK": 512}).new_source
    assert "scale_kernel[(triton.cdiv(n, BLOCK),)](x, y, n, BLOCK=BLOCK," in written, written
    assert guard_edit(source, written).new_source == written
    (tmp_path / "kernel.py").write_text(written)
    with triton_interpreted():
        module = load_fresh(tmp_path / "kernel.py", f"leftovers22_l15_{form}")
        for n in (1, 513, 4097):
            x = torch.randn(n)
            assert torch.equal(module.run(x), x * 2.0), n
