"""The quality-gate rules of Stage 4 (pure).

Spec, "Quality Gate" -- pass conditions: correctness validation PASS; no unacceptable performance
regression, or the regression is clearly explained and supports later optimization; no severe ISA
regression, such as new spills or a large occupancy drop. Here:

1. Correctness must pass; a timeout is ``TIMEOUT_FAIL``, any other failure ``FAIL``.
2. The timing run must finish (its own timeout is ``TIMEOUT_FAIL``).
3. Validation must leave kernel.py, reference.py and test_kernel.py unchanged.
4. A *significant* regression (the speedup's 95 % interval lies below ``1 / (1 + min_gain)``) fails
   unless the plan declares ``enabling_step`` (the spec's "clearly explained and supports later
   optimization").
5. A severe ISA regression fails unless the plan declares ``enabling_step``; a large occupancy drop is
   also accepted when the same version is a significant improvement (lower occupancy bought speed).
"""

from __future__ import annotations

from pydantic import BaseModel, Field

from kernelopt.errors import EXIT_ENVIRONMENT
from kernelopt.harness.isa import IsaRegression, RegressionKind
from kernelopt.harness.stats import UNREPEATED_RULE, SpeedupEstimate, Verdict
from kernelopt.memory.model import CorrectnessStatus, GateResult


class Decision(BaseModel):
    """The gate's decision.

    Attributes:
        result: PASS / FAIL / TIMEOUT_FAIL.
        failure_reason: one line, ``None`` on PASS.
        notes: accepted exceptions and other remarks (a regression accepted as an enabling step).
    """

    result: GateResult
    failure_reason: str | None = None
    notes: list[str] = Field(default_factory=list)


def _status_result(status: CorrectnessStatus) -> GateResult:
    return GateResult.TIMEOUT_FAIL if status is CorrectnessStatus.TIMEOUT_FAIL else GateResult.FAIL


def describe_speedup(s: SpeedupEstimate) -> str:
    """``0.912x (95 % CI 0.905-0.920x, 40 ABBA blocks, p 0.001, d -1.20, margin 2 %; re-timed, p 0.002)``: the figure
    the gate claims, and the re-time's sign test that confirmed the claim or took it back (``not repeated``); the
    re-time's own median ratio is not said beside the figure (one figure, said once: verdicts22 x4)."""
    test = f"p {s.p_value:.2g}, " if s.p_value is not None else ""
    test += f"d {s.effect_size_d:.2f}, " if s.effect_size_d is not None else ""
    retime = ""
    if s.confirmed is not None and s.retime_speedup is None:
        retime = f"; not re-timed: {'kept' if s.significant else 'no claim'} ({UNREPEATED_RULE})"
    elif s.confirmed is not None:
        p_again = f", p {s.retime_p_value:.2g}" if s.retime_p_value is not None else ""
        retime = f"; re-timed{p_again}" + ("" if s.confirmed else ": not repeated, no claim")
    return (
        f"{s.speedup:.3f}x (95 % CI {s.ci_low:.3f}-{s.ci_high:.3f}x, "
        f"{s.n_blocks} ABBA blocks, {test}margin {s.min_gain_pct:g} %{retime})"
    )


def decide(
    *,
    correctness_status: CorrectnessStatus,
    correctness_message: str,
    timing_status: CorrectnessStatus | None,
    timing_message: str | None,
    speedup: SpeedupEstimate | None,
    enabling_step: bool,
    isa_regressions: list[IsaRegression],
    modified_files: list[str],
) -> Decision:
    """Apply the rules of the module docstring in order; the first failing rule gives the reason.

    Args:
        correctness_status: status of the correctness run.
        correctness_message: its message (the failure reason when it failed).
        timing_status: status of the timing run; ``None`` when it did not run.
        timing_message: its failure message.
        speedup: ABBA speedup of the primary case over the previous version, when compared.
        enabling_step: the plan declares the change an enabling step.
        isa_regressions: severe ISA regressions found.
        modified_files: protected workspace files whose content changed during validation.
    """
    notes: list[str] = []
    if modified_files:
        return Decision(
            result=GateResult.FAIL,
            failure_reason=f"validation changed {', '.join(modified_files)} (the candidate writes to workspace files)",
        )
    if correctness_status is not CorrectnessStatus.PASS:
        return Decision(result=_status_result(correctness_status), failure_reason=f"correctness: {correctness_message}")
    if timing_status is not None and timing_status is not CorrectnessStatus.PASS:
        return Decision(result=_status_result(timing_status), failure_reason=f"timing: {timing_message}")
    if speedup is not None and speedup.verdict is Verdict.REGRESSION:
        text = f"significant performance regression: speedup {describe_speedup(speedup)}"
        if not enabling_step:
            return Decision(result=GateResult.FAIL, failure_reason=text)
        notes.append(f"accepted as an enabling step (plan): {text}")
    for reg in isa_regressions:
        if enabling_step:
            notes.append(f"accepted as an enabling step (plan): severe ISA regression: {reg.message}")
            continue
        if reg.kind is RegressionKind.OCCUPANCY_DROP and speedup is not None and speedup.verdict is Verdict.IMPROVEMENT:
            notes.append(f"accepted because the version is significantly faster: {reg.message}")
            continue
        return Decision(result=GateResult.FAIL, failure_reason=f"severe ISA regression: {reg.message}")
    return Decision(result=GateResult.PASS, notes=notes)


#: Exit status of ``kernelopt validate`` and ``test_kernel.py``: 124 for a timeout, as timeout(1) uses.
EXIT_CODES: dict[GateResult, int] = {
    GateResult.PASS: 0,
    GateResult.FAIL: 1,
    GateResult.TIMEOUT_FAIL: 124,
    GateResult.AGENT_UNAVAILABLE: EXIT_ENVIRONMENT,  # the agent's infrastructure, not the kernel
}


def exit_code(result: GateResult | CorrectnessStatus) -> int:
    """0 for PASS, 1 for FAIL, 124 for TIMEOUT_FAIL, 3 (an environment problem) for AGENT_UNAVAILABLE
    (``NOT_RUN`` counts as FAIL)."""
    try:
        return EXIT_CODES[GateResult(result.value)]
    except ValueError:
        return 1
