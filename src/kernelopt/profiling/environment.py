"""Environment checks behind ``kernelopt doctor``: can Stage 1 run here, and how well?

One :class:`Check` per question, each with a verdict and (when not OK) the fix: the GPU and driver
(NVML), ``ncu`` and its version, the ``ncu_report`` module, whether counters are readable (a real
one-launch profile of a tiny PyTorch kernel), torch and triton. AMD checks are added when the AMD
profiler module provides ``environment_checks()``.
"""

from __future__ import annotations

import sys
import tempfile
from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path

from kernelopt.profiling.ncu_command import MIN_NCU_VERSION

PROBE_TIMEOUT_S = 180.0
"""Default limit of the doctor's profile of a trivial kernel (``kernelopt doctor --probe-timeout``)."""
VERSION_TIMEOUT_S = 60.0
"""Limit of ``ncu --version``."""

PROBE_PROGRAM = (
    "import torch; x = torch.ones(1024, device='cuda'); x.add_(1); torch.cuda.synchronize(); print('probe ok')"
)


class CheckStatus(StrEnum):
    OK = "ok"
    WARN = "warn"
    FAIL = "fail"
    SKIP = "skip"


@dataclass(frozen=True)
class Check:
    """One verdict.

    Attributes:
        name: what was checked (``gpu``, ``ncu``, ``ncu_report``, ``counters``, ``torch``, ``triton``).
        status: ok / warn / fail / skip.
        detail: what was found, one line.
        fix: what to do when it is not ok.
    """

    name: str
    status: CheckStatus
    detail: str
    fix: str | None = None


def _probe_python(code: str, timeout_s: float = 120.0) -> tuple[bool, str]:
    """Run ``code`` in a fresh interpreter: native modules (ncu_report, torch) are checked in isolation."""
    from kernelopt.proc import run_command
    from kernelopt.worker.environment import worker_env

    res = run_command([sys.executable, "-c", code], timeout_s=timeout_s, env=worker_env())
    if res.timed_out:
        return False, f"timed out after {timeout_s:g} s"
    if res.returncode is not None and res.returncode < 0:
        return False, f"crashed (signal {-res.returncode})"
    text = (res.stdout if res.ok else res.stderr_tail(1)).strip()
    return res.ok, text.splitlines()[-1] if text else ""


_GPU_PROBE = """
from kernelopt.hardware.gpu import NvmlUnavailable, nvidia_gpus
try:
    gpus = nvidia_gpus()
except NvmlUnavailable as exc:
    print("FAIL|" + exc.message)
    raise SystemExit(0)
if not gpus:
    print("FAIL|NVML sees no NVIDIA GPU")
    raise SystemExit(0)
g = gpus[0]
cc = f"sm_{g.compute_capability[0]}{g.compute_capability[1]}" if g.compute_capability else "sm_?"
mem = f"{g.memory_total_bytes / 2**30:.0f} GiB" if g.memory_total_bytes else "? GiB"
more = f" (+{len(gpus) - 1} more)" if len(gpus) > 1 else ""
print(f"OK|{g.name} ({cc}, {mem}){more}, driver {g.driver_version}, CUDA {g.cuda_driver_version}")
"""


def check_gpu() -> Check:
    """GPU and driver through NVML (in a fresh interpreter, like every native-library check)."""
    ok, text = _probe_python(_GPU_PROBE)
    status, _, detail = text.partition("|")
    if ok and status == "OK":
        return Check("gpu", CheckStatus.OK, detail)
    return Check(
        "gpu",
        CheckStatus.FAIL,
        detail or f"NVML probe failed: {text}",
        "install the NVIDIA driver, or run on a GPU machine (check nvidia-smi)",
    )


def _said(stdout: str, stderr: str) -> str:
    """The last non-empty line a command printed, or ``no output``."""
    lines = [line.strip() for line in (stdout + "\n" + stderr).splitlines() if line.strip()]
    return lines[-1][-200:] if lines else "no output"


def check_ncu(*, timeout_s: float = VERSION_TIMEOUT_S) -> tuple[Check, str | None]:
    """``ncu --version`` with its own timeout; a hang or a silent failure is said, never an empty reason."""
    from kernelopt.proc import run_command
    from kernelopt.profiling.ncu_command import parse_version
    from kernelopt.profiling.nvidia import find_ncu

    ncu = find_ncu()
    if ncu is None:
        return (
            Check(
                "ncu",
                CheckStatus.WARN,
                "ncu not found (Stage 1 falls back to timing-only evidence)",
                "install Nsight Compute and put ncu on PATH, or set KERNELOPT_NCU",
            ),
            None,
        )
    res = run_command([ncu, "--version"], timeout_s=timeout_s)
    if res.timed_out:
        return Check(
            "ncu",
            CheckStatus.FAIL,
            f"{ncu} --version ran past {timeout_s:g} s and was killed (last output: {_said(res.stdout, res.stderr)})",
            "check that ncu runs by hand; a hung driver or a licence prompt can block it",
        ), None
    version = parse_version(res.stdout + res.stderr) if res.ok else None
    if version is None:
        return Check(
            "ncu",
            CheckStatus.FAIL,
            f"{ncu} --version failed (exit {res.returncode}): {_said(res.stdout, res.stderr)}",
            "reinstall Nsight Compute",
        ), None
    shown = ".".join(map(str, version))
    if version[:2] < MIN_NCU_VERSION:
        need = ".".join(map(str, MIN_NCU_VERSION))
        return Check("ncu", CheckStatus.FAIL, f"ncu {shown} at {ncu} is too old", f"install {need} or newer"), None
    return Check("ncu", CheckStatus.OK, f"ncu {shown} at {ncu}"), ncu


def check_ncu_report() -> Check:
    ok, text = _probe_python(
        "import importlib.metadata as m, pathlib, ncu_report\n"
        "try:\n    v = m.version('ncu-report')\n"
        "except m.PackageNotFoundError:\n    v = 'from an Nsight Compute install'\n"
        "print(f'ncu_report {v} ({pathlib.Path(ncu_report.__file__).parent})')"
    )
    if not ok:
        from kernelopt.profiling.ncu_rep import NCU_PYTHON_HINT

        return Check("ncu_report", CheckStatus.FAIL, f"cannot import ncu_report: {text}", NCU_PYTHON_HINT)
    return Check("ncu_report", CheckStatus.OK, text)


def check_counters(ncu: str | None, *, timeout_s: float = PROBE_TIMEOUT_S) -> Check:
    """Profile one launch of a trivial PyTorch kernel with ncu (its own timeout) and classify the outcome.

    This proves that ncu can profile here (driver, permissions, replay), not only that it starts; a
    failure or a timeout says why in one line (ncu's own error line, or its last output).
    """
    from kernelopt.proc import run_command
    from kernelopt.profiling.ncu_command import parse_passes
    from kernelopt.profiling.ncu_failures import COUNTERS_FIX, NcuFailure, classify, first_error_line
    from kernelopt.worker.environment import worker_env

    if ncu is None:
        return Check("counters", CheckStatus.SKIP, "no ncu to probe with")
    with tempfile.TemporaryDirectory(prefix="kernelopt-doctor-") as tmp:
        out = Path(tmp) / "probe"
        argv = [
            ncu,
            "--metrics",
            "gpu__time_duration.sum",
            "--launch-count",
            "1",
            "--target-processes",
            "all",
            "--clock-control",
            "none",
            "--force-overwrite",
            "--export",
            str(out),
            sys.executable,
            "-c",
            PROBE_PROGRAM,
        ]
        res = run_command(argv, timeout_s=timeout_s, env=worker_env())
        if res.timed_out:
            return Check(
                "counters",
                CheckStatus.FAIL,
                f"profiling a trivial kernel ran past {timeout_s:g} s and was killed "
                f"(last output: {_said(res.stdout, res.stderr)})",
                "check the GPU with nvidia-smi; raise the limit with `kernelopt doctor --probe-timeout S`",
            )
        output = res.stdout + "\n" + res.stderr
        kind = classify(output, res.returncode, report_exists=out.with_suffix(".ncu-rep").is_file())
    if kind is None:
        passes = parse_passes(output)
        shown = f", {passes[0][1]} pass(es)" if passes else ""
        return Check("counters", CheckStatus.OK, f"readable (profiled one launch of a trivial kernel{shown})")
    if kind is NcuFailure.COUNTERS_PERMISSION:
        return Check(
            "counters",
            CheckStatus.FAIL,
            "not readable by this user (ERR_NVGPUCTRPERM): Stage 1 gives timing-only evidence",
            COUNTERS_FIX,
        )
    line = first_error_line(output) or _said(res.stdout, res.stderr)
    return Check(
        "counters",
        CheckStatus.FAIL,
        f"profiling a trivial kernel failed ({kind.value}, exit {res.returncode}): {line}",
        "run the probe by hand: ncu --launch-count 1 python -c '<a torch kernel>'",
    )


def check_torch() -> Check:
    ok, text = _probe_python(
        "import torch\nprint(f'{torch.__version__}|{torch.cuda.is_available()}|{torch.version.cuda}')"
    )
    if not ok:
        return Check("torch", CheckStatus.FAIL, f"torch is not importable: {text}", "pip install torch (a CUDA build)")
    version, cuda_ok, cuda = [*text.split("|"), "", "", ""][:3]
    if cuda_ok != "True":
        return Check(
            "torch", CheckStatus.WARN, f"torch {version} sees no CUDA device", "install a CUDA build of torch on a GPU"
        )
    return Check("torch", CheckStatus.OK, f"torch {version}, CUDA {cuda}")


def check_triton() -> Check:
    ok, text = _probe_python("import triton\nprint(triton.__version__)")
    if not ok:
        return Check("triton", CheckStatus.WARN, f"triton is not importable: {text}", "pip install triton")
    return Check("triton", CheckStatus.OK, f"triton {text}")


def run_checks(*, probe_counters: bool = True, probe_timeout_s: float = PROBE_TIMEOUT_S) -> list[Check]:
    """Every check, in a fixed order (the counters probe only when a GPU and ncu are there)."""
    gpu = check_gpu()
    ncu_check, ncu = check_ncu()
    checks = [gpu, ncu_check, check_ncu_report()]
    if probe_counters and gpu.status is CheckStatus.OK:
        checks.append(check_counters(ncu, timeout_s=probe_timeout_s))
    else:
        checks.append(Check("counters", CheckStatus.SKIP, "no GPU" if gpu.status is not CheckStatus.OK else "skipped"))
    checks += [check_torch(), check_triton()]
    return checks
