#!/usr/bin/env python3
"""The tuning strategy replayed on every recorded sweep: how often it ends within 3 % of the exhaustive best.

For each recorded sweep (``docs/gpu-runs/2026-12-01-sweeps/*.json`` and the 2026-11-29
``run*-sweep_*.json.gz``) and each strategy, ``--trials`` tuning sessions run against the recorded
latencies (:func:`kernelopt.tuning.replay.replay_trials`, seeds ``--seed`` onward), at the default budget
(max(24, 1/5 of the fit-pruned space), at most the space), at 1/10 of the space, and cut short: the
default budget with a wall time of :data:`CUT` candidates' recorded seconds, as the loop's Stage 3 is cut
by the time left long before its budget (the strategy plans for the budget and is stopped early). Printed
per sweep: the space and fit-pruned sizes, the budget, the success rate (final configuration within 3 % of
the sweep's best), the mean evaluations and the mean final/best ratio.

The sweeps are reported in three tables, by what was chosen looking at them (issue 32 item 6):

- tuned on (:data:`TUNED_ON`): the strategy's settings (2026-12-02, the 1-D kernels of 2026-12-01);
- looked at (:data:`LOOKED_AT`): the GEMM sweeps the known-good seed tiles and the seed cap were chosen on
  (2026-12-04), so for those choices they are not held out;
- held out: nothing was chosen on them. Some are other sittings of a kernel above (said in the label); the
  kernels of ``benchmarks/heldout`` (written 2026-12-05, after every choice) are new, and their sweeps
  (``docs/gpu-runs/*-heldout/*.json``) are read when a GPU session has recorded them.

Target (issue 32): success >= 95 % on every held-out sweep at the default budget.

Usage (CPU, a few minutes)::

    python benchmarks/tune_replay.py --trials 200 --strategies local,pattern,random --markdown out/tune_replay.md
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
if (REPO / "src" / "kernelopt").is_dir():
    sys.path.insert(0, str(REPO / "src"))

from kernelopt.fileio import atomic_write_text  # noqa: E402
from kernelopt.tuning.budget import BudgetRule  # noqa: E402
from kernelopt.tuning.record import SweepFile, read_sweeps  # noqa: E402
from kernelopt.tuning.replay import SUCCESS_TOLERANCE, ReplayEvaluator, ReplayReport, replay_trials  # noqa: E402

SWEEPS_1201 = REPO / "docs" / "gpu-runs" / "2026-12-01-sweeps"
#: linear_bf16 timed in full (752 of 1024 configurations, the rest fit-pruned) on the H200, 2026-12-04.
COMPLETE_1204 = REPO / "docs" / "gpu-runs" / "2026-12-04-linear-sweep" / "linear_bf16.json.gz"
#: The sweeps the strategy's settings were tuned on, chosen before tuning (the 1-D kernels of 2026-12-01).
TUNED_ON = ("elementwise (12-01)", "softmax (12-01)", "layernorm (12-01)", "rmsnorm_bf16 (12-01)", "sumsq (12-01)")
#: The GEMM sweeps the known-good seed tiles and the seed cap were chosen on (2026-12-04).
LOOKED_AT = ("linear_bf16 (12-01)", "matmul (12-01)", "skinny_gemm (12-01)", "matmul (11-29 run5)")
#: Sweeps of the held-out kernels (benchmarks/heldout), one folder per GPU session that recorded them.
HELDOUT_GLOB = "*-heldout/*.json"
TARGET = 0.95
ONE_TENTH = 0.1
#: Candidates' worth of recorded seconds a cut-short session gets (mm_module_dict's first session in the
#: loop on the H200, 2026-12-04: 20 candidates in the time left).
CUT = 20


def recorded_sweeps() -> list[tuple[str, SweepFile, str]]:
    """(label, sweep, group) for every recorded sweep: 2026-12-01 first, then 2026-11-29, 2026-12-04 and the
    held-out kernels'; the group is ``tuned on``, ``looked at`` or ``held out``."""
    found: list[tuple[str, SweepFile]] = []
    for path in sorted(SWEEPS_1201.glob("*.json")):
        sweep = read_sweeps(path)[0]
        found.append((f"{sweep.name} (12-01)", sweep))
    for path in sorted((REPO / "docs" / "gpu-runs").glob("2026-11-29-run*-sweep_*.json.gz")):
        run = path.name.split("-")[3]
        found += [(f"{sweep.name} (11-29 {run}, another sitting)", sweep) for sweep in read_sweeps(path)]
    found += [(f"{s.name} (12-04, complete; another sitting)", s) for s in read_sweeps(COMPLETE_1204)]
    for path in sorted((REPO / "docs" / "gpu-runs").glob(HELDOUT_GLOB)):
        day = path.parent.name[5:10]
        found += [(f"{s.name} ({day}, new kernel)", s) for s in read_sweeps(path)]
    return [(label, sweep, _group(label)) for label, sweep in found]


def _group(label: str) -> str:
    if label in TUNED_ON:
        return "tuned on"
    plain = label.replace(", another sitting", "")
    return "looked at" if label in LOOKED_AT or plain in LOOKED_AT else "held out"


def measure(sweep: SweepFile, strategy: str, trials: int, seed: int) -> tuple[ReplayReport, ...]:
    """The replay at the default budget, at 1/10 of the space, and at the default budget cut short."""
    default = replay_trials(sweep, trials=trials, budget=BudgetRule(), strategy=strategy, seed=seed)
    tenth = replay_trials(sweep, trials=trials, budget=BudgetRule(fraction=ONE_TENTH), strategy=strategy, seed=seed)
    cut_s = CUT * ReplayEvaluator(sweep).seconds_per_config
    cut = replay_trials(sweep, trials=trials, budget=BudgetRule(wall_s=cut_s), strategy=strategy, seed=seed)
    return default, tenth, cut


HEAD = (
    "sweep",
    "strategy",
    "space",
    "recorded",
    "within 3 % of the best",
    "fit-pruned",
    "budget",
    "success",
    "mean evals",
    "mean final/best",
    "budget 1/10",
    "success 1/10",
    "mean final/best 1/10",
    f"cut at {CUT}: evals",
    "success cut",
    "mean final/best cut",
)


def coverage(sweep: SweepFile) -> str:
    """ "complete" when the sweep recorded every configuration of its space, else "cut: best of N timed"
    (a ratio to its best is then to the best of what was timed, not of the space)."""
    if sweep.complete:
        return "complete"
    return f"cut: best of {len(sweep.timed())} timed"


def near_best(sweep: SweepFile) -> int:
    """Timed configurations within the success tolerance (3 %) of the sweep's best: how hard the space is."""
    latencies = [e.latency_us for e in sweep.timed() if e.latency_us is not None]
    return sum(1 for v in latencies if v <= min(latencies) * (1 + SUCCESS_TOLERANCE))


def row(label: str, sweep: SweepFile, default: ReplayReport, tenth: ReplayReport, cut: ReplayReport) -> list[str]:
    miss = "" if default.success_rate >= TARGET else " (missed)"
    return [
        label,
        default.strategy,
        str(default.space_size),
        coverage(sweep),
        str(near_best(sweep)),
        str(default.fit_size),
        str(default.budget),
        f"{default.success_rate:.1%}{miss}",
        f"{default.mean_evaluations:.1f}",
        f"{default.mean_ratio_to_best:.4f}",
        str(tenth.budget),
        f"{tenth.success_rate:.1%}",
        f"{tenth.mean_ratio_to_best:.4f}",
        f"{cut.mean_evaluations:.1f}",
        f"{cut.success_rate:.1%}",
        f"{cut.mean_ratio_to_best:.4f}",
    ]


def markdown(rows: list[list[str]]) -> str:
    lines = ["| " + " | ".join(HEAD) + " |", "|" + "---|" * len(HEAD)]
    lines += ["| " + " | ".join(r) + " |" for r in rows]
    return "\n".join(lines)


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--trials", type=int, default=200)
    p.add_argument("--strategies", default="local", help="comma-separated strategy names")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--markdown", type=Path, help="also write the tables to this file")
    return p.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    strategies = [s for s in args.strategies.split(",") if s]
    tables: dict[str, list[list[str]]] = {"tuned on": [], "looked at": [], "held out": []}
    missed: list[str] = []
    started = time.monotonic()
    for label, sweep, group in recorded_sweeps():
        for strategy in strategies:
            default, tenth, cut = measure(sweep, strategy, args.trials, args.seed)
            tables[group].append(row(label, sweep, default, tenth, cut))
            if strategy == strategies[0] and default.success_rate < TARGET and group == "held out":
                missed.append(f"{label}: {default.success_rate:.1%}")
            print(
                f"{label} {strategy}: {default.success_rate:.1%} / {tenth.success_rate:.1%} / {cut.success_rate:.1%}",
                file=sys.stderr,
            )
    text = (
        f"Trials per cell: {args.trials} (seeds {args.seed}..{args.seed + args.trials - 1}); "
        "success = final configuration within 3 % of the sweep's best; "
        f"target >= {TARGET:.0%} at the default budget.\n\n"
        f"Sweeps the strategy's settings were tuned on:\n\n{markdown(tables['tuned on'])}\n\n"
        f"GEMM sweeps the seed tiles and the seed cap were chosen on:\n\n{markdown(tables['looked at'])}\n\n"
        f"Sweeps held out of every choice:\n\n{markdown(tables['held out'])}\n\n"
        f"Target missed on a held-out sweep ({strategies[0]}): {', '.join(missed) or 'none'}. "
        f"Replay time: {time.monotonic() - started:.0f} s.\n"
    )
    print(text)
    if args.markdown is not None:
        atomic_write_text(args.markdown, text)
    return 1 if missed else 0


if __name__ == "__main__":
    sys.exit(main())
