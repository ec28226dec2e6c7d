"""One problem in its own ``kernelopt validate`` / ``kernelopt optimize`` process with a time limit.

The path every ``--optimize`` batch and every Ray task takes, and ``--cold`` validation: the process
starts Python, imports kernelopt, and its gate starts fresh harness workers (torch imported, CUDA started
each time). With ``--optimize`` that process runs the whole loop, whose Stage 3 (the rules backend) runs
the tuning engine's sessions with their own compile pool and bench worker; the row is then read from the
workspace (:func:`~kernelopt.batch.rows.optimize_row`: the best version, what the loop changed, why it
stopped). A problem that fails, crashes or hangs becomes a row and never stops the batch.
"""

from __future__ import annotations

import json
import time
from collections.abc import Mapping
from contextlib import ExitStack
from datetime import UTC, datetime

from pydantic import ValidationError

from kernelopt.batch.model import BatchMode, ProblemRow, ProblemStatus
from kernelopt.batch.problems import BatchItem
from kernelopt.batch.rows import BatchOptions, child_argv, item_row, optimize_row, problem_env, validate_row
from kernelopt.batch.work import killed_in, phase_seconds, work_seconds
from kernelopt.env import inherited
from kernelopt.errors import KerneloptError, RecordError
from kernelopt.fileio import atomic_write_text
from kernelopt.harness.gate import GateReport
from kernelopt.loop.opening import open_or_create, run_locks, target_of
from kernelopt.oneline import one_line
from kernelopt.proc import run_command
from kernelopt.workspace import RunLock


def last_line(text: str) -> str:
    lines = [line for line in text.strip().splitlines() if line.strip()]
    return one_line(lines[-1], 300) if lines else ""


def run_problem(item: BatchItem, options: BatchOptions, *, env: Mapping[str, str] | None = None) -> ProblemRow:
    """Run one item in its own ``kernelopt`` process and return its row; every way it can go wrong
    becomes the row's status.

    Args:
        item: the item (an item with a defect is its ``INVALID`` row at once).
        options: the batch's options.
        env: the environment the child starts from (default: this process's).
    """
    row = item_row(item)
    if item.defect is not None:
        return row
    start, since = time.monotonic(), datetime.now(UTC)
    with ExitStack() as kept:
        try:  # under the workspace's lock and, shared, the problem folder's, as optimize DIR opens it (z73)
            target = target_of(item.folder, name=item.workspace_name, root=options.workspace_root)
            with run_locks(item.folder, target, command="batch"):
                ws = open_or_create(item.folder, name=item.workspace_name, root=options.workspace_root).workspace
                # the workspace's lock, kept past the opening and handed to the child: no tune WS between (d34)
                lock = kept.enter_context(RunLock(target, command="batch"))
        except KerneloptError as exc:
            return row.model_copy(update={"reason": exc.one_line()})
        row = row.model_copy(update={"workspace": str(ws.root)})
        handed, fd = lock.handed_to_child()
        result = run_command(
            child_argv(ws, options),
            timeout_s=options.problem_timeout_s,
            env={**problem_env(env or inherited(), options), **handed},
            pass_fds=(fd,),
        )
    logs = options.out_dir / "logs"
    logs.mkdir(parents=True, exist_ok=True)
    atomic_write_text(logs / f"{item.folder.name}.out", result.stdout)
    atomic_write_text(logs / f"{item.folder.name}.err", result.stderr)
    end = time.monotonic()
    killed_at = end if result.timed_out else None  # a phase the kill cut short is work up to the kill
    row = row.model_copy(
        update={
            "duration_s": round(end - start, 3),
            "work_s": work_seconds(ws.state_dir, since, killed_at=killed_at),
            "phases": phase_seconds(ws.state_dir, since, killed_at=killed_at),
        }
    )
    if result.timed_out:
        killed = killed_in(ws.state_dir, since)  # a hang in the problem's own code is its ERROR, never the kernel's
        status = ProblemStatus.ERROR if killed and killed.problems else ProblemStatus.TIMEOUT_FAIL
        return row.model_copy(update={"status": status, "reason": options.batch_limit_reason(killed)})
    try:
        if options.mode is BatchMode.VALIDATE:
            return validate_row(row, GateReport.model_validate(json.loads(result.stdout)))
        # 2 with a summary: the loop ran and its baseline's reference failed (an ERROR of the problem)
        if result.returncode in (0, 1, 2, 124) and summary_printed(result.stdout):
            return optimize_row(row, ws)
    except (ValueError, ValidationError, RecordError):
        pass  # no usable result: said below from the exit status and stderr
    detail = last_line(result.stderr) or "no output"
    return row.model_copy(
        update={"reason": f"kernelopt {options.mode.value} exited with {result.returncode}: {detail}"}
    )


def summary_printed(stdout: str) -> bool:
    """``optimize --json`` printed its summary: something on stdout that is not the error object a refused or
    interrupted command prints (late34 z110; a refusal then read the workspace's older records as the run's)."""
    text = stdout.strip()
    if not text:
        return False
    try:
        doc = json.loads(text)
    except ValueError:
        return True  # printed, if cut short: the workspace's records say what ran
    return not (isinstance(doc, dict) and set(doc) == {"error"})


class ColdRunner:
    """Each problem in its own ``kernelopt`` process (:func:`run_problem`)."""

    def __init__(self, options: BatchOptions) -> None:
        self.options = options

    def run(self, item: BatchItem, upcoming: BatchItem | None = None) -> ProblemRow:
        return run_problem(item, self.options)

    def close(self) -> None:
        return None
