"""Knob families, legal steps, and which action category may move which knob (pure).

A *knob* is a tunable literal of the kernel (``num_warps=4``, ``BLOCK_SIZE = 1024``, ``num_stages=2``),
found by :func:`kernelopt.tunables.discover`. This module names the family of a knob from its name (for
step sizes and directions) and gives the next legal value up or down. Which category may move which
knob is not decided here: :func:`may_move` asks the tunables' own tables (the knob's categories from
discovery, :data:`kernelopt.tunables.model.PLAN_KNOB_CATEGORIES`), the ones the rule-based implementer
applies, for the rule planner and plan validation alike (a plan whose knobs belong to two different
categories is two actions in disguise).

Legal ranges (sources): Triton requires power-of-two block shapes for ``tl.arange`` (Triton language
docs, ``triton.language.arange``); ``num_warps`` is a power of two up to 32 (Triton compiler options;
1024 threads per block on NVIDIA, CUDA C Programming Guide, "Compute Capabilities"); ``num_stages`` >= 1
(Triton ``Config``); AMD ``waves_per_eu`` is 0 (compiler default) to 8 per SIMD on CDNA3 (AMD ROCm docs,
"Optimizing Triton kernels"). Upper ends of block and tile sizes are kept conservative (tiles of 256,
1-D blocks of 65536 elements) because larger ones exceed shared memory or registers on every GPU we know.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from enum import StrEnum

from kernelopt.actions import ActionCategory
from kernelopt.numeric import is_int
from kernelopt.tunables.model import expresses


class KnobFamily(StrEnum):
    """What a knob controls, read from its name."""

    NUM_WARPS = "num_warps"
    NUM_STAGES = "num_stages"
    BLOCK = "block"  # 1-D block size (elements per program): BLOCK, BLOCK_SIZE, XBLOCK, RBLOCK
    TILE_M = "tile_m"
    TILE_N = "tile_n"
    TILE_K = "tile_k"
    GROUP = "group"  # GROUP_SIZE_M: L2 rasterization group
    SPLIT_K = "split_k"
    WAVES_PER_EU = "waves_per_eu"
    THREADS = "threads"  # CUDA threads per block constant
    OTHER = "other"


_PATTERNS: tuple[tuple[re.Pattern[str], KnobFamily], ...] = (
    (re.compile(r"^num_?warps$", re.I), KnobFamily.NUM_WARPS),
    (re.compile(r"^num_?stages$", re.I), KnobFamily.NUM_STAGES),
    (re.compile(r"^waves_?per_?eu$", re.I), KnobFamily.WAVES_PER_EU),
    (re.compile(r"^(split_?k|splitk|num_?splits?)$", re.I), KnobFamily.SPLIT_K),
    (re.compile(r"^group(_size)?_?m$|^group_size$", re.I), KnobFamily.GROUP),
    (re.compile(r"^(threads(_per_block)?|block_?dim|num_?threads|tpb)$", re.I), KnobFamily.THREADS),
    (re.compile(r"^block(_size)?_?m$|^bm$|^tile_?m$", re.I), KnobFamily.TILE_M),
    (re.compile(r"^block(_size)?_?n$|^bn$|^tile_?n$", re.I), KnobFamily.TILE_N),
    (re.compile(r"^block(_size)?_?k$|^bk$|^tile_?k$", re.I), KnobFamily.TILE_K),
    (re.compile(r"^([xyzr]?block|block(_size)?(_[a-z]+)?|[xyzr]_?block)$", re.I), KnobFamily.BLOCK),
)

# Inclusive legal ranges per family (powers of two unless noted in _LINEAR).
_RANGE: dict[KnobFamily, tuple[int, int]] = {
    KnobFamily.NUM_WARPS: (1, 32),
    KnobFamily.NUM_STAGES: (1, 8),
    KnobFamily.BLOCK: (16, 65536),
    KnobFamily.TILE_M: (16, 256),
    KnobFamily.TILE_N: (16, 256),
    KnobFamily.TILE_K: (16, 256),
    KnobFamily.GROUP: (1, 64),
    KnobFamily.SPLIT_K: (1, 64),
    KnobFamily.WAVES_PER_EU: (0, 8),
    KnobFamily.THREADS: (32, 1024),
}
_LINEAR = frozenset({KnobFamily.NUM_STAGES, KnobFamily.WAVES_PER_EU})
#: Families that move by one (not by powers of two).
LINEAR_FAMILIES = _LINEAR


def family(name: str) -> KnobFamily:
    """The family of knob ``name`` (``"BLOCK_SIZE_M"`` -> ``TILE_M``); ``OTHER`` when unknown."""
    bare = name.rsplit(".", 1)[-1].strip()
    for pattern, fam in _PATTERNS:
        if pattern.match(bare):
            return fam
    return KnobFamily.OTHER


def legal(fam: KnobFamily, value: int) -> bool:
    """True when ``value`` is a legal setting of a knob of family ``fam`` (see the module docstring)."""
    if fam not in _RANGE:
        return False
    lo, hi = _RANGE[fam]
    if not lo <= value <= hi:
        return False
    return fam in _LINEAR or (value > 0 and value & (value - 1) == 0)


def family_values(fam: KnobFamily) -> tuple[int, ...] | None:
    """Every legal setting of a knob of family ``fam``, ascending (``None`` for ``OTHER``: no known range).

    Powers of two over the family's range, or every integer of it for the linear families
    (``num_stages``, ``waves_per_eu``); the ranges and their sources are the module docstring's.
    """
    if fam not in _RANGE:
        return None
    lo, hi = _RANGE[fam]
    if fam in _LINEAR:
        return tuple(range(lo, hi + 1))
    return tuple(v for v in (1 << i for i in range(hi.bit_length())) if lo <= v <= hi)


def step(fam: KnobFamily, value: int, direction: int, ratio: int = 2) -> int | None:
    """The next legal value of a knob ``direction`` (+1 up, -1 down), or ``None`` at the edge.

    Powers of two move by ``ratio`` (2: double or halve, one step; 4: two steps at once), stopping at
    the edge of the legal range; a value off the power-of-two grid moves to the next grid point.
    ``num_stages`` and ``waves_per_eu`` move by one whatever ``ratio`` says. An L2 group of 1 (no
    grouping) jumps to 8, the value of Triton's matmul tutorial, since 2 barely changes the tile order.

    Raises:
        ValueError: ``ratio`` is not a power of two >= 2.
    """
    if ratio < 2 or ratio & (ratio - 1):
        raise ValueError(f"a knob step ratio must be a power of two >= 2, not {ratio}")
    if fam not in _RANGE or direction not in (1, -1):
        return None
    lo, hi = _RANGE[fam]
    if fam in _LINEAR:
        new = value + direction
    elif fam is KnobFamily.GROUP and value == 1 and direction == 1:
        new = 8
    elif value <= 0:
        return None
    elif value & (value - 1) == 0:
        new = min(value * ratio, hi) if direction == 1 else max(value // ratio, lo)
    else:  # not a power of two: go to the neighbouring power of two
        low = 1 << (value.bit_length() - 1)
        new = low * 2 if direction == 1 else low
    return new if new != value and legal(fam, new) else None


def knob_categories(name: str) -> tuple[ActionCategory, ...] | None:
    """The action categories tunable discovery gives a knob named ``name`` (``None``: not a known knob).

    The one source is :func:`kernelopt.tunables.knobs.knob_rule`, the table discovery itself uses.
    """
    from kernelopt.tunables.knobs import knob_rule

    rule = knob_rule(name.rsplit(".", 1)[-1].strip())
    return tuple(rule[0]) if rule is not None else None


def may_move(category: ActionCategory, name: str, categories: tuple[ActionCategory, ...] | None = None) -> bool:
    """True when a plan of ``category`` may move the knob ``name`` (whose discovered categories are
    ``categories``, else those its name gives): :func:`kernelopt.tunables.model.expresses`, the table
    the rule-based implementer applies. An unknown knob moves for no category."""
    cats = categories if categories is not None else knob_categories(name)
    return cats is not None and expresses(category, cats)


@dataclass(frozen=True)
class Knob:
    """A tunable the planner may move.

    Attributes:
        name: the knob's name as the kernel spells it (``num_warps``, ``BLOCK_SIZE``).
        value: its current value: an integer, a literal of another type (a float, a string), or ``None`` when
            it is computed and no run told its value. Only integer knobs get single moves (:meth:`move`); every
            knob is a target of a tuning session, which reads values from the kernel itself.
        location: ``kernel.py:<line>`` where it is set, when known.
        allowed: the values the tunable accepts, when discovery knows them (``None``: use :func:`legal`).
        categories: the action categories tunable discovery says move this knob (``None``: those its
            name gives, :func:`knob_categories`); a plan of category C may move it only when
            :func:`kernelopt.tunables.model.expresses` agrees, as the rule-based implementer checks.
        computed: the source line the value is computed by (``block = triton.next_power_of_2(n_cols)``), when
            it is computed from the problem: ``value`` is then only what one run read (the first ``SHAPES``
            entry's), never the setting to restore.
    """

    name: str
    value: int | float | str | bool | None
    location: str | None = None
    allowed: tuple[int, ...] | None = None
    categories: tuple[ActionCategory, ...] | None = None
    computed: str | None = None

    def serves(self, category: ActionCategory) -> bool:
        """True when a plan of ``category`` may move this knob (:func:`may_move`)."""
        return may_move(category, self.name, self.categories)

    @property
    def numeric(self) -> bool:
        """True when the value is a known integer (single moves and rankings need one)."""
        return is_int(self.value)

    @property
    def family(self) -> KnobFamily:
        return family(self.name)

    def move(self, direction: int, ratio: int = 2) -> int | None:
        """The legal value ``direction`` away by ``ratio`` (see :func:`step`), or ``None`` (also for a knob
        whose value is not a known integer)."""
        if not self.numeric:
            return None
        assert isinstance(self.value, int)
        new = step(self.family, self.value, direction, ratio)
        if new is None or (self.allowed is not None and new not in self.allowed):
            return None
        return new
