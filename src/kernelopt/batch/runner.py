"""Run a batch: each problem in its own ``kernelopt validate`` / ``kernelopt optimize`` process with a
time limit, so a problem that fails, crashes or hangs becomes a row and never stops the batch.

Everything a batch writes goes under its output folder: ``batch.json`` and ``batch.csv`` (rewritten
atomically after every problem, so an interrupted batch resumes where it stopped), ``workspaces/``
(one workspace per problem, the same one ``kernelopt optimize FOLDER --root OUT/workspaces`` makes)
and ``logs/<problem>.out`` / ``.err`` (the child's output).
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from kernelopt.batch.model import BatchMode, BatchTable, ProblemRow, ProblemStatus, csv_text, with_fast_p
from kernelopt.batch.problems import problem_defect, problem_folders
from kernelopt.errors import KerneloptError, RecordError, UsageError
from kernelopt.harness.gate import GateReport
from kernelopt.harness.settings import ENV_COMPILE_REFERENCE, ENV_DEVICE, ENV_SIZE_SCALE
from kernelopt.loop.opening import open_or_create
from kernelopt.memory.model import GateResult, IterationRecord, best_version
from kernelopt.memory.store import atomic_write_text
from kernelopt.proc import run_command
from kernelopt.workspace import Workspace

TABLE_FILE = "batch.json"
CSV_FILE = "batch.csv"
#: Our choice: a level-1 problem validates in well under a minute; the limit only catches a stuck child.
DEFAULT_PROBLEM_TIMEOUT_S = 1800.0


class BatchOptions(BaseModel):
    """How every problem of a batch is run.

    Attributes:
        mode: validate (the gate on V0) or optimize (the whole loop).
        out_dir: the batch's output folder.
        device: ``cuda`` / ``cpu``; ``None`` lets each run choose.
        problem_timeout_s: wall-clock limit of one problem, seconds (the child is killed past it).
        compile_reference: also time ``torch.compile(reference)``; ``None`` leaves it to each task card.
        size_scale: scale each problem's size constants (0 < s <= 1) for a quick run.
        max_iters: with optimize, stop each loop after this many iterations.
        planner: with optimize, the planner backend.
        implementer: with optimize, the implementer backend.
    """

    model_config = ConfigDict(extra="forbid")

    mode: BatchMode = BatchMode.VALIDATE
    out_dir: Path
    device: str | None = None
    problem_timeout_s: float = Field(default=DEFAULT_PROBLEM_TIMEOUT_S, gt=0)
    compile_reference: bool | None = None
    size_scale: float | None = Field(default=None, gt=0, le=1)
    max_iters: int | None = Field(default=None, ge=0)
    planner: str | None = None
    implementer: str | None = None

    @property
    def workspace_root(self) -> Path:
        return self.out_dir / "workspaces"


class EventKind(StrEnum):
    START = "start"
    DONE = "done"
    SKIPPED = "skipped"


@dataclass(frozen=True)
class BatchEvent:
    """Progress of the batch: a problem started, finished (with its row) or was already done."""

    kind: EventKind
    problem: str
    done: int
    total: int
    row: ProblemRow | None = None


def _last_line(text: str) -> str:
    lines = [line for line in text.strip().splitlines() if line.strip()]
    return lines[-1][:300] if lines else ""


def child_argv(ws: Workspace, options: BatchOptions) -> list[str]:
    """The ``kernelopt`` command one problem runs in (pure)."""
    argv = [sys.executable, "-m", "kernelopt"]
    if options.mode is BatchMode.VALIDATE:
        argv += ["validate", str(ws.root), "--version", "0", "--no-previous", "--json"]
    else:
        argv += ["optimize", str(ws.root), "--json"]
        if options.max_iters is not None:
            argv += ["--max-iters", str(options.max_iters)]
        if options.planner:
            argv += ["--planner", options.planner]
        if options.implementer:
            argv += ["--implementer", options.implementer]
    if options.device:
        argv += ["--device", options.device]
    return argv


def problem_env(base: Mapping[str, str], options: BatchOptions) -> dict[str, str]:
    """The child's environment: ``base`` plus the batch's harness settings (pure)."""
    env = dict(base)
    if options.compile_reference is not None:
        env[ENV_COMPILE_REFERENCE] = "1" if options.compile_reference else "0"
    if options.size_scale is not None:
        env[ENV_SIZE_SCALE] = repr(options.size_scale)
    if options.device:
        env[ENV_DEVICE] = options.device
    return env


def _figures(row: ProblemRow, record: IterationRecord) -> ProblemRow:
    p = record.performance
    ref = p.speedup_vs_reference
    return row.model_copy(
        update={
            "latency_us": p.latency_us,
            "reference_latency_us": ref.eager_latency_us if ref else None,
            "speedup_vs_eager": ref.eager if ref else None,
            "speedup_vs_compile": ref.compiled if ref else None,
            "compile_s": ref.compile_s if ref else None,
            "best_version": record.version,
            # a figure left out for noise says why (kernelopt.harness.stats.too_wide), not just n/a
            "reason": f"the speedup over the reference is withheld: {ref.withheld}" if ref and ref.withheld else None,
        }
    )


def _validate_row(row: ProblemRow, stdout: str) -> ProblemRow:
    report = GateReport.model_validate(json.loads(stdout))
    row = _figures(row, report.record)
    return row.model_copy(
        update={
            "status": ProblemStatus(report.result.value),
            "correct": report.correctness.passed,
            "reason": report.failure_reason or row.reason,
        }
    )


def _optimize_row(row: ProblemRow, ws: Workspace) -> ProblemRow:
    records = [ws.memory.read(n) for n in ws.memory.versions()]
    best = best_version(records)
    v0 = next((r for r in records if r.number == 0), None)
    if best is None:
        reason = (v0.quality_gate.failure_reason if v0 else None) or "no version passed the gate"
        result = v0.quality_gate.result if v0 and v0.quality_gate.result else GateResult.FAIL
        status = ProblemStatus(result.value) if result is not GateResult.PASS else ProblemStatus.FAIL
        correct = None if v0 is None else v0.correctness.status.value == "PASS"
        return row.model_copy(update={"status": status, "reason": reason, "correct": correct})
    return _figures(row, best).model_copy(update={"status": ProblemStatus.PASS, "correct": True})


def run_problem(folder: Path, options: BatchOptions, *, env: Mapping[str, str] | None = None) -> ProblemRow:
    """Run one problem folder and return its row; every way it can go wrong becomes the row's status.

    Args:
        folder: a problem folder (reference.py + kernel.py in either form).
        options: the batch's options.
        env: the environment the child starts from (default: this process's).
    """
    folder = Path(folder).resolve()
    row = ProblemRow(problem=folder.name, folder=str(folder), status=ProblemStatus.ERROR)
    defect = problem_defect(folder)
    if defect is not None:
        return row.model_copy(update={"status": ProblemStatus.INVALID, "reason": defect})
    try:
        ws = open_or_create(folder, root=options.workspace_root).workspace
    except KerneloptError as exc:
        return row.model_copy(update={"reason": exc.one_line()})
    row = row.model_copy(update={"workspace": str(ws.root)})
    result = run_command(
        child_argv(ws, options), timeout_s=options.problem_timeout_s, env=problem_env(env or os.environ, options)
    )
    logs = options.out_dir / "logs"
    logs.mkdir(parents=True, exist_ok=True)
    atomic_write_text(logs / f"{folder.name}.out", result.stdout)
    atomic_write_text(logs / f"{folder.name}.err", result.stderr)
    row = row.model_copy(update={"duration_s": round(result.duration_s, 3)})
    if result.timed_out:
        return row.model_copy(
            update={
                "status": ProblemStatus.TIMEOUT_FAIL,
                "reason": f"ran past the batch's limit of {options.problem_timeout_s:g} s per problem (killed)",
            }
        )
    try:
        if options.mode is BatchMode.VALIDATE:
            return _validate_row(row, result.stdout)
        if result.returncode in (0, 1, 124) and result.stdout.strip():
            return _optimize_row(row, ws)
    except (ValueError, ValidationError, RecordError):
        pass  # no usable result: said below from the exit status and stderr
    detail = _last_line(result.stderr) or "no output"
    return row.model_copy(
        update={"reason": f"kernelopt {options.mode.value} exited with {result.returncode}: {detail}"}
    )


def table_settings(options: BatchOptions) -> dict[str, str | float | int | bool | None]:
    """The options besides folder and mode that decide a batch's figures (kept in ``batch.json``)."""
    keys = ("device", "size_scale", "compile_reference", "max_iters", "planner", "implementer")
    return {k: getattr(options, k) for k in keys}


def _read_table(path: Path, directory: Path, mode: BatchMode, settings: dict[str, Any]) -> BatchTable | None:
    if not path.is_file():
        return None
    try:
        table = BatchTable.model_validate_json(path.read_text(encoding="utf-8"))
    except ValidationError:
        raise UsageError(f"{path}: not a batch table", hint="pass --fresh to start the batch again") from None
    if table.mode is not mode or Path(table.directory) != directory:
        raise UsageError(
            f"{path} holds a {table.mode.value} batch of {table.directory}",
            hint="pass another --out, or --fresh to start again",
        )
    if table.settings is not None and table.settings != settings:
        changed = ", ".join(
            f"{k} {table.settings.get(k)!r} -> {settings.get(k)!r}"
            for k in sorted(set(table.settings) | set(settings))
            if table.settings.get(k) != settings.get(k)
        )
        raise UsageError(
            f"{path} was made with other settings ({changed}): its rows would not be comparable",
            hint="pass the same settings, another --out, or --fresh to start again",
        )
    return table


def write_table(table: BatchTable, out_dir: Path) -> BatchTable:
    """Recompute fast_p and write ``batch.json`` and ``batch.csv`` atomically; returns the table written."""
    table = with_fast_p(table)
    out_dir.mkdir(parents=True, exist_ok=True)
    atomic_write_text(out_dir / TABLE_FILE, table.model_dump_json(indent=1))
    atomic_write_text(out_dir / CSV_FILE, csv_text(table))
    return table


def add_row(table: BatchTable, row: ProblemRow, order: list[str]) -> BatchTable:
    """``table`` with ``row`` in it (replacing an older row of that problem), rows in folder order."""
    rows = [r for r in table.rows if r.problem != row.problem] + [row]
    rank = {name: i for i, name in enumerate(order)}
    rows.sort(key=lambda r: rank.get(r.problem, len(rank)))
    return table.model_copy(update={"rows": rows})


def prepare(directory: Path, options: BatchOptions, *, fresh: bool) -> tuple[BatchTable, list[Path]]:
    """The table so far (resumed from ``batch.json`` unless ``fresh``) and the problem folders.

    Raises:
        InputFileError: ``directory`` is not a folder.
        UsageError: the output folder holds another batch.
    """
    directory = Path(directory).resolve()
    folders = problem_folders(directory)
    settings = table_settings(options)
    table = None if fresh else _read_table(options.out_dir / TABLE_FILE, directory, options.mode, settings)
    return table or BatchTable(directory=str(directory), mode=options.mode, settings=settings), folders


def run_batch(
    directory: Path,
    options: BatchOptions,
    *,
    fresh: bool = False,
    on_event: Callable[[BatchEvent], None] | None = None,
) -> BatchTable:
    """Run every problem folder of ``directory`` in turn; resumable (finished problems are skipped).

    Raises:
        InputFileError: ``directory`` is not a folder.
        UsageError: the output folder holds another batch.
    """
    table, folders = prepare(directory, options, fresh=fresh)
    order = [f.name for f in folders]
    done = {r.problem for r in table.rows}
    emit = on_event or (lambda _event: None)
    finished = 0
    for folder in folders:
        if folder.name in done:
            finished += 1
            emit(BatchEvent(EventKind.SKIPPED, folder.name, finished, len(folders)))
            continue
        emit(BatchEvent(EventKind.START, folder.name, finished, len(folders)))
        row = run_problem(folder, options)
        table = write_table(add_row(table, row, order), options.out_dir)
        finished += 1
        emit(BatchEvent(EventKind.DONE, folder.name, finished, len(folders), row))
    return write_table(table, options.out_dir)
