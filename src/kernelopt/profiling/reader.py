"""Read any profiler output as evidence: ``.ncu-rep``, ncu CSV exports, profile folders, summary.json.

:func:`read_evidence` decides by the path: an AMD artifact (recognised by
``kernelopt.profiling.amd_reports.is_amd_path``) goes to the AMD reader; a folder with a ``summary.json``
is read as recorded; a folder without one is read through the report it holds; ``.ncu-rep`` files go
through ``ncu_report``; ``.csv`` files through the CSV parser.
"""

from __future__ import annotations

import re
from pathlib import Path

from kernelopt.errors import InputFileError, UsageError
from kernelopt.evidence.model import ProfileSummary
from kernelopt.evidence.nvidia import build_summary
from kernelopt.evidence.summary import SUMMARY_JSON, read_summary
from kernelopt.oneline import one_line
from kernelopt.profiling.amd_reports import is_amd_path, read_amd_path
from kernelopt.profiling.ncu_csv import parse_ncu_csv
from kernelopt.profiling.ncu_rep import read_ncu_rep_isolated


def filter_kernels(summary: ProfileSummary, kernel: str | None, *, origin: str) -> ProfileSummary:
    """Keep the kernels whose name matches ``kernel``.

    ``kernel`` matches when it is a substring of the kernel name, a regular expression that matches it
    (``re.search``), or ``#<launch id>``.

    Raises:
        UsageError: nothing matches (the message lists the kernels that are there).
    """
    if not kernel:
        return summary
    if kernel.startswith("#") and kernel[1:].isdigit():
        wanted = int(kernel[1:])
        keep = [k for k in summary.kernels if k.launch_id == wanted or wanted in k.launch_ids]
    else:
        try:
            pattern = re.compile(kernel)
        except re.error:
            pattern = re.compile(re.escape(kernel))
        keep = [k for k in summary.kernels if kernel in k.kernel_name or pattern.search(k.kernel_name)]
    if not keep:
        names = sorted({k.kernel_name for k in summary.kernels})
        raise UsageError(
            f"{origin}: no kernel matches {kernel!r}",
            hint="kernels in it: " + "; ".join(one_line(n, 120) for n in names),
        )
    return summary.model_copy(update={"kernels": keep})


def _from_report(path: Path, artifact: str, per_launch: bool = False) -> ProfileSummary:
    return build_summary(read_ncu_rep_isolated(path, artifact=artifact), artifacts=[artifact], per_launch=per_launch)


def _from_csv(path: Path, artifact: str, per_launch: bool = False) -> ProfileSummary:
    try:
        text = path.read_text(encoding="utf-8", errors="replace")
    except OSError as exc:
        raise InputFileError(path, f"cannot read ({exc.strerror})") from None
    return build_summary(parse_ncu_csv(text, artifact=artifact), artifacts=[artifact], per_launch=per_launch)


def _from_gzipped_report(path: Path, per_launch: bool = False) -> ProfileSummary:
    """A gzipped ``.ncu-rep`` (as reports are stored in repositories), unpacked to a temporary file."""
    import gzip
    import shutil
    import tempfile

    with tempfile.TemporaryDirectory(prefix="kernelopt-ncu-") as tmp:
        target = Path(tmp) / path.name.removesuffix(".gz")
        try:
            with gzip.open(path, "rb") as src, open(target, "wb") as dst:
                shutil.copyfileobj(src, dst)
        except (OSError, EOFError) as exc:
            raise InputFileError(path, f"not a readable gzip file ({exc})") from None
        try:
            return _from_report(target, path.name, per_launch)
        except InputFileError as exc:
            # Name the user's file, not the unpacked copy that is deleted on return.
            message = exc.message.removeprefix(f"{target}: ")
            raise InputFileError(path, message, hint=exc.hint) from None


def read_evidence(path: Path, *, kernel: str | None = None, per_launch: bool = False) -> ProfileSummary:
    """Evidence from any profiler output kernelopt understands.

    Args:
        path: an ``.ncu-rep``, an ncu CSV export (details, raw or ``--metrics`` page), a profile folder
            (``profiles/v<N>/``) or a ``summary.json``; AMD artifacts are delegated to the AMD reader.
        kernel: keep only the kernels matching this name, regex or ``#<launch id>``.
        per_launch: one entry per launch instead of one per kernel and launch configuration (reports
            and CSV exports; a recorded summary.json holds the groups it was written with).

    Raises:
        InputFileError: the path does not exist or is not a readable report.
        UsageError: ``kernel`` matches nothing.
        EnvironmentProblem: ``ncu_report`` is needed and cannot be imported.
    """
    path = Path(path)
    if not path.exists():
        raise InputFileError(path, "no such file or folder")
    if is_amd_path(path):
        summary = read_amd_path(path, per_launch=per_launch)
    elif path.is_dir():
        if (path / SUMMARY_JSON).is_file():
            summary = read_summary(path)
        else:
            reports = sorted(path.glob("*.ncu-rep"))
            csvs = sorted(path.glob("*.csv"))
            if reports:
                summary = _from_report(reports[0], reports[0].name, per_launch)
            elif csvs:
                summary = _from_csv(csvs[0], csvs[0].name, per_launch)
            else:
                raise InputFileError(path, "holds no summary.json, .ncu-rep or ncu CSV export")
    elif path.suffix == ".ncu-rep":
        summary = _from_report(path, path.name, per_launch)
    elif path.name.endswith(".ncu-rep.gz"):
        summary = _from_gzipped_report(path, per_launch)
    elif path.suffix.lower() == ".csv":
        summary = _from_csv(path, path.name, per_launch)
    elif path.suffix == ".json":
        summary = read_summary(path)
    else:
        raise InputFileError(
            path,
            "unknown report type",
            hint="give an .ncu-rep (or .ncu-rep.gz), an ncu CSV export, summary.json, a profile folder, "
            "or AMD output (rocprofv3 / rocprof-compute CSV, ATT stats, .s / .amdgcn)",
        )
    return filter_kernels(summary, kernel, origin=str(path))
