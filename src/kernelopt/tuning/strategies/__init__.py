"""Strategies: which configurations of a space to evaluate next (ask/tell, pure).

A strategy sees only the space and the results it is told (Kernel Tuner's cost function, Helion's
search classes): the session asks it for up to ``n`` configurations (:meth:`Strategy.propose`), has them
evaluated (on the hardware, from a session record, or from a recorded sweep) and tells it the results
(:meth:`Strategy.observe`). It never proposes a configuration twice and never one the space's fit rule
rejects (the seeds it is given excepted: the current configuration is evaluated as it is). ``done`` says
it has nothing left to propose.

Every strategy is built as ``cls(space, seeds=..., budget=..., rng_seed=...)``: ``seeds`` first, in order;
``budget`` the candidates the session may spend (a strategy may plan its phases by it); ``rng_seed`` makes
it deterministic. :data:`STRATEGIES` is the registry of names.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Protocol

from kernelopt.errors import UsageError
from kernelopt.tuning.candidate import Config, Result
from kernelopt.tuning.space import Space
from kernelopt.tuning.strategies.base import BaseStrategy
from kernelopt.tuning.strategies.local import LocalDescent, PatternDescent
from kernelopt.tuning.strategies.sampling import ExhaustiveSweep, RandomSampling


class Strategy(Protocol):
    """The ask/tell seam between a session and a strategy."""

    done: bool

    def propose(self, n: int) -> list[Config]:
        """Up to ``n`` configurations not proposed before (fewer, even none, when it waits for results
        or has nothing left)."""
        ...

    def observe(self, results: Sequence[Result]) -> None:
        """The results of configurations it proposed, in any order."""
        ...

    def known(self, results: Sequence[Result]) -> None:
        """Results of configurations evaluated without it (a literal that runs as the kernel as written on every
        shape timed, known from the current configuration's result): observed, and never proposed."""
        ...

    def avoid(self, rule: Callable[[Config], bool]) -> None:
        """Never propose a configuration ``rule`` holds for (larger tiles than one refused for a bound they only
        exceed further, :meth:`~kernelopt.tuning.space.Space.larger_tiles`)."""
        ...


class StrategyFactory(Protocol):
    def __call__(self, space: Space, *, seeds: Sequence[Config], budget: int, rng_seed: int) -> Strategy: ...


#: Name -> strategy class. ``local`` is the default.
STRATEGIES: dict[str, type[BaseStrategy]] = {
    "local": LocalDescent,
    "pattern": PatternDescent,
    "random": RandomSampling,
    "exhaustive": ExhaustiveSweep,
}
DEFAULT_STRATEGY = "local"


def make_strategy(name: str, space: Space, *, seeds: Sequence[Config], budget: int, rng_seed: int) -> Strategy:
    """The strategy registered as ``name``, built for ``space``.

    Raises:
        UsageError: no strategy of that name.
    """
    cls = STRATEGIES.get(name)
    if cls is None:
        raise UsageError(f"unknown strategy {name!r}", hint=f"known: {', '.join(STRATEGIES)}")
    return cls(space, seeds=seeds, budget=budget, rng_seed=rng_seed)


__all__ = [
    "DEFAULT_STRATEGY",
    "STRATEGIES",
    "BaseStrategy",
    "ExhaustiveSweep",
    "LocalDescent",
    "PatternDescent",
    "RandomSampling",
    "Strategy",
    "StrategyFactory",
    "make_strategy",
]
