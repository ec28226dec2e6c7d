"""Verdicts a batch can trust (issue 34): the checker's time is never the kernel's, a reference that fails is an
ERROR of the problem (counted apart from the kernels, in the table and in fast_p), and fast_p has a
significant twin that counts only calibrated speedup claims.

The large-output check runs in a worker of its own (a torch start-up, then a 20 M-element cumulative sum);
the reference failures go through the same worker code in this process (``run_job``).
"""

from __future__ import annotations

import json
import textwrap
import time
from datetime import UTC, datetime
from pathlib import Path

import pytest

from kernelopt.batch.model import FAST_P_THRESHOLDS, ProblemRow, ProblemStatus, fast_p
from kernelopt.batch.rows import validate_row
from kernelopt.batch.work import phase_seconds
from kernelopt.harness.gate import GateReport, check_files, limits_of
from kernelopt.harness.model import (
    CorrectnessReport,
    Culprit,
    JobMode,
    KernelSource,
    WorkerJob,
    WorkerResult,
)
from kernelopt.harness.progress import ProgressWriter, Step, Watchdog
from kernelopt.harness.settings import HarnessSettings
from kernelopt.harness.worker import run_job
from kernelopt.memory.model import CorrectnessStatus, GateResult, IterationRecord

pytestmark = pytest.mark.timeout(120)

#: 4000 x 5000 = 20 M elements: KernelBench level 1's cumulative sums have 54 M; this stays quick on a CI CPU.
CUMSUM_REFERENCE = """
import time

import torch
from torch import nn

ROWS, COLS = 4000, 5000


class Model(nn.Module):
    def forward(self, x):
        time.sleep(0.6)  # a slow reference: with its float64 run, 1.2 s of checking per seed
        return torch.cumsum(x, dim=1)


def get_inputs():
    return [torch.randn(ROWS, COLS)]


def get_init_inputs():
    return []
"""

CUMSUM_KERNEL = """
import torch
from torch import nn


class ModelNew(nn.Module):
    def forward(self, x):
        return torch.cumsum(x, dim=1)
"""


def _write(folder: Path, reference: str, kernel: str) -> tuple[Path, Path]:
    folder.mkdir(parents=True, exist_ok=True)
    ref, ker = folder / "reference.py", folder / "kernel.py"
    ref.write_text(textwrap.dedent(reference), encoding="utf-8")
    ker.write_text(textwrap.dedent(kernel), encoding="utf-8")
    return ker, ref


@pytest.mark.parametrize("device", ["cpu", pytest.param("cuda", marks=pytest.mark.gpu)])
def test_a_large_output_check_is_not_charged_to_the_kernel(tmp_path: Path, device: str) -> None:
    # the checker (inputs, the reference twice, the comparison of 20 M elements) takes well over the 1 s
    # per-case limit; the kernel's own call takes a fraction of it: PASS, not "the kernel hangs"
    kernel, reference = _write(tmp_path / "cumsum", CUMSUM_REFERENCE, CUMSUM_KERNEL)
    settings = HarnessSettings(device=device, case_timeout_s=1.0, seeds=1)
    report = check_files(kernel, reference, tmp_path / "state", settings=settings)
    assert report.passed, report.message
    assert report.rel_err is not None  # the fast chunked pass still measures the error
    assert report.run_dir is not None
    events = [json.loads(line) for line in Path(report.run_dir, "progress.jsonl").read_text().splitlines()]
    dog = Watchdog(limits=limits_of(settings), started_at=events[0]["t"])
    for event in events:
        dog.feed(event)
    assert dog.check_total_s > settings.case_timeout_s  # the check alone would have run past the kernel's limit
    assert dog.run_used_s < settings.case_timeout_s
    # where the seconds went: the reference's two runs (its own dtype, float64) slept 0.6 s each
    assert dog.step_s[Step.REFERENCE] >= 1.2 and dog.step_s[Step.KERNEL] < dog.step_s[Step.REFERENCE]
    assert set(dog.step_s) == {Step.INPUTS, Step.REFERENCE, Step.KERNEL, Step.CHECK}
    phases = phase_seconds(tmp_path / "state", datetime(2000, 1, 1, tzinfo=UTC))  # the batch row's figures
    assert phases is not None and phases.reference_s == pytest.approx(dog.step_s[Step.REFERENCE], abs=1e-3)
    assert phases.timing_s == 0.0 and phases.total_s() <= (report.duration_s or 0.0) + 0.01


HANGING_REFERENCE = """
import time

import torch
from torch import nn


class Model(nn.Module):
    def forward(self, x):
        time.sleep(600)  # hangs
        return x


def get_inputs():
    return [torch.randn(64)]


def get_init_inputs():
    return []
"""


def test_a_reference_that_hangs_is_an_error_of_the_problem_naming_the_reference(tmp_path: Path) -> None:
    kernel, reference = _write(tmp_path / "hang", HANGING_REFERENCE, CUMSUM_KERNEL)
    settings = HarnessSettings(device="cpu", case_timeout_s=0.2, seeds=1)  # the checker gets 10 x: 2 s
    report = check_files(kernel, reference, tmp_path / "state", settings=settings)
    assert report.status is CorrectnessStatus.TIMEOUT_FAIL and report.culprit is Culprit.PROBLEM
    assert "running the reference (reference.py)" in (report.message or ""), report.message
    gate = GateReport(
        result=GateResult.TIMEOUT_FAIL,
        failure_reason=f"correctness: {report.message}",
        record=IterationRecord(version="v0"),
        version=0,
        correctness=report,
    )
    row = validate_row(ProblemRow(problem="hang", folder="/x", status=ProblemStatus.ERROR), gate)
    assert row.status is ProblemStatus.ERROR and "running the reference (reference.py)" in (row.reason or "")


def _in_process(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, kernel: Path, reference: Path) -> WorkerResult:
    monkeypatch.setenv("TRITON_CACHE_DIR", str(tmp_path / "triton"))  # run_job sets them; restore after
    monkeypatch.setenv("TORCH_EXTENSIONS_DIR", str(tmp_path / "ext"))
    spec = WorkerJob(
        mode=JobMode.CHECK,
        reference_py=str(reference),
        kernels=[KernelSource(label="t", kernel_py=str(kernel), build_dir=str(tmp_path / "build"))],
        progress_path=str(tmp_path / "progress.jsonl"),
        result_path=str(tmp_path / "result.json"),
        device="cpu",
        seeds=1,
    )
    writer = ProgressWriter(tmp_path / "progress.jsonl", time.monotonic)
    try:
        return run_job(spec, writer)
    finally:
        writer.close()


SMALL_REFERENCE = """
import torch
from torch import nn


class Model(nn.Module):
    def __init__(self{init_args}):
        super().__init__()
        {init_body}

    def forward(self, x):
        {forward_body}
        return x * 2


def get_inputs():
    return [torch.randn(64)]


def get_init_inputs():
    return []
"""

SMALL_KERNEL = """
import torch
from torch import nn


class ModelNew(nn.Module):
    def forward(self, x):
        {forward_body}
        return x * 2
"""


@pytest.mark.parametrize(
    ("init_body", "ref_forward", "kernel_forward", "culprit", "fragment"),
    [
        (
            "pass",
            "raise ValueError('bad shape')",
            "pass",
            Culprit.PROBLEM,
            "the reference raised ValueError: bad shape",
        ),
        ("raise RuntimeError('no')", "pass", "pass", Culprit.PROBLEM, "reference.py Model / get_init_inputs raised"),
        ("pass", "pass", "raise ValueError('mine')", Culprit.KERNEL, "the kernel raised ValueError: mine"),
    ],
    ids=["reference-raises", "model-cannot-build", "kernel-raises"],
)
def test_whose_code_failed_is_said(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    init_body: str,
    ref_forward: str,
    kernel_forward: str,
    culprit: Culprit,
    fragment: str,
) -> None:
    reference = SMALL_REFERENCE.format(init_args="", init_body=init_body, forward_body=ref_forward)
    kernel, ref = _write(tmp_path / "p", reference, SMALL_KERNEL.format(forward_body=kernel_forward))
    result = _in_process(tmp_path, monkeypatch, kernel, ref)
    assert result.failure is not None and fragment in result.failure.message
    assert result.failure.culprit is culprit


def _report(culprit: Culprit, message: str) -> GateReport:
    correctness = CorrectnessReport(passed=False, status=CorrectnessStatus.FAIL, message=message, culprit=culprit)
    return GateReport(
        result=GateResult.FAIL,
        failure_reason=f"correctness: {message}",
        record=IterationRecord(version="v0"),
        version=0,
        correctness=correctness,
    )


def test_a_failing_reference_is_an_error_of_the_problem_not_a_fail_of_the_kernel() -> None:
    row = ProblemRow(problem="31_ELU", folder="/x", status=ProblemStatus.ERROR)
    error = validate_row(row, _report(Culprit.PROBLEM, "case 0 (default): the reference raised ValueError: x"))
    assert error.status is ProblemStatus.ERROR and error.correct is None
    assert error.reason is not None and error.reason.startswith("the problem's reference failed: ")
    fail = validate_row(row, _report(Culprit.KERNEL, "case 0 (default): the kernel raised ValueError: x"))
    assert fail.status is ProblemStatus.FAIL and fail.correct is False


def _row(name: str, status: ProblemStatus, speedup: float | None = None, verdict: str | None = None) -> ProblemRow:
    return ProblemRow(
        problem=name,
        folder=f"/{name}",
        status=status,
        correct=status is ProblemStatus.PASS,
        speedup_vs_eager=speedup,
        eager_verdict=verdict,
    )


def test_fast_p_counts_errors_apart_and_its_significant_twin_counts_only_claims() -> None:
    rows = [
        _row("a", ProblemStatus.PASS, 1.30, "improvement"),  # a significant speedup
        _row("b", ProblemStatus.PASS, 1.01, "no significant change"),  # KernelBench's coin flip at p = 1
        _row("c", ProblemStatus.PASS, 0.97, "no significant change"),
        _row("d", ProblemStatus.FAIL),
        _row("e", ProblemStatus.ERROR),  # the reference raised: not the kernel's, left out
    ]
    at1 = fast_p(rows, 1.0)
    assert (at1.problems, at1.errors) == (4, 1)
    assert at1.eager == pytest.approx(2 / 4) and at1.eager_significant == pytest.approx(1 / 4)
    assert at1.compile is None and at1.compile_significant is None
    at15 = fast_p(rows, FAST_P_THRESHOLDS[1])
    assert at15.eager == 0.0 and at15.eager_significant == 0.0
    only_errors = fast_p([_row("e", ProblemStatus.ERROR)], 1.0)
    assert only_errors.eager is None and only_errors.errors == 1


class _SlowSampler:
    """A sampler whose samples take 10 ms: the load grew after the block count was planned."""

    def sample(self) -> float:
        time.sleep(0.01)
        return 10_000.0


def test_a_timing_whose_samples_grow_stops_at_its_budget_in_whole_blocks() -> None:
    from kernelopt.harness.stats import abba_ratios
    from kernelopt.harness.timers import MIN_BLOCKS_KEPT, abba_order, take_samples

    samplers = [_SlowSampler(), _SlowSampler()]
    order = abba_order(2, 100)  # planned: 400 samples, 4 s
    t0 = time.monotonic()
    a, b = take_samples(samplers, order, budget_s=0.2)  # type: ignore[arg-type]
    assert time.monotonic() - t0 < 2.0
    assert len(a) == len(b) and len(a) % 2 == 0 and len(a) // 2 >= MIN_BLOCKS_KEPT
    assert len(abba_ratios(a, b)) == len(a) // 2  # whole ABBA blocks
    full = take_samples(samplers, abba_order(2, 4))  # type: ignore[arg-type]
    assert [len(x) for x in full] == [8, 8]  # no budget: the plan


def test_a_run_whose_process_id_was_used_before_in_the_pool_has_not_exited(tmp_path: Path) -> None:
    # pid_max is 32768 on the CI machine: a long batch's pool sees ids come back; a PASS of KernelBench level
    # 1 #97 was read as "the worker exited with code 0 without a result" at its start
    from kernelopt.worker.forkpool import ForkPool
    from kernelopt.worker.forkserver import Exited, Launched

    pool = ForkPool(tmp_path / "pool", warm_device="cpu", lifetime_s=10.0)  # never opened: no server
    pool._receive(Launched(id=1, pid=4242, warm=False))
    pool._receive(Exited(pid=4242, returncode=0))
    assert pool.exit_status(4242) == 0
    pool._receive(Launched(id=2, pid=4242, warm=False))  # a new run, the same id
    assert pool.exit_status(4242) is None
    pool._receive(Exited(pid=4242, returncode=1))
    assert pool.exit_status(4242) == 1


def test_an_optimize_row_whose_reference_failed_is_an_error(tmp_path: Path) -> None:
    from kernelopt.batch.rows import optimize_row
    from kernelopt.loop.opening import open_or_create
    from kernelopt.memory.model import QualityGate

    reference = SMALL_REFERENCE.format(init_args="", init_body="pass", forward_body="raise ValueError('x')")
    _write(tmp_path / "p", reference, SMALL_KERNEL.format(forward_body="pass"))
    ws = open_or_create(tmp_path / "p", root=tmp_path / "ws").workspace
    row = ProblemRow(problem="p", folder=str(tmp_path / "p"), status=ProblemStatus.ERROR)
    reason = "correctness: case 0 (default): the reference raised ValueError: x"
    for culprit, status in ((Culprit.PROBLEM, ProblemStatus.ERROR), (Culprit.KERNEL, ProblemStatus.FAIL)):
        gate = QualityGate(result=GateResult.FAIL, failure_reason=reason, culprit=culprit.value)
        ws.memory.write(IterationRecord(version="v0", quality_gate=gate))
        assert optimize_row(row, ws).status is status
