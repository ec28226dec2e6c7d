"""``kernelopt batch DIR [--kernels RUN_DIR] [--optimize] [--ray ADDRESS|local]``: problems and the KernelBench table.

Each sub-folder of DIR is a problem (reference.py + kernel.py, function or KernelBench form); with
``--kernels RUN_DIR``, DIR is a KernelBench level folder (``<id>_<Name>.py`` problems) and RUN_DIR holds
the generated ``level_<L>_problem_<id>_sample_<k>_kernel.py`` files, one row per problem and sample. The
table (problem, correct, latency, speedup vs eager and vs torch.compile, then fast_p at 1.0 / 1.5 /
2.0) is printed and written as ``batch.json`` and ``batch.csv`` in the output folder; running the
command again resumes the batch. Exit status 0 once every row is there, whatever the rows say.
"""

from __future__ import annotations

import math
import sys
from collections import Counter
from pathlib import Path
from typing import TYPE_CHECKING

import typer
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TaskID, TextColumn, TimeElapsedColumn

from kernelopt.batch.model import DEFAULT_PROBLEM_TIMEOUT_S, BatchMode, BatchTable, ProblemRow, ProblemStatus
from kernelopt.cli.bounds import bounded
from kernelopt.cli.output import StdoutLost, emit_json, fmt, info, printing, say_stop, table
from kernelopt.env import EnvSettings
from kernelopt.errors import UsageError, WritePlace, disk_problem
from kernelopt.harness.model import CHECK_DOES_NOT_FIT, HOST_DOES_NOT_FIT
from kernelopt.harness.own_fault import HARNESS_FAILED
from kernelopt.harness.sizes import fmt_size
from kernelopt.harness.stats import MAX_REPORTED_SPEEDUP_SPREAD, Verdict
from kernelopt.oneline import one_line
from kernelopt.report.headline import figure, unreliable
from kernelopt.taskcard import StopConditions, TaskCard

if TYPE_CHECKING:  # the runner (the loop, the planner, the tunables reader) is imported when a batch runs
    from kernelopt.batch.runner import BatchEvent, BatchOptions

DEVICES = ("cuda", "cpu")
#: The problem column folds past this (KernelBench's names run to 40 characters), leaving room for the reason.
NAME_WIDTH = 20
#: The longest reason (or ``changed``) the table shows; the rest is in batch.json and batch.csv.
CELL_CHARS = 120


def _speedup(
    value: float | None, verdict: str | None = None, low: float | None = None, high: float | None = None
) -> str:
    """``1.31x*``: the star marks a significant claim (faster or slower: p < 0.05, Cohen's d > 0.2, past the
    margin); a figure without it is within the noise of the measurement; ``0.000766x*?``: the question mark, a
    figure that is not reliable (its 95 % interval spans more than 2x: :func:`kernelopt.report.headline.unreliable`,
    the rule the summary and the report follow). Three significant digits: a slow kernel is never ``0.00x``."""
    if value is None:
        return "n/a"
    significant = verdict is not None and verdict != Verdict.NO_CHANGE.value
    return f"{figure(value)}x" + ("*" if significant else "") + ("?" if unreliable(low, high) else "")


def _compiled_against(result: BatchTable) -> str | None:
    """What built the compiled reference of every row's ``vs compile`` figure, where all rows share one: its words
    (``ProblemRow.compiled_against``, from :func:`kernelopt.report.headline.compiled_name`) past ``torch.compile``,
    for the column's header (``(mode max-autotune)``); ``None`` where rows differ (each cell then says its own) or no
    row says one (late28, z62: the table gave the figure without the mode late27 z52 recorded)."""
    said = {r.compiled_against for r in result.rows if r.compiled_against is not None}
    return _past_name(said.pop()) if len(said) == 1 else None


def _past_name(words: str) -> str:
    return words.removeprefix("torch.compile").strip()


def _compiled_cell(row: ProblemRow, against: str | None) -> str:
    """A row's ``vs compile`` cell's words where the header does not say them (rows compiled differently)."""
    own = _past_name(row.compiled_against) if row.compiled_against is not None else ""
    return f" {own}" if own and against is None else ""


def _share(value: float | None) -> str:
    return "n/a" if value is None else f"{100.0 * value:.0f} %"


def _last_cell(row: ProblemRow, mode: BatchMode) -> str:
    """The last column: the reason; with --optimize, what the loop changed (or why nothing), else the reason;
    cut to :data:`CELL_CHARS` (the whole text is in batch.json and batch.csv)."""
    text = row.changed if mode is BatchMode.OPTIMIZE and row.changed else row.reason
    return one_line(text or "", CELL_CHARS)


def _timed_on(result: BatchTable) -> str:
    """Where the table's latencies and speedups were timed, where a reader could take them for a GPU's: the CPU
    (break21 b45: "16.4x*" against eager, a CPU's figure, under a title that named no device)."""
    return (
        ", timed on the CPU (torch's CPU ops; Triton in its interpreter): no GPU's figures"
        if ((result.settings or {}).get("device") == "cpu")
        else ""
    )


def _method(line: str) -> str:
    """The method of a timing line (``cuda_graph`` of ``cuda_graph, 10 launch(es)/sample, 400 samples``)."""
    return line.split(",", 1)[0].strip()


def how_timed(result: BatchTable) -> str | None:
    """One line under the table naming how its figures were timed: the kernel and the PyTorch baseline (reference.py
    as written) interleaved in one worker, by which methods in how many rows, and the rows whose reference was timed
    by another method than its kernel (break22 b51); ``None`` where no row was timed."""
    timed = [r for r in result.rows if r.timing_method]
    if not timed:
        return None
    counts = Counter(_method(r.timing_method or "") for r in timed)
    methods = ", ".join(f"{m} ({n} row{'s' if n > 1 else ''})" for m, n in counts.items())
    apart = [
        r.problem
        for r in timed
        if r.reference_timing_method and _method(r.reference_timing_method) != _method(r.timing_method or "")
    ]
    other = (
        f"; the reference by another method than its kernel in {len(apart)} row(s): {', '.join(apart[:3])}"
        + (", ..." if len(apart) > 3 else "")
        if apart
        else ""
    )
    return (
        f'timed: each kernel beside reference.py as written (PyTorch eager, "vs eager"), interleaved in one worker, '
        f"by {methods}{other}; per row: timing_method and reference_timing_method in batch.json and batch.csv"
    )


def _whose(rows: list[ProblemRow], errors: int) -> str:
    """Whose the ERROR rows are, in words: a check that does not fit the device's or the host's memory, kernelopt's
    own failure (``kernelopt's harness failed``, late46 l161: counted as the problem's before), the rest the problem's
    own failure."""
    erred = [r.reason or "" for r in rows if r.status is ProblemStatus.ERROR]
    too_large = sum(1 for why in erred if any(m in why for m in (CHECK_DOES_NOT_FIT, HOST_DOES_NOT_FIT)))
    ours = sum(1 for why in erred if HARNESS_FAILED in why)
    kinds = [
        (too_large, "a check that does not fit the device's or the host's memory"),
        (ours, "kernelopt's own failure (a bug in kernelopt; please report)"),
    ]
    said = [(n, words) for n, words in kinds if n]
    if not said:
        return ", the problem's own failure"
    if len(said) == 1 and said[0][0] >= errors:
        return f", {said[0][1]}"
    rest = ", the rest the problem's own failure" if sum(n for n, _ in said) < errors else ""
    return f" ({'; '.join(f'{n} {words}' for n, words in said)}{rest})"


def render(result: BatchTable, out_dir: Path) -> None:
    """The KernelBench table and fast_p, for people (a sample column in KernelBench's layout; with
    --optimize the last column says what the loop changed)."""
    samples = any(r.sample is not None for r in result.rows) or (result.settings or {}).get("kernels") is not None
    against = _compiled_against(result)
    rows = [
        [
            r.problem,
            *([] if not samples else ["-" if r.sample is None else r.sample]),
            {True: "yes", False: "no", None: "n/a"}[r.correct],
            r.latency_us,
            _speedup(r.speedup_vs_eager, r.eager_verdict, r.eager_ci_low, r.eager_ci_high),
            _speedup(r.speedup_vs_compile, r.compile_verdict) + _compiled_cell(r, against),
            r.status.value,
            _last_cell(r, result.mode),
        ]
        for r in result.rows
    ]
    last = "changed / reason" if result.mode is BatchMode.OPTIMIZE else "reason"
    table(
        f"batch {result.mode.value}: {result.directory}{_timed_on(result)}",
        [
            "problem",
            *(["sample"] if samples else []),
            "correct",
            "latency\n(us)",
            "vs\neager",
            "vs\ncompile" + (f"\n{against}" if against else ""),
            "status",
            last,
        ],
        rows,
        name_width=NAME_WIDTH,
    )
    timed = how_timed(result)
    if timed is not None:
        info(timed)
    errors = next((f.errors for f in result.fast_p if f.errors), 0)
    apart = f"; {errors} ERROR row(s){_whose(result.rows, errors)}, counted apart" if errors else ""
    table(
        "fast_p (correct and faster than p x the reference, over all problems"
        + apart
        + "); significant: only speedups that pass the test (*); ?: not reliable, its 95 % interval spans more "
        + f"than {MAX_REPORTED_SPEEDUP_SPREAD:g}x",
        ["p", "vs eager", "significant", "vs compile" + (f" {against}" if against else ""), "significant"],
        [
            [
                fmt(f.threshold),
                _share(f.eager),
                _share(f.eager_significant),
                _share(f.compile),
                _share(f.compile_significant),
            ]
            for f in result.fast_p
        ],
    )
    _render_sizes(result)
    from kernelopt.batch.runner import CSV_FILE, TABLE_FILE

    info(f"table: {out_dir / TABLE_FILE}, {out_dir / CSV_FILE}")


def _render_sizes(result: BatchTable) -> None:
    """One table of the sizes the problems ran at, when a size scale or a task card changed them: what was
    scaled (from -> to) and what was kept and why. The sizes are the problem's, not a sample's: the samples of
    one problem that ran at the same sizes share one row, named by the problem."""
    cells: dict[str, dict[tuple[str, str, str], list[str]]] = {}  # problem -> its sizes' cells -> row keys
    for r in result.rows:
        if r.sizes is None:
            continue
        scale = "" if r.sizes.scale is None else f"x{r.sizes.scale:g}"
        moved = ", ".join(f"{s.name} {fmt_size(s.before)}->{fmt_size(s.after)}" for s in r.sizes.scaled)
        kept = ", ".join(f"{k.name} {fmt_size(k.value)} ({k.reason})" for k in r.sizes.kept)
        cells.setdefault(r.problem, {}).setdefault((scale, moved, kept), []).append(r.key)
    rows = []
    for problem, plans in cells.items():
        for (scale, moved, kept), keys in plans.items():
            names = [problem] if len(plans) == 1 else keys
            rows += [[name, scale, one_line(moved, CELL_CHARS), one_line(kept, CELL_CHARS)] for name in names]
    if rows:
        table(
            "sizes (scaled from -> to; kept and why)",
            ["problem", "scale", "scaled", "kept"],
            rows,
            name_width=NAME_WIDTH,
        )


class _Bar:
    """A progress bar over the problems on stderr (plain lines when stderr is not a terminal)."""

    def __init__(self, first_note: str | None = None) -> None:
        self.first_note = first_note  # said once, when the first problem starts
        self.console = Console(file=sys.stderr, highlight=False)
        self.progress = Progress(
            TextColumn("{task.description}"),
            BarColumn(),
            MofNCompleteColumn(),
            TimeElapsedColumn(),
            console=self.console,
            transient=False,
            disable=not sys.stderr.isatty(),
        )
        self.task: TaskID | None = None
        self.kept_rows = 0  # the rows an earlier run left in batch.json (--json's kept_rows)

    def __call__(self, event: BatchEvent) -> None:
        from kernelopt.batch.runner import EventKind

        if event.kind is EventKind.RESUMED:  # one line before anything runs (late34 z112)
            self.kept_rows = event.done
            sys.stderr.write(f"resuming the batch: {event.note}\n")
            return
        if self.first_note is not None and event.kind is EventKind.START:
            sys.stderr.write(f"{self.first_note}\n")
            self.first_note = None
        if self.task is None:
            self.progress.start()
            self.task = self.progress.add_task("problems", total=event.total)
        if event.note is not None:  # a row that does not stand: said on a terminal too, above the bar
            self.progress.console.print(f"note: {event.problem}: {event.note}", markup=False, soft_wrap=True)
            return
        self.progress.update(self.task, completed=event.done, description=f"{event.kind.value} {event.problem}")
        if not sys.stderr.isatty() and event.kind is not EventKind.SKIPPED:
            end = f": {event.row.status.value}" if event.row is not None else ""
            sys.stderr.write(f"[{event.done}/{event.total}] {event.kind.value} {event.problem}{end}\n")

    def close(self) -> None:
        if self.task is not None:
            self.progress.stop()


def register(app: typer.Typer) -> None:
    @app.command("batch")
    def batch_cmd(
        directory: Path = typer.Argument(
            ..., help="A folder whose sub-folders are problems; with --kernels, a KernelBench level folder."
        ),
        kernels: Path | None = typer.Option(
            None,
            "--kernels",
            help="KernelBench layout: the runs folder of generated level_<L>_problem_<id>_sample_<k>_kernel.py files.",
        ),
        level: int | None = typer.Option(
            None, "--level", min=0, help="With --kernels: the level, when DIR's name (level<N>) does not say it."
        ),
        cold: bool = typer.Option(
            False, "--cold", help="Validate each problem in its own kernelopt process instead of the worker pool."
        ),
        optimize: bool = typer.Option(
            False, "--optimize", help="Run the whole loop on each problem (default: validate V0)."
        ),
        out: Path | None = typer.Option(
            None,
            "--out",
            help="Output folder: batch.json, batch.csv, workspaces/, logs/ "
            "(default $TMPDIR/kernelopt_batch_<DIR>_<path hash>, /tmp where TMPDIR is unset).",
        ),
        fresh: bool = typer.Option(False, "--fresh", help="Start again instead of resuming from batch.json."),
        device: str | None = typer.Option(None, "--device", help="cuda or cpu (default: cuda when present)."),
        problem_timeout_s: float = typer.Option(
            DEFAULT_PROBLEM_TIMEOUT_S, "--problem-timeout-s", min=1.0, help="Wall-clock limit of one problem, seconds."
        ),
        compile_reference: bool | None = typer.Option(
            None, "--compile-reference/--no-compile-reference", help="Also time torch.compile(reference)."
        ),
        size_scale: float | None = typer.Option(
            None,
            "--size-scale",
            **bounded(TaskCard, "size_scale"),
            help="Scale every problem's size constants (0 < s <= 1) for a quick run.",
        ),
        max_iters: int | None = typer.Option(
            None,
            "--max-iters",
            **bounded(StopConditions, "max_iterations"),
            help="With --optimize: iterations per problem.",
        ),
        planner: str | None = typer.Option(None, "--planner", help="With --optimize: the planner backend."),
        implementer: str | None = typer.Option(None, "--implementer", help="With --optimize: the implementer backend."),
        ray: str | None = typer.Option(
            None, "--ray", help="Run the problems as Ray tasks, one GPU each: a cluster ADDRESS, or 'local'."
        ),
        problems: str | None = typer.Option(
            None,
            "--problems",
            help="Run only these problems: ids and ranges (1-50,97) or names; parts run one after another into "
            "one --out build one table.",
        ),
        as_json: bool = typer.Option(False, "--json", help="Print the batch table as JSON."),
    ) -> None:
        """Validate (or optimize) every problem under DIR (or problem and sample) and print the KernelBench table."""
        if device is not None and device not in DEVICES:
            raise UsageError(f"unknown device {device!r}", hint="use cuda or cpu")
        if level is not None and kernels is None:
            raise UsageError("--level needs --kernels", hint="--kernels RUN_DIR pairs a level folder with its samples")
        from kernelopt.batch.runner import BatchOptions
        from kernelopt.harness.compile_backend import check_compile_backend

        check_compile_backend()  # a misspelt backend before any problem runs, not as each row's "not timed" (n156)

        if not math.isfinite(problem_timeout_s):  # every problem has a limit: inf was taken, each ran unbounded (n31)
            raise UsageError(f"--problem-timeout-s must be a finite number of seconds, not {problem_timeout_s}")
        no_gpu = device is None and ray is None and no_gpu_here()
        options = BatchOptions(
            mode=BatchMode.OPTIMIZE if optimize else BatchMode.VALIDATE,
            out_dir=_out_dir(directory, out),
            device="cpu" if no_gpu else device,
            problem_timeout_s=problem_timeout_s,
            compile_reference=compile_reference,
            size_scale=size_scale,
            max_iters=max_iters,
            planner=planner,
            implementer=implementer,
            kernels=Path(kernels).expanduser().resolve() if kernels is not None else None,
            level=level,
            cold=cold,
            problems=problems,
        )
        notes = [NO_GPU_NOTE] if no_gpu else []
        notes += [n for n in [_cpu_sizes_note(options)] if n is not None]
        bar = _Bar("\n".join(notes) or None)  # it hears how many rows an earlier run left (--json's kept_rows)
        result = _run(Path(directory), options, ray=ray, fresh=fresh, bar=bar)
        try:
            with printing():
                if as_json:  # the table, and how many of its rows an earlier run left (0: none)
                    emit_json({**result.model_dump(mode="json"), "kept_rows": bar.kept_rows})
                else:
                    render(result, options.out_dir)
        except StdoutLost as exc:  # `| head -1`: every row is there and kept; it was exit 1 and no word (f8)
            from kernelopt.batch.runner import CSV_FILE, TABLE_FILE

            sys.stderr.write(
                f"kernelopt: the batch is done, its table is in {options.out_dir / TABLE_FILE} and "
                f"{options.out_dir / CSV_FILE}; it could not be printed: stdout refused it ({exc.reason})\n"
            )


def _out_dir(directory: Path, out: Path | None) -> Path:
    """``--out``, else ``kernelopt_batch_<DIR's name>_<8 hex digits of DIR's path>`` in the temporary folder
    (``TMPDIR`` as :func:`tempfile.gettempdir` reads it, /tmp where unset: fresh25 saw /tmp with TMPDIR set elsewhere,
    late43's l121); never a file, never in a
    workspace (:func:`kernelopt.destination.output_folder`). The digits tell two folders of one name apart: by name
    alone, a batch of /work/tmp/breaker12/batchdir met breaker9's batchdir's output (breaker12, 2026-12-06; refused
    clearly, nothing lost, but a second --out was needed).

    Raises:
        UsageError: the folder is a file, or lies in a workspace.
    """
    import hashlib
    import tempfile

    from kernelopt.destination import output_folder

    where = Path(directory).expanduser().resolve()
    if out is None:
        tag = hashlib.sha1(str(where).encode(), usedforsecurity=False).hexdigest()[:8]
        out = Path(tempfile.gettempdir()) / f"kernelopt_batch_{where.name or 'batch'}_{tag}"
    return output_folder(Path(out).expanduser().resolve(), "--out", hint="give a folder (it is created when missing)")


#: Where batch writes (its table, workspaces and logs), as its disk errors say it: its flag is --out (it has no --root).
BATCH_FOLDER = WritePlace("the batch's output", "--out")

NO_GPU_NOTE = (
    "note: no GPU found here: the problems run on the CPU, as with --device cpu (Triton kernels in Triton's "
    "interpreter)"
)


def no_gpu_here() -> bool:
    """True on a machine with no GPU at all, where ``--device``'s default ("cuda when present") means the CPU:
    no ``KERNELOPT_DEVICE``, no NVIDIA GPU that ``nvidia-smi -L`` lists, no AMD GPU driver (``/dev/kfd``).

    The batch then runs as with ``--device cpu``: its workers start with Triton's interpreter on, so a Triton
    kernel runs. Before, they started without it and every Triton problem was a FAIL for Triton's "0 active
    drivers" (a new user's first hour, second trial, 2026-12-05); a pre-started worker has imported Triton
    already, too late for the worker to turn the interpreter on itself.
    """
    from kernelopt.cli.optimize import nvidia_gpu_present

    if EnvSettings.read().device is not None:
        return False
    return not Path("/dev/kfd").exists() and not nvidia_gpu_present()


def _cpu_sizes_note(options: BatchOptions) -> str | None:
    """On the CPU at the problems' own sizes, how to scale them (the fresh-clone trial of 2026-12-03: the
    14 examples at their GPU sizes gave 11 TIMEOUT_FAILs on a loaded 2-core machine, and no hint)."""
    env = EnvSettings.read()
    if (options.device or env.device) != "cpu" or options.size_scale is not None or env.size_scale is not None:
        return None
    return (
        "note: --device cpu runs each problem at the sizes its reference.py sets (often GPU sizes: a case "
        "past TEST_TIMEOUT_SEC is a TIMEOUT_FAIL); --size-scale 0.01 for a quick run"
    )


def _run(directory: Path, options: BatchOptions, *, ray: str | None, fresh: bool, bar: _Bar) -> BatchTable:
    """The batch, here or on Ray, with its progress bar (which hears how many rows an earlier run left); on
    Ctrl-C, where its rows so far are. One batch at a time writes an output folder: a second on the same ``--out``
    is refused (exit 2) before it runs anything, rather than run every problem again beside the first in the same
    workspaces."""
    from kernelopt.batch.runner import TABLE_FILE, run_batch
    from kernelopt.workspace import RunLock

    lock = RunLock(
        options.out_dir,
        command="batch",
        hint="wait for it or stop it; the same command then resumes the batch, or give another --out",
    )
    try:
        with lock:
            if ray is not None:
                from kernelopt.batch.ray_runner import run_batch_on_ray

                return run_batch_on_ray(directory, options, address=ray, fresh=fresh, on_event=bar)
            return run_batch(directory, options, fresh=fresh, on_event=bar)
    except OSError as exc:  # a full or read-only disk: the fix is another --out, not the generic --root
        problem = disk_problem(exc, place=BATCH_FOLDER)
        if problem is None:
            raise
        raise problem from None
    except KeyboardInterrupt:
        from kernelopt.cli.start import ignore_interrupts

        ignore_interrupts()  # one line: not also the CLI's own "interrupted"
        bar.close()
        table_path = options.out_dir / TABLE_FILE
        kept = (
            f"the rows so far are in {table_path}"
            if table_path.is_file()  # none before the first problem ended: no file to name
            else "no problem had finished, so no table was written"
        )
        say_stop(f"interrupted; {kept}: the same command resumes the batch")
        raise typer.Exit(130) from None
    finally:
        bar.close()
