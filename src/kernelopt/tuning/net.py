"""The net behind the rules: the kernel ``tune`` is about to write, checked at sizes ``SHAPES`` does not name.

DESIGN.md, "Shapes": what tuning writes must stay correct at every size the original handled. The rules of
:mod:`kernelopt.tunables.guard` and :mod:`kernelopt.tunables.blocks` decide how a pick is written (plainly, guarded,
or not at all); each of their 29 fixes (docs/faults.md, v1-v29) was a form they misread first. This is the net under
them: before the write, the written kernel runs at a few sizes derived from the ``SHAPES`` entries the session ran
(:func:`derived_sizes`), each only where the original kernel (kernel.py as the user wrote it) passes there, with its
floating-point inputs and the outputs its ``run()`` allocates with ``torch.empty`` / ``torch.empty_like`` in the
middle of NaN (:mod:`kernelopt.harness.fences`: a read past an end reads NaN, a write past it is seen), an integer
or boolean output in the middle of a value the reference's outputs do not hold, an ``empty`` one filled with it (an
element left unwritten is seen; net12). A size the
original refuses (its assert, a reference that cannot build it, a wrong result of its own) is skipped, with its
reason; a size where the written kernel fails and the original passes keeps the pick from being written
(:func:`cast`; the original runs only where the written kernel fails).

The sizes move the keys that are sizes, together, a try with fewer keys moved when the original refuses the first.
Which keys are sizes is read from how ``get_inputs`` uses them (:func:`kernelopt.harness.sizekeys.key_roles`): a
tensor dimension moves; a seed, a divisor of a dimension (``hidden // heads``) or a multiplier stays the primary's;
an exponent (``1 << log_n``) moves by one in the past size, by two in the power size, a rung at a time in the far
size; a key the text cannot follow (``**kwargs``, another module's function, ``run()`` itself: ``return [x, chunk]``,
v65) moves when its largest value is above 1, one handed to ``run()`` kept at its largest in a size's last tries (a
code ``run()`` asserts is 10 or 20). A string key that is a size moves each of its numbers (``"4x1000"``); with no
key to move, reference.py's module-level sizes move (:func:`kernelopt.harness.sizes.module_sizes`: ``N = 4096``,
``input_shape = (4, 1000)``, substituted as it runs). A key kept that the entries give different values (a layout
flag, ``transposed`` 0 and 1; a mode; a dtype; a divisor, ``heads`` 4 and 1), not a seed, is a layout each: every
size is derived once with each of its values, taken in turn (:func:`layout_keys`; wrongkernel20's v83 and v84, a
transposed input's kernel and one head's checked at their own entry only).

- **past**: one past the power of two at or above the largest entry (``100 -> 129``, ``60 -> 65``, ``512 -> 513``):
  above every entry and odd, so a multiple of no tile above 1 and past any one block a pick that passes the entries
  may cover. Its second try moves only the keys some entry gives an odd or twice-odd value (the others kept at
  their largest): a size a kernel's ``assert K % 16 == 0`` refuses still moves its rows.
- **half**: the largest entry plus half a power of two: first half the smallest tile the pick grows (``BLOCK`` 128 ->
  256 over entries of 4096 and 8192 columns: ``8320``), then half the largest power of two every entry is a multiple
  of (``256, 512 -> 640``; ``32, 64 -> 80``): a multiple of every tile up to that half, of no larger one; a key some
  entry gives an odd value stays at its largest. Last, where it is :data:`FORMAT_GRAIN` or more, that whole power of
  two past (``128 -> 256``): where the format allows only its multiples (a quantization block of 128 columns), every
  half step is refused, and a pick that passes the entries can still be wrong at the next multiple (breaker11).

- **below**: each tensor dimension (by :func:`~kernelopt.harness.sizekeys.key_roles`, never a key the text cannot
  follow) at its smallest entry halved and made odd, then halved (``64 -> 33, 32``: an original asserting a power of
  two refuses the first), at least 1, the other keys at their smallest: a table row under every entry (``if n_cols <=
  64: BLOCK = 64``, wrong at 32 columns; docs/faults.md v36).
- **floor**: where the pick grows a tile or moves one the kernel computes (together only, down to 1, where it shrinks
  one: a path for short rows that reads the tile, ``rows = BLOCK_SIZE // 64`` packed a program, divides by zero at 32;
  wrongkernel20's v87), the tensor dimensions (with the keys handed
  to ``run()`` above :data:`SMALL_KEY`, an exponent less one a rung; the module-level sizes where they are what
  moves) together, then each alone where there are two or more, at a quarter of their smallest entry, an eighth, ...
  made odd (the plain halving where the original refuses the odd one, then that rounded to the entries' power of two,
  then the divisors of the entries' common factor below it, largest first, at most :data:`FLOOR_DIVISOR_TRIES`:
  break18 b22's ``n % 10``, v77's ``n % 1000``), the other keys at their smallest, down to the original's smallest
  grown tile (a computed one: down to 1), the written kernel run at each rung while it passes, down to the first
  rung the original refuses: a larger block that asks more of the size (``assert triton.cdiv(n,
  BLOCK) >= 8``, ``BLOCK = 1024`` of 256: raising from 7168 elements down, which the original runs down to 1793)
  fails a rung between the two floors (wrongkernel18's v70, b17 on the H100: the size below the smallest entry of
  32768 was 16385, the pick's own floor below it; v71 over a module-level ``N``, v72 a chunk handed to ``run()``,
  v73 rows whose columns the original refuses below the entries, v74 ``1 << log_n``).
- **ones**: a tensor dimension every entry gives 1 (batch-1 decoding's one row) moved to :data:`ONE_MOVED_TO`, the
  rest at their largest: a buffer padded to the block, right while there is one row (v40). Neither for module-level
  sizes (netgaps11).
- **below_one**: where there are two dimensions or more, each alone at its smallest entry halved and made odd, then
  halved, the rest at their largest: a table row under every entry wrong only where another dimension is large (rows
  a program set for short rows, the grid still counting the original's: right at ``below``'s one row; net12). Last,
  so the time cap cuts them first.
- **quarter**: each size key whose entries' common factor is a multiple of :data:`QUARTER_MIN`, moved a quarter of
  that factor past its largest entry (``256, 512 -> 576``; ``1536, 3072 -> 3456``): a size the original's own grain
  allows where a product of tiles (``cdiv(n, BLOCK * UNROLL)``, a loop stepping by ``BLOCK * UNROLL``) or a step
  times a count of splits no longer divides; every other size steps by powers of two (wrongkernel12's v41, v42 and
  v46 passed them all). After every other size but the power size, so the cap cuts it first.
- **between**: where the pick is a table by size, each entry below the largest taken as the past and half sizes take
  the largest (``16384 -> 16385``, ``20480``): the first sizes the table's next row serves (wrongkernel19's v81).
  First of all (derived after the past and half sizes, whose tries it does not take again).

Where the pick is a table by size, the sizes its own rows serve (every key at most its largest entry) run first, the
between sizes leading, the rest in the order below; then those above the largest entry, where the original's
computation serves: a size no larger than an entry costs what the entries' check bounds, one above may cost a request's
whole limit (gpunet20: on an H100 the past size ``2**24 + 1`` took the 60 s limit, and the net's cap with it, before
the between size ran, and v81's table was written wrong at 16385).
- **tail**: where the pick grows or shrinks a tile, the keys together one below the power of two at or above their
  largest entry (``8192 -> 8191``), then that power less 2, 4, ... up to the entries' grain: every power-of-two block's
  longest rest (wrongkernel19's v78, v79: the rest after whole blocks in one masked block of another knob). After the
  divisor sizes, before the far ones.
- **power**: each key a power of two in every entry (and above :data:`SMALL_KEY` or a tensor dimension, or an
  exponent), alone at four times its largest, else twice (:data:`POWER_STEPS`; an exponent moved by two, else one),
  the rest at their largest: an original that allows only powers of two (``assert n & (n - 1) == 0``) refuses
  every size above, and a pick can be wrong only past the next power of two (v44: ``tl.reshape(x, (BLOCK // N,
  N))`` with ``BLOCK=256``, right at rows of 64, 128 and 256, wrong from 512; v61: a router's 2 and 4 experts).
  One key at a time: four times each alone is fewer elements than every key at once (a GEMM's three keys: 12 times
  the largest entry against 64). A try whose own footprint passes the far sizes' room is not run (:meth:`FarRoom.trim`;
  refusals24 u43: a cdist's four times n took 16 times the primary's bytes, and a try past the memory can leave its
  size unchecked for the machine's reason, which refuses the pick). Last of all.

- **residue**: where the pick grows a tile (a knob moved up, or a block computed from a moved launch option) or moves
  a setting the kernel computes, and only where the original refuses the past size's first try (it handles no odd
  size: a grid of ``n // BLOCK`` programs without masks), each size key alone at its largest entry plus half the
  entries' grain, a quarter, ... down to 1, the written kernel run at each step while it passes, down to the first
  step the original refuses: the last step it passes is a multiple of the original's own block ``o`` and of no tile
  above it, so a pick whose tile on that key is larger fails there, whatever the half size's step (n61 on the H100:
  8448 and 8704, multiples of the pick's 256; v52: a 2-D tile whose other block, grown to 8, set the half step to 4;
  v53: a tile computed from two settings, ``TILE = BLOCK * UNROLL``, read as grown by nothing). Then, where two keys
  or more have such a ladder, the keys together at their largest plus half their grains, one key's step halved a
  step (:func:`_joint_steps`), the steps searched by halves (:meth:`_Caster.bisect`): a block that must divide the
  keys' product (v56: ``M * N // BLOCK`` programs over a matrix read flat) is met by no key alone, the others'
  largest entries holding its factors of two. Right after the half size; it takes no other size's tries.
- **divisor**: each key kept because it divides a dimension (``hidden // heads``, ``assert C % G == 0``), with the
  keys it divides, at four times the entry where it is largest, else twice, the quotient kept: a block covering the
  heads or the groups is checked past every entry (:func:`_divisor`; v62, v64).
- **far**: where the pick shrinks a tile or a count (a knob moved down, or a block computed from a moved launch
  option), each size key alone, the rest at their largest, climbing a ladder: twice its largest entry, four times,
  eight, ... (each plus the entries' common factor), the written kernel run at each rung while it passes, up to the
  first the original refuses (its own reach: ``assert n <= 65536``), the memory's room (:class:`FarRoom`: each rung's
  own footprint read on the meta device where it could pass it, within an eighth of the memory free at the start;
  the tune net's too since refusals24's u42, its ladders read before by the primary's bench peak scaled by the
  elements) or, past
  :data:`FAR_SURE_SCALE` times the entries' elements, the time of :data:`FAR_REQUEST_SHARE` (each rung's request
  estimated first): a pick whose fixed count of tiles covers less than
  the original's (v47-v50: 64 partials of a tile halved) is wrong only past its reach, four times the largest entry
  and more, where no other size goes (wrongkernel14). Each integer module-level size of reference.py climbs its own
  ladder the same way, the keys at their largest (:func:`_far_constants`; wrongkernel16's v60, a row of ``HIDDEN =
  8192``), and where no key moves the module-level sizes' ladders are the far sizes. An exponent key climbs by one a
  rung, its power of two doubled (wrongkernel17's v66: rows ``1 << log_cols`` long scanned in blocks with no carry,
  right at the past and power sizes' one and two past the largest entry, wrong at three). After the power sizes: the
  cap cuts it first.

Each past and half size's last tries are its tries again with every key of at most :data:`SMALL_KEY` kept at its
largest (an activation code, a ``dim``, a stride: moved, the original refuses every try, and the size was skipped
whole).

Under Triton's interpreter each size runs a grid's programs last first (each program id mirrored:
:func:`kernelopt.harness.interpreter.mirrored_programs`), the original's run there too: the entries ran them first to
last, so a kernel right only in that order (split 0 stores, the others add: a race on a GPU; v69) fails there.

They run in the session's own primary bench worker (untimed, never charged to the budget; the size's inputs and
reference built once there, in a request of their own so that a hang is pinned on reference.py or on the kernel, and
kept for the next request), after the pick passed every ``SHAPES`` entry (:func:`kernelopt.tuning.folder.tune_folder`),
within a time cap (:class:`NetCap`: the larger of :data:`NET_FLOOR_S` and :data:`NET_SHARE` of the session's wall
time; a size not run for it is named in the line), each request estimated before it starts, the first from the
entries' own check seconds (:attr:`DerivedSize.scales`, net12), and given at most :data:`HANG_SHARE` of what the cap
has left (netcap20: one request with no reply spent a whole cap). A kernel the net left unchecked where its code is
not the original's is not written (:mod:`kernelopt.tuning.folder`, netcap20). Measured in docs/faults.md ("The net
behind the rules", "net11", "net12") and docs/tuning-engine.md.

torch is imported inside the worker's functions: importing this module does nothing.
"""

from __future__ import annotations

import dataclasses
import functools
import itertools
import math
import re
import time
from collections.abc import Callable, Mapping, Sequence
from enum import StrEnum
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel, ConfigDict, Field

from kernelopt.harness.fences import OUTPUT_FILL, Fences, fenced_outputs, integer_fills, padded, trespassed
from kernelopt.harness.hostmem import is_out_of_memory
from kernelopt.harness.interpreter import mirrored_programs
from kernelopt.harness.sizekeys import KeyReading, KeyRole
from kernelopt.harness.sizes import SizeValue
from kernelopt.numeric import is_int, plain_int
from kernelopt.tuning.candidate import Outcome, machine_outcome
from kernelopt.tuning.checks import (
    STICKY_CUDA_ERRORS,
    LoadedProblem,
    Verdict,
    check_run,
    checked_output,
    first_line,
    load_candidate,
)
from kernelopt.tuning.pace import LEAST_REQUEST_S, WALL_MARGIN_S
from kernelopt.tuning.problem import ProblemShape
from kernelopt.tuning.tail_wall import TailWall

if TYPE_CHECKING:
    from kernelopt.tuning.bench_worker import BenchReady


class SizeClass(StrEnum):
    """Which class of sizes a derived size stands for (see the module docstring)."""

    PAST = "past"
    HALF = "half"
    BELOW = "below"
    FLOOR = "floor"
    ONES = "ones"
    BELOW_ONE = "below_one"
    QUARTER = "quarter"
    TAIL = "tail"
    BETWEEN = "between"
    POWER = "power"
    DIVISOR = "divisor"
    FAR = "far"
    RESIDUE = "residue"
    CONSTANT = "constant"

    @property
    def words(self) -> str:
        return {
            SizeClass.PAST: "one past the power of two at or above the largest entry",
            SizeClass.HALF: "half a power of two past the largest entry",
            SizeClass.BELOW: "below the smallest entry",
            SizeClass.FLOOR: (
                "below the smallest entry, halved again and again (the dimensions together, then each alone) while "
                "the original passes, down to its block"
            ),
            SizeClass.ONES: f"a dimension every entry gives 1 moved to {ONE_MOVED_TO}",
            SizeClass.BELOW_ONE: "one dimension below the smallest entry, the rest at their largest",
            SizeClass.QUARTER: "a quarter of the entries' common factor past the largest entry",
            SizeClass.TAIL: "one below the power of two at or above the largest entry (the longest tail of any block)",
            SizeClass.BETWEEN: "just past an entry below the largest (the first sizes a table's next row serves)",
            SizeClass.POWER: (
                f"a key a power of two in every entry, alone at {POWER_STEPS[0]} (else {POWER_STEPS[1]}) times its "
                "largest"
            ),
            SizeClass.DIVISOR: (
                f"a key that divides a dimension, with what it divides, at {POWER_STEPS[0]} (else {POWER_STEPS[1]}) "
                "times the entry where it is largest"
            ),
            SizeClass.FAR: (
                "a key (or a module-level size) alone doubled past the largest entry while the original passes"
            ),
            SizeClass.RESIDUE: (
                "a key alone, or the keys together, at the largest entry plus a power of two, down to the "
                "original's block"
            ),
            SizeClass.CONSTANT: (
                "a module-level size beside the keys at its value plus one, else plus a power of two, down to the "
                "original's block"
            ),
        }[self]


class DerivedSize(BaseModel):
    """One size of the net: the shapes to try in order (the first the original passes at is the size checked), and
    each try's elements over those of every entry together (``scales``: the product of the keys that move, the
    entries' sum 1; :func:`cast` estimates a request's seconds by it; none: 1 each)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    kind: SizeClass
    tries: tuple[ProblemShape, ...]
    scales: tuple[float, ...] = ()
    bisect: bool = False  # a ladder searched by halves (:meth:`_Caster.bisect`): the joint residue's
    even: bool = False  # cast only where the original refuses the past size's first try (a small key's power size)
    # a far rung's stand-in where reference.py cannot build the rung: its key a plain multiple of its largest entry
    fallbacks: tuple[ProblemShape | None, ...] = ()
    # a floor rung's last stand-in where the original refuses the rung and its fallback (its plain halving): the
    # halving rounded down to a multiple of the entries' power of two (v75: 12500 refused by n % 8, 12480 run)
    rounded: tuple[ProblemShape | None, ...] = ()
    # then the divisors of the entries' common factor below the rung, largest first, at most FLOOR_DIVISOR_TRIES
    # (floor18's v77: n % 1000 == 0 over 100000 and 200000: 3125 and 3104 refused, 2500 refused, 2000 run)
    divisors: tuple[tuple[ProblemShape, ...], ...] = ()
    # the primary entry's elements over every entry's together (the unit of ``scales``): a try's elements over the
    # primary's are its scale over this (:meth:`FarRoom.fits` reads a footprint only where it could pass the room:
    # refusals24 u42, u43); 0: not known
    primary: float = 0.0

    def scale(self, i: int) -> float:
        return self.scales[i] if i < len(self.scales) else 1.0

    def over_primary(self, i: int) -> float:
        """Try ``i``'s elements over the primary entry's; 0 where not known."""
        return self.scale(i) / self.primary if self.primary > 0 and i < len(self.scales) else 0.0


#: The least power of two every entry of a key must be a multiple of for the net's last try, a whole one past the
#: largest entry: a format's step (quantization groups of 32 to 128 values, a kernel's ``assert K % 64 == 0``), where
#: the half steps before it are refused; a smaller one is the entries' chance (60 and 100 share a 4).
FORMAT_GRAIN = 32


FLOOR_DIVISOR_TRIES = 12
"""A floor rung the original refuses, with its halving and that rounded to the entries' power of two, is tried last at
the divisors of the entries' common factor below the halving, largest first, at most this many (for 100000 and 200000
below 3125: 2500, 2000, 1250, 1000, 800, ...): an original asserting ``n % m == 0`` has ``m`` divide every entry, so
the multiples of ``m`` among those divisors reach down to ``m`` itself, where the halvings ran out of twos (3125)
before the pick's floor (break18 b22's ``n % 10``: 2500; floor18's v77, ``n % 1000``: 2000). Bounded so the rung where
a ladder stops costs at most a dozen stand-ins more (fewer: none dividing a size the original refused is asked)."""


def _divisors_below(common: int, most: int, least: int = 1, count: int = FLOOR_DIVISOR_TRIES) -> list[int]:
    """The ``count`` largest divisors of ``common`` from ``least`` to ``most``, largest first."""
    small = [d for d in range(1, math.isqrt(common) + 1) if common % d == 0]
    return sorted({v for d in small for v in (d, common // d) if least <= v <= most}, reverse=True)[:count]


def _divides(a: ProblemShape, b: ProblemShape) -> bool:
    """Whether each size of ``a`` divides ``b``'s (the other values equal): an original refusing ``b`` for a modulus
    (``n % 1000``) or a least size (``cdiv(n, BLOCK) >= 8``), or both, refuses ``a`` too, so the floor never asks."""
    if a.kwargs.keys() != b.kwargs.keys() or a.constants.keys() != b.constants.keys():
        return False
    pairs = [(x[k], y[k]) for x, y in ((a.kwargs, b.kwargs), (a.constants, b.constants)) for k in x]
    return all(u == v or (is_int(u) and is_int(v) and 0 < u <= v and v % u == 0) for u, v in pairs)


def _power_of_two_part(n: int) -> int:
    """The largest power of two dividing ``n`` (``n`` > 0)."""
    return n & -n


QUARTER_MIN = 64
"""The ``quarter`` size moves a key whose entries' common factor is a multiple of this: its quarter is then a multiple
of 16, a step a tile's grain allows (256 and 512 -> 576; 1536 and 3072 -> 3456); 1000 and 3000 get none: our bound."""

POWER_STEPS = (4, 2)
"""The ``power`` size's tries: a key a power of two in every entry at this many times its largest (an exponent moved
by this power of two's exponent), the first the original passes at the size checked: four times first, past the next
power of two above the largest entry (v44, wrong from 512 over rows of 64 and 128), then twice where an original's
bound refuses four times (``assert n <= 256``)."""

SMALL_KEY = 8
"""A key whose largest value over the entries is at most this may be a code rather than a size (an activation's 2,
a ``dim``, a stride, a group count): each size's last tries keep it at its largest (break11's x1)."""

ONE_MOVED_TO = 3
"""Where the ``ones`` size moves a tensor dimension every entry gives 1 (batch-1 decoding's one row): odd, and more
than two, so a row past the second is placed too (netgaps11: padded_rows, v40, wrong only with more than one row)."""

_NUMBER = re.compile(r"\d+")

Slot = tuple[str, int | None]
"""Where a size sits: a ``SHAPES`` key (or a module-level constant) and, in a string (``"4x1000"``) or a tuple
(``input_shape = (4, 1000)``), the index of its number there (``None``: the value itself)."""


@dataclasses.dataclass(frozen=True)
class _Values:
    """The numbers of one ``SHAPES`` key or constant over the entries, by slot, and how to write moved ones back."""

    slots: dict[Slot, list[int]]
    template: tuple[str, ...] | None = None  # a string's parts between its numbers
    tuple_value: tuple[object, ...] | None = None  # a constant's tuple as written


def _key_values(key: str, values: Sequence[object]) -> _Values | None:
    """The slots of a key over the entries: an integer, a tuple of integers (``(4, 1000)``, each of its numbers), or
    a string whose numbers sit in the same text in every entry (``"4x1000"``, ``"8x512"``); ``None`` for anything
    else (a float, a word, strings of other forms, tuples of other lengths)."""
    if plain_int(values[0]) is not None:  # an entry without the key, or with another kind of value there, adds nothing
        return _Values({(key, None): [i for v in values if (i := plain_int(v)) is not None]})
    if isinstance(values[0], tuple | list):  # {"shape": (4, 1000)}: each number, in entries of the same length
        if not all(isinstance(v, tuple | list) and len(v) == len(values[0]) for v in values):
            return None
        if any(plain_int(n) is None for v in values for n in v):  # type: ignore[union-attr]
            return None
        return _Values({(key, i): [v[i] for v in values] for i in range(len(values[0]))}, tuple_value=tuple(values[0]))  # type: ignore[index,arg-type]
    if not all(isinstance(v, str) for v in values):
        return None
    parts = [tuple(_NUMBER.split(str(v))) for v in values]
    numbers = [[int(n) for n in _NUMBER.findall(str(v))] for v in values]
    if not numbers[0] or any(p != parts[0] for p in parts) or max(max(n) for n in numbers) >= 1 << 40:
        return None
    return _Values({(key, i): [n[i] for n in numbers] for i in range(len(numbers[0]))}, template=parts[0])


def _slot_value(value: object, index: int | None) -> int | None:
    """The number at a slot of one entry's value (an integer; a tuple's ``index``-th; a string's ``index``-th
    number)."""
    if index is None:
        return plain_int(value)
    if isinstance(value, tuple | list):
        return plain_int(value[index]) if index < len(value) else None
    numbers = _NUMBER.findall(value) if isinstance(value, str) else []
    return int(numbers[index]) if index < len(numbers) else None


def _constant_values(name: str, value: SizeValue) -> _Values | None:
    """The slots of a module-level size: an integer, or each integer of a tuple (``input_shape = (4, 1000)``)."""
    if plain_int(value) is not None:
        return _Values({(name, None): [int(value)]})  # type: ignore[arg-type]
    if isinstance(value, tuple):
        slots = {(name, i): [v] for i, v in enumerate(value) if plain_int(v) is not None}
        return _Values(slots, tuple_value=value) if slots else None
    return None


def _written(values: _Values, moved: Mapping[Slot, int], first: object) -> object:
    """A key's value with its moved slots written back (``first``: the primary's value, for the slots not moved)."""
    if values.template is not None:
        numbers = [int(n) for n in _NUMBER.findall(str(first))]
        for (_, i), v in moved.items():
            numbers[i if i is not None else 0] = v
        out = values.template[0]
        for n, part in zip(numbers, values.template[1:], strict=True):
            out += f"{n}{part}"
        return out
    if values.tuple_value is not None:
        items = list(values.tuple_value)
        for (_, i), v in moved.items():
            items[i if i is not None else 0] = v
        return tuple(items)
    [v] = moved.values()
    return v


def derived_sizes(
    shapes: Sequence[ProblemShape],
    grown: Sequence[int] = (),
    roles: Mapping[str, KeyReading] | None = None,
    constants: Mapping[str, SizeValue] | None = None,
    *,
    least: bool = False,
    residue: bool = False,
    block: int | None = None,
    far: FarRoom | None = None,
) -> list[DerivedSize]:
    """The net's sizes from the ``SHAPES`` entries a session ran (the primary first): see the module docstring.

    ``least``: the pick is a table by size (``folder._shaped_edit``); each tensor dimension is also tried at 1, the
    other keys at their smallest: a row wider than every size below the entries has the most masked-out lanes to a
    lane of data there (a row max over a zero fill, in a heuristic no rule reads, or lifted by lanelift11's evidence:
    harmless at 200 columns of random values, wrong at 4 and at 1: newuser10 n57, n58).

    ``grown``: the values of the knobs the pick moves up (a tile of 256 over an original 128): the half size's first
    try steps by half the smallest one's power of two (the largest entry plus 128), a multiple of what the original's
    tile divides and of no tile the pick grew to, where the entries' own power of two (4096 and 8192) would step past
    a multiple of both.

    ``roles``: what each key is by its use in ``get_inputs`` (:func:`kernelopt.harness.sizekeys.key_roles`): a size
    moves, an exponent moves by one in the past size only (``log_n`` 17 -> 18: twice the largest entry), a key that
    is not a size stays the primary's; a key not read (``None``, or absent) moves when its largest value is above 1
    (a 0/1 key reads as a flag or a mode). A string key that is a size moves each of its numbers (``"4x1000"`` ->
    ``"5x1025"``). ``constants``: reference.py's module-level sizes (:func:`kernelopt.harness.sizes.module_sizes`),
    moved only where no key moves (``SHAPES`` absent, or naming no size: a KernelBench problem's ``batch_size = 16``,
    ``input_shape = (4, 1000)``). Every other key and constant stays the primary's. No size to move: no size.

    ``residue``: the pick grows a tile, or moves one the kernel computes: the ``residue`` sizes (:func:`_residue`),
    after the half size, cast only where the original refuses the past size's first try; and the ``floor`` size
    (:func:`_floor`) after the size below, down to ``block`` (the original's smallest tile the pick grows; ``None``:
    down to 1).

    ``far``: the pick shrinks a tile or a count, and the room a far size may take (:class:`FarRoom`): the ``far``
    sizes, last (:func:`_far`); ``None``: none.

    A key the net keeps at the primary's value that the entries give different values (a layout flag, ``transposed``
    0 and 1; a mode; a dtype; a divisor), not a seed, splits them (:func:`_layouts`): the sizes are derived once
    with each of its values, from every entry (the largest the same), taken in turn size by size: a pick read only on
    the other value's path (a transposed input's kernel) was checked at its own entry alone (wrongkernel20's v83).
    """
    layouts = _layouts(shapes, roles or {}, constants)
    if len(layouts) > 1:
        each = [
            _derived_one([first, *(s for s in shapes if s is not first)], grown, read, constants, least=least,
                         residue=residue, block=block, far=far)
            for first, read in layouts
        ]  # fmt: skip
        out: list[DerivedSize] = []
        for size in (size for sizes in itertools.zip_longest(*each) for size in sizes if size is not None):
            taken = {t.label() for earlier in out for t in earlier.tries}
            if not {t.label() for t in size.tries} <= taken:  # the divisor size's, from each layout alike: once
                out.append(size)
        return out
    return _derived_one(shapes, grown, roles, constants, least=least, residue=residue, block=block, far=far)


def layout_keys(
    shapes: Sequence[ProblemShape], readings: Mapping[str, KeyReading], constants: Mapping[str, SizeValue] | None
) -> list[str]:
    """The keys the net would keep at the primary's value (neither moved nor a seed) that the entries give different
    values: each value is a layout of its own (:func:`derived_sizes`). A divisor is one too (v84: ``heads`` 4 and 1,
    one head a kernel of its own): the divisor size moves it only up, past its largest entry. Where reference.py's
    module-level sizes are what moves, every key of the entries is kept, and one they give different values is a
    layout alike (break20 b33: ``N_ROWS = 64`` beside ``SHAPES = [{"transposed": 0}, {"transposed": 1}]`` took
    every size row-major, and v83's wrong ``BLOCK_K=32`` was written again). A key ``get_inputs`` takes through
    ``**kwargs``, which the text cannot follow, is one too where it is not moved (break20 b37: ``transposed`` read as
    ``opts.get("transposed")`` had no reading, and every size ran row-major), and one that only some entries name,
    the others taking ``get_inputs``' default (break20 b40: ``{"n_rows": 16, "n_cols": 512}`` beside ``{...,
    "transposed": 1}``: the keys were read from the primary entry alone)."""
    mover = _Mover.of(shapes, readings, constants)
    if mover is None:
        return []
    moved = {slot[0] for slot in mover.moving}
    return [
        k
        for k in dict.fromkeys(k for s in shapes for k in s.kwargs)  # one an entry leaves out too (b40)
        if k not in moved
        and ((r := readings.get(k)) is None or r.why != "a seed")
        and len({repr(s.kwargs.get(k)) for s in shapes}) > 1
    ]


def code_keys(
    shapes: Sequence[ProblemShape], readings: Mapping[str, KeyReading], constants: Mapping[str, SizeValue] | None
) -> list[str]:
    """The keys the net moves that may be codes rather than sizes, which the entries give different integers: one
    handed to ``run()`` as a plain value (``op`` 1 and 2, a softmax's code and a log-softmax's; an activation's 10 and
    20), or one the text cannot follow of at most :data:`SMALL_KEY` at every entry. A size moves them from their
    largest, an original refuses a code moved, and each size's last tries keep it at its largest: a value below it is
    a layout of its own, the key held there (:func:`derived_sizes`; v85, v86). A key ``get_inputs`` takes through
    ``**kwargs`` has no reading and is read as one the text cannot follow (break20 b41: v85's ``op`` as
    ``kw.get("op", 1)`` ran every size but those below the entries at op 2)."""
    mover = _Mover.of(shapes, readings, constants)
    if mover is None or mover.on_constants:
        return []
    moved = {slot[0] for slot in mover.moving if slot[1] is None and slot not in mover.exponents}
    values = {k: [s.kwargs.get(k) for s in shapes] for k in moved}
    return [
        k
        for k in shapes[0].kwargs
        if k in moved
        and (
            ((r := readings.get(k)) is not None and r.role in (KeyRole.PASSED, KeyRole.UNKNOWN))
            or (r is None and bool(readings))  # no reading where the text gave others: through **kwargs (b41)
        )
        and all(is_int(v) and int(v) >= 0 for v in values[k])  # type: ignore[arg-type]
        and ((r is not None and r.role is KeyRole.PASSED) or max(values[k]) <= SMALL_KEY)  # type: ignore[type-var]
        and len(set(values[k])) > 1
    ]


def _layouts(
    shapes: Sequence[ProblemShape], readings: Mapping[str, KeyReading], constants: Mapping[str, SizeValue] | None
) -> list[tuple[ProblemShape, Mapping[str, KeyReading]]]:
    """The first entry of each value the entries give the :func:`layout_keys`, the primary first, with ``readings``;
    then for each of the :func:`code_keys` the first entry of each value below its largest, the key held there."""
    keys = layout_keys(shapes, readings, constants)
    firsts: dict[str, ProblemShape] = {}
    for s in shapes:
        firsts.setdefault(repr([s.kwargs.get(k) for k in keys]), s)
    out: list[tuple[ProblemShape, Mapping[str, KeyReading]]] = [(s, readings) for s in firsts.values()]
    for k in code_keys(shapes, readings, constants):
        held = {**readings, k: KeyReading(KeyRole.KEPT, "a code")}
        values = {int(s.kwargs[k]): s for s in reversed(shapes)}  # type: ignore[arg-type]
        out += [(values[v], held) for v in sorted(values) if v < max(values)]
    return out


def _derived_one(
    shapes: Sequence[ProblemShape],
    grown: Sequence[int],
    roles: Mapping[str, KeyReading] | None,
    constants: Mapping[str, SizeValue] | None,
    *,
    least: bool,
    residue: bool,
    block: int | None,
    far: FarRoom | None,
) -> list[DerivedSize]:
    """:func:`derived_sizes` with the primary's kept keys."""
    mover = _Mover.of(shapes, roles or {}, constants)
    if mover is None:
        return []
    out = _past_and_half(mover, grown)
    if mover.on_constants:  # the module-level sizes are what moves: their floor and far ladders too
        floors = _floor(mover, block) if residue or far is not None else []
        floors += _floor_one(mover, block) if residue else []
        tails = _tail(mover) if residue or far is not None else []
        return out + floors + tails + (_far(mover, far) if far is not None else [])
    between = _between(mover, shapes, roles or {}, constants, grown) if least else []
    out += _residue(mover) if residue else []
    floor = _floor(mover, block) if residue or far is not None else []  # v87: a shrunk tile's small sizes too
    out += _below(mover, least) + floor + _ones(mover) + _below_one(mover)
    out += (_floor_one(mover, block) if residue else []) + _quarter(mover) + _power(mover)
    out += _divisor(mover, shapes, roles or {}) + (_tail(mover) if residue or far is not None else [])
    out += _far(mover, far) + _far_constants(mover, far) if far is not None else []
    out += _constant_steps(mover) if residue else []
    if not least:
        return out
    # a table by size: first the sizes its own rows serve, the between sizes leading, each no larger than an entry (the
    # entries' check bounds its cost); then those above the largest entry, where the original's computation serves, at
    # whatever that costs (gpunet20: on an H100 the past size 2**24 + 1 took a request's whole 60 s, and the net's cap
    # with it, before the between size ran, and the table was written wrong at 16385)
    served = [s for s in out if mover.within(s.tries[0])]
    return between + served + [s for s in out if not mover.within(s.tries[0])]


@dataclasses.dataclass
class _Mover:
    """What :func:`derived_sizes` moves and how: the slots that move over the entries (``sizes``: each one's
    positive values; ``moving``: those of more than 1, or an exponent; ``dims``: the tensor dimensions by
    ``get_inputs``' text), the keys (or module-level constants) that own them, and the tries taken so far
    (``seen``: the entries' largest, then each size's; the sizes from ``below`` on take none again, :meth:`fresh`)."""

    base: ProblemShape
    owners: dict[str, _Values]
    sizes: dict[Slot, list[int]]
    moving: list[Slot]
    dims: list[Slot]
    exponents: set[Slot]
    constants: Mapping[str, SizeValue] | None
    on_constants: bool
    passed: set[Slot]  # handed to run() as plain values: kept in a size's last tries
    largest: dict[Slot, int] = dataclasses.field(init=False)
    common: dict[Slot, int] = dataclasses.field(init=False)  # the entries' common factor: the half, quarter steps
    grain: dict[Slot, int] = dataclasses.field(init=False)  # its power of two
    entries: int = 1  # the elements of every entry together (:meth:`elements`)
    seen: list[ProblemShape] = dataclasses.field(default_factory=list)

    def __post_init__(self) -> None:
        self.largest = {k: max(self.sizes[k]) for k in self.moving}
        self.common = {k: math.gcd(*self.sizes[k]) for k in self.moving}
        self.grain = {k: _power_of_two_part(c) for k, c in self.common.items()}

    @classmethod
    def of(
        cls,
        shapes: Sequence[ProblemShape],
        readings: Mapping[str, KeyReading],
        constants: Mapping[str, SizeValue] | None,
    ) -> _Mover | None:
        """The keys of ``shapes`` that move by their ``readings`` (else reference.py's module-level ``constants``);
        ``None`` when none does."""
        if not shapes:
            return None
        base = shapes[0]
        keyed: dict[str, _Values] = {}
        for k, v in base.kwargs.items():
            reading = readings.get(k)
            role = reading.role if reading is not None else KeyRole.UNKNOWN
            if role is KeyRole.KEPT or (isinstance(v, str) and role is not KeyRole.SIZE):
                continue
            got = _key_values(k, [s.kwargs.get(k) for s in shapes])
            if got is not None:
                keyed[k] = got
        exponents = {(k, None) for k, r in readings.items() if r.role is KeyRole.EXPONENT and k in keyed}
        sizes = {slot: [v for v in vs if v > 0] for got in keyed.values() for slot, vs in got.slots.items()}
        moving = [slot for slot, vs in sizes.items() if vs and (max(vs) > 1 or slot in exponents)]
        # the tensor dimensions by get_inputs' text (never a key the text cannot follow): the sizes below and of ones
        dims = [slot for slot, vs in sizes.items() if vs and (r := readings.get(slot[0])) and r.role is KeyRole.SIZE]
        owners: dict[str, _Values] = dict(keyed)
        on_constants = False
        if not moving and constants:
            consts = {name: got for name, v in constants.items() if (got := _constant_values(name, v)) is not None}
            sizes = {slot: [v for v in vs if v > 0] for got in consts.values() for slot, vs in got.slots.items()}
            moving = [slot for slot, vs in sizes.items() if vs and max(vs) > 1]
            owners, on_constants = consts, True
        if not moving and not dims:
            return None
        passed = {slot for slot in sizes if (r := readings.get(slot[0])) and r.role is KeyRole.PASSED}
        mover = cls(base, owners, sizes, moving, dims, exponents, constants, on_constants, passed)
        unmoved = mover.shape({})
        mover.entries = len(shapes) * mover.elements(unmoved) if on_constants else sum(map(mover.elements, shapes))
        mover.seen.append(unmoved)
        return mover

    def elements(self, s: ProblemShape) -> int:
        """The product of the keys that move at ``s`` (an exponent's power of two), less those handed to ``run()`` as
        plain values (a chunk length: no tensor grows with it)."""
        values = s.constants if self.on_constants else s.kwargs
        n = 1
        for slot in (k for k in self.moving if k not in self.passed):
            v = _slot_value(values.get(slot[0]), slot[1])
            n *= (1 << v if slot in self.exponents else v) if v is not None and v > 0 else 1
        return n

    def within(self, s: ProblemShape) -> bool:
        """Whether every moving slot of ``s`` is at most its largest entry: a size a table by size serves by a row it
        writes (above the largest entry, the original's computation serves)."""
        values = s.constants if self.on_constants else s.kwargs
        return all((v := _slot_value(values.get(k[0]), k[1])) is None or v <= self.largest[k] for k in self.moving)

    def sized(self, kind: SizeClass, tries: Sequence[ProblemShape]) -> DerivedSize:
        """A size of ``tries``, each weighed by its elements over the entries' (:attr:`DerivedSize.scales`)."""
        scales = tuple(self.elements(t) / self.entries for t in tries)
        return DerivedSize(kind=kind, tries=tuple(tries), scales=scales, primary=self.primary_elements() / self.entries)

    def primary_elements(self) -> int:
        """The primary entry's elements of the moving keys (its module-level sizes reference.py's own where it sets
        none: no size scale): what the room's primary bytes are of (:class:`FarRoom`)."""
        return self.elements(self.seen[0] if self.on_constants else self.base)

    def shape(self, moved: Mapping[Slot, int]) -> ProblemShape:
        """The primary entry with every moving slot at its largest, ``moved`` at theirs."""
        at = {**{k: self.largest[k] for k in self.moving}, **moved}
        values: dict[str, object] = {}
        for name, got in self.owners.items():
            mine = {slot: v for slot, v in at.items() if slot[0] == name}
            if mine:
                first = self.constants[name] if self.on_constants and self.constants else self.base.kwargs.get(name)
                values[name] = _written(got, mine, first)
        base = self.base
        if self.on_constants:
            return ProblemShape(kwargs=dict(base.kwargs), constants={**base.constants, **values})  # type: ignore[dict-item]
        return ProblemShape(kwargs={**base.kwargs, **values}, constants=dict(base.constants))  # type: ignore[dict-item]

    def tries(self, *moves: dict[Slot, int | None]) -> list[ProblemShape]:
        """The shapes of ``moves`` (a move of ``None`` left out), then their fallbacks: the same moves with the small
        keys kept (a mode, a dim, a stride: an original refuses them moved, and the size would be skipped whole;
        docs/faults.md x1), then with the keys handed to ``run()`` as plain values kept too (a code of 10 or 20); each
        once, none the entries' largest."""

        def large(k: Slot) -> bool:
            return self.largest[k] > SMALL_KEY or k in self.exponents

        keeps = (lambda k: True, large, lambda k: large(k) and k not in self.passed)
        made = [self.shape({k: v for k, v in m.items() if v is not None and keep(k)}) for keep in keeps for m in moves]
        unmoved = self.seen[0]
        return [s for i, s in enumerate(made) if s != unmoved and s not in made[:i]]

    def fresh(self, tries: Sequence[ProblemShape]) -> list[ProblemShape]:
        """``tries`` less the shapes an earlier size took and those repeated, now taken."""
        new = [t for i, t in enumerate(tries) if t not in self.seen and t not in tries[:i]]
        self.seen += new
        return new


def _past_and_half(mover: _Mover, grown: Sequence[int]) -> list[DerivedSize]:
    """The ``past`` and ``half`` sizes (the module docstring); ``grown``: as :func:`derived_sizes`'."""
    largest, grain, exponents, moving = mover.largest, mover.grain, mover.exponents, mover.moving
    tile = min((_power_of_two_part(v) for v in grown if v > 1), default=None)

    def past(k: Slot) -> int:
        return largest[k] + 1 if k in exponents else (1 << (largest[k] - 1).bit_length()) | 1

    def half(k: Slot) -> int | None:
        step = min(grain[k], tile) if tile else None
        return largest[k] + step // 2 if step is not None and step >= 2 and k not in exponents else None

    past_tries = mover.tries(
        {k: past(k) for k in moving}, {k: past(k) for k in moving if grain[k] <= 2 or k in exponents}
    )
    half_moves = {k: largest[k] + grain[k] // 2 for k in moving if grain[k] >= 2 and k not in exponents}
    half_tries = [h for h in mover.tries({k: half(k) for k in moving}, half_moves) if h not in past_tries]
    # last, a whole grain past: a size the format allows where every half step is refused (DeepSeek-V3's fp8 GEMM at
    # N = K = 128, its quantization block: 129 and 192 refused, BLOCK_SIZE_K = 256 passed the entries, wrong at 256)
    whole = mover.tries({k: largest[k] + grain[k] for k in moving if grain[k] >= FORMAT_GRAIN and k not in exponents})
    half_tries += [w for w in whole if w not in past_tries and w not in half_tries]
    mover.seen += [*past_tries, *half_tries]
    out = [mover.sized(SizeClass.PAST, past_tries)] if past_tries else []
    return out + ([mover.sized(SizeClass.HALF, half_tries)] if half_tries else [])


def _between(
    mover: _Mover,
    shapes: Sequence[ProblemShape],
    roles: Mapping[str, KeyReading],
    constants: Mapping[str, SizeValue] | None,
    grown: Sequence[int],
) -> list[DerivedSize]:
    """The ``between`` sizes of a table by size: each entry below the largest taken as the past and half sizes take
    the largest (one past its power of two, ``16384 -> 16385``; half a power of two past it, ``20480``), the first
    sizes the table's next row serves. A row is timed and checked at its own entry only, and every other size sits
    above the largest entry or below the smallest: wrongkernel19's v81, ``if n <= 16384: BLOCK = 256`` / ``elif n <=
    262144: BLOCK = 8192`` over ``assert triton.cdiv(n, BLOCK) >= 8``, raised from 16385 elements to 57344, which the
    original's computed block runs, and passed every size of the net."""
    out = []
    for shape in shapes:
        entry = _Mover.of([shape], roles, constants)
        if entry is None or entry.on_constants or entry.shape({}) == mover.seen[0]:
            continue
        for size in _past_and_half(entry, grown):
            tries = mover.fresh(size.tries)
            out += [mover.sized(SizeClass.BETWEEN, tries)] if tries else []
    return out


def _residue(mover: _Mover) -> list[DerivedSize]:
    """The ``residue`` sizes, cast only where the original refuses the past size's first try (it handles no odd size:
    a grid of ``n // BLOCK`` programs without masks): each key alone at its largest entry plus half the entries' grain,
    a quarter, ... down to 1, the rest at their largest, descended while the written kernel passes
    (:meth:`_Caster.ladder`): the first step the original passes at is its own block ``o`` (a multiple of it, and of
    no tile above it), where a pick whose tile on that key is larger fails whatever the other keys' tiles and however
    the tile is made (n61: a block computed from ``num_warps``, the half size stepped by the entries' 1024; v52: a 2-D
    tile whose other key's grown block halved the half size's step; v53: a tile computed from two settings, not read
    as grown). Where two keys or more have one, the joint residue follows (:func:`_joint_steps`, searched by halves:
    :meth:`_Caster.bisect`). Its tries are no other size's: it is cast only for such originals."""
    out = []
    unmoved = mover.seen[0]
    keys = [
        k for k in mover.moving if k not in mover.exponents and mover.grain[k] >= 2 and mover.largest[k] > SMALL_KEY
    ]
    for k in keys:
        grain = mover.grain[k]
        steps = [grain >> j for j in range(1, grain.bit_length())]  # grain/2, grain/4, ..., 1
        tries = [t for t in (mover.shape({k: mover.largest[k] + d}) for d in steps) if t != unmoved]
        if tries:
            out.append(mover.sized(SizeClass.RESIDUE, tries))
    joint = [mover.shape({k: mover.largest[k] + d for k, d in step.items()}) for step in _joint_steps(mover, keys)]
    return out + ([mover.sized(SizeClass.RESIDUE, joint).model_copy(update={"bisect": True})] if joint else [])


def _joint_steps(mover: _Mover, keys: Sequence[Slot]) -> list[dict[Slot, int]]:
    """The joint residue's steps where two keys or more have a residue size: every such key at its largest entry plus
    half its grain, then one key's step halved at a time (the largest step first), down to 1 each: the product of the
    keys' residues loses one factor of two a step, so a kernel needing a block to divide the product (a grid of
    ``M * N // BLOCK`` programs over a matrix read flat, no masks; wrongkernel15's v56) meets, between the original's
    block and a grown one, a step it fails and the original passes, where no key alone moves the product off the
    grown block's multiples (the others' largest entries hold its factors of two). Three keys of grain 1024 make 28
    steps; the caster searches them by halves (:meth:`_Caster.bisect`: at most 9 requests, not 29)."""
    if len(keys) < 2:
        return []
    step = {k: mover.grain[k] >> 1 for k in keys}
    out = [dict(step)]
    while any(d > 1 for d in step.values()):
        k = max(keys, key=lambda k: step[k])
        step[k] >>= 1
        out.append(dict(step))
    return out


def _constant_steps(mover: _Mover) -> list[DerivedSize]:
    """The ``constant`` sizes, last of all (``residue`` on): each integer module-level size of reference.py (above
    :data:`SMALL_KEY`) where ``SHAPES`` keys move, alone, the keys at their largest: its value plus one, then, where
    the original refuses that too, plus half its power of two, a quarter, ... down to 2 (:meth:`_Caster.ladder`).
    The other sizes move the keys only, so a tile that must divide such a size was never checked past it
    (wrongkernel14's v54: ``HIDDEN = 1024`` in reference.py, rows of it a ``SHAPES`` key, a loop stepping by ``BLOCK``
    over the row without masks; ``BLOCK=512`` passed every size and was wrong at the 1280 columns the original's 256
    handled). Each integer of a tuple alone too (wrongkernel15's v57: the row ``FEATURES = (2, 1024)``'s last item)."""
    out = []
    for v, at in _constant_items(mover):
        grain = _power_of_two_part(v)
        steps = [1] + [grain >> j for j in range(1, grain.bit_length() - 1)]  # 1, then grain/2 ... 2
        out.append(mover.sized(SizeClass.CONSTANT, [at(v + d) for d in steps]))
    return out


def _constant_items(mover: _Mover) -> list[tuple[int, Callable[[int], ProblemShape]]]:
    """Each integer module-level size of reference.py above :data:`SMALL_KEY` (each integer of a tuple alone): its
    value, and the shape with every key at its largest and that size (that item) moved to a value
    (:func:`_constant_at`)."""
    unmoved = mover.shape({})
    out = []
    for name, value in (mover.constants or {}).items():
        for i, item in enumerate(value if isinstance(value, tuple) else [value]):
            v = plain_int(item)
            if v is not None and v > SMALL_KEY:
                out.append((v, functools.partial(_constant_at, unmoved, name, value, i)))
    return out


def _constant_at(unmoved: ProblemShape, name: str, value: SizeValue, i: int, new: int) -> ProblemShape:
    """``unmoved`` with the module-level size ``name`` (its item ``i``, a tuple's) at ``new``."""
    moved = (*value[:i], new, *value[i + 1 :]) if isinstance(value, tuple) else new
    return unmoved.model_copy(update={"constants": {**unmoved.constants, name: moved}})


_HALVES = (lambda v: (v // 2) | 1, lambda v: v // 2)
"""A dimension's smallest entry halved and made odd, then halved (a power of two an original asserts)."""


def _lows(mover: _Mover) -> list[Slot]:
    """The tensor dimensions that move: those the sizes below the smallest entry move."""
    return [k for k in mover.dims if k in mover.moving]


def _below(mover: _Mover, least: bool) -> list[DerivedSize]:
    """The ``below`` size: below the smallest entry (a table's row under every entry: v36's ``if n_cols <= 64: BLOCK
    = 64``, wrong at 32), each dimension's smallest value halved (:data:`_HALVES`), the keys that are not dimensions
    at their smallest; at least 1. ``least``: then each dimension at 1 alone, a table row's most masked-out lanes."""
    smallest = {k: min(mover.sizes[k]) for k in mover.moving}
    lows = _lows(mover)
    below = [mover.shape({**smallest, **{k: max(1, halve(smallest[k])) for k in lows}}) for halve in _HALVES]
    below = mover.fresh(below) if lows else []
    out = [mover.sized(SizeClass.BELOW, below)] if below else []
    if least:
        ones_at = mover.fresh([mover.shape({**smallest, k: 1}) for k in lows if smallest[k] > 1])
        out += [mover.sized(SizeClass.BELOW, [a]) for a in ones_at]
    return out


def _floor(mover: _Mover, block: int | None) -> list[DerivedSize]:
    """The ``floor`` size (a tile grown or computed): the dimensions together below the smallest entry (with the keys
    handed to ``run()``, or the module-level sizes where they are what moves, above :data:`SMALL_KEY`), each a quarter
    of it, an eighth, ... made odd (the plain halving where the original or reference.py refuses the odd one:
    :attr:`DerivedSize.fallbacks`), the other keys at their smallest, down to ``block`` (the original's smallest tile
    the pick grows; ``None``: down to 1), descended while the written kernel passes and stopped where the original
    refuses both (:meth:`_Caster.ladder`): a pick whose larger block asks more of the size (``assert cdiv(n, BLOCK)
    >= 8``, a ``BLOCK=1024`` of 256 that raises from 7168 elements down, which the original runs down to 1793) fails
    a rung between the two floors, however far below the entries (wrongkernel18's v70, b17 on the H100: the size below
    the smallest entry of 32768 was 16385). Below the original's block every kernel runs one program a row."""
    return _floor_ladder(mover, _floor_keys(mover), block)


def _at(items: Sequence[ProblemShape | None], i: int) -> ProblemShape | None:
    """``items[i]``, ``None`` past its end (a size's stand-ins for its tries)."""
    return items[i] if i < len(items) else None


def _floor_one(mover: _Mover, block: int | None) -> list[DerivedSize]:
    """The ``floor`` sizes of each dimension alone where there are two or more (:func:`_floor_keys`), the others at
    their smallest entry, after the size below one: where the original refuses the dimensions moved together (rows of
    a multiple of 64 columns: 17 and 16 refused), the rows' floor is met alone (wrongkernel18's v73: ``BLOCK_M=128``
    of 32 over at least 4 programs of rows, raising from 384 rows down, which the original runs down to 97)."""
    keys = _floor_keys(mover)
    return [d for k in keys for d in _floor_ladder(mover, [k], block)] if len(keys) > 1 else []


def _floor_keys(mover: _Mover) -> list[Slot]:
    """What a floor moves: the tensor dimensions, an exponent of one (``1 << log_n``: by one a rung), and the keys
    handed to ``run()`` above :data:`SMALL_KEY` (a chunk); where the module-level sizes are what moves, those above it
    (``N = 32768``)."""
    large = [k for k in mover.moving if min(mover.sizes[k]) > SMALL_KEY and k not in mover.exponents]
    if mover.on_constants:
        return large
    exponents = [k for k in mover.moving if k in mover.exponents and min(mover.sizes[k]) >= 1]
    return _lows(mover) + exponents + [k for k in large if k in mover.passed]


def _floor_ladder(mover: _Mover, keys: Sequence[Slot], block: int | None) -> list[DerivedSize]:
    """One floor size: ``keys`` together at a quarter of their smallest entry, an eighth, ... made odd (an exponent at
    its smallest less one, two, ...: half the elements, a quarter), each rung's plain halving its fallback (keeping
    the entries' odd factors: 98304 -> 24576, a multiple of 3; v76), then that rounded down to a multiple of the
    entries' power of two, at most the halving's own (:attr:`DerivedSize.rounded`: entries of 100000 and 200000 halve
    to 12500, which an original asserting ``n % 8 == 0`` refuses, and 12480 it runs; v75), then the divisors of the
    entries' common factor below the halving, largest first, none below ``block`` (:attr:`DerivedSize.divisors`:
    2500, 2000, ... below 3125, a multiple of 1000 among them; v77), keys together at their divisors of the same rank;
    the other keys at their smallest, down to ``block`` (see :func:`_floor`)."""
    smallest = {k: min(mover.sizes[k]) for k in mover.moving}
    exponents = mover.exponents

    def at(k: Slot, rung: int) -> int:  # the key's value at a rung, before it is made odd; below 1 (0 for an exponent)
        return smallest[k] - rung if k in exponents else smallest[k] >> (rung + 1)

    def plain(k: Slot, v: int) -> int:
        return max(0, v) if k in exponents else max(1, v)

    def rounded(k: Slot, v: int) -> int:  # a multiple of the entries' power of two, up to v's own (v75: 12500 -> 12480)
        if k in exponents or v < 1:
            return plain(k, v)
        step = min(mover.grain[k], 1 << (v.bit_length() - 1))
        return v // step * step

    def divisors(k: Slot, v: int) -> list[int]:  # the entries' common factor's below v, down to the block (v77: 2000)
        ds = [] if k in exponents or v < 1 else _divisors_below(mover.common[k], v, block or 1)
        return ds or [plain(k, v)]

    def elements(k: Slot, v: int) -> int:
        return 1 << v if k in exponents else v

    rungs: list[ProblemShape] = []
    halvings: list[ProblemShape | None] = []
    roundings: list[ProblemShape | None] = []
    dividings: list[tuple[ProblemShape, ...]] = []
    rung = 1  # a half is the size below's
    while keys and any(at(k, rung) >= (0 if k in exponents else 1) for k in keys):
        values = {k: at(k, rung) for k in keys}
        odd = mover.shape({**smallest, **{k: plain(k, v) if k in exponents else v | 1 for k, v in values.items()}})
        even = mover.shape({**smallest, **{k: plain(k, v) for k, v in values.items()}})
        down = mover.shape({**smallest, **{k: rounded(k, v) for k, v in values.items()}})
        lists = {k: divisors(k, v) for k, v in values.items()}
        splits = [
            mover.shape({**smallest, **{k: ds[min(i, len(ds) - 1)] for k, ds in lists.items()}})
            for i in range(max(len(ds) for ds in lists.values()))
        ]
        if odd not in mover.seen and odd not in rungs:
            rungs.append(odd)
            halvings.append(even if even != odd and even not in mover.seen else None)
            roundings.append(down if down not in (odd, even) and down not in mover.seen else None)
            taken = [odd, even, down, *mover.seen]
            dividings.append(tuple(p for i, p in enumerate(splits) if p not in taken and p not in splits[:i]))
        if block is not None and all(elements(k, plain(k, v)) <= block for k, v in values.items()):
            break
        rung += 1
    mover.seen += rungs + [p for p in [*halvings, *roundings, *(p for ps in dividings for p in ps)] if p is not None]
    if not rungs:
        return []
    sized = mover.sized(SizeClass.FLOOR, rungs)
    stand_ins = {"fallbacks": tuple(halvings), "rounded": tuple(roundings), "divisors": tuple(dividings)}
    return [sized.model_copy(update=stand_ins)]


def _ones(mover: _Mover) -> list[DerivedSize]:
    """The ``ones`` size: the dimensions every entry gives 1 moved to :data:`ONE_MOVED_TO` together (batch-1's one row:
    v40's buffer padded to the block, wrong at 3 rows); taken whatever the sizes before took."""
    ones = [k for k in mover.dims if max(mover.sizes[k]) == 1]
    return [mover.sized(SizeClass.ONES, [mover.shape({k: ONE_MOVED_TO for k in ones})])] if ones else []


def _below_one(mover: _Mover) -> list[DerivedSize]:
    """The ``below_one`` sizes, last but for the quarter and power (the cap cuts them first): each dimension below
    its smallest entry alone, the rest at their largest: a table row under every entry that is wrong only where
    another dimension is large (net12's m3: rows a program set for short rows, the grid still counting the
    original's; the size below moves them together and passes)."""
    lows = _lows(mover)
    out = []
    for k in lows if len(lows) > 1 else []:
        smallest = min(mover.sizes[k])
        alone = mover.fresh([mover.shape({k: max(1, halve(smallest))}) for halve in _HALVES])
        if alone:
            out.append(mover.sized(SizeClass.BELOW_ONE, alone))
    return out


def _quarter(mover: _Mover) -> list[DerivedSize]:
    """The ``quarter`` size: a quarter of the entries' common factor past the largest (3456 beside 1536 and 3072; 576
    beside 256 and 512): a size the original's own grain allows where a product of tiles (v41, v42), or a step times a
    count of splits (v46), no longer divides; the past and half sizes step by powers of two and missed all three."""
    quarter = {
        k: mover.largest[k] + c // 4
        for k, c in mover.common.items()
        if c % QUARTER_MIN == 0 and k not in mover.exponents
    }
    fourth = mover.fresh(mover.tries(quarter)) if quarter else []
    return [mover.sized(SizeClass.QUARTER, fourth)] if fourth else []


def _tail(mover: _Mover) -> list[DerivedSize]:
    """The ``tail`` size: the size keys together one below the power of two at or above their largest entry (``8192
    -> 8191``, ``100 -> 127``), where every power-of-two block up to it leaves its longest tail, a block less one;
    where the original refuses it (``assert n % 128 == 0``), that power of two less 2, 4, ... up to the entries'
    grain (``8064``: the longest tail a grain of 128 allows), the first the original passes the size checked. Every
    other size leaves a tail of 1 (past), of half a block or none (wrongkernel19's v78 and v79: whole blocks of
    ``BLOCK`` without masks, then the rest in one masked block of another knob, ``TAIL``: ``BLOCK=256`` or ``TAIL=64``
    of 128 passed every other size and was wrong where the rest is longer than ``TAIL``). After the divisor sizes,
    before the far ones; only where the pick grows or shrinks a tile (``residue``, ``far``)."""

    def below(k: Slot, grain: int) -> int | None:
        power = 1 << (mover.largest[k] - 1).bit_length()
        return power - grain if 2 * grain < power else None  # never down to half the power: an entry's grain

    keys = [k for k in mover.moving if k not in mover.exponents]
    most = max((mover.grain[k] for k in keys), default=1).bit_length()
    moves = [{k: below(k, min(1 << j, mover.grain[k])) for k in keys} for j in range(most)]
    tails = mover.fresh(mover.tries(*moves)) if keys else []
    return [mover.sized(SizeClass.TAIL, tails)] if tails else []


def _power(mover: _Mover) -> list[DerivedSize]:
    """The ``power`` sizes, last: each key a power of two in every entry alone at four times its largest, else twice,
    the rest at their largest: an original that allows only powers of two refuses every size above (v44's rows of N
    reshaped from a block, ``tl.reshape(x, (BLOCK // N, N))``: BLOCK=256 over rows of 64 and 128 is wrong from 512,
    past the next). A key of at most :data:`SMALL_KEY` moves so where ``get_inputs`` makes it a tensor dimension and
    the original refuses the past size's first try (``even``: it handles no odd size, so every size before kept the
    small key at its largest; wrongkernel16's v61: a router's 2 and 4 experts in one block of 4 without their
    original's 8, wrong at 8 experts, which the original's power-of-two assert allows). An original that handles odd
    sizes met the small key moved at the past size already."""
    out = []
    for k in mover.moving:
        largest, exponent = mover.largest[k], k in mover.exponents
        small = largest <= SMALL_KEY and not exponent
        if small and k not in mover.dims and k not in mover.passed:  # a small key run() is handed: v68's chunk of 4
            continue
        if not (exponent or all(v & (v - 1) == 0 for v in mover.sizes[k])):
            continue
        up = [largest + n.bit_length() - 1 if exponent else largest * n for n in POWER_STEPS]
        ladder = mover.fresh([mover.shape({k: v}) for v in up])
        if ladder:
            out.append(mover.sized(SizeClass.POWER, ladder).model_copy(update={"even": small}))
    return out


def _divisor(mover: _Mover, shapes: Sequence[ProblemShape], roles: Mapping[str, KeyReading]) -> list[DerivedSize]:
    """The ``divisor`` sizes, after the power sizes: each key kept because it divides a dimension
    (:attr:`~kernelopt.harness.sizekeys.KeyReading.dividends`: ``heads`` of ``hidden // heads``, ``G`` of ``assert C %
    G == 0``), with the keys it divides, at four times the entry where it is largest, else twice
    (:data:`POWER_STEPS`), the other keys as in that entry: the quotient is kept, so a reference that needs the
    division exact builds it, and a block covering the key is checked past every entry (wrongkernel16's v62: a
    QK-norm's 4 and 8 heads in one block of 8 beside its original's 16, wrong from 9 heads; v64: a group norm's 4 and
    8 groups, handed to ``run()``; no other size moved them)."""
    out = []
    for k, reading in roles.items():
        values = [plain_int(s.kwargs.get(k)) for s in shapes]
        if not reading.dividends or not all(v is not None and v > 0 for v in values):
            continue
        entry = shapes[max(range(len(shapes)), key=lambda i: values[i] or 0)]
        over = [d for d in reading.dividends if plain_int(entry.kwargs.get(d)) is not None]
        tries = [
            ProblemShape(
                kwargs={**entry.kwargs, **{n: int(entry.kwargs[n]) * f for n in (k, *over)}},  # type: ignore[call-overload]
                constants=dict(entry.constants),
            )
            for f in POWER_STEPS
        ]
        tries = mover.fresh(tries)
        if tries:
            out.append(mover.sized(SizeClass.DIVISOR, tries))
    return out


FAR_STEP = 2
"""The ``far`` size's rungs: the largest entry of a key times this, then its square, its cube, ... (each plus the
entries' common factor: a size the entries' own grain allows, past the one a rung reaches exactly). Two, not more:
between the last rung the original passes (``R``) and the first it refuses (``2R``) lies its reach ``max``; a pick
whose fixed count of tiles reaches ``max / 2`` or less (a tile halved, v47-v50) is wrong at ``R``, which is above
``max / 2``; a ladder of fours could step over the whole wrong range."""

FAR_REQUEST_SHARE = 0.1
"""A ``far`` rung runs only when its request is estimated at most this share of the net's time cap (3 s at the cap's
floor of 30 s), and at most :data:`FAR_ENTRY_CHECKS` times the written kernel's check on every entry, and ends within
the cap: the ladder's requests grow geometrically, so all its rungs take about twice its last (our choice: a net
whose other sizes took their usual 0.1-5 s keeps most of its cap)."""

FAR_ENTRY_CHECKS = 2
"""A ``far`` rung's request is estimated at most this many times the written kernel's check on every entry together
(:attr:`EntryTimes.check_s`): the ladder costs a few checks of the entries, whatever the cap (our choice)."""

FAR_SURE_SCALE = 4.0
"""A ``far`` rung holding at most this many times the elements of every entry together runs whatever its request is
estimated at (within the cap's deadline): the admission by time compares a request's seconds now with the entries'
check, taken at another moment, and on a loaded machine it skipped v55's rung at 32776 elements (2.9 times its
entries'), where the plain pick is wrong (2026-12-06). The catches of v47-v50, v55 and v60 are all within it (1.7-3.3
times); such rungs together cost a few checks of the entries (our choice)."""

FAR_ROOM_SHARE = 8
"""A ``far`` rung holds at most this share of the memory free when the session started: its bench worker's peak
(:data:`kernelopt.tuning.problem.BENCH_MEMORY_FACTOR` times its inputs and outputs: the rung's own, read on the meta
device, where the room has :attr:`FarRoom.footprints`, else the primary's scaled by its elements) at most
``free / FAR_ROOM_SHARE`` (our choice: the machine is shared, and the session's own workers hold
the primary beside it)."""

INT32_ELEMENTS = 2**31 - 1
"""No ``far`` rung moves a key past this many elements of the moving keys: a kernel whose offsets are ``int32`` is
wrong past it whatever the pick (the original as much; an int64 offset is a hunt of its own)."""


FOOTPRINT_GROWTH_POWER = 3
"""A far rung or a power try is read by its footprint only where its bytes, taken as the primary's times its elements
over the primary's to this power, could pass the room (:meth:`FarRoom.may_pass`): no tensor grows faster than the cube
of the elements (a cdist's n x n output grows as their square). Elsewhere it cannot pass, and the meta read (1-4 s at
a worker's first use on a loaded CPU) is spared (our bound; refusals24 u42, u43)."""


class FarRoom(BaseModel):
    """What a ``far`` size may take (:func:`derived_sizes`' ``far``): the bench worker's peak at the primary entry
    (``primary_bytes``: :attr:`kernelopt.tuning.problem.MemoryNeed.bench_bound_bytes`) and the memory free when the
    session started (``free_bytes``); the time is the caster's (:data:`FAR_REQUEST_SHARE`)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    primary_bytes: int = Field(ge=0)
    free_bytes: int = Field(ge=0)
    # the most elements a rung holds over every entry's together (None: the caster's time admission alone): the code
    # net's rungs stop at FAR_SURE_SCALE, a few checks of the entries (leftovers23 l31)
    most_scale: float | None = Field(default=None, gt=0)
    # each rung's own footprint, bytes (the bench worker's peak there, read on the meta device; None: not read, and
    # why), in place of the primary's bytes an element: an output growing as the square of the sizes (a torch.cdist)
    # took about the square of what the linear reading allowed (late33 z100); None: the linear reading. The tune
    # net's too, and its power size's tries (refusals24 u42, u43)
    footprints: Callable[[Sequence[ProblemShape]], list[tuple[int | None, str | None]]] | None = Field(
        default=None, exclude=True
    )

    @classmethod
    def of(
        cls,
        ready: BenchReady | None,
        most_scale: float | None = None,
        footprints: Callable[[Sequence[ProblemShape]], list[tuple[int | None, str | None]]] | None = None,
    ) -> FarRoom | None:
        """The room read from the bench worker that checks every size of the net (its peak at the primary entry and
        the memory free when it started), ``most_scale`` and ``footprints`` (that worker's reading of a size's own
        footprint: :meth:`kernelopt.tuning.kernel_evaluator.KernelEvaluator.footprints`); ``None`` before it
        started."""
        if ready is None:
            return None
        bound = ready.need.bench_bound_bytes
        room = cls(primary_bytes=bound, free_bytes=ready.free_bytes, most_scale=most_scale)
        return room if footprints is None else room.model_copy(update={"footprints": footprints})

    def most_elements(self, entries: float) -> int:
        """The most elements of the moving keys a rung may hold (:data:`INT32_ELEMENTS`, and ``most_scale`` times
        ``entries``, every entry's elements together)."""
        if self.most_scale is None:
            return INT32_ELEMENTS
        return min(INT32_ELEMENTS, int(self.most_scale * entries))

    def trimmed(self, size: DerivedSize) -> DerivedSize | None:
        """:meth:`trim`'s size."""
        return self.trim(size)[0]

    def trim(self, size: DerivedSize) -> tuple[DerivedSize | None, str | None]:
        """The tries of ``size`` that run by :meth:`fits`, and the line where a far ladder stops at a rung whose
        footprint could not be read: a ``far`` size's rungs (growing) before the first that does not fit (late33
        z100; :func:`cast` reads them one at a time as the ladder climbs, :meth:`_Caster.ladder`), a ``power`` size's
        tries (four times a key, else twice) each that fits (refusals24 u43: a cdist's four times n took 16 times
        the primary's bytes). ``None`` where none is left; any other size as it is."""
        if size.kind not in (SizeClass.FAR, SizeClass.POWER):
            return size, None
        keep: list[int] = []
        line = None
        for i in range(len(size.tries)):
            fits, line = self.fits(size, i)
            if fits:
                keep.append(i)
            elif size.kind is SizeClass.FAR:
                break
        if not keep:
            return None, line
        if len(keep) == len(size.tries):
            return size, line
        cut = {
            "tries": tuple(size.tries[i] for i in keep),
            "scales": tuple(size.scales[i] for i in keep) if size.scales else size.scales,
            "fallbacks": tuple(size.fallbacks[i] for i in keep) if size.fallbacks else size.fallbacks,
        }
        return size.model_copy(update=cut), line

    def fits(self, size: DerivedSize, i: int) -> tuple[bool, str | None]:
        """Whether try ``i`` of a ``far`` or ``power`` size runs: where :attr:`footprints` reads its own footprint,
        within ``free / FAR_ROOM_SHARE`` (one not read: a power try runs as before, its elements four times a key's
        at most; a far rung does not, and the line says so: late33 z101), read only where it could pass the room
        (:meth:`may_pass`: the meta read costs 1-4 s at a worker's first use on a loaded CPU); else it runs (the
        linear reading bounded a far size as it was built)."""
        if self.footprints is None or size.kind not in (SizeClass.FAR, SizeClass.POWER):
            return True, None
        if not self.may_pass(size.over_primary(i)):
            return True, None
        [(need, why)] = self.footprints([size.tries[i]])
        if need is None and size.kind is SizeClass.FAR:
            return False, (
                f"far sizes from {size.tries[i].label()} up not run: their memory could not be read on the meta "
                f"device ({why}), and a size may need far more than its elements say (an output growing as their "
                "square)"
            )
        return need is None or self.holds(need), None

    def may_pass(self, over_primary: float) -> bool:
        """Whether a try of ``over_primary`` times the primary's elements may pass ``free / FAR_ROOM_SHARE``: its
        bytes at most the primary's times the cube of that (:data:`FOOTPRINT_GROWTH_POWER`); 0 (not known): it may.
        Where :attr:`most_scale` bounds the rungs (the code net's, a few checks of the entries), every one may: each
        is read, and one whose footprint cannot be read is not run (late33 z101)."""
        if over_primary <= 0 or self.most_scale is not None:
            return True
        grown = max(over_primary, 1.0) ** FOOTPRINT_GROWTH_POWER
        return self.primary_bytes * grown * FAR_ROOM_SHARE > self.free_bytes

    def holds(self, need: int | None) -> bool:
        """A rung of footprint ``need`` (bytes; ``None``: not read) runs: at most ``free / FAR_ROOM_SHARE``."""
        return need is not None and need * FAR_ROOM_SHARE <= self.free_bytes


def _per_element(mover: _Mover, room: FarRoom) -> float:
    """The bench worker's bytes an element of the primary entry (:func:`_far`, :func:`_far_constants`); 0 where it
    holds none, or where the room reads each rung's own footprint (:meth:`FarRoom.trimmed`)."""
    if room.footprints is not None:  # each rung's own footprint bounds it, read as it is cast (FarRoom.fits)
        return 0.0
    primary = mover.primary_elements()
    return room.primary_bytes / primary if primary else 0.0


def _far(mover: _Mover, room: FarRoom) -> list[DerivedSize]:
    """The ``far`` sizes, last of all: each size key alone (the rest at their largest) at :data:`FAR_STEP` times its
    largest entry, then its square, ... (plus the entries' common factor), climbed while the original passes
    (:meth:`_Caster.ladder`), within :data:`FAR_ROOM_SHARE` of the memory, :data:`INT32_ELEMENTS` and the time of
    :data:`FAR_REQUEST_SHARE`: a pick whose fixed count of tiles covers less than the original's is wrong only past
    its reach (v47-v50: a second stage summing at most 64 partials of a tile halved, right at 4 times the largest
    entry, wrong at 4.0001 times; no other size reaches past twice it). An exponent key (``1 << log_cols``) climbs
    by one a rung from its largest entry, its power of two doubled, within the same room (v66)."""
    per_element = _per_element(mover, room)
    most = room.most_elements(mover.entries)
    if per_element > 0:
        most = min(most, int(room.free_bytes / FAR_ROOM_SHARE / per_element))
    at_largest = mover.elements(mover.shape({}))
    out = []
    for k in mover.moving:
        largest, exponent = mover.largest[k], k in mover.exponents
        if largest <= SMALL_KEY and not exponent:
            continue
        # a key handed to run() grows no tensor: its rungs are bounded by the elements alone
        rest = 1 if k in mover.passed else at_largest // (1 << largest if exponent else largest)
        rungs: list[tuple[ProblemShape, ProblemShape | None]] = []
        factor = FAR_STEP
        while exponent and (v := largest + len(rungs) + 1) < INT32_ELEMENTS.bit_length() and rest << v <= most:
            rungs.append((mover.shape({k: v}), None))  # 2 ** key doubled a rung (v66: rows of 2 ** log_cols scanned)
        while not exponent and (v := largest * factor + mover.common[k]) * rest <= most:
            rungs.append((mover.shape({k: v}), mover.shape({k: largest * factor})))
            factor *= FAR_STEP
        ladder = mover.fresh([r for r, _ in rungs])
        plain = {r.label(): f for r, f in rungs if f is not None}  # an earlier size's try too: the ladder climbs on
        if ladder:
            fallbacks = tuple(plain.get(r.label()) for r in ladder)
            out.append(mover.sized(SizeClass.FAR, ladder).model_copy(update={"fallbacks": fallbacks}))
    return out


def _far_constants(mover: _Mover, room: FarRoom) -> list[DerivedSize]:
    """The ``far`` ladders of reference.py's integer module-level sizes (each item of a tuple too, above
    :data:`SMALL_KEY`) where ``SHAPES`` keys move: each alone, the keys at their largest, at :data:`FAR_STEP` times its
    value, then its square, ... (each plus the value), within the room and the elements :func:`_far` allows, the
    tensors taken to grow as the size does. The keys' far ladders never move such a size, so a pick whose fixed count
    of tiles covers less of it than the original's passed every size (wrongkernel16's v60: rows of ``HIDDEN = 8192``
    summed in two stages, 64 partials of a tile halved, right at every size of the net, wrong past 32768 columns)."""
    at_largest = mover.elements(mover.shape({}))
    per_element = _per_element(mover, room)
    out = []
    for v, at in _constant_items(mover):
        tries: list[ProblemShape] = []
        scales: list[float] = []
        factor = FAR_STEP
        while True:
            up = v * factor + v
            elements = at_largest * up / v  # the keys' elements at their largest, grown as the size is
            if (
                at_largest * up > INT32_ELEMENTS
                or elements > room.most_elements(mover.entries)
                or (per_element > 0 and elements * per_element * FAR_ROOM_SHARE > room.free_bytes)
            ):
                break
            tries.append(at(up))
            scales.append(elements / mover.entries)
            factor *= FAR_STEP
        if tries:
            primary = mover.primary_elements() / mover.entries  # read by its footprint where it could pass (u42)
            out.append(DerivedSize(kind=SizeClass.FAR, tries=tuple(tries), scales=tuple(scales), primary=primary))
    return out


def _labels(checks: Sequence[SizeCheck]) -> str:
    """The sizes' labels, as a list in words."""
    return ", ".join(c.shape.label() for c in checks)


def _unchecked_labels(checks: Sequence[SizeCheck]) -> str:
    """The labels of sizes left unchecked (:meth:`SizeCheck.unchecked_label`), as a list in words."""
    return ", ".join(c.unchecked_label() for c in checks)


def _held_reason(check: SizeCheck) -> str | None:
    """What is said beside a size passed: an output not fenced there, or (checked up to a try and stopped) that it was
    checked up to that try and is unchecked past it, and why."""
    if check.passed and check.unchecked:
        return f"checked up to that try, unchecked past it: {check.reason}"
    return check.reason


class SizeCheck(BaseModel):
    """What the net found at one derived size.

    Attributes:
        kind: the size's class.
        shape: the size checked (the try the original passed at), else the last one tried.
        passed: the written kernel passed there (``True``), failed where the original passed or gave no reply
            (``False``, ``original`` says which), or the size was skipped (``None``): the original did not pass at
            any try (``reason`` says why).
        outcome: the written kernel's outcome there (``None`` when skipped).
        reason: the failure's line, or why the size was skipped; beside a pass, an output not fenced there.
        seconds: wall seconds the size took (the original's runs included).
        unchecked: skipped for want of time (not run within the net's cap or the session's wall, or no reply within
            a request's limit), the machine's failure (``machine``) or reference.py's (``rebuilt``), not for the
            original's refusal: whether the original handles the size is not known, and a kernel written beside it
            says so (:attr:`NetVerdict.unchecked`, gpufind19's g3). Beside a pass (a ladder or a search that passed a
            try and then stopped so), the size is checked up to ``shape`` and unchecked past it (leftovers20's l6).
        limit: unchecked for a request's limit (no reply within ``tune --candidate-timeout-s``: the written kernel,
            or reference.py building the size), which a longer wall does not lift (break19's b24).
        machine: unchecked where the written kernel failed and the original's run there failed for the machine's
            reason (its worker died, the host's memory refused, its compile past the limit:
            :func:`~kernelopt.tuning.candidate.machine_outcome`), no refusal of its own (netsafe20).
        rebuilt: unchecked where the written kernel failed and reference.py, which had built the size, did not build
            it again for the original's run, for a reason of its own (it raised there): not time, which a longer wall
            does not cure (leftovers20's l6).
        original: where the written kernel failed, what the original did there: it passed, or it gave no reply within
            the limit (a request's, not a refusal: break19's b23, the written kernel's failure stands).
        served: a size a table by size leaves to the original's computation (above its largest entry): the written
            code there is the original's, and it may stay unchecked (netcap20; marked by the folder, which reads the
            table).
        need_s: unchecked for want of time, the seconds its check is estimated to need (a build and a check request
            at the try not run, each estimated by :func:`_estimate`; a request cut at the net's shortened limit: what
            the cap must have left for its limit to be the whole request limit), what :attr:`NetVerdict.need_s` sums
            (netcap20).
        row: the keyed list's row checked there (its configuration's words), where each row of a table is netted
            alone at the same sizes; ``None`` for a single pick. The line names each row's sizes under it
            (newuser18's n111: "correct at n=16385, n=10008, ..., n=16385, n=10008, ...", every size twice).
    """

    model_config = ConfigDict(extra="forbid")

    kind: SizeClass
    shape: ProblemShape
    passed: bool | None
    outcome: Outcome | None = None
    reason: str | None = None
    seconds: float = 0.0
    unchecked: bool = False
    limit: bool = False
    machine: bool = False
    rebuilt: bool = False
    original: str = "where the original passes"
    need_s: float = 0.0
    served: bool = False  # above a table's largest entry: its original computation runs there (folder marks it)
    row: str | None = None

    def label(self) -> str:
        return f"{self.shape.label()} ({self.kind.words})"

    def unchecked_label(self) -> str:
        """The size as an unchecked one is named: its label, or one checked up to a try, past it."""
        return f"past {self.shape.label()}, checked up to it" if self.passed else self.shape.label()


class NetVerdict(BaseModel):
    """The net's verdict on one written kernel (``not_cast``: why no size was checked; ``kept``: the keys the net
    left at the primary's value, each with why: ``seed (a seed)``)."""

    model_config = ConfigDict(extra="forbid")

    checks: list[SizeCheck] = Field(default_factory=list)
    not_cast: str | None = None
    kept: list[str] = Field(default_factory=list)
    seconds: float = 0.0
    # far rungs not run, each ladder's one line (their footprint could not be read: late33 z101)
    unsized: list[str] = Field(default_factory=list)
    # the written kernel's error compared with the original's at its largest sizes (late35: net_accuracy), one line
    compared: str | None = None
    compared_s: float = 0.0  # the original's runs it took, paid from the session's wall, not the net's cap

    @property
    def failed(self) -> SizeCheck | None:
        return next((c for c in self.checks if c.passed is False), None)

    @property
    def unchecked(self) -> list[SizeCheck]:
        """The sizes skipped with no verdict (:attr:`SizeCheck.unchecked`: for want of time, a request's limit, the
        original's run failing for the machine's reason, reference.py not building the size again), and those checked
        up to a try and unchecked past it, in the net's order."""
        return [c for c in self.checks if c.passed is not False and c.unchecked]

    @property
    def for_time(self) -> list[SizeCheck]:
        """The :attr:`unchecked` sizes left so for want of time (the net's cap, the session's wall, a request cut at
        the net's shortened limit): the ones a longer wall checks."""
        return [c for c in self.unchecked if not c.limit and not c.machine and not c.rebuilt]

    @property
    def need_s(self) -> float:
        """The net's seconds that would check every :attr:`for_time` size too: those it took, and each such size's
        :attr:`SizeCheck.need_s` (netcap20: what the wall that checks them is worked out from)."""
        return self.seconds + sum(c.need_s for c in self.for_time)

    @property
    def changed(self) -> list[SizeCheck]:
        """The :attr:`unchecked` sizes where the written code is not the original's (all but those a table leaves to
        the original's computation, :attr:`SizeCheck.served`): a kernel is not written beside one (netcap20)."""
        return [c for c in self.unchecked if not c.served]

    def unchecked_line(self, sizes: Sequence[SizeCheck] | None = None, longer: str | None = None) -> str | None:
        """What a kernel written beside :attr:`unchecked` sizes (or ``sizes`` of them) says of them, plainly
        (``None``: none): the net checks the written kernel where the rules may misjudge it (docs/faults.md: the rules
        wrote v65-v79, the net failed them), and a size it did not run may be one the original handles. ``longer``:
        what checks those left for want of time, in words (the folder's, from :meth:`NetCap.wall_for`); by default a
        longer wall."""
        sizes = self.unchecked if sizes is None else list(sizes)
        if not sizes:
            return None
        limited, machine = [c for c in sizes if c.limit], [c for c in sizes if c.machine]
        rebuilt = [c for c in sizes if c.rebuilt]
        timed = [c for c in sizes if c in self.for_time]
        longer = longer or "a longer --budget-wall-s (or none)"
        causes, cures = [], []
        for group, cause, cure in (
            (timed, "for want of time", longer),
            (limited, "with no reply within a request's limit", "a longer --candidate-timeout-s"),  # not the wall (b24)
            (machine, "where the original's run failed for the machine's reason", "a rerun on a machine less loaded"),
            (
                rebuilt,
                "where reference.py, which had built the size, failed to build it again for the original's run",
                "reference.py building its inputs there every time (its own failure, which no longer wall cures)",
            ),
        ):
            if group:
                of = "" if causes else f" of its {len(self.checks)} sizes"
                causes.append(f"{len(group)}{of} {cause} ({_unchecked_labels(group)})")
                cures.append(cure)
        where = "it is unchecked there, where the original may run"
        if all(c.served for c in sizes):
            where = "the table runs the original's computation there (above its largest entry), unchanged"
        return (
            f"the net did not check the written kernel at {' and at '.join(causes)}: {where}; {' and '.join(cures)} "
            f"{'checks' if len(cures) == 1 else 'check'} them"
        )

    def line(self) -> str:
        """One line for the user: where the written kernel was checked beyond the ``SHAPES`` entries, and how."""
        kept = f"; kept {', '.join(self.kept)}" if self.kept else ""
        kept += "".join(f"; {line}" for line in self.unsized)
        kept += f"; {self.compared}" if self.compared else ""
        if self.not_cast is not None:
            return f"not checked at sizes the SHAPES entries do not name: {self.not_cast}{kept}"
        bad = self.failed
        if bad is not None:
            return f"the written kernel fails at {bad.label()}, {bad.original}: {bad.outcome}: {bad.reason}"
        rows = list(dict.fromkeys(c.row for c in self.checks if c.row is not None))
        if not rows:
            said = _checked_words(self.checks)
        else:  # a table's rows, each netted alone at the same sizes: each row's under its name
            said = "; ".join(f"{row} {_checked_words([c for c in self.checks if c.row == row])}" for row in rows)
            said = f"each row of the table alone: {said}"
        return f"checked at sizes the SHAPES entries do not name ({self.seconds:.1f} s): {said}{kept}"


ORIGINAL_FAILS = "the original fails there too"
"""What a size's skip reason says where the original failed there as well (:func:`_checked_words` groups them)."""


def _checked_words(checks: Sequence[SizeCheck]) -> str:
    """``correct at A, B; skipped C (why)``: where ``checks`` passed, and which were skipped and why."""
    held = [c.shape.label() + (f" ({_held_reason(c)})" if c.reason else "") for c in checks if c.passed]
    skipped = [c for c in checks if c.passed is None]
    # sizes the original fails at too, grouped past the first: each said whole, a maskless GEMM's eleven made the
    # line 3,000 characters long (fresh26 f42)
    theirs = [c for c in skipped if c.reason and ORIGINAL_FAILS in c.reason]
    if len(theirs) > 1:
        rest = [f"{c.shape.label()} ({c.reason})" for c in skipped if c not in theirs]
        labels = ", ".join(c.shape.label() for c in theirs)
        skipped_words = [
            *rest,
            f"{len(theirs)} sizes where the original fails too ({labels}; the first: {theirs[0].reason})",
        ]
    else:
        skipped_words = [f"{c.shape.label()} ({c.reason})" for c in skipped]
    parts = []
    if held:
        parts.append(f"correct at {', '.join(held)}")
    if skipped_words:
        parts.append(f"skipped {'; '.join(skipped_words)}")
    return "; ".join(parts)


CheckAt = Callable[[str, ProblemShape], tuple[Outcome, str | None]]
"""A kernel source and a size -> its outcome there and the failure's line (the evaluator's
:meth:`~kernelopt.tuning.kernel_evaluator.KernelEvaluator.check_at`)."""

BuildAt = Callable[[ProblemShape], tuple[Outcome, str | None]]
"""A size -> whether reference.py builds it (its inputs and reference output), and why not (the evaluator's
:meth:`~kernelopt.tuning.kernel_evaluator.KernelEvaluator.build_at`): a size built in a request of its own, so that a
hang is pinned on reference.py or on the kernel."""

NET_SHARE = 0.25
"""The net's time is at most this share of the session's seconds or of its stated wall time (``--budget-wall-s``,
netcap20), whichever is larger (our choice: a quarter more than the session it checks), or :data:`NET_FLOOR_S`. On a
GPU a net takes milliseconds; in Triton's interpreter a grouped GEMM's took 23-64 s (breaker9's grouped_gemm, every
size run whole by both kernels; docs/faults.md)."""
HANG_SHARE = 0.5
"""A request inside a net with a cap is given at most this share of what the cap has left (and never more than it has
left, nor than the request limit), unless :data:`HANG_ESTIMATES` times its estimate asks more: one size with no reply
leaves the sizes after it the rest (our choice; netcap20: on an H100 one request with no reply took the whole 30 s
cap, and every later size of v81's table went unchecked)."""

HANG_ESTIMATES = 4.0
"""A request's limit inside a capped net is at least this many times its estimate (:func:`_estimate`), within what the
cap has left: a size estimated to take more than :data:`HANG_SHARE` of what is left, let start, is not cut short of a
margin over its estimate (our choice)."""

NET_FLOOR_S = 30.0
"""The least time the net is given, seconds: the 27 wrong kernels of docs/faults.md's variants were each caught in
0.2-4.9 s at load 8-12 in the interpreter, and breaker11's unsloth_geglu took 9 s a request at load 25 (a session of
a few seconds still gets its net; at 20 s its second size was not run there)."""


class NetCap(BaseModel):
    """The net's time cap over every pick it checks for one session (``deadline``: on the clock :func:`cast` reads).

    Attributes:
        seconds: the larger of :data:`NET_FLOOR_S` and :data:`NET_SHARE` of the session's seconds (``session_s``) or
            of its stated wall time (``stated_s``, ``--budget-wall-s``).
        wall_s: the stated wall time where its deadline ends the cap first (the words name it).
        stated_s: the session's stated wall time, where one was given; ``used_s``: the seconds of it spent when the
            net started (what :meth:`wall_for` adds to).
        fixed: what a cap set outright (not worked out from a session) is, in words: the net over an implementer's
            rewrite (:data:`kernelopt.tuning.code_net.CODE_NET_S`) has no session its seconds are a share of.
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    deadline: float
    seconds: float
    session_s: float
    wall_s: float | None = None
    stated_s: float | None = None
    used_s: float = 0.0
    fixed: str | None = None

    @classmethod
    def of(cls, session_s: float, now: float, wall: TailWall | None = None) -> NetCap:
        """The cap for a session of ``session_s`` wall seconds, starting at ``now``; never past ``wall``'s deadline
        (the session's stated wall time: then :attr:`wall_s` is it, and the words name it). A quarter of the stated
        wall counts as well as of the seconds the session took (netcap20: a net cut by its cap writes nothing where
        the pick changes the code, so its time follows what the user states, ``--budget-wall-s``, not only how soon
        the search ended)."""
        stated = wall.wall_s if wall is not None else None
        seconds = max(NET_FLOOR_S, NET_SHARE * session_s, NET_SHARE * (stated or 0.0))
        used = wall.wall_s + WALL_MARGIN_S - (wall.deadline - now) if wall is not None else 0.0
        said = {"seconds": seconds, "session_s": session_s, "stated_s": stated, "used_s": max(0.0, used)}
        if wall is not None and wall.deadline < now + seconds:
            return cls(deadline=wall.deadline, wall_s=wall.wall_s, **said)
        return cls(deadline=now + seconds, **said)

    def words(self) -> str:
        if self.fixed is not None:  # review21 r13: "the larger of 30 s and 25% of the session's 120 s" said 120 s
            return f"past the net's time cap of {self.seconds:.0f} s ({self.fixed})"
        if self.wall_s is not None:
            return f"past the session's wall time of {self.wall_s:g} s"
        if self.stated_s is not None and NET_SHARE * self.stated_s >= max(NET_FLOOR_S, NET_SHARE * self.session_s):
            return (
                f"past the net's time cap of {self.seconds:.0f} s ({NET_SHARE:.0%} of the session's wall time of "
                f"{self.stated_s:g} s)"
            )
        return (
            f"past the net's time cap of {self.seconds:.0f} s (the larger of {NET_FLOOR_S:.0f} s and "
            f"{NET_SHARE:.0%} of the session's {self.session_s:.0f} s)"
        )

    def wall_for(self, need_s: float) -> int:
        """The ``--budget-wall-s`` under which a net that needs ``need_s`` seconds fits (:attr:`NetVerdict.need_s`):
        its cap (:data:`NET_SHARE` of it) holds them, and so does its deadline, the search before the net taking what
        it took (:attr:`used_s`); rounded up to ten seconds."""
        wall = max(need_s / NET_SHARE, self.used_s + need_s - WALL_MARGIN_S)
        return int(math.ceil(wall / 10.0) * 10)


def cast(
    sizes: Sequence[DerivedSize],
    original: str,
    written: str,
    check_at: CheckAt,
    *,
    build_at: BuildAt | None = None,
    known: dict[str, tuple[Outcome, str | None]] | None = None,
    cap: NetCap | None = None,
    entries: EntryTimes | None = None,
    far: FarRoom | None = None,
    clock: Callable[[], float] = time.monotonic,
    check_alone: CheckAt | None = None,
    request_s: float | None = None,
) -> NetVerdict:
    """Check ``written`` at each of ``sizes`` where ``original`` passes; stop at its first failure.

    At each try reference.py builds the size first (``build_at``, a request of its own): a size it cannot build is
    refused with no kernel run, and a build that runs past the request's limit is pinned on reference.py. Then the
    written kernel runs: where it passes, the size is passed and the original is not run (half the runs, in the common
    case); where it fails, the original runs there: passing (or no reply, b23), the written kernel fails the net;
    failing too, the size is refused and the next try is taken, unless its run failed for the machine's reason (a worker
    that died, the host's memory: :func:`~kernelopt.tuning.candidate.machine_outcome`), which leaves the size unchecked
    (netsafe20), as reference.py's build past its limit does in every search. A kernel that runs past the request's
    limit there gets no verdict at that size (a smaller tile can take many times the original's time in Triton's
    interpreter: a timeout there is the machine's load as often as the kernel's), and the size's other tries are not
    run: one limit a size at most (break11 x3). ``known``: reference.py's and the original's outcomes by size, filled as
    they are found (a second pick checked after a first one failed runs the original at no size twice). ``cap``: no try
    starts past its deadline, nor one whose request is estimated to end past it (the sizes left are skipped, the line
    saying so); a try started ends, the original run where the written kernel failed: a wrong kernel is never written
    for want of the original's verdict. A request's seconds at a try are estimated before it starts (:func:`_estimate`):
    from the requests run so far, and where the try is larger than any, from ``entries`` (the written kernel's check and
    calls on the entries: :class:`EntryTimes`) by the try's elements over theirs (:attr:`DerivedSize.scales`): the first
    size is weighed before it runs (net12; before, only the longest request so far, so the first size always started).
    ``far``: the room whose :attr:`FarRoom.footprints` trim each ``far`` size to the rungs that fit and each ``power``
    size to the tries that fit, read as the size is reached (:meth:`FarRoom.trim`); a size left with none is not
    cast, and a far ladder stopped at a rung whose footprint could not be read is said (:attr:`NetVerdict.unsized`).
    ``check_alone``: ``check_at`` in a worker of its own, for a run where a fault is likely (:meth:`_Caster.alone_at`):
    a fault there does not start ``check_at``'s worker again.

    ``request_s``: each request's limit (``tune --candidate-timeout-s``), where ``check_at``, ``build_at`` and
    ``check_alone`` take a ``limit_s`` keyword (the evaluator's; ``None``: they take none, the limit is theirs). With a
    ``cap``, a request is given at most what the cap has left, and at most :data:`HANG_SHARE` of it unless its own
    estimate asks more (:meth:`_Caster.limit_s`): one size with no reply leaves the others time (netcap20: on an H100
    one request took its whole 60 s and the cap with it, every later size unchecked). A request cut so is unchecked
    for want of time, not for the request's limit; a request with no reply prices no smaller size (:func:`_estimate`).
    The original's run where the written kernel failed keeps the whole limit (its verdict decides the write)."""
    caster = _Caster(check_at, build_at, known if known is not None else {}, cap, entries, clock, alone=check_alone,
                     request_s=request_s, room=far)  # fmt: skip
    started = clock()
    checks: list[SizeCheck] = []
    odd = False  # the original (or the written kernel) passed the past size's first try: it handles odd sizes
    passed: set[str] = set()  # where the written kernel passed: a size two rules derive alike is checked once
    unsized: list[str] = []  # far ladders stopped at a rung whose footprint could not be read (late33 z101)
    for size in sizes:
        if (size.kind is SizeClass.RESIDUE or size.even) and odd:
            continue
        if size.tries and all(t.label() in passed for t in size.tries):
            continue  # newuser14: scale2d's M=64,N=288 was checked and said twice ("correct at ..., M=64,N=288, ...")
        if far is not None and size.kind is SizeClass.POWER:  # each try where its own footprint fits (u43)
            if (trimmed := far.trimmed(size)) is None:
                continue
            size = trimmed
        if far is not None and size.kind is SizeClass.FAR and size.tries:  # its first rung, then as it climbs (z100)
            fits, line = far.fits(size, 0)
            unsized += [line] if line is not None else []
            if not fits:
                continue
        t0 = clock()
        check = caster.check(size, original, written)
        odd = odd or (check.kind is SizeClass.PAST and check.passed is not None and check.shape == size.tries[0])
        checks.append(check.model_copy(update={"seconds": clock() - t0}))
        if check.passed:
            passed.add(check.shape.label())
        if check.passed is False:
            break
    unsized += caster.unsized
    return NetVerdict(checks=checks, seconds=clock() - started, unsized=list(dict.fromkeys(unsized)))


@dataclasses.dataclass(frozen=True)
class _Try:
    """The written kernel at one try of a size (:meth:`_Caster.tried`): passed where ``failed`` and ``stop`` are
    ``None`` (``reason``: what was not fenced there); the net's failure (``failed``: it fails and the original
    passes); or why no verdict is had there (``stop``: no reply, the original not built again or its run failed for
    the machine's reason, or ``both``: the original fails there too, which a search may go on past)."""

    failed: SizeCheck | None = None
    stop: str | None = None
    both: bool = False
    reason: str | None = None
    limit: bool = False  # ``stop`` is a request's limit (no reply), not the original's refusal
    machine: bool = False  # ``stop`` is the original's run failing for the machine's reason, not its refusal
    rebuilt: bool = False  # ``stop`` is reference.py failing to build the size again, for a reason of its own
    need_s: float = 0.0  # ``stop`` is a request cut at the net's shortened limit: the seconds it needs (netcap20)


@dataclasses.dataclass
class _Caster:
    """:func:`cast`'s state over its sizes: how a size is built and a kernel checked there, the outcomes found so far
    (``memo``: reference.py's refusals and the original's verdicts, by size), the time cap, the entries' times, and
    each request's seconds and its try's scale (``ran``: what the next request is estimated by)."""

    check_at: CheckAt
    build_at: BuildAt | None
    memo: dict[str, tuple[Outcome, str | None]]
    cap: NetCap | None
    entries: EntryTimes | None
    clock: Callable[[], float]
    # each request's seconds, its try's scale, and whether it replied (a request with no reply prices no smaller size)
    ran: list[tuple[float, float, bool]] = dataclasses.field(default_factory=list)
    alone: CheckAt | None = None  # ``check_at`` in a worker of its own (:meth:`alone_at`)
    request_s: float | None = None  # the request limit; ``None``: the callables take no ``limit_s`` (:func:`cast`)
    cut: bool = False  # the last request had no reply within a limit the net shortened (:meth:`limit_s`)
    # the alignments (:func:`_alignment`) of the sizes where the original faulted (a CUDA error that leaves its
    # process unusable): a size of one of them is likely to fault too, and runs alone
    faulted: set[int] = dataclasses.field(default_factory=set)
    room: FarRoom | None = None  # a far rung runs where its own footprint fits (:meth:`FarRoom.fits`)
    unsized: list[str] = dataclasses.field(default_factory=list)  # far ladders stopped at a rung not read

    def alone_at(self, shape: ProblemShape, reason: str | None = None) -> CheckAt:
        """Where a run at ``shape`` goes: in a worker of its own where a fault is likely (gpufind19: each fault in the
        net started its one worker again, about 10 s on an H100 for bnb_int8_mm's odd sizes): the original faulted at a
        size of its alignment, or the written kernel's failure there (``reason``) was such a fault; else
        ``check_at``."""
        sticky = reason is not None and any(word in reason for word in STICKY_CUDA_ERRORS)
        if self.alone is not None and (_alignment(shape) in self.faulted or sticky):
            return self.alone
        return self.check_at

    def limit_s(self, scale: float) -> float | None:
        """The limit of a request at a try of ``scale`` (``None``: the callables' own): the request limit, at most what
        the cap has left, and at most :data:`HANG_SHARE` of that unless :data:`HANG_ESTIMATES` times the request's
        estimate asks more (a size estimated to take most of what is left was let start: it gets it)."""
        if self.request_s is None or self.cap is None:
            return None
        left = max(0.0, self.cap.deadline - self.clock())
        share = max(HANG_SHARE * left, HANG_ESTIMATES * _estimate(scale, self.entries, self.ran))
        # a worker's request needs a moment whatever is left (:data:`~kernelopt.tuning.pace.LEAST_REQUEST_S`)
        return min(self.request_s, max(min(left, share), LEAST_REQUEST_S))

    def timed(
        self, scale: float, run: Callable[..., tuple[Outcome, str | None]], *args: Any, whole: bool = False
    ) -> tuple[Outcome, str | None]:
        """``run(*args)`` within :meth:`limit_s` (``whole``: the request limit as it is), its seconds kept in
        :attr:`ran` beside ``scale`` and whether it replied; :attr:`cut` says whether it had no reply within a limit
        the net shortened."""
        limit = None if whole else self.limit_s(scale)
        t0 = self.clock()
        outcome: Outcome | None = None
        try:
            said = run(*args) if limit is None else run(*args, limit_s=limit)
            outcome = said[0]
            return said
        finally:
            replied = outcome is not Outcome.RUN_TIMEOUT
            self.cut = not replied and limit is not None and self.request_s is not None and limit < self.request_s
            self.ran.append((self.clock() - t0, scale, replied))

    def need_s(self, scale: float) -> float:
        """What a try of ``scale`` is estimated to need for its check: a build and a check request
        (:attr:`SizeCheck.need_s`)."""
        return 2 * _estimate(scale, self.entries, self.ran)

    def no_reply(self) -> tuple[bool, float]:
        """After a request with no reply: whether the limit was its own (``limit``: a longer --candidate-timeout-s
        cures it), else it was cut at the net's shortened one (for want of time), with the seconds it needs: what the
        cap must have left at its start for its limit to be the whole request limit (:meth:`limit_s`: the limit over
        :data:`HANG_SHARE`)."""
        return not self.cut, (self.request_s or 0.0) / HANG_SHARE if self.cut else 0.0

    def check(self, size: DerivedSize, original: str, written: str) -> SizeCheck:
        """``written`` at ``size``'s first try the original passes at (see :func:`cast`); skipped (``passed``
        ``None``) with each try's reason when none is judged. A ``far`` or ``residue`` size is a ladder
        (:meth:`ladder`)."""
        if size.bisect:
            return self.bisect(size, original, written)
        if size.kind in (SizeClass.FAR, SizeClass.RESIDUE, SizeClass.CONSTANT, SizeClass.FLOOR):
            return self.ladder(size, original, written)
        refusals: list[str] = []
        # no verdict for want of time (a request's limit: ``limit``; the machine's failure: ``machine``), no refusal
        unchecked = limit = machine = rebuilt = False
        need = 0.0
        shape = size.tries[-1]
        for i, shape in enumerate(size.tries):
            label, scale = shape.label(), size.scale(i)
            expected = _estimate(scale, self.entries, self.ran)
            if self.cap is not None and self.clock() + expected > self.cap.deadline:
                estimate = f" (about {expected:.1f} s a request at its size)" if expected >= 0.05 else ""
                refusals.append(f"{label}: not run, it would end {self.cap.words()}{estimate}")
                unchecked, need = True, self.need_s(scale)
                break
            built = self.built(shape, scale)
            if built is not None and built[0] is Outcome.RUN_TIMEOUT:  # reference.py hangs there: one limit a size
                refusals.append(f"{label}: reference.py did not build it within the limit: {built[1]}")
                (limit, need), unchecked = self.no_reply(), True
                break
            if built is not None and built[0] is not Outcome.OK:
                refusals.append(f"{label}: {built[1]}")
                continue
            # no reply is no verdict (a small tile too slow in the interpreter), and the size's other tries are as
            # large in the other keys: one limit a size, not one a try (x3)
            who = "the written kernel"
            if self.build_at is None:
                who += ", or reference.py building the size"
            tried = self.tried(size, shape, scale, original, written, who=who)
            if tried.failed is not None:
                return tried.failed
            if tried.stop is None:  # a reason beside a pass: what was not fenced there
                return SizeCheck(kind=size.kind, shape=shape, passed=True, outcome=Outcome.OK, reason=tried.reason)
            refusals.append(tried.stop)
            if not tried.both:
                unchecked, limit, machine, rebuilt, need = True, tried.limit, tried.machine, tried.rebuilt, tried.need_s
                break
        return SizeCheck(
            kind=size.kind,
            shape=shape if unchecked else size.tries[-1],  # where the net stopped, unchecked: the size it names
            passed=None,
            reason="; ".join(refusals),
            unchecked=unchecked,
            limit=limit,
            machine=machine,
            rebuilt=rebuilt,
            need_s=need,
        )

    def ladder(self, size: DerivedSize, original: str, written: str) -> SizeCheck:
        """``written`` at each try of a ``far``, ``residue`` or ``floor`` size in turn (a far size's rungs up, a
        residue size's steps and a floor's rungs down), on while it passes: failed at the first try where it fails and
        the original passes; where the original fails too, the tries after it are not run (past the original's reach;
        below its block, whose multiples no smaller power of two's are): held at the last try it passed, else skipped.
        A floor's rung the original refuses runs its plain halving (its fallback), then that rounded down to the
        entries' power of two, then the divisors of the entries' common factor below it, largest first (each shape
        once a ladder, and none dividing a size the original refused in it: a modulus or a least size refuses that
        too; 1024 refused, 512 and 256 are not asked), before the ladder stops. A try
        reference.py cannot build ends a far size (past the memory) and is stepped over in a residue size; a far rung
        past :data:`FAR_SURE_SCALE` times the entries' elements runs only while its request is estimated within
        :meth:`far_seconds` (with no cap, its first rung only), every try only while it ends within the cap."""
        far = size.kind is SizeClass.FAR
        held: ProblemShape | None = None
        stop: str | None = None
        # the ladder ended for want of time (the cap, a request's limit, the machine's failure), not a refusal
        unchecked = limit = machine = rebuilt = False
        need = 0.0
        run: list[ProblemShape] = []  # the floor's stand-ins tried so far: a rung's divisors, many a rung's below too
        refused: list[ProblemShape] = []  # where the original failed too: a stand-in dividing one is not run
        for i, shape in enumerate(size.tries):
            label, scale = shape.label(), size.scale(i)
            expected = _estimate(scale, self.entries, self.ran)
            if far and self.cap is None and i > 0:
                break
            late = self.cap is not None and self.clock() + expected > self.cap.deadline
            if late or (
                self.cap is not None and far and scale > FAR_SURE_SCALE and expected > self.far_seconds(self.cap)
            ):
                stop = f"{label}: not run, about {expected:.1f} s a request there, past the net's time for it"
                # a far rung past the sure scale that its share does not afford is the net's own bound once a rung
                # passed (its design, as a far size with no cap runs its first rung only), not want of time: the
                # size is passed up to the rung held, as before leftovers20's l6 (whose "unchecked past it", with
                # netcap20's write rule, refused every kernel whose far size had such a rung)
                unchecked = late or held is None
                need = self.need_s(scale) if unchecked else 0.0
                break
            if far and i > 0 and self.room is not None:  # past the room by its own footprint: the ladder's top
                fits, line = self.room.fits(size, i)
                self.unsized += [line] if line is not None else []
                if not fits:
                    break
            built = self.built(shape, scale)
            divisors = size.divisors[i] if i < len(size.divisors) else ()
            alts = [a for a in (_at(size.fallbacks, i), _at(size.rounded, i), *divisors) if a is not None]
            while built is not None and built[0] not in (Outcome.OK, Outcome.RUN_TIMEOUT) and alts:
                # the rung refused for its odd part (v67: chunks of 160 of 4096 elements): its plain multiple instead
                shape = alts.pop(0)
                label, built = shape.label(), self.built(shape, scale)
            if built is not None and built[0] is Outcome.RUN_TIMEOUT:  # reference.py hangs there: no refusal
                stop = f"{label}: reference.py did not build it within the limit: {built[1]}"
                (limit, need), unchecked = self.no_reply(), True
                break
            if built is not None and built[0] is not Outcome.OK:
                stop = f"{label}: {built[1]}"
                if far:
                    break
                continue
            tried = self.tried(size, shape, scale, original, written)
            refused += [shape] if tried.both else []
            while tried.both and alts and size.kind is SizeClass.FLOOR:
                # the original refuses the floor's odd rung (a power of two, a multiple of its block): the plain one,
                # then the plain one rounded down to the entries' power of two (v76 keeps a 3, v75 a multiple of 8),
                # then the entries' common factor's divisors below it (v77: 2000, a multiple of 1000)
                shape = alts.pop(0)
                if shape in run or any(_divides(shape, r) for r in refused):
                    continue
                run.append(shape)
                built = self.built(shape, scale)
                if built is None or built[0] is Outcome.OK:
                    tried = self.tried(size, shape, scale, original, written)
                    refused += [shape] if tried.both else []
            probe = size.kind is SizeClass.CONSTANT and i == 0  # its odd value: passed, the rest say no more
            if tried.failed is not None:
                return tried.failed
            if tried.stop is None:
                held = shape
                if probe:
                    break
                continue
            stop = tried.stop
            if tried.both and probe:  # the original handles no odd value there: down from half its power of two
                continue
            unchecked, limit, machine, rebuilt = not tried.both, tried.limit, tried.machine, tried.rebuilt
            need = tried.need_s
            break
        return _stopped(size, held, stop, unchecked, limit, machine, rebuilt, need)

    def bisect(self, size: DerivedSize, original: str, written: str) -> SizeCheck:
        """The joint residue's steps (:func:`_joint_steps`: each one factor of two fewer in the keys' product) searched
        by halves where :meth:`ladder` descends them one by one: the written kernel at the first step, then between
        the last step it passed at and the first the original failed at (at first past the last), at the middle one:
        passed, the search goes below it; failed, the original runs there: passing, the written kernel fails the net;
        failing too, the search goes above it. A kernel needing a block to divide the product passes down to its
        block's factors and the original down to its own, so a step between, where the ladder caught a grown block,
        is met as surely, in about twice the logarithm of the steps' count of requests (three keys of grain 1024: 28
        steps, at most 9 requests). A step reference.py cannot build is left out of the search; a try past the cap,
        a timeout or an original reference.py does not build again ends it, held at the last step passed."""
        # the last index the written kernel passed at; the first the original failed at
        passed, failed = -1, len(size.tries)
        refused: set[int] = set()
        held: ProblemShape | None = None
        stop: str | None = None
        unchecked = limit = machine = rebuilt = False  # the search ended for want of time (the cap, a limit, ...)
        need = 0.0
        while True:
            left = [i for i in range(passed + 1, failed) if i not in refused]
            if not left:
                break
            i = 0 if passed < 0 and 0 in left else left[len(left) // 2]
            shape, scale = size.tries[i], size.scale(i)
            expected = _estimate(scale, self.entries, self.ran)
            if self.cap is not None and self.clock() + expected > self.cap.deadline:
                stop = f"{shape.label()}: not run, about {expected:.1f} s a request there, past the net's time for it"
                unchecked, need = True, self.need_s(scale)
                break
            built = self.built(shape, scale)
            if built is not None and built[0] is Outcome.RUN_TIMEOUT:  # reference.py hangs there: no refusal
                stop = f"{shape.label()}: reference.py did not build it within the limit: {built[1]}"
                (limit, need), unchecked = self.no_reply(), True
                break
            if built is not None and built[0] is not Outcome.OK:
                stop = f"{shape.label()}: {built[1]}"
                refused.add(i)
                continue
            tried = self.tried(size, shape, scale, original, written)
            if tried.failed is not None:
                return tried.failed
            if tried.stop is None:
                passed, held = i, shape
                continue
            stop = tried.stop
            if not tried.both:
                unchecked, limit, machine, rebuilt = True, tried.limit, tried.machine, tried.rebuilt
                need = tried.need_s
                break
            failed = i
        return _stopped(size, held, stop, unchecked, limit, machine, rebuilt, need)

    def tried(
        self,
        size: DerivedSize,
        shape: ProblemShape,
        scale: float,
        original: str,
        written: str,
        who: str = "the written kernel",
    ) -> _Try:
        """``written`` at one try of ``size`` (:meth:`check`, :meth:`ladder`, :meth:`bisect`), and where it fails the
        original there: the net's failure where the original passes; else why no verdict is had there (``who``: what
        a request with no reply was waiting on)."""
        outcome, reason = self.timed(scale, self.alone_at(shape), written, shape)
        if outcome is Outcome.OK:
            return _Try(reason=reason)
        if outcome is Outcome.RUN_TIMEOUT:
            own, need = self.no_reply()
            within = "the limit" if own else "the net's time left for it"
            return _Try(stop=f"{shape.label()}: no reply within {within} ({who}): {reason}", limit=own, need_s=need)
        theirs = self.original_at(original, shape, scale, self.alone_at(shape, reason))
        if isinstance(theirs, _Try):
            return theirs
        if any(word in (theirs[1] or "") for word in STICKY_CUDA_ERRORS):
            self.faulted.add(_alignment(shape))
        if theirs[0] is Outcome.OK:
            return _Try(failed=SizeCheck(kind=size.kind, shape=shape, passed=False, outcome=outcome, reason=reason))
        if theirs[0] is Outcome.RUN_TIMEOUT:  # no reply is no refusal (break19 b23): the original may run there
            return _Try(failed=SizeCheck(kind=size.kind, shape=shape, passed=False, outcome=outcome, reason=reason,
                                         original=f"where the original gave no reply within the limit ({theirs[1]}) "
                                         "and may run"))  # fmt: skip
        if machine_outcome(*theirs):  # its worker died, the host's memory: no refusal, whether it runs is not known
            return _Try(stop=f"{shape.label()}: the written kernel failed ({outcome}: {reason}) where the original's "
                        f"run failed for the machine's reason: {theirs[0]}: {theirs[1]}", machine=True)  # fmt: skip
        return _Try(stop=f"{shape.label()}: {ORIGINAL_FAILS}: {theirs[0]}: {theirs[1]}", both=True)

    def built(self, shape: ProblemShape, scale: float) -> tuple[Outcome, str | None] | None:
        """reference.py's build of ``shape`` (``build_at``; a refusal kept, never asked twice); ``None`` with no
        ``build_at``."""
        key = f"reference.py at {shape.label()}"
        built = self.memo.get(key)
        if built is None and self.build_at is not None:
            built = self.timed(scale, self.build_at, shape)
            if built[0] is not Outcome.OK:
                self.memo[key] = built
        return built

    def far_seconds(self, cap: NetCap) -> float:
        """The most a ``far`` rung's request may be estimated at (:data:`FAR_REQUEST_SHARE`,
        :data:`FAR_ENTRY_CHECKS`)."""
        most = FAR_REQUEST_SHARE * cap.seconds
        return min(most, FAR_ENTRY_CHECKS * self.entries.check_s) if self.entries is not None else most

    def original_at(
        self, original: str, shape: ProblemShape, scale: float, check: CheckAt | None = None
    ) -> tuple[Outcome, str | None] | _Try:
        """The original's outcome at ``shape``, where the written kernel failed: run once a size, past the cap if
        need be (a try's verdict needs it), by ``check`` (``check_at`` by default; :meth:`alone_at`), the size built
        again first where it runs in ``check_at``'s worker (which may have started again after the failure); why no
        verdict is had when reference.py does not build it again (no reply: a request's limit; the machine's failure;
        else its own, leftovers20's l6: none of them time the wall would give)."""
        label = shape.label()
        check = check or self.check_at
        if label not in self.memo:
            if self.build_at is not None and check is self.check_at:
                rebuilt = self.timed(scale, self.build_at, shape, whole=True)
                if rebuilt[0] is not Outcome.OK:
                    limit = rebuilt[0] is Outcome.RUN_TIMEOUT
                    machine = not limit and machine_outcome(*rebuilt)
                    stop = f"{label}: reference.py did not build it again: {rebuilt[0]}: {rebuilt[1]}"
                    return _Try(stop=stop, limit=limit, machine=machine, rebuilt=not limit and not machine)
            self.memo[label] = self.timed(scale, check, original, shape, whole=True)
        return self.memo[label]


#: The most elements a size's alignment reads (:func:`_alignment`): 16, a 16-byte access of bytes, our choice.
ALIGNMENT_MOST = 16


def _stopped(
    size: DerivedSize,
    held: ProblemShape | None,
    stop: str | None,
    unchecked: bool,
    limit: bool,
    machine: bool,
    rebuilt: bool,
    need_s: float = 0.0,
) -> SizeCheck:
    """The end of a ladder or a search (:meth:`_Caster.ladder`, :meth:`_Caster.bisect`): passed at ``held``, the last
    try it passed, and where it then stopped with no verdict (``unchecked``), checked up to that try and unchecked past
    it, ``stop`` saying why (leftovers20's l6: it was reported passed, the stop unnamed); skipped where no try
    passed."""
    why = {"unchecked": unchecked, "limit": limit, "machine": machine, "rebuilt": rebuilt, "need_s": need_s}
    if held is not None:
        said = stop if unchecked else None
        return SizeCheck(kind=size.kind, shape=held, passed=True, outcome=Outcome.OK, reason=said, **why)
    return SizeCheck(kind=size.kind, shape=size.tries[0], passed=None, reason=stop or "no try run", **why)


def _alignment(shape: ProblemShape) -> int:
    """The largest power of two, at most :data:`ALIGNMENT_MOST`, dividing every integer size of ``shape``: a fault of
    an access the kernel assumed aligned (CUDA's misaligned address) comes at the sizes of one alignment (bnb_int8_mm's
    odd M), whatever the net's rule that derived them."""
    align = ALIGNMENT_MOST
    for value in [*shape.kwargs.values(), *shape.constants.values()]:
        if is_int(value) and value > 0:
            align = min(align, value & -value)
    return align


class EntryTimes(BaseModel):
    """What the written kernel's check took on the ``SHAPES`` entries, to weigh the net's first size by.

    Attributes:
        check_s: the seconds of its check on every entry together (each a request: loading, one call, comparing).
        kernel_s: the seconds of one call on every entry together (the pick's timed latencies, summed).
        count: the entries.
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    check_s: float = Field(ge=0)
    kernel_s: float = Field(ge=0)
    count: int = Field(ge=1)

    @property
    def fixed_s(self) -> float:
        """A request's seconds that no size changes (loading the kernel, the check's own work): what the entries'
        check took beyond their calls, an entry's share."""
        return max(0.0, self.check_s - self.kernel_s) / self.count

    def estimate(self, scale: float) -> float:
        """A request's seconds at a try of ``scale`` (its elements over every entry's together): the fixed part, and
        the calls scaled by the elements, doubled (our margin: the check's copies and comparison grow with the size
        too)."""
        return self.fixed_s + 2 * self.kernel_s * scale


def _estimate(scale: float, entries: EntryTimes | None, ran: Sequence[tuple[float, float, bool]]) -> float:
    """A request's seconds at a try of ``scale`` (its elements over those of every entry together), from ``ran`` (each
    request so far: its seconds, its try's scale and whether it replied) and the entries' times.

    A request with no reply is one data point, a compile most likely (netcap20: on an H100 the first size's fresh
    compile took a request's whole 60 s, and priced every smaller size at 60 s): it prices no other try, which is
    estimated from the requests that replied; what another such request can cost is bounded by its limit
    (:meth:`_Caster.limit_s`, a share of what the cap has left). Of the requests that replied:

    A try no larger than one run: the costliest request of the smallest such try (a larger size costs no less).
    A larger one: the entries' estimate (:meth:`EntryTimes.estimate`), or the costliest request of the largest try
    run with its part beyond the fixed one scaled up by the elements, whichever is more. A request's fixed part is
    never scaled: unsloth_geglu's entries (16324 elements) took 2.5 s of checks, mostly loading and comparing; scaled
    whole to 65 x 8193 they read 80 s, where the size takes about 7."""
    costliest: dict[float, float] = {}
    for seconds, mine, replied in ran:
        if replied:
            costliest[mine] = max(seconds, costliest.get(mine, 0.0))
    above = [mine for mine in costliest if mine >= scale]
    if above:
        return costliest[min(above)]
    fixed = entries.fixed_s if entries is not None else 0.0
    top = max(costliest, default=None)
    from_ran = fixed + max(0.0, costliest[top] - fixed) * scale / top if top else 0.0
    return max(entries.estimate(scale) if entries is not None else 0.0, from_ran)


# -- the worker's side ------------------------------------------------------------------------------


class SizeRequest(BaseModel):
    """Check one kernel file at one derived size, untimed (the bench service's ``size`` request); ``path`` ``None``:
    build the size only (its inputs and reference output), so that a hang there is reference.py's."""

    model_config = ConfigDict(extra="forbid")

    path: str | None
    shape: ProblemShape


OUT_OF_BOUNDS = "it wrote past the end of an input or an output (into the fence around it)"
UNFENCED = "output not fenced: the reference's outputs there hold every value of the dtype"


@dataclasses.dataclass
class DerivedProblems:
    """The bench worker's derived size: its inputs and reference built once (the last size asked), beside the
    session's problem, which is left as it is."""

    label: str | None = None
    problem: LoadedProblem | None = None
    raw: list[Any] = dataclasses.field(default_factory=list)
    refused: Verdict | None = None

    def check(self, loaded: LoadedProblem, path: Path, shape: ProblemShape) -> Verdict:
        """Run ``path`` at ``shape`` once, its inputs and ``torch.empty`` outputs in NaN, and check it as a candidate
        is checked (:func:`~kernelopt.tuning.checks.check_run`), a write into the NaN a wrong result."""
        self._build(loaded, shape)
        if self.refused is not None:
            return self.refused
        derived = self.problem
        assert derived is not None
        fences: Fences = []
        derived.inputs = [padded(t, fences) for t in self.raw]
        from kernelopt.harness.inplace import InputPrints

        derived.prints = InputPrints.of(derived.inputs)
        candidate, verdict = load_candidate(derived, path)
        if candidate is None:
            return verdict
        fn = candidate.fn
        from kernelopt.harness.inputs import tensors_in

        integers = integer_fills(tensors_in(derived.expected))  # a value the reference's outputs do not hold

        def fenced(*args: Any) -> Any:
            # the interpreter's programs last first: a kernel right only in the order it runs them is wrong here (v69)
            with fenced_outputs(fences, OUTPUT_FILL, integers), mirrored_programs():
                return fn(*args)

        try:
            verdict = check_run(derived, dataclasses.replace(candidate, fn=fenced), verdict)
        finally:
            candidate.release()
        if verdict.outcome is Outcome.WRONG_RESULT:
            cached = self._cached(derived)
            if cached is not None:  # the size is refused for reference.py's fault, the original's try too
                self.refused = Verdict(Outcome.RUN_ERROR, cached)
                return self.refused
        if verdict.outcome is Outcome.OK and trespassed(fences):
            return dataclasses.replace(verdict, outcome=Outcome.WRONG_RESULT, reason=OUT_OF_BOUNDS)
        if verdict.outcome is Outcome.OK and integers.unfenced:  # said beside the size (NetVerdict.line)
            return dataclasses.replace(verdict, reason=f"{' and '.join(integers.unfenced)} {UNFENCED}")
        return verdict

    def _cached(self, derived: LoadedProblem) -> str | None:
        """The line saying reference.py's output at this size came from its earlier calls (an output kept from the
        primary's build: :mod:`kernelopt.harness.history`), where reference.py loaded afresh returns another on the
        same inputs; ``None`` when it agrees (the kernel's wrong result stands). A fresh import that raises says
        nothing here: the size's build already ran it."""
        import torch

        from kernelopt.harness.history import cached_line
        from kernelopt.harness.inputs import clone_tree
        from kernelopt.harness.loader import loaded_afresh

        try:
            with loaded_afresh(Path(derived.problem.reference_py), derived.shape.constants) as module:
                fresh = dataclasses.replace(derived, reference=module)
                with torch.set_grad_enabled(derived.form.takes_gradients):
                    again = fresh.reference_callable(derived.device)(*clone_tree(self.raw))
        except (Exception, SystemExit):  # its own fault, said where it is built
            return None
        differs = checked_output(derived, again)  # the fresh output checked as a candidate's is
        if differs.message is None:
            return None
        return cached_line(differs.message, same_as_before=False, what="reference.py")

    def build(self, loaded: LoadedProblem, shape: ProblemShape) -> Verdict:
        """Build ``shape`` (kept for the next request): ``OK``, or why reference.py cannot."""
        self._build(loaded, shape)
        return self.refused if self.refused is not None else Verdict(Outcome.OK)

    def _build(self, loaded: LoadedProblem, shape: ProblemShape) -> None:
        label = shape.label()
        if label == self.label:
            return
        self.release(loaded.device)
        self.label = label
        derived = dataclasses.replace(
            loaded, inputs=[], expected=None, prints=None, prepared=[], ref_model=None, contract=None, watch=None
        )
        try:
            # the module-level sizes the net moves (a problem without SHAPES keys) over the session's own
            derived.build(
                ProblemShape(kwargs=dict(shape.kwargs), constants={**loaded.shape.constants, **shape.constants})
            )
        except (Exception, SystemExit) as exc:  # reference.py cannot build the size: the size is not the kernel's
            self.release(loaded.device)
            self.label = label
            kind = Outcome.OUT_OF_MEMORY if is_out_of_memory(exc) else Outcome.RUN_ERROR
            self.refused = Verdict(kind, f"reference.py cannot build it: {first_line(exc)}")
            return
        self.problem, self.raw = derived, list(derived.inputs)

    def release(self, device: str) -> None:
        """Drop the derived size's tensors (their references: no ``gc.collect``, which took 0.8 s a size in a worker
        holding torch and Triton, CPU, 2026-12-06; the caching allocator's blocks go back on a GPU)."""
        self.label, self.problem, self.raw, self.refused = None, None, [], None
        if device.startswith("cuda"):
            import torch

            torch.cuda.empty_cache()
