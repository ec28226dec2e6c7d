"""The iteration record: one pydantic model, the single source of truth for ``memory/v<N>.json``.

Field names follow the upstream format of the profile-optimizer workflow (see DESIGN.md, "Memory
record") so records interoperate. The JSON Schema shipped as ``iteration.schema.json`` is generated
from :class:`IterationRecord` (``kernelopt schema memory``); every write goes through validation.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from datetime import UTC, datetime
from enum import StrEnum

from pydantic import BaseModel, ConfigDict, Field, field_validator

from kernelopt.actions import SEARCH_NO_GAIN, ActionCategory
from kernelopt.digits import times

RECORD_SCHEMA_VERSION = 1
_VERSION_RE = re.compile(r"[vV]?([0-9]+)")  # ASCII digits: int() reads "v٢" as 2


def parse_version(text: str | int) -> int:
    """``"v3"``, ``"V3"``, ``"3"`` or ``3`` -> ``3``.

    Raises:
        ValueError: the text is not a version label.
    """
    if isinstance(text, int):
        if text < 0:
            raise ValueError(f"version must be >= 0, got {text}")
        return text
    m = _VERSION_RE.fullmatch(text.strip())
    if not m:
        raise ValueError(f"not a version label: {text!r} (expected v<N>, e.g. v3)")
    return int(m.group(1))


def version_label(n: int) -> str:
    """``3`` -> ``"v3"``."""
    return f"v{n}"


class _Model(BaseModel):
    # Measurements are finite numbers or null: inf/NaN would be written as null by JSON and read back
    # as "not measured", so they are refused at the door.
    model_config = ConfigDict(extra="forbid", validate_assignment=True, allow_inf_nan=False)


class GateResult(StrEnum):
    """The Stage 4 quality-gate decision."""

    PASS = "PASS"
    FAIL = "FAIL"
    TIMEOUT_FAIL = "TIMEOUT_FAIL"
    AGENT_UNAVAILABLE = "AGENT_UNAVAILABLE"
    """The planning or implementing agent's infrastructure failed (not logged in, API error, timeout): the
    version's action was never tried or measured."""


class CorrectnessStatus(StrEnum):
    PASS = "PASS"
    FAIL = "FAIL"
    TIMEOUT_FAIL = "TIMEOUT_FAIL"
    NOT_RUN = "NOT_RUN"


class Comparison(_Model):
    """Change against the previous unmasked version, in percent (positive = larger value now).

    ``latency_delta`` -5.0 means 5 % lower latency than V<N-1>. The speedup fields come from the
    interleaved (ABBA) comparison of Stage 4: ``speedup`` = previous latency / this latency.
    """

    latency_delta: float | None = None
    tflops_delta: float | None = None
    bandwidth_delta: float | None = None
    speedup: float | None = None
    speedup_ci_low: float | None = None
    speedup_ci_high: float | None = None
    speedup_p_value: float | None = Field(default=None, ge=0, le=1, description="two-sided p of the speedup's test")
    speedup_effect_size_d: float | None = Field(default=None, description="Cohen's d of the per-sample latencies")
    verdict: str | None = Field(default=None, description="improvement | regression | no significant change")
    speedup_retime: float | None = Field(
        default=None,
        gt=0,
        description="the speedup of the re-time made because the first timing claimed a difference: the claim "
        "(verdict) stands only when the re-time claims the same; null when there was no claim to re-time",
    )
    against: str | None = Field(
        default=None,
        description="the version the interleaved timing ran beside (v<N>, the best version so far in a run): the "
        "link of the chain of side-by-side verdicts the best version follows; null in records written before it was "
        "kept (then the best version below this one)",
    )


class RooflineBounds(_Model):
    """Where a version's latency sits against the roofline bound for its problem size (computed once,
    by the gate; the stop check and the report only read it).

    Attributes:
        measured_pct: roofline latency (measured ceilings) / latency, percent; None with ``measured_note``.
        measured_note: the ceilings used, or why there is no measured bound.
        spec_pct: roofline latency (spec-sheet peaks) / latency, percent; None with ``spec_note``.
        spec_note: the spec figures used (with their source), or why there is none.
        gate_pct: the gate's own ``roofline_utilization_pct``, when it reported one.
    """

    measured_pct: float | None = None
    measured_note: str = "not computed"
    spec_pct: float | None = None
    spec_note: str = "not computed"
    gate_pct: float | None = None

    def stop_figure(self) -> tuple[float | None, str]:
        """(percent, which bound) the stop condition uses: measured, else spec, else the gate's."""
        if self.measured_pct is not None:
            return self.measured_pct, "measured ceilings"
        if self.spec_pct is not None:
            return self.spec_pct, "spec peak"
        if self.gate_pct is not None:
            return self.gate_pct, "gate"
        return None, "none"

    def stop_note(self) -> str | None:
        """The roofs behind :meth:`stop_figure`'s percent and the bound the version hits (``measured copy 4200 GB/s,
        fp16 matmul 700.0 TFLOP/s, memory-bound``); ``None`` for the gate's own figure."""
        if self.measured_pct is not None:
            return self.measured_note
        if self.spec_pct is not None:
            return self.spec_note
        return None

    def lines(self) -> list[str]:
        """Both bounds in words, one line each (for reports and records)."""
        return [
            "roofline bound, measured ceilings: " + _pct_text(self.measured_pct) + f" ({self.measured_note})",
            "roofline bound, spec peak: " + _pct_text(self.spec_pct) + f" ({self.spec_note})",
        ]


def _pct_text(pct: float | None) -> str:
    return "n/a" if pct is None else f"{pct:.3g} % of the bound"


class ReferenceSpeedup(_Model):
    """The candidate against the reference implementation, timed beside it (same timer, interleaved).

    ``eager`` = reference latency / candidate latency with the reference run as written (PyTorch eager);
    ``compiled`` the same against ``torch.compile(reference)``, when it was asked for. Above 1 means the
    candidate is faster: the figure KernelBench and kernel papers report.
    """

    eager: float | None = Field(default=None, gt=0, description="reference (eager) latency / candidate latency")
    eager_ci_low: float | None = Field(default=None, gt=0)
    eager_ci_high: float | None = Field(default=None, gt=0)
    eager_p_value: float | None = Field(default=None, ge=0, le=1, description="two-sided p of the speedup's test")
    eager_effect_size_d: float | None = Field(default=None, description="Cohen's d of the per-sample latencies")
    eager_verdict: str | None = Field(
        default=None,
        description="improvement (a significant speedup: p < 0.05, Cohen's d > 0.2, interval past the margin, "
        "repeated by a re-time) | regression (the same, or at p < 0.001 where no re-time could be made) | no "
        "significant change",
    )
    eager_retime: float | None = Field(
        default=None, gt=0, description="as comparison_with_previous.speedup_retime, against the reference"
    )
    eager_latency_us: float | None = Field(default=None, ge=0, description="median latency of the reference")
    eager_timing_method: str | None = Field(
        default=None,
        description="how the reference's samples were taken (as performance.timing_method: method, launches per "
        "sample, samples), in the same worker, interleaved with the candidate's",
    )
    compiled: float | None = Field(default=None, gt=0, description="torch.compile(reference) latency / candidate")
    compiled_ci_low: float | None = Field(default=None, gt=0)
    compiled_ci_high: float | None = Field(default=None, gt=0)
    compiled_verdict: str | None = Field(default=None, description="as eager_verdict, against torch.compile")
    compiled_latency_us: float | None = Field(default=None, ge=0)
    compiled_timing_method: str | None = Field(default=None, description="as eager_timing_method, for torch.compile")
    compile_backend: str | None = Field(
        default=None, description="the torch.compile backend the compiled reference was built with (inductor, ...)"
    )
    compile_mode: str | None = Field(
        default=None,
        description="its torch.compile mode (KERNELOPT_COMPILE_MODE: default, reduce-overhead, max-autotune, "
        "max-autotune-no-cudagraphs): the figure against max-autotune is not the one against the default",
    )
    compile_s: float | None = Field(
        default=None, ge=0, description="seconds torch.compile took (warm-up), kept out of the timing"
    )
    compile_error: str | None = Field(default=None, description="why the compiled reference was not timed")
    withheld: str | None = Field(
        default=None, description="why a speedup is not given (eager / compiled null): its interval is too wide"
    )


class Performance(_Model):
    """Measured performance of this version (never estimated; ``None`` when not measured)."""

    latency_us: float | None = Field(default=None, ge=0, description="median kernel latency, microseconds")
    latency_us_by_shape: dict[str, float] = Field(default_factory=dict)
    latency_iqr_us: float | None = Field(default=None, ge=0)
    latency_ci_low_us: float | None = Field(default=None, ge=0, description="95 % CI of the median, low end")
    latency_ci_high_us: float | None = Field(default=None, ge=0, description="95 % CI of the median, high end")
    tflops: float | None = Field(default=None, ge=0, description="achieved TFLOP/s; null when FLOPs unknown")
    bandwidth_gbps: float | None = Field(default=None, ge=0, description="achieved GB/s (1e9 bytes/s)")
    tflops_peak_utilization_pct: float | None = None
    bandwidth_peak_utilization_pct: float | None = None
    roofline_utilization_pct: float | None = Field(
        default=None, description="% of the roofline bound for this problem size"
    )
    tflops_ceiling_utilization_pct: float | None = Field(default=None, description="% of the measured matmul ceiling")
    bandwidth_ceiling_utilization_pct: float | None = Field(
        default=None, description="% of the measured memory-bandwidth ceiling (fastest measured stream)"
    )
    roofline_basis: str | None = Field(default=None, description="measured ceilings or spec sheet used for the bound")
    timing_method: str | None = None
    gpu: str | None = None
    comparison_with_previous: Comparison = Field(default_factory=Comparison)
    warnings: list[str] = Field(default_factory=list, description="noise and accounting warnings")
    flops: float | None = Field(default=None, ge=0, description="FLOP per launch of the primary case (flops())")
    bytes_moved: float | None = Field(default=None, ge=0, description="bytes per launch of the primary case")
    bytes_source: str | None = Field(default=None, description="bytes_moved() or inputs + outputs")
    roofline: RooflineBounds | None = Field(default=None, description="both roofline bounds, computed by the gate")
    speedup_vs_reference: ReferenceSpeedup | None = Field(
        default=None, description="the candidate against the reference (eager; torch.compile when asked)"
    )


class Optimization(_Model):
    action_category: ActionCategory | None = None
    action_description: str | None = None
    expected_impact: str | None = None
    risks_and_rollback: str | None = None
    knob_changes: dict[str, list[str | int | float | None]] = Field(
        default_factory=dict, description="knob name -> [before, after] as applied by Stage 3"
    )
    knob_overrides: dict[str, str] = Field(
        default_factory=dict,
        description="knob name -> the computed expression (a helper call, a conditional, an autotune list built by "
        "code) that Stage 3's literal replaced",
    )
    launch: str | None = Field(
        default=None,
        description="the launch a tuning session tuned: its identity, the same in every version (`launch k in run()`); "
        "older records hold its label, with a line (`launch k (kernel.py:31)`)",
    )


class ProfileEvidence(_Model):
    tool_used: str | None = None
    evidence_summary: str | None = None
    bottleneck_type: str | None = None
    evidence_chain: list[str] = Field(default_factory=list)


class Experiment(_Model):
    description: str
    config: dict[str, str | int | float | bool | None] = Field(default_factory=dict)
    latency_us: float | None = None
    result: str | None = None


class Experience(_Model):
    experiments: list[Experiment] = Field(default_factory=list)
    notes: list[str] = Field(default_factory=list)


class Correctness(_Model):
    rel_err: float | None = Field(default=None, ge=0, description="max over cases of ||out-ref||/||ref||")
    max_abs_err: float | None = Field(default=None, ge=0)
    status: CorrectnessStatus = CorrectnessStatus.NOT_RUN
    message: str | None = None


class IsaMetricProgress(_Model):
    metric: str
    target: str
    current: float | str | None = None
    met: bool | None = None


class SearchLogEntry(_Model):
    source: str
    query: str
    finding: str
    actionability: str


class PitfallAndFix(_Model):
    error_type: str
    error_message: str
    root_cause: str | None = None
    fix_applied: str | None = None
    lesson: str | None = None


class CandidateStatus(StrEnum):
    """How one candidate configuration of a Stage 3 sweep ended."""

    OK = "ok"  # compiled, correct on the small shape, timed
    WRONG_RESULT = "wrong_result"
    COMPILE_FAILED = "compile_failed"
    CRASHED = "crashed"
    TIMEOUT = "timeout"
    REFUSED = "refused"  # the tunables edit refused it (illegal value, cannot fit)
    NOT_TIMED = "not_timed"  # correct, but the timing run failed or was skipped


class CandidateResult(_Model):
    """One candidate configuration that Stage 3 compiled, checked and timed (the rules implementer's sweep).

    Attributes:
        parameters: knob -> value of the candidate (the values the whole configuration has after the edit).
        status: how it ended.
        latency_us: median latency on the primary shape from the quick timer, microseconds; ``None``
            when not timed.
        reason: why it failed or was not timed, one line; ``None`` when it was timed.
        chosen: the configuration Stage 3 applied (the fastest correct one).
        current: the configuration kernel.py had before Stage 3 (timed as the yardstick).
        evidence: the evidence line of the plan behind this candidate.
        served: served from a tuning session's record (an earlier session of the same kernel measured it),
            not timed again in this version.
        latency_us_by_shape: a session timed on several ``SHAPES`` entries: each entry's label -> its median
            latency there, microseconds (``latency_us`` is then their sum); empty otherwise. The report draws
            each shape's own series from it.
        cut: its timing was cut, far slower than the best so far: ``latency_us`` is a lower bound.
    """

    parameters: dict[str, int | float | str | bool]
    status: CandidateStatus
    latency_us: float | None = Field(default=None, ge=0)
    reason: str | None = None
    chosen: bool = False
    current: bool = False
    evidence: str | None = None
    served: bool = False
    latency_us_by_shape: dict[str, float] = Field(default_factory=dict)
    cut: bool = False


class QualityGate(_Model):
    result: GateResult | None = None
    failure_reason: str | None = None
    culprit: str | None = Field(
        default=None,
        description="whose code failed, when the gate did not pass: kernel, problem (reference.py raised or its "
        "Model or inputs could not be built: an ERROR of the problem in a batch, not a FAIL of the kernel), or "
        "checker (the check does not fit in the device's memory, or the checker ran past its own limit: an ERROR)",
    )


class IterationRecord(_Model):
    """One iteration of the loop (``memory/v<N>.json``).

    ``version`` is the label ``v<N>``; a record with ``masked: true`` is kept for audit but never read
    as active data by planners.
    """

    schema_version: int = RECORD_SCHEMA_VERSION
    version: str
    masked: bool = False
    timestamp: datetime = Field(default_factory=lambda: datetime.now(UTC))
    performance: Performance = Field(default_factory=Performance)
    optimization: Optimization = Field(default_factory=Optimization)
    profile_evidence: ProfileEvidence = Field(default_factory=ProfileEvidence)
    experience: Experience = Field(default_factory=Experience)
    correctness: Correctness = Field(default_factory=Correctness)
    isa_metric_progress: list[IsaMetricProgress] = Field(default_factory=list)
    search_log: list[SearchLogEntry] = Field(default_factory=list)
    pitfalls_and_fixes: list[PitfallAndFix] = Field(default_factory=list)
    references: list[str] = Field(default_factory=list)
    quality_gate: QualityGate = Field(default_factory=QualityGate)
    open_directions: list[str] = Field(default_factory=list)
    git_commit_hash: str | None = Field(default=None, pattern=r"^[0-9a-f]{7,64}$")
    candidates: list[CandidateResult] = Field(
        default_factory=list, description="Stage 3's tuning session: every candidate evaluated, and the one chosen"
    )

    @field_validator("version")
    @classmethod
    def _version_label(cls, v: str) -> str:
        return version_label(parse_version(v))

    @property
    def number(self) -> int:
        """The version number N of ``v<N>``."""
        return parse_version(self.version)

    @property
    def candidates_timed(self) -> int:
        """Candidates Stage 3's session compiled, checked and timed for this version: one served from a session
        record (measured by an earlier session, not again) is not counted (the one rule of the loop's summary and
        the report)."""
        return sum(1 for c in self.candidates if c.latency_us is not None and not c.served)

    @property
    def candidates_served(self) -> int:
        """Candidates of this version's session served from a session record, not measured again."""
        return sum(1 for c in self.candidates if c.served)

    @property
    def converged(self) -> bool:
        """True when the version's tuning session ran and kept nothing (no candidate beat the version before it):
        the record's gate says FAIL, as the loop's stop rule and the planner read it, but no kernel failed; the launch
        configuration has converged (error_type :data:`~kernelopt.actions.SEARCH_NO_GAIN`). The one rule of the
        loop's progress and summary, the report and the MCP digest."""
        return self.quality_gate.result is GateResult.FAIL and any(
            pf.error_type == SEARCH_NO_GAIN for pf in self.pitfalls_and_fixes
        )


def _good(r: IterationRecord) -> bool:
    return not r.masked and r.quality_gate.result is GateResult.PASS and r.performance.latency_us is not None


def _against(c: Comparison, incumbent: int) -> int | None:
    """The version ``c``'s interleaved timing ran beside: its recorded label, else ``incumbent`` (older records);
    ``None`` where the label names no version (``v-2``, HEAD's kernel.py of ``kernelopt validate``)."""
    if c.against is None:
        return incumbent
    try:
        return parse_version(c.against)
    except ValueError:
        return None


def chain_speeds(records: Iterable[IterationRecord]) -> dict[int, float]:
    """Each measured unmasked version's speed relative to the first passing one (V0 in a run), by the chain of
    side-by-side verdicts: a version's speed is that of the version its gate timed it beside (the best version below
    it) times the gate's interleaved speedup over it (``comparison_with_previous``). Two gates' medians are compared
    only where a version has no such speedup (no comparison was made, or it ran beside no version of the chain): on a
    loaded host two gates minutes apart are not comparable (flag_flash's V1 1.71x faster beside V0 in its gate, its
    median 68.8 ms against V0's 27.2 ms at the baseline: late46 l160). Versions before the first passing one, and
    masked ones, have none."""
    return _chain(records)[0]


def unlinked_versions(records: Iterable[IterationRecord]) -> list[str]:
    """What the chain (:func:`chain_speeds`) lacks to link each version to the one its gate timed it beside, one line
    a version: a record written before the gate kept that version's label (``comparison_with_previous.against``,
    late46 l160) is chained to the best version below it by the chain, and where the rule of its day (the least
    median) names another best below it, its gate may have timed it beside that one. Empty where no record lacks it
    so (records with their labels, or an old run whose two rules agree): its ratios are linked as timed."""
    return _chain(records)[1]


def _chain(records: Iterable[IterationRecord]) -> tuple[dict[int, float], list[str]]:
    """:func:`chain_speeds` and :func:`unlinked_versions`, in one walk of the records."""
    speeds: dict[int, float] = {}
    unlinked: list[str] = []
    best: IterationRecord | None = None
    passed: list[IterationRecord] = []
    for r in sorted((r for r in records if not r.masked), key=lambda r: r.number):
        lat = r.performance.latency_us
        if lat is None or (best is None and not _good(r)):
            continue
        if best is None:
            speed = 1.0
        else:
            c = r.performance.comparison_with_previous
            against = _against(c, best.number)
            if c.speedup is not None and against in speeds:
                speed = speeds[against] * c.speedup
                median_best = min(passed, key=lambda p: (p.performance.latency_us or 0.0, p.number))
                if c.against is None and median_best is not best:
                    unlinked.append(
                        f"{r.version}'s record has no comparison_with_previous.against (written before late46's "
                        f"l160): its gate's {times(c.speedup)} is chained to {best.version}, the best version below it "
                        f"by the chain, though the rule of its day (the least median) named {median_best.version}, "
                        "which its gate may have timed it beside"
                    )
            else:
                base = best.performance.latency_us or 0.0
                speed = speeds[best.number] * base / lat if lat > 0 else float("inf")
        speeds[r.number] = speed
        if _good(r):
            passed.append(r)
            if best is None or speed > speeds[best.number]:
                best = r
    return speeds, unlinked


def speedup_over_v0(records: Iterable[IterationRecord], version: int) -> float | None:
    """``version``'s speedup over V0 by the chain of side-by-side verdicts (:func:`chain_speeds`); ``None`` where V0
    did not pass with a measured latency or ``version`` has no measured latency."""
    speeds = chain_speeds(records)
    return speeds[version] / speeds[0] if 0 in speeds and version in speeds and speeds[0] > 0 else None


def best_version(records: Iterable[IterationRecord]) -> IterationRecord | None:
    """The one rule for "best version": the unmasked version that passed the gate with a measured latency and is
    fastest by the chain of side-by-side verdicts (:func:`chain_speeds`: in a run, the last version whose gate timed
    it faster than the best version so far, beside it), the earliest of equal speeds; ``None`` when there is none.
    Records without interleaved speedups rank by their medians, as before."""
    pool = list(records)
    speeds = chain_speeds(pool)
    good = [r for r in pool if _good(r) and r.number in speeds]
    return max(good, key=lambda r: (speeds[r.number], -r.number)) if good else None
