#!/usr/bin/env python3
"""KernelBench with identical kernels: every verdict that is not PASS is kernelopt's, not the kernel's.

For each level folder given (KernelBench's ``level1/``, ``level2/``: ``<id>_<Name>.py`` problem files; nothing
is fetched), this builds a runs folder of "generated" kernels that are the problem itself:
``level_<L>_problem_<id>_sample_0_kernel.py`` holds the problem file's text plus ``class ModelNew(Model):
pass``, so each kernel is correct by construction and exactly as fast as its reference. It then runs

    python -m kernelopt batch LEVEL --kernels RUNS --device DEVICE --size-scale S --fresh --out OUT/level<L>

and prints, per level and in all:

- the rows by verdict (PASS, FAIL, TIMEOUT_FAIL, ERROR, INVALID);
- the false failures: FAIL, TIMEOUT_FAIL and INVALID rows (an identical kernel cannot fail), each with its
  reason; ERROR rows (the problem could not be run: a reference that raises, no valid size scale) listed
  apart with theirs;
- the rate of significant "speedups" (and of significant differences either way) among the rows timed
  beside their reference (a speedup withheld as too noisy claims nothing): what the calibrated claim
  (``kernelopt.harness.stats.claim``) says on identical kernels, at most 5 % by issue 34; beside it the rate
  at which the 95 % interval alone excludes 1.0;
- KernelBench's fast_1 and the significant fast_1;
- the identical pairs timed with one count of calls per sample (the kernel and its reference in each row's
  ``.kernelopt/gate/v0/timing.json``): on the CPU every pair, by ``kernelopt.harness.timers.one_count``;
- the overhead per problem: wall time minus the workers' checking and timing (``duration_s - work_s``);
- the mean seconds per problem by phase (the rows' ``phases``: worker start-up, loading, building the inputs,
  the reference's runs, the kernel's runs in the check, the checker's own work, the timing, and the rest),
  and the slowest problems with theirs, so a slow batch shows where its seconds go.

    python benchmarks/kernelbench_identical.py LEVEL_DIR [LEVEL_DIR ...] [--device cpu|cuda]
        [--size-scale S] [--out DIR] [--limit N] [--problem-timeout-s T] [--budget-s B] [--json FILE]

Defaults: ``--device cpu --size-scale 0.05`` (KernelBench's sizes are GPU sizes; 0.05 keeps a level at a few
seconds a problem on a CPU); ``--size-scale 1`` runs the full sizes (the H200 run of
``scripts/gpu_kernelbench_level1.sh``). ``KERNELOPT_BENCH_S=0.3`` and ``KERNELOPT_SEEDS=2`` unless set, as
the other batch benchmarks. ``--limit N`` takes the first N problems of each level (a quick look).
``--budget-s B`` stops the batch (its process group) B seconds after the start, so that a bounded run still
prints its table: the problems that ran, out of how many the level has.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import signal
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import Any

from kernelopt.harness.model import CHECK_DOES_NOT_FIT

REPO = Path(__file__).resolve().parents[1]

PROBLEM_FILE = re.compile(r"^(\d+)_(.*)\.py$")
LEVEL_NAME = re.compile(r"level_?(\d+)$")
#: The kernel that is the reference: KernelBench's ModelNew contract, nothing changed.
IDENTICAL = "\n\nclass ModelNew(Model):\n    pass\n"
#: Issue 34: on identical kernels at most this share of rows may claim a significant difference.
TARGET_SIGNIFICANT_RATE = 0.05
FALSE_FAILURES = ("FAIL", "TIMEOUT_FAIL", "INVALID")
#: The per-phase seconds of a batch row (``phases``: kernelopt.batch.model.PhaseSeconds), as the table says them.
PHASES = {
    "start_s": "worker start-up",
    "load_s": "load reference.py, kernel.py, models",
    "inputs_s": "build inputs (get_inputs)",
    "reference_s": "reference runs (own dtype, float64)",
    "kernel_s": "kernel runs in the check (compile+call)",
    "check_s": "checker (copies, poison, compare)",
    "timing_s": "timing (warm-up, ABBA samples)",
}
#: How many of the slowest problems the table lists with their phases.
SLOWEST = 8


def identical_runs(level_dir: Path, runs_dir: Path, *, limit: int | None = None) -> tuple[int, int]:
    """Write the identical-kernel runs folder of one level folder; returns (level, problems written).

    Raises:
        SystemExit: the folder's name carries no level (``level1``) or it holds no problem file.
    """
    match = LEVEL_NAME.search(level_dir.name)
    if match is None:
        raise SystemExit(f"error: {level_dir} is not named level<N>: cannot tell its KernelBench level")
    level = int(match.group(1))
    problems = sorted(
        (int(m.group(1)), p) for p in level_dir.glob("*.py") if (m := PROBLEM_FILE.match(p.name)) is not None
    )
    if not problems:
        raise SystemExit(f"error: {level_dir} holds no <id>_<Name>.py problem file")
    runs_dir.mkdir(parents=True, exist_ok=True)
    for pid, path in problems[:limit]:
        text = path.read_text(encoding="utf-8")
        (runs_dir / f"level_{level}_problem_{pid}_sample_0_kernel.py").write_text(text + IDENTICAL, encoding="utf-8")
    return level, len(problems[:limit])


def _subset(level_dir: Path, work: Path, limit: int | None) -> Path:
    """The level folder itself, or (``--limit``) a folder of links to its first ``limit`` problems."""
    if limit is None:
        return level_dir
    sub = work / "levels" / level_dir.name
    sub.mkdir(parents=True, exist_ok=True)
    problems = sorted((int(m.group(1)), p) for p in level_dir.glob("*.py") if (m := PROBLEM_FILE.match(p.name)))
    for _, path in problems[:limit]:
        link = sub / path.name
        if not link.exists():
            link.symlink_to(path.resolve())
    return sub


def run_level(
    level_dir: Path,
    work: Path,
    *,
    device: str,
    size_scale: float,
    limit: int | None,
    problem_timeout_s: float,
    budget_s: float | None = None,
) -> tuple[dict[str, Any], float, int, bool]:
    """Build the runs folder, run the batch on it; returns its ``batch.json``, the wall seconds, how many
    problems the level has, and whether the batch was stopped at ``budget_s`` (its rows so far are kept)."""
    level_dir = level_dir.resolve()
    source = _subset(level_dir, work, limit)
    level, n_problems = identical_runs(level_dir, work / f"runs_{level_dir.name}", limit=limit)
    out = work / f"batch_{level_dir.name}"
    argv = [
        sys.executable,
        "-m",
        "kernelopt",
        "batch",
        str(source),
        "--kernels",
        str(work / f"runs_{level_dir.name}"),
        "--level",
        str(level),
        "--device",
        device,
        *([] if size_scale == 1 else ["--size-scale", repr(size_scale)]),  # 1: the problems' own sizes
        "--fresh",
        "--out",
        str(out),
        "--problem-timeout-s",
        repr(problem_timeout_s),
    ]
    env = dict(os.environ)
    env["PYTHONPATH"] = str(REPO / "src") + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    t0 = time.monotonic()
    with open(work / f"{level_dir.name}.table.txt", "w", encoding="utf-8") as table_out:
        child = subprocess.Popen(argv, env=env, stdout=table_out, stderr=subprocess.STDOUT, start_new_session=True)
        try:
            child.wait(timeout=budget_s)
            cut = False
        except subprocess.TimeoutExpired:  # the batch and its workers (one process group) stop; its table stays
            os.killpg(child.pid, signal.SIGKILL)
            child.wait()
            cut = True
    wall = time.monotonic() - t0
    batch_json = out / "batch.json"
    if not batch_json.is_file() and cut:  # stopped before its first row
        return {"rows": []}, wall, n_problems, cut
    if not batch_json.is_file():
        raise SystemExit(
            f"error: the batch of {level_dir} left no batch.json; see {work / (level_dir.name + '.table.txt')}"
        )
    return json.loads(batch_json.read_text(encoding="utf-8")), wall, n_problems, cut


def _excludes_one(row: dict[str, Any]) -> bool:
    lo, hi = row.get("eager_ci_low"), row.get("eager_ci_high")
    return lo is not None and hi is not None and (lo > 1.0 or hi < 1.0)


def summarize_rows(rows: list[dict[str, Any]]) -> dict[str, Any]:
    """The figures of one level (or all): pure, on ``batch.json`` rows."""
    by_status = Counter(r["status"] for r in rows)
    # every row timed beside its reference: a speedup withheld for noise is a row that claims nothing
    timed = [r for r in rows if r["status"] == "PASS" and r.get("reference_latency_us") is not None]
    withheld = [r for r in timed if r.get("speedup_vs_eager") is None]
    faster = [r for r in timed if r.get("eager_verdict") == "improvement"]
    slower = [r for r in timed if r.get("eager_verdict") == "regression"]
    counted = [r for r in rows if r["status"] != "ERROR"]
    fast1 = [r for r in counted if r.get("correct") and (r.get("speedup_vs_eager") or 0.0) > 1.0]
    overheads = [
        r["duration_s"] - r["work_s"] for r in rows if r.get("duration_s") is not None and r.get("work_s") is not None
    ]
    durations = [r["duration_s"] for r in rows if r.get("duration_s") is not None]
    phased = [r for r in rows if r.get("phases") and r.get("duration_s") is not None]
    phase_means = (
        {name: sum(r["phases"].get(name) or 0.0 for r in phased) / len(phased) for name in PHASES} if phased else None
    )
    if phase_means is not None:  # the rest of a problem's wall time: the workspace, the gate, forking workers
        phase_means["other_s"] = sum(
            r["duration_s"] - sum(r["phases"].get(n) or 0.0 for n in PHASES) for r in phased
        ) / len(phased)
    slowest = sorted((r for r in rows if r.get("duration_s") is not None), key=lambda r: -r["duration_s"])[:SLOWEST]
    n_timed = len(timed)
    return {
        "rows": len(rows),
        "by_status": dict(sorted(by_status.items())),
        "false_failures": [(r["problem"], r["status"], r.get("reason")) for r in rows if r["status"] in FALSE_FAILURES],
        "errors": [(r["problem"], r.get("reason")) for r in rows if r["status"] == "ERROR"],
        "does_not_fit": len(
            [r for r in rows if r["status"] == "ERROR" and CHECK_DOES_NOT_FIT in (r.get("reason") or "")]
        ),
        "timed": n_timed,
        "withheld": len(withheld),
        "significant_speedups": len(faster),
        "significant_slowdowns": len(slower),
        "significant_speedup_rate": len(faster) / n_timed if n_timed else None,
        "significant_difference_rate": (len(faster) + len(slower)) / n_timed if n_timed else None,
        "interval_excludes_1_rate": sum(_excludes_one(r) for r in timed) / n_timed if n_timed else None,
        "fast_1": len(fast1) / len(counted) if counted else None,
        "significant_fast_1": len([r for r in fast1 if r.get("eager_verdict") == "improvement"]) / len(counted)
        if counted
        else None,
        "mean_overhead_s": sum(overheads) / len(overheads) if overheads else None,
        "mean_duration_s": sum(durations) / len(durations) if durations else None,
        "mean_phase_s": phase_means,
        "slowest": [(r["problem"], r["duration_s"], r.get("phases")) for r in slowest],
    }


def call_counts(rows: list[dict[str, Any]]) -> tuple[int, int]:
    """(pairs timed with one count of calls per sample, pairs timed): the kernel's and its reference's
    ``launches_per_sample`` in each timed row's ``.kernelopt/gate/v0/timing.json``, case by case."""
    equal = pairs = 0
    for row in rows:
        timing = Path(row["workspace"]) / ".kernelopt" / "gate" / "v0" / "timing.json" if row.get("workspace") else None
        if timing is None or not timing.is_file():
            continue
        for case in json.loads(timing.read_text(encoding="utf-8")).get("timings") or []:
            counts = {v["label"]: v["launches_per_sample"] for v in case.get("versions", [])}
            if "reference" in counts and len(counts) > 1:
                pairs += 1
                equal += len(set(counts.values())) == 1
    return equal, pairs


def _pct(v: float | None) -> str:
    return "n/a" if v is None else f"{100.0 * v:.1f} %"


def _s(v: float | None) -> str:
    return "n/a" if v is None else f"{v:.2f} s"


def render(levels: list[tuple[str, dict[str, Any], float]]) -> str:
    """The printed table: one column per level and one for all of them, then the rows to look at."""
    head = f"{'':40}" + "".join(f"{name:>14}" for name, _, _ in levels)
    lines = [head, "-" * len(head)]

    def line(label: str, cells: list[str]) -> None:
        lines.append(f"{label:40}" + "".join(f"{c:>14}" for c in cells))

    statuses = sorted({s for _, f, _ in levels for s in f["by_status"]})
    line("problems run", [str(f["rows"]) for _, f, _ in levels])
    if any("level_problems" in f for _, f, _ in levels):
        line("problems in the level", [str(f.get("level_problems", "n/a")) for _, f, _ in levels])
        line("stopped at --budget-s", ["yes" if f.get("cut_at_budget") else "no" for _, f, _ in levels])
    for status in statuses:
        line(f"  {status}", [str(f["by_status"].get(status, 0)) for _, f, _ in levels])
    line("false failures (FAIL/TIMEOUT_FAIL/INVALID)", [str(len(f["false_failures"])) for _, f, _ in levels])
    line("  ERROR: the check does not fit in memory", [str(f.get("does_not_fit", 0)) for _, f, _ in levels])
    line("rows timed beside the reference", [str(f["timed"]) for _, f, _ in levels])
    line("  speedup withheld (too noisy)", [str(f["withheld"]) for _, f, _ in levels])
    line("significant 'speedups' (target <= 5 %)", [_pct(f["significant_speedup_rate"]) for _, f, _ in levels])
    line("significant differences, either way", [_pct(f["significant_difference_rate"]) for _, f, _ in levels])
    line("95 % interval alone excludes 1.0", [_pct(f["interval_excludes_1_rate"]) for _, f, _ in levels])
    line("fast_1 (KernelBench)", [_pct(f["fast_1"]) for _, f, _ in levels])
    line("significant fast_1", [_pct(f["significant_fast_1"]) for _, f, _ in levels])
    if any("call_counts" in f for _, f, _ in levels):
        line(
            "identical pairs at one count of calls",
            [f"{f['call_counts'][0]} of {f['call_counts'][1]}" if "call_counts" in f else "n/a" for _, f, _ in levels],
        )
    line("overhead per problem (wall - work)", [_s(f["mean_overhead_s"]) for _, f, _ in levels])
    line("wall per problem", [_s(f["mean_duration_s"]) for _, f, _ in levels])
    line("batch wall time", [_s(wall) for _, _, wall in levels])
    if any(f.get("mean_phase_s") for _, f, _ in levels):
        lines.append("mean seconds per problem, by phase:")
        for name, words in [*PHASES.items(), ("other_s", "other (workspace, gate, forks)")]:
            line(f"  {words}", [_s((f.get("mean_phase_s") or {}).get(name)) for _, f, _ in levels])
    for name, f, _ in levels:
        if name == "all":
            continue
        for problem, duration, phases in f.get("slowest", []):
            parts = ", ".join(f"{k.removesuffix('_s')} {v:.1f}" for k, v in (phases or {}).items() if v >= 0.05)
            lines.append(f"SLOW {name} {problem}: {duration:.1f} s" + (f" ({parts})" if parts else ""))
    for name, f, _ in levels:
        if name == "all":
            continue
        for problem, status, reason in f["false_failures"]:
            lines.append(f"FALSE FAILURE {name} {problem}: {status}: {reason}")
        for problem, reason in f["errors"]:
            lines.append(f"ERROR {name} {problem}: {reason}")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("levels", nargs="+", type=Path, help="KernelBench level folders (level1/, level2/)")
    ap.add_argument("--device", choices=("cpu", "cuda"), default="cpu")
    ap.add_argument("--size-scale", type=float, default=0.05)
    ap.add_argument("--out", type=Path, default=None, help="work folder (default: a fresh temporary one)")
    ap.add_argument("--limit", type=int, default=None, help="only the first N problems of each level")
    ap.add_argument("--problem-timeout-s", type=float, default=600.0)
    ap.add_argument(
        "--budget-s",
        type=float,
        default=None,
        help="stop the batch after this many seconds in all and report the problems that ran (default: no bound)",
    )
    ap.add_argument("--json", type=Path, default=None, help="also write the figures and every row as JSON here")
    args = ap.parse_args(argv)
    for level in args.levels:
        if not level.is_dir():
            print(f"error: {level} is not a folder (give a KernelBench level folder)", file=sys.stderr)
            return 2
    if not 0 < args.size_scale <= 1:
        print(f"error: --size-scale {args.size_scale} is not in (0, 1]", file=sys.stderr)
        return 2
    os.environ.setdefault("KERNELOPT_BENCH_S", "0.3")
    os.environ.setdefault("KERNELOPT_SEEDS", "2")
    work = args.out or Path(tempfile.mkdtemp(prefix="kernelbench_identical_"))
    work.mkdir(parents=True, exist_ok=True)
    levels: list[tuple[str, dict[str, Any], float]] = []
    all_rows: list[dict[str, Any]] = []
    started = time.monotonic()
    for level in args.levels:
        left = None if args.budget_s is None else max(1.0, args.budget_s - (time.monotonic() - started))
        table, wall, n_problems, cut = run_level(
            level,
            work,
            device=args.device,
            size_scale=args.size_scale,
            limit=args.limit,
            problem_timeout_s=args.problem_timeout_s,
            budget_s=left,
        )
        rows = table["rows"]
        all_rows += rows
        figures = summarize_rows(rows)
        figures["level_problems"] = n_problems
        figures["cut_at_budget"] = cut
        figures["call_counts"] = call_counts(rows)
        levels.append((level.resolve().name, figures, wall))
    if len(levels) > 1:
        together = summarize_rows(all_rows)
        together["level_problems"] = sum(f["level_problems"] for _, f, _ in levels)
        together["cut_at_budget"] = any(f["cut_at_budget"] for _, f, _ in levels)
        together["call_counts"] = call_counts(all_rows)
        levels.append(("all", together, sum(w for _, _, w in levels)))
    print(
        f"KernelBench identical kernels (ModelNew(Model): pass), --device {args.device} "
        f"--size-scale {args.size_scale:g}, KERNELOPT_BENCH_S={os.environ['KERNELOPT_BENCH_S']} "
        f"KERNELOPT_SEEDS={os.environ['KERNELOPT_SEEDS']}; work folder {work}"
    )
    print(render(levels))
    if args.json is not None:
        payload = {"levels": [{"level": n, "figures": f, "wall_s": w} for n, f, w in levels], "rows": all_rows}
        args.json.write_text(json.dumps(payload, indent=2) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
