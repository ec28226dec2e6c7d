"""wrongkernel32: the unread forms still open after wrongkernel31, review28, late49, late52 and breaker29
(docs/faults.md, "The unread forms still open"): a grid counted by a shift by a name the launching function binds to
a constant (v190), an output the check cannot compare read as kernelopt's own bug (v191), ... Each test fails before
its fix; none runs a kernel."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from kernelopt.tunables.guard import guard_edit
from tests.test_wrongkernel30_cases import V149, V149_GRID, V158, _grown

V158_CHECK = '    assert BLOCK <= 1024, "the kernel keeps a block to 1024 lanes"\n'


def _with_module(text: str, module: str) -> str:
    """``text`` with ``module``'s lines put before its first kernel."""
    return text.replace("\n\n@triton.jit", f"\n{module}\n\n@triton.jit", 1)


@pytest.mark.parametrize(
    ("module", "grid"),
    [
        ("", "    SHIFT = 8\n    grid = ((n + BLOCK - 1) >> SHIFT,)\n"),
        (
            "import os\n",
            "    SHIFT = int(os.environ.get('SUMSQ_SHIFT', '8'))\n    grid = ((n + BLOCK - 1) >> SHIFT,)\n",
        ),
        (
            "import os\n",
            "    if os.environ.get('SUMSQ_WIDE'):\n        SHIFT = 9\n    else:\n        SHIFT = 8\n"
            "    grid = ((n + BLOCK - 1) >> SHIFT,)\n",
        ),
        ("SHIFT = 8\n", "    global SHIFT\n    SHIFT = 8\n    grid = ((n + BLOCK - 1) // 2**SHIFT,)\n"),
    ],
    ids=["local", "call", "if-else", "global"],
)
def test_v190_a_shift_by_a_name_the_launcher_binds_to_a_constant_refuses_a_changed_tile(module: str, grid: str) -> None:
    """v190 (wrongkernel31's Seen line on v180): v149's sum of squares without masks, ``BLOCK = 256``, on a grid
    counted by a shift by a name the launching function binds (``SHIFT = 8``, from the environment, in each branch of
    an ``if``, or as a ``global``): any name the function bound was no constant, so ``BLOCK = 128`` (a divisor of the
    original) was written plainly and ``cdiv(n, 256)`` programs of 128 lanes covered half of ``n``. A name whose
    values read no tile is a constant count: every other tile refused."""
    base = _with_module((V149 / "kernel.py").read_text(encoding="utf-8").replace(V149_GRID, grid), module)
    refused = guard_edit(base, _grown(base, 128))
    assert refused.new_source is None and "a grid that counts its programs by a constant" in (refused.note or "")
    scope = {"n": 1024, "BLOCK": 128, "SHIFT": 8}  # the launcher's count at n = 1024: four programs of 128 lanes
    exec("grid = ((n + BLOCK - 1) >> SHIFT,)", {}, scope)
    assert scope["grid"][0] * 128 == 512 < 1024


def test_v190_a_shift_that_moves_with_the_tile_keeps_a_divisor_of_the_original() -> None:
    """The control: a shift the launcher computes from the tile (``SHIFT = BLOCK.bit_length() - 1``) moves with it,
    so its count is the tile's own: a divisor of the original is written, as before."""
    grid = "    SHIFT = BLOCK.bit_length() - 1\n    grid = ((n + BLOCK - 1) >> SHIFT,)\n"
    base = (V149 / "kernel.py").read_text(encoding="utf-8").replace(V149_GRID, grid)
    for tile in (64, 128):
        written = _grown(base, tile)
        assert guard_edit(base, written).new_source == written


@pytest.mark.parametrize(
    "shift",
    ["8 if BLOCK >= 256 else 7", "max(7, BLOCK.bit_length() - 1)"],
    ids=["conditional", "floored"],
)
def test_v197_a_shift_that_moves_with_the_tile_counts_its_tiles_only_where_it_is_the_tile_s_power(shift: str) -> None:
    """v197 (seen beside v190): a shift the launcher computes from the tile but that is not its power at every value
    (``SHIFT = 8 if BLOCK >= 256 else 7``, ``max(7, BLOCK.bit_length() - 1)``) was the divisor rule's, and ``BLOCK =
    64`` was written plainly: ``(n + 63) >> 7`` programs of 64 lanes cover half of ``n``. The count is whole tiles
    only where ``1 << SHIFT`` is the tile: 64 refused ("fails the check"), 128 written."""
    grid = f"    SHIFT = {shift}\n    grid = ((n + BLOCK - 1) >> SHIFT,)\n"
    base = (V149 / "kernel.py").read_text(encoding="utf-8").replace(V149_GRID, grid)
    refused = guard_edit(base, _grown(base, 64))
    assert refused.new_source is None and "BLOCK=64 fails the check at every size" in (refused.note or "")
    scope = {"n": 1024, "BLOCK": 64}  # the launcher's own lines at n = 1024: 8 programs of 64 lanes
    exec(f"SHIFT = {shift}\ngrid = ((n + BLOCK - 1) >> SHIFT,)", {"max": max}, scope)
    assert scope["grid"][0] * 64 == 512 < 1024
    written = _grown(base, 128)
    assert guard_edit(base, written).new_source == written


def test_v197_a_shift_beside_a_literal_copy_of_the_tile_holds_the_original() -> None:
    """``(n + 255) >> SHIFT`` with ``SHIFT = BLOCK.bit_length() - 1``: the shift moves, the ``255`` does not, so a
    smaller tile counts one program past the end of a kernel without masks (n = 1024, 128: nine programs of 128
    lanes): only the original holds."""
    grid = "    SHIFT = BLOCK.bit_length() - 1\n    grid = ((n + 255) >> SHIFT,)\n"
    base = (V149 / "kernel.py").read_text(encoding="utf-8").replace(V149_GRID, grid)
    assert guard_edit(base, _grown(base, 128)).new_source is None


_FUNCTION_REFERENCE = (
    "import torch\n\n\ndef reference(x):\n    return {body}\n\n\ndef get_inputs():\n"
    "    return [torch.arange(6, dtype=torch.float32)]\n"
)


@pytest.mark.parametrize(
    ("body", "said"),
    [
        ("'done'", "returns its output as str ('done')"),
        ("[x * 2, 'ok']", "returns output 1 as str ('ok')"),
        ("[x * 2, object()]", "returns output 1 as object (<object object"),
        ("__import__('numpy').array([object()])", "returns its output as ndarray of dtype object"),
    ],
    ids=["str", "list-str", "list-object", "object-array"],
)
def test_v191_an_output_the_check_cannot_compare_is_the_problem_s(body: str, said: str, tmp_path: Path) -> None:
    """v191 (leftovers28's Seen line on l180): a reference (and a kernel) returning a value no tensor holds, a string,
    an object, an ndarray of objects, raised in the comparison's own call (``compare._as_tensors``) past every
    boundary: "kernelopt's harness failed in its own code around the check step: TypeError: new(): invalid data type
    'str' ... (a bug in kernelopt; please report)", culprit checker. It is the problem's now, in one line, in the
    gate's check and in tune's setup alike; a number, a list of numbers, ``None`` and a numeric ndarray still compare."""
    from kernelopt.harness.compare import ReferenceIncomparable
    from kernelopt.tuning.checks import LoadedProblem
    from kernelopt.tuning.problem import Problem, ProblemShape
    from tests.conftest import check_in_process

    (tmp_path / "reference.py").write_text(_FUNCTION_REFERENCE.format(body=body), encoding="utf-8")
    (tmp_path / "kernel.py").write_text(f"import torch\n\n\ndef run(x):\n    return {body}\n", encoding="utf-8")
    failure = check_in_process(tmp_path).failure
    assert failure is not None and failure.culprit == "problem", failure
    assert f"case 0 (default): reference.py {said}" in failure.message and "a bug in kernelopt" not in failure.message
    problem = Problem(reference_py=tmp_path / "reference.py", kernel_py=tmp_path / "kernel.py", device="cpu")
    with pytest.raises(ReferenceIncomparable, match="which the check cannot compare"):
        LoadedProblem.load(problem, "cpu").build(ProblemShape(kwargs={}))  # tune's bench worker's setup


def test_v191_outputs_the_check_compares_are_not_refused() -> None:
    """The control: numbers, lists of numbers, ``None`` and numeric ndarrays beside tensors are compared as before."""
    import numpy as np
    import torch

    from kernelopt.harness.compare import incomparable_reference_line

    for value in (1.5, 3, [1.0, 2.0], (torch.ones(2), None), np.ones(3), {"y": torch.ones(1), "n": 2}):
        assert incomparable_reference_line(value) is None, value


def test_v192_on_the_meta_device_a_sparse_or_nested_input_is_still_refused() -> None:
    """v192 (review28's Seen line on 4e7db43d): ``make_inputs`` on the meta device itself (a test's stand-in for a
    device) skipped l180's rule whole, so a sparse input was built there silently and a nested one raised
    "NotImplementedError: Could not run 'aten::_to_copy' ... 'NestedTensorMeta'" in kernelopt's own move. Only the
    meta tensor is the device's own now; the others are refused in one line as on any device."""
    import torch

    from kernelopt.harness.inputs import make_inputs

    for said, build in {
        "a sparse_coo tensor as input 0": lambda: [torch.eye(2).to_sparse()],
        "a nested tensor as input 0[1]": lambda: [[torch.ones(2), torch.nested.nested_tensor([torch.ones(2)])]],
    }.items():
        with pytest.raises(TypeError, match=f"^get_inputs\\(\\) returned {re.escape(said)}"):
            make_inputs(build, {}, "meta", 0)
    assert make_inputs(lambda: [torch.empty(4)], {}, "meta", 0)[0].is_meta  # the device's own tensor, as before


@pytest.mark.parametrize(
    ("module", "check", "past", "within"),
    [
        ("SUPPORTED = (128, 256, 512)\nSUPPORTED += (1024,)\n", "    assert BLOCK in SUPPORTED\n", 2048, 1024),
        ("MOST = 512\nMOST *= 2\n", "    assert BLOCK <= MOST\n", 2048, 1024),
        ("MOST = 2048\nMOST //= 4\n", "    assert BLOCK <= MOST\n", 1024, 512),
    ],
    ids=["tuple-grown", "bound-doubled", "bound-divided"],
)
def test_v193_a_module_constant_grown_by_an_augmented_assignment_is_read(
    module: str, check: str, past: int, within: int
) -> None:
    """v193 (wrongkernel31's Seen line on v181): v158's masked scale, ``BLOCK = 256``, its check against a module
    name the module binds and then grows (``SUPPORTED += (1024,)``, ``MOST *= 2``): a name bound more than once was
    no constant, so the check was not read and only the original held (``BLOCK = 1024`` refused, speed lost). The
    module's top-level assignments are folded in order: within the value written, past it refused ("fails")."""
    base = _with_module((V158 / "kernel.py").read_text(encoding="utf-8").replace(V158_CHECK, check), module)
    written = base.replace("    BLOCK = 256\n", f"    BLOCK = {within}\n")
    assert guard_edit(base, written).new_source == written
    refused = guard_edit(base, base.replace("    BLOCK = 256\n", f"    BLOCK = {past}\n"))
    assert refused.new_source is None and f"BLOCK={past} fails the check at every size" in (refused.note or "")


def test_v193_an_augmented_binding_under_a_condition_is_not_folded() -> None:
    """The control: a growth under an ``if`` may not run, so the name stays unread and only the original holds."""
    module = "import os\nSUPPORTED = (128, 256)\nif os.environ.get('WIDE'):\n    SUPPORTED += (512,)\n"
    base = _with_module(
        (V158 / "kernel.py").read_text(encoding="utf-8").replace(V158_CHECK, "    assert BLOCK in SUPPORTED\n"), module
    )
    refused = guard_edit(base, base.replace("    BLOCK = 256\n", "    BLOCK = 512\n"))
    assert refused.new_source is None and "is not read" in (refused.note or ""), refused.note


@pytest.mark.parametrize(
    ("module", "check", "within", "past"),
    [
        (
            "MOST = 1024\n\n\ndef configure():\n    global MOST\n    MOST = 512\n",
            "    configure()\n    assert BLOCK <= MOST\n",
            512,
            1024,
        ),
        (
            "SUPPORTED = (128, 256, 512)\n\n\ndef configure():\n    global SUPPORTED\n    SUPPORTED = (256, 512)\n",
            "    assert BLOCK in SUPPORTED\n",
            512,
            128,
        ),
    ],
    ids=["bound", "set"],
)
def test_v194_a_module_name_a_function_sets_global_is_read_with_each_value(
    module: str, check: str, within: int, past: int
) -> None:
    """v194 (wrongkernel31's Seen line on v181): a check against a module name a function rebinds ``global``
    (``MOST = 1024``, ``configure()`` setting 512) was a value not read after review28's r81, so only the original held
    (``BLOCK = 512`` refused, speed lost). The check is read with each value the name may hold: a tile passing all of
    them is written, one failing any is refused, "may fail the check" (which value holds depends on what ran last)."""
    base = _with_module((V158 / "kernel.py").read_text(encoding="utf-8").replace(V158_CHECK, check), module)
    written = base.replace("    BLOCK = 256\n", f"    BLOCK = {within}\n")
    assert guard_edit(base, written).new_source == written
    refused = guard_edit(base, base.replace("    BLOCK = 256\n", f"    BLOCK = {past}\n"))
    assert refused.new_source is None and f"BLOCK={past} may fail the check at every size" in (refused.note or "")


def test_v194_a_global_rebinding_not_read_leaves_the_name_unread() -> None:
    """The control (review28's r81 stands): a function growing the name (``SUPPORTED += (512,)``) or setting it from a
    call leaves it unread, so only the original holds."""
    for body in ("    SUPPORTED += (512,)\n", "    SUPPORTED = tuple(json.loads('[512]'))\n"):
        module = f"import json\nSUPPORTED = (128, 256)\n\n\ndef configure():\n    global SUPPORTED\n{body}"
        text = (V158 / "kernel.py").read_text(encoding="utf-8").replace(V158_CHECK, "    assert BLOCK in SUPPORTED\n")
        base = _with_module(text, module)
        refused = guard_edit(base, base.replace("    BLOCK = 256\n", "    BLOCK = 128\n"))
        assert refused.new_source is None and "is not read" in (refused.note or ""), refused.note


def test_v195_discovery_keeps_a_list_whole_whose_kernel_stores_one_slot_a_program(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """v195 (late49's Seen line on l190): leftovers13's partial sum in break13's first form, each program storing its
    block's partial (``tl.store(parts_ptr + pid, ...)``, ``pid * BLOCK`` beside it), its list keyed by ``n``: a
    config of another block stores another count of slots, so the autotuner's benchmark on the call's own partials
    leaves slots the pick does not write, and the first call is wrong where the pick is not the smallest block.
    ``first_call.adds_into`` read atomics alone, so discovery on a GPU pinned this list from the first run and ``tune``
    never checked its first call. It is kept whole now (its three configs benchmarked, as the atomic form's are); a
    norm storing one ``rstd`` a row beside a list of ``num_warps`` alone stays pinned."""
    import ast
    import shutil

    from kernelopt.harness.first_call import writes_by_program
    from kernelopt.tuning.folder import LIST_CURRENT_MOST
    from tests.test_late49_cases import DATA, _read, triton_interpreted

    folder = Path(shutil.copytree(DATA / "leftovers13" / "first_call", tmp_path / "stored"))
    text = (folder / "kernel.py").read_text(encoding="utf-8")
    stored = text.replace("tl.atomic_add(parts_ptr + pid,", "tl.store(parts_ptr + pid,")
    assert stored != text
    (folder / "kernel.py").write_text(stored, encoding="utf-8")
    with triton_interpreted():
        _, benched = _read(folder, LIST_CURRENT_MOST, monkeypatch)
    assert benched.count("partial_sum") == 3, benched
    norm = (
        "@triton.jit\ndef rms(x_ptr, rstd_ptr, stride, n, BLOCK_N: tl.constexpr):\n    row = tl.program_id(0)\n"
        "    cols = tl.arange(0, BLOCK_N)\n    x = tl.load(x_ptr + row * stride + cols, mask=cols < n, other=0.0)\n"
        "    tl.store(rstd_ptr + row, 1 / tl.sqrt(tl.sum(x * x, 0) / n))\n"
    )
    assert not writes_by_program(ast.parse(norm))
    rows = norm.replace("row * stride", "row * BLOCK_N")  # a row's one block: a key of no list of num_warps
    assert writes_by_program(ast.parse(rows)) and not writes_by_program(ast.parse(rows), keys=())


def test_v196_a_wall_spent_before_the_session_starts_no_worker() -> None:
    """v196 (late49's Seen line on l191): where discovery spent the whole ``--budget-wall-s`` (75 s of a 60 s wall),
    the session timed nothing, yet started its workers first (every entry's bench workers and the compile pool:
    about 24 s for three entries on the H100 of 2026-12-06), seconds spent for no candidate and counted past the wall.
    No worker is started now (the evaluator starts them lazily should anything after the session need one); a wall
    with time left starts them as before (l191's test)."""
    from typing import Any

    from kernelopt.tuning.budget import Budget, ManualClock
    from kernelopt.tuning.replay import ReplayEvaluator, space_from_sweep
    from kernelopt.tuning.session import StopReason, tune
    from tests.test_tuning_session import sweep

    swept = sweep("layernorm")

    class Starting(ReplayEvaluator):  # the workers' start: 10 s on the session's clock
        started = False

        def start(self, batch_size: int = 1) -> None:
            self.started = True
            self.clock.advance(10.0)

        def evaluate(self, batch: Any) -> Any:
            self.clock.advance(2.0 * len(batch))
            return super().evaluate(batch)

    clock = ManualClock()
    space = space_from_sweep(swept)
    budget = Budget(space.size.count, clock, 60.0)
    budget.count_before(75.0)
    evaluator = Starting(swept, clock)
    result = tune(space, evaluator, budget=budget, rng_seed=7)
    assert not evaluator.started and result.results == [] and result.stop is StopReason.WALL_TIME
    assert budget.before_s == 75.0 and clock() == 0.0  # nothing past discovery's own seconds


@pytest.mark.parametrize(("key", "refused"), [('key=["n"]', True), ('key=["n", "d"]', False)], ids=["n", "n-and-d"])
def test_v198_tune_s_keyed_list_table_raising_a_tile_beside_a_size_its_key_leaves_out_is_refused(
    key: str, refused: bool
) -> None:
    """v198 (review28's keyed-list Seen line, late52's l222 asked of ``tune``): review28's ``head_scale`` (``BLOCK``
    rows by ``BD = min(next_power_of_2(d), 4096)``) with a list of 32 and 16 keyed by ``n``; a session whose shapes'
    own bests were 128 (d = 16) and 16 (d = 64) wrote the list ``[BLOCK=128, BLOCK=16]`` under ``key=["n"]``
    (``folder._keyed_list_edit``, run through ``prepare_folder`` and ``shaped_edit`` at 22:20 UTC): the autotuner's pick
    cached per ``n`` runs 128 unbenched at a larger head, a footprint never compiled, where ``tunables --set`` refuses
    the same raise (l222). The table takes the same rule (``edit.unkeyed_raise``); with ``d`` in the key it is
    written."""
    from types import SimpleNamespace

    from kernelopt.tunables.analysis import analyze
    from kernelopt.tunables.model import AutotuneConfig, AutotuneSpace
    from kernelopt.tuning import folder as tf
    from kernelopt.tuning.space import KnobOrigin
    from tests.test_review28_cases import _autotuned

    text = _autotuned('triton.Config({"BLOCK": 32}, num_warps=4), triton.Config({"BLOCK": 16}, num_warps=4)')
    text = text.replace('key=["n"]', key)
    found = analyze(text, "kernel.py")[2]
    keys = tuple(t.key for t in found if t.name == "BLOCK" and ".configs[" in t.key)
    listed = AutotuneSpace(
        kernel="head_scale", line=6, configs=[AutotuneConfig(kwargs={"BLOCK": b}) for b in (32, 16)],
        key=["n", "d"] if "d" in key else ["n"],
    )  # fmt: skip
    prepared = SimpleNamespace(
        base_source=text, tunables=found, space=SimpleNamespace(origins={"BLOCK": KnobOrigin(keys=keys, value=32)})
    )
    rows = [AutotuneConfig(kwargs={"BLOCK": 128}), AutotuneConfig(kwargs={"BLOCK": 16})]
    note = tf._unkeyed_rows(prepared, listed, rows)  # type: ignore[arg-type]
    if refused:
        assert note is not None and "BLOCK=128 raises a tile of head_scale beside BD" in note, note
        assert "its autotune key ['n'] leaves out" in note and "add BD to the key" in note
    else:
        assert note is None
    assert tf._unkeyed_rows(prepared, listed, rows[1:]) is None  # no row past the list's 32: nothing raised


def test_v199_a_divisor_the_launcher_computes_from_the_tile_counts_whole_tiles_only_where_it_is_the_tile() -> None:
    """v199 (review29's Seen line on v190/v197): ``TILE = 256 if BLOCK else 1`` then ``grid = ((n + BLOCK - 1) //
    TILE,)`` over v149's sum without masks: the divisor reads the tile, so v190 took it for a count that moves with it
    and v197 read shifts and powers alone; ``BLOCK = 128`` was written plainly over ``cdiv(n, 256)`` programs (half of
    ``n``). A divisor so computed counts whole tiles only where it is the tile: 128 refused, ``TILE = BLOCK`` written;
    a shift bound twice (``SHIFT = 8``, then ``SHIFT = 3`` under an ``if``) is not worked out: "may fail"."""
    base = (V149 / "kernel.py").read_text(encoding="utf-8")
    computed = base.replace(V149_GRID, "    TILE = 256 if BLOCK else 1\n    grid = ((n + BLOCK - 1) // TILE,)\n")
    refused = guard_edit(computed, _grown(computed, 128))
    assert refused.new_source is None and "BLOCK=128 fails the check at every size" in (refused.note or "")
    copy = base.replace(V149_GRID, "    TILE = BLOCK\n    grid = ((n + BLOCK - 1) // TILE,)\n")
    assert guard_edit(copy, _grown(copy, 128)).new_source == _grown(copy, 128)
    twice = base.replace(
        V149_GRID, "    SHIFT = 8\n    if BLOCK < 16:\n        SHIFT = 3\n    grid = ((n + BLOCK - 1) >> SHIFT,)\n"
    )
    unread = guard_edit(twice, _grown(twice, 128))
    assert unread.new_source is None and "BLOCK=128 may fail the check" in (unread.note or ""), unread.note
