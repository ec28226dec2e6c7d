"""A fresh clone broken, sixteenth trial (break16, 2026-12-06): the fifteenth session's changes tried on near
neighbours of the kernels they were made for; one test per finding (docs/faults.md, "A fresh clone broken, sixteenth
trial")."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

DATA = Path(__file__).parent / "data"


@pytest.mark.timeout(120)
@pytest.mark.parametrize("case", ["warps_helper", "warps_augmented"])
def test_b13_a_block_computed_from_num_warps_by_a_helper_or_an_augmented_assignment_is_netted(
    case: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """break16 b13 (a **wrong written kernel** on a GPU): n69's ReLU (``n // BLOCK`` programs, no masks) with its
    block computed from the warps by a helper's body (``def _block(): return NUM_WARPS * 32``) or an augmented
    assignment (``BLOCK = 32``, ``BLOCK *= nw``): no chain of assignments reads either, so a pick of
    ``num_warps=32`` (BLOCK 1024) passed the entries (8192, 1024), was "only num_warps moved, which change no result
    at any size", the net not cast, and written, wrong at n=64. Now the net is cast and fails it."""
    from kernelopt.tuning import folder as tf
    from tests.test_newuser13_cases import _gpu_prepared
    from tests.test_tuning_net import _evaluator, _session

    monkeypatch.setenv("TRITON_INTERPRET", "1")
    prepared = _gpu_prepared(Path(shutil.copytree(DATA / "break16" / case, tmp_path / case)), monkeypatch)
    with _evaluator(prepared) as evaluator:
        done = tf._checked_edit(_session(prepared, [({"num_warps": 32}, 10.0)], ({"num_warps": 2}, 20.0)), evaluator)
    assert done.edit is None and done.net is not None and done.net.failed is not None, done.edit_note
    assert done.edit_note is not None and "output not written" in done.edit_note, done.edit_note


def test_b13_what_a_launch_option_computes_beyond_a_chain_of_assignments() -> None:
    """``readers.chained_values`` names each read of an option's names that is neither its launch's nor a followed
    assignment's, where it is; an option passed on in a tuple (``return BLOCK_SIZE, num_warps``), a kernel's own
    parameter of the name and the launch alone read none."""
    from kernelopt.tunables import discover_source
    from kernelopt.tunables.readers import chained_values

    def chained(source: str) -> dict[str, object]:
        return chained_values(discover_source(source), source, ["num_warps"])

    helper = (DATA / "break16" / "warps_helper" / "kernel.py").read_text()
    augmented = (DATA / "break16" / "warps_augmented" / "kernel.py").read_text()
    assert chained(helper) == {"line 16 of _block": None}
    assert chained(augmented) == {"BLOCK (line 17)": None}
    module = (DATA / "newuser13" / "warps_module" / "kernel.py").read_text()
    assert chained(module) == {"BLOCK": 64}
    assert chained(module.replace("BLOCK = NUM_WARPS * 32", "BLOCK = 64")) == {}
    passed_on = (DATA / "breaker7" / "xent_chunked" / "kernel.py").read_text()
    assert "return BLOCK_SIZE, num_warps" in passed_on and chained(passed_on) == {}
    own = helper.replace("def _block():", "def _block(NUM_WARPS):").replace("_block()", "_block(2)")
    assert chained(own) == {}


@pytest.mark.timeout(60)
def test_b14_a_scalar_tensor_in_and_or_not_is_joined_as_a_gpu_compile_joins_it(tmp_path: Path) -> None:
    """break16 b14 (a **correct kernel refused** on the CPU, and one no GPU compiles passed): b1's rewrite of ``and`` /
    ``or`` / ``not`` cut short at a scalar tensor as at a constexpr, but Triton's code generator cuts short at no
    tensor (a scalar's value is not known when it compiles): ``pid >= 0 or tl.atomic_add(count, 1) >= 0`` adds in
    every program on a GPU (the sm_90 compile holds the ``atomic_rmw``) and in none in the interpreter, so the
    kernel's count was 0 against the reference's 4; and ``n > 0 and n`` (b1's own test kernel) kept Python's value
    ``n`` where a GPU compile joins an int32 by ``logical_and`` and fails ("Cannot bitcast data-type of size 32 to
    data-type of size 1"). Now a scalar tensor is joined as a block is: the count is right, the form raises as the
    compile does."""
    import torch

    from tests.conftest import load_fresh, triton_interpreted
    from tests.test_breaker7_cases import _all_correct

    _all_correct(DATA / "break16" / "bool_scalar", [{"n": 200}, {"n": 1}])
    source = (DATA / "break16" / "bool_scalar" / "kernel.py").read_text()
    kept = source.replace("keep = not (pid < 0)", "keep = pid > 0 and n")
    folder = DATA / "break16" / "bool_scalar"
    with triton_interpreted():
        ker = load_fresh(folder / "kernel.py", "_b14_kernel")
        _, count = ker.run(torch.ones(200))
        assert count.tolist() == [4]
        path = tmp_path / "kernel.py"
        path.write_text(kept)
        with pytest.raises(Exception, match="Cannot bitcast data-type of size 32 to data-type of size 1"):
            load_fresh(path, "_b14_int_joined").run(torch.ones(200))
        # an integer argument of 1 is a constexpr on a GPU (specialized): ``flag and n > 0`` compiles there with
        # flag=1 and fails with flag=0, as here
        flagged = tmp_path / "flagged.py"
        flagged.write_text(_FLAGGED)
        ker = load_fresh(flagged, "_b14_flagged")
        assert torch.equal(ker.run(torch.ones(10), 1), torch.full((10,), 2.0))
        with pytest.raises(Exception, match="Cannot bitcast data-type of size 32 to data-type of size 1"):
            ker.run(torch.ones(10), 0)


_FLAGGED = """import torch
import triton
import triton.language as tl


@triton.jit
def flag_kernel(x_ptr, y_ptr, n, flag, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    m = offs < n
    x = tl.load(x_ptr + offs, mask=m, other=0.0)
    if flag and n > 0:
        x = x * 2.0
    tl.store(y_ptr + offs, x, mask=m)


def run(x, flag):
    y = torch.empty_like(x)
    flag_kernel[(1,)](x, y, x.numel(), flag, BLOCK=64)
    return y
"""


def test_b15_a_launcher_passed_on_by_functools_partial_is_no_kernel_s_launch() -> None:
    """break16 b15 (a kernel's body read for another's): breaker15's b3 read a launch through a parameter
    (``kernel[(M,)](...)`` in ``_launch(x, kernel=_row_loop)``) as the one kernel every call of ``_launch`` passes,
    the default where no call shows; ``run`` calls it through ``functools.partial(_launch, kernel=_row_one)``, so the
    one-block kernel runs and ``_row_loop``'s body was read (its block a loop's step, no row to cover). A function
    passed on as a value is called where no call shows: the launch stays unknown, as before b3; Kernl's own form
    (``LayerNorm.apply``) is read as b3 reads it."""
    from kernelopt.tunables import discover_source

    source = (DATA / "break16" / "kernel_partial" / "kernel.py").read_text()
    assert [t.key for t in discover_source(source) if t.name == "BLOCK"] == ["kernel:BLOCK"]
    called = source.replace("f = functools.partial(_launch, kernel=_row_one)\n    return f(x)", "return _launch(x)")
    assert [t.key for t in discover_source(called) if t.name == "BLOCK"] == ["_row_loop:BLOCK"]
    kernl = (DATA / "breaker15" / "kernl_ln" / "kernel.py").read_text()
    assert {t.kernel for t in discover_source(kernl) if t.name == "BLOCK_SIZE"} == {"_layer_norm_fwd_fused_single_pass"}
    # a method's launch through its parameter, called through an attribute (``self._run(x, kernel=_row_one)``): the
    # kernel it passes, where the default was read as no call showed
    method = source.split("def _launch")[0] + _METHOD
    assert [t.key for t in discover_source(method) if t.name == "BLOCK"] == ["_row_one:BLOCK"]


_METHOD = """class RowOp:
    def _run(self, x, kernel=_row_loop):
        M, N = x.shape
        y = torch.empty_like(x)
        kernel[(M,)](x, y, N, BLOCK=1024)
        return y

    def __call__(self, x):
        return self._run(x, kernel=_row_one)


def run(x):
    return RowOp()(x)
"""


@pytest.mark.parametrize(
    ("computed", "warps", "kept"),
    [
        # b16: ``per`` bound twice, read as a constant: 512 at 4 warps where the original's 1024 covers 1024 columns
        (
            "per = warps * 128\n    if N < 64:\n        per = 64\n    BLOCK = min(triton.next_power_of_2(N), per)",
            4,
            False,
        ),
        ("per = warps * 128\n    BLOCK = min(triton.next_power_of_2(N), per)", 4, False),  # bound once: as before
        ("npow = triton.next_power_of_2(N)\n    BLOCK = max(npow, warps * 32)", 2, True),  # proved, as before
    ],
)
def test_b16_a_local_bound_twice_proves_no_cover(computed: str, warps: int, kept: bool) -> None:
    """break16 b16 (n64's rule undone, on a GPU): the proof that a moved num_warps keeps a computed block covering its
    row (``tunables/cover_kept.py``) substituted the locals bound once and read any other name as a constant, so
    ``per = warps * 128``, ``if N < 64: per = 64``, ``BLOCK = min(next_power_of_2(N), per)`` at ``num_warps=4`` (from
    8) was "proved" to cover (``per`` read no option) and kept, where BLOCK falls to 512 and leaves columns 513-1024
    undone that the original's 1024 covers: n64's wrong row max, which the rule is there because the net can miss.
    A local the function binds more than once proves nothing now."""
    from kernelopt.tunables import discover_source
    from kernelopt.tunables.readers import shrunk_covers

    text = (DATA / "newuser12" / "warps_cover" / "kernel.py").read_text().replace("BLOCK = warps * 128", computed)
    refused = shrunk_covers(discover_source(text), text, {"num_warps": warps}, {"num_warps": 8})
    assert (refused == []) is kept, refused


def test_b17_a_floor_division_outside_any_grid_is_not_said_to_be_one() -> None:
    """break16 b17 (an untrue line): the guard's rule that a tile divide a size it floors said of every floor division
    in the launcher "the grid at line N has ... programs": ``per = 8192 // warps`` (a cap of the row's block, no grid)
    gave "warps=16 only where 8192 % 16 == 0, ... (a tile must divide its size: the grid at line 18 has 8192 // warps
    programs)". A floor outside the launches' grids (and the names they read) is said as what it is; a grid's, read
    through ``programs = n // BLOCK`` beside ``kernel[(programs,)]``, as before."""
    from kernelopt.tunables import guard
    from kernelopt.tunables.edit import apply_source

    capped = (DATA / "break16" / "warps_divided" / "kernel.py").read_text()
    note = guard.guard_edit(capped, apply_source(capped, {"rowmax_kernel:num_warps": 16}).new_source).note
    assert note is not None and note.endswith("(a tile must divide its size: line 18 takes 8192 // warps)"), note
    aside = (DATA / "leftovers15" / "aside" / "kernel.py").read_text()
    gridded = aside.replace("triton.cdiv(n, BLOCK)", "n // BLOCK").replace(", mask=mask)", ")")
    note = guard.guard_edit(gridded, apply_source(gridded, {"scale_kernel:BLOCK": 256}).new_source).note
    assert note is not None and note.endswith("the grid at line 20 has n // BLOCK programs)"), note


@pytest.mark.parametrize(
    "read",
    [
        'bwd = _state_passing_bwd_kernel\n    BLOCK_SIZE_actual = bwd.best_config.kwargs["BLOCK_SIZE"]',
        'BLOCK_SIZE_actual = getattr(_state_passing_bwd_kernel, "best_config").kwargs["BLOCK_SIZE"]',
    ],
)
def test_b18_the_autotuner_s_pick_read_through_an_alias_floors_the_search(read: str) -> None:
    """break16 b18 (candidates spent on blocks the host cannot hold): breaker15's b4 starts a list's settings at the
    authors' least where the host reads ``<kernel>.best_config`` by the kernel's own name; Mamba-2's read through an
    alias (``bwd = _state_passing_bwd_kernel``; ``bwd.best_config``) or ``getattr(kernel, "best_config")`` searched
    BLOCK_SIZE from 16 again (16 and 32 write past the host's buffer of ``cdiv(dim, 64)`` partials). Both floor it at
    64 now."""
    from kernelopt.tunables import discover_source
    from kernelopt.tuning.launch import space_from_tunables

    direct = 'BLOCK_SIZE_actual = _state_passing_bwd_kernel.best_config.kwargs["BLOCK_SIZE"]'
    source = (DATA / "breaker15" / "mamba_state_bwd" / "kernel.py").read_text()
    assert direct in source
    source = source.replace(direct, read)
    found = discover_source(source)
    bwd = space_from_tunables(found, kernel="_state_passing_bwd_kernel", held_options={}, source=source)
    assert min(v for v in bwd.knob("BLOCK_SIZE").values if isinstance(v, int)) == 64


@pytest.mark.gpu
@pytest.mark.timeout(900)
@pytest.mark.parametrize("name", ["warps_helper", "warps_augmented"])
def test_b13_on_a_gpu_a_block_computed_from_num_warps_by_a_helper_is_never_written_wrong(
    tmp_path: Path, name: str
) -> None:
    """b13 on an NVIDIA GPU, where the session searches ``num_warps``: ``kernelopt tune --device cuda`` (a 120 s wall)
    on each folder, then the kernel.py it leaves run at sizes no entry names that the original handles (multiples of
    its 64-element block): right at every one, whatever was written."""
    import torch

    from tests.gpu_correct import assert_correct, tuned_on_device

    folder = Path(shutil.copytree(DATA / "break16" / name, tmp_path / name))
    tuned_on_device(folder)
    shapes = [{"n": 64}, {"n": 1088}, {"n": 8256}, {"n": 1 << 20}]
    assert_correct(folder, shapes, lambda r: bool(torch.allclose(r.got, r.want, atol=1e-5, rtol=1e-5)))


@pytest.mark.gpu
@pytest.mark.timeout(300)
def test_b14_on_a_gpu_a_scalar_tensor_s_or_runs_its_atomic_in_every_program() -> None:
    """b14 on an NVIDIA GPU: bool_scalar's ``pid >= 0 or tl.atomic_add(count_ptr, 1) >= 0`` adds in every program
    (the count the interpreter now gives, 4 at n=200), and ``n > 0 and n`` fails the compile as the interpreter now
    raises."""
    import importlib.util

    import torch

    spec = importlib.util.spec_from_file_location("_b14_gpu", DATA / "break16" / "bool_scalar" / "kernel.py")
    assert spec is not None and spec.loader is not None
    kernel = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(kernel)
    x = torch.randn(200, device="cuda")
    y, count = kernel.run(x)
    assert count.tolist() == [4] and torch.equal(y, x * 2.0)
