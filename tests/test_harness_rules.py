"""Pure parts of the harness: tolerances, settings, the watchdog, ISA targets and the gate rules."""

from __future__ import annotations

import pytest

from kernelopt.errors import UsageError
from kernelopt.evidence.model import IsaFacts, KernelEvidence, Metric, ProfileSummary, Vendor
from kernelopt.harness.decision import decide, exit_code
from kernelopt.harness.isa import RegressionKind, isa_progress, metric_value, parse_target, severe_regressions
from kernelopt.harness.progress import LimitKind, Limits, Watchdog
from kernelopt.harness.settings import HarnessSettings
from kernelopt.harness.stats import SpeedupEstimate, Verdict
from kernelopt.harness.tolerance import Precision, default_tolerance, precision_for, user_tolerance
from kernelopt.memory.model import CorrectnessStatus, GateResult

# -- tolerances ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("dtype", "hint", "precision"),
    [
        ("torch.float32", None, Precision.FP32),
        ("float32", "tf32", Precision.TF32),
        ("torch.bfloat16", "tf32", Precision.BF16),
        ("torch.float16", None, Precision.FP16),
        ("torch.float64", None, Precision.FP64),
        ("torch.float8_e4m3fn", None, Precision.FP8_E4M3),
        ("torch.int32", None, Precision.EXACT),
        ("torch.bool", None, Precision.EXACT),
    ],
)
def test_precision_class(dtype: str, hint: str | None, precision: Precision) -> None:
    assert precision_for(dtype, dtype_hint=hint) is precision


def test_default_tolerances_are_dtype_aware_and_scaled() -> None:
    fp32 = default_tolerance(Precision.FP32, ref_rms=1.0)
    bf16 = default_tolerance(Precision.BF16, ref_rms=1.0)
    fp16 = default_tolerance(Precision.FP16, ref_rms=1.0)
    tf32 = default_tolerance(Precision.TF32, ref_rms=1.0)
    assert fp32.rtol == 1e-4 and fp32.atol == 1e-4
    assert bf16.rtol == pytest.approx(2 * 2**-7) and bf16.atol == pytest.approx(4 * 2**-7)
    assert fp16.rtol == pytest.approx(2 * 2**-10)
    assert fp32.rtol < fp16.rtol < bf16.rtol and tf32.rtol == fp16.rtol
    # the absolute floor scales with the size of the outputs
    assert default_tolerance(Precision.BF16, ref_rms=90.0).atol == pytest.approx(90.0 * bf16.atol)
    assert default_tolerance(Precision.EXACT, ref_rms=5.0).atol == 0.0


def test_user_tolerance_replaces_default_unscaled() -> None:
    tol = user_tolerance(Precision.FP16, atol=1e-2, rtol=None, ref_rms=50.0)
    assert tol.atol == 1e-2 and not tol.scaled_by_rms
    assert tol.rtol == default_tolerance(Precision.FP16, ref_rms=50.0).rtol


# -- settings ------------------------------------------------------------------------------------


def test_settings_from_env_and_overrides() -> None:
    s = HarnessSettings.from_env({"TEST_TIMEOUT_SEC": "7", "KERNELOPT_DEVICE": "cpu", "KERNELOPT_SEEDS": "2"})
    assert s.case_timeout_s == 7 and s.device == "cpu" and s.seeds == 2 and s.run_timeout_s == 60
    assert HarnessSettings.from_env({}).case_timeout_s == 30
    assert HarnessSettings.from_env({"TEST_TIMEOUT_SEC": "7"}, case_timeout_s=3.0, device=None).case_timeout_s == 3.0
    with pytest.raises(UsageError, match="TEST_TIMEOUT_SEC"):
        HarnessSettings.from_env({"TEST_TIMEOUT_SEC": "soon"})
    with pytest.raises(UsageError):
        HarnessSettings.from_env({"TEST_TIMEOUT_SEC": "-1"})


# -- watchdog --------------------------------------------------------------------------------------

LIM = Limits(startup_s=10, compile_s=20, case_s=2, run_s=5)


def _dog() -> Watchdog:
    return Watchdog(limits=LIM, started_at=100.0)


def test_watchdog_startup_and_load_limits() -> None:
    dog = _dog()
    assert dog.check(109.0) is None
    t = dog.check(110.5)
    assert t is not None and t.kind is LimitKind.STARTUP
    dog = _dog()
    dog.feed({"t": 101.0, "event": "phase", "phase": "load"})
    assert dog.check(115.0) is None  # loading (compiling) may take longer than a case
    t = dog.check(121.5)
    assert t is not None and t.kind is LimitKind.COMPILE


def test_watchdog_case_limit_excludes_compile_time() -> None:
    dog = _dog()
    dog.feed({"t": 101.0, "event": "phase", "phase": "case", "case": 1, "label": "n=1000"})
    dog.feed({"t": 101.5, "event": "compile_start"})
    assert dog.check(110.0) is None  # 0.5 s of case time, the rest compiling
    dog.feed({"t": 111.0, "event": "compile_end"})
    assert dog.check(112.4) is None  # 0.5 + 1.4 s
    t = dog.check(112.6)
    assert t is not None and t.kind is LimitKind.CASE and t.case == 1
    assert "case 1 (n=1000)" in t.message and "TEST_TIMEOUT_SEC" in t.message


def test_watchdog_single_compile_is_bounded() -> None:
    dog = _dog()
    dog.feed({"t": 101.0, "event": "phase", "phase": "case", "case": 0, "label": "default"})
    dog.feed({"t": 101.0, "event": "compile_start"})
    t = dog.check(121.5)
    assert t is not None and t.kind is LimitKind.COMPILE


def test_watchdog_run_limit_sums_cases() -> None:
    dog = _dog()
    dog.feed({"t": 101.0, "event": "phase", "phase": "case", "case": 0, "label": "x"})
    dog.feed({"t": 102.9, "event": "phase", "phase": "case", "case": 1, "label": "x"})
    dog.feed({"t": 104.8, "event": "phase", "phase": "case", "case": 2, "label": "x"})
    assert dog.check(105.8) is None  # 1.9 + 1.9 closed + 1.0 open = 4.8 s of 5, each case under 2 s
    t = dog.check(106.1)  # 5.1 s
    assert t is not None and t.kind is LimitKind.RUN and t.case == 2


def test_watchdog_check_time_is_not_the_kernels_and_has_its_own_bound() -> None:
    dog = Watchdog(limits=Limits(startup_s=10, compile_s=20, case_s=2, run_s=5, check_s=20), started_at=100.0)
    dog.feed({"t": 101.0, "event": "phase", "phase": "case", "case": 0, "label": "n=54M"})
    dog.feed({"t": 101.0, "event": "check_start"})  # inputs and the reference: the checker's work
    assert dog.check(110.0) is None  # 9 s of checking, none of it the kernel's
    dog.feed({"t": 110.0, "event": "check_end"})
    dog.feed({"t": 110.1, "event": "check_start"})  # the kernel ran 0.1 s; now the comparison
    t = dog.check(130.2)
    assert t is not None and t.kind is LimitKind.CHECK and "the checker" in t.message and "not the kernel" in t.message
    assert "hangs" not in t.message
    dog.feed({"t": 112.0, "event": "check_end"})
    assert dog.check(113.5) is None  # 0.1 + 1.5 s of the kernel's own time
    t = dog.check(114.2)
    assert t is not None and t.kind is LimitKind.CASE
    dog.feed({"t": 114.0, "event": "phase", "phase": "done"})
    assert dog.run_used_s == pytest.approx(2.1) and dog.check_total_s == pytest.approx(10.9)
    assert dog.work_s == pytest.approx(13.0)


def test_watchdog_a_killed_phase_is_work_up_to_the_kill() -> None:
    dog = _dog()
    dog.feed({"t": 101.0, "event": "phase", "phase": "case", "case": 0, "label": "x"})
    dog.feed({"t": 103.5, "event": "killed"})  # the orchestrator killed it at its case limit
    assert dog.killed and dog.phase.value == "done"
    assert dog.work_s == pytest.approx(2.5)


# -- ISA targets and regressions ---------------------------------------------------------------------


def _summary(*, spills: int | None, occupancy: float | None, load_bits: int | None = 32) -> ProfileSummary:
    metrics = {"tensor_pipe_pct": Metric(value=61.0, unit="%"), "duration_us": Metric(value=10.0, unit="us")}
    if occupancy is not None:
        metrics["achieved_occupancy_pct"] = Metric(value=occupancy, unit="%")
    k = KernelEvidence(
        kernel_name="k",
        metrics=metrics,
        isa=IsaFacts(spill_ops=spills, global_load_bits=load_bits, instruction_counts={"LDG.E.128": 4}),
    )
    return ProfileSummary(vendor=Vendor.NVIDIA, tool_used="ncu", kernels=[k])


def test_parse_target_forms() -> None:
    assert parse_target("global_load_bits", ">=128").model_dump() == {"op": ">=", "value": 128.0}
    assert parse_target("spills", 0).op == "<="
    assert parse_target("waves", 4).op == "=="
    assert parse_target("tensor_pipe_pct", ">= 50%").value == 50.0
    with pytest.raises(ValueError):
        parse_target("x", "lots")


def test_isa_progress_against_evidence() -> None:
    targets = {"spills": 0, "global_load_bits": ">=128", "tensor_pipe_pct": ">=50", "LDG.E.128": ">0", "waves": 2}
    progress = {p.metric: p for p in isa_progress(targets, _summary(spills=0, occupancy=50.0))}
    assert progress["spills"].met is True and progress["spills"].current == 0
    assert progress["global_load_bits"].met is False and progress["global_load_bits"].current == 32
    assert progress["tensor_pipe_pct"].met is True and progress["tensor_pipe_pct"].target == ">=50"
    assert progress["LDG.E.128"].current == 4 and progress["LDG.E.128"].met is True
    assert progress["waves"].current is None and progress["waves"].met is None
    assert all(p.current is None and p.met is None for p in isa_progress(targets, None))


def test_metric_value_aliases() -> None:
    k = _summary(spills=3, occupancy=40.0).kernels[0]
    assert metric_value("spills", k) == 3 and metric_value("occupancy", k) == 40.0


def test_severe_regressions() -> None:
    prev = _summary(spills=0, occupancy=50.0)
    assert severe_regressions(prev, _summary(spills=0, occupancy=45.0)) == []
    regs = severe_regressions(prev, _summary(spills=6, occupancy=24.0))
    assert {r.kind for r in regs} == {RegressionKind.NEW_SPILLS, RegressionKind.OCCUPANCY_DROP}
    # unknown previous spill count is not "new" spills; small absolute drops are not severe
    assert severe_regressions(_summary(spills=None, occupancy=8.0), _summary(spills=4, occupancy=5.0)) == []
    assert severe_regressions(None, _summary(spills=4, occupancy=5.0)) == []


# -- the gate rules --------------------------------------------------------------------------------


def _speedup(lo: float, hi: float, verdict: Verdict) -> SpeedupEstimate:
    return SpeedupEstimate(speedup=(lo + hi) / 2, ci_low=lo, ci_high=hi, n_blocks=20, min_gain_pct=2.0, verdict=verdict)


BASE = dict(
    correctness_status=CorrectnessStatus.PASS,
    correctness_message="ok",
    timing_status=CorrectnessStatus.PASS,
    timing_message=None,
    speedup=None,
    enabling_step=False,
    isa_regressions=[],
    modified_files=[],
)


def test_gate_pass_and_correctness_failures() -> None:
    assert decide(**BASE).result is GateResult.PASS  # type: ignore[arg-type]
    d = decide(**{**BASE, "correctness_status": CorrectnessStatus.FAIL, "correctness_message": "case 0: NaN"})  # type: ignore[arg-type]
    assert d.result is GateResult.FAIL and d.failure_reason == "correctness: case 0: NaN"
    d = decide(**{**BASE, "correctness_status": CorrectnessStatus.TIMEOUT_FAIL, "correctness_message": "hang"})  # type: ignore[arg-type]
    assert d.result is GateResult.TIMEOUT_FAIL
    d = decide(**{**BASE, "timing_status": CorrectnessStatus.TIMEOUT_FAIL, "timing_message": "slow"})  # type: ignore[arg-type]
    assert d.result is GateResult.TIMEOUT_FAIL and "timing" in (d.failure_reason or "")
    d = decide(**{**BASE, "modified_files": ["kernel.py"]})  # type: ignore[arg-type]
    assert d.result is GateResult.FAIL and "kernel.py" in (d.failure_reason or "")


def test_gate_regression_needs_enabling_step() -> None:
    reg = _speedup(0.85, 0.90, Verdict.REGRESSION)
    d = decide(**{**BASE, "speedup": reg})  # type: ignore[arg-type]
    assert d.result is GateResult.FAIL and "regression" in (d.failure_reason or "")
    d = decide(**{**BASE, "speedup": reg, "enabling_step": True})  # type: ignore[arg-type]
    assert d.result is GateResult.PASS and d.notes and "enabling step" in d.notes[0]
    same = _speedup(0.97, 1.01, Verdict.NO_CHANGE)
    assert decide(**{**BASE, "speedup": same}).result is GateResult.PASS  # type: ignore[arg-type]


def test_gate_severe_isa_regressions() -> None:
    regs = severe_regressions(_summary(spills=0, occupancy=50.0), _summary(spills=0, occupancy=20.0))
    assert decide(**{**BASE, "isa_regressions": regs}).result is GateResult.FAIL  # type: ignore[arg-type]
    faster = _speedup(1.2, 1.3, Verdict.IMPROVEMENT)
    d = decide(**{**BASE, "isa_regressions": regs, "speedup": faster})  # type: ignore[arg-type]
    assert d.result is GateResult.PASS and "significantly faster" in d.notes[0]
    spills = severe_regressions(_summary(spills=0, occupancy=50.0), _summary(spills=2, occupancy=50.0))
    d = decide(**{**BASE, "isa_regressions": spills, "speedup": faster})  # type: ignore[arg-type]
    assert d.result is GateResult.FAIL and "spills" in (d.failure_reason or "")


def test_exit_codes() -> None:
    assert [exit_code(r) for r in GateResult] == [0, 1, 124, 3]
    assert exit_code(CorrectnessStatus.NOT_RUN) == 1
