"""``kernelopt optimize PATH``: the whole loop (V0 baseline, then Stage 1..6 until a stop condition holds)."""

from __future__ import annotations

import shutil
import signal
import sys
import textwrap
from pathlib import Path
from typing import TYPE_CHECKING, Any

import typer
from rich.console import Console
from rich.status import Status

from kernelopt.cli.bounds import bounded
from kernelopt.cli.output import StdoutLost, emit_json, fmt, info, note, printing, say_stop, table, warn, width_of
from kernelopt.destination import outside_workspaces
from kernelopt.errors import EXIT_BAD_INPUT, EXIT_ENVIRONMENT, EnvironmentProblem, NoGpu, UsageError
from kernelopt.harness.settings import DEFAULT_MIN_GAIN_PCT as MIN_GAIN_PCT
from kernelopt.loop.journal import RunSettings
from kernelopt.loop.summary import LoopSummary, VersionRow
from kernelopt.oneline import one_line, shell_word
from kernelopt.report.headline import reference_headline, speedup_words
from kernelopt.taskcard import StopConditions

if TYPE_CHECKING:  # the loop (stages, planner, tunables reader) is imported when a run starts
    from kernelopt.loop.protocols import LoopEvent
    from kernelopt.loop.settings import LoopRequest
    from kernelopt.workspace import Workspace

DEVICES = ("cuda", "cpu")


def nvidia_gpu_present() -> bool:
    """True when ``nvidia-smi -L`` lists a GPU (checked without importing torch or initializing CUDA)."""
    from kernelopt.proc import run_command

    exe = shutil.which("nvidia-smi")
    if exe is None:
        return False
    result = run_command([exe, "-L"], timeout_s=20.0)
    return result.ok and "GPU" in result.stdout


def _terminate(signum: int, frame: object) -> None:
    """SIGTERM stops the loop like Ctrl-C: the in-flight stage is rolled back and the run stays resumable."""
    raise KeyboardInterrupt


def _clock(seconds: float) -> str:
    s = int(seconds)
    return f"{s // 3600:d}:{s % 3600 // 60:02d}:{s % 60:02d}"


class TerminalProgress:
    """Progress on stderr: a live status line on a terminal (version, stage, elapsed, best latency and
    its roofline share), and one line per stage, commit, warning and result."""

    def __init__(self) -> None:
        self.console = Console(file=sys.stderr, highlight=False, width=width_of(sys.stderr))
        self.status: Status | None = None

    def _head(self, e: LoopEvent) -> str:
        best = "best n/a"
        if e.best_latency_us is not None:
            pct = "n/a" if e.best_roofline_pct is None else f"{e.best_roofline_pct:.3g} %"
            best = f"best {fmt(e.best_latency_us)} us ({pct} of roofline)"  # 74880 us, not 7.488e+04 us
        where = f"V{e.version} {e.stage.value if e.stage else ''}" if e.version is not None else "end"
        return f"[{_clock(e.elapsed_s)}] {where:<20} {best}"

    def event(self, event: LoopEvent) -> None:
        from kernelopt.loop.protocols import EventKind

        head = self._head(event)
        if self.console.is_terminal:
            if self.status is None:
                self.status = self.console.status(head)
                self.status.start()
            self.status.update(head)
        if event.kind is EventKind.STAGE_END or (event.kind is EventKind.STAGE_START and self.console.is_terminal):
            return  # on a terminal the status line shows the stage
        style = {EventKind.WARNING: "yellow", EventKind.STOPPED: "bold", EventKind.ITERATION_END: "green"}.get(
            event.kind
        )
        # one event, one line (soft wrap): a log or a pipe never gets a reason cut across lines
        self.console.print(f"{head} | {event.message}", style=style, markup=False, soft_wrap=True)

    def close(self) -> None:
        if self.status is not None:
            self.status.stop()
            self.status = None


def _action_cell(row: VersionRow) -> str:
    """The "action / failure" cell: the change in a few words, and for a failed version why. A version that
    changed nothing has the plan's sentence as its action; its category stands for it, so the failure shows
    (the CPU demo's V2 read "Tune the launch configuration of `kernel.py (CPU)` as one category..." and never
    said that its session kept nothing)."""
    if row.failure_reason is None:
        return one_line(row.action or "", 70)
    changed = row.action is not None and row.action.startswith(f"{row.action_category}: ")
    what = row.action if changed else (row.action_category or row.action or "")
    return one_line(f"{what} -> {row.failure_reason}", 160)


def _medians_disagree(summary: LoopSummary) -> str:
    """Why the best line's speedup and the table's ``us`` column point different ways, said in the line (fresh27:
    "best: v1 at 107700 us (2.2x over V0)" under a V0 row of 94910 us): the speedup is the gates' side-by-side timings
    chained from V0 (:func:`~kernelopt.memory.model.speedup_over_v0`), each ``us`` one gate run's own median, and two
    runs drift apart with the host's load; empty where both say the same (or either is missing)."""
    over, base, best = summary.speedup_vs_baseline, summary.baseline_latency_us, summary.best_latency_us
    if not over or not base or not best or (base / best >= 1) == (over >= 1):
        return ""
    return (
        f"; that is the gates' side-by-side timings chained from V0, where the table's us are each gate run's own"
        f" median (V0's {fmt(base)} us), which drift apart with the host's load"
    )


def _render(summary: LoopSummary) -> None:
    # the commit beside the version: a narrow pipe folds the text column, never drops the hash
    rows = [
        [
            r.version,
            r.said,
            r.commit or "-",
            r.latency_us,
            r.tflops,
            r.bandwidth_gbps,
            r.roofline_measured_pct,
            r.roofline_spec_pct,
            _action_cell(r),
        ]
        for r in summary.versions
    ]
    columns = [
        "version",
        "gate",
        "commit",
        "us",
        "TFLOP/s",
        "GB/s",
        "% roof\nmeas.",
        "% roof\nspec",
        "action / failure",
    ]
    # a figure no version has (TFLOP/s without FLOPs, a roofline on the CPU) is left out, not a column of n/a
    keep = [i for i, c in enumerate(columns) if i < 3 or c == columns[-1] or any(r[i] is not None for r in rows)]
    table(
        f"kernelopt summary: {summary.workspace}",
        [columns[i] for i in keep],
        [[r[i] for i in keep] for r in rows],
        wide="action / failure",
    )
    if summary.best_version is not None:
        speedup = speedup_words(summary.speedup_vs_baseline, "V0") if summary.speedup_vs_baseline else "n/a"
        if summary.speedup_vs_baseline and summary.speedup_vs_baseline < 1 + MIN_GAIN_PCT / 100:
            # Latencies of different gate runs: a difference below the gate's margin is noise, not a win.
            speedup += f", within the gate's {MIN_GAIN_PCT:g} % noise margin: no significant gain"
        speedup += _medians_disagree(summary)
        info(f"best: {summary.best_version} at {fmt(summary.best_latency_us)} us ({speedup})")
    for line in summary.unlinked or ():  # a summary built field by field may leave it None
        info(f"  note: {line}")
    headline = reference_headline(summary.reference_speedup)
    if headline is not None:
        info(f"  {headline}")
    elif summary.speedup_vs_reference is not None:  # a summary without the comparison's intervals
        compiled = (
            f", {speedup_words(summary.speedup_vs_compiled, 'torch.compile')}" if summary.speedup_vs_compiled else ""
        )
        info(f"  {speedup_words(summary.speedup_vs_reference, 'the reference (PyTorch eager)')}{compiled}")
    if summary.best_roofline is not None:
        for line in summary.best_roofline.lines():
            info(f"  {line}")
    if summary.timing_only:
        info("evidence: timing-only where Stage 1 had no hardware counters (see each plan and the report)")
    info(
        f"this run: {summary.iterations} iteration(s), "
        + (f"{summary.converged} converged, " if summary.converged else "")
        + f"{summary.failures} failed, {_clock(summary.elapsed_s)} wall time"
        + (
            f"; {summary.candidates_timed} candidate(s) timed by Stage 3 over all versions"
            if summary.candidates_evaluated
            else ""
        )
    )
    if summary.stage_seconds:
        # each "stage 0.0 s" stays on one line (NUL holds its spaces while the line is wrapped: "profile 0.0" / "s")
        spent = ", ".join(f"{stage}\0{seconds:.1f}\0s" for stage, seconds in summary.stage_seconds.items())
        taken = f"{summary.profiles_taken} profile(s) taken" if summary.profiles_taken else "no profiler run"
        line = f"time per stage: {spent}; {taken}"
        for part in textwrap.wrap(
            line, width=width_of(sys.stdout) or shutil.get_terminal_size().columns, subsequent_indent="  "
        ):
            info(part.replace("\0", " "))
    if summary.stop is not None:
        info(f"stopped: {summary.stop.line()}")


def take_back(folder: Path, summary: LoopSummary, started: bytes | None = None) -> str | None:
    """Where the run's best kernel is, for a run started from the user's own folder (a project's kernel folder, not
    the workspace): ``optimize`` edits only its workspace's copy, so the user's kernel.py is as they left it and
    nothing said so or how to take the result (newuser19 n127). ``None`` for a run on the workspace itself, no
    version better than V0, or a folder whose kernel.py is already the best's bytes.

    ``started``: the folder's kernel.py as the run started from it. Where the file holds other bytes now (the user
    saved it during the run), it is not "as you left it" and a ``cp`` would replace that save: the line says so and
    gives the diff alone (late31, z90)."""
    ws, label = Path(summary.workspace), summary.best_version
    mine, best = folder / "kernel.py", ws / "kernel.py"
    if label is None or label == "v0" or folder.resolve() == ws.resolve():
        return None
    try:
        now = mine.read_bytes()
        if now == best.read_bytes():
            return None
    except OSError:
        return None
    a, b = shell_word(mine), shell_word(best)
    if started is not None and now != started:
        return (
            f"the best kernel ({label.upper()}) is {best}; {mine} was saved during the run (its bytes are not those "
            f"the run started from): `diff -u {a} {b}` shows the best's kernel against your save; merge it by hand"
        )
    return (
        f"the best kernel ({label.upper()}) is {best}; {mine} is as you left it (optimize edits only its "
        f"workspace's copy): `diff -u {a} {b}` shows the change, `cp {b} {a}` takes it"
    )


def _kernel_bytes(folder: Path) -> bytes | None:
    """The bytes of ``folder``'s kernel.py as a run starts from it (None for a file not read)."""
    try:
        return (folder / "kernel.py").read_bytes()
    except OSError:
        return None


def _on_cpu_words(folder: Path) -> str:
    """What ``--device cpu`` does, for the no-GPU line: the user's own folder's command where its kernel runs on the
    CPU (torch on the CPU, a Triton kernel in Triton's interpreter: README's ``examples/softmax``, which "kernels
    written for torch CPU tensors" sent away to tests/data/loop, fresh25 f31), the CPU example where it is GPU-only
    code (CUDA, HIP) or no task folder."""
    from kernelopt.kernelsource import detect_framework
    from kernelopt.taskcard import cpu_refusal, folder_framework

    kernel = folder / "kernel.py"
    framework = (folder_framework(folder) or detect_framework(kernel).value) if kernel.is_file() else None
    if framework is not None and cpu_refusal(framework) is None:
        how = " (its Triton kernel in Triton's interpreter)" if framework == "triton" else ""
        return (
            f"runs it on the CPU{how} in timing-only mode: "
            f"`kernelopt optimize {shell_word(str(folder))} --device cpu --max-iters 1`"
        )
    return (
        "runs torch CPU tensors and Triton kernels (in Triton's interpreter) in timing-only mode "
        "(try `kernelopt optimize tests/data/loop --device cpu`)"
    )


def refuse_gpu_framework_on_cpu(folder: Path) -> str | None:
    """Refuse ``--device cpu`` for a kernel whose task card (or, a folder's card naming none, its kernel.py) says it
    is CUDA or HIP code (:func:`~kernelopt.taskcard.folder_framework`, :func:`~kernelopt.taskcard.cpu_refusal`); for
    a Triton kernel, the note that it runs in Triton's interpreter.

    CUDA and HIP kernels launch on a GPU driver; the CPU path times kernels written for torch CPU
    tensors, and Triton kernels in Triton's interpreter (the harness sets ``TRITON_INTERPRET=1`` for its
    CPU workers, :func:`kernelopt.harness.runner.worker_env`).

    Raises:
        UsageError: the kernel is written in a GPU-only framework.
    """
    from kernelopt.taskcard import cpu_refusal, folder_framework

    framework = folder_framework(folder)
    if framework == "triton":
        return (
            "--device cpu: the Triton kernel runs in Triton's interpreter (TRITON_INTERPRET=1; slow: use small shapes)"
        )
    refusal = cpu_refusal(framework)
    if refusal is not None:
        raise UsageError(
            refusal,
            hint="run it on a machine with an NVIDIA GPU; the CPU path is for kernels on torch CPU tensors "
            "and Triton kernels (in Triton's interpreter): try `kernelopt optimize tests/data/loop --device cpu`",
        )
    return None


def _check_backends(
    existing: Workspace | None,
    request: LoopRequest,
    planner_options: dict[str, Any],
    implementer_options: dict[str, Any],
) -> None:
    """Build both backends once before anything is made, as the loop will build them: an unknown option, a
    missing setting, or an agent command that is missing or too old (given with -P/-I or through
    ``KERNELOPT_AGENT_COMMAND``) is one line, and no workspace (not even the run lock's folder) is left behind.
    Then warn about what an agent's command line lacks.

    Raises:
        UsageError: a bad option or a missing setting.
        EnvironmentProblem: the agent command's program is not found, or is too old.
    """
    from kernelopt.agents.drive import AGENT
    from kernelopt.backends.agent_cli import build_argv
    from kernelopt.backends.coding_agents import command_advice
    from kernelopt.backends.settings import PLACEHOLDERS, AgentCliSettings, load_settings
    from kernelopt.loop.settings import resolve_settings
    from kernelopt.stages.backends import build_implementer, build_planner

    # the backends the run will have: a resumed run keeps its own, flags override them
    run = resolve_settings(existing, request)[0] if existing is not None else RunSettings()
    planner = request.planner or run.planner
    implementer = request.implementer or run.implementer
    if existing is not None and AGENT in (planner, implementer):  # an agent's run through the MCP server (f62)
        raise UsageError(
            f"{existing.root}: this run is an agent's, through `kernelopt mcp` (its planner and implementer are the "
            f"agent's stage calls, '{AGENT}', which optimize cannot run): the server's next stage call continues it "
            f"where it paused; to continue it here, name kernelopt's own backends: `kernelopt optimize "
            f"{shell_word(existing.root)} --planner rules --implementer rules` (or agent-cli, llm-api: "
            "docs/backends.md)"
        )
    build_planner(planner, planner_options, implementer=implementer)
    build_implementer(implementer, implementer_options)
    advice: list[str] = []
    for backend, options in ((planner, planner_options), (implementer, implementer_options)):
        if backend == "agent-cli":
            command = load_settings(AgentCliSettings, options, backend=backend).command
            argv = build_argv(command, {p: p for p in PLACEHOLDERS})
            advice += [line for line in command_advice(argv) if line not in advice]
    for line in advice:
        warn(line)


def _empty_entries(reference_py: Path) -> list[str]:
    """``tune``'s line for each ``SHAPES`` entry of no work (:func:`~kernelopt.tuning.problem.empty_entry_lines`), of
    entries written as literals (one built by code is read by the workers alone); a reference.py that cannot be read
    here says nothing (the gate says why)."""
    from kernelopt.errors import InputFileError
    from kernelopt.tuning.problem import empty_entry_lines, literal_shapes

    try:
        entries = literal_shapes(reference_py)
    except InputFileError:
        return []
    return empty_entry_lines(reference_py, entries or [])


def _run(
    path: Path,
    name: str | None,
    root: Path | None,
    request: LoopRequest,
    reuse_workspace: bool,
    as_json: bool,
    planner_options: dict[str, Any],
    implementer_options: dict[str, Any],
) -> LoopSummary:
    """Open (or create) the workspace and run the loop on it (the caller holds the run lock)."""
    from kernelopt.loop.machine import OptimizeLoop
    from kernelopt.loop.opening import find_existing, open_or_create
    from kernelopt.loop.settings import resolve_settings
    from kernelopt.loop.wiring import build_collaborators

    existing = find_existing(path, name=name, root=root)
    chosen = request.device
    if chosen is None and existing is not None:
        chosen = resolve_settings(existing, request)[0].device
    if chosen != "cpu" and not nvidia_gpu_present():
        raise NoGpu("no NVIDIA GPU found", on_cpu=_on_cpu_words(existing.root if existing is not None else Path(path)))
    if chosen == "cpu":
        interpreted = refuse_gpu_framework_on_cpu(existing.root if existing is not None else Path(path))
        if interpreted is not None:
            note(interpreted)
    if existing is None:  # a new workspace: its packages importable first, as tune checks them (n139)
        from kernelopt.kernelsource import check_installed

        check_installed(Path(path) / "reference.py", Path(path) / "kernel.py")
    opened = open_or_create(path, name=name, root=root, reuse=reuse_workspace)
    ws = opened.workspace
    if opened.note:
        warn(opened.note)
    elif opened.created and not as_json:
        info(f"created {ws.root}")
    elif not as_json and (latest := ws.latest_unmasked()) is not None:
        info(f"continuing {ws.root} (V{latest} is its latest version; --name NEW starts another)")
    if opened.created:
        from kernelopt.loop.opening import fill_new_card

        for found in fill_new_card(ws, device=chosen, announce=note):
            note(found.line())
    for problem in ws.task_card().warnings():
        warn(problem)
    for line in _empty_entries(ws.reference_py):
        warn(line)
    settings, _ = resolve_settings(ws, request)
    progress = TerminalProgress()
    collaborators = build_collaborators(
        ws,
        settings,
        progress=progress,
        planner_options=planner_options,
        implementer_options=implementer_options,
    )
    previous_handler = signal.signal(signal.SIGTERM, _terminate)
    try:
        summary = OptimizeLoop(ws, collaborators, request).run()
    except KeyboardInterrupt:
        from kernelopt.cli.start import ignore_interrupts

        ignore_interrupts()  # the run is rolled back and saved: a second Ctrl-C says nothing more
        progress.close()
        say_stop(f"interrupted; the run is saved: `kernelopt optimize {shell_word(ws.root)} --resume` continues it")
        raise typer.Exit(130) from None
    finally:
        signal.signal(signal.SIGTERM, previous_handler)
        progress.close()
    return summary


def _existing_or_holder(path: Path, *, name: str | None, root: Path | None) -> Workspace | None:
    """The workspace ``optimize`` would open (``find_existing``), read before the run lock is taken; a workspace that
    reads as broken while another run holds its lock is that run's refusal. A run's git restores kernel.py by
    unlinking and writing it, and a second start that looked then said "not a kernelopt workspace (no kernel.py)"
    where it had to name the holder (tests/test_starts.py, once in four rounds under load; faults7, f12).

    Raises:
        UsageError: another kernelopt process holds the workspace's lock and the workspace read as broken.
        WorkspaceError: the workspace is broken and nobody holds it.
    """
    from kernelopt.errors import WorkspaceError
    from kernelopt.loop.opening import find_existing, target_of
    from kernelopt.workspace import RunLock

    try:
        return find_existing(path, name=name, root=root)
    except WorkspaceError:
        lock = RunLock(target_of(path, name=name, root=root))
        holder = lock.holder()
        if holder is None:
            raise
        raise UsageError(holder, hint=lock.hint) from None


def register(app: typer.Typer) -> None:
    @app.command("optimize")
    def optimize(
        path: Path = typer.Argument(..., help="A folder with kernel.py + reference.py [+ README.md], or a workspace."),
        name: str | None = typer.Option(None, "--name", help="Workspace name (default: the folder's name)."),
        root: Path | None = typer.Option(None, "--root", help="Parent folder of the workspace (default /tmp)."),
        max_iters: int | None = typer.Option(
            None, "--max-iters", **bounded(StopConditions, "max_iterations"), help="Stop after K iterations."
        ),
        planner: str | None = typer.Option(None, "--planner", help="rules (default), agent-cli or llm-api."),
        implementer: str | None = typer.Option(None, "--implementer", help="rules (default), agent-cli or llm-api."),
        planner_options: list[str] = typer.Option(
            [], "--planner-option", "-P", help="Planner setting KEY=VALUE, as `kernelopt plan -o` takes; repeatable."
        ),
        implementer_options: list[str] = typer.Option(
            [],
            "--implementer-option",
            "-I",
            help="Implementer setting KEY=VALUE, as `kernelopt implement -o` takes; repeatable.",
        ),
        resume: bool = typer.Option(False, "--resume", help="Continue the interrupted run (error if none)."),
        stop_on_failure: bool = typer.Option(False, "--stop-on-failure", help="Stop at the first failed iteration."),
        max_wall_min: float | None = typer.Option(
            None, "--max-wall-min", **bounded(StopConditions, "max_wall_time_min"), help="Stop after M minutes."
        ),
        target_latency_us: float | None = typer.Option(
            None,
            "--target-latency-us",
            **bounded(StopConditions, "target_latency_us"),
            help="Stop at this latency.",
        ),
        target_speedup: float | None = typer.Option(
            None,
            "--target-speedup",
            **bounded(StopConditions, "target_speedup"),
            help="Stop at this speedup over V0.",
        ),
        repair_attempts: int | None = typer.Option(
            None,
            "--repair-attempts",
            **bounded(RunSettings, "repair_attempts"),
            help="Repairs after a failed correctness check (default 2).",
        ),
        device: str | None = typer.Option(None, "--device", help="cuda (default) or cpu (timing-only)."),
        reuse_workspace: bool = typer.Option(
            False, "--reuse-workspace", help="Continue the existing workspace even when its V0 differs from PATH."
        ),
        as_json: bool = typer.Option(False, "--json", help="Print the final summary as JSON."),
    ) -> None:
        """Run the loop: V0 baseline, then profile -> plan -> implement -> gate -> record -> stop? per version.

        Stop conditions come from README.md's front matter; the flags override them. Ctrl-C (or a crash)
        leaves the run resumable: run the command again, or pass --resume.
        """
        from kernelopt.backends.settings import parse_assignments
        from kernelopt.harness.compile_backend import check_compile_backend
        from kernelopt.harness.model import Culprit
        from kernelopt.loop.opening import check_task_folder, run_locks, target_of
        from kernelopt.loop.settings import LoopRequest, check_request
        from kernelopt.loop.stop import StopReason

        if device is not None and device not in DEVICES:
            raise UsageError(f"unknown device {device!r}", hint="use cuda or cpu")
        request = LoopRequest(
            resume=resume,
            planner=planner,
            implementer=implementer,
            device=device,
            repair_attempts=repair_attempts,
            stop_on_failure=True if stop_on_failure else None,
            max_iterations=max_iters,
            max_wall_time_min=max_wall_min,
            target_latency_us=target_latency_us,
            target_speedup=target_speedup,
        )
        check_request(request)  # every setting before the workspace is made or anything written
        check_compile_backend()  # a misspelt backend before V0, not as each version's "not timed" (n156)
        planner_settings = parse_assignments(list(planner_options))
        implementer_settings = parse_assignments(list(implementer_options))
        existing = _existing_or_holder(path, name=name, root=root)
        if existing is None:
            check_task_folder(path)  # a wrong PATH is said before a missing GPU, and before any write
            if resume:  # a run that never started: refused before a workspace (or its --root) is made
                raise UsageError(
                    f"nothing to resume: {target_of(path, name=name, root=root)} does not exist",
                    hint="run without --resume to start",
                )
            if root is not None:  # the new workspace's parent: never inside another workspace
                outside_workspaces(root, "--root")
        _check_backends(existing, request, planner_settings, implementer_settings)
        # One lock from the first write: the workspace is created, and the run made, under it; and the lock of the
        # user's folder it starts from, the one tune and tunables --set take to write its kernel.py
        target = target_of(path, name=name, root=root)
        with run_locks(path, target):  # a second start of the same run is named by the first
            started = _kernel_bytes(path)
            summary = _run(path, name, root, request, reuse_workspace, as_json, planner_settings, implementer_settings)
        try:
            with printing():
                if as_json:
                    emit_json(summary)
                else:
                    _render(summary)
                    if (line := take_back(path, summary, started)) is not None:
                        info(line)
        except StdoutLost as exc:  # `| head -1`: the run is over and committed; its exit status still says how
            ended = f" ({summary.stop.line()})" if summary.stop is not None else ""
            sys.stderr.write(
                f"kernelopt: the run on {summary.workspace} ended{ended}; the summary could not be printed: stdout "
                f"refused it ({exc.reason}); `kernelopt report {shell_word(summary.workspace)}` shows it\n"
            )
        if summary.stop is not None and summary.stop.reason is StopReason.BASELINE_FAILED:
            v0 = next((v for v in summary.versions if v.version == "v0"), None)
            # reference.py failing is bad input (exit 2, as validate and tune say it), a check that cannot run on
            # this machine (its memory) is the environment (exit 3, as validate and tune say it), a kernel failing is 1
            culprit = v0.culprit if v0 is not None else None
            raise typer.Exit(
                EXIT_BAD_INPUT
                if culprit == Culprit.PROBLEM.value
                else EXIT_ENVIRONMENT
                if culprit == Culprit.CHECKER.value
                else 1
            )
        if summary.stop is not None and summary.stop.reason is StopReason.AGENT_UNAVAILABLE:
            # the agent's infrastructure failed (not logged in, API down, a timeout): an environment problem,
            # exit 3 as `kernelopt validate` gives the verdict (harness.decision.EXIT_CODES), never a result
            raise EnvironmentProblem(
                f"the agent was unavailable: {summary.stop.detail}",
                hint="fix the agent's setup (login, key, network, timeout) and run the command again: "
                "the action stays untried",
            )
