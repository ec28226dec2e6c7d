"""``kernelopt tune --replay SWEEP.json``: the tuning engine run against a recorded sweep (no GPU).

Each trial is one tuning session of the strategy with its own seed (``--seed``, ``--seed + 1``, ...) on the
sweep's recorded latencies (:func:`kernelopt.tuning.replay.replay_trials`). Printed: the success rate (the
share of trials whose final configuration is within 3 % of the sweep's best), the mean evaluations and the
mean final/best ratio; ``--json`` gives them as ``success_rate``, ``mean_evaluations``,
``mean_ratio_to_best`` and ``trials`` (with the rest of :class:`~kernelopt.tuning.replay.ReplayReport`).

The command's sources are modes: ``--replay`` is the one built; tuning a kernel folder (a positional PATH,
the folder ``optimize`` takes) is added beside it as its own mode (:func:`_replay` is one of them).
"""

from __future__ import annotations

from pathlib import Path

import typer

from kernelopt.cli.output import emit_json, info, table, warn
from kernelopt.errors import UsageError
from kernelopt.tuning.budget import DEFAULT_WALL_S, BudgetRule
from kernelopt.tuning.strategies import DEFAULT_STRATEGY, STRATEGIES


def register(app: typer.Typer) -> None:
    @app.command("tune")
    def tune(
        replay: Path | None = typer.Option(
            None,
            "--replay",
            help="A recorded sweep file (schema 1, docs/sweep-format.md; or a 2026-11-29 .json.gz): run the "
            "strategy against its recorded latencies, no GPU.",
        ),
        trials: int = typer.Option(100, "--trials", min=1, help="Sessions to run, each with its own seed."),
        budget: int | None = typer.Option(None, "--budget", min=1, help="Candidates per session."),
        budget_fraction: float | None = typer.Option(
            None, "--budget-fraction", help="Candidates per session as a fraction of the fit-pruned space."
        ),
        budget_wall_s: float = typer.Option(
            DEFAULT_WALL_S, "--budget-wall-s", help="Wall seconds per session (replay: recorded seconds)."
        ),
        strategy: str = typer.Option(DEFAULT_STRATEGY, "--strategy", help=f"One of {', '.join(STRATEGIES)}."),
        seed: int = typer.Option(0, "--seed", help="The first trial's seed."),
        as_json: bool = typer.Option(False, "--json", help="Print the result as JSON."),
    ) -> None:
        """Tune a launch configuration; with --replay, replay the strategy on a recorded sweep."""
        rule = _budget_rule(budget, budget_fraction, budget_wall_s)
        if strategy not in STRATEGIES:
            raise UsageError(f"unknown strategy {strategy!r}", hint=f"known: {', '.join(STRATEGIES)}")
        if replay is None:
            raise UsageError("give --replay SWEEP.json (a recorded sweep to run the strategy against)")
        _replay(replay, trials=trials, rule=rule, strategy=strategy, seed=seed, as_json=as_json)


def _budget_rule(count: int | None, fraction: float | None, wall_s: float) -> BudgetRule:
    if count is not None and fraction is not None:
        raise UsageError("give --budget or --budget-fraction, not both")
    if fraction is not None and not 0 < fraction <= 1:
        raise UsageError(f"--budget-fraction must be in (0, 1], not {fraction:g}")
    if wall_s <= 0:
        raise UsageError(f"--budget-wall-s must be positive, not {wall_s:g}")
    return BudgetRule(count=count, fraction=fraction, wall_s=wall_s)


def _replay(path: Path, *, trials: int, rule: BudgetRule, strategy: str, seed: int, as_json: bool) -> None:
    """Replay ``strategy`` on the sweep at ``path`` and print the report."""
    from kernelopt.tuning.record import read_sweeps
    from kernelopt.tuning.replay import replay_trials

    sweeps = read_sweeps(path)
    if len(sweeps) != 1:
        names = ", ".join(s.name for s in sweeps) or "none"
        raise UsageError(f"{path}: holds {len(sweeps)} sweeps ({names}); replay takes a file of one sweep")
    sweep = sweeps[0]
    if sweep.best() is None:
        raise UsageError(f"{path}: the sweep of {sweep.name} has no timed configuration to replay")
    report = replay_trials(sweep, trials=trials, budget=rule, strategy=strategy, seed=seed)
    if as_json:
        emit_json(report)
        return
    if not sweep.complete:
        warn(f"{sweep.name}: the sweep is incomplete; its best is the best of the configurations it recorded")
    table(
        f"{strategy} on the sweep of {sweep.name}: {trials} trials, seeds {seed}..{seed + trials - 1}",
        ["space", "fit-pruned", "budget", "success (within 3 %)", "mean evaluations", "mean final/best", "worst"],
        [
            [
                report.space_size,
                report.fit_size,
                report.budget,
                f"{report.success_rate:.1%}",
                f"{report.mean_evaluations:.1f}",
                f"{report.mean_ratio_to_best:.4f}",
                f"{report.worst_ratio_to_best:.3f}",
            ]
        ],
    )
    info(f"budget: {rule.describe()}; best recorded: {report.best_latency_us:.2f} us")
    info(f"time: {report.time_note}")
