#!/usr/bin/env python3
"""Record the NVIDIA test fixtures on a GPU machine (regenerates tests/data/nvidia/h200_*).

For each fixture kernel in scripts/nvidia_fixture_kernels (memory-bound softmax, tensor-core matmul,
small grid, uncoalesced gather, shared-memory bank conflicts, register spills) it creates a workspace,
measures the profile cost (benchmarks/profile_cost.py: unprofiled run, ``--set full``, ``--fast``),
keeps the one-launch ``--set full`` report and exports it with ``ncu --import R --page details --csv``
(and ``--page raw --csv`` for softmax) for exact-value tests. It also records what ncu prints for the
failure classes it can reproduce (``ncu --version``, no kernel matched, the user's program failing).

    python scripts/record_nvidia_fixtures.py --out OUTDIR [--kernels a,b] [--root WSROOT]

Writes OUTDIR/h200_<kernel>.ncu-rep, h200_<kernel>_details.csv, h200_<kernel>_summary.txt,
h200_softmax_raw.csv, h200_softmax_fast.ncu-rep, ncu_outputs/*.txt, profile_cost.json, profile_cost.md
and manifest.json.
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
import tempfile
import time
import traceback
from dataclasses import asdict
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "src"))
sys.path.insert(0, str(REPO / "benchmarks"))

import profile_cost  # noqa: E402

from kernelopt.errors import KerneloptError  # noqa: E402
from kernelopt.proc import run_command  # noqa: E402
from kernelopt.profiling.nvidia import find_ncu  # noqa: E402


def export_csv(ncu: str, report: Path, page: str, out: Path) -> str:
    """``ncu --import report --page <page> --csv`` into ``out``; returns the argv as text."""
    argv = [ncu, "--import", str(report), "--page", page, "--csv"]
    res = run_command(argv, timeout_s=300)
    if not res.ok:
        raise RuntimeError(f"{' '.join(argv)} failed: {res.stderr_tail(5)}")
    out.write_text(res.stdout, encoding="utf-8")
    return " ".join(argv)


def record_failure(label: str, fn, out_dir: Path, manifest: dict) -> None:  # type: ignore[no-untyped-def]
    """Run ``fn`` (expected to raise a KerneloptError) and save its one-line message and its log."""
    try:
        fn()
        manifest["failures"][label] = {"error": "no failure raised"}
    except KerneloptError as exc:
        log = getattr(exc, "log_path", None)
        text = f"# {type(exc).__name__}: {exc.one_line()}\n"
        if log is not None and Path(log).is_file():
            text += Path(log).read_text(encoding="utf-8", errors="replace")
        (out_dir / f"{label}.txt").write_text(text, encoding="utf-8")
        manifest["failures"][label] = {"class": type(exc).__name__, "message": exc.one_line()}


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--out", type=Path, required=True)
    p.add_argument("--kernels", default=",".join(profile_cost.FIXTURES))
    p.add_argument("--root", type=Path, default=None)
    args = p.parse_args(argv)
    out: Path = args.out
    out.mkdir(parents=True, exist_ok=True)
    (out / "ncu_outputs").mkdir(exist_ok=True)
    root = args.root or Path(tempfile.mkdtemp(prefix="kernelopt-fixtures-"))
    ncu = find_ncu()
    if ncu is None:
        print("ncu not found", file=sys.stderr)
        return 3
    version = run_command([ncu, "--version"], timeout_s=60)
    (out / "ncu_outputs" / "version.txt").write_text(version.stdout, encoding="utf-8")
    manifest: dict = {"date": time.strftime("%Y-%m-%d"), "ncu": ncu, "kernels": {}, "failures": {}, "rows": []}
    rows = []
    workspaces = {}
    for i, name in enumerate(k for k in args.kernels.split(",") if k):
        t0 = time.monotonic()
        entry: dict = {}
        try:
            ws = profile_cost.make_workspace(name, root)
            workspaces[name] = ws
            kernel_rows = profile_cost.measure_kernel(ws, name, candidates=(i == 0), scratch=root / "scratch")
            rows += kernel_rows
            full = ws.profile_dir(0)
            shutil.copyfile(full / "ncu.ncu-rep", out / f"h200_{name}.ncu-rep")
            shutil.copyfile(full / "summary.txt", out / f"h200_{name}_summary.txt")
            entry["details_cmd"] = export_csv(ncu, full / "ncu.ncu-rep", "details", out / f"h200_{name}_details.csv")
            if name == "softmax":
                entry["raw_cmd"] = export_csv(ncu, full / "ncu.ncu-rep", "raw", out / "h200_softmax_raw.csv")
                shutil.copyfile(ws.profile_dir(1) / "ncu.ncu-rep", out / "h200_softmax_fast.ncu-rep")
            summary = json.loads((full / "summary.json").read_text())
            entry["argv"] = summary["settings"].get("argv")
            entry["tool_used"] = summary["tool_used"]
            entry["report_bytes"] = (full / "ncu.ncu-rep").stat().st_size
            entry["rows"] = [asdict(r) for r in kernel_rows]
        except Exception as exc:  # a script: record the failure of one fixture and go on with the next
            entry["error"] = f"{type(exc).__name__}: {exc}"
            entry["traceback"] = traceback.format_exc()[-3000:]
        entry["seconds"] = round(time.monotonic() - t0, 1)
        manifest["kernels"][name] = entry
        (out / "manifest.json").write_text(json.dumps(manifest, indent=2, default=str) + "\n")
        print(f"[{name}] {entry.get('error', 'ok')} ({entry['seconds']} s)", flush=True)
    manifest["rows"] = [asdict(r) for r in rows]
    (out / "profile_cost.md").write_text(profile_cost.table(rows) + "\n", encoding="utf-8")
    (out / "profile_cost.json").write_text(json.dumps([asdict(r) for r in rows], indent=2) + "\n")

    from kernelopt.profiling import profile

    softmax_ws = workspaces.get("softmax")
    if softmax_ws is not None:
        record_failure(
            "no_kernels_profiled",
            lambda: profile(softmax_ws, 20, kernel_regex="^no_such_kernel$", force=True),
            out / "ncu_outputs",
            manifest,
        )
    fail_ws = profile_cost.make_workspace(
        "failing",
        root,
        kernel=profile_cost.KERNELS_DIR / "failing_kernel.py",
        reference=profile_cost.KERNELS_DIR / "softmax_reference.py",
    )
    record_failure("user_program_failed", lambda: profile(fail_ws, 0, force=True), out / "ncu_outputs", manifest)
    (out / "manifest.json").write_text(json.dumps(manifest, indent=2, default=str) + "\n")
    print(profile_cost.table(rows))
    return 0


if __name__ == "__main__":
    sys.exit(main())
