"""wrongkernel31: the forms late47 left unread (docs/faults.md, "The unread forms left"): a grid counted by a shift
by a module constant (v180), module constants worked out from others or made by ``tuple``/``range``/a comprehension,
and a check against one not read (v181), a padded buffer made in each branch of an ``if`` (v182), a check's bound
bound in each branch (v183), ``tunables --set`` writing a raised tile beside a size of the problem for every size
(v184), a search timing values the launcher's own assert rules out (v185), and ``divmod``'s whole tiles as a count
(v186). Each test fails before its fix; none runs a kernel."""

from __future__ import annotations

from pathlib import Path

import pytest

from kernelopt.tunables.guard import guard_edit
from tests.test_wrongkernel30_cases import V149, V149_GRID, V158, VARIANTS, _grown

V158_CHECK = '    assert BLOCK <= 1024, "the kernel keeps a block to 1024 lanes"\n'


def _with_module(text: str, module: str) -> str:
    """``text`` with ``module``'s lines put before its first kernel."""
    return text.replace("\n\n@triton.jit", f"\n{module}\n\n@triton.jit", 1)


@pytest.mark.parametrize(
    "grid",
    [
        "    grid = ((n + BLOCK - 1) >> SHIFT,)\n",
        "    grid = ((n + 255) >> SHIFT,)\n",
        "    grid = ((n + BLOCK - 1) // 2**SHIFT,)\n",
    ],
)
def test_v180_a_grid_counted_by_a_shift_by_a_module_constant_refuses_a_changed_tile(grid: str) -> None:
    """v180 (late47's Seen line on v170): v149's sum of squares without masks, ``BLOCK = 256``, on a grid counted by
    a shift by the module's ``SHIFT = 8``: ``>> SHIFT`` was no constant, so ``(n + BLOCK - 1) >> SHIFT`` kept the tile
    to divisors of the original (128 written plainly, covering half of ``n``) and ``(n + 255) >> SHIFT`` wrote every
    tile. The count does not move with the tile: any other tile is refused."""
    base = _with_module((V149 / "kernel.py").read_text(encoding="utf-8").replace(V149_GRID, grid), "SHIFT = 8\n")
    assert guard_edit(base, _grown(base, 512)).new_source is None
    refused = guard_edit(base, _grown(base, 128))
    assert refused.new_source is None and "a grid that counts its programs by a constant" in (refused.note or "")
    scope = {"n": 1024, "BLOCK": 128, "SHIFT": 8}  # the launcher's own line at n = 1024: four programs of 128 lanes
    exec(grid.strip(), {}, scope)
    assert scope["grid"][0] * 128 == 512 < 1024


def test_v180_a_split_by_a_module_name_is_not_read_as_a_constant_count() -> None:
    """A division by a module name that is no power of two (``// WORLD``, a split of the rows among workers) is no
    shift: it is not read as a count by a constant, and a divisor of the original is still written plainly."""
    grid = "    grid = (triton.cdiv(n, BLOCK) // WORLD,)\n"
    base = _with_module((V149 / "kernel.py").read_text(encoding="utf-8").replace(V149_GRID, grid), "WORLD = 2\n")
    assert "counts its programs by a constant" not in (guard_edit(base, _grown(base, 512)).note or "")


@pytest.mark.parametrize(
    ("module", "check", "past", "within"),
    [
        ("SUPPORTED = tuple(range(128, 1025, 128))\n", "    assert BLOCK in SUPPORTED\n", 2048, 512),
        ("SMALL = (128, 256)\nSUPPORTED = SMALL + (512,)\n", "    assert BLOCK in SUPPORTED\n", 2048, 512),
        ("SUPPORTED = tuple(1 << k for k in range(7, 10))\n", "    assert BLOCK in SUPPORTED\n", 1024, 512),
        ("WARP = 32\nMOST = WARP * 32\n", "    assert BLOCK <= MOST\n", 2048, 512),
        ("LANES = 1 << 10\nMOST = LANES\n", "    assert BLOCK <= MOST\n", 2048, 1024),
    ],
    ids=["tuple-range", "sum-of-tuples", "comprehension", "arithmetic", "chain"],
)
def test_v181_a_module_constant_worked_out_from_others_is_read_into_the_check(
    module: str, check: str, past: int, within: int
) -> None:
    """v181 (late47's Seen line on v171): v158's masked scale, ``BLOCK = 256``, its check against a module constant
    made by ``tuple(range(...))``, a sum of tuples or a comprehension was read by no rule, and ``BLOCK = 2048``
    was written plainly, failing the check wherever the original ran; one worked out from another constant (``MOST =
    WARP * 32``) was a bound not read, and 512 within it refused. Each is worked out: past it refused, within it
    written."""
    base = _with_module((V158 / "kernel.py").read_text(encoding="utf-8").replace(V158_CHECK, check), module)
    refused = guard_edit(base, base.replace("    BLOCK = 256\n", f"    BLOCK = {past}\n"))
    assert refused.new_source is None and f"BLOCK={past} fails the check at every size" in (refused.note or "")
    written = base.replace("    BLOCK = 256\n", f"    BLOCK = {within}\n")
    assert guard_edit(base, written).new_source == written


@pytest.mark.parametrize(
    ("module", "check"),
    [
        ("from kernel_sizes import SUPPORTED\n", "    assert BLOCK in SUPPORTED\n"),
        ("import json\nSUPPORTED = tuple(json.loads('[128, 256]'))\n", "    assert BLOCK in SUPPORTED\n"),
        ("from kernel_sizes import ONLY\n", "    if BLOCK != ONLY:\n        raise ValueError('one block')\n"),
    ],
    ids=["imported", "made-by-a-call", "raise"],
)
def test_v181_a_check_against_a_value_not_read_holds_the_original(module: str, check: str) -> None:
    """A check of the tile against a module name whose value is not read (imported, or made by a call) was no check
    to any rule: every tile was written plainly, 2048 and 128 alike, where the check may fail at every size. Now
    only the original holds."""
    base = _with_module((V158 / "kernel.py").read_text(encoding="utf-8").replace(V158_CHECK, check), module)
    for tile in (128, 2048):
        refused = guard_edit(base, base.replace("    BLOCK = 256\n", f"    BLOCK = {tile}\n"))
        assert refused.new_source is None, (tile, refused.new_source)
        assert "may fail the check" in (refused.note or "") and "is not read" in (refused.note or ""), refused.note


def test_v181_integer_values_reads_sequences_of_integers_and_bounds_their_length() -> None:
    """The evaluator v181's module constants are worked out by (:func:`kernelopt.tunables.arithmetic.integer_values`):
    the forms it reads, a name bound to a tuple, and no sequence past its cap (a ``range(2**40)`` is not built)."""
    import libcst as cst

    from kernelopt.tunables.arithmetic import SEQUENCE_MOST, integer_values

    def read(text: str, **names: object) -> tuple[int, ...] | None:
        return integer_values(cst.parse_expression(text), names)

    assert read("tuple(range(128, 1025, 128))") == (128, 256, 384, 512, 640, 768, 896, 1024)
    assert read("SMALL + (512, *SMALL)", SMALL=(128, 256)) == (128, 256, 512, 128, 256)
    assert read("sorted({W * k for k in range(3, 0, -1)})", W=32) == (32, 64, 96)
    assert read("[1 << k for k in range(2)]") == (1, 2)
    assert read("tuple(range(2**40))") is None and read(f"range({SEQUENCE_MOST + 1})") is None
    assert read("(k for k in range(4) if k)") is None and read("(x, 1)") is None and read("range(0, 8, 0)") is None


@pytest.mark.parametrize(
    "made",
    [
        "    if x.is_cuda:\n        ws = torch.zeros(n_rows, n_pad, device=x.device, dtype=x.dtype)\n"
        "    else:\n        ws = torch.zeros(n_rows, n_pad, dtype=x.dtype)\n",
        "    ws = torch.zeros(n_rows, n_pad, device=x.device, dtype=x.dtype)\n    ws += 0\n",
        "    ws = None\n    ws = torch.zeros(n_rows, n_pad, device=x.device, dtype=x.dtype)\n",
    ],
    ids=["if-else", "augmented", "rebound"],
)
@pytest.mark.parametrize("stride", ["ws.shape[1]", "ws.stride(0)"])
def test_v182_a_padded_buffer_bound_more_than_once_is_followed_through_every_binding(made: str, stride: str) -> None:
    """v182 (late47's Seen line on ``_made_strides``): v155's padded rows (``BLOCK = 1024``, the kernel indexing
    ``row * stride`` in int32) with the buffer made in each branch of an ``if``, or rebound: a name bound more than
    once was followed by no reader of the stride, and ``BLOCK = 4096`` was written plainly; at 1025 columns a row
    pads to 4096 and ``row * stride`` passes 2**31 from row 524288, where the original's 2048 indexes every row up to
    1048576 (v117). Each binding is followed: guarded ``n_cols % 4096 == 0`` as v117 is."""
    base = (VARIANTS / "pad_rows_shape" / "kernel.py").read_text(encoding="utf-8")
    base = base.replace("    ws = torch.zeros(n_rows, n_pad, device=x.device, dtype=x.dtype)\n", made)
    base = base.replace("ws.shape[1], BLOCK=BLOCK)", f"{stride}, BLOCK=BLOCK)")
    guarded = guard_edit(base, base.replace("    BLOCK = 1024\n", "    BLOCK = 4096\n"))
    assert guarded.tests == ("n_cols % 4096 == 0",), guarded.note
    assert 524288 * 4096 >= 2**31 > 1048575 * 2048  # the launcher's index at 1025 columns, new and original


@pytest.mark.parametrize(
    "bound",
    [
        "    most = 1024\n    if x.dtype == torch.float64:\n        most = 512\n",
        "    if x.dtype == torch.float64:\n        most = 512\n    else:\n        most = 1024\n",
        "    most = 512 if x.dtype == torch.float64 else 1024\n",
    ],
    ids=["override", "if-else", "conditional"],
)
def test_v183_a_check_s_bound_bound_in_each_branch_is_read_as_its_tightest(bound: str) -> None:
    """v183 (late47's Seen line on ``_bound_value``): v158's check against a local bound in each branch of an ``if``
    (``most`` 512 for float64, else 1024) was a bound not read, so only divisors of the original held and ``BLOCK =
    512``, within every branch's bound, was refused (speed lost). The bound is the tightest of its values: 512
    written, 1024 (past the float64 branch's) and 2048 refused."""
    base = (V158 / "kernel.py").read_text(encoding="utf-8").replace(V158_CHECK, bound + "    assert BLOCK <= most\n")
    written = base.replace("    BLOCK = 256\n", "    BLOCK = 512\n")
    assert guard_edit(base, written).new_source == written
    for past in (1024, 2048):
        refused = guard_edit(base, base.replace("    BLOCK = 256\n", f"    BLOCK = {past}\n"))
        assert refused.new_source is None and "fails the check" in (refused.note or ""), refused.note


#: A kernel of tiles of BLOCK rows by the whole head (``D``, the head's size, a ``tl.constexpr`` from the input's
#: shape): a raised BLOCK grows a tile a size of the problem spans too (late44's l140 form)
HEAD_SCALE = '''"""A per-head scale over rows: tiles of BLOCK rows by the whole head, D the head's size."""

import torch
import triton
import triton.language as tl


@triton.jit
def head_scale(x_ptr, w_ptr, y_ptr, n, D: tl.constexpr, BLOCK: tl.constexpr):
    rows = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    cols = tl.arange(0, D)
    mask = rows[:, None] < n
    x = tl.load(x_ptr + rows[:, None] * D + cols[None, :], mask=mask)
    w = tl.load(w_ptr + cols)
    tl.store(y_ptr + rows[:, None] * D + cols[None, :], x * w[None, :], mask=mask)


def run(x, w):
    n, d = x.shape
    y = torch.empty_like(x)
    BLOCK = 32
    head_scale[(triton.cdiv(n, BLOCK),)](x, w, y, n, D=d, BLOCK=BLOCK)
    return y
'''


def test_v184_tunables_set_bounds_a_raised_tile_beside_a_size_by_the_entries_sizes(tmp_path: Path) -> None:
    """v184 (late44's Seen line on l140): ``tunables --set BLOCK=128`` over ``BLOCK = 32`` beside the head's ``D``
    wrote the raised ``[BLOCK, D]`` tile for every head size (guarded by Triton's numel limit alone, ``d <= 1048576 //
    128``), where ``tune`` writes it only up to the sizes its run at the ``SHAPES`` entries told: past them its
    footprint was never compiled. ``--set`` now takes tune's rule (``size_tiles.size_bounded``): with a run's sizes
    (here an evaluation built from its model, D at most 64) it writes ``if d <= 64:``; without one it refuses,
    naming what it needs. A smaller tile is written plainly."""
    from kernelopt.tunables.edit import apply
    from kernelopt.tunables.model import AutotuneEvaluation, ShapeSizes, TunableError

    kernel = tmp_path / "kernel.py"
    kernel.write_text(HEAD_SCALE, encoding="utf-8")
    with pytest.raises(TunableError, match="beside D, a size of the problem no run told") as refused:
        apply(kernel, {"BLOCK": 128}, write=False)
    assert "--reference" in (refused.value.hint or "")
    told = [ShapeSizes(shape={"N": 100, "D": d}, sizes={"head_scale": {'args["D"]': d}}) for d in (16, 64)]
    result = apply(kernel, {"BLOCK": 128}, write=False, evaluation=AutotuneEvaluation(shape_sizes=told))
    assert "    BLOCK = 32\n    if d <= 64:  # kernelopt: tuned\n        BLOCK = 128\n" in result.new_source
    assert "D up to 64 checked" in (result.guard or ""), result.guard
    smaller = apply(kernel, {"BLOCK": 16}, write=False)
    assert smaller.guard is None and "    BLOCK = 16\n" in smaller.new_source


def test_v185_a_search_leaves_out_the_values_the_launcher_s_own_check_fails() -> None:
    """v185: v158's launcher asserts ``BLOCK <= 1024``; discovery lists BLOCK up to Triton's 1048576, and tune's
    space held 2048 to 65536 too (624 configurations), each of which fails the assert at every size and is never
    written. The space leaves them out (336), saying why; the guard's one reading of the check
    (``guard.tile_checks``) tells it, for a launcher's local passed under another name too (``BLOCK=block``)."""
    from kernelopt.tunables.analysis import discover_source
    from kernelopt.tuning.launch import space_from_tunables

    source = (V158 / "kernel.py").read_text(encoding="utf-8")
    space = space_from_tunables(discover_source(source), source=source)
    block = next(k for k in space.knobs if k.name == "BLOCK")
    assert block.values[-1] == 1024 and 256 in block.values, block
    assert any("BLOCK leaves out 2048" in n and "asserts BLOCK <= 1024" in n for n in space.domain_notes)
    renamed = source.replace("    BLOCK = 256\n", "    block = 256\n").replace(
        "assert BLOCK <= 1024", "assert block <= 1024"
    )
    renamed = renamed.replace("cdiv(n, BLOCK),)](x, y, n, BLOCK=BLOCK)", "cdiv(n, block),)](x, y, n, BLOCK=block)")
    assert "BLOCK=block" in renamed  # the launcher's local passed as the kernel's BLOCK: the same check
    cut = space_from_tunables(discover_source(renamed), source=renamed)
    assert next(k for k in cut.knobs if k.name == "BLOCK").values[-1] == 1024
    plain = source.replace(V158_CHECK, "")
    whole = space_from_tunables(discover_source(plain), source=plain)
    assert next(k for k in whole.knobs if k.name == "BLOCK").values[-1] > 1024  # no check: no cut


@pytest.mark.parametrize(
    "grid",
    [
        "    div, mod = divmod(n, BLOCK)\n    grid = (div + (mod != 0),)\n",
        "    div, mod = divmod(n, BLOCK)\n    grid = (div,)\n",
        "    tiles = divmod(n, BLOCK)\n    grid = (tiles[0] + (tiles[1] > 0),)\n",
    ],
    ids=["ceiling", "floor", "indexed"],
)
def test_v186_divmod_s_whole_tiles_are_read_as_a_count(grid: str) -> None:
    """v186 (the lead's d46): v149's sum without masks on a grid counted by ``divmod(n, BLOCK)`` (its ceiling ``div +
    (mod != 0)``, as unsloth's chunked cross-entropy writes it, or its floor) was a count not read: ``BLOCK = 512``
    over 256 was refused where a guard by the size makes it right (speed lost). ``divmod``'s whole tiles are read as
    a count: guarded ``n % 512 == 0``, a divisor still written plainly."""
    base = (V149 / "kernel.py").read_text(encoding="utf-8").replace(V149_GRID, grid)
    guarded = guard_edit(base, _grown(base, 512))
    assert guarded.tests == ("n % 512 == 0",), guarded.note
    assert guard_edit(base, _grown(base, 128)).new_source == _grown(base, 128)


@pytest.mark.parametrize(
    ("module", "says"),
    [
        ("BASE = 256\nTILE = BASE\n", "still divides by 256"),
        ("TILE = 1 << 8\n", "still divides by 256"),
        ("TILE = 2 * 128\n", "still divides by 256"),
        ("from kernel_sizes import TILE\n", "a grid that counts its programs by a constant"),
    ],
    ids=["chain", "shift", "product", "imported"],
)
def test_v187_a_grid_divided_by_a_module_copy_of_the_tile_not_a_literal_refuses_a_smaller_tile(
    module: str, says: str
) -> None:
    """v187 (v181's reading, asked of the copy rules): v149's sum without masks on ``grid = ((n + BLOCK - 1) //
    TILE,)`` beside ``BLOCK = 256``: with ``TILE = 256`` the copy rule refuses 128 (the grid still counts tiles of
    256); with ``TILE`` worked out from another constant, a shift or a product, or imported, no rule read the copy,
    and ``BLOCK = 128`` was written plainly: ``cdiv(n, 256)`` programs of 128 lanes cover half of ``n``."""
    grid = "    grid = ((n + BLOCK - 1) // TILE,)\n"
    base = _with_module((V149 / "kernel.py").read_text(encoding="utf-8").replace(V149_GRID, grid), module)
    refused = guard_edit(base, _grown(base, 128))
    assert refused.new_source is None and says in (refused.note or ""), refused.note
    scope = {"n": 1024, "BLOCK": 128, "TILE": 256}  # the launcher's own line at n = 1024: four programs of 128 lanes
    exec(grid.strip(), {}, scope)
    assert scope["grid"][0] * 128 == 512 < 1024


def test_v184_tunables_set_in_a_task_folder_runs_its_reference_to_bound_the_raise(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """v184 in the command: ``tunables kernel.py --set BLOCK=128`` in a task folder (its reference.py beside it), no
    ``--reference`` given, refused the raise for want of a run, where ``tune`` on the same folder runs the task and
    writes it bounded. The command now runs the reference beside the kernel once, as tune does, and writes ``if d <=
    64:``. The run is stood in for (discovery's worker with its sizes at two entries, built from its models): this
    test is of the command's wiring, not the run."""
    from kernelopt.cli import tunables as command
    from kernelopt.cli.app import main
    from kernelopt.tunables.analysis import discover_source
    from kernelopt.tunables.model import AutotuneEvaluation, ShapeSizes

    (tmp_path / "kernel.py").write_text(HEAD_SCALE, encoding="utf-8")
    (tmp_path / "reference.py").write_text("SHAPES = [{'N': 100, 'D': 16}, {'N': 100, 'D': 64}]\n", encoding="utf-8")
    runs: list[Path | None] = []

    def discovered(file: Path, *, reference: Path | None, **_: object) -> tuple[list[object], object]:
        runs.append(reference)
        told = [ShapeSizes(shape={"N": 100, "D": d}, sizes={"head_scale": {'args["D"]': d}}) for d in (16, 64)]
        evaluation = AutotuneEvaluation(shape_sizes=told) if reference is not None else None
        return discover_source(file.read_text(encoding="utf-8")), evaluation

    monkeypatch.setattr(command, "_discover", discovered)
    code = main(["tunables", str(tmp_path / "kernel.py"), "--set", "BLOCK=128", "--dry-run"])
    out, err = capsys.readouterr()
    assert code == 0, err
    assert runs == [None, tmp_path / "reference.py"], runs
    assert "+    if d <= 64:  # kernelopt: tuned" in out and "running " in err, (out, err)
