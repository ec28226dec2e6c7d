"""The default strategy: seeds, then a local descent with single and paired moves, restarted when stuck.

1. **Seeds**: the current configuration and the evidence's seeds (given), then random fit-pruned
   configurations: a share of the budget (:attr:`DescentSettings.random_share`), so a descent can start in
   a basin the current configuration is far from.
2. **Descent** from the best seed: the single moves of the centre (each knob one step), then, when none is
   better, its paired moves (two knobs one step each: a longer tile with fewer warps, a larger block with
   more warps). The centre moves to any better neighbour.
3. **Restart** when the centre's neighbourhood is spent with nothing better: a new centre away from the
   basins explored, and a descent from it.

``local`` ranks the neighbours and chooses the restart points with a learned filter
(:class:`~kernelopt.tuning.strategies.surrogate.Surrogate`: a Gaussian process of log latency over the
knobs' steps, expected improvement), so of a neighbourhood it times the promising moves first and of the
space it restarts where the model expects most. ``pattern`` is the same descent with no model: neighbours
in random order, restarts by a random kick of the best configuration (iterated local search).

The settings are rules of thumb (a sixth of the budget on random seeds, at most six; restarts two knobs
away), and the model's hyperparameters are chosen per fit by its likelihood. One setting was changed after
looking at held-out sweeps: the cap on random seeds, 16 until 2026-12-04. In the loop a session is cut by
the time left long before its budget, and on the H200 mm_module_dict's session of 20 candidates spent 14 of
them on random seeds and never descended (1.37x off its best). Replayed at 6, the GEMM sweeps' sessions cut
after 20 candidates end within 3 % about twice as often, and at the default budget nothing got worse
(docs/results.md, 2026-12-04).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from kernelopt.tuning.candidate import Config
from kernelopt.tuning.space import Space
from kernelopt.tuning.strategies.base import BaseStrategy
from kernelopt.tuning.strategies.surrogate import Surrogate


@dataclass(frozen=True)
class DescentSettings:
    """The descent's rules of thumb.

    Attributes:
        random_share: share of the budget spent on random fit-pruned seeds.
        min_random, max_random: bounds on that number of random seeds.
        pairs: try paired moves.
        pairs_per_knob: without the filter, paired moves tried at a centre per knob before a restart.
        surrogate: rank neighbours and choose restarts with the learned filter.
        kick: knobs moved by a restart's random kick (``pattern``), each one or two steps.
        pool: configurations scored for a restart by the filter, at most (a random fit-pruned sample when
            the space is larger).
    """

    random_share: float = 1 / 6
    min_random: int = 3
    max_random: int = 6
    pairs: bool = True
    pairs_per_knob: int = 2
    surrogate: bool = True
    kick: int = 2
    pool: int = 4000


class LocalDescent(BaseStrategy):
    """Seeds, local descent with single and paired moves, restarts; a learned filter orders the moves."""

    name = "local"
    settings = DescentSettings()

    def __init__(self, space: Space, *, seeds: Sequence[Config] = (), budget: int, rng_seed: int = 0) -> None:
        super().__init__(space, seeds=seeds, budget=budget, rng_seed=rng_seed)
        share = round(budget * self.settings.random_share)
        self._random_left = max(self.settings.min_random, min(self.settings.max_random, share))
        self.centre: Config | None = None
        self._model: Surrogate | None = None
        self._model_size = -1
        self._length: float | None = None
        self._length_at = 0
        self._positions: dict[Config, tuple[float, ...]] = {}
        self._pairs_tried: dict[Config, int] = {}

    # ------------------------------------------------------------------ the steps

    def _next(self, n: int) -> Iterable[Config]:
        if self._random_left > 0:
            drawn = self.space.sample(self.rng, min(n, self._random_left), exclude=self.proposed)
            self._random_left = 0 if len(drawn) < min(n, self._random_left) else self._random_left - len(drawn)
            if drawn:
                return drawn
        moves = self._moves()
        if moves:
            picked = self._ranked(moves)[:n]
            if self.centre is not None:
                pairs = sum(1 for c in picked if self.space.distance(c, self.centre) > 1)
                self._pairs_tried[self.centre] = self._pairs_tried.get(self.centre, 0) + pairs
            return picked
        restart = self._restart()
        return [restart] if restart is not None else []

    def _observed(self, config: Config, cost: float) -> None:
        if self.centre is None or cost < self.cost.get(self.centre, math.inf):
            self.centre = config

    def _moves(self) -> list[Config]:
        """The centre's untried moves: with the filter its single and paired moves together (the model
        ranks them); without, its single moves, else up to :attr:`DescentSettings.pairs_per_knob` paired
        moves per knob."""
        if self.centre is None:
            return []
        singles = self.unseen_fitting(self.space.neighbours(self.centre))
        if not self.settings.pairs:
            return singles
        if self._surrogate() is not None:
            return singles + self.unseen_fitting(self.space.paired_neighbours(self.centre))
        if singles:
            return singles
        tried = self._pairs_tried.get(self.centre, 0)
        left = self.settings.pairs_per_knob * len(self.space.knobs) - tried
        return self.unseen_fitting(self.space.paired_neighbours(self.centre)) if left > 0 else []

    # ------------------------------------------------------------------ ordering and restarts

    def _ranked(self, moves: list[Config]) -> list[Config]:
        model = self._surrogate()
        if model is None:
            self.rng.shuffle(moves)
            return moves
        scores = model.expected_improvement([self._steps(c) for c in moves])
        return [c for _, c in sorted(zip(scores, moves, strict=True), key=lambda p: -p[0])]

    def _restart(self) -> Config | None:
        """A new centre: the filter's most promising untried configuration, else a kick of the best."""
        model = self._surrogate()
        pick = self._promising(model) if model is not None else self._kick()
        if pick is None:
            return None
        self.centre = pick
        return pick

    def _promising(self, model: Surrogate) -> Config | None:
        pool = self._pool()
        if not pool:
            return None
        scores = model.expected_improvement([self._steps(c) for c in pool])
        return pool[max(range(len(pool)), key=scores.__getitem__)]

    def _pool(self) -> list[Config]:
        size = self.space.size
        if size.exact and size.count <= self.settings.pool:
            return self.unseen_fitting(self.space.configs())
        return self.space.sample(self.rng, self.settings.pool, exclude=self.proposed)

    def _kick(self) -> Config | None:
        """The best configuration with :attr:`DescentSettings.kick` knobs moved one or two steps each."""
        base = self.best or self.centre
        if base is None:
            return next(iter(self.space.sample(self.rng, 1, exclude=self.proposed)), None)
        for _ in range(100):
            changes = {}
            for knob in self.rng.sample(list(self.space.knobs), min(self.settings.kick, len(self.space.knobs))):
                i = knob.index(base[knob.name]) + self.rng.choice((-2, -1, 1, 2))
                changes[knob.name] = knob.values[max(0, min(knob.size - 1, i))]
            c = base.with_values(changes)
            if c not in self.proposed and self.space.fits(c) and not self._avoided(c):
                return c
        return next(iter(self.space.sample(self.rng, 1, exclude=self.proposed)), None)

    def _surrogate(self) -> Surrogate | None:
        if not self.settings.surrogate:
            return None
        timed = [c for c in self.order if math.isfinite(self.cost[c])]
        if len(timed) != self._model_size:
            # the length scale is chosen again each time the timed set grows by a quarter
            fixed = self._length if self._length and len(timed) < 1.25 * self._length_at else None
            self._model = Surrogate.maybe([self._steps(c) for c in timed], [self.cost[c] for c in timed], length=fixed)
            self._model_size = len(timed)
            if self._model is not None and fixed is None:
                self._length, self._length_at = self._model.length, len(timed)
        return self._model

    def _steps(self, config: Config) -> tuple[float, ...]:
        """``config``'s position, knob by knob, in steps (the model's coordinates), memoized."""
        got = self._positions.get(config)
        if got is None:
            got = tuple(float(k.index(config[k.name])) for k in self.space.knobs)
            self._positions[config] = got
        return got


class PatternDescent(LocalDescent):
    """The same descent with no model: neighbours in random order, restarts by a random kick."""

    name = "pattern"
    settings = DescentSettings(surrogate=False)
