"""The checker's memory on a device short of it (H100 80GB, KernelBench level 1 at full size, 2026-12-05: 8 identical
kernels judged FAIL by a CUDA out-of-memory error the checker caused).

- :func:`kernelopt.harness.footprint.place_check`, a pure function: free bytes and the tensors' bytes -> where
  each copy of the check lives while the kernel runs, and whether the float64 reference runs;
- the attribution of an out-of-memory error through the real worker path (``run_job`` in this process, the
  device's free memory given by a stand-in probe): a kernel that runs out beside the checker's copies is called
  again with the checker at its least; one that runs out with less room than the reference had is the check's
  ERROR, not the kernel's FAIL; one that runs out with at least that room fails; the checker's own OOM is its own;
- the kill past the checker's own limit and a death of OOM in its step are not the kernel's;
- a GPU test that fills the device up to a measured level and proves an identical kernel passes there.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import pytest

from kernelopt.harness import highrun, worker
from kernelopt.harness.footprint import (
    EVERYTHING,
    GIB,
    CheckFootprint,
    Keep,
    Snapshot,
    margin_bytes,
    place_check,
)
from kernelopt.harness.model import CHECK_DOES_NOT_FIT, Culprit, JobMode, KernelSource, WorkerJob, WorkerResult
from kernelopt.harness.progress import LimitKind, ProgressWriter, Step, Timeout
from kernelopt.harness.runner import _crash_culprit, _timeout_culprit

from .conftest import KERNELS

pytestmark = pytest.mark.timeout(120)

ADD_REF = KERNELS / "add_reference.py"


def _swish(free_gib: float) -> CheckFootprint:
    """KernelBench level 1 25_Swish at full size (4096 x 393216 float32: 6 GiB in, 6 GiB out; its reference's
    own run peaks at the output and one temporary), with ``free_gib`` free after the reference's run."""
    six = 6 * GIB
    return CheckFootprint(
        free_bytes=int(free_gib * GIB),
        input_bytes=six,
        output_bytes=six,
        high_output_bytes=2 * six,
        high_run_bytes=2 * six + 2 * (2 * six),
        kernel_bytes=2 * six,
    )


def test_on_the_cpu_nothing_moves() -> None:
    fp = CheckFootprint(None, 1 << 40, 1 << 40, 1 << 41, 1 << 42, 1 << 41)
    assert place_check(fp) == EVERYTHING
    assert not place_check(fp).shrunk


def test_a_device_with_room_keeps_every_copy_there() -> None:
    place = place_check(_swish(free_gib=127.0))  # an H200 after the reference's run
    assert place == EVERYTHING
    assert place.high and place.high_skipped is None


@pytest.mark.parametrize(
    ("free_gib", "high", "snapshot", "outputs", "poison"),
    [
        # after the reference's run (its inputs and outputs held): the float64 run needs 36 GiB beside them
        (40.0, True, Snapshot.COPY, Keep.DEVICE, True),
        # it no longer fits: skipped, and said why; every copy still fits beside the kernel's 12 GiB
        (30.0, False, Snapshot.COPY, Keep.DEVICE, True),
        # the inputs' copy gives way first (a checksum), then the outputs wait on the host, then the poison goes
        (15.0, False, Snapshot.CHECKSUM, Keep.DEVICE, True),
        (10.0, False, Snapshot.CHECKSUM, Keep.HOST, True),
        (4.0, False, Snapshot.CHECKSUM, Keep.HOST, False),
    ],
)
def test_what_gives_way_first_as_room_runs_short(
    free_gib: float, high: bool, snapshot: Snapshot, outputs: Keep, poison: bool
) -> None:
    place = place_check(_swish(free_gib))
    assert (place.high, place.snapshot, place.outputs, place.poison) == (high, snapshot, outputs, poison)
    assert place.high_output is Keep.DEVICE  # made only when its run fits, and then it fits beside the kernel
    assert place.shrunk == (snapshot is Snapshot.CHECKSUM or outputs is Keep.HOST or not poison)
    if not high:
        assert place.high_skipped is not None and "the float64 reference needs about 36.0 GiB" in place.high_skipped


def test_the_kernel_always_keeps_its_room() -> None:
    """Whatever the free memory, what stays on the device beside the kernel leaves it the reference's need."""
    for free_gib in range(1, 140):
        fp = _swish(float(free_gib))
        place = place_check(fp)
        assert fp.free_bytes is not None
        held = (
            (fp.high_output_bytes if place.high and place.high_output is Keep.DEVICE else 0)
            + (fp.input_bytes if place.snapshot is Snapshot.COPY else 0)
            - (fp.output_bytes if place.outputs is Keep.HOST else 0)
        )
        fits = fp.free_bytes - fp.kernel_bytes - margin_bytes(fp.free_bytes) >= held
        at_least = place.outputs is Keep.HOST and place.snapshot is Snapshot.CHECKSUM
        assert fits or at_least, free_gib


# -- the worker path: run_job in this process, the device's free memory from a stand-in probe --


def _job(tmp_path: Path, kernel: Path, **job: Any) -> WorkerJob:
    return WorkerJob(
        mode=JobMode.CHECK,
        reference_py=str(ADD_REF),
        kernels=[KernelSource(label="t", kernel_py=str(kernel), build_dir=str(tmp_path / "build"))],
        progress_path=str(tmp_path / "progress.jsonl"),
        result_path=str(tmp_path / "result.json"),
        **{"device": "cpu", "cases": [1], **job},
    )


def _run(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, kernel_text: str, frees: list[int]) -> WorkerResult:
    """``kernel_text`` as kernel.py checked against the add reference; the probe of the device's free memory
    answers ``frees`` in turn (the last one from then on)."""
    monkeypatch.setenv("TRITON_CACHE_DIR", str(tmp_path / "triton"))
    monkeypatch.setenv("TORCH_EXTENSIONS_DIR", str(tmp_path / "ext"))
    answers = list(frees)
    monkeypatch.setattr(highrun, "device_free_bytes", lambda device: answers.pop(0) if len(answers) > 1 else answers[0])
    tmp_path.mkdir(parents=True, exist_ok=True)
    kernel = tmp_path / "kernel.py"
    kernel.write_text(kernel_text, encoding="utf-8")
    writer = ProgressWriter(tmp_path / "progress.jsonl", time.monotonic)
    try:
        return worker.run_job(_job(tmp_path, kernel), writer)
    finally:
        writer.close()


OOM_ONCE = """
import torch
CALLS = []


def run(x, y):
    CALLS.append(1)
    if len(CALLS) == 1:
        raise torch.OutOfMemoryError("CUDA out of memory. Tried to allocate 12.00 GiB (a stand-in)")
    return x + y
"""

OOM_ALWAYS = """
import torch


def run(x, y):
    raise torch.OutOfMemoryError("CUDA out of memory. Tried to allocate 12.00 GiB (a stand-in)")
"""


def test_a_kernel_out_of_memory_beside_the_checkers_copies_is_called_again_and_passes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    res = _run(tmp_path, monkeypatch, OOM_ONCE, [64 * GIB])
    assert res.failure is None, res.failure
    assert res.cases and all(c.passed for c in res.cases)
    assert any("called again with the reference's outputs on the host" in w for w in res.warnings), res.warnings


def test_a_kernel_out_of_memory_with_less_room_than_the_reference_had_is_the_checks_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # the reference ran with 64 GiB free; at the kernel's second call, at the checker's least, only 2 GiB are
    res = _run(tmp_path, monkeypatch, OOM_ALWAYS, [64 * GIB, 64 * GIB, 64 * GIB, 2 * GIB])
    failure = res.failure
    assert failure is not None and failure.culprit is Culprit.CHECKER
    assert failure.error_class == "CheckDoesNotFit"
    assert f"{CHECK_DOES_NOT_FIT}: the kernel ran out of it with 2.0 GiB free, less than the 64.0 GiB" in (
        failure.message
    )
    assert "\n" not in failure.message


def test_a_kernel_out_of_memory_with_the_room_the_reference_had_fails(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    res = _run(tmp_path, monkeypatch, OOM_ALWAYS, [64 * GIB])
    failure = res.failure
    assert failure is not None and failure.culprit is Culprit.KERNEL
    assert failure.error_class == "OutOfMemoryError"
    assert "the kernel raised OutOfMemoryError" in failure.message
    assert "with 64.0 GiB of the device free, at least the 64.0 GiB the reference ran in" in failure.message


def test_the_checkers_own_out_of_memory_is_never_the_kernels(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import torch

    from kernelopt.harness import compare

    def short(*args: Any, **kwargs: Any) -> Any:
        raise torch.OutOfMemoryError("CUDA out of memory. Tried to allocate 16.00 GiB (a stand-in)")

    monkeypatch.setattr(compare, "check_outputs", short)
    res = _run(tmp_path, monkeypatch, "def run(x, y):\n    return x + y\n", [64 * GIB])
    failure = res.failure
    assert failure is not None and failure.culprit is Culprit.CHECKER
    assert failure.message.startswith(f"case 1 (n=1000): {CHECK_DOES_NOT_FIT}: the checker's own work ran out of it")
    assert "Tried to allocate 16.00 GiB" in failure.message


def test_a_short_device_skips_the_float64_reference_and_moves_the_outputs_to_the_host(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """With less free than the float64 run needs, an identical kernel still passes, against the reference in its
    own dtype, with the reason said; a wrong one still fails."""
    import kernelopt.harness.footprint as footprint

    monkeypatch.setattr(footprint, "MARGIN_MIN_BYTES", 0)
    small = 3000  # bytes free beside the inputs (8000) and the output (4000): float64 (16000 + 8000) does not fit
    res = _run(tmp_path, monkeypatch, "def run(x, y):\n    return x + y\n", [small])
    assert res.failure is None, res.failure
    assert res.cases[0].reference_precision == "native"
    assert any("the float64 reference needs about" in w for w in res.warnings), res.warnings
    assert place_check(highrun.check_footprint(small, [_f32(1000), _f32(1000)], _f32(1000), None)).outputs is Keep.HOST
    wrong = _run(tmp_path / "wrong", monkeypatch, "def run(x, y):\n    return x + y + 1e-2\n", [small])
    assert wrong.failure is not None and wrong.failure.culprit is Culprit.KERNEL
    assert wrong.failure.error_class == "Mismatch"


def _f32(n: int) -> Any:
    import torch

    return torch.zeros(n, dtype=torch.float32)


def test_a_cached_result_is_still_caught_without_a_copy_of_the_seed_before(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    cached = """
SEEN = []


def run(x, y):
    if not SEEN:
        SEEN.append(x + y)
    return SEEN[0]
"""
    res = _run(tmp_path, monkeypatch, cached, [64 * GIB])
    assert res.failure is not None and res.failure.error_class == "CachedResult"


class _DeviceBudget:
    """A device of ``budget_bytes`` simulated on the CPU: a dispatch mode that adds up the bytes of the live
    storages every op makes and raises torch's OutOfMemoryError past the budget, with the worker's probes of the
    free memory and of the peak reading the same count (the allocator's rounding and the CUDA context left out)."""

    def __init__(self, budget_bytes: int) -> None:
        import weakref
        from collections import Counter

        import torch
        from torch.utils._python_dispatch import TorchDispatchMode
        from torch.utils._pytree import tree_flatten

        budget = self
        self.budget, self.live, self.peak, self.since = budget_bytes, 0, 0, 0
        refs: Counter[int] = Counter()
        sizes: dict[int, int] = {}

        def drop(ptr: int) -> None:
            refs[ptr] -= 1
            if not refs[ptr]:
                budget.live -= sizes.pop(ptr)
                del refs[ptr]

        class Mode(TorchDispatchMode):
            @classmethod
            def _should_skip_dynamo(cls) -> bool:
                return False  # no torch._dynamo around the count: its import takes seconds, and nothing compiles here

            def __torch_dispatch__(self, func: Any, types: Any, args: Any = (), kwargs: Any = None) -> Any:
                out = func(*args, **(kwargs or {}))
                for t in tree_flatten(out)[0]:
                    if isinstance(t, torch.Tensor) and t.numel():
                        ptr = t.untyped_storage().data_ptr()
                        if ptr not in sizes:
                            sizes[ptr] = t.untyped_storage().nbytes()
                            budget.live += sizes[ptr]
                        refs[ptr] += 1
                        weakref.finalize(t, drop, ptr)
                budget.peak, budget.since = max(budget.peak, budget.live), max(budget.since, budget.live)
                if budget.live > budget.budget:
                    raise torch.OutOfMemoryError(f"simulated: {budget.live} bytes live of {budget.budget}")
                return out

        self.mode = Mode()

    def probes(self, monkeypatch: pytest.MonkeyPatch) -> None:
        def start(device: str) -> int:
            self.since = self.live
            return self.live

        monkeypatch.setattr(highrun, "device_free_bytes", lambda device: self.budget - self.live)
        monkeypatch.setattr(worker, "_peak_start", start)
        monkeypatch.setattr(worker, "_peak_above", lambda device, at: None if at is None else self.since - at)


SWISH_SMALL = """
import torch
from torch import nn


class Model(nn.Module):
    def forward(self, x):
        return x * torch.sigmoid(x)


def get_inputs():
    return [torch.rand(64, 4096)]


def get_init_inputs():
    return []
"""


def test_an_identical_kernel_passes_in_a_device_budget_the_old_checker_overran(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Swish in a device of 7 input sizes (an H100's 80 GB holds 13 of 25_Swish's 6 GiB; the worker's CUDA context
    and the allocator's blocks take some): the checker before held up to 11 and its identical kernel ran out of
    memory below about 9.5 (the same count, 2026-12-05); now it passes, and a wrong kernel fails."""
    import kernelopt.harness.chunks as chunks
    import kernelopt.harness.footprint as footprint

    monkeypatch.setattr(footprint, "MARGIN_MIN_BYTES", 0)
    monkeypatch.setattr(chunks, "CHUNK_MIN_ELEMS", 1)  # chunks of 1/16 of a tensor, as at full size
    monkeypatch.setenv("TRITON_CACHE_DIR", str(tmp_path / "triton"))
    monkeypatch.setenv("TORCH_EXTENSIONS_DIR", str(tmp_path / "ext"))
    size = 64 * 4096 * 4
    results = {}
    for name, kernel_text in (("identical", IDENTICAL), ("wrong", WRONG)):
        folder = tmp_path / name
        folder.mkdir()
        (folder / "reference.py").write_text(SWISH_SMALL, encoding="utf-8")
        (folder / "kernel.py").write_text(kernel_text, encoding="utf-8")
        device = _DeviceBudget(7 * size)
        device.probes(monkeypatch)
        job = WorkerJob(
            mode=JobMode.CHECK,
            reference_py=str(folder / "reference.py"),
            kernels=[KernelSource(label="t", kernel_py=str(folder / "kernel.py"), build_dir=str(folder / "build"))],
            progress_path=str(folder / "progress.jsonl"),
            result_path=str(folder / "result.json"),
            device="cpu",
            seeds=2,
        )
        writer = ProgressWriter(folder / "progress.jsonl", time.monotonic)
        try:
            with device.mode:
                results[name] = worker.run_job(job, writer)
        finally:
            writer.close()
        assert device.peak <= device.budget
    identical, wrong = results["identical"], results["wrong"]
    assert identical.failure is None, identical.failure
    assert [c.reference_precision for c in identical.cases] == ["native"]  # float64 (6 sizes) did not fit
    assert any("the float64 reference needs about" in w for w in identical.warnings), identical.warnings
    assert wrong.failure is not None and wrong.failure.error_class == "Mismatch"
    assert wrong.failure.culprit is Culprit.KERNEL


def test_a_kill_past_the_checkers_limit_or_its_oom_is_not_the_kernels() -> None:
    check = Timeout(LimitKind.CHECK, "the checker ran past its own limit")
    case = Timeout(LimitKind.CASE, "the kernel ran past the per-case limit")
    assert _timeout_culprit(check, in_problem=False) is Culprit.CHECKER
    assert _timeout_culprit(check, in_problem=True) is Culprit.PROBLEM
    assert _timeout_culprit(case, in_problem=False) is Culprit.KERNEL
    # the overall limit or a batch's per-problem deadline, while the checker compares: the checker's
    run = Timeout(LimitKind.RUN, "the worker ran past the overall limit")
    assert _timeout_culprit(run, in_problem=False, in_check=True) is Culprit.CHECKER
    assert _timeout_culprit(run, in_problem=False, in_check=False) is Culprit.KERNEL
    oom = "Traceback ...\ntorch.OutOfMemoryError: CUDA out of memory. Tried to allocate 12.00 GiB.\n"
    assert _crash_culprit(in_problem=False, step=Step.CHECK, stderr_tail=oom) is Culprit.CHECKER
    assert _crash_culprit(in_problem=False, step=Step.KERNEL, stderr_tail=oom) is Culprit.KERNEL
    assert _crash_culprit(in_problem=False, step=Step.CHECK, stderr_tail="Segmentation fault\n") is Culprit.KERNEL
    assert _crash_culprit(in_problem=True, step=Step.CHECK, stderr_tail=oom) is Culprit.PROBLEM


# -- on a GPU: an identical kernel passes on a device filled up to where the old checker ran out of memory --

SWISH_REFERENCE = """
import torch
from torch import nn

ROWS = {rows}
COLS = 1 << 20


class Model(nn.Module):
    def forward(self, x):
        return x * torch.sigmoid(x)


def get_inputs():
    return [torch.rand(ROWS, COLS)]


def get_init_inputs():
    return []
"""

IDENTICAL = """
import torch
from torch import nn


class ModelNew(nn.Module):
    def forward(self, x):
        return x * torch.sigmoid(x)
"""

WRONG = IDENTICAL.replace("torch.sigmoid(x)", "torch.sigmoid(x) + 1e-2")

INPUT_GIB = 2  # the problem's input (and output): 2 GiB of float32
ROOM_INPUTS = 7
"""The worker is left this many input sizes of the device's memory (14 GiB): the checker before this change
held up to 11 (seed 0's copy, the seed before's two outputs, the inputs' copy, the float64 outputs; simulated
on the CPU with a tensor-counting dispatch mode, 2026-12-05) and its identical kernel ran out of memory below
about 9; the reference's own run needs 3 and the kernel's 2 beside the inputs."""
WORKER_CONTEXT_GIB = 1  # the worker's CUDA context and the allocator's rounding


@pytest.mark.gpu
@pytest.mark.timeout(600)
def test_on_a_gpu_an_identical_kernel_passes_where_the_checker_ran_out_of_memory(tmp_path: Path) -> None:
    import torch

    from kernelopt.harness.gate import check_files
    from kernelopt.harness.settings import HarnessSettings

    free, total = torch.cuda.mem_get_info()
    want = (ROOM_INPUTS * INPUT_GIB + WORKER_CONTEXT_GIB) * GIB
    if free < want + GIB:
        pytest.skip(f"{free / GIB:.1f} GiB free of {total / GIB:.1f}: too little for the test")
    ballast = torch.empty(free - want, dtype=torch.uint8, device="cuda")  # the rest of the device, held here
    try:
        rows = INPUT_GIB * GIB // (4 * (1 << 20))
        reports = {}
        for name, kernel_text in (("identical", IDENTICAL), ("wrong", WRONG)):
            folder = tmp_path / name
            folder.mkdir()
            (folder / "reference.py").write_text(SWISH_REFERENCE.format(rows=rows), encoding="utf-8")
            (folder / "kernel.py").write_text(kernel_text, encoding="utf-8")
            settings = HarnessSettings(device="cuda", seeds=2)
            reports[name] = check_files(
                folder / "kernel.py", folder / "reference.py", folder / "state", settings=settings
            )
    finally:
        del ballast
        torch.cuda.empty_cache()
    identical, wrong = reports["identical"], reports["wrong"]
    assert identical.passed, identical.message
    assert not wrong.passed and wrong.error_class == "Mismatch" and wrong.culprit is Culprit.KERNEL, wrong.message


def test_outputs_waiting_on_the_host_are_compared_as_made_on_the_device() -> None:
    """The reference's outputs moved to the host while the kernel ran are held to the device they were made on:
    an output on that device passes, one elsewhere is WrongDevice naming it; statistics read before the move
    give the same verdict."""
    import torch

    from kernelopt.harness.compare import check_outputs, prepare_pair

    ref = torch.linspace(-1.0, 1.0, 4096)
    hi = ref.double()
    prepared = prepare_pair(ref, hi)
    same = check_outputs(ref.clone(), ref, hi, prepared=prepared, device_type="cpu")
    assert same.message is None and same.rel_err == 0.0
    wrong = check_outputs(ref + 0.5, ref, hi, prepared=prepared, device_type="cpu")
    assert wrong.error_class == "Mismatch"
    elsewhere = check_outputs(ref.clone(), ref, hi, prepared=prepared, device_type="cuda")
    assert elsewhere.error_class == "WrongDevice"
    assert elsewhere.message == "output is on cpu; the reference's is on cuda"


def test_the_timings_own_out_of_memory_is_never_the_kernels(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import torch

    from kernelopt.harness import timers

    def short(*args: Any, **kwargs: Any) -> Any:
        raise torch.OutOfMemoryError("CUDA out of memory. Tried to allocate 8.00 GiB (a stand-in)")

    monkeypatch.setattr(timers, "one_count", short)  # the checker's own step between the samplers and the samples
    monkeypatch.setenv("TRITON_CACHE_DIR", str(tmp_path / "triton"))
    monkeypatch.setenv("TORCH_EXTENSIONS_DIR", str(tmp_path / "ext"))
    kernel = tmp_path / "kernel.py"
    kernel.write_text("def run(x, y):\n    return x + y\n", encoding="utf-8")
    job = _job(tmp_path, kernel).model_copy(update={"mode": JobMode.BENCH})
    writer = ProgressWriter(tmp_path / "progress.jsonl", time.monotonic)
    try:
        res = worker.run_job(job, writer)
    finally:
        writer.close()
    assert res.failure is not None and res.failure.culprit is Culprit.CHECKER
    assert res.failure.message.startswith(f"case 1: {CHECK_DOES_NOT_FIT}: the timing's own work ran out of it")


def test_batch_counts_a_check_that_does_not_fit_apart_from_the_kernels(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from kernelopt.batch.model import BatchMode, BatchTable, ProblemRow, ProblemStatus, with_fast_p
    from kernelopt.cli.batch import render

    rows = [
        ProblemRow(problem="19_ReLU", folder="a", status=ProblemStatus.PASS, correct=True),
        ProblemRow(
            problem="25_Swish",
            folder="b",
            status=ProblemStatus.ERROR,
            reason=f"correctness: case 0 (default): {CHECK_DOES_NOT_FIT}: the checker's own work ran out of it",
        ),
        ProblemRow(
            problem="45_Average_Pooling_2D",
            folder="c",
            status=ProblemStatus.ERROR,
            reason="the problem's reference failed: correctness: case 0 (default): the reference raised ...",
        ),
    ]
    table = with_fast_p(BatchTable(directory=str(tmp_path), mode=BatchMode.VALIDATE, rows=rows))
    assert table.fast_p[0].problems == 1 and table.fast_p[0].errors == 2  # neither ERROR is counted
    render(table, tmp_path)
    out = " ".join(capsys.readouterr().out.split())
    assert (
        "2 ERROR row(s) (1 a check that does not fit the device's or the host's memory, the rest the problem's own "
        "failure), counted apart" in out
    )


def test_outputs_parked_on_the_host_leave_no_device_copy_held(monkeypatch: pytest.MonkeyPatch) -> None:
    """review14's find: the reference's run kept its outputs referenced while the kernel ran, so parking them on
    the host (or shrinking the check after the kernel's out-of-memory error) gave no device memory back. Parking
    is stood in by a copy (the device's ``.to("cpu")``): once the check keeps its outputs, nothing holds the
    originals, the reference's run included."""
    import gc
    import weakref
    from types import SimpleNamespace

    import torch

    from kernelopt.harness.footprint import CheckPlacement
    from kernelopt.harness.inplace import InPlaceContract

    monkeypatch.setattr(worker, "_park", lambda obj, keep: obj if keep is Keep.DEVICE else obj.clone())
    native, hi = torch.arange(8.0), torch.arange(8.0, dtype=torch.float64)
    gone = [weakref.ref(native), weakref.ref(hi)]
    place = CheckPlacement(outputs=Keep.HOST, high_output=Keep.HOST, snapshot=Snapshot.CHECKSUM, poison=False)
    ref = worker._ReferenceRun(native, hi, "float64", InPlaceContract(), False, place, None)
    del native, hi
    ctx = SimpleNamespace(device="cpu", job=SimpleNamespace(dtype_hint=None), warn_once=lambda *_: None)
    kept = worker._kept_for_kernel(ctx, SimpleNamespace(atol=None, rtol=None), ref, [torch.ones(8)])  # type: ignore[arg-type]
    gc.collect()
    assert [w() for w in gone] == [None, None]
    assert ref.native is None and ref.hi is None and ref.contract is kept.contract
    assert torch.equal(kept.native, torch.arange(8.0)) and kept.hi.dtype == torch.float64
