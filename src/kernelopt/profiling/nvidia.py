"""Stage 1 on NVIDIA: run Nsight Compute on the workspace's kernel and turn the report into evidence.

:class:`NcuProfiler` finds ``ncu`` (``$KERNELOPT_NCU``, ``PATH``, ``/usr/local/cuda/bin``, the standard
install folders), checks its version, builds the argv (:mod:`kernelopt.profiling.ncu_command`), runs it on
the kernelopt driver under a wall-clock timeout through :func:`kernelopt.proc.run_command` (process
group killed on expiry), classifies failures (:mod:`kernelopt.profiling.ncu_failures`), reads the
report and writes ``profiles/v<N>/``: ``ncu.ncu-rep``, ``ncu.log``, ``driver.json``, ``<kernel>.sass``,
``summary.json`` and ``summary.txt``. When ``ncu`` is missing or counters are not readable it writes
timing-only evidence instead of failing, so the loop can still run.
"""

from __future__ import annotations

import glob
import shutil
import sys
from pathlib import Path

from kernelopt.env import EnvSettings, variable
from kernelopt.errors import CommandTimeout, NoGpu, UsageError
from kernelopt.evidence.model import IsaFacts, ProfileSummary
from kernelopt.evidence.nvidia import build_summary
from kernelopt.evidence.sass import isa_facts, parse_listing
from kernelopt.evidence.summary import write_summary
from kernelopt.fileio import read_python
from kernelopt.oneline import one_line
from kernelopt.proc import CommandResult, run_command
from kernelopt.profiling.driver import DriverResult
from kernelopt.profiling.kernel_names import kernel_names
from kernelopt.profiling.ncu_command import (
    FAST_METRICS,
    FAST_SECTIONS,
    MIN_NCU_VERSION,
    NcuOptions,
    build_ncu_argv,
    kernel_regex_for,
    parse_passes,
    parse_version,
)
from kernelopt.profiling.ncu_failures import (
    COUNTERS_FIX,
    NO_CUDA_DEVICE,
    NcuFailure,
    NcuTooOld,
    NoKernelsProfiled,
    ProfilingError,
    UserProgramFailed,
    available_kernels,
    classify,
    error_for,
    user_error_line,
)
from kernelopt.profiling.ncu_rep import read_ncu_rep_isolated
from kernelopt.profiling.protocol import ProfileSettings
from kernelopt.profiling.staging import log_path, staged_profile_dir
from kernelopt.profiling.timing_only import CPU_REASON, timing_only_summary
from kernelopt.worker.environment import worker_env
from kernelopt.workspace import Workspace

NCU_ENV = variable("ncu").name
NCU_CANDIDATES = (
    "/usr/local/cuda/bin/ncu",
    "/opt/nvidia/nsight-compute/*/ncu",
    "/usr/local/NVIDIA-Nsight-Compute*/ncu",
)
REPORT_NAME = "ncu.ncu-rep"
DRIVER_JSON = "driver.json"
VERSION_TIMEOUT_S = 60.0
LIST_TIMEOUT_S = 300.0


class ProfilerTimeout(CommandTimeout):
    """The profiled run passed its wall-clock limit; its process group was killed."""


def find_ncu(explicit: str | None = None) -> str | None:
    """Path of the ``ncu`` to use: ``explicit``, ``$KERNELOPT_NCU``, ``PATH``, then standard install folders."""
    for cand in (explicit, EnvSettings.read().ncu):
        if cand:
            return cand if Path(cand).is_file() or shutil.which(cand) else None
    found = shutil.which("ncu")
    if found:
        return found
    for pattern in NCU_CANDIDATES:
        hits = sorted(glob.glob(pattern))
        if hits:
            return hits[-1]
    return None


def ncu_version(ncu: str) -> tuple[tuple[int, int, int] | None, str]:
    """``((year, minor, patch) or None, raw text)`` from ``ncu --version``."""
    res = run_command([ncu, "--version"], timeout_s=VERSION_TIMEOUT_S)
    text = res.stdout + res.stderr
    return (parse_version(text) if res.ok else None), text.strip()


def _checked_version(ncu: str) -> tuple[int, int, int]:
    """``ncu``'s version, which kernelopt must be able to drive.

    Raises:
        ProfilingError: ``ncu --version`` does not run.
        NcuTooOld: older than :data:`MIN_NCU_VERSION`.
    """
    version_tuple, version_text = ncu_version(ncu)
    if version_tuple is None:
        raise ProfilingError(
            f"cannot run '{ncu} --version': {version_text.splitlines()[-1] if version_text else 'no output'}",
            kind=NcuFailure.NCU_FAILED,
            hint=f"check the Nsight Compute install, or point {NCU_ENV} at a working ncu",
        )
    if version_tuple[:2] < MIN_NCU_VERSION:
        shown = ".".join(map(str, version_tuple))
        need = ".".join(map(str, MIN_NCU_VERSION))
        raise NcuTooOld(
            f"ncu {shown} at {ncu} is older than {need}, the oldest release kernelopt drives",
            kind=NcuFailure.NCU_FAILED,
            hint=f"install Nsight Compute {need} or newer and put it on PATH (or set {NCU_ENV})",
        )
    return version_tuple


def _ncu_options(ws: Workspace, settings: ProfileSettings, staging: Path) -> NcuOptions:
    """What ncu collects (the full set, or the fast sections) and which launches: the kernels of
    kernel.py (or ``--kernel-regex``), ``settings.launches`` of each after the skipped ones."""
    names = kernel_names(read_python(ws.kernel_py))
    regex = settings.kernel_regex or kernel_regex_for(names)
    launch_count = settings.launch_count
    if launch_count is None and regex is not None:
        launch_count = max(1, len(names)) * settings.launches if not settings.kernel_regex else settings.launches
    return NcuOptions(
        export=staging / "ncu",
        set_name=None if settings.fast else "full",
        sections=FAST_SECTIONS if settings.fast else (),
        metrics=FAST_METRICS if settings.fast else (),
        kernel_regex=regex,
        launch_skip=settings.launch_skip,
        launch_count=launch_count,
        launch_skip_before_match=settings.launch_skip_before_match,
    )


def driver_argv(
    workspace: Workspace, settings: ProfileSettings, mode: str, out: Path, *, python: str | None = None
) -> list[str]:
    """The driver command line (``python -m kernelopt.profiling.driver ...``)."""
    return [
        python or sys.executable,
        "-m",
        "kernelopt.profiling.driver",
        "--kernel",
        str(workspace.kernel_py),
        "--reference",
        str(workspace.reference_py),
        "--mode",
        mode,
        "--warmup",
        str(settings.warmup),
        "--launches",
        str(settings.launches),
        "--shape-index",
        str(settings.shape_index),
        "--out",
        str(out),
        "--sass",
        "--device",
        settings.device,
    ]


def _write_log(path: Path, argv: list[str], res: CommandResult) -> None:
    status = "timed out" if res.timed_out else f"exit {res.returncode}"
    path.write_text(
        f"$ {' '.join(argv)}\n# {status} after {res.duration_s:.1f} s\n\n== stdout ==\n{res.stdout}\n"
        f"== stderr ==\n{res.stderr}\n",
        encoding="utf-8",
    )


def _timeout(argv: list[str], settings: ProfileSettings, res: CommandResult, log: Path) -> ProfilerTimeout:
    exc = ProfilerTimeout(argv, settings.timeout_s, res.stdout, res.stderr)
    exc.hint = (
        "the kernel may never finish (deadlock, infinite loop) or the full set is too slow for it: try --fast, "
        f"--launch-count 1 or a larger --timeout; full log: {log}"
    )
    return exc


def _static_isa(driver: DriverResult | None, folder: Path) -> dict[str, IsaFacts]:
    out: dict[str, IsaFacts] = {}
    if driver is None:
        return out
    for ck in driver.compiled:
        if not ck.sass_file or not (folder / ck.sass_file).is_file():
            continue
        listing = parse_listing((folder / ck.sass_file).read_text(encoding="utf-8", errors="replace"))
        instructions = listing.get(ck.name) or [i for ins in listing.values() for i in ins]
        out[ck.name] = isa_facts(
            instructions,
            source=f"{ck.sass_file} (cuobjdump -sass of the compiled kernel)",
            registers_per_thread=ck.registers,
            spilled_registers=ck.spilled_registers,
        )
    return out


def _read_driver(path: Path) -> DriverResult | None:
    if not path.is_file():
        return None
    return DriverResult.model_validate_json(path.read_text(encoding="utf-8"))


class NcuProfiler:
    """Stage 1 with Nsight Compute.

    Args:
        ncu: the ``ncu`` to use (default: :func:`find_ncu`).
        python: the Python that runs the driver (default: this interpreter).
    """

    name = "nvidia"

    def __init__(self, ncu: str | None = None, python: str | None = None) -> None:
        self._ncu = ncu
        self._python = python

    def profile(self, workspace: Workspace, version: int, settings: ProfileSettings) -> ProfileSummary:
        """Profile ``kernel.py`` into ``profiles/v<version>/`` and return the summary written there.

        Raises:
            NcuTooOld: the installed ncu is older than :data:`MIN_NCU_VERSION`.
            NoKernelsProfiled: the kernel filter matched nothing (the kernels that ran are listed).
            UserProgramFailed: kernel.py / reference.py failed on their own (their error is shown).
            ProfilerDeviceError: ncu failed on the device or does not support it.
            ReportNotWritten: ncu finished without writing the report.
            ProfilerTimeout: the run passed ``settings.timeout_s``; its process group was killed.
            WorkspaceError: ``profiles/v<version>/`` exists and ``settings.force`` is False.
        """
        if settings.vendor_options:
            raise UsageError(
                f"options not understood by the nvidia profiler: {', '.join(sorted(settings.vendor_options))}"
            )
        with staged_profile_dir(workspace, version, force=settings.force) as staging:
            summary = self._profile_into(workspace, version, settings, staging)
            write_summary(staging, summary)
        return summary

    # -- the steps ---------------------------------------------------------------------------------

    def _profile_into(self, ws: Workspace, version: int, settings: ProfileSettings, staging: Path) -> ProfileSummary:
        ncu = find_ncu(self._ncu)
        if ncu is None:
            reason = (
                CPU_REASON  # no GPU and no profiler: the kernel's CPU timing is the evidence, as asked
                if settings.device == "cpu"
                else "ncu (Nsight Compute CLI) not found on PATH, in $KERNELOPT_NCU or /usr/local/cuda/bin; "
                "install Nsight Compute to get counters"
            )
            return self._timing_only(ws, version, settings, staging, reason)
        version_tuple = _checked_version(ncu)
        options = _ncu_options(ws, settings, staging)
        program = driver_argv(ws, settings, "profile", staging / DRIVER_JSON, python=self._python)
        argv = build_ncu_argv(ncu, options, program)
        log = log_path(ws, version, "ncu")
        res = run_command(argv, timeout_s=settings.timeout_s, cwd=ws.root, env=worker_env())
        _write_log(log, argv, res)
        shutil.copyfile(log, staging / "ncu.log")
        if res.timed_out:
            raise _timeout(argv, settings, res, log)
        output = res.stdout + "\n" + res.stderr
        report = staging / REPORT_NAME
        kind = classify(output, res.returncode, report_exists=report.is_file())
        if kind is NcuFailure.COUNTERS_PERMISSION:
            reason = f"GPU performance counters are not readable by this user (ERR_NVGPUCTRPERM); {COUNTERS_FIX}"
            (staging / "ncu.log").unlink(missing_ok=True)
            return self._timing_only(ws, version, settings, staging, reason)
        if kind is NcuFailure.NO_KERNELS_PROFILED:
            raise self._no_kernels(ws, version, settings, staging, options.kernel_regex, log, available_kernels(output))
        if kind is not None:
            final = ws.profile_dir(version) / REPORT_NAME
            raise error_for(kind, output, report=final, log_path=log, returncode=res.returncode)
        driver = _read_driver(staging / DRIVER_JSON)
        raw = read_ncu_rep_isolated(report, artifact=REPORT_NAME)
        shown = ".".join(map(str, version_tuple))
        set_text = (
            f"--section {' --section '.join(FAST_SECTIONS)} + {len(FAST_METRICS)} metrics (--fast)"
            if settings.fast
            else "--set full"
        )
        summary = build_summary(
            raw,
            version=f"v{version}",
            tool_used=f"ncu {shown} {set_text}",
            source_root=str(ws.root),
            isa_by_kernel=_static_isa(driver, staging),
            artifacts=[*sorted(p.name for p in staging.iterdir()), "summary.json", "summary.txt"],
        )
        passes = parse_passes(output)
        summary.settings = {
            "argv": argv,
            "ncu": ncu,
            "ncu_version": shown,
            "section_set": "fast" if settings.fast else "full",
            "kernel_regex": options.kernel_regex,
            "launch_skip": settings.launch_skip,
            "launch_count": options.launch_count,
            "launch_skip_before_match": settings.launch_skip_before_match,
            "warmup_calls": settings.warmup,
            "profiled_calls": settings.launches,
            "replay_passes": sum(p for _, p in passes) if passes else None,
            "wall_s": round(res.duration_s, 3),
        }
        return summary

    def _run_driver(
        self, ws: Workspace, version: int, settings: ProfileSettings, mode: str, out: Path, timeout_s: float
    ) -> DriverResult:
        argv = driver_argv(ws, settings, mode, out, python=self._python)
        log = log_path(ws, version, f"driver-{mode}")
        res = run_command(argv, timeout_s=timeout_s, cwd=ws.root, env=worker_env(device=settings.device))
        _write_log(log, argv, res)
        if res.timed_out:
            raise _timeout(argv, settings, res, log)
        if not res.ok and NO_CUDA_DEVICE in res.stdout + res.stderr:
            raise NoGpu(f"no NVIDIA GPU found: {NO_CUDA_DEVICE}", on_cpu="takes timing-only evidence on the CPU")
        if not res.ok:
            raise UserProgramFailed(
                "kernel.py / reference.py failed in the driver: "
                + (user_error_line(res.stdout + "\n" + res.stderr) or f"exit {res.returncode}"),
                kind=NcuFailure.USER_PROGRAM_FAILED,
                hint="run 'python test_kernel.py' in the workspace to reproduce it",
                log_path=log,
            )
        result = _read_driver(out)
        if result is None:
            raise ProfilingError(f"the driver wrote no result at {out}", kind=NcuFailure.NCU_FAILED, log_path=log)
        return result

    def _timing_only(
        self, ws: Workspace, version: int, settings: ProfileSettings, staging: Path, reason: str
    ) -> ProfileSummary:
        result = self._run_driver(ws, version, settings, "time", staging / DRIVER_JSON, settings.timeout_s)
        sass = {
            ck.name: (staging / ck.sass_file).read_text(encoding="utf-8", errors="replace")
            for ck in result.compiled
            if ck.sass_file and (staging / ck.sass_file).is_file()
        }
        return timing_only_summary(
            result,
            reason=reason,
            version=f"v{version}",
            sass_text=sass,
            artifact=DRIVER_JSON,
            artifacts=[*sorted(p.name for p in staging.iterdir()), "summary.json", "summary.txt"],
        )

    def _no_kernels(
        self,
        ws: Workspace,
        version: int,
        settings: ProfileSettings,
        staging: Path,
        regex: str | None,
        log: Path,
        launched: list[str],
    ) -> NoKernelsProfiled:
        if not launched:  # older ncu releases do not list them: ask the driver (PyTorch profiler)
            listing = staging / "kernels_launched.json"
            try:
                launched = self._run_driver(ws, version, settings, "list", listing, LIST_TIMEOUT_S).kernels_launched
            except (ProfilingError, CommandTimeout):
                launched = []
        shown = "; ".join(one_line(n, 80) for n in launched[:12]) or "none could be listed"
        skip = f" after skipping {settings.launch_skip} matching launch(es)" if settings.launch_skip else ""
        what = f"the filter regex:{regex} matched no launch{skip}" if regex else "no kernel ran in the profiled call"
        return NoKernelsProfiled(
            f"ncu profiled no kernel: {what}",
            launched=launched,
            hint=f"kernels that ran in one call: {shown}; pass --kernel-regex with one of them",
            log_path=log,
        )
