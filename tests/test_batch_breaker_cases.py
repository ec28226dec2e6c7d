"""A new user's batch (issue 34, breaker trial): cases where the verdict blamed the wrong side.

Each case is a kernel or a reference under tests/data/batch_breaker/, checked in a worker of its own on the CPU
(``check_files``), then turned into the batch's row (``validate_row``) as the batch does.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from kernelopt.batch.kernelbench import kernelbench_items, sample_files
from kernelopt.batch.model import ProblemRow, ProblemStatus
from kernelopt.batch.rows import item_row, validate_row
from kernelopt.errors import InputFileError
from kernelopt.harness.gate import GateReport, check_files
from kernelopt.harness.model import CorrectnessReport, Culprit
from kernelopt.harness.settings import HarnessSettings
from kernelopt.memory.model import CorrectnessStatus, GateResult, IterationRecord

pytestmark = pytest.mark.timeout(120)

DATA = Path(__file__).parent / "data" / "batch_breaker"


def _check(tmp_path: Path, kernel: str, reference: str) -> CorrectnessReport:
    folder = tmp_path / "problem"
    folder.mkdir()
    shutil.copy(DATA / kernel, folder / "kernel.py")
    shutil.copy(DATA / reference, folder / "reference.py")
    settings = HarnessSettings(device="cpu", case_timeout_s=30.0, seeds=1)
    return check_files(folder / "kernel.py", folder / "reference.py", tmp_path / "state", settings=settings)


def _row(report: CorrectnessReport) -> ProblemRow:
    gate = GateReport(
        result=GateResult(report.status.value),
        failure_reason=f"correctness: {report.message}",
        record=IterationRecord(version="v0"),
        version=0,
        correctness=report,
    )
    return validate_row(ProblemRow(problem="p", folder="/x", status=ProblemStatus.ERROR), gate)


def test_a_kernel_that_exits_with_code_3_is_its_own_fail_not_a_missing_device(tmp_path: Path) -> None:
    # Seen: ERROR "the harness worker found no usable device": the worker's own exit code for a missing GPU,
    # read from a kernel's os._exit(3), blamed the machine and took the row out of fast_p.
    report = _check(tmp_path, "kernel_exit3.py", "reference.py")
    assert report.status is CorrectnessStatus.FAIL and report.culprit is Culprit.KERNEL
    assert "exited with code 3 without a result" in (report.message or ""), report.message
    assert "device" not in (report.message or "")
    row = _row(report)
    assert row.status is ProblemStatus.FAIL and "exited with code 3" in (row.reason or "")


def test_a_reference_that_ends_its_process_is_an_error_of_the_problem(tmp_path: Path) -> None:
    # Seen: a reference that crashes the worker (os._exit, a segfault, the OOM killer) was a FAIL of the kernel.
    report = _check(tmp_path, "kernel_sum.py", "reference_exits.py")
    assert report.status is CorrectnessStatus.FAIL and report.culprit is Culprit.PROBLEM, report.message
    assert "running the reference (reference.py)" in (report.message or ""), report.message
    row = _row(report)
    assert row.status is ProblemStatus.ERROR
    assert (row.reason or "").startswith("the problem's reference failed:") and "\n" not in (row.reason or "")


def test_a_correct_kernel_passes_against_the_breaker_problem(tmp_path: Path) -> None:
    report = _check(tmp_path, "kernel_sum.py", "reference.py")
    assert report.passed, report.message


def test_a_random_reference_does_not_widen_the_tolerance_for_a_kernel_without_its_noise(tmp_path: Path) -> None:
    # Seen: a reference adding torch.rand noise made its own-dtype and float64 runs differ; read as its rounding
    # error, that widened the tolerance x231 and a kernel without the noise (off by up to 1 in 32) passed.
    # Its output changes with the random state beyond the tolerance, and the kernel draws nothing: the problem's
    # error, never the kernel's FAIL (docs/faults.md refblame13 r2); the noise is still no rounding error.
    report = _check(tmp_path, "kernel_sum.py", "reference_random.py")
    assert report.status is CorrectnessStatus.FAIL and report.culprit is Culprit.PROBLEM, report.message
    assert "the reference draws random numbers and its output changes with the random state" in (report.message or "")
    assert "beyond tolerance" in (report.message or ""), report.message
    assert all("widened" not in (c.tolerance.basis if c.tolerance else "") for c in report.cases)


def test_a_kernel_drawing_the_reference_s_random_numbers_the_same_way_passes(tmp_path: Path) -> None:
    # each run of a seed starts from the same random state, the reference's and the kernel's alike
    report = _check(tmp_path, "kernel_random.py", "reference_random.py")
    assert report.passed, report.message


def test_a_problem_file_lacking_get_init_inputs_or_get_inputs_is_an_error_of_the_problem(tmp_path: Path) -> None:
    # Seen: INVALID, a row counted in fast_p against the kernel, for a defect of the problem file
    items = kernelbench_items(DATA / "level1", DATA / "runs", tmp_path / "out")
    rows = {item.problem: item_row(item) for item in items}
    assert rows["5_NoInitInputs"].status is ProblemStatus.ERROR
    assert rows["5_NoInitInputs"].reason == "5_NoInitInputs.py: KernelBench form (class Model) needs get_init_inputs()"
    assert rows["6_NoGetInputs"].status is ProblemStatus.ERROR
    assert (rows["6_NoGetInputs"].reason or "").startswith("6_NoGetInputs.py: defines no get_inputs()")


HOLD_LOCK = """
import sys, time
from kernelopt.workspace import RunLock
RunLock(sys.argv[1], command="batch").acquire()
print("held", flush=True)
time.sleep(60)
"""


def test_a_second_batch_on_the_same_out_is_refused_in_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # Seen: two `kernelopt batch ... --out OUT` at once both ran every problem left, in the same workspaces,
    # each rewriting batch.json (the last writer's rows won)
    from kernelopt.cli.app import main

    out = tmp_path / "out"
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).parents[1] / "src")}
    holder = subprocess.Popen([sys.executable, "-c", HOLD_LOCK, str(out)], stdout=subprocess.PIPE, text=True, env=env)
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "held"
        argv = ["batch", str(DATA / "level1"), "--kernels", str(DATA / "runs"), "--device", "cpu", "--out", str(out)]
        assert main(argv) == 2
        err = capsys.readouterr().err
        assert err.startswith(f"kernelopt: error: another kernelopt batch is running on {out} (pid {holder.pid})")
        assert err.count("\n") == 1 and not (out / "batch.json").exists()
    finally:
        holder.kill()
        holder.wait(timeout=10)


def test_a_runs_folder_with_no_kernel_of_the_level_is_one_input_error(tmp_path: Path) -> None:
    # Seen: an empty runs folder, or `--level 2` with level 1's kernels, gave a table of nothing but
    # "no generated kernel" rows and exit 0
    (tmp_path / "empty").mkdir()
    with pytest.raises(InputFileError, match=r"holds no generated kernel of level 1 \(level_1_problem_"):
        sample_files(tmp_path / "empty", 1)
    with pytest.raises(InputFileError) as wrong_level:
        sample_files(DATA / "runs", 2)
    assert "it holds kernels of level 1: give --level or that level's folder" in wrong_level.value.one_line()
    assert sorted(sample_files(DATA / "runs", 1)) == [5, 6]


def test_the_sizes_table_has_one_row_per_problem_not_per_sample(capsys: pytest.CaptureFixture[str]) -> None:
    # Seen: 20 samples of one problem printed the same sizes row 20 times
    from kernelopt.batch.model import BatchMode, BatchTable
    from kernelopt.cli.batch import _render_sizes
    from kernelopt.harness.sizes import KeptSize, ScaledSize, SizePlan

    def plan(after: int) -> SizePlan:
        return SizePlan(
            scale=0.02,
            asked_scale=0.02,
            scaled=[ScaledSize(name="batch_size", before=128, after=after)],
            kept=[KeptSize(name="reduce_dim", value=1, reason="a dimension index")],
        )

    rows = [
        ProblemRow(problem="47_Sum", folder="/x", problem_id=47, sample=k, status=ProblemStatus.PASS, sizes=plan(3))
        for k in range(5)
    ]
    rows += [
        ProblemRow(
            problem="48_Mean", folder="/y", problem_id=48, sample=k, status=ProblemStatus.PASS, sizes=plan(3 + k)
        )
        for k in range(2)
    ]
    _render_sizes(BatchTable(directory="/l", mode=BatchMode.VALIDATE, rows=rows))
    out = capsys.readouterr().out
    assert out.count("batch_size 128->3") == 2, out  # 47's five samples share a row; 48's first sample has its own
    assert out.count("batch_size 128->4") == 1 and out.count("a dimension index") == 3, out


def test_a_reference_that_is_nan_everywhere_is_an_error_of_the_problem_not_a_pass(tmp_path: Path) -> None:
    # Seen: PASS for a kernel returning NaN against a reference whose output is all NaN
    report = _check(tmp_path, "kernel_nan.py", "reference_nan.py")
    assert report.status is CorrectnessStatus.FAIL and report.culprit is Culprit.PROBLEM, report.message
    assert report.message == (
        "case 0 (default): the reference's output 0 is NaN or Inf at every element (4): "
        "nothing to check the kernel against"
    )
    assert _row(report).status is ProblemStatus.ERROR


@pytest.mark.parametrize(
    ("kernel", "names"),
    [("kernel_patch_torch.py", "torch.sum"), ("kernel_patch_method.py", "torch.Tensor.sum, torch.sum")],
)
def test_a_kernel_that_patches_torch_s_operators_fails(tmp_path: Path, kernel: str, names: str) -> None:
    # Seen: PASS for kernels that replaced torch.sum (at import or in ModelNew()): the reference ran the patch too
    report = _check(tmp_path, kernel, "reference.py")
    assert report.status is CorrectnessStatus.FAIL and report.culprit is Culprit.KERNEL, report.message
    assert report.message == (
        f"case 0 (default): kernel.py replaced {names}, which the reference calls too: the check would compare "
        "the kernel with itself; call your own function instead of patching torch"
    )


def test_a_kernel_whose_import_hangs_waits_out_the_compile_limit_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Seen: 16 s for a compile limit of 8 s: the batch's load run (ahead, beside the problem before) waited the
    # limit out, then the gate's check met the same import and waited it out again (at the default 300 s: 600 s)
    from kernelopt.batch.runner import BatchOptions, run_batch

    level, runs = tmp_path / "level1", tmp_path / "runs"
    level.mkdir()
    runs.mkdir()
    for pid, kernel in ((1, "kernel_sum.py"), (2, "kernel_import_hang.py")):
        shutil.copy(DATA / "reference.py", level / f"{pid}_Sum.py")
        shutil.copy(DATA / kernel, runs / f"level_1_problem_{pid}_sample_0_kernel.py")
    for name, value in (("KERNELOPT_COMPILE_TIMEOUT_S", "2"), ("KERNELOPT_SEEDS", "1"), ("KERNELOPT_BENCH_S", "0.05")):
        monkeypatch.setenv(name, value)
    table = run_batch(level, BatchOptions(out_dir=tmp_path / "out", kernels=runs, device="cpu"))
    good, hung = table.rows
    assert good.status is ProblemStatus.PASS, good.reason
    assert hung.status is ProblemStatus.TIMEOUT_FAIL and hung.correct is False
    assert hung.reason == (
        "correctness: loading kernel.py (import and compilation) ran past the compile limit of 2 s "
        "(KERNELOPT_COMPILE_TIMEOUT_S)"
    )
    runs_made = sorted(p.name.split("-")[1] for p in Path(hung.workspace or "").glob(".kernelopt/runs/*"))
    assert runs_made == ["load"]  # no second wait in a check run
