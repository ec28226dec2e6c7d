"""A reference's fault is never the kernel's (docs/faults.md, "refblame13").

breaker12's LoRA reference made its output with ``torch.zeros(...)`` on the CPU beside cuda inputs (H100,
2026-12-06): `tune` failed the correct kernel "output is on cuda; the reference's is on cpu" and told it of TF32.
On the CPU a reference returning its output on ``meta`` stands in for it (the device type a CPU machine has); the
cuda case itself is tests/test_refblame13_gpu.py. The gate's checks run in this process (``run_job``: no torch
start-up each); reference.py files are written into ``tmp_path``.
"""

from __future__ import annotations

import time
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from kernelopt.harness.hints import (
    CONTENT_ERRORS,
    INPUT_ERRORS,
    LAYOUT_ERRORS,
    FailureClass,
    Hint,
    failure_class,
    hint_fits,
)
from kernelopt.harness.inplace import UNTOUCHED
from kernelopt.harness.model import Culprit, WorkerResult

pytestmark = pytest.mark.timeout(120)

INPUTS = """import torch

SHAPES = [{"n": 256}, {"n": 100}]


def get_inputs(n=256, device="cpu"):  # takes no seed: seeds 1+ are seed 0's rows permuted
    g = torch.Generator().manual_seed(n)
    return [torch.randn(n, generator=g).to(device), torch.randn(n, generator=g).to(device)]
"""

ADD = "def run(x, y):\n    return x + y\n"


def _check(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, reference: str, kernel: str = ADD, *, inputs: str = INPUTS
) -> WorkerResult:
    """The gate's check of ``kernel`` against ``inputs + reference`` (written into ``tmp_path``), in this process."""
    from tests.test_harness_correctness import _in_process

    tmp_path.mkdir(parents=True, exist_ok=True)
    (tmp_path / "reference.py").write_text(inputs + "\n\n" + reference)
    (tmp_path / "kernel.py").write_text(kernel)
    return _in_process(tmp_path, monkeypatch, tmp_path / "kernel.py", tmp_path / "reference.py")


def _tune_loaded(folder: Path) -> Any:
    """The tuning engine's :class:`~kernelopt.tuning.checks.LoadedProblem` of ``folder`` on the CPU, as its bench
    worker's setup loads it, and the first SHAPES entry to build."""
    from kernelopt.tuning.checks import LoadedProblem
    from kernelopt.tuning.problem import Problem, ProblemShape

    problem = Problem(reference_py=folder / "reference.py", kernel_py=folder / "kernel.py", device="cpu")
    loaded = LoadedProblem.load(problem, "cpu")
    return loaded, ProblemShape(kwargs=loaded.shapes[0])


# -- item 1: a reference output on a device type other than its inputs' --------------------------------------------

META_REFERENCE = 'def reference(x, y):\n    return (x + y).to("meta")\n'


def test_a_reference_output_without_values_is_the_problems_error_naming_the_fix(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Seen: the worker crashed in the reference's NaN check ("Tensor.item() cannot be called on meta tensors") and
    the gate failed the kernel: "FAIL ... the worker exited with code 1 without a result", culprit kernel."""
    res = _check(tmp_path, monkeypatch, META_REFERENCE)
    assert res.failure is not None and res.failure.culprit is Culprit.PROBLEM, res.failure
    assert res.failure.error_class == "ReferenceDevice"
    assert res.failure.message == (
        "case 0 (n=256): reference.py returns its output on meta while its inputs are on cpu, and a meta tensor "
        "holds no values: nothing to check the kernel against; make it on its inputs' device (device=x.device)"
    )
    assert "\n" not in res.failure.message and "TF32" not in res.failure.message


KERNELBENCH_META = """import torch
from torch import nn


class Model(nn.Module):
    def forward(self, x):
        return torch.relu(x).to("meta")


def get_inputs():
    return [torch.randn(64, 32)]


def get_init_inputs():
    return []
"""
KERNELBENCH_NEW = """import torch
from torch import nn


class ModelNew(nn.Module):
    def forward(self, x):
        return torch.relu(x)
"""


def test_a_kernelbench_model_returning_its_output_without_values_is_the_problems_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The KernelBench form goes the same way (batch's rows: ERROR, the problem's, counted apart)."""
    res = _check(tmp_path, monkeypatch, "", KERNELBENCH_NEW, inputs=KERNELBENCH_META)
    assert res.failure is not None and res.failure.culprit is Culprit.PROBLEM, res.failure
    assert res.failure.error_class == "ReferenceDevice" and "returns its output on meta" in res.failure.message


def test_tune_refuses_a_reference_output_without_values_as_reference_pys(tmp_path: Path) -> None:
    """The tuning engine's setup (its bench worker's ``LoadedProblem.build``) refuses it as bad input, in the same
    words, never a wrong result of every candidate."""
    from kernelopt.harness.compare import ReferenceElsewhere
    from kernelopt.tuning.bench_worker import _reference_failure

    (tmp_path / "reference.py").write_text(INPUTS + "\n\n" + META_REFERENCE)
    (tmp_path / "kernel.py").write_text(ADD)
    loaded, first = _tune_loaded(tmp_path)
    with pytest.raises(ReferenceElsewhere) as raised:
        loaded.build(first)
    assert _reference_failure(raised.value).startswith("reference.py returns its output on meta while its inputs")


def test_a_kernel_on_its_inputs_device_is_compared_with_a_reference_made_elsewhere() -> None:
    """The rule of the comparison (compare.py): an output on the inputs' device type is compared with the values of
    a reference that made its own on another; one on neither is the kernel's WrongDevice, naming both. The
    reference's outputs here wait on the host, made on ``meta`` (``device_type``), as the gate parks a cuda one."""
    import torch

    from kernelopt.harness.compare import check_outputs

    out = torch.arange(8.0)
    ok = check_outputs(out, out.clone(), out.clone(), device_type="meta", inputs_type="cpu")
    assert ok.message is None, ok.message
    wrong = check_outputs(out, out.clone(), out.clone(), device_type="meta", inputs_type="cuda")
    assert wrong.error_class == "WrongDevice"
    assert wrong.message == "output is on cpu; the reference's is on meta and its inputs' on cuda"
    assert check_outputs(out, out.clone(), out.clone(), device_type="meta").error_class == "WrongDevice"


def test_the_line_of_a_reference_made_elsewhere_names_reference_py_and_the_fix() -> None:
    """Inputs on ``meta`` beside a reference output on the CPU: the stand-in of cuda inputs beside ``torch.zeros``'s
    CPU output (breaker12's LoRA). Index tensors on the host beside the data do not count as the inputs' device."""
    import torch

    from kernelopt.harness.compare import inputs_device_type, reference_device_line

    inputs = [torch.empty(4, device="meta"), torch.tensor([1, 2])]
    assert inputs_device_type(inputs) == "meta"
    assert inputs_device_type([torch.ones(2), 3]) == "cpu" and inputs_device_type([1.0]) is None
    line = reference_device_line((torch.ones(4), torch.ones(4)), inputs)
    assert line == (
        "reference.py returns output 0 on cpu while its inputs are on meta (its own doing, not the kernel's): a "
        "kernel's output on meta is compared with its values there; make it on its inputs' device (device=x.device)"
    )
    assert reference_device_line(torch.ones(4), [torch.ones(4)]) is None


# -- item 2: a hint is about its failure's class ---------------------------------------------------------------------


@pytest.mark.parametrize(
    ("error_class", "culprit", "expected"),
    [
        ("WrongDevice", Culprit.KERNEL, FailureClass.LAYOUT),
        ("WrongShape", Culprit.KERNEL, FailureClass.LAYOUT),
        ("WrongDtype", Culprit.KERNEL, FailureClass.LAYOUT),
        ("Mismatch", Culprit.KERNEL, FailureClass.VALUES),
        ("NaN", Culprit.KERNEL, FailureClass.CONTENT),
        ("InputMutated", Culprit.KERNEL, FailureClass.INPUTS),
        ("RuntimeError", Culprit.KERNEL, FailureClass.RAISED),
        ("Timeout", Culprit.KERNEL, FailureClass.TIMEOUT),
        ("RuntimeError", Culprit.PROBLEM, FailureClass.REFERENCE),
        ("Timeout", Culprit.PROBLEM, FailureClass.REFERENCE),
        ("Timeout", Culprit.CHECKER, FailureClass.CHECKER),
    ],
)
def test_each_failure_has_its_class(error_class: str, culprit: Culprit, expected: FailureClass) -> None:
    assert failure_class(error_class, culprit) is expected


def test_only_values_beyond_tolerance_hear_of_precision_and_the_sets_are_the_checks_names() -> None:
    from kernelopt.harness.inplace import InputFaultKind

    assert [c for c in FailureClass if hint_fits(Hint.PRECISION, c)] == [FailureClass.VALUES]
    for never in (FailureClass.LAYOUT, FailureClass.CHECKER, FailureClass.INPUTS):
        assert not hint_fits(Hint.PERMUTED, never) and not hint_fits(Hint.INTERPRETER, never)
    assert hint_fits(Hint.PERMUTED, FailureClass.REFERENCE)  # a reference may raise on rows out of their order
    assert not hint_fits(Hint.INTERPRETER, FailureClass.REFERENCE) and not hint_fits(Hint.PRECISION, None)
    assert {k.value for k in InputFaultKind} == INPUT_ERRORS
    assert not LAYOUT_ERRORS & CONTENT_ERRORS


@pytest.mark.parametrize("error_class", ["WrongDevice", "WrongShape", "WrongDtype", "NaN", "InputMutated"])
def test_tunes_hint_for_a_kernel_failing_as_written_is_its_failures(tmp_path: Path, error_class: str) -> None:
    """breaker12's LoRA on the H100: a device mismatch was told "its tl.dot multiplies fp32 operands in TF32 ...:
    pass input_precision="ieee" ...". Only values beyond the tolerance are told of precision or the tolerance."""
    from kernelopt.tuning.dot_precision import current_failed_hint

    kernel = tmp_path / "kernel.py"
    kernel.write_text("import triton.language as tl\n\ndef k(a, b, acc):\n    return tl.dot(a, b, acc)\n")
    gpu = SimpleNamespace(interpreted=False, kernel_py=kernel, dtype_hint="float32")
    hint = current_failed_hint(gpu, error_class)  # type: ignore[arg-type]
    assert "TF32" not in hint and "input_precision" not in hint and "ATOL" not in hint, hint
    assert hint.startswith("fix the kernel") and "`kernelopt validate`" in hint
    assert "TF32" in current_failed_hint(gpu, "Mismatch")  # type: ignore[arg-type]


def test_the_interpreter_hint_is_for_the_kernels_timeout_only() -> None:
    """A reference or the checker past its limit in Triton's interpreter is not told the kernel runs one program at
    a time there."""
    from kernelopt.harness.gate import _interpreter_timeout
    from kernelopt.harness.model import CorrectnessReport
    from kernelopt.memory.model import CorrectnessStatus

    triton_kernel = Path(__file__).parent / "data" / "harness" / "add_triton.py"
    for culprit, told in ((Culprit.KERNEL, True), (Culprit.PROBLEM, False), (Culprit.CHECKER, False)):
        report = CorrectnessReport(
            passed=False, status=CorrectnessStatus.TIMEOUT_FAIL, message="timed out", error_class="Timeout",
            culprit=culprit,
        )  # fmt: skip
        assert _interpreter_timeout(report, triton_kernel, "cpu") is told, culprit


SECOND_CALL = """import torch

calls = [0]


def run(x, y):
    calls[0] += 1
    out = x + y
    return {second} if calls[0] == 2 else out
"""


@pytest.mark.parametrize(
    ("second", "error_class", "permuted"),
    [("out.reshape(-1, 1)", "WrongShape", False), ("out.double()", "WrongDtype", False), ("out + 1", "Mismatch", True)],
)
def test_the_permuted_inputs_note_is_for_failures_inputs_explain(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, second: str, error_class: str, permuted: bool
) -> None:
    """Seed 1's inputs are seed 0's rows permuted (get_inputs takes no seed): a wrong value there is told so; a wrong
    shape or dtype, which no permutation explains, is not."""
    res = _check(tmp_path, monkeypatch, "def reference(x, y):\n    return x + y\n", SECOND_CALL.format(second=second))
    assert res.failure is not None and res.failure.error_class == error_class, res.failure
    assert res.failure.message.startswith("case 0 (n=256), seed 1: ")
    assert ("with their rows permuted" in res.failure.message) is permuted, res.failure.message


# -- item 3: the audit (docs/faults.md, refblame13 r1-r7) -------------------------------------------------------------

NOISY = "def reference(x, y):\n    return x + y + 1e-3 * torch.randn(x.shape, device=x.device)\n"


def test_r2_a_reference_that_draws_noise_is_the_problems_error_not_a_deterministic_kernels_fail(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Seen: FAIL "output differs from the reference beyond tolerance (212 of 256 elements ...)", culprit kernel,
    for ``x + y`` against a reference adding ``torch.randn`` noise drawn inside reference()."""
    res = _check(tmp_path, monkeypatch, NOISY)
    assert res.failure is not None and res.failure.culprit is Culprit.PROBLEM, res.failure
    assert res.failure.error_class == "ReferenceNondeterministic"
    message = res.failure.message
    assert message.startswith(
        "case 0 (n=256): the reference draws random numbers and its output changes with the random state (run again "
        "from another: output differs from the reference beyond tolerance"
    ), message
    assert (
        message.endswith("draw them in get_inputs(), or from a generator seeded in reference()")
        and "TF32" not in message
    )


def test_r2_a_kernel_drawing_the_same_numbers_passes_and_one_drawing_wrong_ones_is_its_own_fail(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Dropout's way (KernelBench's training-mode models): the check seeds the reference and the kernel alike."""
    same = "import torch\n\n\ndef run(x, y):\n    return x + y + 1e-3 * torch.randn(x.shape, device=x.device)\n"
    assert _check(tmp_path / "same", monkeypatch, NOISY, same).failure is None
    other = "import torch\n\n\ndef run(x, y):\n    return x + y + 1e-3 * torch.rand(x.shape, device=x.device)\n"
    res = _check(tmp_path / "other", monkeypatch, NOISY, other)
    assert res.failure is not None and res.failure.culprit is Culprit.KERNEL and res.failure.error_class == "Mismatch"


def test_r9_a_reference_drawing_numpys_random_numbers_is_told_too(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Seen: PASS, told nothing: torch's generators never moved, so its float64 run's other numpy draws were read as
    its rounding error and widened the tolerance by its noise (any kernel near it passed). Python's and numpy's
    global generators are watched with torch's (draws.generator_states)."""
    noisy = (
        "import numpy as np\n\n\ndef reference(x, y):\n"
        '    return x + y + 1e-3 * torch.from_numpy(np.random.rand(x.numel()).astype("float32"))\n'
    )
    res = _check(tmp_path, monkeypatch, noisy)
    assert res.failure is not None and res.failure.error_class == "ReferenceNondeterministic", res.failure
    assert res.failure.culprit is Culprit.PROBLEM


def test_r2_tune_refuses_a_reference_whose_output_changes_with_the_random_state(tmp_path: Path) -> None:
    """`tune` runs candidates from any random state: it said "kernel.py as written fails its own correctness check
    ... differs from the reference beyond tolerance" and told of TF32; its setup now refuses reference.py."""
    from kernelopt.harness.draws import ReferenceNondeterministic

    (tmp_path / "reference.py").write_text(INPUTS + "\n\n" + NOISY)
    (tmp_path / "kernel.py").write_text(ADD)
    loaded, first = _tune_loaded(tmp_path)
    with pytest.raises(ReferenceNondeterministic, match=r"^reference.py's reference\(\) draws random numbers"):
        loaded.build(first)
    # one that draws without its output depending on it (a random permutation summed away) is checked as usual
    (tmp_path / "reference.py").write_text(
        INPUTS
        + "\n\ndef reference(x, y):\n    p = torch.randperm(x.numel())\n    return (x + y)[p][torch.argsort(p)]\n"
    )
    loaded, first = _tune_loaded(tmp_path)
    loaded.build(first)
    assert loaded.expected.shape == (256,)


def test_r3_a_reference_that_modifies_an_input_says_the_references_side_too(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The modification is the contract (docs/faults.md, breaker5 #2); the line now says what a reference that only
    scribbles on its input does instead. The kernel never sees the reference's writes (it runs on its own copy)."""
    scribbles = "def reference(x, y):\n    x.add_(y)\n    return x.clone()\n"
    res = _check(tmp_path / "a", monkeypatch, scribbles)
    assert res.failure is not None and res.failure.error_class == "InputNotWritten", res.failure
    assert res.failure.message.endswith(
        "the kernel must modify it too; a reference that only writes into it as scratch should work on a copy, x = "
        "x.clone())"
    ), res.failure.message
    fixed = "def reference(x, y):\n    x = x.clone()\n    x.add_(y)\n    return x\n"
    assert _check(tmp_path / "b", monkeypatch, fixed).failure is None


def test_r4_a_reference_that_returns_a_view_of_an_input_checks_a_correct_kernel(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """In the gate (the reference runs on a copy of the inputs) and in tune's checks, where the expected output was
    the inputs' memory: a candidate writing into its input changed it, and every correct candidate after it failed
    "output differs from the reference beyond tolerance (256 of 256 elements ...)" (r8)."""
    from kernelopt.tuning.candidate import Outcome
    from kernelopt.tuning.checks import run_candidate

    view = "def reference(x, y):\n    return x[:]\n"
    copy = "def run(x, y):\n    return x.clone()\n"
    assert _check(tmp_path, monkeypatch, view, copy).failure is None
    (tmp_path / "writes.py").write_text("def run(x, y):\n    x.add_(1.0)\n    return x.clone()\n")
    loaded, first = _tune_loaded(tmp_path)
    loaded.build(first)
    verdicts = []
    for name in ("kernel.py", "writes.py", "kernel.py"):
        candidate, verdict = run_candidate(loaded, tmp_path / name)
        verdicts.append((verdict.outcome, verdict.reason))
        if candidate is not None:
            candidate.release()
    assert verdicts == [
        (Outcome.OK, None),
        (Outcome.WRONG_RESULT, f"the kernel modified input 0 in place, {UNTOUCHED}"),
        (Outcome.OK, None),
    ]


def test_r5_a_reference_without_float64_is_checked_in_a_precision_it_has(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An op without float64 (as an fp8 or a Triton-only op is): the high run falls back, the kernel passes."""
    no_double = (
        "def reference(x, y):\n    if x.dtype == torch.float64:\n"
        '        raise RuntimeError(\'"add_stub" not implemented for "Double"\')\n    return x + y\n'
    )
    res = _check(tmp_path, monkeypatch, no_double)
    assert res.failure is None, res.failure
    assert {c.reference_precision for c in res.cases} == {"float32"}


def test_r6_a_reference_that_raises_at_one_shapes_entry_is_the_problems_error_naming_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    raises = "def reference(x, y):\n    if x.numel() == 100:\n        raise ValueError('no 100')\n    return x + y\n"
    res = _check(tmp_path, monkeypatch, raises)
    assert res.failure is not None and res.failure.culprit is Culprit.PROBLEM, res.failure
    assert res.failure.message == "case 1 (n=100): the reference raised ValueError: no 100"
    assert [c.passed for c in res.cases] == [True, False]


class _SetupInReference:
    """A bench worker's channel during its setup: it says the setup runs reference() (the ``user_code`` event
    ``LoadedProblem.build`` sends), then nothing more before the limit."""

    def __init__(self) -> None:
        from kernelopt.worker.messages import USER_CODE, Event

        self.said: list[Any] = [Event(id=0, name=USER_CODE, data={"where": "reference.py's reference()"}), None]

    def receive(self, timeout_s: float) -> Any:
        return self.said.pop(0)

    def close(self) -> None:
        self.said.clear()


def test_r7_tunes_setup_past_its_limit_in_reference_is_reference_pys_time(tmp_path: Path) -> None:
    """Seen: "the bench worker did not start: no Ready within 8 s (start-up and setup); killed" (exit 3, the
    machine's) for a reference() that sleeps (KernelEvaluator, startup_timeout_s=8, 2026-12-06); the gate already
    named it ("running the reference (reference.py): the checker ... not the kernel", tests/test_batch_verdicts.py).
    Now bad input naming where (`tune` exits 2: ``_problem_error``); the real worker's run took 12 s, so its channel
    is played here."""
    from kernelopt.worker.client import WorkerProcess, WorkerStartError
    from kernelopt.worker.messages import FailureKind, Service

    worker = WorkerProcess(Service.BENCH, log_dir=tmp_path, startup_timeout_s=8.0)
    worker._channel = _SetupInReference()  # type: ignore[assignment]
    worker._start_deadline = time.monotonic() + 8.0
    with pytest.raises(WorkerStartError) as refused:
        worker.await_ready()
    assert refused.value.failure.outcome is FailureKind.BAD_INPUT
    assert refused.value.failure.reason == (
        "reference.py's reference() was still running when the worker's 8 s for its start-up and setup ran out, while "
        "the problem was built (its time, not a kernel's); killed: give reference.py smaller SHAPES, or a faster "
        "reference"
    )


# -- item 4: the cuda case itself (scripts/gpu_refblame13.sh) ---------------------------------------------------------

LORA_ON_DEVICE = "out = torch.zeros(inputs.shape[0], lora_a.shape[1], device=inputs.device)"
LORA_ON_CPU = "out = torch.zeros(inputs.shape[0], lora_a.shape[1])"  # breaker12's reference before 24b6e35


@pytest.mark.gpu
@pytest.mark.timeout(300)
def test_lora_whose_reference_makes_its_output_on_the_cpu_passes_validate_and_tune_on_a_gpu(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """breaker12's LoRA shrink with its reference as it was on the H100 (2026-12-06 08:36): ``torch.zeros`` on the CPU
    beside cuda inputs, the values right. `tune --device cuda` said "kernel.py as written fails its own correctness
    check ...: output is on cuda; the reference's is on cpu ...; its tl.dot multiplies fp32 operands in TF32". Now the
    gate's check passes and says once whose doing it is, and tune tunes, saying the same."""
    import shutil

    from kernelopt.cli.app import main
    from kernelopt.harness.gate import check_files
    from kernelopt.harness.settings import HarnessSettings

    monkeypatch.delenv("TRITON_INTERPRET", raising=False)
    folder = tmp_path / "lora_shrink"
    shutil.copytree(Path(__file__).parent / "data" / "breaker12" / "lora_shrink", folder)
    reference = folder / "reference.py"
    assert LORA_ON_DEVICE in reference.read_text()
    reference.write_text(reference.read_text().replace(LORA_ON_DEVICE, LORA_ON_CPU))
    said = "reference.py returns its output on cpu while its inputs are on cuda (its own doing, not the kernel's)"

    report = check_files(
        folder / "kernel.py", reference, tmp_path / "state", settings=HarnessSettings(device="cuda", seeds=2)
    )
    assert report.passed, report.message
    assert sum(w.startswith(said) for w in report.warnings) == 1, report.warnings  # said once

    args = [
        "tune",
        str(folder),
        "--device",
        "cuda",
        "--budget",
        "3",
        "--budget-wall-s",
        "30",
        "--out",
        str(tmp_path / "o"),
    ]
    code = main(args)
    err = capsys.readouterr().err
    assert code == 0, err
    assert err.count(said) == 1 and "fails its own correctness check" not in err and "TF32" not in err, err
