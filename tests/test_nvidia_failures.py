"""Failure classification of ncu runs, on the texts ncu really prints (recorded on the H200 or quoted)."""

from __future__ import annotations

from pathlib import Path

import pytest

from kernelopt.profiling.ncu_failures import (
    CountersUnavailable,
    NcuFailure,
    ProfilerDeviceError,
    ReportNotWritten,
    UserProgramFailed,
    available_kernels,
    classify,
    error_for,
    first_error_line,
    user_error_line,
)

from .nvidia_data import OUTPUTS

PERM = (
    "==PROF== Connected to process 9012 (/usr/local/bin/my-benchmark)\n"
    "==ERROR== ERR_NVGPUCTRPERM - The user does not have permission to access NVIDIA GPU Performance Counters "
    "on the target device 0. For instructions on enabling permissions and to get more information see "
    "https://developer.nvidia.com/ERR_NVGPUCTRPERM\n==PROF== Disconnected from process 9012\n"
)
DEVICE = "==PROF== Connected to process 9137 (/usr/bin/python3.11)\n==ERROR== Unknown Error on device 0.\n"
FAILED_KERNEL = (
    '==ERROR== Error: Failed to prepare kernel for profiling\n==ERROR== Failed to profile kernel "gemv2N_kernel" '
    "in process 10096\n==ERROR== An error occurred while trying to profile.\n==WARNING== No kernels were profiled.\n"
)
NOT_SUPPORTED = "==ERROR== Profiling is not supported on this device\n"


def recorded(name: str) -> str:
    return (OUTPUTS / f"{name}.txt").read_text()


def test_counters_permission() -> None:
    assert classify(PERM, 1, report_exists=False) is NcuFailure.COUNTERS_PERMISSION


def test_no_kernels_recorded_on_h200() -> None:
    text = recorded("no_kernels_profiled")
    assert classify(text, 0, report_exists=False) is NcuFailure.NO_KERNELS_PROFILED
    assert available_kernels(text) == ["softmax_kernel"]
    assert available_kernels("==WARNING== No kernels were profiled.\n") == []


def test_user_program_failure_recorded_on_h200() -> None:
    text = recorded("user_program_failed")
    assert classify(text, 1, report_exists=False) is NcuFailure.USER_PROGRAM_FAILED
    assert user_error_line(text) == "RuntimeError: fixture: this kernel fails on purpose"
    err = error_for(NcuFailure.USER_PROGRAM_FAILED, text, report=Path("r"), log_path=Path("/l.log"), returncode=1)
    assert isinstance(err, UserProgramFailed) and err.exit_code == 2
    line = err.one_line()
    assert "\n" not in line and "fails on purpose" in line and "full log: /l.log" in line


def test_app_error_code_without_driver_mark() -> None:
    text = "Traceback (most recent call last):\nValueError: bad shape\n==ERROR== The application returned an error code (1).\n"
    assert classify(text, 1, report_exists=False) is NcuFailure.USER_PROGRAM_FAILED
    assert user_error_line(text) == "ValueError: bad shape"


@pytest.mark.parametrize(
    ("text", "kind", "cls"),
    [
        (DEVICE, NcuFailure.DEVICE_ERROR, ProfilerDeviceError),
        (FAILED_KERNEL, NcuFailure.DEVICE_ERROR, ProfilerDeviceError),
        (NOT_SUPPORTED, NcuFailure.DEVICE_NOT_SUPPORTED, ProfilerDeviceError),
    ],
)
def test_device_failures(text: str, kind: NcuFailure, cls: type) -> None:
    assert classify(text, 1, report_exists=False) is kind
    err = error_for(kind, text, report=Path("r"), log_path=None, returncode=1)
    assert isinstance(err, cls) and err.kind is kind
    assert first_error_line(text) in err.one_line()


def test_counters_error_says_what_the_admin_must_change() -> None:
    err = error_for(NcuFailure.COUNTERS_PERMISSION, PERM, report=Path("r"), log_path=None, returncode=1)
    assert isinstance(err, CountersUnavailable)
    line = err.one_line()
    assert "ERR_NVGPUCTRPERM" in line and "NVreg_RestrictProfilingToAdminUsers=0" in line and "SYS_ADMIN" in line


def test_report_not_written_and_success() -> None:
    ok = '==PROF== Profiling "k" - 0: 0%....50%....100% - 38 passes\n'
    assert classify(ok, 0, report_exists=False) is NcuFailure.REPORT_NOT_WRITTEN
    assert classify(ok, 0, report_exists=True) is None
    err = error_for(NcuFailure.REPORT_NOT_WRITTEN, ok, report=Path("p/v0/ncu.ncu-rep"), log_path=None, returncode=0)
    assert isinstance(err, ReportNotWritten) and "p/v0/ncu.ncu-rep" in err.one_line()
    assert classify("something odd", 7, report_exists=False) is NcuFailure.NCU_FAILED
