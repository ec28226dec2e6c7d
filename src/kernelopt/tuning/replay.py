"""A recorded sweep served as the hardware (pure): the simulator the strategy is judged and tuned on.

Kernel Tuner's simulation mode: a session runs exactly as on the GPU, but :class:`ReplayEvaluator` answers
each candidate from the sweep file, so a strategy can be run hundreds of times on a CPU. Each trial of
:func:`replay_trials` is one :func:`~kernelopt.tuning.session.tune` with its own seed and the seeds a
session on the hardware gets without Stage 1's evidence (:func:`kernelopt.tuning.seeds.seeds`: the current
configuration, a GEMM's known-good tiles); a trial succeeds when its final configuration is within
:data:`SUCCESS_TOLERANCE` of the sweep's best.

What a candidate gets:

- a recorded ``ok`` configuration: its recorded latency;
- a recorded failure: its outcome (``wrong`` -> ``WRONG_RESULT``, ``error`` -> ``COMPILE_ERROR``) and message;
- a pruned one: ``INVALID`` with the sweep's reason (the space built by :func:`space_from_sweep` never
  proposes it; a seed might);
- a configuration the sweep did not record (an incomplete sweep): ``INVALID``, "not recorded".

Time: a sweep records only its total ``wall_s``, so each timed configuration is charged
``wall_s / timed configurations`` on the session's clock (pruned and unrecorded ones cost nothing: they are
rejected before compiling). A re-time is charged the same.
"""

from __future__ import annotations

import statistics
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace

from pydantic import BaseModel, ConfigDict

from kernelopt.tuning.budget import BudgetRule, ManualClock
from kernelopt.tuning.candidate import Config, Outcome, Result, Value
from kernelopt.tuning.record import SWEEP_OUTCOMES, SweepEntry, SweepFile, SweepStatus
from kernelopt.tuning.space import Space, knob_of

#: A trial succeeds when its final latency is at most the sweep's best times 1 + this (issue 22: 3 %).
SUCCESS_TOLERANCE = 0.03
NOT_RECORDED = "not recorded in the sweep (the sweep is incomplete)"


class ReplayEvaluator:
    """Serves a sweep file's results as an :class:`~kernelopt.tuning.evaluator.Evaluator`.

    Attributes:
        sweep: the sweep served.
        clock: the clock charged (pass the same one to the session's budget).
        seconds_per_config: what one timed configuration costs, ``wall_s / timed configurations``.
        charged: configurations served so far (evaluations and re-times).
    """

    def __init__(
        self, sweep: SweepFile, clock: ManualClock | None = None, *, entries: dict[str, SweepEntry] | None = None
    ) -> None:
        """``entries``: the sweep's :meth:`SweepFile.by_key`, when the caller has it (many trials)."""
        self.sweep = sweep
        self.clock = clock if clock is not None else ManualClock()
        self.seconds_per_config = sweep.wall_s / max(1, len(sweep.timed()))
        self.charged = 0
        self._entries = entries if entries is not None else sweep.by_key()

    @property
    def time_note(self) -> str:
        return (
            f"the sweep records only its total wall time ({self.sweep.wall_s:.1f} s): each timed configuration "
            f"is charged wall_s / {len(self.sweep.timed())} = {self.seconds_per_config:.3f} s"
        )

    def evaluate(self, batch: Sequence[Config]) -> list[Result]:
        return [self._serve(c, retimed=False) for c in batch]

    def retime(self, batch: Sequence[Config]) -> list[Result]:
        return [self._serve(c, retimed=True) for c in batch]

    def close(self) -> None:
        return None

    def _serve(self, config: Config, *, retimed: bool) -> Result:
        entry = self._entries.get(config.key())
        self.charged += 1
        if entry is None:
            return Result(config=config.as_dict(), outcome=Outcome.INVALID, reason=NOT_RECORDED, recorded=True)
        if entry.status is not SweepStatus.PRUNED:
            self.clock.advance(self.seconds_per_config)
        return result_of(entry, retimed=retimed)


def result_of(entry: SweepEntry, *, retimed: bool = False) -> Result:
    """A sweep entry as the engine's result (``recorded``)."""
    outcome = SWEEP_OUTCOMES[entry.status]
    if outcome is Outcome.OK:
        return Result(config=entry.config, outcome=outcome, latency_us=entry.latency_us, retimed=retimed, recorded=True)
    reason = entry.message or f"recorded as {entry.status.value} in the sweep"
    return Result(config=entry.config, outcome=outcome, reason=reason, retimed=retimed, recorded=True)


def space_from_sweep(sweep: SweepFile) -> Space:
    """The space a sweep covers: its knobs and values, the naive configuration as the default; a
    configuration fits when the sweep recorded it and did not prune it."""
    entries = sweep.by_key()

    def fit(config: Config) -> list[str]:
        entry = entries.get(config.key())
        if entry is None:
            return [NOT_RECORDED]
        if entry.status is SweepStatus.PRUNED:
            return [f"pruned in the sweep: {entry.message or 'no reason recorded'}"]
        return []

    knobs = tuple(knob_of(name, values, sweep.naive_config[name]) for name, values in sweep.space.items())
    rule = f"recorded and not pruned in the sweep of {sweep.name} ({sweep.key.kernel_sha256 or 'no digest'})"
    return Space(knobs, fit, (rule,), kernel=sweep.name)


def restrict_to_sweep(space: Space, sweep: SweepFile, *, computed: Mapping[str, Value] | None = None) -> Space:
    """The part of ``space`` (a kernel's, from discovery) that a recorded sweep covers: each knob's values cut
    to the sweep's (a knob the sweep does not vary is held at the value the sweep held it at), the kernel's
    fit rule kept. A session in it can be ranked against the sweep's best, which
    is an honest ratio only over the same space (``kernelopt tune --within SWEEP``).

    A sweep holds literals only (a sweep file has no computed point): a knob the kernel computes from the problem
    is mapped to the literal ``computed`` gives it (the value its computation takes on every shape the session
    times) and becomes a literal knob of the restricted space, at that value. The kernel's current configuration
    must be a point of the sweep's space: otherwise the session's "current" would be another configuration than
    the kernel as written.

    Raises:
        ValueError: the sweep's knobs are not the space's, a knob has no value in common, a computed knob has no
            literal in ``computed``, or the kernel's current value of a knob is outside the sweep's (one line).
    """
    swept = space_from_sweep(sweep)
    unknown = sorted(set(swept.names) - set(space.names))
    if unknown:
        raise ValueError(f"the sweep of {sweep.name} varies {unknown}, which this launch has no knob for")
    literals = dict(computed or {})
    origins = dict(space.origins)
    knobs = []
    for knob in space.knobs:
        origin = origins.get(knob.name)
        now: Value | None = origin.value if origin is not None else None
        if origin is not None and space.computed(knob.name):
            if knob.name not in literals:
                raise ValueError(
                    f"{knob.name} is computed by the kernel ({origin.computed}) and the sweep of {sweep.name} holds "
                    "literals only: the computation is no point of its space"
                )
            now = literals[knob.name]
            origins[knob.name] = replace(origin, value=now, computed=None)
        if knob.name not in swept.names:  # the sweep held it where the kernel has it
            held = sweep.naive_config.get(knob.name, knob.default if now is None else now)
            if now is not None and held != now:
                raise ValueError(
                    f"{knob.name}: the kernel runs {now} and the sweep of {sweep.name} held it at {held}: the current "
                    "configuration is outside the sweep's space"
                )
            knobs.append(knob_of(knob.name, [held], held))
            continue
        allowed = set(swept.knob(knob.name).values)
        values = [v for v in knob.values if v in allowed]
        if not values:
            raise ValueError(f"{knob.name}: none of {list(knob.values)} is among the sweep's {sorted(allowed)}")
        if now is not None and now not in values:
            raise ValueError(
                f"{knob.name}: the kernel runs {now}, which is not among the sweep's values "
                f"{list(swept.knob(knob.name).values)}: the current configuration is outside the sweep's space"
            )
        default = now if now is not None else knob.default if knob.default in values else values[0]
        knobs.append(knob_of(knob.name, values, default))
    rule = f"values restricted to the sweep of {sweep.name} ({sweep.key.kernel_sha256 or 'no digest'})"
    return replace(space, knobs=tuple(knobs), fit_rules=(*space.fit_rules, rule), origins=origins, _fit_cache={})


# ---------------------------------------------------------------------------------------------- trials


class ReplayReport(BaseModel):
    """What :func:`replay_trials` measured on one sweep.

    Attributes:
        sweep: the sweep's example name.
        strategy: the strategy's name.
        trials: how many sessions ran (seeds ``seed .. seed + trials - 1``).
        space_size: configurations of the sweep's space (before pruning).
        fit_size: configurations the space's fit rule leaves (recorded, not pruned).
        budget: candidates per session.
        best_latency_us: the sweep's best recorded latency.
        success_rate: fraction of trials whose final configuration is within ``tolerance`` of the best.
        mean_evaluations: candidates evaluated per trial, on average.
        mean_ratio_to_best: final latency / best latency, averaged over trials.
        worst_ratio_to_best: the largest such ratio.
        mean_wall_s: replayed seconds per trial (recorded seconds charged).
        tolerance: the success tolerance (0.03).
        time_note: how recorded seconds were charged.
        stops: why the trials' sessions ended (``candidates``, ``stalled``, ...) -> how many.
    """

    model_config = ConfigDict(extra="forbid")

    sweep: str
    strategy: str
    trials: int
    space_size: int
    fit_size: int
    budget: int
    best_latency_us: float
    success_rate: float
    mean_evaluations: float
    mean_ratio_to_best: float
    worst_ratio_to_best: float
    mean_wall_s: float
    tolerance: float = SUCCESS_TOLERANCE
    time_note: str
    stops: dict[str, int] = {}


@dataclass(frozen=True)
class _Trial:
    ratio: float
    evaluations: int
    wall_s: float
    stop: str


def replay_trials(
    sweep: SweepFile,
    *,
    trials: int,
    budget: BudgetRule | None = None,
    strategy: str = "local",
    seed: int = 0,
    batch_size: int | None = None,
    on_trial: Callable[[int], None] | None = None,
) -> ReplayReport:
    """Run ``trials`` sessions of ``strategy`` on the recorded sweep, seeds ``seed``, ``seed + 1``, ...

    ``batch_size``: candidates per round (``None``: the session's default, as on the hardware).

    Raises:
        ValueError: ``trials`` < 1, or the sweep has no timed configuration.
    """
    from kernelopt.tuning.seeds import seeds
    from kernelopt.tuning.session import DEFAULT_BATCH, tune

    best = sweep.best()
    if trials < 1 or best is None or best.latency_us is None:
        raise ValueError("replay needs at least one trial and a sweep with a timed configuration")
    space = space_from_sweep(sweep)
    rule = budget or BudgetRule()
    runs: list[_Trial] = []
    size = space.size.count
    entries = sweep.by_key()
    first = seeds(space)
    for i in range(trials):
        clock = ManualClock()
        result = tune(
            space,
            ReplayEvaluator(sweep, clock, entries=entries),
            budget=rule.build(size, clock),
            seeds=first,
            strategy=strategy,
            rng_seed=seed + i,
            batch_size=batch_size or DEFAULT_BATCH,
        )
        latency = result.best_latency_us if result.best_latency_us is not None else float("inf")
        runs.append(_Trial(latency / best.latency_us, result.evaluations, result.wall_s, result.stop.value))
        if on_trial is not None:
            on_trial(i)
    return ReplayReport(
        sweep=sweep.name,
        strategy=strategy,
        trials=trials,
        space_size=space.raw_size,
        fit_size=size,
        budget=rule.build(size, ManualClock()).candidates,
        best_latency_us=best.latency_us,
        success_rate=sum(r.ratio <= 1 + SUCCESS_TOLERANCE for r in runs) / trials,
        mean_evaluations=statistics.fmean(r.evaluations for r in runs),
        mean_ratio_to_best=statistics.fmean(r.ratio for r in runs),
        worst_ratio_to_best=max(r.ratio for r in runs),
        mean_wall_s=statistics.fmean(r.wall_s for r in runs),
        stops=dict(Counter(r.stop for r in runs).most_common()),
        time_note=ReplayEvaluator(sweep).time_note,
    )
