"""late16: a hostile reviewer's half hour on the session's last landings (docs/faults.md, "late16"). Each test is
a kernel a landing should handle beside a near neighbour it should not change, judged as a user would: what
``tune`` writes, run afresh with Triton's interpreter at sizes no ``SHAPES`` entry names, its inputs and its
``torch.empty`` outputs in the middle of NaN (tests/test_variants_cases.py's rule)."""

from __future__ import annotations

from pathlib import Path

import pytest

from kernelopt.tunables import discover_source
from tests.test_breaker7_cases import _all_correct
from tests.test_breaker_cases import _tune_edit

HELPER = Path(__file__).parent / "data" / "break16" / "warps_helper"


def _by_default() -> str:
    """break16's warps_helper with its block computed by a helper whose default reads the option (late16 l5)."""
    helper = (HELPER / "kernel.py").read_text()
    return helper.replace("def _block():\n    return NUM_WARPS * 32", "def _block(w=NUM_WARPS):\n    return w * 32")


_BODY_TILE = """import torch
import triton
import triton.language as tl


@triton.jit
def scale_kernel(x_ptr, y_ptr, n):
    BLOCK_SIZE: tl.constexpr = 128
    pid = tl.program_id(0)
    offs = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    tl.store(y_ptr + offs, x * 2.0, mask=mask)


def run(x):
    y = torch.empty_like(x)
    n = x.numel()
    scale_kernel[(triton.cdiv(n, 128),)](x, y, n)
    return y
"""

_REFERENCE = """import torch

ATOL = 1e-5
RTOL = 1e-5
SHAPES = [{"N": 40}, {"N": 50}, {"N": 64}]


def get_inputs(N=40, device="cpu"):
    g = torch.Generator().manual_seed(N)
    return [torch.randn(N, generator=g).to(device)]


def reference(x):
    return x * 2.0
"""


@pytest.mark.timeout(120)
def test_a_body_bound_tile_whose_grid_copy_is_a_literal_moved_with_it_stays_a_knob(tmp_path: Path) -> None:
    """breaker16 c1 held every tile a kernel's body binds (``BLOCK_SIZE: tl.constexpr = 128``) that its programs step
    by, also where the grid's copy is a literal (``triton.cdiv(n, 128)``) the edit links and moves with it: before c1
    (4feeb2ab~1) ``BLOCK_SIZE=64`` was written with ``triton.cdiv(n, 64)``, right at every size; after it ``tune
    --device cpu`` said "no tunable knob" (exit 2). The tile is a knob again where the grid holds its linked copy,
    and the write is right at sizes no entry names (65: past every entry's 64; 1; 1001); where the grid reads a
    module constant of another name (``BLOCK = 128``, ``triton.cdiv(n, BLOCK)``), which no edit moves, it stays
    held (c1's case)."""
    folder = tmp_path / "body_tile"
    folder.mkdir()
    (folder / "kernel.py").write_text(_BODY_TILE)
    (folder / "reference.py").write_text(_REFERENCE)
    tile = {t.key: t for t in discover_source(_BODY_TILE)}["scale_kernel:BLOCK_SIZE"]
    assert tile.editable, tile.refused_reason
    written, note = _tune_edit(folder, {"BLOCK_SIZE": 64})
    assert written is not None and "triton.cdiv(n, 64)" in written and "BLOCK_SIZE: tl.constexpr = 64" in written, note
    (folder / "kernel.py").write_text(written)
    _all_correct(folder, [{"N": 65}, {"N": 1}, {"N": 1001}])
    # the neighbour: the grid's copy a module constant no edit moves with the tile, held as c1 holds it
    constant = _BODY_TILE.replace("triton.cdiv(n, 128)", "triton.cdiv(n, BLOCK)").replace(
        "import triton.language as tl\n", "import triton.language as tl\n\nBLOCK = 128\n", 1
    )
    held = {t.key: t for t in discover_source(constant)}["scale_kernel:BLOCK_SIZE"]
    assert held.refused_reason is not None and "programs step through the data by it" in held.refused_reason


@pytest.mark.timeout(120)
def test_a_launch_option_read_by_a_parameter_s_default_casts_the_net(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """break16's b13 neighbour (a **wrong written kernel**, on a GPU): n69's ReLU (``n // BLOCK`` programs, no masks)
    with its block computed by a helper whose parameter's default reads the option (``def _block(w=NUM_WARPS):
    return w * 32``, or ``NUM_WARPS=NUM_WARPS``): ``readers.chained_values`` skipped every default, so a pick of
    ``num_warps=32`` (``NUM_WARPS = 32``, BLOCK 1024) was "only num_warps moved, which change no result at any size",
    the net not cast, and written: wrong at n=64 and 1088, which the original's 64 covers. The default is a read of
    the option where the function is defined; the net is cast and fails it. A default reading another name, or an
    attribute of the option's name, reads nothing."""
    from kernelopt.tunables.readers import chained_values
    from kernelopt.tuning import folder as tf
    from tests.test_newuser13_cases import _gpu_prepared
    from tests.test_tuning_net import _evaluator, _session

    data = Path(__file__).parent / "data" / "break16" / "warps_helper"
    helper = (data / "kernel.py").read_text()
    by_default = helper.replace(
        "def _block():\n    return NUM_WARPS * 32", "def _block(w=NUM_WARPS):\n    return w * 32"
    )
    shadowed = helper.replace("def _block():", "def _block(NUM_WARPS=NUM_WARPS):")
    other = helper.replace("def _block():\n    return NUM_WARPS * 32", "def _block(w=WIDTH):\n    return w * 32")
    other = other.replace("NUM_WARPS = 2\n", "NUM_WARPS = 2\nWIDTH = 2\nclass Cfg:\n    NUM_WARPS = 2\n")
    attribute = other.replace("def _block(w=WIDTH)", "def _block(w=Cfg.NUM_WARPS)")

    def chained(source: str) -> dict[str, object]:
        return chained_values(discover_source(source), source, ["num_warps"])

    assert chained(by_default) == {"the default of w in _block (line 15)": None}
    assert chained(shadowed) == {"the default of NUM_WARPS in _block (line 15)": None}
    assert chained(other) == {} and chained(attribute) == {}
    monkeypatch.setenv("TRITON_INTERPRET", "1")
    folder = tmp_path / "warps_default"
    folder.mkdir()
    (folder / "kernel.py").write_text(by_default)
    (folder / "reference.py").write_text((data / "reference.py").read_text())
    prepared = _gpu_prepared(folder, monkeypatch)
    with _evaluator(prepared) as evaluator:
        done = tf._checked_edit(_session(prepared, [({"num_warps": 32}, 10.0)], ({"num_warps": 2}, 20.0)), evaluator)
    assert done.edit is None and done.net is not None and done.net.failed is not None, done.edit_note
    assert done.edit_note is not None and "output not written" in done.edit_note, done.edit_note


@pytest.mark.gpu
@pytest.mark.timeout(600)
def test_on_a_gpu_a_block_computed_through_a_default_is_never_written_wrong(tmp_path: Path) -> None:
    """l5 on an NVIDIA GPU, where the session searches ``num_warps``: ``kernelopt tune --device cuda`` (a 120 s wall)
    on warps_helper with ``def _block(w=NUM_WARPS)``, then the kernel.py it leaves run at sizes no entry names that the
    original handles (multiples of its 64-element block): right at every one, whatever was written."""
    import torch

    from tests.gpu_correct import assert_correct, tuned_on_device

    folder = tmp_path / "warps_default_helper"
    folder.mkdir()
    (folder / "kernel.py").write_text(_by_default())
    (folder / "reference.py").write_text((HELPER / "reference.py").read_text())
    tuned_on_device(folder)
    shapes = [{"n": 64}, {"n": 1088}, {"n": 8256}, {"n": 1 << 20}]
    assert_correct(folder, shapes, lambda r: bool(torch.allclose(r.got, r.want, atol=1e-5, rtol=1e-5)))


def _flag_forms() -> dict[str, str]:
    """b14's flag kernel with its flag loaded from memory, and with the argument under ``do_not_specialize``."""
    from tests.test_break16_cases import _FLAGGED

    loaded = _FLAGGED.replace("n, flag, BLOCK", "n, flag_ptr, BLOCK").replace(
        "    offs = tl.arange(0, BLOCK)\n", "    flag = tl.load(flag_ptr)\n    offs = tl.arange(0, BLOCK)\n", 1
    )
    loaded = loaded.replace(
        "x.numel(), flag, BLOCK", "x.numel(), torch.tensor([flag], dtype=torch.int32, device=x.device), BLOCK"
    )
    unspecialized = _FLAGGED.replace("@triton.jit\n", '@triton.jit(do_not_specialize=["flag"])\n')
    assert loaded.count("flag_ptr") == 2 and "torch.tensor([flag]" in loaded and unspecialized != _FLAGGED
    return {"loaded": loaded, "unspecialized": unspecialized}


@pytest.mark.gpu
@pytest.mark.timeout(300)
def test_on_a_gpu_a_loaded_int_of_1_in_and_is_no_constexpr(tmp_path: Path) -> None:
    """l3 (left, docs/faults.md): b14's interpreter reads any integer scalar holding 1 as the constexpr a GPU launch
    makes of an argument of 1, so ``flag = tl.load(flag_ptr)`` holding 1 in ``if flag and n > 0`` runs under
    ``TRITON_INTERPRET=1``; on a GPU the loaded int32 is no constexpr and the compile joins it by ``logical_and``,
    which fails as b14's ``n > 0 and n`` does; and an argument of 1 under ``do_not_specialize`` the same. This test
    says whether the GPU agrees (the row's claim); the interpreter raises at both since leftovers17's l1."""
    import torch

    from tests.conftest import load_fresh

    for name, text in _flag_forms().items():
        path = tmp_path / f"{name}.py"
        path.write_text(text)
        module = load_fresh(path, f"_late16_{name}")
        with pytest.raises(Exception, match="bitcast|Cannot"):
            module.run(torch.ones(10, device="cuda"), 1)
            torch.cuda.synchronize()
