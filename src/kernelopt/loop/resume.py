"""What an interruption leaves, made safe: parking the in-flight stage, and preparing its resume.

After Ctrl-C or an error the in-flight stage is rolled back at once (:func:`park`: ``kernel.py`` back to
the last good version, an uncommitted record masked); after ``kill -9`` the next run does it before
running the stage again under the same version number (:func:`prepare_resume`), saving first any
kernel.py edit the loop did not make.
"""

from __future__ import annotations

import shutil

from kernelopt.errors import RecordError
from kernelopt.loop import candidate
from kernelopt.loop.journal import IterationState
from kernelopt.loop.protocols import EventKind, Stage
from kernelopt.loop.run import LoopRun
from kernelopt.loop.stage_implement import write_stage3_record
from kernelopt.stages import guard


def prepare_resume(run: LoopRun, it: IterationState) -> None:
    """Make the interrupted stage safe to run again (after Ctrl-C, a crash or kill -9)."""
    _keep_user_edits(run, it)
    if run.accept_card_edit() and it.snapshot:
        # the user edited the task card while the run was stopped: theirs, not the stage's
        it.snapshot["README.md"] = guard.snapshot(run.ws.root).get("README.md", "")
    if it.stage in (Stage.RECORD, Stage.STOP):
        return  # idempotent: the record stage reads git to see what is done
    undone = candidate.rollback(run.ws, it)
    if undone:
        run.emit(EventKind.NOTE, f"rolled back the interrupted {it.stage.value} stage: {guard.describe(undone)}")
    if run.ws.head() != it.base_commit:
        _abandon(run, it)
        return
    if it.stage is Stage.GATE and not candidate.restore(run.ws, run.journal.candidate_dir(it.version), it):
        run.emit(EventKind.WARNING, f"V{it.version}: the implemented kernel was lost; implementing again")
        candidate.restore_good_kernel(run.ws, it)
        it.stage = Stage.IMPLEMENT
    elif it.stage is Stage.IMPLEMENT:
        candidate.restore_good_kernel(run.ws, it)
    it.snapshot = {}


def park(run: LoopRun) -> None:
    """On Ctrl-C or an error: roll back the in-flight stage and leave kernel.py at the last good version."""
    it = run.state.current
    if it is not None and it.stage not in (Stage.RECORD, Stage.STOP):
        for change in candidate.rollback(run.ws, it):
            if change.kept is not None:  # a save of the user's meanwhile among them: never lost, and said (f9)
                run.emit(
                    EventKind.WARNING,
                    f"V{it.version}: {change.path} was put back as the {it.stage.value} stage found it; what it held "
                    f"is kept in {change.kept}",
                )
        if it.stage is Stage.GATE:
            # The gate may have half-written the (untracked) record: put back the Stage 3 record,
            # which the resumed gate rewrites anyway.
            plan = run.plan_of(it.version)
            if plan is not None:
                write_stage3_record(run, it, plan)
        if it.stage in (Stage.IMPLEMENT, Stage.GATE):
            candidate.restore_good_kernel(run.ws, it)
        _mask_in_flight_record(run, it)
        it.snapshot = {}
    elif it is not None and it.stage is Stage.RECORD and it.version > 0 and not run.committed(it):
        candidate.restore_good_kernel(run.ws, it)  # the candidate waits in .kernelopt/candidates/ for the resume
    run.state.parked = True
    run.save()


def _abandon(run: LoopRun, it: IterationState) -> None:
    """HEAD moved while the run was stopped: the iteration is dropped, with its uncommitted record."""
    run.emit(
        EventKind.WARNING,
        f"HEAD moved since V{it.version} started ({it.base_commit[:12]} -> {run.ws.head()[:12]}); "
        "abandoning that iteration",
    )
    record = run.ws.memory.path(it.version)
    if record.is_file() and not run.tracked(record):
        record.unlink()  # an uncommitted record of the abandoned iteration is not history
    run.state.current = None


def _keep_user_edits(run: LoopRun, it: IterationState) -> None:
    """Before a resume restores kernel.py, save edits the loop did not make (never lose someone's work).

    kernel.py is the loop's own when it equals HEAD or the kept Stage 3 candidate; anything else was
    written after the interruption (or by a crashed implementer) and is copied to
    ``.kernelopt/backups/`` with a warning before the resume touches it.
    """
    ws = run.ws
    if ws.is_clean(paths=["kernel.py"]) or not ws.kernel_py.is_file():
        return
    digest = candidate.sha256(ws.kernel_py)
    if digest in set(it.candidate.values()):
        return
    backups = ws.state_dir / "backups"
    backups.mkdir(parents=True, exist_ok=True)
    target = backups / f"kernel.py.v{it.version}.{int(run.clock() * 1000)}"
    shutil.copyfile(ws.kernel_py, target)
    run.emit(EventKind.WARNING, f"kernel.py had changes the loop did not make; saved them to {target} before resuming")


def _mask_in_flight_record(run: LoopRun, it: IterationState) -> None:
    """Mask the uncommitted record of an interrupted iteration: it is not history until the iteration
    is resumed and recorded (readers of unmasked memory, planners included, must not take it as data)."""
    path = run.ws.memory.path(it.version)
    if not path.is_file() or run.tracked(path):
        return
    try:
        run.ws.memory.set_masked(it.version, True)
    except RecordError:
        path.unlink(missing_ok=True)  # unreadable and uncommitted: nothing worth keeping
