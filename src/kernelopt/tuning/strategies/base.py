"""What every strategy shares: the seeds, no repeats, what was observed, the best so far (pure)."""

from __future__ import annotations

import math
import random
from collections.abc import Callable, Iterable, Sequence

from kernelopt.tuning.candidate import Config, Result
from kernelopt.tuning.space import Space

#: How many more times :meth:`BaseStrategy.propose` asks for candidates when those it got were all avoided (our bound:
#: each time the avoided ones are known, so the next draw or move is another).
AVOID_TRIES = 20


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
        self._avoid: list[Callable[[Config], bool]] = []
        self._skipped = 0

    # ------------------------------------------------------------------ the protocol

    def propose(self, n: int) -> list[Config]:
        if n <= 0 or self.done:
            return []
        out: list[Config] = []
        while self._seeds and len(out) < n:
            s = self._seeds.pop(0)
            if s not in self.proposed and not self.space.illegal(s) and not self._avoided(s):
                out.append(s)
                self.proposed.add(s)
        for _ in range(1 + AVOID_TRIES):
            if len(out) >= n:
                break
            self._skipped = 0
            out += self._take(self._next(n - len(out)), n - len(out))
            if not self._skipped:
                break
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

    def avoid(self, rule: Callable[[Config], bool]) -> None:
        """Never propose a configuration ``rule`` holds for (the session's: larger tiles than one refused for a
        bound they only exceed further); one met is known as a failure, as if it had been proposed and refused."""
        self._avoid.append(rule)

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
            if c not in self.proposed and self.space.fits(c) and not self._avoided(c):
                self.proposed.add(c)
                out.append(c)
                if len(out) == n:
                    break
        return out

    def _avoided(self, c: Config) -> bool:
        """Whether an :meth:`avoid` rule holds for ``c``; when one does, ``c`` is known as a failure from then on (never
        drawn, moved to or proposed again)."""
        if c in self.cost or not any(rule(c) for rule in self._avoid):
            return False
        self.proposed.add(c)
        self.cost[c] = math.inf  # known, not observed: no result came, and a descent never centres on it
        self._skipped += 1
        return True

    def _pending(self) -> bool:
        """Proposed configurations whose results are not in yet."""
        return len(self.proposed) > len(self.cost)

    @property
    def best(self) -> Config | None:
        """The fastest configuration observed (``None`` before any ran)."""
        ok = [c for c in self.order if math.isfinite(self.cost[c])]
        return min(ok, key=lambda c: self.cost[c]) if ok else None

    def unseen_fitting(self, pool: Iterable[Config]) -> list[Config]:
        return [c for c in pool if c not in self.proposed and self.space.fits(c) and not self._avoided(c)]
