"""Read Nsight Compute reports (``.ncu-rep``) with NVIDIA's ``ncu_report`` module.

``ncu_report`` is the Python report interface shipped with every Nsight Compute install
(``<install>/extras/python``) and on PyPI as ``ncu-report``; it reads reports of any GPU on a machine
without one, which is what lets CI test on real reports. It is imported only when a report is read.

Every launch becomes a :class:`~kernelopt.evidence.raw.RawKernel`: scalar metrics in base units,
source-level counters by SASS address (PC sampling stall reasons, executed instructions, L2 sectors),
executed instruction counts per opcode, the SASS and source line of every address the report holds, the
imported source, and the profiler's rule results and source markers.
"""

from __future__ import annotations

import hashlib
import json
import math
import os
import signal
import sys
from pathlib import Path
from typing import Any

from kernelopt.errors import EnvironmentProblem, InputFileError, KerneloptError
from kernelopt.evidence.model import ProfilerRuleResult, SourceMarker
from kernelopt.evidence.profiler_rules import clean_text, stated_share_pct
from kernelopt.evidence.raw import RawKernel, RawMetric, RawReport, report_from_json, report_to_json
from kernelopt.profiling.units import to_base

# Instanced metrics whose correlation ids are SASS addresses (the Source page's counters).
_PER_PC_PREFIXES = (
    "smsp__pcsamp_",
    "inst_executed",
    "thread_inst_executed",
    "memory_l1_",
    "memory_l2_",
    "derived__memory_",
    "derived__avg_thread_executed",
    "sass__inst_executed_global",
    "sass__inst_executed_shared",
    "sass__inst_executed_local",
)
_PER_OPCODE = "sass__inst_executed_per_opcode_with_modifier_all"
_MSG_TYPES = {0: "NONE", 1: "OK", 2: "OPTIMIZATION", 3: "WARNING", 4: "ERROR"}
_SPEEDUP_TYPES = {0: None, 1: "LOCAL", 2: "GLOBAL"}
NCU_PYTHON_HINT = (
    "install the PyPI package ncu-report, or add <nsight-compute>/extras/python "
    "(e.g. /opt/nvidia/nsight-compute/2025.3.1/extras/python) to PYTHONPATH"
)


def import_ncu_report() -> Any:
    """Import ``ncu_report``.

    Raises:
        EnvironmentProblem: the module is not importable (with how to install it).
    """
    try:
        import ncu_report
    except ImportError as exc:
        raise EnvironmentProblem(f"cannot import ncu_report ({exc})", hint=NCU_PYTHON_HINT) from None
    return ncu_report


def _format_offset(address: int, function_pc: int | None) -> str:
    if function_pc is not None and address >= function_pc:
        return f"0x{address - function_pc:04x}"
    return f"0x{address:x}"


def _rule_results(action: Any) -> list[ProfilerRuleResult]:
    out: list[ProfilerRuleResult] = []
    for d in action.rule_results_as_dicts():
        msg = d.get("rule_message") or {}
        title = clean_text(str(msg.get("title") or ""))
        text = clean_text(str(msg.get("message") or ""))
        speed = d.get("speedup_estimation") or {}
        speedup = speed.get("speedup")
        out.append(
            ProfilerRuleResult(
                rule_id=str(d.get("rule_identifier") or d.get("name") or "unknown"),
                section=d.get("section_identifier") or None,
                kind=_MSG_TYPES.get(int(msg.get("type", 0)), str(msg.get("type"))),
                message=f"{title}: {text}" if title and text else (text or title),
                estimated_speedup_pct=float(speedup) if speedup is not None else None,
                speedup_type=_SPEEDUP_TYPES.get(int(speed.get("type", 0))) if speed else None,
                focus_metrics=[str(f.get("name")) for f in d.get("focus_metrics") or [] if f.get("name")],
            )
        )
    return out


def _markers(action: Any, function_pc: int | None) -> list[SourceMarker]:
    out: list[SourceMarker] = []
    for d in action.source_markers():
        kind = int(d.get("kind", 2))
        message = clean_text(str(d.get("message") or ""))
        if kind == 0 and "source_address" in d:
            location = _format_offset(int(d["source_address"]), function_pc)
            kind_name = "sass"
        else:
            loc = d.get("source_location") or {}
            location = f"{loc.get('file_name', '?')}:{loc.get('line', '?')}"
            kind_name = "source"
        out.append(
            SourceMarker(
                rule_id=str(d.get("rule_identifier") or "unknown"),
                section=d.get("section_identifier") or None,
                location=location,
                kind=kind_name,
                message=message,
                severity=_MSG_TYPES.get(int(d.get("message_type", 0))),
                share_pct=stated_share_pct(message),
            )
        )
    return out


def _read_action(ncu_report: Any, action: Any, artifact: str, launch_id: int) -> RawKernel:
    demangled = action.name(action.NameBase_DEMANGLED) or action.name()
    if not isinstance(demangled, str) or not demangled:
        raise InputFileError(
            artifact,
            f"launch {launch_id} has no kernel name: the report is truncated or corrupt",
            hint="copy the report again, or profile again; 'ncu --import REPORT' shows what ncu itself can read",
        )
    kernel = RawKernel(
        name=demangled,
        function_name=action.name(action.NameBase_FUNCTION) or None,
        launch_id=launch_id,
        artifact=artifact,
    )
    string_kind = ncu_report.IMetric.ValueKind_STRING
    for name in action.metric_names():
        m = action.metric_by_name(name)
        if m is None:
            continue
        n_inst = m.num_instances()
        if n_inst > 0 and m.has_correlation_ids():
            ids = m.correlation_ids()
            if name == _PER_OPCODE and ids.kind() == string_kind:
                kernel.per_opcode = {ids.as_string(i): float(m.as_double(i)) for i in range(n_inst)}
            elif name.startswith(_PER_PC_PREFIXES) and ids.kind() != string_kind:
                kernel.per_pc[name] = {int(ids.as_uint64(i)): float(m.as_double(i)) for i in range(n_inst)}
            elif name == "launch__function_pcs":
                kernel.function_pc = int(m.as_uint64(0))
        if not m.has_value() or ":" in name:  # "breakdown:..." / "group:..." list other metrics
            continue
        if m.kind() == string_kind:
            kernel.strings[name] = str(m.as_string())
            continue
        raw = m.value()
        if isinstance(raw, str):
            kernel.strings[name] = raw
            continue
        try:
            value = float(raw)
        except (TypeError, ValueError):
            continue
        base, unit = to_base(value, m.unit())
        kernel.metrics[name] = RawMetric(name=name, value=None if math.isnan(base) else base, unit=unit)
    kernel.gpu = kernel.strings.get("device__attribute_display_name")
    dims = [kernel.value(f"launch__grid_dim_{a}") for a in "xyz"]
    if all(d is not None for d in dims):
        kernel.grid = [int(d) for d in dims if d is not None]
    dims = [kernel.value(f"launch__block_dim_{a}") for a in "xyz"]
    if all(d is not None for d in dims):
        kernel.block = [int(d) for d in dims if d is not None]
    addresses: set[int] = set()
    for values in kernel.per_pc.values():
        addresses.update(values)
    for addr in sorted(addresses):
        text = action.sass_by_pc(addr)
        if text:
            kernel.sass[addr] = " ".join(text.split())
        info = action.source_info(addr)
        if info is not None:
            kernel.source_lines[addr] = (str(info.file_name()), int(info.line()))
    for file_name, content in (action.source_files() or {}).items():
        if content:
            kernel.source_text[str(file_name)] = str(content).splitlines()
    kernel.rules = _rule_results(action)
    kernel.markers = _markers(action, kernel.function_pc)
    return kernel


def read_ncu_rep(path: Path, *, artifact: str | None = None) -> RawReport:
    """Read every profiled launch of an ``.ncu-rep`` file.

    Args:
        path: the report.
        artifact: how evidence should name the file (default: the path as given).

    Raises:
        InputFileError: the file is missing, unreadable, or holds no profiled launch (empty, truncated, or
            not an Nsight Compute report).
        EnvironmentProblem: ``ncu_report`` cannot be imported.
    """
    if not path.is_file():
        raise InputFileError(path, "no such report")
    if not os.access(path, os.R_OK):
        raise InputFileError(path, "not readable")
    ncu_report = import_ncu_report()
    try:
        ctx = ncu_report.load_report(str(path))
    except (FileNotFoundError, RuntimeError, OSError) as exc:
        raise InputFileError(path, f"cannot load the report ({exc})") from None
    report = RawReport(path=str(path), tool="ncu")
    name = artifact or str(path)
    launch_id = 0
    for ri in range(ctx.num_ranges()):
        rng = ctx.range_by_idx(ri)
        for ai in range(rng.num_actions()):
            report.kernels.append(_read_action(ncu_report, rng.action_by_idx(ai), name, launch_id))
            launch_id += 1
    unnamed = [k.launch_id for k in report.kernels if not k.name]
    if unnamed:
        raise InputFileError(
            path,
            f"launch {unnamed[0]} has no kernel name: the report is truncated or damaged",
            hint="profile again (a report is complete only after ncu exits)",
        )
    if not report.kernels:
        raise InputFileError(
            path,
            "holds no profiled kernel",
            hint="the file is empty, truncated or not an Nsight Compute report; profile again",
        )
    return report


WORKER_TIMEOUT_S = 600.0
_EXIT_USER = 2


class ReportReaderCrashed(KerneloptError):
    """NVIDIA's ``ncu_report`` module crashed (or hung) while reading a report in the worker process."""

    exit_code = 3


def read_ncu_rep_isolated(path: Path, *, artifact: str | None = None, attempts: int = 2) -> RawReport:
    """:func:`read_ncu_rep` in a worker process, so that a crash of ``ncu_report`` cannot take kernelopt down.

    ``ncu_report`` is native code; on the H200 test machine it was seen to crash (SIGSEGV) now and then
    while reading reports it reads fine in another process. The worker runs ``python -m
    kernelopt.profiling.ncu_rep PATH``; a crash is retried ``attempts`` times in all. A read of bytes this process
    has read whole before (the same name asked for) starts no worker: the report comes from the memo
    (:data:`_READ`), a fresh object each time.

    Raises:
        InputFileError: the report is missing, unreadable or empty (from the worker).
        EnvironmentProblem: ``ncu_report`` is not importable (from the worker).
        ReportReaderCrashed: every attempt crashed or timed out.
    """
    from kernelopt.proc import run_command
    from kernelopt.worker.environment import worker_env

    if not path.is_file():
        raise InputFileError(path, "no such report")
    argv = [sys.executable, "-m", "kernelopt.profiling.ncu_rep", str(path), artifact or str(path)]
    env = worker_env()
    key = _read_key(path, artifact or str(path), env)
    if key is not None and key in _READ:
        _READ[key] = _READ.pop(key)  # the most recently used last
        return _from_worker(_READ[key], path)
    last = ""
    for _ in range(max(1, attempts)):
        res = run_command(argv, timeout_s=WORKER_TIMEOUT_S, env=env)
        if res.ok:
            report = _from_worker(res.stdout, path)
            if key is not None and key == _read_key(path, artifact or str(path), env):  # unchanged meanwhile
                _READ[key] = res.stdout
                while len(_READ) > READ_MEMO_SIZE:
                    _READ.pop(next(iter(_READ)))
            return report
        if res.returncode == _EXIT_USER:
            raise _user_error(path, res.stderr)
        if res.timed_out:
            last = f"timed out after {WORKER_TIMEOUT_S:g} s"
        elif res.returncode is not None and res.returncode < 0:
            last = f"killed by signal {signal.Signals(-res.returncode).name}"
        else:
            last = f"exit {res.returncode}: {res.stderr_tail(3)}"
    raise ReportReaderCrashed(
        f"ncu_report failed reading {path} ({last})",
        hint="open the report with 'ncu --import' or 'ncu-ui' to check it; retry",
    )


#: Our choice: how many reports' reads a process keeps (the JSON text the worker sent, 0.1-5 MB each).
READ_MEMO_SIZE = 16
_READ: dict[tuple[str, str, str | None], str] = {}
"""The reads of this process, by the report's bytes (SHA-256), the name evidence gives it and the worker's
PYTHONPATH (which ``ncu_report`` it imports): the loop, ``kernelopt mcp`` and a report read the same profile
again (Stage 1, the plan, the report, each MCP tool), and each read is a process importing kernelopt and
``ncu_report`` (0.6 CPU-s for the test data's H200 reports, seconds for a large report). Only a whole read is
kept; a failure is read again."""


def _read_key(path: Path, artifact: str, env: dict[str, str]) -> tuple[str, str, str | None] | None:
    """What makes two reads alike (see :data:`_READ`), or ``None`` when the file cannot be read here."""
    try:
        digest = hashlib.sha256(path.read_bytes()).hexdigest()
    except OSError:
        return None
    return digest, artifact, env.get("PYTHONPATH")


def _from_worker(stdout: str, path: Path) -> RawReport:
    """The report the worker sent, a fresh object for each caller, named by the path asked for (a copy of the
    same bytes elsewhere reads the same)."""
    report = report_from_json(json.loads(stdout))
    report.path = str(path)
    return report


def _user_error(path: Path, stderr: str) -> InputFileError | EnvironmentProblem:
    """The worker's error (its last stderr line, a JSON object) as the exception it raised, hint included."""
    lines = stderr.strip().splitlines()
    try:
        sent = json.loads(lines[-1]) if lines else {}
    except json.JSONDecodeError:
        sent = {}
    if not isinstance(sent, dict):
        sent = {}
    message = str(sent.get("message") or (lines[-1] if lines else "the report reader failed"))
    hint = sent.get("hint") if isinstance(sent.get("hint"), str) else None
    if sent.get("kind") == "EnvironmentProblem":
        return EnvironmentProblem(message, hint=hint)
    prefix = f"{path}: "
    return InputFileError(path, message.removeprefix(prefix), hint=hint)


def _worker_main(argv: list[str]) -> int:
    path, artifact = Path(argv[0]), argv[1] if len(argv) > 1 else argv[0]
    try:
        report = read_ncu_rep(path, artifact=artifact)
    except (InputFileError, EnvironmentProblem) as exc:
        # One JSON line, so that the parent can raise the same error with its hint.
        sent = {"kind": type(exc).__name__, "message": exc.message, "hint": exc.hint}
        sys.stderr.write(json.dumps(sent) + "\n")
        return _EXIT_USER
    sys.stdout.write(json.dumps(report_to_json(report)))
    return 0


if __name__ == "__main__":
    sys.exit(_worker_main(sys.argv[1:]))
