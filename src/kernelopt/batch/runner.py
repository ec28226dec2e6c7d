"""Run a batch: every item (a problem folder; in KernelBench's layout a problem and sample) becomes one
row, whatever happens to it, and the table is written after each.

How an item runs is one seam, :class:`ProblemRunner`, chosen in one place (:func:`runner_for`):

- validate (the default): :class:`~kernelopt.batch.warm.WarmRunner`, the gate in this process and its
  workers from a pool of pre-started ones, the next problem prepared while the current one is timed;
- validate with ``--cold``, and ``--optimize``: :class:`~kernelopt.batch.cold.ColdRunner`, each problem in
  its own ``kernelopt validate`` / ``kernelopt optimize`` process. With ``--optimize`` the loop's Stage 3
  (the rules backend) is the tuning engine: one tuning session of the launch configuration per version,
  inside that process; the row then says what the loop changed (:mod:`~kernelopt.batch.changes`).

Everything a batch writes goes under its output folder: ``batch.json`` and ``batch.csv`` (rewritten
atomically after every item, so an interrupted batch resumes where it stopped), ``workspaces/`` (one
workspace per problem, the same one ``kernelopt optimize FOLDER --root OUT/workspaces`` makes),
``kernelbench/`` (KernelBench layout: the problem folders made from each problem and sample),
``pool/`` (the pool's server output) and ``logs/<problem>.out`` / ``.err`` (the cold path's child output).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path
from typing import Any, Protocol

from pydantic import ValidationError

from kernelopt.batch.cold import ColdRunner, run_problem
from kernelopt.batch.kernelbench import kernelbench_items
from kernelopt.batch.model import CSV_COLUMNS, BatchMode, BatchTable, ProblemRow, csv_text, with_fast_p
from kernelopt.batch.problems import BatchItem, changed_sources, folder_items, held_elsewhere, refused_on_cpu
from kernelopt.batch.rows import (
    DEFAULT_PROBLEM_TIMEOUT_S,
    BatchOptions,
    child_argv,
    item_row,
    problem_env,
)
from kernelopt.batch.selection import select
from kernelopt.batch.warm import WarmRunner
from kernelopt.errors import UsageError
from kernelopt.fileio import atomic_write_text
from kernelopt.loop.opening import baseline_commit
from kernelopt.workspace import Workspace, is_workspace, move_aside

TABLE_FILE = "batch.json"
CSV_FILE = "batch.csv"

__all__ = [
    "CSV_FILE",
    "DEFAULT_PROBLEM_TIMEOUT_S",
    "TABLE_FILE",
    "BatchEvent",
    "BatchOptions",
    "EventKind",
    "ProblemRunner",
    "add_row",
    "batch_items",
    "child_argv",
    "prepare",
    "problem_env",
    "resumed",
    "run_batch",
    "run_problem",
    "runner_for",
    "write_table",
]


class EventKind(StrEnum):
    START = "start"
    DONE = "done"
    SKIPPED = "skipped"
    CHANGED = "changed"
    RESUMED = "resumed"  # once, before anything runs: the rows an earlier run left (``done``), said in ``note``


@dataclass(frozen=True)
class BatchEvent:
    """Progress of the batch: an item started, finished (with its row), was already done, or has a row whose files
    changed since (it runs again; ``note`` says which and where its old workspace went).

    ``problem`` is the item's key (the problem, and its sample in KernelBench's layout)."""

    kind: EventKind
    problem: str
    done: int
    total: int
    row: ProblemRow | None = None
    note: str | None = None


class ProblemRunner(Protocol):
    """Runs one item to its row (every failure of the item is the row's status, never an exception)."""

    def run(self, item: BatchItem, upcoming: BatchItem | None = None) -> ProblemRow:
        """Run ``item``; ``upcoming`` is the item that runs next (a runner may prepare it meanwhile)."""
        ...

    def close(self) -> None: ...


def runner_for(options: BatchOptions, *, problems: int) -> ProblemRunner:
    """The runner of a batch with these options and at most ``problems`` items (the one place it is chosen)."""
    if options.mode is BatchMode.VALIDATE and not options.cold:
        return WarmRunner(options, problems=problems)
    return ColdRunner(options)


def table_settings(options: BatchOptions) -> dict[str, str | float | int | bool | None]:
    """The options besides folder and mode that decide a batch's figures (kept in ``batch.json``)."""
    keys = ("device", "size_scale", "compile_reference", "max_iters", "planner", "implementer")
    settings: dict[str, str | float | int | bool | None] = {k: getattr(options, k) for k in keys}
    if options.kernels is not None:  # KernelBench layout; absent otherwise, so older tables still resume
        settings["kernels"] = str(options.kernels.resolve())
        settings["level"] = options.level
    return settings


def _own_table_files(out_dir: Path) -> None:
    """Refuse an output folder whose ``batch.json`` or ``batch.csv`` kernelopt did not write: a batch replaces only
    its own table. A user's own files there (``--out`` their project folder, holding their results) were replaced
    in silence, and the refusal of a ``batch.json`` that is no batch table named ``--fresh``, which replaced it.

    Raises:
        UsageError: such a file is there (exit 2, before anything runs).
    """
    for name, ours in ((TABLE_FILE, _is_table_json), (CSV_FILE, _is_table_csv)):
        path = out_dir / name
        if not path.exists():
            continue
        try:
            head = path.read_bytes()[:4096].decode("utf-8", errors="replace") if path.is_file() else ""
        except OSError:
            head = ""
        if not ours(path, head):
            raise UsageError(
                f"--out {out_dir}: its {name} was not written by kernelopt batch, and a batch writes its table there",
                hint="give another --out (a batch replaces only its own table)",
            )


def _is_table_json(path: Path, head: str) -> bool:
    """A ``batch.json`` kernelopt wrote: a JSON object with a batch table's keys (of any version of the table)."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError):
        return False
    return isinstance(data, dict) and {"directory", "mode", "rows"} <= set(data)


def _is_table_csv(path: Path, head: str) -> bool:
    """A ``batch.csv`` kernelopt wrote: its header starts with the table's first columns."""
    return head.startswith(",".join(CSV_COLUMNS[:4]))


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
    """``table`` with ``row`` in it (replacing an older row of that item), rows in item order (keys)."""
    rows = [r for r in table.rows if r.key != row.key] + [row]
    rank = {key: i for i, key in enumerate(order)}
    rows.sort(key=lambda r: rank.get(r.key, len(rank)))
    return table.model_copy(update={"rows": rows})


def resumed(table: BatchTable, items: list[BatchItem], emit: Callable[[BatchEvent], None]) -> set[str]:
    """The keys of ``items`` whose row in ``table`` stands: a resumed batch skips them. An item whose files
    changed since its row was written (the user fixed a kernel and ran the batch again) is not among them: it is
    said (:attr:`EventKind.CHANGED`) and runs again, its old workspace, when it holds recorded versions, moved aside
    first (``kernelopt optimize`` would refuse a workspace made from other files)."""
    rows = {row.key: row for row in table.rows}
    stands: set[str] = set()
    if rows:  # an earlier run's table: how much of it this run keeps, said before anything runs (late34 z112)
        emit(BatchEvent(EventKind.RESUMED, "", len(rows), len(items), note=_kept_note(rows, items)))
    for item in items:
        row = rows.get(item.key)
        if row is None:
            continue
        changed = [] if row.sources is None else changed_sources(row.sources, item.sources())
        if not changed:
            stands.add(item.key)
            continue
        note = f"{', '.join(changed)} changed since its row in {TABLE_FILE}: running it again"
        old = Path(row.workspace) if row.workspace else None
        if old is not None and is_workspace(old) and baseline_commit(Workspace(old)) is not None:
            note += f" (its old workspace, with its recorded versions, moved to {move_aside(old)})"
        emit(BatchEvent(EventKind.CHANGED, item.key, 0, len(items), note=note))
    return stands


def _kept_note(rows: dict[str, ProblemRow], items: list[BatchItem]) -> str:
    """``3 rows kept from the earlier run (batch.json); 2 of this run's 5 problems have none and run``: a row whose
    files changed since is counted kept and runs again (said apart, :attr:`EventKind.CHANGED`)."""
    rest = sum(1 for item in items if item.key not in rows)
    kept = f"{len(rows)} row{'s' if len(rows) != 1 else ''} kept from the earlier run ({TABLE_FILE})"
    return f"{kept}; {rest} of this run's {len(items)} problems {'has' if rest == 1 else 'have'} none and run"


def run_item(item: BatchItem, runner: ProblemRunner, upcoming: BatchItem | None) -> ProblemRow:
    """The row of ``item`` (its ``INVALID`` row when it cannot run), with the digests of the files it ran from,
    taken as it starts."""
    sources = item.sources()
    row = item_row(item) if item.defect else runner.run(item, upcoming)
    return row.model_copy(update={"sources": sources})


def batch_items(directory: Path, options: BatchOptions) -> list[BatchItem]:
    """The batch's items: the problem folders of ``directory``, or with ``options.kernels`` KernelBench's
    level folder paired with its runs folder.

    Raises:
        InputFileError: a folder is missing (or a level folder holds no problem).
        UsageError: the KernelBench level cannot be told.
    """
    if options.kernels is not None:
        return kernelbench_items(directory, options.kernels, options.out_dir, level=options.level)
    return folder_items(directory)


def prepare(directory: Path, options: BatchOptions, *, fresh: bool) -> tuple[BatchTable, list[BatchItem]]:
    """The table so far (resumed from ``batch.json`` unless ``fresh``) and the items.

    Raises:
        InputFileError: ``directory`` (or the runs folder) is not a folder.
        UsageError: the output folder holds another batch.
    """
    directory = Path(directory).resolve()
    _own_table_files(options.out_dir)  # before anything runs, --fresh or not
    items = batch_items(directory, options)
    if options.device == "cpu":  # a kernel that launches on a GPU driver alone is refused, not run into the driver
        items = [refused_on_cpu(item) for item in items]
    settings = table_settings(options)
    table = None if fresh else _read_table(options.out_dir / TABLE_FILE, directory, options.mode, settings)
    table = table or BatchTable(directory=str(directory), mode=options.mode, settings=settings)
    held = {str(Path(row.workspace).resolve()): row.key for row in table.rows if row.workspace}
    return table, held_elsewhere(items, held, options.workspace_root)


def run_batch(
    directory: Path,
    options: BatchOptions,
    *,
    fresh: bool = False,
    on_event: Callable[[BatchEvent], None] | None = None,
    runner: ProblemRunner | None = None,
) -> BatchTable:
    """Run every item of ``directory`` in turn; resumable (finished items are skipped).

    Args:
        directory: the folder of problems (KernelBench layout: the level folder).
        options: the batch's options.
        fresh: start again instead of resuming from ``batch.json``.
        on_event: progress callback.
        runner: how each item runs (default: :func:`runner_for`); closed at the end when made here.

    Raises:
        InputFileError: ``directory`` is not a folder.
        UsageError: the output folder holds another batch.
        PoolUnavailable: the pool of workers could not be started.
    """
    table, every = prepare(directory, options, fresh=fresh)
    order = [item.key for item in every]  # the level's order, whatever part of it runs now
    items = select(every, options.problems, kernelbench=options.kernels is not None)
    emit = on_event or (lambda _event: None)
    done = resumed(table, items, emit)
    todo = [item for item in items if item.key not in done]
    finished = 0
    for item in items:
        if item.key in done:
            finished += 1
            emit(BatchEvent(EventKind.SKIPPED, item.key, finished, len(items)))
    if not todo:
        return write_table(table, options.out_dir)
    own = runner is None
    runner = runner or runner_for(options, problems=len(todo))
    try:
        for i, item in enumerate(todo):
            emit(BatchEvent(EventKind.START, item.key, finished, len(items)))
            upcoming = next((later for later in todo[i + 1 :] if later.defect is None), None)
            row = run_item(item, runner, upcoming)
            table = write_table(add_row(table, row, order), options.out_dir)
            finished += 1
            emit(BatchEvent(EventKind.DONE, item.key, finished, len(items), row))
    finally:
        if own:
            runner.close()
    return write_table(table, options.out_dir)
