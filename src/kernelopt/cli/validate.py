"""``kernelopt validate WS [--version N] [--previous P]``: Stage 4, the quality gate of one version.

Stand-alone validation leaves ``memory/`` alone: the record it would write goes to
``.kernelopt/validate/v<N>.json`` (untracked), so git stays clean and the loop's records stay the loop's. A
record in ``memory/`` is a version the loop committed with its profile and plan (V0: with
``baseline_report.md``); a gate run alone is a check, and its output says so and where its record went, and,
before V0 is recorded, the command that records it (``kernelopt optimize WS --max-iters 0``), since the next
plan is numbered from the records.

Exit status: 0 PASS, 1 FAIL, 124 TIMEOUT_FAIL (errors of the tool itself keep their own codes: 2 bad
input, 3 environment). ``--json`` prints the whole :class:`~kernelopt.harness.gate.GateReport`.
Also holds the rendering shared with the workspace's ``test_kernel.py``.
"""

from __future__ import annotations

import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any

import typer

from kernelopt.cli.bounds import VERSION
from kernelopt.cli.output import emit_json, fmt, info, table, warn, width_of
from kernelopt.errors import EnvironmentProblem, UsageError
from kernelopt.harness.decision import exit_code
from kernelopt.harness.model import ENTRY_UNRUNNABLE, BenchReport, CorrectnessReport, problem_failed_prefix
from kernelopt.harness.stats import claim_text
from kernelopt.memory.model import GateResult, ReferenceSpeedup
from kernelopt.oneline import shell_word
from kernelopt.vocabulary import Device
from kernelopt.workspace import Workspace, stage_lock

if TYPE_CHECKING:
    from kernelopt.harness.gate import GateReport


def render_correctness(report: CorrectnessReport, *, show_warnings: bool = True) -> None:
    """Per-case lines and the verdict, for people."""
    rows = []
    for c in report.cases:
        tol = c.tolerance
        rows.append(
            [
                c.index,
                c.label,
                "PASS" if c.passed else "FAIL",
                c.seeds,
                c.rel_err,
                c.max_abs_err,
                f"{tol.precision.value} atol {tol.atol:.2g} rtol {tol.rtol:.2g}" if tol else None,
            ]
        )
    if rows:
        table(
            f"correctness on {report.device_name or report.device or '?'}",
            ["case", "shape", "result", "seeds", "rel_err", "max_abs_err", "tolerance"],
            rows,
        )
    info(f"correctness: {report.status.value}: {report.message}")
    if not report.passed and report.stderr_tail:
        info("--- stderr / traceback (tail) ---")
        info(report.stderr_tail)
    if show_warnings:
        for w in report.warnings:
            warn(w)


def render_bench(report: BenchReport, *, show_warnings: bool = True) -> None:
    """Timing statistics per case, for people."""
    if not report.ok:
        info(f"timing: {report.status.value}: {report.message}")
        return
    rows = []
    for c in report.cases:
        s = c.current
        rows.append(
            [
                c.index,
                c.label,
                s.median,
                s.iqr,
                f"{fmt(s.ci_low)}-{fmt(s.ci_high)}",
                s.n,
                f"{c.method.value} x{c.launches_per_sample}" + (" +L2 flush" if c.l2_flushed else ""),
                f"{c.speedup.speedup:.3f}x [{c.speedup.ci_low:.3f}, {c.speedup.ci_high:.3f}] "
                + claim_text(
                    c.speedup.verdict.value,
                    c.speedup.p_value,
                    c.speedup.effect_size_d,
                    interval=(c.speedup.ci_low, c.speedup.ci_high),
                )
                if c.speedup
                else None,
            ]
        )
    table(
        f"timing on {report.device_name or report.device}",
        ["case", "shape", "median us", "IQR us", "95% CI us", "samples", "method", "speedup vs previous"],
        rows,
    )
    if show_warnings:
        for c in report.cases:
            for w in c.warnings:
                warn(w)
        for w in report.warnings:
            warn(w)


def _default_version(ws: Workspace) -> int:
    """The version in progress: the newest used number (record, plan or profile) without a gate result.

    When the newest version already has a gate result, the next unused number.
    """
    used = ws.used_versions()
    if not used:
        return 0
    newest = max(used)
    if ws.memory.exists(newest) and ws.memory.read(newest).quality_gate.result is not None:
        return ws.next_version()
    return newest


def _default_previous(ws: Workspace, version: int) -> int | None:
    """The newest unmasked version below ``version`` that passed the gate."""
    for n in reversed(ws.memory.versions()):
        if n >= version:
            continue
        rec = ws.memory.read(n)
        if not rec.masked and rec.quality_gate.result is GateResult.PASS:
            return n
    return None


def register(app: typer.Typer) -> None:
    @app.command("validate")
    def validate_cmd(
        ctx: typer.Context,
        workspace: Path = typer.Argument(..., help="The workspace folder (kernel_opt_<name>)."),
        version: int | None = typer.Option(
            None,
            "--version",
            "-v",
            help="Version N to validate (default: newest record without a gate result).",
            **VERSION,
        ),
        previous: int | None = typer.Option(
            None, "--previous", help="Version to compare with (default: newest earlier version that passed).", **VERSION
        ),
        no_previous: bool = typer.Option(False, "--no-previous", help="Do not compare with any earlier version."),
        enabling_step: bool = typer.Option(
            False, "--enabling-step", help="Accept a regression: the change enables later optimizations."
        ),
        device: str | None = typer.Option(None, "--device", help="cuda or cpu (default: cuda when present)."),
        compile_reference: bool | None = typer.Option(
            None,
            "--compile-reference/--no-compile-reference",
            help="Also time torch.compile(reference) (default: the task card's compile_reference).",
        ),
        size_scale: float | None = typer.Option(
            None,
            "--size-scale",
            help="Scale reference.py's size constants by this factor (0 < s <= 1) for a quick run.",
        ),
        as_json: bool = typer.Option(False, "--json", help="Print the gate report as JSON."),
    ) -> None:
        """Stage 4: correctness, timing, utilization, comparison and ISA targets -> PASS / FAIL / TIMEOUT_FAIL."""
        from kernelopt.harness.compile_backend import check_compile_backend
        from kernelopt.harness.gate import validate
        from kernelopt.harness.infer import shapes_by_code
        from kernelopt.loop.opening import changed_reference

        if device is not None and Device.of(device) is None:
            raise UsageError(f"unknown device {device!r}", hint="use cuda or cpu")
        check_compile_backend()  # a misspelt backend before the gate, not as its "not timed" (n156)
        ws = Workspace(workspace)
        ctx.with_resource(stage_lock(ws.root, "validate"))  # not beside a run on it: n28
        shapes_by_code(ws.reference_py, device=device)  # a SHAPES built by code that names no case: one line, first
        changed = changed_reference(ws)
        if changed is not None:
            warn(changed)
        n = version if version is not None else _default_version(ws)
        prev = None if no_previous else (previous if previous is not None else _default_previous(ws, n))
        against = f" against v{prev}" if prev is not None else ""
        with busy(f"validate v{n}{against}: checking and timing kernel.py on every SHAPES entry"):
            report = validate(
                ws,
                n,
                previous=prev,
                device=device,
                enabling_step=enabling_step,
                compile_reference=compile_reference,
                size_scale=size_scale,
                scratch=True,
            )
        report.notes.append(not_recorded(ws, n, report.record_path))
        if as_json:
            emit_json(report)
        else:
            _show(n, report)
        if report.problem_failed:  # reference.py failed at a SHAPES entry: bad input, as optimize and tune say
            prefix = problem_failed_prefix(report.correctness.error_class)
            raise UsageError(f"{prefix}: {report.failure_reason or report.correctness.message}")
        if report.checker_failed:  # the check could not run on this device: an environment problem, not a verdict
            raise EnvironmentProblem(report.failure_reason or report.correctness.message or "the check could not run")
        raise typer.Exit(exit_code(report.result))


@contextmanager
def busy(text: str) -> Iterator[None]:
    """A live status line with the seconds so far on a terminal's stderr while the gate runs (it said nothing for
    the whole gate: tens of seconds on the CPU, minutes on a GPU at full size); nothing on a pipe or a log."""
    import time

    from rich.console import Console

    console = Console(file=sys.stderr, highlight=False, width=width_of(sys.stderr))
    if not console.is_terminal:
        yield
        return
    start = time.monotonic()
    with console.status(text) as status:

        def tick() -> None:
            while not done.wait(1.0):
                status.update(f"{text} ({time.monotonic() - start:.0f} s)")

        done = threading.Event()
        clock = threading.Thread(target=tick, name="kernelopt-validate-clock", daemon=True)
        clock.start()
        try:
            yield
        finally:
            done.set()
            clock.join()


def _show(n: int, report: GateReport) -> None:
    """The gate report for people: correctness, timing, performance, ISA targets, notes, the verdict."""
    render_correctness(report.correctness, show_warnings=False)
    if report.bench is not None:
        render_bench(report.bench, show_warnings=False)
    table(f"v{n} performance", ["quantity", "value"], _performance_rows(report))
    if report.record.isa_metric_progress:
        table(
            "ISA targets",
            ["metric", "target", "current", "met"],
            [[m.metric, m.target, fmt(m.current), fmt(m.met)] for m in report.record.isa_metric_progress],
        )
    for note in report.notes:
        info(f"note: {note}")
    for w in report.warnings:
        warn(w)
    reason = f": {report.failure_reason}" if report.failure_reason else ""
    aside = "not recorded in memory/: see the note above"
    if report.problem_failed:  # the error line that ends the run says why, once (the reason was said twice)
        whose = (
            "a SHAPES entry V0 cannot run, not of the kernel's versions"
            if report.correctness.error_class == ENTRY_UNRUNNABLE
            else "reference.py, not of the kernel"
        )
        reason, aside = f" of {whose}", f"the line below says why; {aside}"
    elif report.checker_failed:  # as above: the check could not run here (memory), no verdict on the kernel
        reason, aside = (
            ": the check could not run on this machine, not the kernel's fault",
            f"the line below says why; {aside}",
        )
    info(f"quality gate v{n}: {report.result.value}{reason} ({aside})")


def not_recorded(ws: Workspace, n: int, record_path: str) -> str:
    """Where a stand-alone gate recorded nothing, and why; before V0 is recorded, the command that records it."""
    from kernelopt.loop.opening import baseline_commit

    aside = f"its record is set aside at {record_path}"
    alone = f"nothing recorded: memory/ holds the versions the loop commits, and a gate run alone is a check ({aside})"
    if baseline_commit(ws) is None:
        return (
            f"{alone}; V0 is not recorded yet, so the next plan would be numbered v0: "
            f"`kernelopt optimize {shell_word(ws.root)} --max-iters 0` gates, profiles and commits V0 as the baseline"
        )
    if ws.memory.exists(n):
        return f"nothing recorded: memory/v{n}.json is the loop's record of V{n}, unchanged ({aside})"
    upcoming = _default_version(ws)
    if n != upcoming:  # `--version 7` where the loop's next is V1: "the loop records V7" was not so
        return (
            f"{alone}; kernel.py as it stands was gated under the label v{n}, but the loop's next version is "
            f"V{upcoming} (`kernelopt optimize {shell_word(ws.root)}`, or the MCP tools validate and record, record it)"
        )
    return (
        f"{alone}; the loop records V{n} (`kernelopt optimize {shell_word(ws.root)}`, or the MCP tools validate and "
        "record)"
    )


def _eager_claim(ref: ReferenceSpeedup) -> str:
    """The claim against PyTorch eager as the report says it (:func:`kernelopt.report.headline.eager_claim`)."""
    from kernelopt.report.headline import eager_claim

    return eager_claim(ref)


def _against(ref: ReferenceSpeedup, which: str) -> str | None:
    """The speedup over eager or torch.compile as the headline says it (:mod:`kernelopt.report.headline`)."""
    from kernelopt.report.headline import compile_failed, compiled_name, interval_text

    if which == "eager":
        if ref.eager is None:
            return f"not reliable: {ref.withheld}" if ref.withheld else None
        return interval_text(ref.eager, ref.eager_ci_low, ref.eager_ci_high, "eager")
    if ref.compiled is None:
        return compile_failed(ref) if ref.compile_error else None
    return interval_text(ref.compiled, ref.compiled_ci_low, ref.compiled_ci_high, compiled_name(ref))


def _performance_rows(report: GateReport) -> list[list[Any]]:
    """The performance table: quantity, value."""
    p = report.record.performance
    ref = p.speedup_vs_reference
    return [
        ["latency (median, us)", p.latency_us],
        ["TFLOP/s", p.tflops],
        ["GB/s", p.bandwidth_gbps],
        ["% of spec TFLOP/s", p.tflops_peak_utilization_pct],
        ["% of spec bandwidth", p.bandwidth_peak_utilization_pct],
        ["% of measured matmul ceiling", p.tflops_ceiling_utilization_pct],
        ["% of measured bandwidth ceiling", p.bandwidth_ceiling_utilization_pct],
        ["% of roofline bound", p.roofline_utilization_pct],
        ["roofline basis", p.roofline_basis],
        ["speedup vs previous", report.speedup_vs_previous],
        ["reference latency (eager, us)", report.reference_latency_us],
        # with its interval, or "not reliable", by the rule of the loop's summary and the report
        ["speedup vs reference (eager)", _against(ref, "eager") if ref else report.speedup_vs_reference],
        ["speedup vs torch.compile", _against(ref, "compiled") if ref else report.speedup_vs_compiled],
        ["torch.compile time (s, not timed)", p.speedup_vs_reference.compile_s if p.speedup_vs_reference else None],
        ["verdict", p.comparison_with_previous.verdict],
        [
            "speedup vs reference: claim",
            _eager_claim(ref) if ref else None,
        ],
    ]
