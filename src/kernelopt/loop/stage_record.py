"""Stage 5 of the loop: finalize ``memory/v<N>.json``, commit (``V<N>: ...`` or a revert marker), amend
the record with the commit's hash, and keep the version's outcome in the journal.

Idempotent: the stage inspects HEAD (:meth:`LoopRun.committed`) to see whether the commit and the amend
happened, so a resumed record stage finishes what an interrupted one began and never commits twice.
"""

from __future__ import annotations

import shutil
from pathlib import Path

from kernelopt.digits import sig
from kernelopt.errors import RecordError, WorkspaceError
from kernelopt.evidence.model import ProfileSummary
from kernelopt.fileio import atomic_write_text
from kernelopt.jsontext import load_json
from kernelopt.loop import candidate, commits, ending
from kernelopt.loop.journal import IterationState, VersionOutcome
from kernelopt.loop.protocols import EventKind, Stage
from kernelopt.loop.record import finalize_record
from kernelopt.loop.run import LoopRun
from kernelopt.memory.model import GateResult, IterationRecord, speedup_over_v0, version_label
from kernelopt.redact import redact

VERSION_REF = "refs/kernelopt/v{n}"
"""Keeps the pre-amend commit named in each record's ``git_commit_hash`` reachable (git gc never drops it)."""


def record_stage(run: LoopRun, it: IterationState) -> None:
    """Record version ``it.version`` (its failure, the baseline, or a passing version) and commit it."""
    run.emit(EventKind.STAGE_START, f"V{it.version}: record")
    run.save()
    n = it.version
    summary = run.summary_of(n)
    if it.failure is not None:
        result, reason = it.failure.result, it.failure.reason
        commit = _record_failure(run, it)
    elif n == 0:
        result, reason = GateResult.PASS, None
        commit = _record_baseline(run, it, summary)
    else:
        result, reason = GateResult.PASS, None
        commit = _record_pass(run, it, summary)
    final = run.ws.memory.read(n)
    _keep_outcome(run, it, final, result=result, reason=reason, commit=commit, summary=summary)
    shutil.rmtree(run.journal.candidate_dir(n), ignore_errors=True)
    run.refresh_best()
    lat = final.performance.latency_us
    said = it.failure.said if it.failure is not None else result.value
    run.emit(
        EventKind.ITERATION_END,
        f"V{n} {said}"
        + (f": {sig(lat)} us" if lat is not None and result is GateResult.PASS else "")
        + (f" ({reason})" if reason else ""),
    )
    run.advance(it, Stage.STOP)


def _record_failure(run: LoopRun, it: IterationState) -> str:
    """kernel.py back to the last good version; the failed record and a revert marker committed."""
    assert it.failure is not None
    n = it.version
    if not run.committed(it):
        candidate.restore_good_kernel(run.ws, it)
        run.ws.memory.write(_finalize(run, it, result=it.failure.result, failure_reason=it.failure.reason))
    paths = [f"memory/v{n}.json"] + ([f"plans/v{n}_plan.md"] if run.ws.plan_path(n).is_file() else [])
    paths += ending.profile_paths(run.ws, n)
    said = commits.revert_message(n, it.failure.reason) + "\n\n" + commits.revert_body(it.failure.reason, n)
    return _commit(run, it, paths, it.commit_message or said)


def _record_baseline(run: LoopRun, it: IterationState, summary: ProfileSummary | None) -> str:
    """V0's record, ``baseline_report.md`` and the baseline commit."""
    if not run.committed(it):
        record = _finalize(run, it, result=GateResult.PASS, failure_reason=None)
        run.ws.memory.write(record)
        text = run.renderer.render(
            workspace=run.ws, record=record, summary=summary, roofline_lines=run.roofline(record).lines()
        )
        atomic_write_text(run.ws.baseline_report, text)
        it.commit_message = commits.baseline_message(record.performance, commits.bottleneck_evidence(summary))
    paths = ["memory/v0.json", "baseline_report.md", *ending.profile_paths(run.ws, 0)]
    return _commit(run, it, paths, it.commit_message or "V0: baseline")


def _record_pass(run: LoopRun, it: IterationState, summary: ProfileSummary | None) -> str:
    """The kept candidate back in place, its record, and the ``V<N>: ...`` commit."""
    n = it.version
    plan = run.plan_of(n)
    if not run.committed(it):
        if not candidate.restore(run.ws, run.journal.candidate_dir(n), it) and it.candidate:
            raise WorkspaceError(f"V{n}: the implemented kernel.py was lost before its commit")
        record = _finalize(run, it, result=GateResult.PASS, failure_reason=None)
        run.ws.memory.write(record)
        knobs = it.implement.knob_changes if it.implement else {}
        if plan is not None:
            overrides = it.implement.knob_overrides if it.implement else {}
            what = commits.change_summary(plan.action_category.value, plan.parameters, knobs, plan.action, overrides)
        else:
            what = it.implement.description if it.implement else "change"
        it.commit_message = (
            commits.pass_message(
                n,
                record.performance,
                what,
                commits.bottleneck_evidence(summary, plan.action_category if plan is not None else None),
            )
            + "\n\n"
            + commits.pass_body(
                record,
                previous=it.good_version,
                over_v0=speedup_over_v0(run.records(), n),
                why=plan.evidence[0] if plan is not None and plan.evidence else None,
                plan=f"plans/v{n}_plan.md",
            )
        )
    paths = [
        "kernel.py",
        *sorted(set(it.candidate) - {"kernel.py"}),
        f"memory/v{n}.json",
        f"plans/v{n}_plan.md",
        *ending.profile_paths(run.ws, n),
    ]
    return _commit(run, it, paths, it.commit_message or f"V{n}")


def _finalize(run: LoopRun, it: IterationState, *, result: GateResult, failure_reason: str | None) -> IterationRecord:
    """The record as the gate wrote it (or a fresh one), completed by :func:`finalize_record`."""
    n = it.version
    try:
        record = run.ws.memory.read(n) if run.ws.memory.exists(n) else IterationRecord(version=version_label(n))
    except RecordError:
        record = IterationRecord(version=version_label(n))
    lines = (
        run.roofline(record).lines() if result is GateResult.PASS and record.performance.latency_us is not None else []
    )
    return finalize_record(
        record,
        it=it,
        plan=run.plan_of(n),
        summary=run.summary_of(n),
        result=result,
        failure_reason=failure_reason,
        roofline_lines=lines,
    )


def _commit(run: LoopRun, it: IterationState, paths: list[str], message: str) -> str:
    """Commit, write the commit's hash into the record, amend (resumable at every step)."""
    n = it.version
    message = redact(message)  # as the commit message file holds it (kernelopt.fileio)
    fresh = not run.committed(it)
    if it.failure is None:  # a version's kernel.py that is the user's link: git commits only where it points
        run.ws.keep_kernel_bytes(n)
    if fresh:
        it.commit_message = message
        run.save()
        run.ws.commit(list[str | Path](paths), message)
    rel = f"memory/v{n}.json"
    in_head = load_json(IterationRecord, run.ws.file_at("HEAD", rel))
    if in_head.git_commit_hash is None:
        first = run.ws.head()
        record = run.ws.memory.read(n)
        record.git_commit_hash = first
        run.ws.memory.write(record)
        run.ws.repo.git.update_ref(VERSION_REF.format(n=n), first)
        run.ws.amend([rel])
    if fresh:  # the hash that git log shows (after the amend)
        run.emit(EventKind.COMMITTED, f"V{n}: committed {run.ws.head()[:12]}")
    return run.ws.head()


def _keep_outcome(
    run: LoopRun,
    it: IterationState,
    final: IterationRecord,
    *,
    result: GateResult,
    reason: str | None,
    commit: str,
    summary: ProfileSummary | None,
) -> None:
    """The version's outcome in the journal (for the summary) and the run's iteration counts."""
    n = it.version
    run.state.outcomes = [o for o in run.state.outcomes if o.version != n]
    run.state.outcomes.append(
        VersionOutcome(
            version=n,
            result=result,
            latency_us=final.performance.latency_us,
            tflops=final.performance.tflops,
            bandwidth_gbps=final.performance.bandwidth_gbps,
            roofline=run.roofline(final) if result is GateResult.PASS else None,
            action=final.optimization.action_description,
            failure_reason=reason,
            commit=commit,
            timing_only=summary is not None and not summary.counters_available,
            converged=it.failure is not None and it.failure.converged,
        )
    )
    if n == 0:
        return
    run.state.iterations_done += 1
    if result is GateResult.PASS:
        run.state.consecutive_failures = 0
        return
    # a tuning session that found the current configuration fastest is a measurement, not a failure
    # streak: the planner turns it into a waiting category (and convergence); the summary says it converged
    if it.failure is not None and it.failure.converged:
        return
    run.state.consecutive_failures += 1
    run.state.failures += 1
