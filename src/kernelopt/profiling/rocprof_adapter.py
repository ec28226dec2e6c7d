"""The ``amd`` profiler entry: adapts :class:`~kernelopt.profiling.protocol.ProfileSettings` to
``kernelopt.profiling.amd.profile_amd`` (rocprofv3: ATT, PMC and ASM), imported only when used."""

from __future__ import annotations

from pathlib import Path

from kernelopt.errors import UsageError
from kernelopt.evidence.model import ProfileSummary
from kernelopt.profiling.amd import profile_amd
from kernelopt.profiling.protocol import ProfileSettings
from kernelopt.workspace import Workspace

AMD_MODES = frozenset({"att", "pmc", "asm"})
_AMD_OPTIONS = {"modes", "iteration_range", "att_library_path"}


class RocprofProfiler:
    """Stage 1 on AMD GPUs (delegates to ``kernelopt.profiling.amd.profile_amd``)."""

    name = "amd"

    def profile(self, workspace: Workspace, version: int, settings: ProfileSettings) -> ProfileSummary:
        """Profile with rocprofv3.

        Raises:
            UsageError: an option the AMD profiler does not understand, or unknown modes.
            EnvironmentProblem: the AMD profiler module is not installed.
        """
        opts = dict(settings.vendor_options)
        unknown = set(opts) - _AMD_OPTIONS
        if unknown:
            raise UsageError(f"options not understood by the amd profiler: {', '.join(sorted(unknown))}")
        nvidia_only = [
            name
            for name, given in (
                ("--launch-skip", settings.launch_skip != 0),
                ("--launch-count", settings.launch_count is not None),
                ("--launch-skip-before-match", settings.launch_skip_before_match is not None),
                ("--fast", settings.fast),
            )
            if given
        ]
        if nvidia_only:
            raise UsageError(
                f"{', '.join(nvidia_only)} apply to NVIDIA only",
                hint="use --iteration-range A-B to choose AMD dispatches",
            )
        modes = set(opts.get("modes") or AMD_MODES)
        if not modes <= AMD_MODES:
            raise UsageError(f"unknown AMD profile modes {sorted(modes - AMD_MODES)}", hint="use att, pmc, asm")
        att = opts.get("att_library_path")
        return profile_amd(
            workspace,
            version,
            modes=modes,
            kernel_regex=settings.kernel_regex,
            iteration_range=opts.get("iteration_range"),
            att_library_path=Path(att) if att else None,
            timeout_s=settings.timeout_s,
        )
