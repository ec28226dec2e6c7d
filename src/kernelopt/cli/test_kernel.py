"""The workspace's ``test_kernel.py``: ``python test_kernel.py [--bench] [--json OUT] [--case I] [--device D]``.

The generated file only calls :func:`main` with its own folder, so the validation logic is versioned
with kernelopt rather than copied into every workspace. It is a command like the others (it parses its
arguments, calls the harness and renders the result), so it lives with them in ``cli``.
Correctness runs in a fresh worker process with the per-case and per-run timeouts; ``--bench`` then
times the kernel (no comparison). Exit status: 0 PASS, 1 FAIL, 124 TIMEOUT_FAIL, 2/3 for bad usage /
a broken environment. ``--json OUT`` writes a ``.json`` file outside the workspace (or in its ``.kernelopt/``),
new or an earlier result, checked before anything runs.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from pydantic import BaseModel

from kernelopt.destination import FileKind, output_file
from kernelopt.errors import KerneloptError
from kernelopt.fileio import atomic_write_text

RESULT_START = '{\n  "status": '
"""How the ``--json`` result begins (its first key, as :func:`_run` writes it): how a result kernelopt wrote is
known."""

RESULT_FILE = FileKind("result", (".json",), lambda head: head.startswith(RESULT_START))
"""``--json OUT``: a .json file outside every workspace (or in its ``.kernelopt/``) that replaces only a result."""


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="python test_kernel.py",
        description="Check kernel.py against reference.py (and time it with --bench) in an isolated worker.",
    )
    p.add_argument("--bench", action="store_true", help="after a correct run, time the kernel")
    p.add_argument("--json", dest="json_out", type=Path, metavar="OUT", help="write the result as JSON to OUT")
    p.add_argument("--case", type=int, metavar="I", help="run only case I of reference.py SHAPES")
    p.add_argument("--device", choices=["cuda", "cpu"], help="device (default: cuda when present)")
    return p


def main(workspace_dir: Path, argv: list[str]) -> int:
    """Run the checks of the workspace in ``workspace_dir``; returns the exit status.

    Args:
        workspace_dir: the folder holding kernel.py, reference.py and (optionally) README.md.
        argv: the command-line arguments after the script name.
    """
    from kernelopt.proc import signals_as_interrupt

    args = _parser().parse_args(argv)
    try:
        with signals_as_interrupt():
            return _run(Path(workspace_dir).resolve(), args)
    except KerneloptError as exc:
        sys.stderr.write(f"test_kernel: error: {exc.one_line()}\n")
        return exc.exit_code
    except KeyboardInterrupt as exc:
        sys.stderr.write(f"test_kernel: interrupted ({exc or 'Ctrl-C'}); the worker was stopped\n")
        return 130


def _run(root: Path, args: argparse.Namespace) -> int:
    from kernelopt.cli.validate import busy, render_bench, render_correctness
    from kernelopt.errors import WorkspaceError
    from kernelopt.harness.decision import exit_code
    from kernelopt.harness.gate import bench_files, check_files
    from kernelopt.harness.settings import HarnessSettings
    from kernelopt.memory.model import CorrectnessStatus
    from kernelopt.taskcard import TaskCard

    if args.json_out is not None:  # before anything runs: `--json kernel.py` replaced the kernel
        args.json_out = output_file(args.json_out, "--json", RESULT_FILE, state_ok=True)
    kernel_py, reference_py = root / "kernel.py", root / "reference.py"
    for f in (kernel_py, reference_py):
        if not f.is_file():
            raise WorkspaceError(f"{root}: no {f.name}")
    card = TaskCard.load(root / "README.md") if (root / "README.md").is_file() else TaskCard()
    settings = HarnessSettings.from_env(None, device=args.device)
    cases = [args.case] if args.case is not None else None
    state = root / ".kernelopt"
    # a live status on a terminal, as validate shows: a C++ extension's build said nothing for 48 s on the CPU (n99)
    with busy("test_kernel.py: checking kernel.py against reference.py (its build included)"):
        report = check_files(
            kernel_py, reference_py, state, label="test", settings=settings, cases=cases, dtype_hint=card.dtype
        )
    render_correctness(report)
    out: dict[str, Any] = {"status": report.status.value, "message": report.message, "correctness": report}
    status = report.status
    if report.passed and args.bench:
        with busy("test_kernel.py: timing kernel.py and the reference"):
            bench, _raw = bench_files(
                kernel_py, reference_py, state, label="test", settings=settings, cases=cases, dtype_hint=card.dtype
            )
        render_bench(bench)
        out["bench"] = bench
        if not bench.ok:
            status = bench.status
            out["status"] = status.value
            out["message"] = f"timing: {bench.message}"
    if args.json_out is not None:
        plain = {k: v.model_dump(mode="json") if isinstance(v, BaseModel) else v for k, v in out.items()}
        args.json_out.parent.mkdir(parents=True, exist_ok=True)
        atomic_write_text(args.json_out, json.dumps(plain, indent=2) + "\n")
    return exit_code(status if status is not CorrectnessStatus.NOT_RUN else CorrectnessStatus.FAIL)
