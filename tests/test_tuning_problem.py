"""The problem (pure): its shapes, the compile shape, its memory fit, and how a folder becomes one."""

from __future__ import annotations

from pathlib import Path

import pytest

from kernelopt.errors import UsageError
from kernelopt.kernelsource import (
    INTERPRETER_MAX_SIZE,
    interpreted_cases,
    shape_size,
    smallest_shape_index,
    timed_shape_index,
)
from kernelopt.tuning.bench_worker import BenchInit
from kernelopt.tuning.problem import (
    MemoryNeed,
    Problem,
    ProblemDoesNotFit,
    ProblemShape,
    compile_shape,
    fit_problem,
    literal_shapes,
    shrink,
    workers_that_fit,
)

GIB = 2**30


@pytest.mark.parametrize(
    ("value", "small"),
    [(16384, 512), (8192, 512), (4096, 512), (100_000, 1696), (1000, 1000), (16, 16), (65536 + 7, 1031)],
)
def test_shrink_keeps_the_remainder_modulo_512(value: int, small: int) -> None:
    assert shrink(value) == small
    assert shrink(value) % 512 == value % 512 or shrink(value) == value


def test_the_compile_shape_is_the_smallest_entry_or_the_primary_shrunk_along_its_leading_size() -> None:
    shapes = [{"M": 4096, "N": 4096}, {"M": 256, "N": 512}, {"M": 1024, "N": 64}]
    primary = ProblemShape(kwargs=shapes[0])
    assert compile_shape(primary, shapes, {}).kwargs == {"M": 1024, "N": 64}  # fewest elements
    one = ProblemShape(kwargs={"M": 16384, "N": 8192, "eps": 1e-5})
    assert compile_shape(one, [one.kwargs], {}).kwargs == {"M": 512, "N": 8192, "eps": 1e-5}
    # KernelBench sizes as module constants: the first that shrinks (batch_size 16 does not), card values first
    sized = ProblemShape(constants={"dim": 32768})
    small = compile_shape(sized, [], {"batch_size": 16, "dim": 16384, "ATOL": 1e-3})
    assert small.constants == {"dim": 512} and small.label() == "dim=512"
    assert compile_shape(ProblemShape(), [], {"n": 8}) == ProblemShape()


def test_fit_is_four_times_inputs_plus_outputs_and_a_miss_is_one_line() -> None:
    need = MemoryNeed(inputs_bytes=2 * GIB, outputs_bytes=GIB)
    assert need.bench_bound_bytes == 12 * GIB
    fit_problem(need, 12 * GIB, device="cuda:0")
    with pytest.raises(ProblemDoesNotFit) as missed:
        fit_problem(need, 8 * GIB, device="cuda:0")
    assert missed.value.one_line() == (
        "the problem cannot fit on cuda:0: the bench worker needs 12.00 GiB (4 x (inputs 2.00 GiB + outputs "
        "1.00 GiB)) but 8.00 GiB are free; free the device, use a larger one, or lower the problem size "
        "(task card sizes / size_scale)"
    )
    assert missed.value.exit_code == 3
    assert workers_that_fit(need, 30 * GIB, wanted=4) == 2 and workers_that_fit(need, GIB, wanted=2) == 1


def test_literal_shapes_are_read_without_importing(tmp_path: Path) -> None:
    ref = tmp_path / "reference.py"
    ref.write_text('import torch\nSHAPES = [{"n": 1024}, {"n": 64}]\n')
    assert literal_shapes(ref) == [{"n": 1024}, {"n": 64}]
    ref.write_text("SHAPES = [dict(n=k) for k in (1, 2)]\n")
    assert literal_shapes(ref) is None
    ref.write_text('SHAPES = [{"n": 2 ** 20}, {"n": ((((2 ** 64) ** 64) ** 64) ** 64) ** 64}]\n')
    assert literal_shapes(ref) is None  # no literal: a power of a power is never worked out (it would run for ever)


def test_a_folder_with_a_task_card_becomes_a_problem(tmp_path: Path) -> None:
    (tmp_path / "kernel.py").write_text("def run(x):\n    return x\n")
    (tmp_path / "reference.py").write_text("BATCH = 4096\nDIM = 1024\n\ndef get_inputs():\n    return []\n")
    (tmp_path / "README.md").write_text("---\ndtype: bf16\nsizes:\n  BATCH: 8192\n---\n")
    problem = Problem.from_folder(tmp_path, device="cuda")
    assert problem.constants == {"BATCH": 8192} and problem.dtype_hint == "bf16"
    assert problem.primary_shape([]) == ProblemShape(constants={"BATCH": 8192})
    assert problem.compile_shape([]).constants == {"BATCH": 512}
    scaled = Problem.from_folder(tmp_path, size_scale=0.5)
    assert scaled.constants == {"BATCH": 8192, "DIM": 512}
    # the workers' setup payload carries it whole
    init = BenchInit(problem=problem)
    assert BenchInit.model_validate_json(init.model_dump_json()).problem == problem
    (tmp_path / "README.md").write_text("---\nsizes:\n  WIDTH: 8\n---\n")
    with pytest.raises(UsageError, match="defines no module-level size constant 'WIDTH'"):
        Problem.from_folder(tmp_path)


def test_a_triton_kernel_on_the_cpu_is_timed_on_the_smallest_shape(tmp_path: Path) -> None:
    """The fresh-user trial of 2026-12-04: `kernelopt tune examples/softmax --device cpu` timed 32768 x 4096
    in Triton's interpreter, and every candidate ran out of its 60 s."""
    shapes = [{"n_rows": 32768, "n_cols": 4096}, {"n_rows": 5, "n_cols": 300}, {"n_rows": 7, "n_cols": 300}]
    assert timed_shape_index(shapes, interpreted=True) == 1 and timed_shape_index(shapes, interpreted=False) == 0
    assert timed_shape_index(shapes[:1], interpreted=True) == 0
    # one size rule for the timed and the compile shape: get_inputs()'s defaults ({}) are never the small
    # one, and a 0 counts as 1
    assert smallest_shape_index([{}, {"n": 4096}]) == 1 and shape_size({"n": 64, "offset": 0}) == 64
    (tmp_path / "reference.py").write_text("def get_inputs(n_rows, n_cols):\n    return []\n")
    (tmp_path / "kernel.py").write_text("import triton\n\ndef run(x):\n    return x\n")
    assert Problem.from_folder(tmp_path, device="cpu").primary_shape(shapes).kwargs == shapes[1]
    assert Problem.from_folder(tmp_path, device="cuda").primary_shape(shapes).kwargs == shapes[0]
    (tmp_path / "kernel.py").write_text("import torch\n\ndef run(x):\n    return x\n")  # torch on the CPU: native
    assert Problem.from_folder(tmp_path, device="cpu").primary_shape(shapes).kwargs == shapes[0]


def test_a_size_scale_with_nothing_to_scale_is_refused(tmp_path: Path) -> None:
    (tmp_path / "kernel.py").write_text("def run(x):\n    return x\n")
    (tmp_path / "reference.py").write_text('SHAPES = [{"n": 1 << 20}]\n\ndef get_inputs(n):\n    return []\n')
    with pytest.raises(UsageError, match="size scale 0.01 changes nothing: reference.py has no module-level"):
        Problem.from_folder(tmp_path, size_scale=0.01)
    assert Problem.from_folder(tmp_path, size_scale=1.0).constants == {}  # a scale of 1 asks nothing


def test_the_interpreter_checks_every_entry_it_can_run_in_seconds_else_the_smallest() -> None:
    gpu_sized = {"n_rows": 32768, "n_cols": 4096}
    assert interpreted_cases([gpu_sized, {"n_rows": 5, "n_cols": 300}, {"n_rows": 2048, "n_cols": 2048}]) == [1, 2]
    assert shape_size({"n_rows": 2048, "n_cols": 2048}) == INTERPRETER_MAX_SIZE
    assert interpreted_cases([{"n": 4096}, {"n": 1000}]) == [0, 1]  # small entries: all of them
    assert interpreted_cases([gpu_sized, {"n_rows": 8192, "n_cols": 4096}]) == [1]  # none small: the smallest
    assert interpreted_cases([]) == []
