"""net12: the net's leftovers (docs/faults.md, "net12"; :mod:`kernelopt.tuning.net`, ``folder._checked_edit``).

An edit that fails its own check on the ``SHAPES`` entries gives way to the next-best pick as a net failure does;
the first size's cost is estimated from the entries' own check seconds before it starts; the size below the
smallest entry also moves one dimension at a time; integer outputs are fenced with a value the reference does not
produce. The real-engine case runs grid_named_copy (v23, ``BLOCK=128`` wrong above 128 elements, its rule switched
off) in the session's own workers under Triton's interpreter.
"""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pytest

from kernelopt.harness.sizekeys import key_roles
from kernelopt.tunables.guard import Guarded

VARIANTS = Path(__file__).parent / "data" / "variants"


@pytest.mark.timeout(120)
def test_an_edit_failing_its_check_on_the_entries_gives_way_to_the_next_best_as_a_net_failure_does(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """On an H100 (2026-12-06) a pick whose written text failed its check on a ``SHAPES`` entry wrote nothing ("the
    edit to write failed its check (wrong_result: on the SHAPES entry n=524288 ...)") where a net failure gives way
    to the next-best: a table or a guard writes text the session did not time. Here v23's ``BLOCK=128`` (its rule
    off) is the session's pick over entries of 100 and 200 elements and fails the check at 200; ``BLOCK=512`` (its
    programs overlap: correct everywhere) passes the entries and the net and is written instead, the line naming the
    entry; with no next-best nothing is written, as before."""
    from kernelopt.tuning import folder as tf
    from kernelopt.tuning.net import cast as net_cast
    from tests.test_tuning_net import _two_picks_checked

    weighed: list[Any] = []  # m2: what the net's first size is estimated by, the edit's check on the entries

    def cast(*args: Any, **kwargs: Any) -> Any:
        weighed.append(kwargs["entries"])
        return net_cast(*args, **kwargs)

    monkeypatch.setattr(tf, "cast", cast)
    done, alone = _two_picks_checked(tmp_path, monkeypatch, largest=200)
    assert done.edit is not None and "scale_kernel[grid](x, y, n, BLOCK=512)" in done.edit.new_source
    assert done.result.best_config == {"BLOCK": 512} and done.judgement.better
    assert done.edit_note is not None and done.edit_note.startswith(
        "the edit to write failed its check (wrong_result: on the SHAPES entry n=200"
    ), done.edit_note
    assert "BLOCK=128 not written; the next-best, BLOCK=512, passes: written instead" in done.edit_note
    assert done.net is not None and done.net.failed is None and "correct at n=257" in done.net.line()
    assert alone.edit is None and not alone.judgement.better
    assert alone.edit_note is not None and alone.edit_note.startswith("the edit to write failed its check ("), (
        alone.edit_note
    )
    assert alone.edit_note.endswith(": nothing written") and "n=200" in alone.judgement.reason
    assert len(weighed) == 1 and weighed[0] is not None, weighed  # BLOCK=512's, the one netted
    assert weighed[0].check_s > 0 and weighed[0].kernel_s == 11.0e-6 and weighed[0].count == 2, weighed


CODES_KERNEL = """import torch
import triton
import triton.language as tl

ROWS_PER_PROGRAM = 64


@triton.jit
def code_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=0.0)
    tl.store(y_ptr + offs, (x * 8.0).to(tl.int32), mask=mask)


def run(x):
    n = x.numel()
    y = torch.empty(n, dtype=torch.int32, device=x.device)
    grid = (triton.cdiv(n, ROWS_PER_PROGRAM),)
    code_kernel[grid](x, y, n, BLOCK=64)
    return y
"""

CODES_REFERENCE = """import torch

SHAPES = [{"n": 64}, {"n": 128}]
ATOL = 0
RTOL = 0


def get_inputs(n=128, device="cpu"):
    return [torch.randn(n, device=device)]


def reference(x):
    return (x * 8.0).to(torch.int32)
"""


def test_an_integer_output_is_fenced_with_a_value_the_reference_does_not_hold() -> None:
    """The net fenced floating-point tensors only: an ``int32`` output a kernel stored past the end of went unseen,
    and one it left partly unwritten passed wherever ``torch.empty`` happened to hold the right values. Now what
    ``run()`` allocates of an integer or boolean dtype sits in the middle of a value the reference's outputs do not
    hold (the dtype's least, else its largest, else the first value between them none holds), its ``empty`` forms
    filled with it; a boolean output holding both values has none, and is left as it is."""
    import torch

    from kernelopt.harness.fences import Fences, fenced_outputs, integer_fills, padded, trespassed

    fills = integer_fills([torch.tensor([0, 3, -5], dtype=torch.int64), torch.ones(3)])
    assert fills(torch.int32) == -(2**31) and fills(torch.int64) == -(2**63)
    assert integer_fills([torch.tensor([-128, 127, -127], dtype=torch.int8)])(torch.int8) == -126
    assert integer_fills([torch.tensor([True])])(torch.bool) is False
    assert integer_fills([torch.tensor([True, False])])(torch.bool) is None  # none can be chosen: not fenced
    assert integer_fills([torch.arange(256).to(torch.uint8)])(torch.uint8) is None
    fences: Fences = []
    with fenced_outputs(fences, float("nan"), fills):
        blank = torch.empty(4, dtype=torch.int32)
        zeros = torch.zeros(4, dtype=torch.int32)
        kept = torch.empty(2, dtype=torch.bool)  # its fill: False (the reference's outputs hold no boolean)
    assert blank.tolist() == [-(2**31)] * 4 and zeros.tolist() == [0] * 4 and len(fences) == 3
    assert not trespassed(fences)
    zeros.as_strided((5,), (1,))[4] = 7  # one past the end: into the fence, seen
    assert trespassed(fences) and kept.dtype == torch.bool
    codes = torch.arange(3)
    assert padded(codes, []) is codes  # an integer input stays as it is (no integer fill given)


def _codes_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, kernel: str = CODES_KERNEL, reference: str = CODES_REFERENCE
) -> tuple[Path, Any]:
    from kernelopt.tuning.checks import LoadedProblem
    from kernelopt.tuning.problem import Problem

    monkeypatch.setenv("TRITON_INTERPRET", "1")
    (tmp_path / "kernel.py").write_text(kernel)
    (tmp_path / "reference.py").write_text(reference)
    problem = Problem(reference_py=tmp_path / "reference.py", kernel_py=tmp_path / "kernel.py", device="cpu")
    return tmp_path, LoadedProblem.load(problem, "cpu")


def test_the_net_sees_an_int32_output_left_unwritten_or_stored_past_its_end(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The net's own check (``DerivedProblems.check``, as the bench worker runs it) at 129 elements: the original is
    correct; ``BLOCK=32`` under a grid of 64 elements a program leaves half of each program's codes unwritten (they
    hold -2**31, which ``(x * 8).to(int32)`` of these inputs never gives); an unmasked store writes past the end of
    the ``int32`` output, into its fence."""
    from kernelopt.tuning.candidate import Outcome
    from kernelopt.tuning.net import OUT_OF_BOUNDS, DerivedProblems
    from kernelopt.tuning.problem import ProblemShape

    folder, loaded = _codes_folder(tmp_path, monkeypatch)
    (folder / "half.py").write_text(CODES_KERNEL.replace("BLOCK=64", "BLOCK=32"))
    (folder / "past.py").write_text(CODES_KERNEL.replace("to(tl.int32), mask=mask)", "to(tl.int32))"))
    derived, at = DerivedProblems(), ProblemShape(kwargs={"n": 129})
    got = {name: derived.check(loaded, folder / f"{name}.py", at) for name in ("kernel", "half", "past")}
    assert got["kernel"].outcome is Outcome.OK, got["kernel"].reason
    assert got["half"].outcome is Outcome.WRONG_RESULT, got["half"].reason
    assert got["past"].outcome is Outcome.WRONG_RESULT and got["past"].reason == OUT_OF_BOUNDS, got["past"].reason


SIGNS_KERNEL = """import torch


def run(x):
    y = torch.empty(x.shape, dtype=torch.bool, device=x.device)
    torch.gt(x, 0, out=y)
    return y
"""


def test_an_output_no_value_can_fence_is_said_beside_the_size(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A boolean output whose reference holds both values has no value to fence it with: it is left as it is, and
    the net's line says so beside the size it was checked at, where a fenced one says nothing."""
    from kernelopt.tuning.candidate import Outcome
    from kernelopt.tuning.net import UNFENCED, DerivedProblems, cast, derived_sizes
    from kernelopt.tuning.problem import ProblemShape

    reference = CODES_REFERENCE.replace("(x * 8.0).to(torch.int32)", "x > 0")
    folder, loaded = _codes_folder(tmp_path, monkeypatch, SIGNS_KERNEL, reference)
    derived = DerivedProblems()

    def check_at(source: str, shape: ProblemShape) -> tuple[Outcome, str | None]:
        verdict = derived.check(loaded, folder / "kernel.py", shape)
        return verdict.outcome, verdict.reason

    sizes = derived_sizes([ProblemShape(kwargs={"n": 64}), ProblemShape(kwargs={"n": 128})])[:1]
    line = cast(sizes, "original", "written", check_at).line()
    assert line.endswith(f"correct at n=129 (bool {UNFENCED})"), line


ROWS_KERNEL = """import torch
import triton
import triton.language as tl

ROWS_PER_PROGRAM = 4


@triton.jit
def scale_rows(x_ptr, y_ptr, M, N, ROWS: tl.constexpr, BLOCK_N: tl.constexpr):
    cols = tl.arange(0, BLOCK_N)
    for r in tl.static_range(ROWS):
        row = tl.program_id(0) * ROWS + r
        mask = (row < M) & (cols < N)
        tl.store(y_ptr + row * N + cols, tl.load(x_ptr + row * N + cols, mask=mask) * 2.0, mask=mask)


def run(x):
    M, N = x.shape
    y = torch.empty_like(x)
    ROWS = 4
    grid = (triton.cdiv(M, ROWS_PER_PROGRAM),)
    scale_rows[grid](x, y, M, N, ROWS=ROWS, BLOCK_N=triton.next_power_of_2(N))
    return y
"""

ROWS_REFERENCE = (
    (VARIANTS / "padded_rows" / "reference.py")
    .read_text()
    .replace('SHAPES = [{"M": 1, "N": 100}, {"M": 1, "N": 60}]', 'SHAPES = [{"M": 2, "N": 64}, {"M": 16, "N": 128}]')
)
"""padded_rows' reference (``x * 2.0`` over ``M`` x ``N``) with entries of 2 and 16 rows."""

ROWS_TABLE = ROWS_KERNEL.replace(
    "    ROWS = 4\n", "    ROWS = 4\n    if N <= 64:  # kernelopt: tuned\n        ROWS = 2\n"
)
"""A table row under every entry (two rows a program for short rows), the grid still counting the original's four
(v23's copy of a tile under another name): right wherever the rows are long or fewer than three."""


def test_one_dimension_below_the_smallest_entry_alone_catches_a_table_row_wrong_only_where_another_is_large(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """m3: the size below the smallest entry moved every dimension at once (``M=1,N=33``, one row: the table's two
    rows a program cover it) and the written table passed every size of the net; it is wrong where the rows are
    short and more than two, a size the original handles. Each dimension moved below alone, the rest at their
    largest, finds it at ``M=16,N=33``; the net's own check in-process (``DerivedProblems``, the bench worker's)."""
    import torch

    from kernelopt.harness.sizekeys import key_roles
    from kernelopt.tuning.candidate import Outcome
    from kernelopt.tuning.checks import LoadedProblem
    from kernelopt.tuning.net import DerivedProblems, SizeClass, cast, derived_sizes
    from kernelopt.tuning.problem import Problem, ProblemShape

    monkeypatch.setenv("TRITON_INTERPRET", "1")
    # the bench worker runs this check with MALLOC_PERTURB_ (fresh host memory poisoned); in this process an output's
    # torch.empty_like could get the block the original's right output at the same size was just freed from, and
    # the table's unwritten rows then read right (the full suite on a fresh clone, 2026-12-06): poisoned here alike
    empty_like = torch.empty_like
    monkeypatch.setattr(torch, "empty_like", lambda t, *a, **k: empty_like(t, *a, **k).fill_(float("nan")))
    for name, text in (("kernel", ROWS_KERNEL), ("table", ROWS_TABLE), ("reference", ROWS_REFERENCE)):
        (tmp_path / f"{name}.py").write_text(text)
    problem = Problem(reference_py=tmp_path / "reference.py", kernel_py=tmp_path / "kernel.py", device="cpu")
    loaded, derived = LoadedProblem.load(problem, "cpu"), DerivedProblems()
    entries = [ProblemShape(kwargs=e) for e in ({"M": 2, "N": 64}, {"M": 16, "N": 128})]
    sizes = derived_sizes(entries, roles=key_roles(ROWS_REFERENCE))
    assert [(s.kind.value, [t.label() for t in s.tries]) for s in sizes] == [
        ("past", ["M=17,N=129", "M=17,N=128"]),
        ("half", ["M=17,N=160", "M=16,N=192"]),
        ("below", ["M=1,N=33", "M=1,N=32"]),
        ("below_one", ["M=1,N=128"]),  # M=1 alone: its second try, 1 too, is the first
        ("below_one", ["M=16,N=33", "M=16,N=32"]),
        ("quarter", ["M=16,N=144"]),  # N's entries share 64: a quarter of it past 128
        ("power", ["M=64,N=128", "M=32,N=128"]),  # wrongkernel13: each key a power of two in every entry, alone
        ("power", ["M=16,N=512", "M=16,N=256"]),
    ]

    def check_at(source: str, shape: ProblemShape) -> tuple[Outcome, str | None]:
        verdict = derived.check(loaded, tmp_path / f"{source}.py", shape)
        return verdict.outcome, verdict.reason

    together = [s for s in sizes if s.kind not in (SizeClass.BELOW_ONE, SizeClass.POWER)]  # the net before net12
    before = cast(together, "kernel", "table", check_at)
    assert before.failed is None and "correct at M=17,N=129, M=17,N=160, M=1,N=33" in before.line(), before.line()
    now = cast(sizes, "kernel", "table", check_at)
    assert now.failed is not None and now.failed.shape.label() == "M=16,N=33", now.line()
    assert now.line().startswith(
        "the written kernel fails at M=16,N=33 (one dimension below the smallest entry, the rest at their largest), "
        "where the original passes: wrong_result"
    ), now.line()


def test_the_first_size_s_cost_is_estimated_from_the_entries_check_before_it_starts() -> None:
    """m2: the cap was checked only after a size ran, so the first size always started (grouped_gemm's, both
    kernels, 21-31 s against a 30 s cap). Now each try's request is estimated before it starts: by the costliest
    request of the smallest try run at least as large, else by the entries' own times (the written kernel's check on
    every entry together, a fixed part and its calls, the calls scaled by the elements) or the largest try run,
    scaled up so. Entries whose checks took 40 s, 20 of them calls: the sizes above them (about 50 and 60 s) are
    not run, each line saying so with its estimate, and those below them are."""
    from kernelopt.tuning.candidate import Outcome
    from kernelopt.tuning.net import EntryTimes, NetCap, cast, derived_sizes
    from kernelopt.tuning.problem import ProblemShape
    from tests.test_net11_cases import _Clock

    clock = _Clock()
    entries = [ProblemShape(kwargs={"M": 2, "N": 64}), ProblemShape(kwargs={"M": 16, "N": 128})]
    sizes = derived_sizes(entries, roles=key_roles(ROWS_REFERENCE))
    assert [round(x, 3) for x in sizes[0].scales] == [1.008, 1.0]  # 17 x 129 over 2 x 64 + 16 x 128
    ran: list[str] = []

    def check_at(source: str, shape: ProblemShape) -> tuple[Outcome, str | None]:
        ran.append(shape.label())
        clock.now += 40.0 * (shape.kwargs["M"] * shape.kwargs["N"]) / (2 * 64 + 16 * 128)
        return Outcome.OK, None

    entries = EntryTimes(check_s=40.0, kernel_s=20.0, count=2)  # 10 s a request fixed, the calls 20 s together
    verdict = cast(sizes, "original", "written", check_at, cap=NetCap.of(1.0, clock()), entries=entries, clock=clock)
    assert ran == ["M=1,N=33", "M=1,N=128", "M=16,N=33"], ran  # the sizes whose estimates fit the 30 s
    # the quarter and the power sizes past the cap
    assert [c.passed for c in verdict.checks] == [None, None, True, True, True, None, None, None]
    assert "M=17,N=129: not run, it would end past the net's time cap of 30 s" in verdict.line()
    assert "(about 50.3 s a request at its size)" in verdict.line(), verdict.line()
    # without the entries' seconds the first size starts, as before (the longest request so far then weighs the rest)
    clock.now, ran[:] = 0.0, []
    blind = cast(sizes, "original", "written", check_at, cap=NetCap.of(1.0, clock()), clock=clock)
    assert ran[0] == "M=17,N=129" and blind.checks[0].passed


# ------------------------------------------------------------------------------------------------ on a GPU


@pytest.mark.gpu
@pytest.mark.timeout(600)
def test_on_cuda_a_failed_edit_gives_way_integer_outputs_are_fenced_and_one_dimension_moves_below_alone(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """On a GPU, compiled: (m1) the H100 run's case, grid_named_copy (v23, its rule off) over entries of 2**19 and
    2**20 elements, the pick ``BLOCK=128`` failing its check at 2**19: ``BLOCK=512`` is written instead, the net's
    first size weighed by the entries' check seconds; (m4) the ``int32`` codes at 2**20 + 1 elements in the net's own
    check: the original correct, half of each program's codes unwritten seen, a store past the end seen; (m3) the
    table row wrong only where the rows are many fails at ``M=16,N=33`` and passes every size before it."""
    import torch

    from kernelopt.harness.sizekeys import key_roles
    from kernelopt.tuning import folder as tf
    from kernelopt.tuning.candidate import Outcome
    from kernelopt.tuning.checks import LoadedProblem
    from kernelopt.tuning.net import OUT_OF_BOUNDS, DerivedProblems, SizeClass, cast, derived_sizes
    from kernelopt.tuning.problem import Problem, ProblemShape
    from tests.test_tuning_net import _evaluator, _session

    assert torch.cuda.is_available()
    with monkeypatch.context() as m:
        m.setattr(tf, "guard_edit", lambda old, new: Guarded(new_source=new, note=None))
        folder = Path(shutil.copytree(VARIANTS / "grid_named_copy", tmp_path / "copy"))
        reference = folder / "reference.py"
        text = reference.read_text().replace('{"n": 100}', '{"n": 1 << 19}').replace('{"n": 128}', '{"n": 1 << 20}')
        reference.write_text(text)
        prepared = tf.prepare_folder(tf.TuneRequest(folder=folder, device="cuda"))
        with _evaluator(prepared) as evaluator:
            picks = [({"BLOCK": 128}, 10.0), ({"BLOCK": 512}, 11.0)]
            done = tf._checked_edit(_session(prepared, picks, ({"BLOCK": 256}, 20.0)), evaluator)
    assert done.edit is not None and done.result.best_config == {"BLOCK": 512}, done.edit_note
    assert done.edit_note is not None and done.edit_note.startswith(
        "the edit to write failed its check (wrong_result: on the SHAPES entry n=524288"
    ), done.edit_note
    assert done.net is not None and done.net.failed is None and "n=1048577" in done.net.line(), done.net.line()

    def loaded_at(name: str, kernel: str, ref: str) -> tuple[Path, Any]:
        where = tmp_path / name
        where.mkdir()
        (where / "kernel.py").write_text(kernel)
        (where / "reference.py").write_text(ref)
        problem = Problem(reference_py=where / "reference.py", kernel_py=where / "kernel.py", device="cuda")
        return where, LoadedProblem.load(problem, "cuda")

    codes, loaded = loaded_at("codes", CODES_KERNEL, CODES_REFERENCE)
    (codes / "half.py").write_text(CODES_KERNEL.replace("BLOCK=64", "BLOCK=32"))
    (codes / "past.py").write_text(CODES_KERNEL.replace("to(tl.int32), mask=mask)", "to(tl.int32))"))
    derived, at = DerivedProblems(), ProblemShape(kwargs={"n": (1 << 20) + 1})
    got = {name: derived.check(loaded, codes / f"{name}.py", at) for name in ("kernel", "half", "past")}
    assert got["kernel"].outcome is Outcome.OK, got["kernel"].reason
    assert got["half"].outcome is Outcome.WRONG_RESULT, got["half"].reason
    assert got["past"].outcome is Outcome.WRONG_RESULT and got["past"].reason == OUT_OF_BOUNDS, got["past"].reason

    rows, loaded = loaded_at("rows", ROWS_KERNEL, ROWS_REFERENCE)
    (rows / "table.py").write_text(ROWS_TABLE)
    derived = DerivedProblems()
    entries = [ProblemShape(kwargs=e) for e in ({"M": 2, "N": 64}, {"M": 16, "N": 128})]
    sizes = derived_sizes(entries, roles=key_roles(ROWS_REFERENCE))

    def check_at(source: str, shape: ProblemShape) -> tuple[Outcome, str | None]:
        verdict = derived.check(loaded, rows / f"{source}.py", shape)
        return verdict.outcome, verdict.reason

    before = cast([s for s in sizes if s.kind is not SizeClass.BELOW_ONE], "kernel", "table", check_at)
    assert before.failed is None, before.line()
    now = cast(sizes, "kernel", "table", check_at)
    assert now.failed is not None and now.failed.shape.label() == "M=16,N=33", now.line()


@pytest.mark.timeout(120)
def test_a_quarter_of_the_entries_common_factor_past_the_largest_catches_a_split_k_step_the_rules_let_through(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """wrongkernel12's v46 (a split-K loop over K // SPLIT_K, loads without masks; SHAPES K of 256 and 512) with
    ``BLOCK_K=32`` written plainly (its rule off) passed every size of the net, each a power of two's step from the
    entries, and summed each split into the next at K=192 and 320. The quarter size, 512 + 256 // 4 = 576 (splits of
    144), is one the original allows (K % 64 == 0) and the pick fails. Since wrongkernel14 the residue size (K alone at
    512 plus a power of two, down to the original's block: the pick grows a tile and the original refuses odd sizes)
    reaches the same size first."""
    from kernelopt.tuning.net import SizeClass
    from tests.test_tuning_net import plain_pick_checked

    done = plain_pick_checked(tmp_path, monkeypatch, "splitk_range", {"BLOCK_K": 32})
    assert done.edit is None and done.edit_note is not None, done.edit_note
    assert done.edit_note.startswith("the written kernel fails at N=64,K=576 ("), done.edit_note
    assert done.net is not None and done.net.failed is not None, done.edit_note
    assert done.net.failed.kind in (SizeClass.QUARTER, SizeClass.RESIDUE), done.edit_note
