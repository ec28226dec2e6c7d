"""break21: `kernelopt batch` on KernelBench-style problems, `kernelopt mcp` and the agent path tried as a hostile user
would (docs/faults.md, "Batch, MCP and agents broken, twenty-first trial"). Each test is a finding's case: b42, ..."""

from __future__ import annotations

import json
import shlex
import shutil
import sys
from pathlib import Path

import pytest

from kernelopt.cli.app import main
from kernelopt.memory.model import GateResult
from kernelopt.workspace import Workspace
from tests.backends_support import make_plan, make_ws, write_plan
from tests.conftest import check_in_process, with_baseline

DATA = Path(__file__).parent / "data" / "break21"
AGENTS = Path(__file__).parent / "data" / "agents"

#: BatchNorm left out: right only where the running statistics (mean 0, variance 1 when built) are used.
BN_LEFT_OUT = """import torch
from torch import nn


class ModelNew(nn.Module):
    def __init__(self, num_features):
        super().__init__()
        self.bn = nn.BatchNorm2d(num_features=num_features)

    def forward(self, x):
        return x * self.bn.weight.view(1, -1, 1, 1) + self.bn.bias.view(1, -1, 1, 1)
"""


@pytest.mark.timeout(60)
def test_b42_a_model_runs_in_training_mode_as_kernelbench_runs_it(tmp_path: Path) -> None:
    """b42: the gate (and `tune`'s checks) put Model and ModelNew in eval mode, which KernelBench's eval never does:
    a BatchNorm2d reference normalized by its running statistics (0 and 1 when built), so a kernel normalizing by the
    batch's statistics, KernelBench's answer, failed "32764 of 32768 elements" beyond tolerance, and one that left the
    normalization out passed (``kernelopt batch --device cpu``, main at ``89ac948a``)."""
    right = Path(shutil.copytree(DATA / "batchnorm_train", tmp_path / "right"))
    assert check_in_process(right, "v1").failure is None
    wrong = Path(shutil.copytree(DATA / "batchnorm_train", tmp_path / "wrong"))
    (wrong / "kernel.py").write_text(BN_LEFT_OUT)
    failure = check_in_process(wrong, "v1").failure
    assert failure is not None and failure.error_class == "Mismatch", failure

    from kernelopt.tuning.checks import LoadedProblem
    from kernelopt.tuning.problem import Problem, ProblemShape

    loaded = LoadedProblem.load(Problem(reference_py=right / "reference.py", kernel_py=right / "kernel.py"), "cpu")
    loaded.build(ProblemShape(kwargs={}))  # no SHAPES: get_inputs() as written
    means = loaded.expected.mean(dim=(0, 2, 3))  # tune's reference output, normalized by the batch: mean 0 a channel
    assert float(means.abs().max()) < 1e-4, means


@pytest.mark.timeout(300)
def test_b43_an_agent_s_kernel_right_only_at_the_timed_sizes_fails_its_gate(
    ws_root: Path, rows_baseline: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """b43: the gate checks the SHAPES entries only, and the tuner's net of other sizes ran under ``tune``'s picks
    alone: an agent's one-pass softmax over a row's first 128 columns (every entry has 128) passed V1's gate, 67.7x
    over V0, and ended the run as the user's kernel (``optimize --implementer agent-cli``, main at ``de6c8938``).
    Now a rewrite that passes is checked at the net's sizes where V0's kernel passes, and fails there."""
    for name, value in (("OMP_NUM_THREADS", "1"), ("KERNELOPT_SEEDS", "1")):  # KERNELOPT_BENCH_S: conftest's
        monkeypatch.setenv(name, value)
    monkeypatch.delenv("KERNELOPT_AGENT_COMMAND", raising=False)
    with_baseline(rows_baseline, ws_root)

    argv = ["optimize", str(AGENTS / "rows"), "--root", str(ws_root), "--device", "cpu", "--json", "--max-iters", "1"]
    argv += ["--planner", "agent-cli", "-P", agent("planner.py"), "--implementer", "agent-cli"]
    code = main([*argv, "-I", agent("narrow.py")])
    out, err = capsys.readouterr()
    assert code == 0, err
    assert [(o["version"], o["result"]) for o in json.loads(out)["this_run"]] == [(1, "FAIL")]
    ws = Workspace(ws_root / "kernel_opt_rows")
    gate = ws.memory.read(1).quality_gate
    assert gate.result is GateResult.FAIL, gate
    assert (gate.failure_reason or "").startswith(  # in Stage 3's check since leftovers22 l18
        "correctness FAIL: correct at the timed sizes only: the kernel fails at rows=65,cols=129 (one past the power "
        "of two at or above the largest entry), where the original passes: wrong_result: output differs from the "
        "reference"
    ), gate.failure_reason
    assert ws.kernel_py.read_text() == (AGENTS / "rows" / "kernel.py").read_text()  # reverted to V0


def test_b44_a_build_of_v0_an_agent_planted_in_the_gate_s_state_is_removed_and_said(ws_root: Path) -> None:
    """b44: the guard skipped ``.kernelopt/`` whole, and the gate loads a previous version's compiled code from its
    build folder there (``build/v0-<digest>``) to time it beside the new one, never checking it again: an agent that
    rebuilt V0's C++ extension there from a slowed copy of its source (ninja, then the source put back older) had
    V1's gate time V0 100 times slower, "speedup 2773.33x (95 % CI 2579.337-3334.513) ... improvement" against the
    previous version in V1's record and report (``optimize --implementer agent-cli --device cpu``, main at
    ``04300908``). Now a backend stage's change to a build folder the gate reads back, or to ``sizes.json``, is a
    write violation and is removed (made again from source); a build of Stage 3's check is the agent's own."""
    from kernelopt.backends.agent_cli import AgentCliImplementer
    from kernelopt.stages.guard import RunGuard
    from kernelopt.stages.implement import run_implement

    ws = make_ws(ws_root)
    plan = make_plan()
    write_plan(ws, plan)
    v0 = ws.state_dir / "build" / "v0-d9c40b2372d1" / "torch_extensions" / "vadd"
    v0.mkdir(parents=True)
    (v0 / "vadd.so").write_bytes(b"V0's build\n")
    backend = AgentCliImplementer(
        {"command": f"{shlex.quote(sys.executable)} {shlex.quote(str(AGENTS / 'planter21.py'))}", "timeout_s": 20}
    )
    report = run_implement(ws, 1, plan, backend, guard=RunGuard(ws), check=None, summary=None, history=[])
    assert not report.ok and report.error_type == "write_violation"
    said = " (the gate's own state, changed: removed, made again from source)"
    assert set(report.violations) == {f".kernelopt/build/v0-d9c40b2372d1{said}", f".kernelopt/sizes.json{said}"}
    assert not v0.parent.parent.exists() and not (ws.state_dir / "sizes.json").exists()
    assert (ws.state_dir / "build" / "check-0123456789ab" / "torch_extensions" / "vadd" / "vadd.so").is_file()


def agent(script: str) -> str:
    """An agent-cli option running the scripted agent ``script`` of tests/data/agents on its prompt file."""
    return f"command={shlex.quote(sys.executable)} {shlex.quote(str(AGENTS / script))} {{prompt_file}}"


#: a ModelNew right only where a row holds 256 columns (the scaled problem's timed size)
NARROW_RELU = """import torch
from torch import nn


class ModelNew(nn.Module):
    def forward(self, x):
        return torch.relu(x) if x.shape[-1] == 256 else x.abs()
"""


@pytest.mark.timeout(120)
def test_b43_the_net_of_a_scaled_problem_moves_its_scaled_sizes(tmp_path: Path) -> None:
    """b43's net first read reference.py's sizes as written, where a quick run's gate scaled them: a CPU batch of a
    GPU-sized problem (``--size-scale 0.01``) had its net check ``batch_size=4097,dim=32769`` (0.5 GB) after a gate
    at 41 x 256. It moves the sizes the gate ran (the scale, else the task card's)."""
    from kernelopt.tuning.code_net import check_code_change

    folder = Path(shutil.copytree(DATA / "relu_gpu_sizes", tmp_path / "relu"))
    original = (folder / "kernel.py").read_text()
    net = check_code_change(
        folder, original, NARROW_RELU, device="cpu", session_dir=tmp_path / "net", size_scale=0.01, cap_s=60
    )
    assert net.failed is not None and net.failed.shape.label() == "batch_size=65,dim=257", net.line()


def test_b45_a_batch_timed_on_the_cpu_says_so_above_its_speedups(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """b45: ``kernelopt batch --device cpu`` printed "16.4x*" against eager (a CPU's significant figure) under a title
    naming no device: a reader took it for a GPU's speedup. The title now says where a CPU batch was timed."""
    from kernelopt.batch.model import BatchMode, BatchTable
    from kernelopt.cli.batch import render

    for device, said in (("cpu", True), ("cuda", False), (None, False)):
        render(BatchTable(directory="lv1", mode=BatchMode.VALIDATE, settings={"device": device}), tmp_path)
        out = " ".join(capsys.readouterr().out.split())
        assert ("timed on the CPU (torch's CPU ops; Triton in its interpreter): no GPU's figures" in out) is said, out


#: a Triton ReLU an agent writes for the timed size: one program a row of exactly 8192 columns, no mask, the row's
#: stride taken as its width (right at 32768 x 8192, wrong at any other width)
TRITON_RELU = """import torch
import triton
import triton.language as tl
from torch import nn


@triton.jit
def relu_rows(x_ptr, out_ptr, n_cols, stride, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    {body}


class ModelNew(nn.Module):
    def __init__(self) -> None:
        super().__init__()

    def forward(self, x):
        out = torch.empty_like(x)
        relu_rows[(x.shape[0],)](x, out, x.shape[1], x.stride(0), BLOCK={block})
        return out
"""
NARROW_BODY = "x = tl.load(x_ptr + row * BLOCK + cols)\n    tl.store(out_ptr + row * BLOCK + cols, tl.maximum(x, 0.0))"
MASKED_BODY = (
    "x = tl.load(x_ptr + row * stride + cols, mask=cols < n_cols, other=0.0)\n"
    "    tl.store(out_ptr + row * stride + cols, tl.maximum(x, 0.0), mask=cols < n_cols)"
)


@pytest.mark.gpu
@pytest.mark.timeout(900)
def test_b43_on_a_gpu_an_agent_s_triton_kernel_right_only_at_the_timed_size_fails_its_gate(tmp_path: Path) -> None:
    """b43 on CUDA through ``kernelopt mcp``'s stage calls (``agents.drive``, the gate with the net): a ReLU at 1 GiB
    a tensor, V0 torch's; the agent's unmasked Triton kernel, right only where a row holds 8192 columns, fails its
    gate at a size the net derives (the original passes there); a masked kernel of a row's width rounded up is not
    refused by the net (its gate passes, or fails on its timing alone). Since leftovers22's l18 the net's failure is
    Stage 3's check's, refused back to the agent for repair with the size named. Each line is printed for
    tests.txt."""
    import time

    from kernelopt.agents import drive
    from kernelopt.memory.model import SearchLogEntry
    from kernelopt.planning.markdown import render_plan
    from kernelopt.planning.plan import Plan

    for name, body, block in (
        ("narrow", NARROW_BODY, "8192"),
        ("masked", MASKED_BODY, "triton.next_power_of_2(x.shape[1])"),
    ):
        folder = DATA / "relu_rows_gpu"  # kernelbench/relu's problem, its sizes the task card's
        ws = Workspace.create(
            name,
            kernel=folder / "kernel.py",
            reference=DATA.parent / "kernelbench" / "relu" / "reference.py",
            root=tmp_path,
            task_card=folder / "README.md",
        )
        t0 = time.monotonic()
        drive.profile(ws, device="cuda")
        summary = json.loads((ws.profile_dir(1) / "summary.json").read_text())
        metric, value = next((k, m) for k, m in summary["kernels"][0]["metrics"].items() if m.get("value") is not None)
        plan = Plan(
            version=1,
            bottleneck_type="latency_bound",
            action_category="fusion",
            targets=["kernel.py"],
            parameters={},
            action="fusion: one Triton program a row",
            evidence=[
                f"{metric} = {value['value']} {value.get('unit') or ''} [profiles/v1/summary.json] -> torch's "
                "elementwise launch -> one Triton program a row"
            ],
            search_log=[
                SearchLogEntry(
                    source="gpu-wiki", query="relu rows triton", finding="one program a row", actionability="actionable"
                )
            ],
            expected_impact="a row a program",
            risks_and_rollback="revert kernel.py",
            counters_available=bool(summary.get("counters_available", True)),
        )
        drive.submit_plan(ws, render_plan(plan), device="cuda")
        ws.kernel_py.write_text(TRITON_RELU.format(body=body, block=block))
        if name == "narrow":  # the net's failure is Stage 3's check's since leftovers22 l18: a repair attempt first
            with pytest.raises(drive.EditFailsItsCheck) as refused:
                drive.validate(ws, device="cuda")
            said = str(refused.value)
            print(f"break21 b43 {name}: refused for repair in {time.monotonic() - t0:.0f} s: {said[:300]}")
            assert "correct at the timed sizes only: the kernel fails at batch_size=" in said, said
            continue
        result = drive.validate(ws, device="cuda")
        record = ws.memory.read(1)
        reason = record.quality_gate.failure_reason or ""
        print(f"break21 b43 {name}: {record.quality_gate.result} in {time.monotonic() - t0:.0f} s: {reason[:300]}")
        assert result.status is not None
        assert "correct at the timed sizes only" not in reason, reason


@pytest.mark.timeout(60)
def test_b46_a_float64_output_past_1e154_is_checked_with_a_finite_tolerance(tmp_path: Path) -> None:
    """b46: the tolerance's RMS summed squares that overflow for finite float64 outputs past 1e154: atol inf, so a
    wrong kernel passed in one process, and in a worker the result holding inf was written as null and refused,
    "the worker exited with code 0 without a result", the correct kernel's FAIL (``kernelopt batch --device cpu``,
    main at ``04d897b2``). Now the RMS is scaled by the largest value, and a non-finite figure survives the result's
    JSON."""
    from kernelopt.harness.model import WorkerResult

    right = Path(shutil.copytree(DATA / "exp_f64", tmp_path / "right"))
    result = check_in_process(right, "v1")
    assert result.failure is None and 0 < result.cases[0].tolerance.atol < float("inf"), result.cases
    wrong = Path(shutil.copytree(DATA / "exp_f64", tmp_path / "wrong"))
    (wrong / "kernel.py").write_text((wrong / "kernel.py").read_text().replace("10 * x", "9 * x"))
    failure = check_in_process(wrong, "v1").failure
    assert failure is not None and "beyond tolerance" in failure.message, failure
    infinite = result.model_copy(deep=True)
    infinite.cases[0].tolerance.atol = float("inf")  # reference.py's ATOL = math.inf, as the worker writes it
    assert WorkerResult.model_validate_json(infinite.model_dump_json()).cases[0].tolerance.atol == float("inf")


@pytest.mark.timeout(60)
def test_b46_a_reference_leaving_its_output_unwritten_is_the_problem_s_error(tmp_path: Path) -> None:
    """b46: a reference returning ``torch.empty_like`` filled in part had its unwritten elements (the poison the
    workers fill fresh memory with, 3.4e38 in its run, 1.4e306 in its float64 run) read as its own rounding: the
    tolerance widened to rtol 6.49, a kernel computing ``x * 3`` for ``x * 2`` passed the check, and the correct one
    was a FAIL "without a result" (main at ``04d897b2``). Now the gate's check and ``tune``'s setup refuse the
    reference, the problem's, naming the elements it never wrote."""
    from kernelopt.harness.inputs import ReferenceNotWritten
    from kernelopt.harness.model import Culprit
    from kernelopt.tuning.checks import LoadedProblem
    from kernelopt.tuning.problem import Problem, ProblemShape

    folder = Path(shutil.copytree(DATA / "unwritten_ref", tmp_path / "unwritten"))
    failure = check_in_process(folder, "v1").failure
    assert failure is not None and failure.culprit is Culprit.PROBLEM, failure
    assert failure.error_class == "ReferenceNotWritten" and "holds 2048 of 4096 elements it never wrote" in (
        failure.message
    ), failure
    loaded = LoadedProblem.load(Problem(reference_py=folder / "reference.py", kernel_py=folder / "kernel.py"), "cpu")
    with pytest.raises(ReferenceNotWritten, match="never wrote"):
        loaded.build(ProblemShape(kwargs={}))


@pytest.mark.timeout(60)
def test_b47_an_output_past_its_dtype_s_range_is_the_infinity_the_reference_gives(tmp_path: Path) -> None:
    """b47: fp16 row sums near 80000 are inf in the reference's own dtype; the check compared the kernel with the
    float64 run's finite 80000, so a kernel summing in fp32 and rounding to fp16, inf exactly where the reference
    is, failed "output contains Inf where the reference is finite (16 of 64 elements)" (``kernelopt batch --device
    cpu``, main at ``cafcc0db``). The reference's own infinity, reproduced, is an answer there (late22 z14: the float64
    value within tolerance is the other); a kernel that saturates at 65504 instead still fails."""
    right = Path(shutil.copytree(DATA / "fp16_overflow", tmp_path / "right"))
    assert check_in_process(right, "v1").failure is None
    saturating = Path(shutil.copytree(DATA / "fp16_overflow", tmp_path / "saturating"))
    kernel = saturating / "kernel.py"
    kernel.write_text(kernel.read_text().replace(".sum(dim=1).half()", ".sum(dim=1).clamp(max=65504).half()"))
    failure = check_in_process(saturating, "v1").failure
    # late22 z14: the float64 value is the other answer there, and 65504 is 18 % short of it
    assert failure is not None and "beyond tolerance" in failure.message and "got 65504" in failure.message, failure


@pytest.mark.timeout(60)
def test_b48_a_finite_output_where_the_reference_is_inf_fails_the_check(tmp_path: Path) -> None:
    """b48: the check's fast pass vouched for an element within ``|ref| * rtol + atol`` of the reference, which is inf
    where the reference is: a kernel returning 1e30 for ``1 / relu(x)``'s +inf (half the elements) passed, the full
    scan's "finite where the reference is NaN or Inf" never reached (main at ``cafcc0db``). Now an infinite bound
    vouches for nothing; the kernel giving inf there passes as before."""
    right = Path(shutil.copytree(DATA / "recip_inf", tmp_path / "right"))
    assert check_in_process(right, "v1").failure is None
    finite = Path(shutil.copytree(DATA / "recip_inf", tmp_path / "finite"))
    (finite / "kernel.py").write_text((finite / "kernel.py").read_text().replace("clamp_min(0)", "clamp_min(1e-30)"))
    failure = check_in_process(finite, "v1").failure
    assert failure is not None and "output is finite where the reference is NaN or Inf" in failure.message, failure


@pytest.mark.timeout(60)
def test_b49_a_complex_output_is_checked_as_its_real_and_imaginary_parts(tmp_path: Path) -> None:
    """b49: a complex output (``torch.fft.fft``) crashed the checker, ``aminmax`` having no complex form: "the worker
    exited with code 1 without a result: NotImplementedError: "aminmax_cpu" not implemented for 'ComplexFloat'", the
    kernel's FAIL (``kernelopt batch --device cpu``, main at ``5f056253``). Each complex output is now checked as its
    real and imaginary parts: the DFT as a matmul passes, its conjugate fails."""
    right = Path(shutil.copytree(DATA / "fft", tmp_path / "right"))
    assert check_in_process(right, "v1").failure is None
    conjugate = Path(shutil.copytree(DATA / "fft", tmp_path / "conjugate"))
    kernel = conjugate / "kernel.py"
    kernel.write_text(kernel.read_text().replace("angle = -2 * math.pi", "angle = 2 * math.pi"))
    failure = check_in_process(conjugate, "v1").failure
    assert failure is not None and "beyond tolerance" in failure.message, failure
