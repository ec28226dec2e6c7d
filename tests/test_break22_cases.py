"""break22: `kernelopt batch` on KernelBench level 2 and 3 style problems, `kernelopt mcp` and the agent path tried as a
hostile user would (docs/faults.md, "Batch, MCP and agents broken, twenty-second trial"). Each test is a finding's
case: b50, ..."""

from __future__ import annotations

import csv
import io
import shutil
import time
from pathlib import Path

import pytest

from kernelopt.batch.model import BatchMode, BatchTable, ProblemRow, ProblemStatus, csv_text
from kernelopt.batch.rows import figures
from kernelopt.batch.runner import BatchOptions, run_batch
from kernelopt.cli.batch import how_timed
from kernelopt.harness.gate import _case_bench, _performance
from kernelopt.harness.model import (
    COMPILED_REFERENCE_LABEL,
    REFERENCE_LABEL,
    BenchReport,
    CaseBench,
    CaseTiming,
    TimingMethod,
    VersionTiming,
)
from kernelopt.memory.model import CorrectnessStatus, IterationRecord
from tests.bench_job import bench_job
from tests.conftest import check_in_process

DATA = Path(__file__).parent / "data" / "break22"
CPU_ENV = {"KERNELOPT_DEVICE": "cpu", "KERNELOPT_BENCH_S": "0.05", "KERNELOPT_SEEDS": "1", "TEST_TIMEOUT_SEC": "3"}


@pytest.mark.timeout(120)
def test_b50_a_hang_is_cut_at_the_batch_s_limit_per_problem_and_named(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """b50: the load run the pool makes ahead of a problem (kernel.py's import, beside the problem before it) ran to
    the compile limit (300 s) whatever `--problem-timeout-s` said, and a row the batch's limit cut said only "ran past
    the batch's limit of N s per problem (killed)", not where. Two hangs at import (each an idle wait): kernel.py's,
    met by the first problem's own check, and reference.py's, met by the load run ahead. Each is cut at the batch's 4
    s and its row names where it hung; the reference's is the problem's ERROR."""
    for key, value in CPU_ENV.items():
        monkeypatch.setenv(key, value)
    problems = tmp_path / "problems"
    for name in ("hang_import", "hang_reference_import"):
        shutil.copytree(DATA / name, problems / name)
    start = time.monotonic()
    table = run_batch(problems, BatchOptions(out_dir=tmp_path / "out", device="cpu", problem_timeout_s=4.0))
    assert time.monotonic() - start < 60  # 300 s (the compile limit) for the second before
    kernel, reference = table.rows
    assert (kernel.problem, kernel.status) == ("hang_import", ProblemStatus.TIMEOUT_FAIL), kernel
    assert kernel.reason == "ran past the batch's limit of 4 s per problem (killed in loading kernel.py)"
    assert (reference.problem, reference.status) == ("hang_reference_import", ProblemStatus.ERROR), reference
    assert reference.reason == "ran past the batch's limit of 4 s per problem (killed in importing reference.py)"


def reference_timed_case() -> tuple[CaseBench, BenchReport]:
    """A primary case as a GPU's gate reads it, and its bench report: the kernel (10-11 us) and torch.compile (14-15.5
    us) graphed, the reference as written (29-31 us) batched (its capture failed), 24 samples of 10 launches each
    (b51; late27's z52 reads the compiled figure of it)."""
    kernel = [10.0, 11.0, 10.5, 10.2] * 6
    eager = [30.0, 31.0, 29.0, 30.5] * 6
    compiled = [15.0, 14.0, 15.5, 14.5] * 6

    def timed(label: str, samples: list[float], method: TimingMethod) -> VersionTiming:
        return VersionTiming(label=label, samples_us=samples, method=method, launches_per_sample=10, l2_flushed=True)

    timing = CaseTiming(
        index=0,
        label="n=4096",
        interleaved=True,
        bytes_moved=1e6,
        versions=[
            timed(REFERENCE_LABEL, eager, TimingMethod.CUDA_BATCH),
            timed(COMPILED_REFERENCE_LABEL, compiled, TimingMethod.CUDA_GRAPH),
            timed("v0", kernel, TimingMethod.CUDA_GRAPH),
        ],
    )
    case = _case_bench(timing, "v0", None, 2.0)
    return case, BenchReport(ok=True, status=CorrectnessStatus.PASS, cases=[case])


def test_b51_a_batch_row_says_how_the_kernel_and_the_pytorch_baseline_were_timed() -> None:
    """b51: a batch row gave the kernel's and the reference's latencies, the speedup over eager with its interval,
    and over torch.compile with no interval, and never how any of them was timed (the record's `timing_method` stayed
    in the workspace; the reference's own method, which differs from the kernel's where no CUDA graph captures it,
    was kept nowhere). A timing as a GPU's gate reads it: the kernel graphed, eager batched (its capture failed),
    torch.compile graphed; the row and its CSV say each method and the compile speedup's interval."""
    case, report = reference_timed_case()
    perf = _performance(report, case, None, None, None, None, [])
    graphed = "cuda_graph, 10 launch(es)/sample, 24 samples, L2 flushed before each sample"
    assert perf.timing_method == graphed
    vs = perf.speedup_vs_reference
    assert vs is not None and vs.eager_timing_method == graphed.replace("cuda_graph", "cuda_batch")
    assert vs.compiled_timing_method == graphed
    record = IterationRecord.model_validate({"version": "v0", "performance": perf.model_dump()})
    row = figures(ProblemRow(problem="p", folder="/p", status=ProblemStatus.PASS), record)
    assert (row.timing_method, row.reference_timing_method) == (graphed, vs.eager_timing_method)
    assert row.speedup_vs_compile is not None and row.compile_ci_low is not None and row.compile_ci_high is not None
    assert row.compile_ci_low <= row.speedup_vs_compile <= row.compile_ci_high
    table = BatchTable(directory="/d", mode=BatchMode.VALIDATE, rows=[row])
    (line,) = csv.DictReader(io.StringIO(csv_text(table)))
    assert line["reference_timing_method"].startswith("cuda_batch, 10 launch(es)/sample, 24 samples")
    assert line["timing_method"] == graphed and float(line["compile_ci_low"]) == row.compile_ci_low
    assert how_timed(table) == (
        'timed: each kernel beside reference.py as written (PyTorch eager, "vs eager"), interleaved in one worker, by '
        "cuda_graph (1 row); the reference by another method than its kernel in 1 row(s): p; per row: timing_method "
        "and reference_timing_method in batch.json and batch.csv"
    )


def test_b52_a_none_among_the_reference_s_outputs_is_no_checker_crash(tmp_path: Path) -> None:
    """b52: a reference returning `nn.MultiheadAttention(...)(x, x, x, need_weights=False)` whole, `(output, None)`,
    crashed the checker at the None ("the worker exited with code 1 without a result: RuntimeError: Could not infer
    dtype of NoneType"), the kernel's FAIL (`kernelopt batch --device cpu`, main at `5140a3cc`). A None where the
    reference has one is now nothing to compare: the attention written out passes; the same kernel returning the
    attention weights there fails, said."""
    right = Path(shutil.copytree(DATA / "mha_none", tmp_path / "right"))
    assert check_in_process(right).failure is None
    weights = Path(shutil.copytree(DATA / "mha_none", tmp_path / "weights"))
    kernel = weights / "kernel.py"
    kernel.write_text(kernel.read_text().replace("a.out_proj.bias), None", "a.out_proj.bias), x.new_ones(b, t, t)"))
    failure = check_in_process(weights).failure
    assert failure is not None and "output 1 is a tensor; the reference's is None" in failure.message, failure


#: A model whose buffer counts its calls and scales its output by the count: its output depends on its earlier calls.
COUNTING = """import torch
from torch import nn


class {name}(nn.Module):
    def __init__(self):
        super().__init__()
        self.register_buffer("calls", torch.zeros(()))

    def forward(self, x):
        self.calls += 1
        return x * self.calls
"""
INPUTS = """

def get_inputs():
    return [torch.randn(256)]


def get_init_inputs():
    return []
"""
PURE = """import torch
from torch import nn


class Model(nn.Module):
    def forward(self, x):
        return x
"""


@pytest.mark.parametrize("reference_counts", [True, False], ids=["reference_counts", "kernel_alone_counts"])
def test_b53_a_reference_whose_output_counts_its_calls_is_the_problem_s_error_at_the_timed_check(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, reference_counts: bool
) -> None:
    """b53: a KernelBench model whose buffer counts its calls (its output `x * calls`) beside a kernel that does the
    same passed the check (each called once a seed) and failed the timing's check of the timed output, "output
    differs from the reference on the inputs of seed 7919 (the timed output's check)", the kernel's FAIL
    (`kernelopt batch --device cpu`, main at `6a63f87a`): the reference had run through the whole timing first. The
    check's rule for a reference whose output depends on its earlier calls (reference.py loaded afresh returns
    another) now runs there too: the problem's error. A pure reference beside the counting kernel stays the kernel's
    FAIL."""
    reference = (COUNTING.format(name="Model") if reference_counts else PURE) + INPUTS
    res = bench_job(tmp_path, monkeypatch, reference, COUNTING.format(name="ModelNew"), time_reference=True)
    failure = res.failure
    assert failure is not None
    if reference_counts:
        assert failure.culprit == "problem" and failure.error_class == "ReferenceCached", failure
        assert "its output depends on its earlier calls" in failure.message
    else:
        assert failure.culprit == "kernel" and failure.error_class == "Mismatch", failure
        assert "(the timed output's check), timed or not" in failure.message


@pytest.mark.parametrize(
    ("problem", "right", "wrong"),
    [
        ("conv_argmax_fp16", "return y.argmax(dim=1)", "return (y[:, 1:].argmax(dim=1) + 1)"),
        ("threshold_fp16", "return y > 1.0", "return y > 1.01"),
    ],
)
def test_b54_an_integer_or_bool_output_the_reference_gives_in_its_own_dtype_passes(
    tmp_path: Path, problem: str, right: str, wrong: str
) -> None:
    """b54: an integer output is judged against the reference's float64 run, one step allowed where its own dtype's
    run differs by one; an index differs by more, and a bool output was held to the float64 run exactly. A conv in
    fp16 then argmax over 256 channels (inputs at 100x: fp16 ties a few maxima float64 tells apart, 2 to 4 of 1800 a
    seed), and an fp16 linear layer thresholded at 1.0 (a few values rounded across it): a kernel giving, bit for bit,
    the reference's own output failed "beyond tolerance (... got 3, expected 59 ...; exact)" and "(14 of 131072 ...
    got 0, expected 1 ...)" (`kernelopt batch --device cpu`, main at `2d7fbe52`). The reference's own value is now
    one answer of an integer or bool output, as its NaN and infinity are of a float one: PASS; a kernel ignoring
    channel 0, or thresholding at 1.01, still fails."""
    folder = Path(shutil.copytree(DATA / problem, tmp_path / "right"))
    assert check_in_process(folder).failure is None
    blind = Path(shutil.copytree(DATA / problem, tmp_path / "wrong"))
    kernel = blind / "kernel.py"
    kernel.write_text(kernel.read_text().replace(right, wrong))
    failure = check_in_process(blind).failure
    assert failure is not None and "beyond tolerance" in failure.message, failure


def test_b55_an_exact_zero_beside_a_reference_of_rounding_noise_is_no_zero_output(tmp_path: Path) -> None:
    """b55: an output all zeros where the reference's is not constant fails whatever the tolerance (a kernel doing
    nothing); a group norm of one channel a group is zero in exact arithmetic, and its reference gives rounding noise:
    the exact kernel FAIL "output is all zeros while the reference is not constant (it spans 1.24e-14)" (the gate,
    `kernelopt batch --device cpu`, main at `56a4a572`), and so in the net of the 256-channel problem, which shrinks
    the channels to the group count (the loop's V1 "correct at the timed sizes only"). A reference varying less than
    its own run's rounding is constant at its resolution: PASS in the gate's check and in the tuning engine's (which
    makes the float64 run for it); at 256 channels the zeros are still the cheat's, said."""
    from kernelopt.tuning.checks import LoadedProblem, check_run, load_candidate
    from kernelopt.tuning.problem import Problem, ProblemShape

    folder = Path(shutil.copytree(DATA / "groupnorm_one_channel", tmp_path / "one"))
    assert check_in_process(folder).failure is None
    loaded = LoadedProblem.load(Problem(reference_py=folder / "reference.py", kernel_py=folder / "kernel.py"), "cpu")
    loaded.build(ProblemShape(kwargs={}))
    candidate, verdict = load_candidate(loaded, folder / "kernel.py")
    assert candidate is not None and check_run(loaded, candidate, verdict).reason is None
    wide = Path(shutil.copytree(DATA / "groupnorm_one_channel", tmp_path / "wide"))
    reference = wide / "reference.py"
    reference.write_text(reference.read_text().replace("out_features = 16", "out_features = 256"))
    kernel = wide / "kernel.py"
    kernel.write_text(kernel.read_text().replace("return F.silu(y)", "return torch.zeros_like(y)"))
    failure = check_in_process(wide).failure
    assert failure is not None and "is all zeros while the reference is not constant" in failure.message, failure


def test_b56_the_tuning_engine_s_check_reads_the_reference_s_rounding_as_the_gate_does(tmp_path: Path) -> None:
    """b56: the tuning engine's check (`tune`'s candidates, the code net of Stage 4) held a candidate to the
    reference's own run at the default tolerance, where the gate reads the reference's own rounding from its float64
    run: a split-K matmul before a softmax at temperature 0.01 passed its gate at 256 x 4096 x 256 and failed the code
    net at N=9, "2 of 2304 elements ... beyond tolerance ... rel_err 1.15e-05, atol 3.31e-05", a correct rewrite
    failed as right at the timed sizes only (`tuning.code_net.check_code_change`, main at `7d529a94`). A candidate
    that fails on its values is now checked again with the reference's float64 run (made once a shape): PASS, as in
    the gate's check."""
    from kernelopt.tuning.checks import LoadedProblem, check_run, load_candidate
    from kernelopt.tuning.problem import Problem, ProblemShape

    folder = Path(shutil.copytree(DATA / "splitk_sharp_softmax", tmp_path / "splitk"))
    assert check_in_process(folder).failure is None
    loaded = LoadedProblem.load(Problem(reference_py=folder / "reference.py", kernel_py=folder / "kernel.py"), "cpu")
    loaded.build(ProblemShape(kwargs={}))
    candidate, verdict = load_candidate(loaded, folder / "kernel.py")
    assert candidate is not None and check_run(loaded, candidate, verdict).reason is None
    assert loaded.gate_high, "the float64 run made for the recheck"
    # a reference that computes something else in float64 (a branch on the dtype) gives no reading: the own run stays
    # the truth, and a kernel computing the float64 branch's result still fails
    branching = Path(shutil.copytree(DATA / "splitk_sharp_softmax", tmp_path / "branching"))
    reference = branching / "reference.py"
    reference.write_text(
        reference.read_text().replace(
            "        return torch.softmax(",
            "        if a.dtype == torch.float64:\n            a = a * 2\n        return torch.softmax(",
        )
    )
    kernel = branching / "kernel.py"
    kernel.write_text(kernel.read_text().replace("y * (100.0", "y * (200.0"))
    loaded = LoadedProblem.load(Problem(reference_py=reference, kernel_py=kernel), "cpu")
    loaded.build(ProblemShape(kwargs={}))
    candidate, verdict = load_candidate(loaded, kernel)
    assert candidate is not None and "beyond tolerance" in (check_run(loaded, candidate, verdict).reason or "")
    assert loaded.gate_high is False
