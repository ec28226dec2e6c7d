"""The final summary of a run: the spec's per-version summary plus why the loop stopped."""

from __future__ import annotations

from pydantic import BaseModel, Field

from kernelopt.loop.commits import change_summary
from kernelopt.loop.journal import RunState, RunStatus, VersionOutcome
from kernelopt.loop.stop import RooflineBounds, StopDecision
from kernelopt.memory.model import (
    IterationRecord,
    ReferenceSpeedup,
    best_version,
    speedup_over_v0,
    unlinked_versions,
)
from kernelopt.workspace import version_commit


class VersionRow(BaseModel):
    """One version of the workspace (all runs), as recorded in memory/v<N>.json.

    ``commit`` is the version's commit as plain ``git log`` shows it (the amended one);
    ``git_commit_hash`` is the record's field, the pre-amend commit (``refs/kernelopt/v<N>``).
    """

    version: str
    masked: bool
    result: str | None
    latency_us: float | None
    tflops: float | None
    bandwidth_gbps: float | None
    roofline_utilization_pct: float | None
    roofline_measured_pct: float | None = None
    roofline_spec_pct: float | None = None
    speedup_vs_reference: float | None = None
    speedup_vs_compiled: float | None = None
    action_category: str | None
    action: str | None
    failure_reason: str | None
    git_commit_hash: str | None
    commit: str | None = None
    culprit: str | None = None  # whose code failed the gate: "kernel", or "problem" (reference.py itself)
    candidates_timed: int = 0
    candidates_evaluated: int = 0
    converged: bool = False  # recorded FAIL, but its tuning session kept nothing: no kernel failed

    @property
    def said(self) -> str:
        """The gate cell: ``converged`` for a session that kept nothing, else the record's gate (``-`` for none)."""
        return "converged" if self.converged else self.result or "-"

    @classmethod
    def of(
        cls, r: IterationRecord, roofline: RooflineBounds | None = None, log: list[tuple[str, str]] | None = None
    ) -> VersionRow:
        p = r.performance
        found = version_commit(r.number, r.git_commit_hash, log or [])
        return cls(
            commit=found[0] if found else None,
            roofline_measured_pct=roofline.measured_pct if roofline else None,
            roofline_spec_pct=roofline.spec_pct if roofline else None,
            version=r.version,
            masked=r.masked,
            result=r.quality_gate.result.value if r.quality_gate.result else None,
            latency_us=p.latency_us,
            tflops=p.tflops,
            bandwidth_gbps=p.bandwidth_gbps,
            roofline_utilization_pct=p.roofline_utilization_pct,
            speedup_vs_reference=p.speedup_vs_reference.eager if p.speedup_vs_reference else None,
            speedup_vs_compiled=p.speedup_vs_reference.compiled if p.speedup_vs_reference else None,
            action_category=r.optimization.action_category.value if r.optimization.action_category else None,
            action=change_summary(
                r.optimization.action_category.value,
                {},
                r.optimization.knob_changes,
                r.optimization.action_description,
                r.optimization.knob_overrides,
            )
            if r.optimization.action_category is not None and r.optimization.action_description is not None
            else r.optimization.action_description,
            failure_reason=r.quality_gate.failure_reason,
            culprit=r.quality_gate.culprit,
            git_commit_hash=r.git_commit_hash,
            candidates_timed=r.candidates_timed,
            candidates_evaluated=len(r.candidates),
            converged=r.converged,
        )


class LoopSummary(BaseModel):
    """What ``kernelopt optimize`` prints at the end (and emits with ``--json``).

    Attributes:
        workspace: the workspace folder.
        status: ``finished`` (a stop condition held) or ``running`` (interrupted; resumable).
        stop: the stop reason and its evidence.
        baseline_latency_us: V0 latency, microseconds.
        best_version: the fastest passing version (V0 when nothing improved).
        best_latency_us: its latency, microseconds.
        speedup_vs_baseline: the best version over V0 by the chain of side-by-side verdicts
            (:func:`~kernelopt.memory.model.speedup_over_v0`), never V0's median over the best's (two gate runs).
        unlinked: what the chain lacks to link a version to the one its gate ran beside, one line a version (records
            written before the gate kept it: :func:`~kernelopt.memory.model.unlinked_versions`).
        best_roofline: both roofline bounds of the best version.
        speedup_vs_reference: the best version against the reference (eager), timed beside it by the gate.
        speedup_vs_compiled: the best version against ``torch.compile(reference)``, when it was timed.
        reference_speedup: the best version's whole comparison with the reference (its 95 % intervals, verdicts and
            why a figure was withheld), for the headline's interval.
        iterations: iterations V1.. run in this run (passed, converged and failed).
        failures: failed iterations in this run (a version whose tuning session kept nothing converged: not one).
        converged: iterations of this run whose tuning session kept nothing.
        elapsed_s: wall time of this run, seconds (resumed sessions included).
        timing_only: some Stage 1 evidence of this run had no hardware counters.
        stage_seconds: wall time per stage over the run (stage name -> seconds).
        profiles_taken: Stage 1 profiler calls of the run.
        this_run: the versions finished in this run.
        versions: every version of the workspace (the spec's memory summary).
        git_log: ``<hash> <subject>`` of the workspace, newest first.
        candidates_timed: candidate configurations Stage 3 compiled, checked and timed (every version of
            the workspace, the current configurations used as yardsticks included).
        candidates_evaluated: candidates Stage 3 evaluated, failed ones (refused, wrong, crashed, hung) too.
    """

    workspace: str
    status: RunStatus
    stop: StopDecision | None
    baseline_latency_us: float | None
    best_version: str | None
    best_latency_us: float | None
    speedup_vs_baseline: float | None
    unlinked: list[str] = Field(default_factory=list)
    best_roofline: RooflineBounds | None
    iterations: int
    failures: int
    converged: int = 0
    elapsed_s: float
    timing_only: bool
    stage_seconds: dict[str, float] = Field(default_factory=dict)
    profiles_taken: int = 0
    this_run: list[VersionOutcome] = Field(default_factory=list)
    versions: list[VersionRow] = Field(default_factory=list)
    git_log: list[str] = Field(default_factory=list)
    candidates_timed: int = 0
    candidates_evaluated: int = 0
    speedup_vs_reference: float | None = None
    speedup_vs_compiled: float | None = None
    reference_speedup: ReferenceSpeedup | None = None


def build_summary(
    *,
    workspace: str,
    state: RunState,
    records: list[IterationRecord],
    best_roofline: RooflineBounds | None,
    git_log: list[str],
    bounds: dict[str, RooflineBounds] | None = None,
) -> LoopSummary:
    """Assemble the summary from the run state and every record (masked ones listed, never best)."""
    pairs = [(h, subject) for h, _, subject in (line.partition(" ") for line in git_log)]
    best = best_version(records)
    vs_ref = best.performance.speedup_vs_reference if best is not None else None
    v0 = next((r for r in records if r.number == 0), None)
    base_lat = v0.performance.latency_us if v0 is not None else None
    best_lat = best.performance.latency_us if best is not None else None
    return LoopSummary(
        workspace=workspace,
        status=state.status,
        stop=state.stop,
        baseline_latency_us=base_lat,
        best_version=best.version if best is not None else None,
        best_latency_us=best_lat,
        speedup_vs_baseline=speedup_over_v0(records, best.number) if best is not None else None,
        unlinked=unlinked_versions(records),
        best_roofline=best_roofline,
        iterations=state.iterations_done,
        failures=state.failures,
        converged=sum(1 for o in state.outcomes if o.converged and o.version > 0),
        elapsed_s=state.elapsed_s,
        timing_only=state.timing_only,
        stage_seconds=dict(state.stage_seconds),
        profiles_taken=state.profiles_taken,
        this_run=list(state.outcomes),
        versions=[VersionRow.of(r, (bounds or {}).get(r.version), pairs) for r in records],
        git_log=git_log,
        candidates_timed=sum(r.candidates_timed for r in records),
        candidates_evaluated=sum(len(r.candidates) for r in records),
        speedup_vs_reference=vs_ref.eager if vs_ref is not None else None,
        speedup_vs_compiled=vs_ref.compiled if vs_ref is not None else None,
        reference_speedup=vs_ref,
    )
