"""Nsight Compute on any command with its arguments (the MCP ``profile`` tool's second form): no wrapper
script needed, the report read back as evidence."""

from __future__ import annotations

from pathlib import Path

from kernelopt.errors import EnvironmentProblem, UsageError
from kernelopt.evidence.model import ProfileSummary
from kernelopt.oneline import one_line
from kernelopt.proc import run_command
from kernelopt.profiling import read_evidence
from kernelopt.profiling.ncu_command import NcuOptions, build_ncu_argv
from kernelopt.profiling.nvidia import find_ncu

REPORT = "command"
"""The report's file name (``<out>/command.ncu-rep``)."""


def command_argv(ncu: str, command: list[str], out: Path, *, options: NcuOptions | None = None) -> list[str]:
    """The ``ncu`` command line that profiles ``command`` into ``out/command.ncu-rep``."""
    chosen = options or NcuOptions(export=out / REPORT, profile_from_start=True)
    return build_ncu_argv(ncu, chosen, command)


def profile_command(
    command: list[str],
    out: Path,
    *,
    kernel_regex: str | None = None,
    launch_skip: int = 0,
    launch_count: int | None = 1,
    timeout_s: float = 900.0,
    cwd: Path | None = None,
) -> ProfileSummary:
    """Profile ``command`` (program and arguments) with Nsight Compute; the evidence of its report.

    Raises:
        UsageError: an empty command or bad launch numbers.
        EnvironmentProblem: no ``ncu``, or it failed or timed out (the log's tail in one line).
    """
    if not command:
        raise UsageError("profile: give a workspace, or a command with its arguments")
    ncu = find_ncu()
    if ncu is None:
        raise EnvironmentProblem("Nsight Compute (ncu) not found", hint="install it or set KERNELOPT_NCU")
    try:
        # a user's command never calls cudaProfilerStart: profile from its start, or ncu sees no kernel
        options = NcuOptions(
            export=out / REPORT,
            kernel_regex=kernel_regex,
            launch_skip=launch_skip,
            launch_count=launch_count,
            profile_from_start=True,
        )
    except ValueError as exc:
        raise UsageError(f"profile: {exc}") from None
    out.mkdir(parents=True, exist_ok=True)
    res = run_command(command_argv(ncu, command, out, options=options), timeout_s=timeout_s, cwd=cwd)
    report = out / f"{REPORT}.ncu-rep"
    if res.timed_out:
        raise EnvironmentProblem(f"ncu timed out after {timeout_s:g} s profiling {command[0]}")
    if res.returncode != 0 or not report.is_file():
        tail = one_line(res.stderr_tail(5), 300)
        raise EnvironmentProblem(f"ncu failed (exit {res.returncode}) profiling {command[0]}: {tail}")
    return read_evidence(report, kernel=kernel_regex)
