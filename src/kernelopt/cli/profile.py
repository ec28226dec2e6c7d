"""``kernelopt profile WS``: Stage 1 (profile the current kernel.py into profiles/v<N>/)."""

from __future__ import annotations

import re
from pathlib import Path

import typer

from kernelopt.cli.bounds import VERSION
from kernelopt.cli.output import emit_json, info, warn
from kernelopt.errors import UsageError
from kernelopt.oneline import one_line
from kernelopt.vocabulary import Device, Vendor

_RANGE = re.compile(r"^\d+-\d+$")


def register(app: typer.Typer) -> None:
    @app.command("profile")
    def profile_cmd(
        ctx: typer.Context,
        workspace: Path = typer.Argument(..., help="The workspace folder (kernel_opt_<name>)."),
        version: int | None = typer.Option(
            None, "--version", help="Version N (profiles/v<N>/); default: next.", **VERSION
        ),
        vendor: str | None = typer.Option(None, "--vendor", help="nvidia or amd (default: the task card's platform)."),
        kernel_regex: str | None = typer.Option(
            None, "--kernel-regex", help="Kernels to profile (default: the kernels kernel.py defines)."
        ),
        launch_skip: int = typer.Option(0, "--launch-skip", help="Matching launches to skip (NVIDIA)."),
        launch_count: int | None = typer.Option(
            None, "--launch-count", help="Matching launches to profile (NVIDIA; default: one per kernel)."
        ),
        launch_skip_before_match: int | None = typer.Option(
            None, "--launch-skip-before-match", help="Launches of any kernel to skip before the first match (NVIDIA)."
        ),
        fast: bool = typer.Option(False, "--fast", help="Reduced section set: same verdict, fewer replay passes."),
        timeout: float = typer.Option(900.0, "--timeout", help="Wall-clock limit of the profiler run, seconds."),
        force: bool = typer.Option(False, "--force", help="Replace an existing profiles/v<N>/."),
        device: str = typer.Option(
            "cuda", "--device", help="cuda, or cpu to exercise the pipeline on a machine without a GPU."
        ),
        pmc_only: bool = typer.Option(False, "--pmc-only", help="AMD: counters only."),
        att_only: bool = typer.Option(False, "--att-only", help="AMD: thread trace only."),
        asm_only: bool = typer.Option(False, "--asm-only", help="AMD: assembly only."),
        iteration_range: str | None = typer.Option(None, "--iteration-range", help="AMD: dispatch range A-B."),
        att_library_path: Path | None = typer.Option(
            None, "--att-library-path", help="AMD: folder of the rocprof-trace-decoder library."
        ),
        as_json: bool = typer.Option(False, "--json", help="Print the summary as JSON."),
    ) -> None:
        """Profile the workspace's kernel.py and write profiles/v<N>/ (report, summary.json, summary.txt)."""
        from kernelopt.profiling import profile
        from kernelopt.profiling.stage import resolve_vendor
        from kernelopt.workspace import Workspace, stage_lock

        if Device.of(device) is None:  # as every other command says it (it was pydantic's pattern message)
            raise UsageError(f"unknown device {device!r}", hint="use cuda or cpu")
        ws = Workspace(workspace)
        ctx.with_resource(stage_lock(ws.root, "profile"))  # not beside a run on it: n28
        chosen = resolve_vendor(ws, vendor)
        n = ws.next_version() if version is None else ws.writable_version(version)
        options: dict[str, object] = {"force": force}
        if device != Device.CUDA:
            options["device"] = device
        amd_flags = pmc_only or att_only or asm_only or iteration_range or att_library_path
        if chosen == Vendor.AMD:
            modes = {m for m, on in (("pmc", pmc_only), ("att", att_only), ("asm", asm_only)) if on}
            options["modes"] = modes or {"att", "pmc", "asm"}
            if iteration_range is not None:
                if not _RANGE.match(iteration_range):
                    raise UsageError(f"--iteration-range must look like A-B, got {iteration_range!r}")
                options["iteration_range"] = iteration_range
            if att_library_path is not None:
                options["att_library_path"] = att_library_path
        elif amd_flags:
            raise UsageError("--pmc-only/--att-only/--asm-only/--iteration-range/--att-library-path are AMD options")
        if launch_skip:
            options["launch_skip"] = launch_skip
        if launch_count is not None:
            options["launch_count"] = launch_count
        if launch_skip_before_match is not None:
            options["launch_skip_before_match"] = launch_skip_before_match
        summary = profile(ws, n, vendor=chosen, kernel_regex=kernel_regex, fast=fast, timeout_s=timeout, **options)
        folder = ws.profile_dir(n)
        if not summary.counters_available:
            warn(f"counters unavailable: {summary.counters_unavailable_reason}; wrote timing-only evidence to {folder}")
        if as_json:
            emit_json(summary)
            return
        info(f"profiled v{n} with {summary.tool_used} -> {folder}")
        for k in summary.kernels:
            top = k.findings[0] if k.findings else None
            symptom = f", top symptom {top.symptom}" if top else ""
            info(f"  {one_line(k.kernel_name, 80)}: {k.bottleneck.value}{symptom}")
        info(f"summary: {folder / 'summary.txt'}")
        for line in summary.gui_lines(str(folder)):
            info(line)
