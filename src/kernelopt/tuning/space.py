"""The knob space of one launch (pure): knob kinds that own their moves, fit pruning, sampling, neighbours.

A *knob* is one tunable value, a *configuration* one value for every knob of one launch, the *space*
every legal configuration (DESIGN.md, "Terms"). Each knob kind owns its domain and its moves (Helion's
``config_fragment.py``): its default, a random draw, its one-step neighbours and its encoding for a model,
so a strategy stays generic. :class:`Space` adds what no single knob knows: a *fit* rule (why a
configuration cannot run: shared memory, registers, a tile larger than the problem), a fingerprint (the
key of a session record), the size of the fit-pruned space, random fit-pruned draws and single and paired
moves.

A space comes from discovery (:func:`kernelopt.tuning.launch.space_from_tunables`: the knobs ``kernelopt tunables``
lists for one launch) or from a recorded sweep (:func:`kernelopt.tuning.replay.space_from_sweep`); this module
imports neither (no circle). Randomness is a ``random.Random`` the caller seeds; nothing here reads a clock, a file or
the environment.
"""

from __future__ import annotations

import hashlib
import itertools
import json
import math
import random
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from functools import cached_property

from kernelopt.actions import ActionCategory
from kernelopt.numeric import is_number, plain_int
from kernelopt.tunables.knobs import LAUNCH_OPTIONS
from kernelopt.tuning.candidate import COMPUTED, Config, Value, is_computed

#: Why a configuration cannot run (empty: it fits).
Fit = Callable[[Config], list[str]]

#: The fit-pruned space is counted by enumeration up to this many raw configurations, else estimated.
ENUMERATE_LIMIT = 20_000
#: Random draws behind an estimated size (the estimate's relative error is about 1/sqrt(hits)).
ESTIMATE_DRAWS = 2_000
#: The share of random draws that keep a knob computed from the problem at its computation (our choice).
COMPUTED_SHARE = 0.5
#: Random draws tried per configuration asked of :meth:`Space.sample` before it gives up.
SAMPLE_TRIES = 200
#: Discovery's categories of a knob that sizes a block or a tile.
_BLOCK_CATEGORIES = frozenset({ActionCategory.BLOCK_SIZE.value, ActionCategory.TILING.value})


class KnobKind(StrEnum):
    """The kinds of knob domain."""

    POWER_OF_TWO = "power_of_two"  # 16, 32, 64, ...: tiles, blocks, warps, groups
    INTEGER = "integer"  # every integer of a range: num_stages, waves_per_eu
    CHOICE = "choice"  # an ordered list of values: anything else


class Knob:
    """One knob: a name, its legal values (ordered: the order defines "one step") and its default.

    The kinds below own their domains and moves. Attributes common to all: ``name`` (the knob as the
    kernel sees it: ``BLOCK_SIZE``, ``num_warps``), ``default`` (the value a configuration starts from,
    the current value when known), :attr:`values` and :attr:`kind`.
    """

    name: str
    default: Value
    kind: KnobKind

    @cached_property
    def values(self) -> tuple[Value, ...]:
        raise NotImplementedError

    def _check(self) -> None:
        if not self.values:
            raise ValueError(f"knob {self.name!r} has no legal value")
        if self.default not in self.values:
            raise ValueError(f"knob {self.name!r}: default {self.default!r} is not one of {list(self.values)}")

    @property
    def size(self) -> int:
        return len(self.values)

    def index(self, value: Value) -> int:
        """The position of ``value`` in :attr:`values` (the computation, :data:`COMPUTED`, stands where its
        value on the primary shape, the default, does: its neighbours are the literals around that value).
        Raises ValueError when it is not legal."""
        return self.values.index(self.default if is_computed(value) else value)

    def random(self, rng: random.Random) -> Value:
        """A uniformly drawn legal value."""
        return self.values[rng.randrange(len(self.values))]

    def neighbours(self, value: Value) -> tuple[Value, ...]:
        """The legal values one step away (down first), nothing past either end."""
        i = self.index(value)
        return tuple(self.values[j] for j in (i - 1, i + 1) if 0 <= j < len(self.values))

    def encode(self, value: Value) -> float:
        """``value`` as a number in [0, 1] for a model: its position in the ordered domain."""
        return self.index(value) / (len(self.values) - 1) if len(self.values) > 1 else 0.0

    def describe(self) -> str:
        """``BLOCK_SIZE: power_of_two 16..65536 (13 values)``."""
        return f"{self.name}: {self.kind.value} {self.values[0]}..{self.values[-1]} ({len(self.values)} values)"


@dataclass(frozen=True)
class PowerOfTwoKnob(Knob):
    """The powers of two from ``low`` to ``high``: tiles, blocks, warps, groups. One step doubles or
    halves; the encoding is log2 of the value, normalized."""

    name: str
    default: int
    low: int
    high: int
    kind: KnobKind = KnobKind.POWER_OF_TWO

    def __post_init__(self) -> None:
        self._check()

    @cached_property
    def values(self) -> tuple[Value, ...]:
        return tuple(v for v in (1 << i for i in range(self.high.bit_length())) if self.low <= v <= self.high)


@dataclass(frozen=True)
class IntegerKnob(Knob):
    """Every integer from ``low`` to ``high``: ``num_stages``, ``waves_per_eu``. One step is +-1."""

    name: str
    default: int
    low: int
    high: int
    kind: KnobKind = KnobKind.INTEGER

    def __post_init__(self) -> None:
        self._check()

    @cached_property
    def values(self) -> tuple[Value, ...]:
        return tuple(range(self.low, self.high + 1))


@dataclass(frozen=True)
class ChoiceKnob(Knob):
    """A list of values (numbers sorted ascending). Ordered (numbers): one step is the next value either
    way; unordered (strings, mixed): every other value is one step away."""

    name: str
    default: Value
    choices: tuple[Value, ...]
    kind: KnobKind = KnobKind.CHOICE

    def __post_init__(self) -> None:
        self._check()

    @cached_property
    def values(self) -> tuple[Value, ...]:
        return tuple(sorted(dict.fromkeys(self.choices), key=_order_key))

    @property
    def ordered(self) -> bool:
        return all(_order_key(v)[0] == 0 for v in self.values)

    def neighbours(self, value: Value) -> tuple[Value, ...]:
        if self.ordered:
            return super().neighbours(value)
        return tuple(v for v in self.values if v != value)

    def describe(self) -> str:
        return f"{self.name}: one of {list(self.values)}"


def knob_of(name: str, values: Sequence[Value], default: Value) -> Knob:
    """The knob of the kind the values' shape shows: a run of consecutive powers of two, a run of
    consecutive integers, or else a choice list."""
    ordered = sorted(dict.fromkeys(values), key=_order_key)
    ints = [i for v in ordered if (i := plain_int(v)) is not None]
    if len(ints) == len(ordered) > 1 and isinstance(default, int):
        lo, hi = ints[0], ints[-1]
        if all(v > 0 and v & (v - 1) == 0 for v in ints) and all(b == 2 * a for a, b in itertools.pairwise(ints)):
            return PowerOfTwoKnob(name, default, lo, hi)
        if all(b == a + 1 for a, b in itertools.pairwise(ints)):
            return IntegerKnob(name, default, lo, hi)
    return ChoiceKnob(name, default, tuple(ordered))


def _order_key(v: Value) -> tuple[int, float, str]:
    if not is_number(v):
        return (1, 0.0, str(v))
    return (0, float(v), "")


@dataclass(frozen=True)
class KnobOrigin:
    """Where a knob of a space lives in the kernel file (for the edit that writes a configuration).

    Attributes:
        keys: the tunable keys an edit moves (:func:`kernelopt.tunables.apply`); an autotuned kernel has
            one per ``triton.Config`` of its list (the edit then pins one config).
        value: the value discovery read, ``None`` when it is computed and no run told it.
        computed: the expression a literal overrides (``calculate_settings(n)``), when computed.
        feeds: the kernel parameters / launch options it feeds (the names resource estimates read).
        categories: the action categories that move it (discovery's, primary first).
    """

    keys: tuple[str, ...]
    value: Value | None = None
    computed: str | None = None
    feeds: tuple[str, ...] = ()
    categories: tuple[str, ...] = ()

    @property
    def from_problem(self) -> bool:
        """The kernel computes this knob from the problem where it launches (a settings helper, an expression
        at the launch, a heuristic; not an autotune list, whose current configuration is the autotuner's pick):
        its current value is the computation (:data:`~kernelopt.tuning.candidate.COMPUTED`), not one literal."""
        return self.computed is not None and not any(".configs[" in k for k in self.keys)


@dataclass(frozen=True)
class SpaceSize:
    """How many configurations the fit rule leaves: counted (``exact``) or estimated from random draws."""

    count: int
    exact: bool

    def __str__(self) -> str:
        return f"{self.count}" if self.exact else f"about {self.count}"


@dataclass(frozen=True)
class Space:
    """The knobs of ONE launch and the rule of which configurations fit.

    Attributes:
        knobs: the knobs, in a stable order (discovery's, or the sweep's).
        fit: why a configuration cannot run (empty when it fits); ``None``: everything legal fits.
        fit_rules: what ``fit`` checks, in words (part of the fingerprint: two spaces with the same knobs
            but other fit rules are not the same space).
        kernel: the Triton kernel launched, when known.
        launch: the launch site or autotune list the knobs belong to (``launch k (kernel.py:31)``).
        origins: knob name -> where it lives (empty for a space from a sweep).
        domain_notes: one line for each knob whose domain a rule read from the kernel narrowed (a block that must
            cover a row starts where it does: :func:`kernelopt.tuning.launch.space_from_tunables`).
        tile_growth: how the kernel's tiles move as each name it reads grows (``+1``, ``-1``, ``0``: not known;
            :func:`kernelopt.tunables.tile_growth.tile_growth`), read by :meth:`larger_tiles`; ``None``: the kernel
            was not read, and every block knob is taken to grow them.
    """

    knobs: tuple[Knob, ...]
    fit: Fit | None = None
    fit_rules: tuple[str, ...] = ()
    kernel: str | None = None
    launch: str | None = None
    origins: Mapping[str, KnobOrigin] = field(default_factory=dict)
    domain_notes: tuple[str, ...] = ()
    tile_growth: Mapping[str, int] | None = None
    _fit_cache: dict[Config, tuple[str, ...]] = field(default_factory=dict, compare=False, repr=False)

    def __post_init__(self) -> None:
        names = [k.name for k in self.knobs]
        if len(set(names)) != len(names):
            raise ValueError(f"knob names repeat: {names}")

    # ------------------------------------------------------------------ basic facts

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(k.name for k in self.knobs)

    def knob(self, name: str) -> Knob:
        for k in self.knobs:
            if k.name == name:
                return k
        raise KeyError(name)

    @property
    def raw_size(self) -> int:
        """Configurations before the fit rule: the product of the knobs' choices (:meth:`choices`)."""
        return math.prod(len(self.choices(k)) for k in self.knobs)

    def computed(self, name: str) -> bool:
        """The knob ``name`` is computed from the problem (:attr:`KnobOrigin.from_problem`)."""
        return name in self.origins and self.origins[name].from_problem

    def choices(self, knob: Knob) -> tuple[Value, ...]:
        """What a configuration may give ``knob``: its legal values, and the computation
        (:data:`~kernelopt.tuning.candidate.COMPUTED`) when the kernel computes it from the problem."""
        return (*knob.values, COMPUTED) if self.computed(knob.name) else knob.values

    def default(self) -> Config:
        """Every knob at its default: its current value (a knob computed from the problem: the value the computation
        gives on the primary shape, as a literal; unknown: the middle of its domain)."""
        return Config.of({k.name: k.default for k in self.knobs})

    def current(self) -> Config | None:
        """The configuration the kernel runs now: every knob at its value, a knob the kernel computes from the
        problem (:attr:`KnobOrigin.from_problem`) at :data:`~kernelopt.tuning.candidate.COMPUTED` (the computation,
        a point of its own, never equal to a literal; a move from it sets that knob to a literal around its value
        on the primary shape, the others staying computed); ``None`` when a knob that is not computed has no known
        value."""
        if any(o.value is None and not o.from_problem for o in self.origins.values()):
            return None
        computed = {n: COMPUTED for n, o in self.origins.items() if o.from_problem and n in self.names}
        return self.default().with_values(computed)

    def literal(self, config: Config) -> bool:
        """``config`` gives every knob a value of its own (no knob at the computation, :data:`COMPUTED`)."""
        return not any(is_computed(v) for v in config.values())

    @cached_property
    def fingerprint(self) -> str:
        """A digest of the knobs (names, kinds, values; not their order: a launch written with its keywords
        in another order is the same space) and the fit rules: the key of a session record."""
        knobs = sorted([k.name, k.kind.value, list(k.values)] for k in self.knobs)
        doc = {"knobs": knobs, "fit": list(self.fit_rules)}
        return hashlib.sha256(json.dumps(doc, sort_keys=True, default=str).encode()).hexdigest()[:16]

    # ------------------------------------------------------------------ legality and fit

    def illegal(self, config: Mapping[str, Value]) -> list[str]:
        """Why ``config`` is not a configuration of this space's knobs (an unknown or missing knob, a value
        not legal); empty when every knob has a legal value (it may still not fit)."""
        out = [f"unknown knob {n!r}" for n in config if n not in self.names]
        for k in self.knobs:
            if k.name not in config:
                out.append(f"{k.name} missing")
            elif is_computed(config[k.name]):
                if not self.computed(k.name):
                    out.append(f"{k.name} is not computed from the problem")
            elif config[k.name] not in k.values:
                out.append(f"{k.name}={config[k.name]!r} is not one of {list(k.values)}")
        return out

    def problems(self, config: Mapping[str, Value]) -> list[str]:
        """Why ``config`` is not a configuration of this space (:meth:`illegal`, else the fit rule's
        reasons); empty when it is one."""
        return self.illegal(config) or list(self.fit_problems(Config.of(config)))

    def fit_problems(self, config: Config) -> tuple[str, ...]:
        """Why the legal ``config`` cannot run (the fit rule's reasons, cached)."""
        if self.fit is None:
            return ()
        got = self._fit_cache.get(config)
        if got is None:  # the computation fits as its value on the primary shape does
            got = tuple(
                self.fit(config.with_values({k.name: k.default for k in self.knobs if is_computed(config[k.name])}))
            )
            self._fit_cache[config] = got
        return got

    def fits(self, config: Config) -> bool:
        return not self.fit_problems(config)

    # ------------------------------------------------------------------ size, enumeration, draws

    def configs(self) -> Iterator[Config]:
        """Every fit-pruned configuration, in the knobs' order (only sensible when :attr:`raw_size` is small;
        up to :data:`ENUMERATE_LIMIT` raw configurations the list is kept)."""
        if self.raw_size <= ENUMERATE_LIMIT:
            yield from self._enumerated
            return
        yield from self._enumerate()

    @cached_property
    def _enumerated(self) -> tuple[Config, ...]:
        return tuple(self._enumerate())

    def _enumerate(self) -> Iterator[Config]:
        for combo in itertools.product(*(self.choices(k) for k in self.knobs)):
            c = Config.of(dict(zip(self.names, combo, strict=True)))
            if self.fits(c):
                yield c

    @cached_property
    def size(self) -> SpaceSize:
        """The number of fit-pruned configurations: counted up to :data:`ENUMERATE_LIMIT` raw ones, else
        estimated from :data:`ESTIMATE_DRAWS` seeded random draws (``exact`` False)."""
        if self.raw_size <= ENUMERATE_LIMIT:
            return SpaceSize(sum(1 for _ in self.configs()), exact=True)
        rng = random.Random(0)
        hits = sum(self.fits(self.draw(rng)) for _ in range(ESTIMATE_DRAWS))
        return SpaceSize(max(1, round(self.raw_size * hits / ESTIMATE_DRAWS)) if hits else 0, exact=False)

    def draw(self, rng: random.Random) -> Config:
        """One configuration, each knob drawn uniformly (fit not checked); a knob computed from the problem is
        at the computation in :data:`COMPUTED_SHARE` of the draws (its author's rule, often the only value correct
        at every size, weighs as much as all its literals together)."""
        return Config.of(
            {
                k.name: COMPUTED if self.computed(k.name) and rng.random() < COMPUTED_SHARE else k.random(rng)
                for k in self.knobs
            }
        )

    def sample(
        self, rng: random.Random, n: int, exclude: set[Config] | frozenset[Config] = frozenset()
    ) -> list[Config]:
        """Up to ``n`` distinct random fit-pruned configurations not in ``exclude``.

        Uniform over the fit-pruned space (rejection sampling); fewer than ``n`` come back only when
        :data:`SAMPLE_TRIES` draws per configuration found no new one (a space nearly used up).
        """
        out: list[Config] = []
        seen = set(exclude)
        for _ in range(n * SAMPLE_TRIES):
            if len(out) == n:
                break
            c = self.draw(rng)
            if c not in seen and self.fits(c):
                seen.add(c)
                out.append(c)
        return out

    # ------------------------------------------------------------------ moves

    def neighbours(self, config: Config) -> list[Config]:
        """The fit-pruned configurations one knob one step away (single moves), in knob order."""
        out = []
        for k in self.knobs:
            for v in k.neighbours(config[k.name]):
                c = config.with_values({k.name: v})
                if self.fits(c):
                    out.append(c)
        return out

    def paired_neighbours(self, config: Config) -> list[Config]:
        """The fit-pruned configurations two knobs one step each away (paired moves: a larger tile with
        more warps, a longer M tile with a shorter N one)."""
        out = []
        for a, b in itertools.combinations(self.knobs, 2):
            for va in a.neighbours(config[a.name]):
                for vb in b.neighbours(config[b.name]):
                    c = config.with_values({a.name: va, b.name: vb})
                    if self.fits(c):
                        out.append(c)
        return out

    def block_knobs(self) -> frozenset[str]:
        """The knobs that size a block or a tile (discovery's categories ``block_size`` or ``tiling``); empty for a
        space from a sweep, whose knobs carry no category."""
        return frozenset(n for n, o in self.origins.items() if set(o.categories) & _BLOCK_CATEGORIES)

    def larger_tiles(self, config: Mapping[str, Value], than: Mapping[str, Value]) -> bool:
        """Whether every tile of ``config`` is at least ``than``'s: each block knob that grows the tiles at least
        ``than``'s, each that shrinks them (a divisor: ``tl.arange(0, BLOCK // SPLIT)``) at most, and every other knob
        the same (a block knob that spans no tile of the kernel's body, or whose direction is not known, included:
        :meth:`tile_way`), launch options (``num_warps``, ``num_stages``, ...) aside: the bounds this decides on are
        measured at one pipeline stage in Triton's interpreter, which ignores them. A bound its tiles broke,
        ``config``'s break too (the shared memory of a ``tl.dot``'s operand tiles grows with each tile). ``False``
        for a space with no block knob, and where a block knob is computed from the problem in either (no one value
        to compare)."""
        blocks = self.block_knobs()
        if not blocks:
            return False
        for name in self.names:
            a, b = config.get(name), than.get(name)
            way = self.tile_way(name) if name in blocks else 0
            if way != 0:
                if not (is_number(a) and is_number(b)) or (a - b) * way < 0:
                    return False
            elif name not in LAUNCH_OPTIONS and a != b:
                return False
        return True

    def tile_way(self, name: str) -> int:
        """How the kernel's tiles move as the knob ``name`` grows (:attr:`tile_growth` of the name and of the kernel
        parameters it feeds): ``+1``, ``-1``, or ``0`` when the names disagree, span no tile, or are not known;
        ``+1`` when the kernel was not read (``tile_growth`` is ``None``)."""
        if self.tile_growth is None:
            return 1
        origin = self.origins.get(name)
        names = {name, *(origin.feeds if origin is not None else ())}
        ways = {self.tile_growth[n] for n in names if n in self.tile_growth}
        return ways.pop() if len(ways) == 1 else 0

    def encode(self, config: Config) -> list[float]:
        """``config`` as a vector in [0, 1]^knobs for a model (each knob's :meth:`Knob.encode`)."""
        return [k.encode(config[k.name]) for k in self.knobs]

    def distance(self, a: Config, b: Config) -> int:
        """Steps between two configurations: the sum over knobs of their positions' differences."""
        return sum(abs(k.index(a[k.name]) - k.index(b[k.name])) for k in self.knobs)
