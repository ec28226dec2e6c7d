"""The two baselines: random fit-pruned sampling, and the exhaustive sweep (pure)."""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence

from kernelopt.tuning.candidate import Config
from kernelopt.tuning.space import Space
from kernelopt.tuning.strategies.base import BaseStrategy


class RandomSampling(BaseStrategy):
    """The seeds, then uniformly random fit-pruned configurations (the baseline every strategy must beat)."""

    name = "random"

    def _next(self, n: int) -> Iterable[Config]:
        return self.space.sample(self.rng, n, exclude=self.proposed)


class ExhaustiveSweep(BaseStrategy):
    """The seeds, then every fit-pruned configuration in the knobs' order (a sweep; the budget cuts it)."""

    name = "exhaustive"

    def __init__(self, space: Space, *, seeds: Sequence[Config] = (), budget: int, rng_seed: int = 0) -> None:
        super().__init__(space, seeds=seeds, budget=budget, rng_seed=rng_seed)
        self._all: Iterator[Config] | None = None

    def _next(self, n: int) -> Iterable[Config]:
        if self._all is None:
            self._all = self.space.configs()
        return self._all
