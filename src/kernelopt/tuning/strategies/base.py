"""What every strategy shares: the seeds, no repeats, what was observed, the best so far (pure)."""

from __future__ import annotations

import math
import random
from collections.abc import Iterable, Sequence

from kernelopt.tuning.candidate import Config, Result
from kernelopt.tuning.space import Space


class BaseStrategy:
    """Bookkeeping for a strategy: subclasses implement :meth:`_next` (the next configurations to try).

    Attributes:
        space: the space.
        budget: candidates the session may spend.
        rng: the strategy's random source (seeded).
        proposed: every configuration proposed so far.
        cost: configuration -> its observed latency, microseconds (``inf`` for a failure).
        done: nothing is left to propose.
    """

    name = "base"

    def __init__(self, space: Space, *, seeds: Sequence[Config] = (), budget: int, rng_seed: int = 0) -> None:
        self.space = space
        self.budget = budget
        self.rng = random.Random(rng_seed)
        self.proposed: set[Config] = set()
        self.cost: dict[Config, float] = {}
        self.order: list[Config] = []  # observed, in order
        self.done = False
        self._seeds = list(dict.fromkeys(Config.of(s) for s in seeds))

    # ------------------------------------------------------------------ the protocol

    def propose(self, n: int) -> list[Config]:
        if n <= 0 or self.done:
            return []
        out: list[Config] = []
        while self._seeds and len(out) < n:
            s = self._seeds.pop(0)
            if s not in self.proposed and not self.space.illegal(s):
                out.append(s)
                self.proposed.add(s)
        if len(out) < n:
            out += self._take(self._next(n - len(out)), n - len(out))
        if not out and not self._pending():
            self.done = True
        return out

    def observe(self, results: Sequence[Result]) -> None:
        for r in results:
            c = Config.of(r.config)
            if c in self.cost:
                continue
            self.cost[c] = r.latency_us if r.outcome.ok and r.latency_us is not None else math.inf
            self.order.append(c)
            self._observed(c, self.cost[c])

    def known(self, results: Sequence[Result]) -> None:
        for r in results:
            self.proposed.add(Config.of(r.config))
        self.observe(results)

    # ------------------------------------------------------------------ for subclasses

    def _next(self, n: int) -> Iterable[Config]:
        """Candidates to propose, best first; the base keeps only new, fitting ones, up to ``n``."""
        raise NotImplementedError

    def _observed(self, config: Config, cost: float) -> None:
        """Called once per observed configuration (``cost`` inf for a failure)."""

    def _take(self, candidates: Iterable[Config], n: int) -> list[Config]:
        out: list[Config] = []
        if n <= 0:
            return out
        for c in candidates:  # stops as soon as it has n: an iterator keeps the rest
            if c not in self.proposed and self.space.fits(c):
                self.proposed.add(c)
                out.append(c)
                if len(out) == n:
                    break
        return out

    def _pending(self) -> bool:
        """Proposed configurations whose results are not in yet."""
        return len(self.proposed) > len(self.cost)

    @property
    def best(self) -> Config | None:
        """The fastest configuration observed (``None`` before any ran)."""
        ok = [c for c in self.order if math.isfinite(self.cost[c])]
        return min(ok, key=lambda c: self.cost[c]) if ok else None

    def unseen_fitting(self, pool: Iterable[Config]) -> list[Config]:
        return [c for c in pool if c not in self.proposed and self.space.fits(c)]
