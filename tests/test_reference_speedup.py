"""The gate times the reference beside the candidate (same timer, interleaved) and every record carries
the speedup over it; torch.compile(reference) is timed when asked, its compile time kept out.

CPU only: a reference that sleeps 2 ms per call is slower than any honest candidate, so the figures
are clear however loaded the machine is.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from kernelopt.harness.gate import validate
from kernelopt.harness.model import COMPILED_REFERENCE_LABEL, REFERENCE_LABEL
from kernelopt.harness.timers import abba_order
from kernelopt.memory.model import GateResult
from kernelopt.report import collect
from kernelopt.report.html import html_report
from kernelopt.report.markdown import markdown_report
from kernelopt.workspace import Workspace

from .conftest import DATA

KB = DATA / "kernelbench"

pytestmark = pytest.mark.timeout(240)


@pytest.fixture
def cpu_env(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("KERNELOPT_DEVICE", "cpu")
    monkeypatch.setenv("KERNELOPT_BENCH_S", "0.1")
    monkeypatch.setenv("KERNELOPT_SEEDS", "1")


def _ws(root: Path, problem: str, card: str | None = None) -> Workspace:
    folder = KB / problem
    card_path = None
    if card is not None:
        card_path = root / f"{problem}_card.md"
        card_path.write_text(card)
    return Workspace.create(
        problem, kernel=folder / "kernel.py", reference=folder / "reference.py", root=root, task_card=card_path
    )


def test_abba_order_mirrors_each_block_for_any_number_of_timings() -> None:
    assert abba_order(1, 2) == [0, 0, 0, 0]
    assert abba_order(2, 1) == [0, 1, 1, 0]
    assert abba_order(3, 2) == [0, 1, 2, 2, 1, 0, 0, 1, 2, 2, 1, 0]


def test_eager_reference_is_timed_beside_the_candidate(tmp_path: Path, cpu_env: None) -> None:
    ws = _ws(tmp_path, "slow_reference")
    report = validate(ws, 0, previous=None)
    assert report.result is GateResult.PASS
    ref = report.record.performance.speedup_vs_reference
    assert ref is not None and ref.eager is not None and ref.eager_latency_us is not None
    assert ref.eager_latency_us >= 2000.0  # the reference sleeps 2 ms
    assert ref.eager > 3.0 and report.speedup_vs_reference == ref.eager
    assert ref.eager_ci_low is not None and ref.eager_ci_low <= ref.eager <= (ref.eager_ci_high or 0.0)
    assert report.reference_latency_us == ref.eager_latency_us
    assert ref.compiled is None and ref.compile_s is None  # not asked for
    # the record on disk carries it too, and the raw samples hold the reference beside the candidate
    on_disk = ws.memory.read(0).performance.speedup_vs_reference
    assert on_disk == ref
    assert report.bench is not None and report.bench.samples_path is not None
    text = Path(report.bench.samples_path).read_text()
    assert f'"label": "{REFERENCE_LABEL}"' in text.replace('":"', '": "')
    assert report.record.performance.flops is None  # the problem defines no flops(): unknown, not guessed
    assert report.record.performance.bytes_moved == 2 * 32 * 128 * 4  # input + output, float32
    roof = report.record.performance.roofline  # both bounds, computed once by the gate
    assert roof is not None and "CPU" in roof.measured_note and roof.measured_pct is None
    # the Markdown and HTML reports show it
    data = collect(ws, measured=None)
    md, html = markdown_report(data), html_report(data, image=None)
    from kernelopt.report.headline import figure  # three significant digits, as the summary says it

    assert f"{figure(ref.eager)}x" in md and "over PyTorch eager" in md
    assert "over PyTorch eager" in html


@pytest.mark.skipif(os.environ.get("KERNELOPT_SKIP_COMPILE_TESTS") == "1", reason="torch.compile skipped")
def test_compiled_reference_is_timed_when_the_task_card_asks(
    tmp_path: Path, cpu_env: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("KERNELOPT_COMPILE_BACKEND", "eager")  # dynamo without inductor: seconds, not minutes
    ws = _ws(tmp_path, "slow_reference", "---\ncompile_reference: true\n---\n")
    report = validate(ws, 0, previous=None)
    assert report.result is GateResult.PASS, report.failure_reason
    ref = report.record.performance.speedup_vs_reference
    assert ref is not None, report.warnings
    assert ref.compile_error is None
    assert ref.compiled is not None and ref.compiled > 3.0  # the sleep survives dynamo (a graph break)
    assert ref.compile_s is not None and ref.compile_s > 0
    assert report.speedup_vs_compiled == ref.compiled
    assert report.bench is not None and report.bench.samples_path is not None
    assert COMPILED_REFERENCE_LABEL in Path(report.bench.samples_path).read_text()
    # what built the compiled reference, kept beside its figure (late27, z52)
    assert (ref.compile_backend, ref.compile_mode) == ("eager", "default") and ws.memory.read(0).performance == (
        report.record.performance
    )


def test_a_candidate_slower_than_the_reference_shows_below_one(tmp_path: Path, cpu_env: None) -> None:
    kernel = tmp_path / "kernel.py"
    kernel.write_text(
        "import time\nimport torch\nfrom torch import nn\n\n\nclass ModelNew(nn.Module):\n"
        "    def forward(self, x):\n        time.sleep(0.002)\n        return torch.relu(x)\n"
    )
    ws = Workspace.create("slow_kernel", kernel=kernel, reference=KB / "relu" / "reference.py", root=tmp_path)
    report = validate(ws, 0, previous=None)
    assert report.result is GateResult.PASS
    assert report.speedup_vs_reference is not None and report.speedup_vs_reference < 0.5


def test_best_version_is_one_rule() -> None:
    from kernelopt.memory.model import IterationRecord, Performance, QualityGate, best_version

    def rec(n: int, lat: float | None, result: GateResult | None, masked: bool = False) -> IterationRecord:
        return IterationRecord(
            version=f"v{n}",
            masked=masked,
            performance=Performance(latency_us=lat),
            quality_gate=QualityGate(result=result),
        )

    records = [
        rec(0, 100.0, GateResult.PASS),
        rec(1, 50.0, GateResult.FAIL),
        rec(2, 40.0, GateResult.PASS, masked=True),
        rec(3, 80.0, GateResult.PASS),
        rec(4, 80.0, GateResult.PASS),
        rec(5, None, GateResult.PASS),
    ]
    best = best_version(records)
    assert best is not None and best.version == "v3"  # fastest passing unmasked, earliest of a tie
    assert best_version([rec(0, 10.0, GateResult.FAIL)]) is None


@pytest.mark.gpu
def test_on_the_gpu_the_triton_relu_is_timed_against_eager_and_compiled(tmp_path: Path) -> None:
    """The same timer on CUDA (graphs or events, L2 flush) for a Triton kernel, eager and inductor."""
    folder = Path(__file__).resolve().parents[1] / "examples" / "kernelbench" / "12_relu_triton"
    ws = Workspace.create("relu_triton", kernel=folder / "kernel.py", reference=folder / "reference.py", root=tmp_path)
    report = validate(ws, 0, previous=None, compile_reference=True)
    assert report.result is GateResult.PASS, report.failure_reason
    ref = report.record.performance.speedup_vs_reference
    assert ref is not None and ref.eager is not None and ref.compiled is not None, ref
    assert ref.compile_s is not None and ref.compile_s > 0
    assert report.bench is not None and report.bench.cases[0].reference is not None
    # a memory-bound ReLU: kernel and eager both near the copy rate, so the ratio is near 1
    assert 0.3 < ref.eager < 3.0


def test_a_noisy_reference_is_flagged_and_its_speedup_withheld(tmp_path: Path, cpu_env: None) -> None:
    """Issue 23: the CPU speedup over a reference timed under load was reported (3.18x, then 0.004x on a
    quiet machine) with no warning; only the kernel's noise was flagged."""
    ws = Workspace.create(
        "noisy",
        kernel=DATA / "kernels" / "add_kernel.py",
        reference=DATA / "harness" / "noisy_reference.py",
        root=tmp_path,
    )
    report = validate(ws, 0, previous=None)
    assert report.result is GateResult.PASS  # the kernel itself is fine
    ref = report.record.performance.speedup_vs_reference
    assert ref is not None and ref.eager is None and report.speedup_vs_reference is None
    assert ref.eager_ci_low is not None and ref.eager_ci_high is not None  # the interval is kept
    assert ref.withheld is not None and ref.withheld.startswith("its 95 % interval")
    warnings = report.record.performance.warnings
    assert any("the reference: interquartile range is" in w for w in warnings), warnings
    assert any("the speedup over the reference is withheld" in w for w in warnings)


def test_too_wide_names_the_interval() -> None:
    from kernelopt.harness.stats import SpeedupEstimate, Verdict, too_wide

    wide = SpeedupEstimate(
        speedup=3.18, ci_low=0.004, ci_high=3.4, n_blocks=20, min_gain_pct=2, verdict=Verdict.NO_CHANGE
    )
    assert too_wide(wide) == (
        "its 95 % interval 0.004x..3.4x spans a factor 850 (over 2) across 1: the timing cannot say faster or slower"
    )
    assert too_wide(wide.model_copy(update={"ci_low": 2.0})) is None  # precise enough
    assert too_wide(wide.model_copy(update={"ci_low": 0.002, "ci_high": 0.008})) is None  # wide, but surely slower
    assert too_wide(wide.model_copy(update={"ci_low": 1.7, "ci_high": 892.0})) == (
        "its 95 % interval 1.7x..892x spans a factor 525 (over 10): the timing is too noisy to give a figure"
    )
