"""Correctness on the CPU: correct kernels pass, every adversarial kernel fails with the right reason.

What needs a process of its own runs in fresh workers (about 1.5-2 s each, mostly importing torch): the
kernel forms, the segfault, the hang, partial writes (the CPU poison comes from MALLOC_PERTURB_ at
process start), compile limits. They start together from a thread pool in one module fixture; the hang
and the run after a crash are timed on their own. The other adversarial kernels go through the same
worker code in this process (``run_job``), which saves a torch start-up each.
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest

from kernelopt.harness.gate import check_files
from kernelopt.harness.model import CorrectnessReport, JobMode, KernelSource, WorkerJob, WorkerResult
from kernelopt.harness.progress import ProgressWriter
from kernelopt.harness.settings import HarnessSettings
from kernelopt.harness.worker import run_job
from kernelopt.memory.model import CorrectnessStatus

from .conftest import DATA, KERNELS

ADV = DATA / "harness"
ADD_REF = KERNELS / "add_reference.py"

pytestmark = pytest.mark.timeout(120)

# name -> (kernel, reference, settings overrides, cases)
RUNS: dict[str, tuple[Path, Path, dict[str, object], list[int] | None]] = {
    "correct": (KERNELS / "add_kernel.py", ADD_REF, {}, None),
    "kernelbench": (KERNELS / "kb_kernel.py", KERNELS / "kb_reference.py", {}, None),
    "triton": (ADV / "add_triton.py", ADD_REF, {}, None),
    "triton_partial": (ADV / "add_triton_partial.py", ADD_REF, {}, None),
    "segfault": (ADV / "segfault.py", ADD_REF, {}, None),
    "partial": (ADV / "partial.py", ADD_REF, {}, None),
    # importing takes 2 s, longer than the 1 s case limit: compile time is not case time...
    "slow_import": (ADV / "slow_import.py", ADD_REF, {"case_timeout_s": 1.0, "seeds": 1}, None),
    # ...but it has its own limit
    "slow_import_limited": (ADV / "slow_import.py", ADD_REF, {"compile_timeout_s": 0.5, "seeds": 1}, None),
}


def _settings(**kw: object) -> HarnessSettings:
    return HarnessSettings.model_validate({"device": "cpu", "case_timeout_s": 20.0, **kw})


@pytest.fixture(scope="module")
def state(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("state")


@pytest.fixture(scope="module")
def reports(state: Path) -> Iterator[dict[str, CorrectnessReport]]:
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("TRITON_INTERPRET", "1")  # Triton kernels run on the CPU in the interpreter

        def one(name: str) -> tuple[str, CorrectnessReport]:
            kernel, reference, overrides, cases = RUNS[name]
            settings = _settings(**overrides)
            return name, check_files(kernel, reference, state / name, label=name, settings=settings, cases=cases)

        with ThreadPoolExecutor(max_workers=4) as pool:
            yield dict(pool.map(one, RUNS))


@pytest.mark.parametrize("name", ["correct", "kernelbench", "triton"])
def test_correct_kernels_pass(reports: dict[str, CorrectnessReport], name: str) -> None:
    r = reports[name]
    assert r.passed and r.status is CorrectnessStatus.PASS, r.message
    assert r.error_class is None and r.device == "cpu"
    assert r.rel_err is not None and r.rel_err < 1e-6
    assert all(c.passed and c.seeds == 3 for c in r.cases)
    assert all(c.reference_precision == "float64" for c in r.cases)
    assert r.cases[0].tolerance is not None and r.cases[0].tolerance.precision.value == "fp32"


def test_function_form_runs_every_shape(reports: dict[str, CorrectnessReport]) -> None:
    assert [c.label for c in reports["correct"].cases] == ["n=4096", "n=1000"]
    assert [c.label for c in reports["kernelbench"].cases] == ["default"]


@pytest.mark.parametrize(
    ("name", "error_class", "fragment"),
    [
        ("segfault", "SIGSEGV", "case 0 (n=4096): the worker crashed with SIGSEGV"),
        ("partial", "NotWritten", "output not written: 2048 of 4096 elements still hold the poison pattern"),
        ("triton_partial", "NotWritten", "output not written: 2048 of 4096 elements still hold the poison pattern"),
    ],
)
def test_adversarial_kernels_fail_with_the_right_reason(
    reports: dict[str, CorrectnessReport], name: str, error_class: str, fragment: str
) -> None:
    r = reports[name]
    assert not r.passed and r.status is CorrectnessStatus.FAIL
    assert r.error_class == error_class, r.message
    assert fragment in r.message


def test_failures_keep_the_evidence(reports: dict[str, CorrectnessReport]) -> None:
    crash = reports["segfault"]
    assert crash.stderr_tail and "Segmentation fault" in crash.stderr_tail  # faulthandler's report
    assert "segfault.py" in crash.stderr_tail  # ... with the Python line that crashed
    partial = reports["partial"]
    assert partial.cases[0].message == partial.message and not partial.cases[0].passed


def test_hang_is_timeout_fail_within_the_limit(tmp_path: Path) -> None:
    limit = 1.0
    r = check_files(ADV / "hang.py", ADD_REF, tmp_path, settings=_settings(case_timeout_s=limit))
    done = time.monotonic()
    assert r.status is CorrectnessStatus.TIMEOUT_FAIL and r.error_class == "Timeout"
    assert "case 0 (n=4096) ran past the per-case limit of 1 s (TEST_TIMEOUT_SEC)" in r.message
    assert r.run_dir is not None
    events = [json.loads(line) for line in Path(r.run_dir, "progress.jsonl").read_text().splitlines()]
    # the worker stamps events with time.monotonic(), the system-wide CLOCK_MONOTONIC this process reads too
    case_start = next(e["t"] for e in events if e.get("phase") == "case")
    # killed within the limit + a small margin, by the orchestrator's own stamp as the kill is done (the report built
    # after it, read here as it returns, took the test past the margin at load 9+)
    killed = next(e["t"] for e in events if e.get("event") == "killed")
    assert limit <= killed - case_start <= limit + 1.0, killed - case_start
    assert killed <= done


def test_the_next_candidate_after_a_crash_passes(reports: dict[str, CorrectnessReport], state: Path) -> None:
    assert reports["segfault"].error_class == "SIGSEGV"
    ok = check_files(KERNELS / "add_kernel.py", ADD_REF, state / "segfault", settings=_settings(seeds=1))
    assert ok.passed, ok.message


def test_compile_time_is_bounded_separately(reports: dict[str, CorrectnessReport]) -> None:
    assert reports["slow_import"].passed, reports["slow_import"].message
    limited = reports["slow_import_limited"]
    assert limited.status is CorrectnessStatus.TIMEOUT_FAIL
    assert "loading kernel.py (import and compilation) ran past the compile limit of 0.5 s" in limited.message


def test_each_version_gets_its_own_build_folder(reports: dict[str, CorrectnessReport], state: Path) -> None:
    assert reports["correct"].passed
    builds = sorted(p.name for p in (state / "correct" / "build").iterdir())
    assert len(builds) == 1 and builds[0].startswith("correct-") and len(builds[0]) == len("correct-") + 12
    assert (state / "correct" / "build" / builds[0] / "triton").is_dir()


# -- checks that need no isolation run the worker's code in this process (no torch start-up per case) --


def _in_process(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, kernel: Path, reference: Path = ADD_REF, **job: Any
) -> WorkerResult:
    monkeypatch.setenv("TRITON_CACHE_DIR", str(tmp_path / "triton"))  # run_job sets them; restore after
    monkeypatch.setenv("TORCH_EXTENSIONS_DIR", str(tmp_path / "ext"))
    tmp_path.mkdir(parents=True, exist_ok=True)
    spec = WorkerJob(
        mode=JobMode.CHECK,
        reference_py=str(reference),
        kernels=[KernelSource(label="t", kernel_py=str(kernel), build_dir=str(tmp_path / "build"))],
        progress_path=str(tmp_path / "progress.jsonl"),
        result_path=str(tmp_path / "result.json"),
        **{"device": "cpu", **job},
    )
    writer = ProgressWriter(tmp_path / "progress.jsonl", time.monotonic)
    try:
        return run_job(spec, writer)
    finally:
        writer.close()


@pytest.mark.parametrize(
    ("kernel", "reference", "error_class", "fragment"),
    [
        ("nan.py", ADD_REF, "NaN", "case 0 (n=4096): output contains NaN where the reference has none (1 of 4096"),
        ("wrong_shape.py", ADD_REF, "WrongShape", "output has shape (4096, 1); the reference's is (4096,)"),
        ("wrong_dtype.py", ADD_REF, "WrongDtype", "output has dtype torch.float64; the reference's is torch.float32"),
        ("mutate.py", ADD_REF, "InputMutated", "kernel modified input 0 in place (4096 of 4096 elements changed)"),
        ("zeros.py", ADD_REF, "ZeroOutput", "output is all zeros while the reference is not constant"),
        (
            "zeros.py",
            ADV / "tiny_reference.py",
            "ZeroOutput",
            "output is all zeros while the reference is not constant",
        ),
        (
            "cached.py",
            ADD_REF,
            "CachedResult",
            "seed 1: kernel returned the same output as for the previous, different",
        ),
        ("raises.py", ADD_REF, "ValueError", "the kernel raised ValueError: index out of range in the tile loop"),
    ],
)
def test_adversarial_kernels_in_process(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, kernel: str, reference: Path, error_class: str, fragment: str
) -> None:
    res = _in_process(tmp_path, monkeypatch, ADV / kernel, reference)
    assert res.failure is not None and res.failure.error_class == error_class
    assert fragment in res.failure.message


def test_zeros_within_tolerance_are_still_rejected(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # reference outputs ~1e-6 with ATOL=1e-3: zeros are within tolerance, but constant against a varying reference
    res = _in_process(tmp_path, monkeypatch, ADV / "zeros.py", ADV / "tiny_reference.py")
    case = res.cases[0]
    assert case.worst_ratio is not None and case.worst_ratio <= 1.0 and not case.passed


def test_exception_keeps_its_traceback(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    res = _in_process(tmp_path, monkeypatch, ADV / "raises.py")
    assert res.failure is not None and res.failure.traceback and "raises.py" in res.failure.traceback


def test_case_selection_and_bad_case(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    res = _in_process(tmp_path / "a", monkeypatch, KERNELS / "add_kernel.py", cases=[1], seeds=1)
    assert res.failure is None and [c.label for c in res.cases] == ["n=1000"]
    res = _in_process(tmp_path / "b", monkeypatch, KERNELS / "add_kernel.py", cases=[5], seeds=1)
    assert res.failure is not None and res.failure.error_class == "UsageError"
    assert "SHAPES has 2 entries" in res.failure.message


def test_a_triton_kernel_in_the_interpreter_is_checked_on_the_entries_it_can_run(tmp_path: Path) -> None:
    """The fresh-user trial of 2026-12-04: `kernelopt optimize examples/softmax --device cpu` failed its
    baseline: case 0 (32768 x 4096) ran past 30 s in Triton's interpreter."""
    examples = Path(__file__).parents[1] / "examples" / "softmax"
    report = check_files(
        examples / "kernel.py", examples / "reference.py", tmp_path, settings=HarnessSettings(device="cpu", seeds=1)
    )
    assert report.passed, report.message
    assert [c.label for c in report.cases] == ["n_rows=5,n_cols=300"]
    assert report.warnings == [
        "Triton's interpreter on the CPU: SHAPES entries too large for it (over 2**22) were not run (n_rows=32768,n_cols=4096)"
    ]


def test_a_check_that_times_out_in_the_interpreter_says_what_to_do(tmp_path: Path) -> None:
    """The fresh-user trial of 2026-12-04: a Triton kernel with only a GPU-sized SHAPES entry on the CPU
    waited out the per-case limit and read only "the kernel hangs or is far too slow"."""
    examples = Path(__file__).parents[1] / "examples" / "softmax"
    ref = tmp_path / "reference.py"
    text = (examples / "reference.py").read_text()
    # one GPU-sized entry only: 4096 x 4096 (2**24 elements, four times what the interpreter is given on the
    # CPU) times out as the main 32768 x 4096 does, without 512 MiB of inputs and their reference to make first
    ref.write_text(
        text.replace(
            '{"n_rows": 32768, "n_cols": 4096}, {"n_rows": 5, "n_cols": 300}', '{"n_rows": 4096, "n_cols": 4096}'
        )
    )
    assert ref.read_text() != text
    settings = HarnessSettings(device="cpu", seeds=1, case_timeout_s=2.0)
    report = check_files(examples / "kernel.py", ref, tmp_path / "state", settings=settings)
    assert report.status is CorrectnessStatus.TIMEOUT_FAIL
    assert (
        report.message.endswith("(the task card's size_scale, or --size-scale)")
        and "Triton's interpreter, one program at a time" in report.message
    )


@pytest.mark.parametrize(
    ("shapes", "said"),
    [("[]", "SHAPES is empty: give it one dict"), ('["n=4"]', "SHAPES must be a list of dicts")],
)
def test_a_shapes_that_names_no_case_is_one_line(tmp_path: Path, shapes: str, said: str) -> None:
    """The fresh-user trial of 2026-12-04: `SHAPES = []` ran get_inputs()'s defaults (2**28 elements) and
    timed out after 30 s without a word of SHAPES."""
    ref = tmp_path / "reference.py"
    ref.write_text((KERNELS / "add_reference.py").read_text() + f"\nSHAPES = {shapes}\n")
    report = check_files(KERNELS / "add_kernel.py", ref, tmp_path / "state", settings=HarnessSettings(device="cpu"))
    assert report.status is CorrectnessStatus.FAIL and said in report.message and "\n" not in report.message
