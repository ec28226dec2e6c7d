"""``kernelopt tune PATH``: the tuning engine without the profile loop; ``kernelopt tune --replay SWEEP.json``:
the strategy replayed on a recorded sweep (no GPU).

**PATH** is the folder ``kernelopt optimize`` takes (kernel.py, reference.py, optional README.md). One tuning
session (:mod:`kernelopt.tuning.folder`) searches the launch configuration of one launch (``--kernel``, else
the launch with the most knobs) under the budget (``--budget N`` | ``--budget-fraction F``, ``--budget-wall-s
S``; else the task card's ``budget`` / ``budget_fraction`` / ``budget_wall_s``; else max(24, 1/5 of the
space) and 600 s), with a progress bar on a terminal. It prints the best configuration and its speedup over
the current one, writes it into kernel.py as a checked literal edit when it beats the current one by the
minimum gain (``--dry-run``: prints the diff and leaves kernel.py unchanged; the session folder is still
written), and draws the search (``search.png`` in the session folder; ``--sweep FILE`` adds a recorded
sweep's best as a line). The session folder is
``<--out>/<key>/`` (default ``--out``: ``PATH/.kernelopt/tune``): the record there makes a second run of an
interrupted session serve what it measured. ``--json`` prints :class:`~kernelopt.tuning.folder.TuneSummary`
with ``written``, ``dry_run``, ``diff``, ``kernel_py``, ``plot`` and ``verdict`` (the line the text output ends on: what
was found and what happened to kernel.py, or why the current configuration stays).

**--replay**: each trial is one tuning session of the strategy with its own seed (``--seed``, ``--seed + 1``,
...) on the sweep's recorded latencies (:func:`kernelopt.tuning.replay.replay_trials`). Printed: the success
rate (trials whose final configuration is within 3 % of the sweep's best), the mean evaluations and the mean
final/best ratio; ``--json`` gives them as ``success_rate``, ``mean_evaluations``, ``mean_ratio_to_best`` and
``trials`` (with the rest of :class:`~kernelopt.tuning.replay.ReplayReport`).

**Faults** (docs/tuning-engine.md, "What tune guarantees"): kernel.py is either byte for byte what the user
last wrote, or that text with only the knob edit applied, and the exit code says which. Exit 0: the session
ended and its verdict holds (``written to kernel.py``, or kernel.py unchanged and why); an interrupt after the
write also exits 0, with a line saying what was written. Any other exit: kernel.py was not touched. One
``tune`` at a time per folder (the run lock ``optimize`` takes: a second one is refused, exit 2). The write
goes through a symbolic link to its target, keeps the file's encoding and line endings, is refused on a
hard-linked file (exit 2), and happens only while kernel.py still holds the text the session started from
(an edit made meanwhile: nothing written, exit 2). SIGINT, SIGTERM and SIGHUP before the write: one line,
exit 130, the session record kept, and a rerun resumes from it.

Exit codes: 1 no candidate could be timed, 2 bad input (no knob, an empty space, a wrong flag or file, a
kernel.py changed during the session or hard-linked, another tune on the folder), 3 environment (no GPU, a
problem that cannot fit the device or the host's memory, as validate and optimize say it, a worker that cannot
start, a full or read-only disk), 130 interrupted before the write.
"""

from __future__ import annotations

import math
import sys
import time
from contextlib import ExitStack
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

import typer

from kernelopt.cli.output import StdoutLost, emit_json, info, note, printing, say_stop, table, warn, width_of
from kernelopt.digits import times
from kernelopt.errors import EnvironmentProblem, NoGpu, UsageError, WritePlace, disk_problem
from kernelopt.oneline import shell_word
from kernelopt.tuning.budget import DEFAULT_WALL_S, FLOOR, BudgetRule, check_wall_s
from kernelopt.tuning.strategies import DEFAULT_STRATEGY, STRATEGIES

#: ``--repetitions`` and ``--candidate-timeout-s`` as ``tune PATH`` takes them when not given.
DEFAULT_REPETITIONS = 20
DEFAULT_CANDIDATE_TIMEOUT_S = 60.0

if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence

    from kernelopt.tunables import EditResult
    from kernelopt.tunables.model import Value
    from kernelopt.tuning.folder import FolderTuning, PreparedFolder, TuneRequest
    from kernelopt.tuning.original_figure import OriginalFigure
    from kernelopt.tuning.pace import RunWall
    from kernelopt.tuning.problem import Problem, ProblemShape
    from kernelopt.tuning.session import GainJudgement, Progress, SessionResult

#: Exit status of a session in which no candidate could be timed (each one's outcome is in its record).
EXIT_NOTHING_RAN = 1


PLOT_FILE = "search.png"
#: Where tune writes, as its disk errors say it (its flag is --out; optimize's is --root).
SESSION_FOLDER = WritePlace("the session folder", "--out")


def register(app: typer.Typer) -> None:
    @app.command("tune")
    def tune(
        path: Path | None = typer.Argument(
            None,
            help="A folder with kernel.py + reference.py [+ README.md] (as optimize takes), or a workspace "
            "(--dry-run only: the loop writes a workspace's kernel.py).",
        ),
        replay: Path | None = typer.Option(
            None,
            "--replay",
            help="A recorded sweep file (schema 1, docs/sweep-format.md; or a 2026-11-29 .json.gz): run the "
            "strategy against its recorded latencies, no GPU.",
        ),
        trials: int | None = typer.Option(
            None, "--trials", min=1, help="--replay: sessions to run, each with its own seed (default 100)."
        ),
        budget: int | None = typer.Option(
            None,
            "--budget",
            min=1,
            help=f"Candidates per session (default: the larger of {FLOOR} and 1/5 of the fit-pruned space).",
        ),
        budget_fraction: float | None = typer.Option(
            None, "--budget-fraction", help="Candidates per session as a fraction of the fit-pruned space."
        ),
        budget_wall_s: float | None = typer.Option(
            None, "--budget-wall-s", help=f"Wall seconds per session (default {DEFAULT_WALL_S:g}; replay: recorded)."
        ),
        strategy: str = typer.Option(DEFAULT_STRATEGY, "--strategy", help=f"One of {', '.join(STRATEGIES)}."),
        seed: int = typer.Option(0, "--seed", help="The strategy's seed (replay: the first trial's)."),
        kernel: str | None = typer.Option(
            None, "--kernel", help="Which launch: a kernel name or a launch label as `kernelopt tunables` prints it."
        ),
        device: str | None = typer.Option(
            None, "--device", help="cuda (default) or cpu: a torch CPU kernel, or a Triton kernel in its interpreter."
        ),
        out: Path | None = typer.Option(
            None,
            "--out",
            help="Parent of the session folder (record, candidates, plot, candidates.csv); default "
            "PATH/.kernelopt/tune.",
        ),
        size_scale: float | None = typer.Option(
            None,
            "--size-scale",
            help="Scale reference.py's size constants down for a quick run (0 < F <= 1; overrides the task card).",
        ),
        repetitions: int = typer.Option(
            DEFAULT_REPETITIONS,
            "--repetitions",
            min=1,
            help="Timing samples per candidate (the median is its latency).",
        ),
        candidate_timeout_s: float = typer.Option(
            DEFAULT_CANDIDATE_TIMEOUT_S,
            "--candidate-timeout-s",
            min=1.0,
            help="Limit for checking and timing one candidate, seconds: one that runs past it is a run_timeout "
            "failure and its worker starts again (a candidate that reads out of bounds in the interpreter can hang).",
        ),
        dry_run: bool = typer.Option(
            False,
            "--dry-run",
            help="Print the best configuration's diff and leave kernel.py unchanged; the session's record and "
            "plot are still written, and its candidates.csv (a rerun resumes from the record).",
        ),
        sweep: Path | None = typer.Option(
            None, "--sweep", help="A recorded sweep of the same space: its best is drawn as a line on the plot."
        ),
        within: Path | None = typer.Option(
            None,
            "--within",
            help="A recorded sweep of this launch: search only its values, so the result compares with its best "
            "(a ratio to a sweep's best holds only over the same space).",
        ),
        target: str | None = typer.Option(
            None,
            "--target",
            help="An NVIDIA GPU to compile the pick for before it is written (sm_90), no GPU needed: each launch on "
            "the SHAPES entries, specialized as Triton's JIT would; one that does not compile is not written. "
            "It cannot see shared memory or registers at launch, faults or wrong results there. Without it, a "
            "session on an NVIDIA GPU compiles the pick for that GPU (sm_90 on an H100) and writes no pick that "
            "races or loads wider than the source's alignment hints (wrong or faulting at sizes the checks miss).",
        ),
        as_json: bool = typer.Option(False, "--json", help="Print the result as JSON."),
    ) -> None:
        """Tune the launch configuration of a kernel folder (PATH), or replay the strategy on a sweep."""
        rule = _budget_rule(budget, budget_fraction, budget_wall_s)
        if not math.isfinite(candidate_timeout_s):  # a candidate that hangs would hold the session forever (b3)
            raise UsageError(f"--candidate-timeout-s must be a finite number of seconds, not {candidate_timeout_s:g}")
        if strategy not in STRATEGIES:
            raise UsageError(f"unknown strategy {strategy!r}", hint=f"known: {', '.join(STRATEGIES)}")
        if replay is not None:
            if path is not None:
                raise UsageError("give PATH (tune a kernel folder) or --replay SWEEP.json, not both")
            folder_only = {  # a replay runs the strategy on recorded latencies: it compiles, times and writes nothing
                "--target": target is not None,
                "--dry-run": dry_run,
                "--device": device is not None,
                "--kernel": kernel is not None,
                "--out": out is not None,
                "--size-scale": size_scale is not None,
                "--sweep": sweep is not None,
                "--within": within is not None,
                "--repetitions": repetitions != DEFAULT_REPETITIONS,
                "--candidate-timeout-s": candidate_timeout_s != DEFAULT_CANDIDATE_TIMEOUT_S,
            }
            if given := [flag for flag, on in folder_only.items() if on]:  # taken in silence before (n44)
                raise UsageError(
                    f"{', '.join(given)} {'goes' if len(given) == 1 else 'go'} with PATH only: --replay runs the "
                    "strategy on the sweep's recorded latencies, and compiles, times and writes nothing"
                )
            _replay(replay, trials=trials or 100, rule=rule, strategy=strategy, seed=seed, as_json=as_json)
            return
        if path is None:
            raise UsageError("give PATH (a folder with kernel.py and reference.py) or --replay SWEEP.json")
        if trials is not None:
            raise UsageError("--trials goes with --replay only", hint="a tuning session of PATH is one session")
        if target is not None:
            from kernelopt.harness.target_compile import parse_target

            try:
                parse_target(target)
            except ValueError as exc:
                raise UsageError(f"--target {exc}") from None
        for flag, given in (("--within", within), ("--sweep", sweep)):  # named by its flag, before any work
            if given is not None and not given.is_file():
                what = "is a folder, not a sweep file" if given.is_dir() else "no such file"
                raise UsageError(f"{flag} {given}: {what}")
        from kernelopt.tuning.bench_worker import BenchPlan
        from kernelopt.tuning.folder import TuneRequest
        from kernelopt.tuning.kernel_evaluator import EvaluatorSettings

        plan = BenchPlan(
            warmup_calls=min(3, repetitions), repetitions=repetitions, retime_rounds=max(1, repetitions // 2)
        )
        request = TuneRequest(
            folder=_folder(path, device),
            device=device,
            kernel=kernel,
            budget=budget,
            budget_fraction=budget_fraction,
            budget_wall_s=budget_wall_s,
            strategy=strategy,
            rng_seed=seed,
            out=_out(out),
            size_scale=size_scale,
            evaluator=EvaluatorSettings(plan=plan, bench_timeout_s=candidate_timeout_s),
            within=within,
            target=target,  # each pick compiled for it before the write, the next-best where it is refused
        )
        try:
            _tune(request, dry_run=dry_run, sweep=sweep, as_json=as_json)
        except OSError as exc:  # a full or read-only disk: one line naming the file and tune's own flag
            problem = disk_problem(exc, place=SESSION_FOLDER)
            if problem is None:
                raise
            raise problem from None


def _budget_rule(count: int | None, fraction: float | None, wall_s: float | None) -> BudgetRule:
    if count is not None and fraction is not None:
        raise UsageError("give --budget or --budget-fraction, not both")
    if fraction is not None and not 0 < fraction <= 1:  # nan fails this too
        raise UsageError(f"--budget-fraction must be in (0, 1], not {fraction:g}")
    if wall_s is not None:
        check_wall_s(wall_s, name="--budget-wall-s")
    return BudgetRule(count=count, fraction=fraction, wall_s=DEFAULT_WALL_S if wall_s is None else wall_s)


# ---------------------------------------------------------------------------------------------- a folder


def _folder(path: Path, device: str | None) -> Path:
    """PATH checked: a folder with kernel.py and reference.py; the device usable for it.

    Raises:
        UsageError: not such a folder, an unknown device, or a CUDA/HIP kernel on the CPU.
        EnvironmentProblem: no NVIDIA GPU for ``--device cuda`` (the default).
    """
    from kernelopt.cli.optimize import DEVICES, nvidia_gpu_present, refuse_gpu_framework_on_cpu
    from kernelopt.kernelsource import why_missing
    from kernelopt.workspace import Workspace, has_workspace_state

    if device is not None and device not in DEVICES:
        raise UsageError(f"unknown device {device!r}", hint="use cuda or cpu")
    if not path.is_dir():  # as optimize says it
        raise UsageError(
            f"{path}: {why_missing(path, 'folder')}", hint="PATH holds kernel.py and reference.py, as optimize takes"
        )
    missing = [n for n in ("kernel.py", "reference.py") if not (path / n).is_file()]
    odd = [n for n in missing if why_missing(path / n) != "no such file"]  # a dangling link, a folder
    if odd:
        raise UsageError(f"{path / odd[0]}: {why_missing(path / odd[0])}", hint="PATH holds kernel.py and reference.py")
    if missing and has_workspace_state(path):
        Workspace(path)  # a workspace whose kernel.py or reference.py was deleted: which, and how to restore it
    if missing:
        raise UsageError(f"{path}: no {' and no '.join(missing)}", hint="PATH holds kernel.py and reference.py")
    if device == "cpu":
        interpreted = refuse_gpu_framework_on_cpu(path)
        if interpreted is not None:
            note(interpreted)
    elif not nvidia_gpu_present():
        raise NoGpu(
            "no NVIDIA GPU found",
            doctor="run `kernelopt doctor`",
            on_cpu="tunes torch CPU kernels and Triton kernels (interpreted)",
        )
    return path


def _out(out: Path | None) -> Path | None:
    """``--out`` checked (:func:`kernelopt.destination.output_folder`): a folder, or a path whose nearest existing
    part is a folder (it is created), outside every workspace but in a workspace's ``.kernelopt/`` (the default).

    Raises:
        UsageError: ``--out`` or one of its parents is a file, or it lies in a workspace.
    """
    from kernelopt.destination import output_folder

    if out is None:
        return None
    # resolved: the candidates' files are loaded by worker processes that need not share this one's folder
    return output_folder(out, "--out", state_ok=True, hint="--out names the folder that holds the session folders")


def stop_words(stop: str) -> str:
    """Why a session ended, in words (``candidates``: "the budget's candidates spent")."""
    from kernelopt.tuning.session import StopReason

    return {
        StopReason.CANDIDATES: "the budget's candidates spent",
        StopReason.STALLED: "stalled",
        StopReason.WALL_TIME: "out of wall time",
        StopReason.STRATEGY_DONE: "nothing left to try",
        StopReason.INTERRUPTED: "interrupted",
        StopReason.CURRENT_FAILED: "the kernel as written failed its check",
    }[StopReason(stop)]


def _stops(stops: dict[str, int]) -> str:
    """``10 stalled (...)``, ``7 the budget's candidates spent, 3 ...``: why the replay's sessions ended."""
    stall = " (a default budget ends once max(24, k) candidates follow the last 1 % gain, at k)"
    return (
        ", ".join(f"{n} {stop_words(stop)}{stall if stop == 'stalled' else ''}" for stop, n in stops.items()) or "none"
    )


def _timed_shape(problem: Problem, timed: Sequence[ProblemShape]) -> str:
    """The shapes every candidate is checked and timed on, as ``name=value`` pairs, and which entries are left
    out (the interpreter would take too long on them)."""
    from kernelopt.tuning.problem import reference_shapes

    shapes = reference_shapes(problem.reference_py, constants=problem.constants, device=problem.device) or []
    shown = list(timed) or [problem.primary_shape(shapes)]

    from kernelopt.harness.model import shown_value
    from kernelopt.kernelsource import shapes_built_by_code

    # a SHAPES built by code that could not be read here (reference.py fails to import): not "the defaults",
    # which no run will time; the first run that imports reference.py says why
    defaults = (
        "the entries reference.py's SHAPES code builds (not read here: importing reference.py failed)"
        if not shapes and shapes_built_by_code(problem.reference_py)
        else "get_inputs()'s defaults"
    )

    def text(values: Mapping[str, object]) -> str:
        return ", ".join(f"{k}={shown_value(v)}" for k, v in values.items()) or defaults

    line = "; ".join(text({**s.constants, **s.kwargs}) for s in shown)
    if len(shown) > 1:
        line = f"{len(shown)} shapes, each candidate checked on every one: {line}"
    kept = {tuple(sorted(s.kwargs.items())) for s in shown}
    left = [e for e in shapes if tuple(sorted(e.items())) not in kept]
    if left and problem.shape is None and problem.interpreted:
        sizes = "; ".join(text(e) for e in left)
        line += f" (not in the interpreter, too large: {sizes})"
    return line


def _tune(request: TuneRequest, *, dry_run: bool, sweep: Path | None, as_json: bool) -> None:
    """Tune under the folder's lock; an interrupt anywhere before the write leaves kernel.py as it was.

    The plot's heavy modules (matplotlib, numpy) are imported first, whole: an interrupt in the middle of a
    first import ends the run here, before any session, and never leaves half a module for the plot.
    """
    from kernelopt.report.search_plot import preload
    from kernelopt.workspace import kernel_locks

    kernel_py = Path(request.folder) / "kernel.py"
    try:
        preload()
        with (
            # the lock of the folder (the one optimize takes on a workspace, and tunables --set on its kernel.py),
            # and of the folder of the file a symbolic kernel.py names
            kernel_locks(
                kernel_py,
                command="tune",
                hint="wait for it or stop it (a stopped run resumes at its next start)",
            ),
            ExitStack() as locks,  # the session folder's, once it is known
        ):
            _tune_locked(request, dry_run=dry_run, sweep=sweep, as_json=as_json, locks=locks)
    except KeyboardInterrupt as exc:  # before the session's first round (or before its start)
        _interrupted(f"interrupted{_by(exc)} before any candidate finished; {kernel_py.name} unchanged", 130)


def left_out(prepared: PreparedFolder) -> list[str]:
    """One line for each knob of the launch being tuned that discovery could not edit: left out of the space, said,
    never dropped in silence (a user's ``BM=64 if M >= 128 else 16`` under a name no known knob)."""
    same: dict[tuple[str, str], list[str]] = {}  # one reason for a setting of every config of a list: one line
    for t in prepared.tunables:
        if t.kernel == prepared.space.kernel and not t.semantic and t.refused_reason is not None:
            same.setdefault((t.name, t.refused_reason), []).append(t.key)
    return [
        f"not tuned: {keys[0]}{f' and {len(keys) - 1} more of {name}' if len(keys) > 1 else ''}: {why}"
        for (name, why), keys in same.items()
    ]


def _not_a_workspace(folder: Path) -> None:
    """Refuse to write the kernel.py of a workspace: its files are written by the loop's stages only, as versions.
    A tune there left kernel.py changed outside any version, and `kernelopt optimize` then refused to run ("has
    uncommitted changes"); the MCP server's tune never writes it either.

    Raises:
        UsageError: ``folder`` lies in a workspace (exit 2, before the session).
    """
    from kernelopt.workspace import enclosing_workspace

    ws = enclosing_workspace(folder.resolve())
    if ws is not None:
        where = "a kernelopt workspace" if ws == folder.resolve() else f"inside the kernelopt workspace {ws}"
        raise UsageError(
            f"{folder}: {where}, whose kernel.py only the loop's stages write, as versions",
            hint=f"`kernelopt optimize {shell_word(folder)}` runs this tuning session as its Stage 3 and gates the "
            "result; "
            "--dry-run times it here without writing",
        )


def _tune_locked(
    request: TuneRequest,
    *,
    dry_run: bool,
    sweep: Path | None,
    as_json: bool,
    locks: ExitStack,
) -> None:
    """Prepare, run the session with a progress bar, write the best configuration, draw, print.

    The session folder is locked too (into ``locks``): two folders that hold the same kernel and reference share
    it under one ``--out``, and two tunes there at once timed under each other's load, each serving the other's
    measurements as they were made (second fault trial, t4).
    """
    from kernelopt.backends.session_files import write_table
    from kernelopt.fileio import SourceChanged, replace_source, signals_held, source_target
    from kernelopt.tuning.folder import prepare_folder, summarize, tune_folder
    from kernelopt.tuning.pace import before_line, discovery_work
    from kernelopt.tuning.session import StopReason
    from kernelopt.workspace import RunLock

    sweep_best, sweep_label = _sweep_best(sweep) if sweep is not None else (None, None)
    if not dry_run:
        # a hard-linked or read-only kernel.py, or one in a folder or file system that cannot be written: refused
        # now, not at the end
        source_target(Path(request.folder) / "kernel.py")
        _not_a_workspace(Path(request.folder))
    reference_py = Path(request.folder) / "reference.py"
    reference_before = _bytes_of(reference_py)  # its SHAPES decide what the pick was checked on
    began = time.monotonic()  # the run's wall against the session's stated one (claims21 w6)
    prepared = prepare_folder(request)
    locks.enter_context(
        RunLock(
            prepared.session_dir,
            command="tune",
            hint="it tunes the same kernel and reference into the same --out; wait for it, or give this one another "
            "--out",
        )
    )
    kernel_py = prepared.problem.kernel_py
    space = prepared.space
    _say_before(prepared, request)
    before = before_line(time.monotonic() - began, prepared.budget.wall_s, discovery_work(prepared.evaluation))
    if before is not None:
        note(before)  # the wall counts discovery (late49's l191): said before the session, with what is left
    try:
        # the total from the start, not "0/?", and the wall the session keeps to, counted from the run's start
        with _Bar(prepared.budget.candidates(space.size.count), prepared.budget.wall_s, began) as bar:
            session_began = time.monotonic()
            tuning = tune_folder(prepared, on_progress=bar.update, began_s=began)
            session_ended = time.monotonic()
    except KeyboardInterrupt as exc:  # the evaluator's start, or the bar's end: the session's own is a stop
        _interrupted(
            f"interrupted{_by(exc)}; {kernel_py.name} unchanged; the session record keeps what was measured "
            f"({prepared.record_path})",
            130,
        )
    for line in [*tuning.check_notes, *(line for _, line in tuning.set_aside)]:  # as validate warns of the gate's check
        warn(line)
    r = tuning.result
    if r.stop is StopReason.INTERRUPTED:
        _interrupted(_unfinished(tuning), 130)
    _refuse_bad_input(tuning)
    edit = None
    written = False
    refused: str | None = None
    try:
        tuning, edit, refused, target_line = _checked_edit(tuning, reference_py, reference_before)
        # the plot before the write: a disk that fills while it is drawn stops the run with kernel.py unchanged
        plot = _draw(tuning, sweep_best, sweep_label)
        candidates = write_table(tuning)
        run_wall = _run_wall(tuning, began, session_began, session_ended)
        if (past := run_wall.line()) is not None:
            note(past)
        if edit is not None and not dry_run:
            with signals_held():  # an interrupt lands before the write (none made) or after it (`written`)
                replace_source(prepared.source, edit.new_source)
                written = True
        elif edit is not None and prepared.source.raw != _bytes_of(kernel_py):
            raise SourceChanged(f"{kernel_py} changed during the session")  # the diff would be of old text
        summary = summarize(tuning)
        unchecked = _unchecked(tuning) if written or (dry_run and edit is not None and edit.diff) else None
        if unchecked:  # said plainly, on stderr as the entries set aside are, and in the verdict
            warn(unchecked)
        changing = None if written or as_json else _changing_results(tuning)
        with printing():  # a stdout that refuses the output (| head, > /dev/full) after the write: said below
            if as_json:
                verdict = verdict_line(
                    tuning.result,
                    tuning.judgement,
                    kernel_py=kernel_py.name,
                    written=written,
                    dry_run=dry_run and edit is not None and bool(edit.diff),
                    set_aside=tuple(label for label, _ in tuning.set_aside),
                    kept=_kept(tuning),
                    unchecked=unchecked,
                    original=tuning.against_original,
                    interpreted=_interpreted(tuning),
                )
                emit_json(
                    {
                        **summary.model_dump(mode="json"),
                        "written": written,
                        "dry_run": dry_run,
                        "diff": edit.diff if edit is not None else "",
                        "kernel_py": str(kernel_py),
                        "plot": str(plot) if plot is not None else None,
                        "table": str(candidates),
                        "run_wall": run_wall.model_dump(mode="json"),
                        "sweep_best_us": sweep_best,
                        "sweep_best_label": sweep_label,
                        "target": target_line or _target_unreached(tuning),
                        "verdict": verdict,
                    }
                )
                # stderr's last lines, after the progress lines' first-round bests: what the JSON says of the re-time
                # (claim20: the progress said NUM_STAGES=3 at 11.99 us, the JSON NUM_STAGES=2 at 12.01 us, and nothing
                # in the text said which was the pick or that the re-time had read the current 13x slower)
                unretimed = tuning.result.unretimed
                for line in ([unretimed] if unretimed else []) + [f"verdict: {verdict}"]:
                    note(line)
            else:
                diff = edit.diff if edit is not None else ""
                _render(
                    tuning,
                    diff,
                    written=written,
                    dry_run=dry_run,
                    plot=plot,
                    say_verdict=changing is None,
                    target_line=None if refused is not None else target_line,
                    unchecked=unchecked,
                    table_path=candidates,
                )
    except StdoutLost as exc:  # exit 0 when kernel.py was written (the exit code says which), else exit 3
        if written and edit is not None:
            from kernelopt.tuning.folder import config_text

            _interrupted(
                f"{kernel_py.name} holds the session's best, {config_text(r.best_config)} (written); the summary "
                f"could not be printed: stdout refused it ({exc.reason})",
                0,
            )
        raise
    except SourceChanged as exc:
        from kernelopt.tuning.folder import config_text

        deleted = not (kernel_py.exists() or kernel_py.is_symlink())
        kept = f"; a save that reached the new text while it was in place is in {exc.kept}" if exc.kept else ""
        raise UsageError(
            f"{kernel_py} {'was deleted' if deleted else 'changed'} during the session: nothing written, the file "
            f"is as you left it (the best found, {config_text(r.best_config)}, is in the session record "
            f"{prepared.record_path}{kept})",
            # a deleted file cannot be tuned "as it is now" (second fault trial, t9)
            hint="restore it and run again: the record serves what was measured"
            if deleted
            else "run again to tune the file as it is now",
        ) from None
    except KeyboardInterrupt as exc:  # the session is over: say what kernel.py holds
        if written and edit is not None:
            from kernelopt.tuning.folder import config_text

            _interrupted(
                f"interrupted{_by(exc)} after the write: {kernel_py.name} holds the session's best, "
                f"{config_text(r.best_config)} (the summary was cut short)",  # the plot is drawn before the write
                0,
            )
        _interrupted(f"interrupted{_by(exc)} after the session; {kernel_py.name} unchanged", 130)
    if refused is not None:
        say_stop(refused)
        raise typer.Exit(EXIT_NOTHING_RAN)
    if r.best_latency_us is None:
        raise typer.Exit(EXIT_NOTHING_RAN)  # not one candidate was timed: a failed session, not a result
    line = None if written else _changing_results(tuning)
    if line is not None:  # bad input for tuning: nothing here moves without changing the results
        raise UsageError(line)


def _refuse_bad_input(tuning: FolderTuning) -> None:
    """Bad input for tuning, said as the session found it: the kernel as written does not meet its reference, or
    (nothing timed) a ``SHAPES`` entry the original cannot run. Raises :class:`UsageError` (kernel.py unchanged)."""
    from kernelopt.tuning.candidate import Config
    from kernelopt.tuning.dot_precision import current_failed_hint
    from kernelopt.tuning.session import current_failed_line, current_failure
    from kernelopt.tuning.shapes import unrunnable_entry_line

    prepared, r = tuning.prepared, tuning.result
    kernel_py = prepared.problem.kernel_py
    failed = current_failed_line(r, kernel_py.name)
    if failed is not None:  # bad input for tuning: the kernel itself does not meet its reference
        failure = current_failure(r)
        error_class = failure.error_class if failure is not None else None
        raise UsageError(
            f"{failed}; {kernel_py.name} unchanged", hint=current_failed_hint(prepared.problem, error_class)
        )
    unrunnable = unrunnable_entry_line(
        Config.of(r.current_config) if r.current_config is not None else None,
        r.results,
        kernel_py.name,
        first=prepared.shapes[0].label() if prepared.shapes else None,
    )
    if unrunnable is not None and r.best_latency_us is None:  # bad input: an entry the original cannot run
        raise UsageError(f"{unrunnable}; {kernel_py.name} unchanged")


def _checked_edit(
    tuning: FolderTuning, reference_py: Path, reference_before: bytes | None
) -> tuple[FolderTuning, EditResult | None, str | None, str | None]:
    """The edit to write where the session judged its pick better, checked before the write: reference.py as the
    session started (``reference_before``; else :class:`UsageError`), the gate's check of the text
    (:func:`_gate_refusal`) and its compile for ``--target`` (:func:`~kernelopt.tuning.folder.target_checked`).
    Returns ``tuning`` (not better, by the refusal, where one refuses: its ``--json`` agrees with what is written),
    the edit (``None`` when refused or not better), the refusal's line and the ``--target`` line."""
    from kernelopt.tuning.folder import best_edit, target_checked

    prepared = tuning.prepared
    edit = best_edit(tuning) if tuning.judgement.better else None
    if edit is not None and _bytes_of(reference_py) != reference_before:
        raise UsageError(
            f"{reference_py} changed during the session: nothing written, {prepared.problem.kernel_py.name} is as "
            f"you left it (the pick was checked on the SHAPES the session started with; the session record is "
            f"{prepared.record_path})",
            hint="run again to tune against reference.py as it is now",
        )
    refused = _gate_refusal(prepared, edit.new_source) if edit is not None else None
    target_line: str | None = None  # what the compile for --target said (n43)
    checked = target_checked(prepared, edit.new_source) if refused is None and edit is not None else None
    if checked is not None:  # what the target GPU's compiler refuses (the session's compile of this text, once)
        refused = checked.line if checked.refused else None
        target_line = checked.line
    if refused is not None:
        edit = None  # nothing is written that the gate's check refuses (issue 32, item 2)
        # and the json's better says so, as the verdict does (honest15: better agrees with what is written)
        tuning = replace(tuning, judgement=tuning.judgement.model_copy(update={"better": False, "reason": refused}))
    return tuning, edit, refused, target_line


def _target_unreached(tuning: FolderTuning) -> str | None:
    """``--json``'s ``target`` where a target is named and no pick reached the write (the session's own compile for
    it refused each for its spills, or nothing beat kernel.py): why nothing was compiled there, where it was ``null``
    beside the refusal in ``edit_note`` (newuser14's "seen"); ``None`` without a target (named, or the GPU's own:
    :func:`~kernelopt.tuning.folder.session_target`)."""
    from kernelopt.oneline import one_line
    from kernelopt.tuning.folder import session_target

    target, asked, _ = session_target(tuning.prepared)
    if target is None:
        return None
    why = tuning.edit_note or tuning.judgement.reason
    own = "" if asked else " (this GPU's)"
    return one_line(f"nothing compiled for {target}{own} before a write: no pick reached it ({why})", 600)


def _say_before(prepared: PreparedFolder, request: TuneRequest) -> None:
    """What the session is about to do, said before it runs: the task card's warnings, the launch, its knobs, space
    and budget, what the space leaves out, the other launches, the shapes timed, and the notes on the problem (its
    sizes, idle shapes, a tl.dot in TF32, the author's screen, ``--within``, a space below the budget's floor)."""
    from kernelopt.tunables.inline_guard import unmarked_guards
    from kernelopt.tunables.launches import loop_kernels
    from kernelopt.tuning.dot_precision import tf32_line
    from kernelopt.tuning.folder import idle_line, list_note, screen_lines
    from kernelopt.tuning.launch import choice_line
    from kernelopt.tuning.problem import default_size_hint, empty_entry_lines

    kernel_py = prepared.problem.kernel_py
    for problem in prepared.card.warnings():  # as optimize says them (an unknown gpu)
        warn(problem)
    space = prepared.space
    note(
        f"tuning {space.launch}: {', '.join(k.describe() for k in space.knobs)}; space {space.size} of "
        f"{space.raw_size} fit; budget {prepared.budget.describe()}, {prepared.budget.wall_s:g} s"
    )
    listed = list_note(prepared)
    for line in (*space.domain_notes, *left_out(prepared), *([listed] if listed else [])):
        note(line)
    unmarked = unmarked_guards(prepared.base_source, kernel_py.name)
    if unmarked is not None:
        note(unmarked)
    looped = loop_kernels(prepared.base_source)
    chosen = choice_line(prepared.tunables, space, looped) if request.kernel is None else None
    if chosen is not None:
        note(chosen)
    note(f"timed on {_timed_shape(prepared.problem, prepared.user_shapes)}")
    for line in empty_entry_lines(prepared.problem.reference_py, prepared.entries):
        warn(line)
    large = default_size_hint(prepared.problem, [s.kwargs for s in prepared.shapes if s.kwargs])
    if large is not None:
        note(large)
    idle = idle_line(prepared)
    if idle is not None:
        note(idle)
    tf32 = tf32_line(prepared.problem)
    if tf32 is not None:
        note(tf32)
    for line in screen_lines(prepared):
        note(line)
    if prepared.within is not None:
        note(prepared.within.line())
    small = prepared.budget.below_floor(space.size.count)
    if small is not None:
        note(small)


def _changing_results(tuning: FolderTuning) -> str | None:
    """The one line of a session whose every move changed the kernel's results (it ends the run, exit 2, in place
    of the verdict); ``None`` otherwise, and for a kernel.py an earlier tune wrote tuned lines into: there the
    current configuration is the tuned one, the only correct value left, and the verdict stands (a retune of a
    row-normalize's ``if n_cols <= 256:  # kernelopt: tuned`` said "the current configuration is the best found",
    then "nothing to tune (a block that must cover the row?)", exit 2)."""
    from kernelopt.tunables.inline_guard import TUNED, unmarked_guards
    from kernelopt.tuning.session import changing_results_line

    text = tuning.prepared.source.text
    if TUNED in text or unmarked_guards(text) is not None:
        return None
    return changing_results_line(tuning.result, tuning.prepared.problem.kernel_py.name)


def _gate_refusal(prepared: PreparedFolder, source: str) -> str | None:
    """Why the pick (``source``, the text about to be written) must not be written: it fails the gate's
    correctness check at a seed after 0, which the session's own check (seed 0) cannot see; ``None`` otherwise.

    Only where the gate's seeds 1+ are not new inputs: a ``get_inputs`` that seeds its own generator and takes no
    seed gives every seed the same values, and the gate permutes seeds 1+
    (:func:`kernelopt.kernelsource.seeds_its_own_inputs`). Sorted boundaries, unsorted so, failed `validate`,
    `optimize` and `batch` while `tune` wrote a 4.2x faster kernel.py (issue 32, items 2 and 5). The line says
    whether kernel.py as it is fails the same check (then no configuration can pass it)."""
    from kernelopt.harness.gate import check_files
    from kernelopt.harness.model import Culprit
    from kernelopt.harness.settings import HarnessSettings
    from kernelopt.kernelsource import seeds_its_own_inputs

    problem = prepared.problem
    if not seeds_its_own_inputs(problem.reference_py):
        return None
    settings = HarnessSettings.from_env(None, device=problem.device)
    if settings.seeds < 2:
        return None  # one seed: the gate checks what the session checked

    def check(kernel_py: Path, label: str) -> str | None:
        report = check_files(
            kernel_py,
            problem.reference_py,
            prepared.session_dir,
            label=label,
            settings=settings,
            dtype_hint=problem.dtype_hint,
            constants=dict(problem.constants),
        )
        # a failure at seed 0 is the session's to see; one after it (seed 0 passed in that case) is not
        unseen = [c for c in report.cases if not c.passed and c.seeds >= 1]
        return report.message if not report.passed and report.culprit is Culprit.KERNEL and unseen else None

    pick = prepared.session_dir / "gate-check" / problem.kernel_py.name
    pick.parent.mkdir(parents=True, exist_ok=True)
    pick.write_text(source, encoding="utf-8")
    why = check(pick, "pick")
    if why is None:
        return None
    name = problem.kernel_py.name
    also = (
        f"; {name} as it is fails it too, as `kernelopt validate` says"
        if check(problem.kernel_py, "v0") is not None
        else ""
    )
    return f"the pick fails the gate's correctness check: {why}{also}; nothing written, {name} unchanged"


def _bytes_of(path: Path) -> bytes | None:
    """``path``'s bytes; ``None`` when it is gone or a folder now (so it reads as changed)."""
    try:
        return path.read_bytes()
    except (FileNotFoundError, IsADirectoryError):
        return None


def _by(exc: BaseException) -> str:
    """`` by SIGTERM`` for a termination signal turned into an interrupt; empty for Ctrl-C."""
    from kernelopt.proc import interrupt_signal

    name = interrupt_signal(exc)
    return f" by {name}" if name else ""


def _unfinished(tuning: FolderTuning) -> str:
    """The line of an interrupted session: what it had, that kernel.py is unchanged, how to resume."""
    from kernelopt.tuning.folder import config_text

    r = tuning.result
    ran = r.evaluations + r.served
    kernel_py = tuning.prepared.problem.kernel_py.name
    served = f"{r.served} from the record; " if r.served else ""
    by = f" by {r.interrupted_by}" if r.interrupted_by else ""  # as an interrupt outside the session says it (t13)
    if not ran:
        return f"interrupted{by} before any candidate finished; {kernel_py} unchanged"
    if r.best_latency_us is None:
        had = f"after {ran} candidate(s) ({served}none timed)"
    else:
        best = f"{config_text(r.best_config)}, {_latency(r.best_latency_us)}"
        # cut in the check of the text to write, the best was re-timed: "not re-timed" was said there too (t9)
        timed = "re-timed, its edit not yet checked" if r.retimed else "not re-timed"
        had = f"after {ran} candidate(s) ({served}best so far {best}, {timed})"
    return (
        f"interrupted{by} {had}; {kernel_py} unchanged; the session record keeps what was measured and a rerun "
        f"resumes from it ({tuning.prepared.record_path})"
    )


def _interrupted(line: str, code: int) -> None:
    """Say ``line`` on stderr and end with ``code`` (130: kernel.py unchanged; 0: the write was made); a second
    interrupt from here on changes neither (the line is the only one)."""
    from kernelopt.cli.start import ignore_interrupts

    ignore_interrupts()
    say_stop(line)
    raise typer.Exit(code)


def _guarded_line(tuning: FolderTuning) -> str:
    """The line of a file whose guard, written by an earlier tune, holds other settings at some sizes: the knobs the
    guard moves (the whole configuration three times over was hard to read) and where."""
    from kernelopt.tunables.guard import may_hold_inline_guards
    from kernelopt.tunables.inline_guard import TUNED
    from kernelopt.tuning.folder import config_text

    r, guarded = tuning.result, tuning.guarded or {}
    current = r.current_config or {}
    moved = {k: v for k, v in guarded.items() if current.get(k) != v} or guarded
    name = tuning.prepared.problem.kernel_py.name
    where = (
        f"the guard an earlier tune wrote into {name} holds (`# kernelopt: tuned`)"
        if TUNED in tuning.prepared.base_source or not may_hold_inline_guards(tuning.prepared.base_source)
        else f"the inline guard at the launch in {name} holds (`... if <size> % ... == 0 else ...`)"
    )
    return (
        f"current: {config_text(r.current_config)}, and {config_text(moved)} wherever {where}: the file as "
        f"written, timed once as {config_text(guarded)}"
    )


def _per_shape_table(tuning: FolderTuning) -> None:
    """The per-shape table: each shape's own best beside the chosen configuration's and the current one's latency."""
    from kernelopt.tuning.folder import config_text, per_shape_in_user_order

    table(
        "per shape (latency, us)",
        ["shape", "its own best", "latency", "chosen's latency", "chosen vs its best", "current's latency"],
        [
            [
                s.shape,
                config_text(s.best_config),
                s.best_latency_us,
                s.chosen_latency_us,
                f"{s.within_pct:+.1f} %" if s.within_pct is not None else "-",
                s.current_latency_us,
            ]
            for s in per_shape_in_user_order(tuning)
        ],
        wide="its own best",
    )


def _render(
    tuning: FolderTuning,
    diff: str,
    *,
    written: bool,
    dry_run: bool,
    plot: Path | None,
    say_verdict: bool = True,
    unchecked: str | None = None,
    target_line: str | None = None,
    table_path: Path | None = None,
) -> None:
    """The session's tables, diff, verdict (unless ``say_verdict`` is False: a line that ends the run says it) and
    where its record, plot and table (``candidates.csv``) are; ``target_line``: what the compile for ``--target`` said
    of a pick it let through."""
    from kernelopt.tuning.folder import config_text

    r, j = tuning.result, tuning.judgement
    # one line above the table: as its title it wrapped at the table's width ("... space 9," / "2.4 s (candidates)")
    info(
        f"{tuning.prepared.space.launch}: {r.evaluations} evaluated, {r.served} from the record, "
        f"space {r.space_size}, {r.wall_s:.1f} s; ended: {stop_words(r.stop.value)}"
    )
    table(
        None,
        # a candidate's latency is the sum of its medians over the shapes timed (the per-shape table splits it)
        [
            "",
            "configuration",
            f"latency (us, sum of {n} shapes)" if (n := len(_kept(tuning))) > 1 else "latency (us)",
        ],
        [
            ["current", _current_text(tuning), r.current_latency_us],
            ["best", config_text(r.best_config), r.best_latency_us],
        ],
        wide="configuration",
    )
    retimed = r.retime_note()  # the table's figures are the re-time's: said where they differ from the progress's,
    if retimed and not (r.reordered() and not j.table):  # here unless the verdict says it (a pick it reordered)
        info(retimed)
    computed = computed_line(tuning)
    if computed:
        info(computed)
    evaluation = tuning.prepared.evaluation
    if evaluation is not None and evaluation.first_call:  # seen in discovery's run of the task, in a fresh process
        info(f"the kernel as written is {evaluation.first_call}")
    if tuning.list_as_written:  # the keyed list's autotuner, run as written, picked other than the fastest pinned
        info(tuning.list_as_written)
    if tuning.guarded:
        info(_guarded_line(tuning))
    if tuning.per_shape:
        _per_shape_table(tuning)
    if tuning.choice is not None and tuning.per_shape:
        info(tuning.choice.reason)
    kernel_py = tuning.prepared.problem.kernel_py.name
    verdict = verdict_line(
        r,
        j,
        kernel_py=kernel_py,
        written=written,
        dry_run=dry_run and bool(diff),
        set_aside=tuple(label for label, _ in tuning.set_aside),
        kept=_kept(tuning),
        unchecked=unchecked,
        original=tuning.against_original,
        interpreted=_interpreted(tuning),
    )
    note = note_beside(tuning.edit_note, verdict)
    if note:
        info(note)
    if tuning.net is not None and tuning.net.failed is None:  # a failure is the note's
        info(tuning.net.line())
    if target_line:
        info(target_line)
    if r.unretimed:
        info(r.unretimed)
    if diff:
        info(diff.rstrip())
    if say_verdict:
        info(verdict)
    for line in (failures_line(r), refused_line(r)):
        if line:
            info(line)
    if tuning.record_aside:
        info(tuning.record_aside)
    record = f"session record: {tuning.prepared.record_path}"
    if r.served:  # what was served was not timed now: say how to time it again
        record += f" ({r.served} served from it; delete it to time them again)"
    info(record + (f"; plot: {plot}" if plot else "") + (f"; table: {table_path}" if table_path else ""))


def note_beside(note: str | None, verdict: str) -> str | None:
    """The edit's note without what the verdict line already says (the reason an edit could not be written, a
    table's judgement: each is said once), ``None`` when nothing is left."""
    if not note:
        return None
    parts = [part for part in note.split("; ") if part and _refusal(part) not in verdict]
    return "; ".join(parts) or None


def _refusal(part: str) -> str:
    """A refusal's reason without its "not written" ends, as the verdict line says it (late34's z111 line gives the
    reason without them)."""
    return part.removeprefix("not written: ").removesuffix(": not written")


def computed_line(tuning: FolderTuning) -> str | None:
    """What ``computed`` stands for in the current configuration: the knobs kernel.py computes from the problem,
    their expression and the value it gave at each shape where the run told (``None`` when no knob is computed).

    ``current: BLOCK_SIZE computed (triton.next_power_of_2(n_cols)): 16 at n_cols=10, 128 at n_cols=100``
    """
    from kernelopt.tunables.inline_guard import TUNED
    from kernelopt.tuning.folder import computed_by_shape, computed_knobs

    knobs = computed_knobs(tuning.prepared)
    if not knobs:
        return None
    names = list(knobs)
    exprs = "; ".join(dict.fromkeys(knobs.values()))
    by_shape = computed_by_shape(tuning.prepared)
    values = [f"{'/'.join(str(v.get(n, '?')) for n in names)} at {label}" for label, v in by_shape.items() if v]
    line = f"current: {', '.join(names)} computed ({exprs})"
    if values:
        line += f": {', '.join(values)}" if len(names) == 1 else f", {'/'.join(names)} = {', '.join(values)}"
        if TUNED in tuning.prepared.base_source:  # the values are the file's, not the expression's alone
            kernel_py = tuning.prepared.problem.kernel_py.name
            line += f"; with the lines an earlier tune wrote into {kernel_py} (`# {TUNED}`)"
    return line


def _current_text(tuning: FolderTuning) -> str:
    """The current configuration as the session's table names it: a keyed autotune list of a few configurations is
    each of them, one picked per key (its latency on a shape is the fastest of them there)."""
    from kernelopt.tuning.folder import config_text

    if not tuning.current_list:
        return config_text(tuning.result.current_config)
    return f"the list's {' | '.join(config_text(c) for c in tuning.current_list)}, one per key"


def verdict_line(
    result: SessionResult,
    judgement: GainJudgement,
    *,
    kernel_py: str,
    written: bool,
    dry_run: bool,
    set_aside: tuple[str, ...] = (),
    kept: tuple[str, ...] = (),
    unchecked: str | None = None,
    original: OriginalFigure | None = None,
    interpreted: str | None = None,
) -> str:
    """The session's outcome in one line: the best and how much faster it is than the current configuration
    (the knobs that differ), and what happened to kernel.py; or why the current configuration stays. Where the
    session set ``SHAPES`` entries aside (``set_aside``, their labels), the figures say they are the entries kept's
    (``kept``) alone (:func:`_summed`). A kernel written (or shown, ``--dry-run``) with net sizes unchecked for want
    of time says so at its end (``unchecked``, :meth:`~kernelopt.tuning.net.NetVerdict.unchecked_line`). A retune
    over guards an earlier write left (``original``: the written kernel re-timed beside the original computation
    they fall back to) names its current as kernel.py as it runs now and gives the figure against the original too.
    A Triton kernel timed in the interpreter says so before the write's words (``interpreted``,
    :func:`interpreted_word`).

    ``best BLOCK=4096: 7.39 us, 41.1x faster than the current BLOCK=64 (304.1 us); written to kernel.py``
    """
    line = _outcome_line(result, judgement, kernel_py=kernel_py, written=written, dry_run=dry_run,
                         set_aside=set_aside, kept=kept, original=original)  # fmt: skip
    if interpreted and (written or dry_run):  # before the write's words, which stay the line's end
        tail = f"; written to {kernel_py}" if written else f"; --dry-run: {kernel_py} left unchanged"
        line = f"{line.removesuffix(tail)}; {interpreted}{tail}" if line.endswith(tail) else line
    return f"{line}; {unchecked}" if unchecked and (written or dry_run) else line


def interpreted_word(
    *,
    interpreted: bool,
    current_list: Sequence[dict[str, Value]],
    best_config: dict[str, Value] | None,
    per_bucket: bool,
) -> str | None:
    """What a pick timed in Triton's interpreter on the CPU (``interpreted``) is evidence of, said where it is written
    (or shown, ``--dry-run``); ``None`` for any other session. The interpreter runs one program at a time, so its
    timing favours the fewest programs and says nothing of a GPU's speed (``num_warps`` and ``num_stages`` change
    nothing there): fresh27's ``tune --device cpu`` cut a two-config ``@triton.autotune`` list to one config on such
    timings without a word. The write stays (the CPU path is the documented way to try ``tune`` and to check a written
    kernel's results), and the words say what it rests on; a keyed list (``current_list``) written as one config
    (``best_config``, not a table by bucket, ``per_bucket``) says that its autotuner no longer chooses on a GPU."""
    from kernelopt.tuning.folder import config_text

    if not interpreted:
        return None
    word = (
        "timed in Triton's interpreter on the CPU, which says nothing of a GPU's speed (it favours the fewest "
        "programs): time it on a GPU (--device cuda) before keeping it"
    )
    if len(current_list) > 1 and best_config is not None and not per_bucket:
        word += (
            f"; the autotune list of {len(current_list)} configs becomes {config_text(best_config)} alone, so a "
            "GPU's autotuner no longer chooses among them (the diff shows the list it had)"
        )
    return word


def _interpreted(tuning: FolderTuning) -> str | None:
    """:func:`interpreted_word` of a session."""
    return interpreted_word(
        interpreted=tuning.prepared.problem.interpreted,
        current_list=tuning.current_list,
        best_config=tuning.result.best_config,
        per_bucket=tuning.judgement.per_bucket,
    )


def _stays(result: SessionResult, current_text: str, best_text: str, best_at: str) -> str:
    """``the current configuration stays (BLOCK=64, 444 ms); the best found, BLOCK=128 (314 ms),``: what kernel.py
    keeps, then the best that was not written (late34 z111: the parenthesis named the best as if it stayed)."""
    stays = "the current configuration stays"
    if result.current_config:
        at = _latency(result.current_latency_us) if result.current_latency_us is not None else "not timed"
        stays += f" ({current_text}, {at})"
    return f"{stays}; the best found, {best_text} ({best_at}),"


def _unchecked(tuning: FolderTuning) -> str | None:
    """The line of the net's sizes left unchecked for want of time beside the kernel to write (``None``: none)."""
    return tuning.net.unchecked_line() if tuning.net is not None and tuning.net.failed is None else None


def _outcome_line(
    result: SessionResult,
    judgement: GainJudgement,
    *,
    kernel_py: str,
    written: bool,
    dry_run: bool,
    set_aside: tuple[str, ...],
    kept: tuple[str, ...],
    original: OriginalFigure | None = None,
) -> str:
    """:func:`verdict_line` less what the net left unchecked."""
    from kernelopt.tuning.folder import config_text
    from kernelopt.tuning.kernel_evaluator import same_value
    from kernelopt.tuning.session import StopReason

    best, current = result.best_config, result.current_config
    if best is None or result.best_latency_us is None:
        if not result.results and result.stop is StopReason.WALL_TIME:
            return f"the wall time ran out ({result.wall_s:.3g} s) before any candidate ran; {kernel_py} left unchanged"
        partial = sum(1 for r in result.results if r.latency_us_by_shape)  # timed at some entries, failed one
        if partial:
            return (
                f"no candidate passed every SHAPES entry ({partial} timed at some of them, each one's outcome in "
                f"the session record); {kernel_py} left unchanged"
            )
        loading = _fails_as_loaded(result)
        if loading is not None:  # the kernel as given, whatever its knobs (n162): the user's to fix, not a search's
            return (
                f"no candidate ran: {kernel_py} fails as it is imported, whatever its knobs ({loading}); fix it, "
                f"then run again; {kernel_py} left unchanged"
            )
        written_fails = _current_fails(result)
        if written_fails is not None:  # the kernel as written fails too (f51): the user's to fix, not a search's
            return (
                f"no candidate passed: {kernel_py} fails as written ({written_fails}); fix it, then run again; "
                f"{kernel_py} left unchanged"
            )
        return f"no candidate ran (each one's outcome is in the session record); {kernel_py} left unchanged"
    changed = {k: v for k, v in best.items() if current is None or not (k in current and same_value(current[k], v))}
    best_text = config_text(changed or best)
    current_text = config_text({k: current[k] for k in changed if k in current} if current else None)
    left = f"{kernel_py} left unchanged"
    # a retune over guards an earlier write left: the written kernel against the original computation (l131)
    pace = original.pace() if original is not None else None
    against = f"; {pace} than the original computation ({current_text}), re-timed beside it" if pace else ""
    if judgement.table:  # a per-bucket table, judged shape by shape
        if not judgement.better:
            return f"the current configuration stays: {judgement.reason}; {left}"
        line = judgement.reason  # one configuration judged shape by shape against a keyed list names itself
        if judgement.per_bucket:
            line = f"a per-bucket table (each shape's own best for its size): {line}"
        line += against
        if written:
            return f"{line}; written to {kernel_py}"
        return f"{line}; --dry-run: {left}" if dry_run else f"{line}; {left}: nothing to write"
    summed = _summed(result, set_aside, kept)
    best_at = f"{_latency(result.best_latency_us)}{summed}"
    # the re-time picked other than the progress lines' best: the line names it (fresh25, late43's l120)
    reordered = f"; {note}" if result.reordered() and (note := result.retime_note()) else ""
    if not judgement.better:
        if not changed:
            return f"the current configuration is the best found ({best_at}{reordered}); {left}"
        if judgement.gain_pct is None or judgement.gain_pct >= judgement.min_gain_pct:
            # faster by the gain, yet kept out: too noisy to rank, or the edit could not be written as checked
            why = _refusal(judgement.reason)
            return f"{_stays(result, current_text, best_text, best_at)} is not written: {why}; {left}"
        gain = judgement.gain_pct or 0.0
        by = (
            f"beat it by {gain:+.1f} %, under the {judgement.min_gain_pct:g} % a change needs"
            if gain >= 0
            else f"was {-gain:.1f} % slower"
        )
        return f"{_stays(result, current_text, best_text, best_at)} {by}, so it is not written; {left}"
    line = f"best {best_text}: {best_at}"
    if result.current_latency_us is not None and result.speedup is not None:
        now = f"the current {current_text} ({_latency(result.current_latency_us)})"
        if original is not None:  # a retune: the current ran with the guards an earlier write left (l131)
            now = f"{kernel_py} as it runs now ({_latency(result.current_latency_us)}: {current_text} where its tuned "
            now += "rows do not hold)"
        line += f", {times(result.speedup)} faster than {now}{against}"
    elif current is not None:
        failed = next((r for r in result.results if r.config == current and r.outcome.value != "ok" and r.reason), None)
        if failed is not None:  # it ran and failed (past the candidate limit on a loaded machine, say)
            why = failed.reason.split(";")[0]
            line += f"; the current {current_text} was not timed ({failed.outcome.value}: {why})"
        else:
            line += f"; the current {current_text} did not run"
    else:
        line += "; the current configuration is unknown"
    line += reordered
    if written:
        return f"{line}; written to {kernel_py}"
    if dry_run:
        return f"{line}; --dry-run: {left}"
    return f"{line}; {left}: nothing to write"


def _kept(tuning: FolderTuning) -> tuple[str, ...]:
    """The labels of the ``SHAPES`` entries the session timed: its shapes less those it set aside."""
    aside = dict(tuning.set_aside)
    return tuple(label for s in tuning.prepared.user_shapes if (label := s.label()) not in aside)


def _summed(result: SessionResult, set_aside: tuple[str, ...] = (), kept: tuple[str, ...] = ()) -> str:
    """`` for its 2 shapes together`` when the session's latencies are sums over several ``SHAPES`` entries
    (:func:`kernelopt.tuning.shapes.total`: one run of each), so a figure is not read as one call's; else empty.
    Where entries were set aside (``set_aside``), the figure is the kept entries' alone and says so: `` at n=4096
    (n=1000 set aside)`` (newuser15's "best BLOCK=4096: 1.371 ms, 134x faster" read as every entry's)."""
    timed = max(((*r.latency_us_by_shape,) for r in (*result.retimed, *result.results)), key=len, default=())
    if set_aside and len(timed) <= 1 and kept:  # a session of one entry keeps no latency by entry: the kept's
        timed = kept
    where = f" for its {len(timed)} shapes together" if len(timed) > 1 else ""
    if not set_aside:
        return where
    aside = f"{', '.join(set_aside)} set aside"
    if len(timed) == 1:
        return f" at {timed[0]} ({aside})"
    return f"{where} ({aside})"


def _fails_as_loaded(result: SessionResult) -> str | None:
    """The one error every candidate's kernel.py raised as it was imported, where each failed so (a ``NameError``
    at the module's top: no knob value helps), else ``None``."""
    from kernelopt.tuning.candidate import Outcome
    from kernelopt.tuning.checks import LOADING_FAILED

    said = {
        x.reason.split(LOADING_FAILED, 1)[1] if x.reason and LOADING_FAILED in x.reason else None
        for x in result.results
        if x.outcome is not Outcome.NOT_RUN_BUDGET
    }
    return next(iter(said)) if len(said) == 1 and None not in said else None


def _current_fails(result: SessionResult) -> str | None:
    """How the current configuration, the kernel as written, failed where no candidate passed (``BLOCK=32, run_error:
    on the SHAPES entry n=1000: raised while running: ValueError: ...``), else ``None`` (not evaluated, passed, or
    failed in a way that may be the machine's: a time limit, a worker killed). fresh27 f51: a ``run()`` that raises
    whatever its knobs ended "no candidate ran", though each ran and raised."""
    from kernelopt.oneline import one_line
    from kernelopt.tuning.candidate import Outcome
    from kernelopt.tuning.folder import config_text

    current = result.current_config
    failed = next(
        (
            x
            for x in result.results
            if current is not None
            and x.config == current
            and x.outcome in (Outcome.RUN_ERROR, Outcome.WRONG_RESULT, Outcome.COMPILE_ERROR)
            and x.reason
        ),
        None,
    )
    if failed is None or failed.reason is None:
        return None
    return f"{config_text(current)}, {failed.outcome.value}: {one_line(failed.reason, 160)}"


def failures_line(result: SessionResult) -> str | None:
    """The candidates that did not run to a time, counted by outcome, with the first one's reason:
    ``3 candidate(s) failed: 2 run_timeout, 1 wrong_result (first: BLOCK=8: ...)``; ``None`` when none failed
    (a candidate left out by the budget is not a failure)."""
    from kernelopt.oneline import one_line
    from kernelopt.tuning.candidate import Outcome
    from kernelopt.tuning.folder import config_text

    bad = [x for x in result.results if x.outcome not in (Outcome.OK, Outcome.NOT_RUN_BUDGET, Outcome.INVALID)]
    if not bad:
        return None
    counts: dict[str, int] = {}
    for x in bad:
        counts[x.outcome.value] = counts.get(x.outcome.value, 0) + 1
    by = ", ".join(f"{n} {name}" for name, n in sorted(counts.items(), key=lambda kv: -kv[1]))
    ended = [x for x in bad if x.failed_entry is not None and x.bench_s is None]
    if ended:  # checked on every entry before any timing: these cost their checks, no timing
        # a request cut by its time limit failed no check (b3: seven 60 s cuts under load read as failed checks)
        cut = sum(x.outcome is Outcome.RUN_TIMEOUT for x in ended)
        what = "ran out of time at" if cut == len(ended) else "failed or ran out of time at" if cut else "failed"
        by += f"; {len(ended)} of them {what} a SHAPES entry's check and were timed nowhere"
    first = bad[0]
    why = f": {one_line(first.reason, 120)}" if first.reason else ""
    return f"{len(bad)} candidate(s) failed: {by} (first: {config_text(first.config)}{why})"


def refused_line(result: SessionResult) -> str | None:
    """The configurations set aside before they were timed (the edit layer refused them, or a rejected winner's
    region holds them), with the first one's reason: ``2 configuration(s) set aside untimed, 2 of them not
    charged to the budget (first: TILE=64: cannot be written: ...)``; ``None`` when there were none."""
    from kernelopt.oneline import one_line
    from kernelopt.tuning.candidate import Outcome
    from kernelopt.tuning.folder import config_text
    from kernelopt.tuning.session import FREE_SCREENED
    from kernelopt.tuning.shapes import timed_in_part

    aside = [x for x in result.results if x.outcome is Outcome.INVALID and not timed_in_part(x)]
    parts = sum(map(timed_in_part, result.results))  # set aside at an entry, timed at others (a keyed list)
    part_text = f"{parts} configuration(s) set aside at a SHAPES entry and timed at the others" if parts else None
    if not aside:
        return part_text
    first = aside[0]
    why = f": {one_line(first.reason, 160)}" if first.reason else ""
    # the first FREE_SCREENED x budget cost nothing, each past them a candidate (it said "6 of them not charged"
    # where 2 of the 6 had ended a budget of 4 after 2 evaluations)
    free = min(result.screened, FREE_SCREENED * result.budget)
    charged = result.screened - free
    free_text = f", {free} of them not charged to the budget" if free else ""
    if charged:
        free_text += f", the {charged} past those charged as candidates"
    line = f"{len(aside)} configuration(s) set aside untimed{free_text} (first: {config_text(first.config)}{why})"
    return f"{line}; {part_text}" if part_text else line


def _latency(us: float) -> str:
    """``7.39 us``, ``304.1 us``, ``1.603 ms`` (4 significant digits, ms from 1000 us)."""
    return f"{us / 1000:.4g} ms" if us >= 1000 else f"{us:.4g} us"


class _Bar:
    """A rich progress bar on stderr while the session runs (evaluations of ``total``, best so far); off a terminal
    (a log, a pipe) one line a round that charged candidates, as `batch` writes one a problem: a Triton session in
    the interpreter said nothing for 9 minutes between its header and its verdict. The total is the budget's from the
    start: the bar read "0/?" while the workers started (8 s of the CPU demo's 10)."""

    def __init__(self, total: int | None = None, wall_s: float | None = None, began: float | None = None) -> None:
        self.total = total
        self.wall_s = wall_s  # the session's wall: how long the work may take, said beside the seconds so far (n123)
        self.began = began  # the run's start of work, which the wall counts from (late49's l191); else the bar's
        self.logged = 0  # candidates a line off a terminal has said

    def __enter__(self) -> _Bar:

        from rich.console import Console
        from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

        console = Console(file=sys.stderr, highlight=False, width=width_of(sys.stderr))
        self.progress = Progress(
            TextColumn("tuning"),
            BarColumn(),
            MofNCompleteColumn(),
            TimeElapsedColumn(),
            TextColumn("{task.fields[best]}"),
            console=console,
            disable=not console.is_terminal,
            transient=True,
        )
        self.task = self.progress.add_task("tune", total=self.total, best="best n/a")
        self.progress.start()
        self.started = time.monotonic() if self.began is None else self.began
        return self

    def update(self, p: Progress) -> None:
        from kernelopt.tuning.figures import first_round_best

        # the first round's figure, a sum over the shapes as the line says (n117, late43)
        best = first_round_best(p.best_latency_us, p.best_shapes) if p.best_latency_us is not None else "best n/a"
        best += f"; {self.wall_s:g} s wall" if self.wall_s is not None else ""
        self.progress.update(self.task, completed=p.candidates, total=p.budget, best=best)
        if self.progress.disable and p.candidates > self.logged:
            self.logged = p.candidates
            elapsed = round(time.monotonic() - self.started)
            wall = f" of its {self.wall_s:g} s wall" if self.wall_s is not None else ""
            if self.wall_s is not None and elapsed > self.wall_s:  # said as it happens, not only at the end (w6)
                wall += f", {elapsed - self.wall_s:g} s past it (the round in flight)"
            note(f"tuning: {p.line()}, {elapsed} s in{wall}")

    def __exit__(self, *exc: object) -> None:
        self.progress.stop()


def _run_wall(tuning: FolderTuning, began: float, session_began: float, session_ended: float) -> RunWall:
    """Where the run's wall went so far (:class:`~kernelopt.tuning.pace.RunWall`): ``began`` the run's start of work,
    ``session_began`` and ``session_ended`` the call that starts the workers, runs the session and checks its pick."""
    from kernelopt.tuning.pace import RunWall

    r = tuning.result
    start = r.pace.start_s if r.pace is not None else 0.0
    return RunWall(
        stated_s=tuning.prepared.budget.wall_s,
        before_s=session_began - began + start,
        session_s=r.wall_s,
        checks_s=max(0.0, session_ended - session_began - start - r.wall_s),
        after_s=time.monotonic() - session_ended,
    )


def _sweep_best(path: Path) -> tuple[float | None, str]:
    """The best latency of the recorded sweep at ``path`` (its one sweep), and what it may be called: ``sweep best``
    when the sweep is complete, ``best of N timed`` when it was cut short (a ratio to it is no ratio to a best).

    Raises:
        InputFileError: not a sweep file.
        UsageError: a file of several sweeps.
    """
    from kernelopt.tuning.record import read_sweeps

    sweeps = read_sweeps(path)
    if len(sweeps) != 1:
        raise UsageError(f"{path}: holds {len(sweeps)} sweeps; --sweep takes a file of one sweep")
    swept = sweeps[0]
    best = swept.best()
    label = "sweep best" if swept.complete else f"best of {len(swept.timed())} timed (sweep cut short)"
    return (best.latency_us if best is not None else None), label


def _draw(tuning: FolderTuning, sweep_best: float | None, sweep_label: str | None = None) -> Path | None:
    """``search.png`` in the session folder; ``None`` (and a warning) without matplotlib."""
    from kernelopt.backends.session_files import session_points
    from kernelopt.fileio import atomic_write_bytes
    from kernelopt.report.search_plot import search_plot

    r = tuning.result
    points = session_points(tuning)
    title = f"{tuning.prepared.problem.kernel_py.parent.name}: {tuning.prepared.space.launch} ({r.strategy})"
    if tuning.timed_on is not None:  # the image read alone: an interpreter's milliseconds are no GPU's (n113)
        title += f"\ntimed on {tuning.timed_on}"
    try:
        image = search_plot(
            points,
            title=title,
            current_latency_us=r.current_latency_us,
            sweep_best_us=sweep_best,
            sweep_label=sweep_label or "sweep best",
        )
    except EnvironmentProblem as exc:
        warn(exc.one_line())
        return None
    path = tuning.prepared.session_dir / PLOT_FILE
    atomic_write_bytes(path, image)
    return path


# ---------------------------------------------------------------------------------------------- replay


def _replay(path: Path, *, trials: int, rule: BudgetRule, strategy: str, seed: int, as_json: bool) -> None:
    """Replay ``strategy`` on the sweep at ``path`` and print the report."""
    from kernelopt.tuning.record import read_sweeps
    from kernelopt.tuning.replay import replay_trials

    sweeps = read_sweeps(path)
    if len(sweeps) != 1:
        names = ", ".join(s.name for s in sweeps) or "none"
        raise UsageError(f"{path}: holds {len(sweeps)} sweeps ({names}); replay takes a file of one sweep")
    sweep = sweeps[0]
    if sweep.best() is None:
        raise UsageError(f"{path}: the sweep of {sweep.name} has no timed configuration to replay")
    report = replay_trials(sweep, trials=trials, budget=rule, strategy=strategy, seed=seed)
    small = rule.below_floor(report.fit_size)
    if small is not None:
        note(small)
    if as_json:
        emit_json(report)
        return
    if not sweep.complete:
        warn(f"{sweep.name}: the sweep is incomplete; its best is the best of the configurations it recorded")
    table(
        f"{strategy} on the sweep of {sweep.name}: {trials} trials, seeds {seed}..{seed + trials - 1}",
        ["space", "fit-pruned", "budget", "success (within 3 %)", "mean evaluations", "mean final/best", "worst"],
        [
            [
                report.space_size,
                report.fit_size,
                report.budget,
                f"{report.success_rate:.1%}",
                f"{report.mean_evaluations:.1f}",
                f"{report.mean_ratio_to_best:.4f}",
                f"{report.worst_ratio_to_best:.3f}",
            ]
        ],
    )
    info(f"budget: {rule.describe()}; best recorded: {report.best_latency_us:.2f} us")
    info(f"sessions ended: {_stops(report.stops)}")
    info(f"time: {report.time_note}")
