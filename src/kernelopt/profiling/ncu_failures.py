"""Recognise why an ``ncu`` run failed and say it in one line, with the fix.

:func:`classify` is pure: it reads what ``ncu`` printed (the texts below are Nsight Compute's own), the
exit status and whether the report exists. The error classes carry the failure kind and the path of the
full log, so the CLI prints one line and the log keeps the details.

Texts recognised (Nsight Compute 2022-2025):

- ``==ERROR== ERR_NVGPUCTRPERM - The user does not have permission to access NVIDIA GPU Performance
  Counters on the target device 0.`` -> counters not readable (timing-only fallback);
- ``==WARNING== No kernels were profiled.`` (ncu 2025 then lists ``Available Kernels:``) -> the kernel
  filter matched nothing;
- ``==ERROR== Profiling is not supported on this device`` / ``... is not supported`` -> unsupported GPU;
- ``==ERROR== Unknown Error on device 0.``, ``==ERROR== Failed to profile kernel "k" in process N``,
  ``==ERROR== An error occurred while trying to profile.`` -> device / driver error;
- the driver's own ``KERNELOPT_DRIVER_ERROR:`` line or ``==ERROR== The application returned an error
  code (N).`` -> the user's program failed on its own;
- exit status 0 but no report file -> report not written.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path

from kernelopt.errors import KerneloptError

DRIVER_ERROR_MARK = "KERNELOPT_DRIVER_ERROR:"
NO_CUDA_DEVICE = "torch sees no CUDA device"
"""What the driver says when there is no GPU; the runner turns it into an environment error, not a
failure of the user's kernel."""
COUNTERS_HELP_URL = "https://developer.nvidia.com/ERR_NVGPUCTRPERM"
COUNTERS_FIX = (
    "an administrator must allow GPU performance counters for non-admin users (driver option "
    "NVreg_RestrictProfilingToAdminUsers=0: 'options nvidia NVreg_RestrictProfilingToAdminUsers=0' in "
    "/etc/modprobe.d/, then reboot or reload the nvidia module), or profile as root / in a container started "
    f"with --cap-add=SYS_ADMIN; see {COUNTERS_HELP_URL}"
)


class NcuFailure(StrEnum):
    """Why an ncu run produced no usable report."""

    COUNTERS_PERMISSION = "counters_permission"
    NO_KERNELS_PROFILED = "no_kernels_profiled"
    DEVICE_NOT_SUPPORTED = "device_not_supported"
    DEVICE_ERROR = "device_error"
    USER_PROGRAM_FAILED = "user_program_failed"
    REPORT_NOT_WRITTEN = "report_not_written"
    NCU_FAILED = "ncu_failed"


class ProfilingError(KerneloptError):
    """Stage 1 could not produce a profile.

    Attributes:
        kind: the failure class.
        log_path: the full ncu/driver output, when it was kept.
    """

    exit_code = 3

    def __init__(
        self, message: str, *, kind: NcuFailure | str, hint: str | None = None, log_path: Path | None = None
    ) -> None:
        if log_path is not None:
            hint = f"{hint}; full log: {log_path}" if hint else f"full log: {log_path}"
        super().__init__(message, hint=hint)
        self.kind = kind
        self.log_path = log_path


class NcuNotFound(ProfilingError):
    """``ncu`` is not installed where kernelopt looks."""


class NcuTooOld(ProfilingError):
    """The installed ``ncu`` is older than kernelopt supports."""


class CountersUnavailable(ProfilingError):
    """GPU performance counters are not readable by this user (ERR_NVGPUCTRPERM)."""


class NoKernelsProfiled(ProfilingError):
    """The kernel filter matched no launch; ``launched`` lists the kernels that did run."""

    exit_code = 2

    def __init__(self, message: str, *, launched: list[str], hint: str | None = None, log_path: Path | None = None):
        super().__init__(message, kind=NcuFailure.NO_KERNELS_PROFILED, hint=hint, log_path=log_path)
        self.launched = launched


class ProfilerDeviceError(ProfilingError):
    """ncu failed on the device (driver error, unsupported GPU, device busy)."""


class ReportNotWritten(ProfilingError):
    """ncu finished but the report file is missing."""


class UserProgramFailed(ProfilingError):
    """The user's kernel or reference failed on its own under the profiler."""

    exit_code = 2


_NOT_SUPPORTED = re.compile(r"(?:is not supported|not supported on (?:this )?device)", re.IGNORECASE)
_DEVICE = re.compile(
    r"(Unknown Error on device|Failed to profile kernel|An error occurred while trying to profile|"
    r"An error was reported by the driver|Failed to prepare kernel for profiling|out of memory|"
    r"CUDA_ERROR_\w+|cudaError\w+)",
    re.IGNORECASE,
)
_APP_RC = re.compile(r"The application returned an error code \((-?\d+)\)")


def classify(output: str, returncode: int | None, *, report_exists: bool) -> NcuFailure | None:
    """The failure class of an ncu run, or ``None`` when it produced a report.

    Args:
        output: stdout and stderr of the run, concatenated.
        returncode: ncu's exit status (``None`` after a timeout; timeouts are handled by the caller).
        report_exists: whether the ``.ncu-rep`` was written.
    """
    if "ERR_NVGPUCTRPERM" in output:
        return NcuFailure.COUNTERS_PERMISSION
    if DRIVER_ERROR_MARK in output or _APP_RC.search(output):
        return NcuFailure.USER_PROGRAM_FAILED
    if _NOT_SUPPORTED.search(_error_lines(output)):
        return NcuFailure.DEVICE_NOT_SUPPORTED
    if _DEVICE.search(_error_lines(output)):  # ncu then also says "No kernels were profiled"
        return NcuFailure.DEVICE_ERROR
    if "No kernels were profiled" in output:
        return NcuFailure.NO_KERNELS_PROFILED
    if returncode not in (0, None):
        return NcuFailure.NCU_FAILED
    if not report_exists:
        return NcuFailure.REPORT_NOT_WRITTEN
    return None


def _error_lines(output: str) -> str:
    return "\n".join(ln for ln in output.splitlines() if "==ERROR==" in ln or "CUDA_ERROR" in ln or "Error" in ln)


def available_kernels(output: str) -> list[str]:
    """The kernels ncu lists after ``No kernels were profiled.`` (``Available Kernels:`` / ``1. name``)."""
    lines = output.splitlines()
    for i, ln in enumerate(lines):
        if ln.strip().startswith("Available Kernels"):
            names = []
            for item in lines[i + 1 :]:
                m = re.match(r"^\s*\d+\.\s+(.+?)\s*$", item)
                if not m:
                    break
                names.append(m.group(1))
            return names
    return []


def first_error_line(output: str) -> str | None:
    """The first ``==ERROR==`` line without its prefix."""
    for ln in output.splitlines():
        if "==ERROR==" in ln:
            return ln.split("==ERROR==", 1)[1].strip()
    return None


def user_error_line(output: str) -> str | None:
    """The user's exception as the driver reported it (``RuntimeError: ...``), else the last traceback line."""
    for ln in output.splitlines():
        if DRIVER_ERROR_MARK in ln:
            return ln.split(DRIVER_ERROR_MARK, 1)[1].strip()
    lines = [ln.strip() for ln in output.splitlines() if ln.strip() and not ln.startswith("==")]
    for ln in reversed(lines):
        if re.match(r"^[A-Za-z_][\w.]*(Error|Exception|Interrupt)\b", ln):
            return ln
    return lines[-1] if lines else None


@dataclass(frozen=True)
class _Said:
    """How one failure class is said: its error class, its line (from ncu's output and the report
    path) and the fix."""

    error: type[ProfilingError]
    line: Callable[[str, Path], str]
    hint: str


_SAID: dict[NcuFailure, _Said] = {
    NcuFailure.USER_PROGRAM_FAILED: _Said(
        UserProgramFailed,
        lambda out, _: f"kernel.py / reference.py failed under the profiler: {user_error_line(out) or 'no message'}",
        "run 'python test_kernel.py' in the workspace to reproduce it without the profiler",
    ),
    NcuFailure.DEVICE_NOT_SUPPORTED: _Said(
        ProfilerDeviceError,
        lambda out, _: f"ncu cannot profile this GPU: {first_error_line(out) or 'not supported'}",
        "check 'ncu --list-chips' and that the Nsight Compute version supports the GPU",
    ),
    NcuFailure.DEVICE_ERROR: _Said(
        ProfilerDeviceError,
        lambda out, _: f"ncu failed on the device: {first_error_line(out) or 'unknown device error'}",
        "check nvidia-smi (GPU health, another profiler or MPS holding the GPU) and retry",
    ),
    NcuFailure.REPORT_NOT_WRITTEN: _Said(
        ReportNotWritten,
        lambda _, report: f"ncu finished but wrote no report at {report}",
        "check free disk space and write permission of the profiles/ folder",
    ),
    NcuFailure.COUNTERS_PERMISSION: _Said(
        CountersUnavailable,
        lambda _, __: "GPU performance counters are not readable by this user (ERR_NVGPUCTRPERM)",
        COUNTERS_FIX,
    ),
}


def error_for(
    kind: NcuFailure,
    output: str,
    *,
    report: Path,
    log_path: Path | None,
    returncode: int | None,
) -> ProfilingError:
    """The one-line error for a failure class (counters and no-kernels are handled by the runner)."""
    said = _SAID.get(kind)
    if said is not None:
        return said.error(said.line(output, report), kind=kind, hint=said.hint, log_path=log_path)
    return ProfilingError(
        f"ncu exited with status {returncode}: {first_error_line(output) or 'no error message'}",
        kind=kind,
        log_path=log_path,
    )
