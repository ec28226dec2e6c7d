#!/usr/bin/env python3
"""Batch overhead: per-problem wall time next to the time spent checking and timing, cold vs warm.

Runs one folder of problems (default ``examples/kernelbench``) twice in this process, each into a fresh
output folder:

- **cold**: ``kernelopt batch --cold``, the path before the worker pool: each problem in its own
  ``kernelopt validate`` process, whose gate starts a fresh Python + torch worker for the check and another
  for the timing;
- **warm**: the default path: the gate in this process, each worker run a fresh child forked from the
  pool's server (torch and triton imported once), the next problem prepared while the current one is timed.

For each problem it prints the wall time (from the batch's start event to its row), the work (``work_s``:
seconds inside the workers' correctness and timing phases, compile pauses excluded, read from the
progress files both paths leave), the overhead (wall - work) and the warm / cold ratio of the measured
latency (near 1 unless the warm path's overlap, the next problem's load and the spare's CUDA start,
disturbed the timing); then the mean overhead per problem, the totals, and the pool's one-time start
(importing torch once, before the first problem). Issue 24's target:
at most 3 s of overhead per problem on the H200 for the 14 examples.

    python benchmarks/batch_overhead.py [DIR] [--device cuda|cpu] [--size-scale S] [--only A,B]
                                        [--out DIR] [--json FILE] [--skip-cold]

Defaults as ``scripts/gpu_batch.sh``: ``KERNELOPT_BENCH_S=0.3``, ``KERNELOPT_SEEDS=2`` (unless set). With
``--device cpu``: ``TRITON_INTERPRET=1`` for the Triton problems, ``TEST_TIMEOUT_SEC=120`` (the interpreter
is slow) and ``--size-scale 0.01`` unless given.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
import tempfile
import time
from dataclasses import asdict, dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
if str(REPO / "src") not in sys.path:
    sys.path.insert(0, str(REPO / "src"))

from kernelopt.batch.cold import ColdRunner  # noqa: E402
from kernelopt.batch.model import BatchTable  # noqa: E402
from kernelopt.batch.runner import BatchEvent, BatchOptions, EventKind, ProblemRunner, run_batch  # noqa: E402
from kernelopt.batch.warm import WarmRunner  # noqa: E402
from kernelopt.proc import run_command  # noqa: E402

TARGET_OVERHEAD_S = 3.0  # issue 24: per problem, beyond its own GPU work, on the H200


@dataclass
class Measured:
    """One problem on one path."""

    problem: str
    status: str
    wall_s: float | None
    work_s: float | None
    latency_us: float | None = None

    @property
    def overhead_s(self) -> float | None:
        return None if self.wall_s is None or self.work_s is None else self.wall_s - self.work_s


@dataclass
class PathRun:
    """One batch on one path: its problems, total wall time and the one-time start (warm only)."""

    path: str
    problems: list[Measured]
    total_s: float
    start_s: float | None = None
    launches: int | None = None
    warm_launches: int | None = None


def _copy_problems(src: Path, only: list[str] | None, dest: Path) -> Path:
    dest.mkdir(parents=True)
    for folder in sorted(p for p in src.iterdir() if p.is_dir()):
        if only is None or folder.name in only:
            shutil.copytree(folder, dest / folder.name)
    return dest


def _timed_batch(problems: Path, options: BatchOptions, runner: ProblemRunner) -> tuple[BatchTable, dict[str, float]]:
    started: dict[str, float] = {}
    walls: dict[str, float] = {}

    def on_event(event: BatchEvent) -> None:
        now = time.monotonic()
        if event.kind is EventKind.START:
            started[event.problem] = now
        elif event.kind is EventKind.DONE and event.problem in started:
            walls[event.problem] = now - started[event.problem]

    table = run_batch(problems, options, fresh=True, on_event=on_event, runner=runner)
    return table, walls


def run_path(name: str, problems: Path, out: Path, base: BatchOptions) -> PathRun:
    options = base.model_copy(update={"out_dir": out, "cold": name == "cold"})
    start_s = None
    runner: ProblemRunner
    if name == "warm":
        warm = WarmRunner(options, problems=len(list(problems.iterdir())))
        t0 = time.monotonic()
        warm.pool.open()
        start_s = time.monotonic() - t0
        runner = warm
    else:
        runner = ColdRunner(options)
    t0 = time.monotonic()
    try:
        table, walls = _timed_batch(problems, options, runner)
    finally:
        runner.close()
    total = time.monotonic() - t0
    rows = [Measured(r.key, r.status.value, walls.get(r.key), r.work_s, r.latency_us) for r in table.rows]
    run = PathRun(name, rows, total, start_s)
    if name == "warm":
        run.launches, run.warm_launches = warm.pool.launches, warm.pool.warm_launches
    return run


def _fmt(value: float | None) -> str:
    return "-" if value is None else f"{value:7.2f}"


def _mean(values: list[float | None]) -> float | None:
    known = [v for v in values if v is not None]
    return sum(known) / len(known) if known else None


def _latency_ratio(by_path: dict[str, dict[str, Measured]], names: list[str], problem: str) -> float | None:
    """Warm latency / cold latency of one problem: near 1 unless one path disturbed the timing."""
    if len(names) != 2:
        return None
    cold, warm = (by_path[n].get(problem) for n in names)
    if cold is None or warm is None or not cold.latency_us or warm.latency_us is None:
        return None
    return warm.latency_us / cold.latency_us


def report(runs: list[PathRun]) -> str:
    """The side-by-side table, for people."""
    names = [r.path for r in runs]
    by_path = {r.path: {m.problem: m for m in r.problems} for r in runs}
    problems = [m.problem for m in runs[-1].problems]
    head = f"{'problem':24}" + "".join(f" | {n:>5} status   wall_s   work_s  overhead" for n in names)
    if len(names) == 2:
        head += " | latency warm/cold"
    lines = [head, "-" * len(head)]
    for p in problems:
        cells = []
        for n in names:
            m = by_path[n].get(p)
            cells.append(
                " |       -"
                if m is None
                else f" | {m.status:>12} {_fmt(m.wall_s)}  {_fmt(m.work_s)}  {_fmt(m.overhead_s)}"
            )
        ratio = _latency_ratio(by_path, names, p)
        lines.append(f"{p[:24]:24}" + "".join(cells) + (f" | {ratio:5.2f}" if ratio is not None else ""))
    lines.append("")
    for r in runs:
        mean_over = _mean([m.overhead_s for m in r.problems])
        mean_wall = _mean([m.wall_s for m in r.problems])
        extra = f", pool start {r.start_s:.2f} s once" if r.start_s is not None else ""
        if r.launches is not None:
            extra += f", {r.launches} worker runs ({r.warm_launches} in a pre-started spare)"
        lines.append(
            f"{r.path}: {len(r.problems)} problems in {r.total_s:.1f} s; "
            f"per problem: wall {_fmt(mean_wall).strip()} s, overhead {_fmt(mean_over).strip()} s "
            f"(target <= {TARGET_OVERHEAD_S:g} s on the H200){extra}"
        )
    statuses = {n: {p: m.status for p, m in by_path[n].items()} for n in names}
    if len(names) == 2 and statuses[names[0]] != statuses[names[1]]:
        differ = [p for p in problems if statuses[names[0]].get(p) != statuses[names[1]].get(p)]
        lines.append(f"NOTE: the two paths disagree on {', '.join(differ)}")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("problems", nargs="?", type=Path, default=REPO / "examples" / "kernelbench")
    ap.add_argument("--device", choices=("cuda", "cpu"), default=None)
    ap.add_argument("--size-scale", type=float, default=None)
    ap.add_argument("--only", default=None, help="comma-separated problem folder names")
    ap.add_argument("--out", type=Path, default=None, help="work folder (default: a fresh temporary one)")
    ap.add_argument("--json", type=Path, default=None, help="also write the measurements as JSON here")
    ap.add_argument("--skip-cold", action="store_true", help="measure the warm path only")
    ap.add_argument("--problem-timeout-s", type=float, default=300.0)
    args = ap.parse_args(argv)

    os.environ.setdefault("KERNELOPT_BENCH_S", "0.3")
    os.environ.setdefault("KERNELOPT_SEEDS", "2")
    scale = args.size_scale
    if args.device == "cpu":
        os.environ.setdefault("TRITON_INTERPRET", "1")
        os.environ.setdefault("TEST_TIMEOUT_SEC", "120")  # interpreted Triton on a busy CPU: no false timeouts
        scale = 0.01 if scale is None else scale
    work = args.out or Path(tempfile.mkdtemp(prefix="kernelopt_batch_overhead_"))
    only = args.only.split(",") if args.only else None
    problems = _copy_problems(args.problems.resolve(), only, work / "problems")
    # read torch and triton into the page cache first, so neither path pays the first cold read
    run_command([sys.executable, "-c", "import torch, triton"], timeout_s=300)
    base = BatchOptions(
        out_dir=work / "unused", device=args.device, size_scale=scale, problem_timeout_s=args.problem_timeout_s
    )
    runs = [] if args.skip_cold else [run_path("cold", problems, work / "cold", base)]
    runs.append(run_path("warm", problems, work / "warm", base))
    text = report(runs)
    print(f"problems: {args.problems} ({len(runs[-1].problems)}), device {args.device or 'auto'}, size scale {scale}")
    print(f"KERNELOPT_BENCH_S={os.environ['KERNELOPT_BENCH_S']} KERNELOPT_SEEDS={os.environ['KERNELOPT_SEEDS']}")
    print(text)
    if args.json is not None:
        data = [asdict(r) | {"problems": [asdict(m) | {"overhead_s": m.overhead_s} for m in r.problems]} for r in runs]
        args.json.write_text(json.dumps(data, indent=1) + "\n", encoding="utf-8")
    print(f"batches and workspaces kept in {work}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
