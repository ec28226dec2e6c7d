"""review30: the late landings read again (docs/faults.md, "The late landings read again (review30, 2026-12-07)").
Each test failed on main before its fix; none runs a kernel."""

from __future__ import annotations

from pathlib import Path

import pytest

pytestmark = pytest.mark.timeout(120)

STENCIL = Path(__file__).parent / "data" / "breaker30" / "stencil_cfg" / "kernel.py"

#: stencil_cfg's ``StencilTiles`` (BLOCK_H: int = 8), again under an ``if``: on CUDA the second class runs, 16 rows
SECOND = """

if torch.version.hip is None:

    @dataclass(frozen=True)
    class StencilTiles:
        BLOCK_H: int = 16
        BLOCK_W: int = 64
        num_warps: int = 4

        @classmethod
        def for_width(cls, width: int) -> "StencilTiles":
            return cls(BLOCK_W=min(128, triton.next_power_of_2(width)))


@triton.jit"""


@pytest.mark.parametrize(
    ("old", "new"),
    [
        ("\n\n@triton.jit", SECOND),
        ("    num_warps: int = 4\n", "    num_warps: int = 4\n    BLOCK_H = 16\n"),
        ("class StencilTiles:", "class StencilTiles(metaclass=Meta):"),
    ],
    ids=["a-second-class", "a-later-binding", "a-metaclass"],
)
def test_r100_a_dataclass_default_another_line_may_change_is_not_the_value_at_every_size(
    tmp_path: Path, old: str, new: str
) -> None:
    """l261 judged a literal over ``cfg.BLOCK_H`` against the first ``StencilTiles`` of the file's ``BLOCK_H: int =
    8``: with a second class of the name (a ``hip`` branch's, 16 rows where CUDA runs), a later ``BLOCK_H = 16`` in
    the class body (the dataclass's default then) or a metaclass, ``BLOCK_H=8`` was written, twice the programs on
    the grid's axis 1 (at most 65535) of the 16 the original ran: a launch refused past ``H = 8 * 65535``."""
    from kernelopt.tunables import apply
    from kernelopt.tunables.model import TunableError

    original = STENCIL.read_text()
    text = original.replace(old, new, 1)
    assert text != original
    kernel = tmp_path / "kernel.py"
    kernel.write_text(text)
    with pytest.raises(TunableError, match="BLOCK_H=8 over a computed value does not cover every size"):
        apply(kernel, {"_jacobi5:BLOCK_H": 8}, write=False)


@pytest.mark.parametrize(
    "binding",
    [
        "_tiles = lambda c: (4, 1024)  # noqa: E731\n",
        "from tiles_lib import _tiles\n",
        "def setup(other):\n    global _tiles\n    _tiles = other\n",
    ],
    ids=["an-assignment", "an-import", "a-global"],
)
def test_r101_a_helper_whose_name_another_line_binds_gives_no_values(tmp_path: Path, binding: str) -> None:
    """l265 judged a literal over scatter_rows' ``BLOCK_R, BLOCK_C = _tiles(C)`` against the returns of the file's
    ``def _tiles`` (64, 128, 256): where the name is bound again after it (an assignment, an import, a ``global``
    a function sets), the call runs that binding, here 1024 columns a program, and ``BLOCK_C=256`` was written, four
    times the programs on the grid's axis 1 (at most 65535): a launch refused past ``C = 256 * 65535``."""
    from kernelopt.tunables import apply
    from kernelopt.tunables.model import TunableError

    original = (Path(__file__).parent / "data" / "breaker30" / "scatter_rows" / "kernel.py").read_text()
    text = original.replace("\n\ndef run(", f"\n\n{binding}\n\ndef run(", 1)
    assert text != original
    kernel = tmp_path / "kernel.py"
    kernel.write_text(text)
    with pytest.raises(TunableError, match="BLOCK_C=256 over a computed value does not cover every size"):
        apply(kernel, {"_scatter_rows:BLOCK_C": 256}, write=False)


#: an unmasked kernel launched on ``n // meta["BLOCK"]`` programs (every size a multiple of 64), its list's ``BLOCK``
#: set by late53's l230 written form below 4096 elements
PICKED = """import torch
import triton
import triton.language as tl


@triton.autotune(configs=[triton.Config({"BLOCK": 32}), triton.Config({"BLOCK": 64})], key=["n"])
@triton.heuristics({"BLOCK": lambda args: 64 if args["n"] <= 4096 else args["BLOCK"]})
@triton.jit
def scale(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(y_ptr + offs, tl.load(x_ptr + offs) * 2)


def run(x):
    n = x.numel()
    assert n % 64 == 0
    y = torch.empty_like(x)
    scale[lambda meta: (n // meta["BLOCK"],)](x, y, n)
    return y
"""


def test_r102_a_written_pick_s_value_a_retune_raises_must_divide_what_the_original_handled(tmp_path: Path) -> None:
    """l252 made the value of l230's written pick (``64 if args["n"] <= 4096 else args["BLOCK"]``) a knob, while
    guard's ``_decorator_tiles`` read the lambda's whole body as its value, no integer, so nothing was asked of it:
    ``tunables --set scale.heuristics.BLOCK=128`` (and tune's change by name) was written over ``n // meta["BLOCK"]``
    programs of a kernel without masks, wrong at n = 192 (one program of 128). Each row of the pick is a value it runs
    now, the fallback the configs' values: 128 is refused, 16 (which divides 64) written."""
    from kernelopt.tunables import apply
    from kernelopt.tunables.model import TunableError

    kernel = tmp_path / "kernel.py"
    kernel.write_text(PICKED)
    with pytest.raises(TunableError, match="BLOCK=128 does not divide every size the original BLOCK=64 handled"):
        apply(kernel, {"scale.heuristics.BLOCK": 128}, write=False)
    assert "lambda args: 16 if" in apply(kernel, {"scale.heuristics.BLOCK": 16}, write=False).new_source


def test_r103_an_environment_default_moved_must_divide_what_the_original_handled(tmp_path: Path) -> None:
    """An environment default is a knob (``BLOCK = int(os.environ.get("SCALE_BLOCK", "64"))``, breaker31's
    colstats_env form), and its move was judged by no guard rule: ``tunables --set BLOCK=128`` was written over
    ``n // BLOCK`` programs of a kernel without masks, wrong at n = 192 where the variable is unset, while ``BLOCK =
    64`` written plainly is refused. The default is read as the literal it is where the variable is unset: 128
    refused as over ``BLOCK = 64``, 32 (which divides 64) written."""
    from kernelopt.tunables import apply
    from kernelopt.tunables.model import TunableError

    env = '\nBLOCK = int(os.environ.get("SCALE_BLOCK", "64"))\n'
    text = "import os\n" + PICKED.replace("\n\n@triton.autotune", env + "\n\n@triton.autotune", 1)
    text = text.replace(PICKED.split("\n")[5] + "\n" + PICKED.split("\n")[6] + "\n", "")
    text = text.replace(
        'scale[lambda meta: (n // meta["BLOCK"],)](x, y, n)', "scale[(n // BLOCK,)](x, y, n, BLOCK=BLOCK)"
    )
    assert "autotune" not in text and "n // BLOCK" in text and env in text
    kernel = tmp_path / "kernel.py"
    kernel.write_text(text)
    with pytest.raises(TunableError, match="BLOCK=128 does not divide every size the original BLOCK=64 handled"):
        apply(kernel, {"BLOCK": 128}, write=False)
    assert '"SCALE_BLOCK", "32"' in apply(kernel, {"BLOCK": 32}, write=False).new_source


def test_r104_a_fixed_value_in_place_of_a_heuristic_s_literal_rows_must_divide_what_they_handled(
    tmp_path: Path,
) -> None:
    """A hand-written heuristic of literal rows (``lambda args: 64 if args["n"] <= 4096 else 32``) over ``n //
    meta["BLOCK"]`` programs of a kernel without masks: ``tunables --set scale.heuristics.BLOCK=128`` wrote ``lambda
    args: 128`` (the rows read as one value, no integer), wrong at n = 192. Each row is a value now, and a row runs
    only where its test holds (r109: the sizes handled are those every row divides, not their least common multiple):
    128 and 64 refused, 32 written."""
    from kernelopt.tunables import apply
    from kernelopt.tunables.model import TunableError

    text = PICKED.replace(PICKED.split("\n")[5] + "\n", "").replace('else args["BLOCK"]', "else 32")
    assert "autotune" not in text and 'lambda args: 64 if args["n"] <= 4096 else 32' in text
    kernel = tmp_path / "kernel.py"
    kernel.write_text(text)
    for raised in (128, 64):  # r109: 64 too, wrong at n = 4160 (past 4096, where the row 32 ran)
        with pytest.raises(TunableError, match=f"BLOCK={raised} does not divide every size the original BLOCK=32"):
            apply(kernel, {"scale.heuristics.BLOCK": raised}, write=False)
    assert '"BLOCK": lambda args: 32}' in apply(kernel, {"scale.heuristics.BLOCK": 32}, write=False).new_source


def test_r105_a_pick_s_rows_nested_by_tune_s_bound_are_each_a_value() -> None:
    """tune's raise of a written pick bounded again nests its rows (``(128 if args["n"] <= 1024 else 64) if
    args["n"] <= 4096 else args["BLOCK"]``, l252's ``_size_bounded``): after r102 the nested row read as one value,
    no integer, so 128 over ``n // meta["BLOCK"]`` programs without masks was written (wrong at n = 192). Every leaf
    is a value now: refused; a nested 32 (which divides 64) written."""
    from kernelopt.tunables.guard import guard_edit

    pick = 'lambda args: 64 if args["n"] <= 4096 else args["BLOCK"]'
    assert pick in PICKED
    for row, kept in (("128", False), ("32", True)):
        nested = f'lambda args: ({row} if args["n"] <= 1024 else 64) if args["n"] <= 4096 else args["BLOCK"]'
        done = guard_edit(PICKED, PICKED.replace(pick, nested))
        assert (done.new_source is not None) is kept, done.note
        assert kept or "BLOCK=128 does not divide every size the original BLOCK=64 handled" in (done.note or "")


def test_r106_a_settings_object_handed_to_a_call_may_have_its_frozen_field_set(tmp_path: Path) -> None:
    """l261 read ``cfg.BLOCK_H`` as the frozen field's default 8 while the launcher set it past a size
    (``object.__setattr__(cfg, "BLOCK_H", 32)`` where ``H > 4096``): ``BLOCK_H=8`` was written, four times the
    programs on axis 1 of the original's 32 there. A settings object handed to a call (read other than by its
    attributes) gives no default now."""
    from kernelopt.tunables import apply
    from kernelopt.tunables.model import TunableError

    original = STENCIL.read_text()
    bind = "    cfg = StencilTiles.for_width(W)\n"
    text = original.replace(bind, bind + '    if H > 4096:\n        object.__setattr__(cfg, "BLOCK_H", 32)\n')
    assert text != original
    kernel = tmp_path / "kernel.py"
    kernel.write_text(text)
    with pytest.raises(TunableError, match="BLOCK_H=8 over a computed value does not cover every size"):
        apply(kernel, {"_jacobi5:BLOCK_H": 8}, write=False)


def test_r107_a_fixed_block_in_place_of_a_heuristic_s_covering_rows_is_not_written() -> None:
    """r104 read a heuristic's literal rows as values, so v127's rule (a fixed block in place of a computed one
    that covers a size) no longer saw a computation: rows_heuristic_pair's ``BLOCK_N`` written ``1024 if
    args["n_cols"] <= 1024 else 4096`` and moved to ``lambda args: 2048`` was written (2048 covers more than the
    least row), a row of 3000 summed over its first 2048. The rows stay a computation for that rule."""
    from kernelopt.tunables.guard import guard_edit

    base = (Path(__file__).parent / "data" / "variants" / "rows_heuristic_pair" / "kernel.py").read_text()
    computed = 'lambda args: triton.next_power_of_2(args["n_cols"]),'
    rows = base.replace(computed, 'lambda args: 1024 if args["n_cols"] <= 1024 else 4096,', 1)
    assert rows != base
    done = guard_edit(rows, rows.replace('1024 if args["n_cols"] <= 1024 else 4096,', "2048,", 1))
    assert done.new_source is None and "BLOCK_N=2048 in place of the computed 1024 if" in (done.note or ""), done


def test_r108_a_heuristic_s_row_keeps_no_size_a_pruned_config_handled() -> None:
    """r102 read a heuristic's rows as values of the kernel's decorators, and the pruned list's rule (v137) took
    them for the list's: prune_divides (``BLOCK`` 64, 128, 256 pruned to those dividing the row) under ``64 if
    args["n_cols"] <= 64 else args["BLOCK"]``, its 64 config raised to 128, was written, the row 64 read as a
    divisor kept; at 192 columns the prune keeps none ("No valid autotuner configs after pruning"). A row runs
    only where its test holds: the list's values are its configs' alone."""
    from kernelopt.tunables.guard import guard_edit

    base = (Path(__file__).parent / "data" / "variants" / "prune_divides" / "kernel.py").read_text()
    pick = '@triton.heuristics({"BLOCK": lambda args: 64 if args["n_cols"] <= 64 else args["BLOCK"]})\n'
    picked = base.replace("@triton.jit", pick + "@triton.jit", 1)
    assert picked != base
    done = guard_edit(picked, picked.replace('{"BLOCK": 64}', '{"BLOCK": 128}'))
    assert done.new_source is None and "BLOCK=128" in (done.note or "") and "does not divide" in (done.note or "")
