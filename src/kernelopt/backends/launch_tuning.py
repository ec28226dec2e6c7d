"""Stage 3 of the rules backend: one tuning session of the launch configuration per version.

:func:`tune_launch` runs the tuning engine on the workspace (:mod:`kernelopt.tuning.folder`: the same
discovery, space and session as ``kernelopt tune``), on the launch the plan names (``Plan.launch``, as
``kernelopt tune --kernel`` names it: a kernel.py of several launches gets one session a launch).
Stage 1's evidence gives the session's seeds. The
session record lives in ``.kernelopt/tune/<key>/``: a loop resumed after a kill, and the next version's
session of the same kernel, serve what it measured. A session ends, with its best so far, in time for the gate
within the loop's wall-time limit (:func:`session_wall_cap`). The best configuration is written into kernel.py
through the tunables' checked literal edit when it beats the current one by the minimum gain.

Every candidate is returned as a :class:`~kernelopt.memory.model.CandidateResult` for
``memory/v<N>.json``; :data:`CANDIDATE_STATUS` is the one mapping of the engine's outcomes to the
record's statuses. A session that finds nothing better is ``no_gain``: the launch configuration has
converged (the loop stops and says so). The winner was checked on the full problem by the engine, so
Stage 3 does not check it again (``checked``); the gate checks it once.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from typing import Any

from kernelopt.actions import LAUNCH_CONFIGURATION
from kernelopt.backends.protocol import ImplementOutcome, StageContext
from kernelopt.backends.session_files import write_table
from kernelopt.backends.settings import RuleSettings
from kernelopt.digits import sig
from kernelopt.env import EnvSettings
from kernelopt.errors import UsageError
from kernelopt.fileio import replace_source
from kernelopt.memory.model import CandidateResult, CandidateStatus, GateResult, IterationRecord, version_label
from kernelopt.oneline import one_line
from kernelopt.report.session_csv import table_file
from kernelopt.tunables.launches import same_launch
from kernelopt.tuning.bench_worker import BenchPlan
from kernelopt.tuning.candidate import Config, Outcome, Result
from kernelopt.tuning.exclusion import Exclusion, region_of
from kernelopt.tuning.folder import (
    FolderTuning,
    NothingToTune,
    TuneRequest,
    best_edit,
    config_text,
    prepare_folder,
    table_unheld,
    tune_folder,
)
from kernelopt.tuning.kernel_evaluator import EvaluatorSettings
from kernelopt.tuning.session import (
    Progress,
    SessionResult,
    StopReason,
    changing_results_line,
    current_failed_line,
    untimed_current,
)

#: The tuning engine's outcome as the iteration record's candidate status (the one mapping; the record's
#: statuses are coarser, so the reason of a coarse one starts with the outcome's word).
CANDIDATE_STATUS: dict[Outcome, CandidateStatus] = {
    Outcome.OK: CandidateStatus.OK,
    Outcome.INVALID: CandidateStatus.REFUSED,
    Outcome.COMPILE_ERROR: CandidateStatus.COMPILE_FAILED,
    Outcome.COMPILE_TIMEOUT: CandidateStatus.TIMEOUT,
    Outcome.WRONG_RESULT: CandidateStatus.WRONG_RESULT,
    Outcome.RUN_ERROR: CandidateStatus.CRASHED,
    Outcome.RUN_TIMEOUT: CandidateStatus.TIMEOUT,
    Outcome.OUT_OF_MEMORY: CandidateStatus.CRASHED,
    Outcome.WORKER_CRASH: CandidateStatus.CRASHED,
    Outcome.NOT_RUN_BUDGET: CandidateStatus.NOT_TIMED,
}
CURRENT_EVIDENCE = "the current configuration (the yardstick)"
#: Seconds of the loop's time left kept for the gate and the record after a session.
GATE_RESERVE_S = 45.0
#: The shortest session the loop's time left cuts a session to, s.
MIN_SESSION_WALL_S = 30.0


def session_wall_cap(wall_left_s: float | None) -> float | None:
    """The session's wall ceiling from the loop's time left: what is left after the gate's reserve, but
    not under :data:`MIN_SESSION_WALL_S` (a version the loop started gets a session worth running)."""
    if wall_left_s is None:
        return None
    return max(MIN_SESSION_WALL_S, wall_left_s - GATE_RESERVE_S)


def tune_request(ctx: StageContext, settings: RuleSettings) -> TuneRequest:
    """The session of version ``ctx.version`` on the workspace, from the rules backend's settings."""
    ws = ctx.workspace
    primary = ctx.summary.primary() if ctx.summary is not None else None
    plan = BenchPlan(
        warmup_calls=min(3, settings.bench_repetitions),
        repetitions=settings.bench_repetitions,
        retime_rounds=max(1, settings.bench_repetitions // 2),
    )
    # the plan names the launch a kernel.py of several gets this session for, as `tune --kernel` names it
    launch = ctx.plan.launch if ctx.plan is not None else None
    return TuneRequest(
        folder=ws.root,
        device=settings.device,
        kernel=launch,
        profiled_kernel=primary.kernel_name if primary is not None else None,
        budget=settings.budget,
        budget_fraction=settings.budget_fraction,
        budget_wall_s=settings.budget_wall_s,
        wall_cap_s=session_wall_cap(ctx.wall_left_s),
        strategy=settings.strategy,
        rng_seed=settings.seed,
        out=ws.state_dir / "tune",
        gpu=settings.gpu,
        dtype=settings.dtype,
        size_scale=settings.size_scale if settings.size_scale is not None else EnvSettings.read().size_scale,
        check_resources=settings.check_resources,
        evaluator=EvaluatorSettings(plan=plan, bench_timeout_s=settings.bench_timeout_s),
        min_gain_pct=settings.min_gain_pct,
        exclude=rejected_winners(ctx.history, launch),
        written_latency_us=written_latency(ctx.history),
    )


def written_latency(records: list[IterationRecord]) -> dict[str, float]:
    """The gate's latency of the kernel.py being tuned by ``SHAPES`` label: the newest version that passed the gate
    (its kernel.py is the workspace's; a faster one that failed was reset), the cut's first best (so the session's
    first candidate, when far slower than the kernel as written, is cut too)."""
    good = [r for r in records if r.quality_gate.result is GateResult.PASS and r.performance.latency_us_by_shape]
    return dict(max(good, key=lambda r: r.number).performance.latency_us_by_shape) if good else {}


def rejected_winners(records: list[IterationRecord], launch: str | None = None) -> list[Exclusion]:
    """The regions of the winners earlier versions' gates rejected (issue 32, item 4): each version whose
    tuning session wrote a configuration (its ``chosen`` candidate, not the ``current`` one) that failed the
    gate excludes that configuration's region (:func:`~kernelopt.tuning.exclusion.region_of`) from the next
    sessions, with the gate's reason. With ``launch`` (the plan's identity), only the sessions of that launch (a
    record that names none is counted; one that names an older label, with a line, is matched by its kernel and
    ordinal): another launch's knobs are not this one's."""
    out: list[Exclusion] = []
    for r in records:
        if r.masked or r.quality_gate.result not in (GateResult.FAIL, GateResult.TIMEOUT_FAIL):
            continue
        if launch is not None and r.optimization.launch is not None and not same_launch(r.optimization.launch, launch):
            continue
        chosen = next((c for c in r.candidates if c.chosen and not c.current), None)
        if chosen is None:
            continue
        before = next((c.parameters for c in r.candidates if c.current), None)
        why = one_line(r.quality_gate.failure_reason or r.quality_gate.result.value, 160)
        region = region_of(chosen.parameters, before)
        out.append(Exclusion(region=region, reason=f"{r.version}'s gate rejected {config_text(region)}: {why}"))
    return out


def tune_launch(ctx: StageContext, settings: RuleSettings) -> ImplementOutcome:
    """Run the session of ``ctx.version`` and apply its best configuration (see the module docstring).

    Raises:
        ProblemDoesNotFit, ProblemError, WorkerStartError: the problem cannot be measured (before any
            candidate runs); the stage records the one line.
        KeyboardInterrupt: the session was interrupted (SIGINT, SIGTERM, SIGHUP): the loop's own interrupt (the
            stage is rolled back and the run stays resumable), nothing written.
    """
    try:
        prepared = prepare_folder(tune_request(ctx, settings))
    except NothingToTune as exc:  # every configuration left runs as kernel.py does: converged, not a failure
        return ImplementOutcome(changed=False, error=f"the tuning session kept nothing: {exc.one_line()}", no_gain=True)
    except UsageError as exc:
        return ImplementOutcome(changed=False, error=f"{LAUNCH_CONFIGURATION.value}: {exc.one_line()}")
    evidence = ctx.summary.primary() if ctx.summary is not None else None
    tuning = tune_folder(prepared, evidence=evidence, on_progress=_reporter(ctx))
    if tuning.result.stop is StopReason.INTERRUPTED:
        # a Ctrl-C (SIGTERM, SIGHUP) in the session is the loop's interrupt, not a session that found nothing: it
        # was recorded as a failed version ("no candidate ran"; its best so far, never re-timed, could be written)
        # and the next run planned no session again (second fault trial, t5). The record keeps what was measured.
        raise KeyboardInterrupt
    _table(tuning, version_label(ctx.version), ctx.note)
    return apply_best(tuning)


def _table(tuning: FolderTuning, version: str, note: Callable[[str], None] | None) -> None:
    """The session's table, as ``kernelopt tune`` writes it (claims21 w7: the loop's sessions left ``record.jsonl``
    alone), named for the version (``candidates_v2.csv``: late26 z41, V2's session in V1's folder rewrote the
    ``candidates.csv`` V1's line named) and said in a note; a table the disk refuses is said, and the version goes
    on (the record holds every candidate)."""
    try:
        path = write_table(tuning, version=version)
    except OSError as exc:
        if note is not None:
            note(f"tuning: the session's {table_file(version)} was not written: {exc}")
        return
    if note is not None:
        note(f"tuning: the session's candidates as a table: {path}")


PROGRESS_EVERY_S = 15.0
"""Our choice: a tuning session in the loop says where it is at most this often (a session runs minutes)."""


def _reporter(ctx: StageContext) -> Callable[[Progress], None] | None:
    """A session's progress as a line to ``ctx.note`` (candidates of the budget, the best so far), at most every
    :data:`PROGRESS_EVERY_S` seconds; ``None`` when nobody listens."""
    note = ctx.note
    if note is None:
        return None
    last = [time.monotonic()]

    def report(p: Progress) -> None:
        now = time.monotonic()
        if now - last[0] < PROGRESS_EVERY_S:
            return
        last[0] = now
        note(f"tuning: {p.line()}")

    return report


def apply_best(tuning: FolderTuning) -> ImplementOutcome:
    """Write the session's best into kernel.py when it beats the current configuration; every candidate
    recorded."""
    r, judgement = tuning.result, tuning.judgement
    launch = tuning.prepared.space.launch
    counted = f"{r.evaluations} candidate(s) evaluated, {r.served} from the record, of a space of {r.space_size}"
    if r.screened:  # refused by the edit layer (never writable) or excluded: set aside untimed, no budget spent
        counted += f"; {r.screened} set aside untimed"
    if r.unretimed:  # the wall time left no room to re-time the top few: the pick is the ranking's
        counted += f"; {r.unretimed}"
    if r.best_config is None:
        failed = current_failed_line(r, tuning.prepared.problem.kernel_py.name)
        slow = _written_past_its_limit(r, tuning.prepared.problem.kernel_py.name)
        return ImplementOutcome(
            changed=False,
            error=f"{LAUNCH_CONFIGURATION.value}: {failed} ({counted})"
            if failed is not None
            else f"{LAUNCH_CONFIGURATION.value}: no candidate of {launch} was correct and timed ({counted}): "
            f"{slow + '; ' if slow else ''}{_failures(r.results)}",
            candidates=candidate_results(r, applied=None),
            limit_short=failed is None and slow is not None,
        )
    edit = best_edit(tuning) if judgement.better else None
    if edit is None:
        changing = changing_results_line(r) if not judgement.better else None
        why = f"; {changing}" if changing is not None else "; kernel.py left unchanged"
        return ImplementOutcome(
            changed=False,
            error=f"the tuning session of {launch} kept nothing: {judgement.reason}; best "
            f"{config_text(r.best_config)}; {counted}{why}",
            candidates=candidate_results(r, applied=r.current_config),
            # a session too noisy to rank, whose pick could not be written as checked, or whose current
            # configuration was never timed (the machine's, maybe) did not converge
            no_gain=r.noisy is None
            and untimed_current(r) is None
            and not (tuning.edit_made and tuning.edit is None and tuning.edit_note),
            noisy=r.noisy is not None,
        )
    # only over the bytes the session read: a save made meanwhile (the user's, in the workspace) was written over and
    # lost, in silence (fault trial faults7, f9); SourceChanged stops the run, the save kept (the loop's park)
    replace_source(tuning.prepared.source, edit.new_source)
    vs = f" vs current {sig(r.current_latency_us)} us" if r.current_latency_us is not None else ""
    shaped = [x for x in (tuning.choice.reason if tuning.per_shape and tuning.choice else None, tuning.edit_note) if x]
    vs += "".join(f"; {x}" for x in shaped)  # across shapes: one configuration or a table, and how it was written
    unchecked = tuning.net.unchecked_line() if tuning.net is not None and tuning.net.failed is None else None
    vs += f"; {unchecked}" if unchecked else ""  # said as tune says it (gpufind19's g3; break19's b28: not here)
    # a table no text can hold is written as one configuration (judged as itself): recorded as that, not as the
    # table's rows (breaker16: Inductor's body-bound GROUP_M recorded 'per-bucket table ... above them the original
    # computation' beside one GROUP_M=32 for every size)
    written_as_table = table_unheld(tuning) is None
    table = tuning.choice.table if judgement.table and tuning.choice is not None and written_as_table else {}
    return ImplementOutcome(
        changed=True,
        description=f"{LAUNCH_CONFIGURATION.value}: tuned {launch}: {counted}; fastest correct "
        f"{config_text(r.best_config)} ({sig(r.best_latency_us)} us{vs})",
        knob_changes=table_changes(dict(edit.knob_changes), table, judgement.reason),
        knob_overrides=dict(edit.knob_overrides),
        # a table written over the current configuration's computation did not keep the current one: it is
        # not marked chosen (a literal best stays chosen: a gate that rejects the table excludes its region)
        candidates=candidate_results(r, applied=None if table and r.best_config == r.current_config else r.best_config),
        checked=True,
    )


def table_changes(
    changes: dict[str, tuple[Any, Any]], table: Mapping[str, Mapping[str, Any]], why: str
) -> dict[str, tuple[Any, Any]]:
    """The knob changes as the record, the commit and the report say them: a knob written as a per-bucket table
    (``table``: shape label -> its configuration) is that table and why it was kept, not the last row's value
    (rownorm, 2026-12-05: a table of 64, 128 and 256 by column count was recorded as ``BLOCK 64 -> 256``, the
    current computation marked chosen)."""
    out = dict(changes)
    for knob, (before, _after) in changes.items():
        rows = [f"{label}: {config[knob]}" for label, config in table.items() if knob in config]
        if rows:
            out[knob] = (before, f"per-bucket table ({'; '.join(rows)}; above them the original computation): {why}")
    return out


def candidate_results(result: SessionResult, *, applied: dict | None) -> list[CandidateResult]:
    """Every candidate of the session as the record's entries, in the order evaluated.

    The configurations re-timed at the end carry their re-timed latency (the session's verdict); ``applied``
    (the configuration kernel.py ends with) is ``chosen``, the current configuration ``current``.
    """
    retimed = {Config.of(r.config): r.latency_us for r in result.retimed if r.outcome is Outcome.OK}
    retimed_by_shape = {
        Config.of(r.config): r.latency_us_by_shape
        for r in result.retimed
        if r.outcome is Outcome.OK and r.latency_us_by_shape
    }
    current = Config.of(result.current_config) if result.current_config is not None else None
    chosen = Config.of(applied) if applied is not None else None
    out = []
    for r in result.results:
        config = Config.of(r.config)
        status = CANDIDATE_STATUS[r.outcome]
        reason = r.reason
        if reason is not None and status.value != r.outcome.value:
            reason = f"{r.outcome.value}: {reason}"
        out.append(
            CandidateResult(
                parameters=dict(r.config),
                status=status,
                latency_us=retimed.get(config, r.latency_us) if r.outcome is Outcome.OK else None,
                reason=reason,
                chosen=config == chosen,
                current=config == current,
                evidence=CURRENT_EVIDENCE if config == current else None,
                served=r.recorded,
                latency_us_by_shape=dict(retimed_by_shape.get(config, r.latency_us_by_shape) or {})
                if r.outcome is Outcome.OK
                else {},
                cut=r.cut_slow and config not in retimed,
            )
        )
    return out


def _written_past_its_limit(result: SessionResult, kernel_py: str) -> str | None:
    """The line of a session where the kernel as written (the current configuration, which its gate timed) ran past a
    candidate's limit too: the limit is short for the machine's pace, no verdict on any candidate (breaker29's q96:
    ln_bwd's optimize under a load of 14 on two cores, every candidate "no reply within 60 s", the current among
    them, read as an action that failed); ``None`` for any other session."""
    if result.current_config is None:
        return None
    current = Config.of(result.current_config)
    ran = [x for x in result.results if Config.of(x.config) == current]
    if not ran or any(x.outcome.ok for x in ran) or ran[0].outcome is not Outcome.RUN_TIMEOUT:
        return None
    return (
        f"{kernel_py} as written ran past the limit too ({one_line(ran[0].reason or 'run_timeout', 120)}): the limit "
        "is short for this machine's pace (a loaded machine?), not a verdict on the candidates; run again, or give "
        "each candidate more time (optimize -I bench_timeout_s=SECONDS, tune --candidate-timeout-s)"
    )


def _failures(results: list[Result]) -> str:
    out = [
        f"{config_text(r.config)}: {r.outcome.value}" + (f" ({one_line(r.reason, 80)})" if r.reason else "")
        for r in results
    ]
    return "; ".join(out[:6]) + ("; ..." if len(out) > 6 else "") if out else "no candidate ran"
