#!/usr/bin/env python3
"""Profile cost: replay passes and profiler overhead of ``--set full`` vs ``--fast`` (and other section sets).

For each fixture kernel (scripts/nvidia_fixture_kernels) it builds a workspace and measures:

- the unprofiled run: the kernelopt driver doing exactly the profiled work (warm-up + one call) without
  ncu (process wall time, start-up included);
- ``--set full`` through ``kernelopt.profiling.profile`` (ncu wall time, replay passes, verdict);
- ``--fast`` through the same path;
- optionally (``--candidates``) other section sets on the first kernel, to show why ``--fast`` is what it is.

Overhead = ncu wall time - unprofiled wall time. The verdict is the bottleneck class and the top
symptom of the profiled kernel; ``same verdict`` compares each set with the full set.

    python benchmarks/profile_cost.py [--kernels softmax,matmul] [--root DIR] [--candidates] [--json OUT]

Needs an NVIDIA GPU, ncu and a CUDA build of torch + triton.
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
import tempfile
from dataclasses import asdict, dataclass, field
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
if str(REPO / "src") not in sys.path:
    sys.path.insert(0, str(REPO / "src"))

from kernelopt.errors import KerneloptError  # noqa: E402
from kernelopt.evidence.model import ProfileSummary  # noqa: E402
from kernelopt.workspace import Workspace  # noqa: E402

KERNELS_DIR = REPO / "scripts" / "nvidia_fixture_kernels"
FIXTURES = ("softmax", "matmul", "small_grid", "uncoalesced", "bank_conflict", "register_spill")
CANDIDATE_SETS: dict[str, tuple[str, ...]] = {
    "sol+launch+occ": ("SpeedOfLight", "LaunchStats", "Occupancy"),
    "sol+launch+occ+warp": ("SpeedOfLight", "LaunchStats", "Occupancy", "SchedulerStats", "WarpStateStats"),
    "basic+tables": ("SpeedOfLight", "LaunchStats", "Occupancy", "MemoryWorkloadAnalysis_Tables"),
}


@dataclass
class Row:
    """One measured profile of one kernel."""

    kernel: str
    section_set: str
    passes: int | None
    ncu_wall_s: float | None
    unprofiled_wall_s: float | None
    overhead_s: float | None
    bottleneck: str | None
    top_symptom: str | None
    symptoms: list[str] = field(default_factory=list)
    same_verdict: bool | None = None
    same_top_symptom: bool | None = None
    error: str | None = None


class PlainWorkspace:
    """The paths of a workspace without its git repository (used only when git is not installed)."""

    def __init__(self, root: Path) -> None:
        self.root = root.resolve()
        self.kernel_py = self.root / "kernel.py"
        self.reference_py = self.root / "reference.py"
        self.profiles_dir = self.root / "profiles"
        self.state_dir = self.root / ".kernelopt"

    def profile_dir(self, version: int) -> Path:
        return self.profiles_dir / f"v{version}"

    def task_card(self):  # type: ignore[no-untyped-def]
        from kernelopt.taskcard import TaskCard

        return TaskCard()


def make_workspace(name: str, root: Path, *, kernel: Path | None = None, reference: Path | None = None) -> Workspace:
    """A fresh workspace ``kernel_opt_<name>`` from the fixture pair (plain folders when git is missing)."""
    kernel = kernel or KERNELS_DIR / f"{name}_kernel.py"
    reference = reference or KERNELS_DIR / f"{name}_reference.py"
    try:
        return Workspace.create(name, kernel=kernel, reference=reference, root=root, force=True)
    except Exception as exc:  # a benchmark script: a machine without git still gets measured
        print(f"[{name}] workspace without git ({exc})", file=sys.stderr)
        folder = root / f"kernel_opt_{name}"
        shutil.rmtree(folder, ignore_errors=True)
        folder.mkdir(parents=True)
        shutil.copyfile(kernel, folder / "kernel.py")
        shutil.copyfile(reference, folder / "reference.py")
        return PlainWorkspace(folder)  # type: ignore[return-value]


def verdict(summary: ProfileSummary) -> tuple[str | None, str | None, list[str]]:
    """(bottleneck, top symptom, all symptoms) of the primary kernel."""
    k = summary.primary()
    if k is None:
        return None, None, []
    symptoms = list(dict.fromkeys(f.symptom for f in k.findings))
    return k.bottleneck.value, (symptoms[0] if symptoms else None), symptoms


def unprofiled_wall(ws: Workspace) -> float:
    """Wall time of the driver doing the profiled work without ncu (warm-up + one call), seconds."""
    from kernelopt.proc import run_command
    from kernelopt.profiling.nvidia import child_env, driver_argv
    from kernelopt.profiling.protocol import ProfileSettings

    with tempfile.TemporaryDirectory() as tmp:
        argv = driver_argv(ws, ProfileSettings(), "profile", Path(tmp) / "driver.json")
        res = run_command(argv, timeout_s=600, cwd=ws.root, env=child_env())
        if not res.ok:
            raise RuntimeError(f"unprofiled driver run failed: {res.stderr_tail(5)}")
        return res.duration_s


def profile_row(ws: Workspace, name: str, version: int, *, fast: bool) -> tuple[Row, ProfileSummary]:
    """Profile through the product path (``kernelopt.profiling.profile``)."""
    from kernelopt.profiling import profile

    summary = profile(ws, version, fast=fast, force=True)
    b, top, symptoms = verdict(summary)
    passes = summary.settings.get("replay_passes")
    wall = summary.settings.get("wall_s")
    row = Row(
        kernel=name,
        section_set="fast" if fast else "full",
        passes=int(passes) if isinstance(passes, int | float) else None,
        ncu_wall_s=float(wall) if isinstance(wall, int | float) else None,
        unprofiled_wall_s=None,
        overhead_s=None,
        bottleneck=b,
        top_symptom=top,
        symptoms=symptoms,
    )
    return row, summary


def sections_row(ws: Workspace, name: str, label: str, sections: tuple[str, ...], out_dir: Path) -> Row:
    """Profile with an explicit section list (exploration of cheaper sets)."""
    from kernelopt.evidence.nvidia import build_summary
    from kernelopt.proc import run_command
    from kernelopt.profiling.kernel_names import kernel_names
    from kernelopt.profiling.ncu_command import NcuOptions, build_ncu_argv, kernel_regex_for, parse_passes
    from kernelopt.profiling.ncu_rep import read_ncu_rep
    from kernelopt.profiling.nvidia import child_env, driver_argv, find_ncu
    from kernelopt.profiling.protocol import ProfileSettings

    ncu = find_ncu()
    if ncu is None:
        raise RuntimeError("ncu not found")
    out_dir.mkdir(parents=True, exist_ok=True)
    options = NcuOptions(
        export=out_dir / "ncu",
        set_name=None,
        sections=sections,
        kernel_regex=kernel_regex_for(kernel_names(ws.kernel_py.read_text())),
        launch_count=1,
    )
    argv = build_ncu_argv(ncu, options, driver_argv(ws, ProfileSettings(), "profile", out_dir / "driver.json"))
    res = run_command(argv, timeout_s=600, cwd=ws.root, env=child_env())
    passes = parse_passes(res.stdout + res.stderr)
    summary = build_summary(read_ncu_rep(out_dir / "ncu.ncu-rep", artifact="ncu.ncu-rep"))
    b, top, symptoms = verdict(summary)
    return Row(
        kernel=name,
        section_set=label,
        passes=sum(p for _, p in passes) if passes else None,
        ncu_wall_s=res.duration_s,
        unprofiled_wall_s=None,
        overhead_s=None,
        bottleneck=b,
        top_symptom=top,
        symptoms=symptoms,
    )


def measure_kernel(
    ws: Workspace,
    name: str,
    *,
    candidates: bool,
    scratch: Path,
    sets: tuple[str, ...] = ("full", "fast"),
    baseline: list[Row] | None = None,
) -> list[Row]:
    """Unprofiled, full, fast (and candidate sets) for one workspace; profiles/v0 = full, v1 = fast.

    With ``baseline`` (rows of an earlier run of this script), the unprofiled wall time and the full-set
    row of that run are reused and only ``sets`` are profiled now.
    """
    prior = [r for r in (baseline or []) if r.kernel == name]
    prior_full = next((r for r in prior if r.section_set == "full"), None)
    # A fresh unprofiled run also warms the Triton cache, so no profiled run pays for compilation.
    known = prior[0].unprofiled_wall_s if prior else None
    base = known if known is not None else unprofiled_wall(ws)
    rows = []
    full = prior_full
    if "full" in sets or full is None:
        full, _ = profile_row(ws, name, 0, fast=False)
    rows.append(full)
    if "fast" in sets:
        fast, _ = profile_row(ws, name, 1, fast=True)
        rows.append(fast)
    if candidates:
        for label, sections in CANDIDATE_SETS.items():
            try:
                rows.append(sections_row(ws, name, label, sections, scratch / f"{name}-{label}"))
            except (KerneloptError, RuntimeError, OSError) as exc:
                rows.append(Row(name, label, None, None, None, None, None, None, error=str(exc)))
    for r in rows:
        r.unprofiled_wall_s = base
        if r.ncu_wall_s is not None:
            r.overhead_s = r.ncu_wall_s - base
        r.same_verdict = r.bottleneck == full.bottleneck
        r.same_top_symptom = r.top_symptom == full.top_symptom
    return rows


def table(rows: list[Row]) -> str:
    """A Markdown table of the rows."""

    def f(v: float | None) -> str:
        return "n/a" if v is None else f"{v:.1f}"

    lines = [
        "| kernel | section set | replay passes | ncu wall s | unprofiled wall s | overhead s | bottleneck | "
        "top symptom | same bottleneck verdict as full | same top symptom |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    for r in rows:
        if r.error:
            lines.append(f"| {r.kernel} | {r.section_set} | error: {r.error[:80]} | | | | | | | |")
            continue
        lines.append(
            f"| {r.kernel} | {r.section_set} | {r.passes if r.passes is not None else 'n/a'} | {f(r.ncu_wall_s)} | "
            f"{f(r.unprofiled_wall_s)} | {f(r.overhead_s)} | {r.bottleneck} | {r.top_symptom} | "
            f"{'yes' if r.same_verdict else 'no'} | {'yes' if r.same_top_symptom else 'no'} |"
        )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--kernels", default=",".join(FIXTURES))
    p.add_argument("--root", type=Path, default=None, help="where workspaces are created (default: a temp dir)")
    p.add_argument("--candidates", action="store_true", help="also measure other section sets on the first kernel")
    p.add_argument("--json", type=Path, default=None, help="write the rows as JSON here")
    p.add_argument("--sets", default="full,fast", help="section sets to profile now (full, fast)")
    p.add_argument("--baseline-json", type=Path, default=None, help="reuse unprofiled/full rows of an earlier run")
    args = p.parse_args(argv)
    baseline = None
    if args.baseline_json:
        baseline = [
            Row(**{k: v for k, v in r.items() if k in Row.__dataclass_fields__})
            for r in json.loads(args.baseline_json.read_text())
        ]
    sets = tuple(x for x in args.sets.split(",") if x)
    root = args.root or Path(tempfile.mkdtemp(prefix="kernelopt-cost-"))
    rows: list[Row] = []
    for i, name in enumerate(k for k in args.kernels.split(",") if k):
        try:
            ws = make_workspace(name, root)
            rows += measure_kernel(
                ws,
                name,
                candidates=args.candidates and i == 0,
                scratch=root / "scratch",
                sets=sets,
                baseline=baseline,
            )
            if args.json:
                args.json.write_text(json.dumps([asdict(r) for r in rows], indent=2) + "\n")
        except (KerneloptError, RuntimeError, OSError) as exc:
            rows.append(Row(name, "full", None, None, None, None, None, None, error=str(exc)))
    print(table(rows), flush=True)
    if args.json:
        args.json.write_text(json.dumps([asdict(r) for r in rows], indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
