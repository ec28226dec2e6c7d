"""``kernelopt batch DIR --ray ADDRESS|local``: the batch's problems as Ray tasks, one GPU each.

Each problem is one Ray task (``num_gpus=1``; ``0`` with ``--device cpu``) that runs
:func:`~kernelopt.batch.cold.run_problem` (its own ``kernelopt`` process) on the node Ray picks; Ray
sets ``CUDA_VISIBLE_DEVICES`` for the task, and the problem's ``kernelopt`` process inherits it, so each
problem sees its own GPU.
Rows are gathered as tasks finish (progress streams), into the same ``batch.json`` / ``batch.csv``.
The workspaces are the ones a local batch makes, under ``OUT/workspaces``: DIR and ``--out`` must be on
a filesystem every node mounts at the same path.

Faults: a task whose worker process dies (killed, out of memory, node lost) is retried once by Ray
(``max_retries=1``); the retry opens the same workspace, and ``kernelopt optimize`` resumes from its
journal, so the workspace stays consistent. A second death is recorded as an ``ERROR`` row. Ray is an
optional extra (``pip install 'kernelopt[ray]'``) imported only here.
"""

from __future__ import annotations

import socket
from collections.abc import Callable
from pathlib import Path
from typing import Any

from kernelopt.batch.cold import run_problem
from kernelopt.batch.model import BatchTable, ProblemRow, ProblemStatus
from kernelopt.batch.problems import BatchItem
from kernelopt.batch.rows import BatchOptions, item_row
from kernelopt.batch.runner import BatchEvent, EventKind, add_row, prepare, resumed, write_table
from kernelopt.batch.selection import select
from kernelopt.env import raw_value
from kernelopt.errors import EnvironmentProblem, UsageError
from kernelopt.oneline import first_line

LOCAL = "local"
#: Ray retries a task whose worker died this many times, then the problem is recorded as failed.
MAX_RETRIES = 1


def _import_ray() -> Any:
    try:
        import ray
    except ImportError:
        raise EnvironmentProblem(
            "--ray needs Ray, which is not installed", hint="pip install 'kernelopt[ray]'"
        ) from None
    return ray


def _attempts_file(options: BatchOptions, key: str) -> Path:
    return options.out_dir / "ray" / f"{key.replace(' ', '_')}.attempts"


def count_attempt(options: BatchOptions, key: str) -> int:
    """Count one more start of item ``key`` (a file under ``OUT/ray/``, so a retry on another node sees
    it too); returns the count."""
    path = _attempts_file(options, key)
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("a", encoding="utf-8") as fh:
        fh.write("1")
    return len(path.read_text(encoding="utf-8"))


def attempts_of(options: BatchOptions, key: str) -> int:
    path = _attempts_file(options, key)
    return len(path.read_text(encoding="utf-8")) if path.is_file() else 0


def problem_task(item_json: str, options_json: str) -> str:
    """The body of one Ray task: run the item here and return its row as JSON."""
    options = BatchOptions.model_validate_json(options_json)
    item = BatchItem.model_validate_json(item_json)
    attempt = count_attempt(options, item.key)
    row = run_problem(item, options)
    gpus = raw_value("cuda_visible_devices")
    host = socket.gethostname() + (f" GPU {gpus}" if gpus else "")
    return row.model_copy(update={"attempts": attempt, "host": host}).model_dump_json()


def _connect(ray: Any, address: str) -> None:
    if not address:
        raise UsageError("--ray needs an address", hint="give a cluster address (ray://host:10001, auto) or 'local'")
    kwargs: dict[str, Any] = {"ignore_reinit_error": True, "include_dashboard": False, "log_to_driver": False}
    try:
        if address == LOCAL:
            ray.init(**kwargs)
        else:
            ray.init(address=address, **kwargs)
    except (ConnectionError, RuntimeError, ValueError) as exc:
        raise EnvironmentProblem(f"cannot connect to the Ray cluster at {address!r}: {exc}") from None


def run_batch_on_ray(
    directory: Path,
    options: BatchOptions,
    *,
    address: str,
    fresh: bool = False,
    on_event: Callable[[BatchEvent], None] | None = None,
) -> BatchTable:
    """Run the problems of ``directory`` as Ray tasks and gather their rows (resumable like a local batch).

    Args:
        directory: the folder of problems.
        options: the batch's options (``device="cpu"`` asks no GPU per task).
        address: a Ray cluster address (``auto``, ``ray://head:10001``, ``host:6379``), or ``local`` to
            start a Ray instance on this machine.
        fresh: start again instead of resuming from ``batch.json``.
        on_event: progress callback.

    Raises:
        EnvironmentProblem: Ray is not installed, or the cluster cannot be reached.
        UsageError: the output folder holds another batch.
    """
    ray = _import_ray()
    table, every = prepare(directory, options, fresh=fresh)
    order = [item.key for item in every]  # the level's order, whatever part of it runs now
    items = select(every, options.problems, kernelbench=options.kernels is not None)
    emit = on_event or (lambda _event: None)
    done = resumed(table, items, emit)
    finished = 0
    todo = []
    for item in items:
        if item.key in done:
            finished += 1
            emit(BatchEvent(EventKind.SKIPPED, item.key, finished, len(items)))
        elif item.defect is not None:  # nothing to run: its row at once, no task
            row = item_row(item).model_copy(update={"sources": item.sources()})
            table = write_table(add_row(table, row, order), options.out_dir)
            finished += 1
            emit(BatchEvent(EventKind.DONE, item.key, finished, len(items), row))
        else:
            todo.append(item)
    if not todo:
        return write_table(table, options.out_dir)
    _connect(ray, address)
    gpus = 0 if options.device == "cpu" else 1
    if gpus and not ray.cluster_resources().get("GPU", 0):
        raise EnvironmentProblem(
            f"the Ray cluster at {address!r} has no GPU, so no problem could start",
            hint="pass --device cpu to run the problems on CPUs",
        )
    task = ray.remote(num_gpus=gpus, num_cpus=1, max_retries=MAX_RETRIES, retry_exceptions=False)(problem_task)
    options_json = options.model_dump_json()
    pending: dict[Any, tuple[BatchItem, dict[str, str]]] = {}
    for item in todo:
        _attempts_file(options, item.key).unlink(missing_ok=True)  # count this batch's starts only
        pending[task.remote(item.model_dump_json(), options_json)] = (item, item.sources())
        emit(BatchEvent(EventKind.START, item.key, finished, len(items)))
    while pending:
        ready, _ = ray.wait(list(pending), num_returns=1)
        for ref in ready:
            item, sources = pending.pop(ref)
            row = _gather(ray, ref, item, options).model_copy(update={"sources": sources})
            table = write_table(add_row(table, row, order), options.out_dir)
            finished += 1
            emit(BatchEvent(EventKind.DONE, item.key, finished, len(items), row))
    return write_table(table, options.out_dir)


def _gather(ray: Any, ref: Any, item: BatchItem, options: BatchOptions) -> ProblemRow:
    """The row a task returned, or an ``ERROR`` row when its worker died after the retry."""
    try:
        return ProblemRow.model_validate_json(ray.get(ref))
    except ray.exceptions.RayError as exc:
        first = first_line(str(exc), 200) or type(exc).__name__
        attempts = attempts_of(options, item.key)
        return item_row(item).model_copy(
            update={
                "status": ProblemStatus.ERROR,
                "reason": f"the Ray worker died {attempts} time(s), retried {MAX_RETRIES}x: "
                f"{type(exc).__name__}: {first}",
                "attempts": attempts,
            }
        )
