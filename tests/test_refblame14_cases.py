"""What the original cannot do, and what the reference does, are never the kernel's (docs/faults.md, "refblame14").

r10: a reference keeping its output across calls (a dict keyed on the shape, an output made once) failed a correct
kernel at seed 1, "output differs from the reference beyond tolerance", the kernel's FAIL; in ``tune`` a buffer the
reference keeps and writes on each call had the primary's expected output overwritten by the net's next size. The
gate's checks run in this process (``run_job``); reference.py files are written into ``tmp_path``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from kernelopt.harness.hints import REFERENCE_CACHED, FailureClass, Hint, failure_class, hint_fits
from kernelopt.harness.model import Culprit
from tests.test_refblame13_cases import ADD, INPUTS, KERNELBENCH_NEW, _check, _tune_loaded

pytestmark = pytest.mark.timeout(120)

# -- r10: a reference caching its output across calls ---------------------------------------------------------------

KEYED_ON_SHAPE = """_OUT = {}


def reference(x, y):
    if x.shape not in _OUT:
        _OUT[x.shape] = x + y
    return _OUT[x.shape]
"""

MADE_ONCE = """_OUT = []


def reference(x, y):
    if not _OUT:
        _OUT.append(x + y)
    return _OUT[0]
"""

CONSTANT = "def reference(x, y):\n    return torch.full_like(x, float(x.shape[0]))\n"


@pytest.mark.parametrize("reference", [KEYED_ON_SHAPE, MADE_ONCE])
def test_a_reference_returning_its_earlier_output_is_the_problems_error_not_the_kernels(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, reference: str
) -> None:
    """Seen: the correct kernel failed at seed 1, "output differs from the reference beyond tolerance (256 of 256
    elements ...)", culprit kernel, with the permuted-rows note. Now reference.py loaded afresh returns another output
    on those inputs: the problem's error, naming the cause and the fix, and no hint of the table; the warning of a
    branch on the dtype (the float64 run met the cache's other path) is taken back."""
    res = _check(tmp_path, monkeypatch, reference)
    failure = res.failure
    assert failure is not None and failure.culprit is Culprit.PROBLEM, failure
    assert failure.error_class == REFERENCE_CACHED
    assert failure.message.startswith(
        "case 0 (n=256), seed 1: the reference returned the same output as for the previous seed's different inputs, "
        "and reference.py loaded afresh returns another on these inputs (the fresh output against the one the check "
        "used: output differs from the reference beyond tolerance ("
    ), failure.message
    assert failure.message.endswith(
        "its output depends on its earlier calls (a cache across calls: functools.lru_cache, a dict keyed on the "
        "shape, an output kept and returned again), not on its inputs alone, so no kernel can be checked against "
        "it; compute it from its inputs on every call"
    ), failure.message  # the permuted-rows note is not about it
    assert failure_class(failure.error_class, failure.culprit) is FailureClass.CACHED
    assert not any(hint_fits(h, FailureClass.CACHED) for h in Hint)
    # its float64 run took the cache's other path: no word of a branch on the dtype beside the line
    assert not any(w.startswith("the reference takes another path") for w in res.warnings), res.warnings


def test_a_reference_whose_output_legitimately_does_not_change_is_never_blamed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A reference whose output is a function of the shape alone: a correct kernel passes; a kernel that gets it
    wrong only where its input's first value is positive (case 1, after the reference ran on case 0) fails as its
    own, the fresh reference agreeing with the one the check used."""
    right = "import torch\n\n\ndef run(x, y):\n    return torch.full_like(x, float(x.shape[0]))\n"
    assert _check(tmp_path / "right", monkeypatch, CONSTANT, right).failure is None
    wrong = "import torch\n\n\ndef run(x, y):\n    return torch.full_like(x, float(x.shape[0])) + (x[0] > 0).float()\n"
    failure = _check(tmp_path / "wrong", monkeypatch, CONSTANT, wrong).failure
    assert failure is not None and failure.culprit is Culprit.KERNEL and failure.error_class == "Mismatch", failure
    assert failure.message.startswith("case 1 (n=100): output differs from the reference"), failure.message


def test_a_wrong_kernel_against_a_caching_reference_at_its_first_call_is_the_kernels(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """At the reference's first call no earlier call can be what it returns: a kernel wrong there is the kernel's,
    and no fresh reference.py is loaded for it."""
    wrong = "def run(x, y):\n    return x - y\n"
    failure = _check(tmp_path, monkeypatch, KEYED_ON_SHAPE, wrong).failure
    assert failure is not None and failure.culprit is Culprit.KERNEL and failure.error_class == "Mismatch", failure
    assert failure.message.startswith("case 0 (n=256): output differs from the reference")


KERNELBENCH_CACHED = """import torch
from torch import nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.seen = None

    def forward(self, x):
        if self.seen is None:
            self.seen = torch.relu(x)
        return self.seen


def get_inputs():
    return [torch.randn(64, 32)]


def get_init_inputs():
    return []
"""


def test_a_kernelbench_model_keeping_its_first_output_is_the_problems_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The KernelBench form: a Model keeping its first output in an attribute (built again afresh, it has none)."""
    failure = _check(tmp_path, monkeypatch, "", KERNELBENCH_NEW, inputs=KERNELBENCH_CACHED).failure
    assert failure is not None and failure.culprit is Culprit.PROBLEM, failure
    assert failure.error_class == REFERENCE_CACHED and "seed 1: the reference returned the same output" in (
        failure.message
    )


SLAB = """_SLAB = torch.empty(1 << 12)


def reference(x, y):
    out = _SLAB[: x.numel()]
    torch.add(x, y, out=out)
    return out
"""


def _derived(tmp_path: Path, reference: str) -> tuple[Any, Any]:
    """The tuning engine's primary problem of ``INPUTS + reference`` built, and the net's derived problems."""
    from kernelopt.tuning.net import DerivedProblems

    tmp_path.mkdir(parents=True, exist_ok=True)
    (tmp_path / "reference.py").write_text(INPUTS + "\n\n" + reference)
    (tmp_path / "kernel.py").write_text(ADD)
    loaded, first = _tune_loaded(tmp_path)
    loaded.build(first)
    return loaded, DerivedProblems()


def test_tune_keeps_its_own_copy_of_an_output_the_reference_writes_again_on_each_call(tmp_path: Path) -> None:
    """Seen: the net built n=129 in the primary's worker, the reference wrote it into the buffer the primary's
    expected output was a slice of, and the primary's expected output was no longer x + y: every candidate checked
    there after the net failed. The expected output is the checker's own copy."""
    import torch

    from kernelopt.tuning.candidate import Outcome
    from kernelopt.tuning.problem import ProblemShape

    loaded, derived = _derived(tmp_path, SLAB)
    want = loaded.inputs[0] + loaded.inputs[1]
    at = ProblemShape(kwargs={"n": 129})
    assert derived.check(loaded, tmp_path / "kernel.py", at).outcome is Outcome.OK
    assert torch.equal(loaded.expected, want)


def test_the_net_refuses_a_size_where_the_reference_returns_the_primarys_output_as_reference_pys(
    tmp_path: Path,
) -> None:
    """Seen: at the net's n=129 the reference returned the primary's 256 elements, the written kernel failed "output
    has shape (129,); the reference's is (256,)" and so did the original ("the original fails there too"): the
    original blamed. Now the size is refused for reference.py, in the gate's words, and its rebuild for the
    original's try says the same (:func:`kernelopt.tuning.net.cast`'s "reference.py did not build it again")."""
    from kernelopt.tuning.candidate import Outcome
    from kernelopt.tuning.problem import ProblemShape

    loaded, derived = _derived(tmp_path, MADE_ONCE)
    at = ProblemShape(kwargs={"n": 129})
    verdict = derived.check(loaded, tmp_path / "kernel.py", at)
    assert verdict.outcome is Outcome.RUN_ERROR
    assert verdict.reason is not None and verdict.reason.startswith(
        "reference.py returned another output on these inputs than reference.py loaded afresh returns (the fresh "
        "output against the one the check used: output has shape (129,); the reference's is (256,)): its output "
        "depends on its earlier calls"
    ), verdict.reason
    assert derived.build(loaded, at) == verdict
    wrong = tmp_path / "wrong.py"
    wrong.write_text("def run(x, y):\n    return x - y\n")
    derived.release("cpu")
    derived_keyed = _derived(tmp_path / "keyed", KEYED_ON_SHAPE)
    wrong_at = derived_keyed[1].check(derived_keyed[0], wrong, at)
    assert wrong_at.outcome is Outcome.WRONG_RESULT and "earlier calls" not in (wrong_at.reason or "")


# -- r11: sizes the original cannot run -------------------------------------------------------------------------------

DATA = Path(__file__).parent / "data" / "refblame14"


@pytest.mark.timeout(300)
def test_a_pick_failing_the_compile_only_where_the_original_fails_it_too_is_not_refused(tmp_path: Path) -> None:
    """On the H100 (2026-12-06) Inductor's persistent reduction did not compile at N=1: Triton's JIT makes an int
    argument equal to 1 a constexpr, and ``rnumel.to(tl.float32)`` has no ``.to``. Compiled for sm_90 here, with no
    GPU, int_one's original fails the same way at its N=1 entry; ``tune --target sm_90`` refused any pick there,
    "...; kernel.py as it is fails the same compile; nothing written". A failure the original shares at that entry is
    not the pick's: written, the line naming the entry as one the original cannot run."""
    from kernelopt.harness.target_compile import target_check
    from tests.conftest import skip_without

    skip_without("triton.backends.nvidia.compiler", reason="Triton without its NVIDIA backend")
    original = (DATA / "int_one" / "kernel.py").read_text()
    pick = original.replace("XBLOCK=8, RBLOCK=64", "XBLOCK=16, RBLOCK=64").replace("cdiv(M, 8)", "cdiv(M, 16)")
    checked = target_check(pick, DATA / "int_one" / "reference.py", tmp_path, "sm_90", original)
    assert not checked.refused, checked.line
    assert checked.line == (
        "compiled for sm_90 before the write: the pick does not compile at M=8,N=1 (row_mean: "
        "CompilationError: AttributeError(\"'int' object has no attribute 'to'\")), nor does kernel.py as it is there "
        "(sizes the original cannot run on sm_90: not the pick's); every other launch compiles"
    )


def test_a_pick_failing_the_compile_where_the_original_compiles_is_refused_at_that_entry(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The rule of :func:`~kernelopt.harness.target_compile.target_check` without a compile: a launch compiled once for
    two entries (one specialization) fails at both; the original fails only at the first; the pick is refused, naming
    the second, where the original compiles. With no original to compare with, any failure is refused as before."""
    from kernelopt.harness import target_compile
    from kernelopt.harness.target_compile import LaunchCompile, TargetReport, target_check

    def launch(shape: dict[str, Any], error: str | None, also: list[dict[str, Any]] | None = None) -> LaunchCompile:
        return LaunchCompile(
            kernel="k", shape=shape, signature={}, constexprs={"B": 2}, divisible=[], options={}, error=error,
            also=also or [],
        )  # fmt: skip

    one, two = {"N": 1}, {"N": 3}
    reports = {
        "written": TargetReport(folder="w", launches=[launch(one, "CompilationError: boom", [two])]),
        "original": TargetReport(folder="o", launches=[launch(one, "CompilationError: boom"), launch(two, None)]),
    }
    monkeypatch.setattr(
        target_compile, "compile_for_target", lambda folders, target, triton_cache=None: [reports[folders[0].name]]
    )
    (tmp_path / "reference.py").write_text("")
    checked = target_check("w", tmp_path / "reference.py", tmp_path, "sm_90", "o")
    assert checked.refused and checked.line == (
        "the pick does not compile for sm_90: k (B=2) at N=3: CompilationError: boom; kernel.py as it is compiles "
        "there; nothing written"
    )
    reports["written"] = TargetReport(folder="w", launches=[launch(one, "CompilationError: boom"), launch(two, None)])
    assert not target_check("w", tmp_path / "reference.py", tmp_path, "sm_90", "o").refused
    assert target_check("w", tmp_path / "reference.py", tmp_path, "sm_90").refused


def test_the_net_never_refuses_a_pick_at_a_size_the_original_cannot_compile_either() -> None:
    """The net at a size where Triton's JIT specializes a size argument of 1 (``below`` moves N to 1; on a GPU the
    original's ``rnumel.to`` does not compile there, as the pick's does not): the written kernel fails, the original
    runs at the same size and fails too, so the size is skipped with the original's reason and the pick is not
    refused; where the original compiles and passes, the same failure refuses it. (Stand-ins for the GPU's compile:
    the net's rule is its comparison with the original at the same size.)"""
    from kernelopt.tuning.candidate import Outcome
    from kernelopt.tuning.net import DerivedSize, SizeClass, cast
    from kernelopt.tuning.problem import ProblemShape

    one = ProblemShape(kwargs={"M": 8, "N": 1})
    sizes = [DerivedSize(kind=SizeClass.BELOW, tries=(one,))]
    said = "CompilationError: AttributeError(\"'int' object has no attribute 'to'\")"
    ran: list[str] = []

    def check_at(source: str, shape: ProblemShape) -> tuple[Outcome, str | None]:
        ran.append(source)
        return (Outcome.COMPILE_ERROR, said) if source != "fixed original" else (Outcome.OK, None)

    verdict = cast(sizes, "original", "written", check_at)
    assert ran == ["written", "original"] and verdict.failed is None
    assert [c.passed for c in verdict.checks] == [None]
    assert f"M=8,N=1: the original fails there too: compile_error: {said}" in verdict.line()
    refused = cast(sizes, "fixed original", "written", check_at)
    assert refused.failed is not None and refused.line().startswith(
        "the written kernel fails at M=8,N=1 (below the smallest entry), where the original passes: compile_error"
    )


ASSERTS_SIXTEEN = """def run(x, y):
    assert x.numel() % 16 == 0, "n must be a multiple of 16"
    return x + y
"""
SIXTEEN_FIRST = INPUTS.replace('SHAPES = [{"n": 256}, {"n": 100}]', 'SHAPES = [{"n": 100}, {"n": 256}]')


def test_v0_at_an_entry_it_cannot_run_names_the_entry_as_the_problems(tmp_path: Path) -> None:
    """The loop's V0 with an ``assert`` in ``run`` at its first SHAPES entry (the CPU's stand-in for the H100's
    compile failure at N=1): "the baseline kernel does not pass the gate: case 0 (n=100): the kernel raised
    AssertionError", the kernel's FAIL. Now the entries the check did not reach are checked: V0 runs n=256, so the
    entry is the problem's (bad input, as reference.py's own failures), its line naming it. The same kernel judged
    (``validate``, a batch row: no ``baseline``) still fails there as its own."""
    from kernelopt.harness.gate import validate
    from kernelopt.harness.model import ENTRY_UNRUNNABLE, problem_failed_prefix
    from kernelopt.workspace import Workspace

    (tmp_path / "kernel.py").write_text(ASSERTS_SIXTEEN)
    (tmp_path / "reference.py").write_text(SIXTEEN_FIRST + "\n\ndef reference(x, y):\n    return x + y\n")
    ws = Workspace.create("sixteen", kernel=tmp_path / "kernel.py", reference=tmp_path / "reference.py", root=tmp_path)
    report = validate(ws, 0, previous=None, device="cpu", baseline=True)
    assert report.problem_failed and report.correctness.culprit is Culprit.PROBLEM
    assert report.correctness.error_class == ENTRY_UNRUNNABLE
    assert problem_failed_prefix(report.correctness.error_class) == "a SHAPES entry fails, not the kernel's versions"
    assert report.correctness.message == (
        "the SHAPES entry n=100 is a size kernel.py as written (V0) cannot run, while it runs n=256 (case 0 (n=100): "
        "the kernel raised AssertionError: n must be a multiple of 16): the entry is the problem's, not a fault of any "
        "version; drop it from SHAPES, or give kernel.py a path for that size first"
    )
    judged = validate(ws, 0, previous=None, device="cpu")
    assert judged.correctness.culprit is Culprit.KERNEL and judged.correctness.message.startswith(
        "case 0 (n=100): the kernel raised AssertionError"
    )


def test_an_entry_rule_keeps_what_v0_gets_wrong_or_cannot_run_anywhere_the_kernels() -> None:
    """The rule of :func:`~kernelopt.harness.unrunnable.unrunnable_entry` on the gate's reports: a raise after an entry
    passed is the problem's with no second check; a wrong result, or a raise where no other entry runs, stays the
    kernel's; a reference's failure is left as it is."""
    from kernelopt.harness.model import CaseCheck, CorrectnessReport
    from kernelopt.harness.unrunnable import unrunnable_entry
    from kernelopt.memory.model import CorrectnessStatus

    def report(error_class: str, *cases: CaseCheck, culprit: Culprit = Culprit.KERNEL) -> CorrectnessReport:
        return CorrectnessReport(
            passed=False, status=CorrectnessStatus.FAIL, message="case 1 (N=1): the kernel raised X", cases=list(cases),
            error_class=error_class, culprit=culprit,
        )  # fmt: skip

    ok, bad = CaseCheck(index=0, label="N=64", passed=True), CaseCheck(index=1, label="N=1")
    never = []

    def recheck(cases: list[int]) -> CorrectnessReport:
        never.append(cases)
        return report("CompilationError", CaseCheck(index=cases[0], label="N=2"))

    after = unrunnable_entry(report("CompilationError", ok, bad), [0, 1, 2], recheck)
    assert after.culprit is Culprit.PROBLEM and after.message.startswith(
        "the SHAPES entry N=1 is a size kernel.py as written (V0) cannot run, while it runs N=64 (case 1 (N=1): "
    )
    assert not never
    wrong = report("Mismatch", ok, bad)
    assert unrunnable_entry(wrong, [0, 1], recheck) is wrong
    alone = report("CompilationError", CaseCheck(index=0, label="N=1"))
    assert unrunnable_entry(alone, [0, 2], recheck) is alone and never == [[2]]
    theirs = report("ValueError", ok, bad, culprit=Culprit.PROBLEM)
    assert unrunnable_entry(theirs, [0, 1, 2], recheck) is theirs


# -- r12: batch verdicts on KernelBench-style problems ----------------------------------------------------------------


def _kernelbench(forward: str) -> str:
    return (
        "import torch\nfrom torch import nn\n\n\nclass Model(nn.Module):\n    def forward(self, x):\n"
        f"        return {forward}\n\n\ndef get_inputs():\n    return [torch.randn(64, 32)]\n\n\n"
        "def get_init_inputs():\n    return []\n"
    )


def _kernelbench_new(forward: str) -> str:
    return (
        "import torch\nfrom torch import nn\n\n\nclass ModelNew(nn.Module):\n    def forward(self, x):\n"
        f"        return {forward}\n"
    )


@pytest.mark.parametrize(
    ("reference", "kernel", "verdict"),
    [
        # the kernel's: not the reference's build (a caller unpacking the reference's tuple breaks on a tensor)
        ("(torch.relu(x),)", "torch.relu(x)", "output is a tensor; the reference returns a tuple of 1"),
        ("torch.relu(x)", "(torch.relu(x),)", "output is a tuple of 1; the reference returns a tensor"),
        ("x.sum()", "x.sum().reshape(1)", "output has shape (1,); the reference's is ()"),
        ("x.sum()", "float(x.sum())", "output is float, not a tensor (the reference returns a tensor)"),
        # passes: a list for a tuple, a layout of the reference's own (a transpose, an expand) against a dense copy,
        # a 0-d tensor for a 0-d tensor
        ("[torch.relu(x), x.sum()]", "(torch.relu(x), x.sum())", None),
        ("torch.relu(x).t()", "torch.relu(x).t().contiguous()", None),
        ("x.sum(0).expand(64, 32)", "x.sum(0, keepdim=True).repeat(64, 1)", None),
        ("x.sum(0, keepdim=True).repeat(64, 1)", "x.sum(0).expand(64, 32)", None),
        ("x.sum()", "x.double().sum().float()", None),
    ],
)
def test_each_kernelbench_layout_verdict_is_the_kernels_or_a_pass(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, reference: str, kernel: str, verdict: str | None
) -> None:
    """A KernelBench reference returning a tuple of one where the kernel returns the tensor (or the reverse) passed:
    the outputs were compared flat. A drop-in ``ModelNew`` returns what ``Model`` returns: the kernel's FAIL
    (``WrongType``). A non-contiguous or expanded output on either side is compared by its values; a 0-d tensor is a
    shape of its own. A reference that raises is the problem's ERROR (tests/test_batch_verdicts.py)."""
    res = _check(tmp_path, monkeypatch, "", _kernelbench_new(kernel), inputs=_kernelbench(reference))
    if verdict is None:
        assert res.failure is None, res.failure
        return
    assert res.failure is not None and res.failure.culprit is Culprit.KERNEL, res.failure
    assert res.failure.message == f"case 0 (default): {verdict}"


def test_an_output_s_build_is_read_through_its_nesting_and_its_keys() -> None:
    """The rule (:func:`~kernelopt.harness.compare.structure_fault`): nesting and a dict's keys are the build; a list
    and a tuple are one, a number and a tensor are one (a reference's number may come back as a 0-d tensor), and a
    dict's keys in another order are one (each output compared with the reference's of its key)."""
    import torch

    from kernelopt.harness.compare import check_outputs, structure_fault

    t = torch.ones(2)
    assert structure_fault((t, (t, t)), [t, [t, t]]) is None and structure_fault(t, 1.0) is None
    assert structure_fault(((t, t), t), (t, (t, t))) == "output[0] is a tuple of 2; the reference returns a tensor"
    assert structure_fault({"a": t, "b": t}, {"b": t, "a": t}) is None
    assert (
        structure_fault({"a": t}, {"b": t}) == "output is a dict with keys a; the reference returns a dict with keys b"
    )
    # the same keys in another order: each compared with its own, not the reference's first with the kernel's first
    assert check_outputs({"a": t, "b": 2 * t}, {"b": 2 * t, "a": t}, {"b": 2 * t, "a": t}).message is None
    wrong = check_outputs({"y": t}, (t,), (t,))
    assert (wrong.error_class, wrong.message) == (
        "WrongType",
        "output is a dict with keys y; the reference returns a tuple of 1",
    )
    assert check_outputs((t, t), t, t).error_class == "WrongOutputCount"


# -- on a GPU (scripts/gpu_refblame14.sh) ----------------------------------------------------------------------------


@pytest.mark.gpu
@pytest.mark.timeout(300)
def test_on_a_gpu_an_entry_the_original_cannot_compile_is_the_problems_at_the_baseline(tmp_path: Path) -> None:
    """int_one on cuda: Triton's JIT makes ``rnumel`` = 1 a constexpr at the M=8,N=1 entry and the kernel does not
    compile there (H100, 2026-12-06, Inductor's persistent reduction): the loop's V0 names the entry as the problem's
    (``UnrunnableEntry``), the kernel judged alone fails there as its own, with the compiler's error."""
    import shutil

    from kernelopt.harness.gate import validate
    from kernelopt.harness.model import ENTRY_UNRUNNABLE
    from kernelopt.workspace import Workspace

    folder = Path(shutil.copytree(DATA / "int_one", tmp_path / "int_one"))
    ws = Workspace.create("int_one", kernel=folder / "kernel.py", reference=folder / "reference.py", root=tmp_path)
    report = validate(ws, 0, previous=None, device="cuda", baseline=True)
    assert report.correctness.error_class == ENTRY_UNRUNNABLE, report.correctness.message
    assert report.correctness.message.startswith(
        "the SHAPES entry M=8,N=1 is a size kernel.py as written (V0) cannot run, while it runs M=16,N=32"
    ), report.correctness.message
    judged = validate(ws, 0, previous=None, device="cuda")
    assert judged.correctness.culprit is Culprit.KERNEL and "M=8,N=1" in judged.correctness.message


@pytest.mark.gpu
@pytest.mark.timeout(300)
def test_on_a_gpu_a_reference_keeping_its_output_is_the_problems_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """r10 on cuda: the gate's check of the correct kernel against a reference keeping its output in a dict keyed on
    the shape is the problem's ``ReferenceCached``, reference.py loaded afresh on the device."""
    from tests.test_harness_correctness import _in_process

    (tmp_path / "reference.py").write_text(INPUTS + "\n\n" + KEYED_ON_SHAPE)
    (tmp_path / "kernel.py").write_text(ADD)
    res = _in_process(tmp_path, monkeypatch, tmp_path / "kernel.py", tmp_path / "reference.py", device="cuda")
    assert res.failure is not None and res.failure.error_class == REFERENCE_CACHED, res.failure
    assert res.failure.culprit is Culprit.PROBLEM


def test_tune_names_an_entry_the_original_cannot_run_where_every_candidate_failed_there_too() -> None:
    """Seen (``tune --device cpu --budget 3`` on int_one with an ``assert N > 1`` in ``run``, 2026-12-06): "no candidate
    ran (...)" and "3 candidate(s) failed: 3 run_error ... on the SHAPES entry M=8,N=1", as though the picks were at
    fault. The line (exit 2) now names the entry as one the original cannot run; a candidate failing elsewhere, or
    one passing, leaves the session's own verdict."""
    from kernelopt.tuning.candidate import Config, Outcome, Result
    from kernelopt.tuning.shapes import unrunnable_entry_line

    said = "on the SHAPES entry M=8,N=1: raised while running: AssertionError: rows of one element"

    def result(block: int, outcome: Outcome = Outcome.RUN_ERROR, entry: str | None = "M=8,N=1") -> Result:
        return Result(config={"XBLOCK": block}, outcome=outcome, reason=said, failed_entry=entry)

    current = Config.of({"XBLOCK": 8})
    results = [result(8), result(16), result(32), result(64, Outcome.NOT_RUN_BUDGET, None)]
    assert unrunnable_entry_line(current, results) == (
        "kernel.py as written cannot run the SHAPES entry M=8,N=1 (raised while running: AssertionError: rows of one "
        "element), nor could any candidate: a size the original cannot run is not the picks' fault; drop it from "
        "SHAPES to tune on the others, or give kernel.py a path for that size first"
    )
    assert unrunnable_entry_line(current, [*results, result(128, Outcome.WRONG_RESULT, "M=16,N=32")]) is None
    assert unrunnable_entry_line(current, [result(8, Outcome.WRONG_RESULT), result(16)]) is None
    assert unrunnable_entry_line(Config.of({"XBLOCK": 4}), results) is None


@pytest.mark.timeout(120)
def test_the_interpreter_refuses_a_grid_a_gpu_launch_refuses_before_any_program_runs() -> None:
    """A size the original cannot run on a GPU: 65536 programs on a grid's axis 1 (CUDA's ``gridDim.y`` is at most
    65535; Triton passes the grid unchecked). Triton's interpreter ran it, so the net, the V0 rule and tune's line read
    that size as one the original runs; it now fails there before any program runs, as the GPU's launch does, and a
    grid within the limits runs as before."""
    import torch

    from kernelopt.harness.interpreter import grid_problem
    from tests.conftest import load_fresh, triton_interpreted

    assert grid_problem((2**31 - 1, 65535, 65535)) is None
    assert grid_problem((1, 65536, 1)) == (
        "the grid's axis 1 has 65536 programs, more than the 65535 a GPU launch takes there (CUDA refuses it: invalid "
        "argument); Triton's interpreter runs it"
    )
    with triton_interpreted():
        grid_axis = load_fresh(DATA / "grid_axis" / "kernel.py", "_refblame14_grid_axis")
        x = torch.arange(65536 * 2, dtype=torch.float32)
        with pytest.raises(ValueError, match="the grid's axis 1 has 65536 programs"):
            grid_axis.run(x, block=2)
        small = torch.arange(40, dtype=torch.float32)
        assert torch.equal(grid_axis.run(small), small)


def test_a_batch_optimize_row_whose_v0_cannot_run_an_entry_says_the_entry_fails(tmp_path: Path) -> None:
    """``batch --optimize``: the loop's V0 that cannot run an entry is the problem's ERROR, as a reference that fails is,
    but its row says the problem's SHAPES entry fails, not "the problem's reference failed" (reference.py did not)."""
    from kernelopt.batch.model import ProblemRow, ProblemStatus
    from kernelopt.batch.rows import optimize_row
    from kernelopt.harness.model import CaseCheck
    from kernelopt.harness.unrunnable import entry_line
    from kernelopt.loop.opening import open_or_create
    from kernelopt.memory.model import GateResult, IterationRecord, QualityGate

    folder = tmp_path / "p"
    folder.mkdir()
    (folder / "kernel.py").write_text(ASSERTS_SIXTEEN)
    (folder / "reference.py").write_text(SIXTEEN_FIRST + "\n\ndef reference(x, y):\n    return x + y\n")
    ws = open_or_create(folder, root=tmp_path / "ws").workspace
    line = entry_line(CaseCheck(index=0, label="n=100"), "case 0 (n=100): the kernel raised AssertionError", "n=256")
    gate = QualityGate(result=GateResult.FAIL, failure_reason=f"correctness: {line}", culprit=Culprit.PROBLEM.value)
    ws.memory.write(IterationRecord(version="v0", quality_gate=gate))
    row = optimize_row(ProblemRow(problem="p", folder=str(folder), status=ProblemStatus.ERROR), ws)
    assert row.status is ProblemStatus.ERROR
    assert row.reason == f"the problem's SHAPES entry fails: correctness: {line}"


ONCE_ONLY = """import sys

if "_refblame14_imported" in sys.modules:
    raise RuntimeError("registered already")
sys.modules["_refblame14_imported"] = sys


def reference(x, y):
    return x + y
"""


def test_a_reference_that_cannot_be_imported_twice_leaves_a_wrong_kernel_its_own_failure(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """reference.py loaded afresh raising (a custom op registered at import refuses a second) says nothing of the
    reference: the kernel's failure stands as its own, never the problem's."""
    import sys

    monkeypatch.delitem(sys.modules, "_refblame14_imported", raising=False)
    wrong = "def run(x, y):\n    return x + y + (x[:1] > 0).float()\n"
    failure = _check(tmp_path, monkeypatch, ONCE_ONLY, wrong).failure
    sys.modules.pop("_refblame14_imported", None)
    assert failure is not None and failure.culprit is Culprit.KERNEL and failure.error_class == "Mismatch", failure
    assert failure.message.startswith("case 1 (n=100): output differs"), failure.message  # after the first call
