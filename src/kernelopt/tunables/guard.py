"""Tiles that must divide a size: a tuned literal legal at every size the original handled, or guarded.

A kernel without masks (a grid of whole tiles) is correct only at sizes its tiles divide: the launching
function says so with ``assert M % BLOCK_M == 0``, a grid of ``M // BLOCK_M`` programs, or a grid of
``triton.cdiv(M, BLOCK_M)`` programs over a kernel whose loads and stores carry no mask (whose loop
``for k in range(0, K, BLOCK_K)`` says it of ``K``). The original
``BLOCK_M = 32`` then takes every multiple of 32; a tuned ``64`` would fail at 96, a size ``SHAPES`` may never
name. DESIGN.md, "Shapes": a literal is written only where it is legal at every size the original handled
(the new tile divides the old one); otherwise the tuned value is guarded, the original the fallback, written
as Triton users write it and readable in a diff::

    BLOCK_M, BLOCK_N, BLOCK_K = 32, 32, 32
    if N % 64 == 0:  # kernelopt: tuned
        BLOCK_N = 64

A literal at the launch gets a line of its own first (``BN = 32`` then the guard, the launch passing
``BN=BN``; inline, ``BN=64 if N % 64 == 0 else 32``, where the function already uses the name). Where no
guard can be written (a module-level constant, a size not known where the tile is set) the edit is not written,
and one line says why.

:func:`guard_edit` takes a literal edit (:func:`kernelopt.tunables.edit.apply_source`'s text) and returns the
text to write. Discovery reads a guard's lines as tuned lines (``# kernelopt: tuned``): the literal above stays
the knob's value, and a later edit of it takes the moved names out of the guard (:func:`strip_stale_guards` for
a candidate, which runs the configuration it names at every size; :func:`guard_edit` for the write).
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable, Collection, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from types import SimpleNamespace
from typing import TypeVar, cast

import libcst as cst
from libcst.metadata import CodeRange

from kernelopt.tunables.arithmetic import BOUND_OPERATORS, integer_value, integer_values
from kernelopt.tunables.bindings import (
    assigned_once,
    bindings,
    element_names,
    element_read,
    element_spellings,
    made_by,
    reached_names,
    reached_values,
    read_names,
)
from kernelopt.tunables.blocks import (
    BLOCK_PTR_ARGS,
    ONE,
    OneBlock,
    Scale,
    body_constexprs,
    call_args,
    cdiv_args,
    ceil_args,
    ceil_count,
    child_nodes,
    compared_names,
    compared_sizes,
    covers_as_before,
    dotted,
    filled_by_data,
    is_jit,
    launched,
    named_args,
    one_block,
    padded_blocks,
    reach_of,
    reach_text,
    reached_accesses,
    typed,
    unchecked_blocks,
    visit,
    walk,
)
from kernelopt.tunables.called_autotune import as_decorators
from kernelopt.tunables.compile_cache import cache_refusal, warmed_kernels
from kernelopt.tunables.conditions import raised_on
from kernelopt.tunables.decorator_words import aliased, decorator_configs, plain_decorators
from kernelopt.tunables.filters import constexpr_params
from kernelopt.tunables.grains import tile_offset
from kernelopt.tunables.inline_guard import (
    TUNED,
    bound_block,
    conjuncts,
    literal_settings,
    marked_tuned,
    read_inline_guard,
    read_statement_guard,
)
from kernelopt.tunables.launch_bound import LaterRow, later_rows, launch_test
from kernelopt.tunables.launch_value import Substitute, statement_binds, value_at_launch
from kernelopt.tunables.list_filters import module_names
from kernelopt.tunables.signature import param_names, params_of
from kernelopt.tunables.syntax import kept_by_text, parsed
from kernelopt.tunables.tile_numel import Ceiling, numel_reading, numel_refusal
from kernelopt.tunables.tile_numel import Text as NumelText
from kernelopt.tunables.unmoved_grid import unmoved_grid_refusal
from kernelopt.tunables.user_lines import in_user_lines
from kernelopt.vocabulary import ENVIRONMENT_READS, GRID_AXES_MOST

_Splice = tuple[int, int, str]
Positions = Mapping[cst.CSTNode, CodeRange]


#: v36's rule for a one-block block whose masked-out lanes are read as data, and fill12's where a max or min meets
#: them as a fixed value (no run's evidence lifts that one: :func:`kernelopt.tunables.blocks.filled_by_data`)
DATA_FILL = "and its masked-out lanes are read as data: right only where the block fills the size"
BY_DATA_FILL = (
    "and its masked-out lanes are read as data, a fixed value a max or min meets: right only where the block fills "
    "the size, whatever a run at an entry showed (rows of values beyond the fill give it)"
)


@dataclass(frozen=True)
class Divides:
    """A tile must divide a size: the tile (a local name, or ``meta["BLOCK"]``'s key in a grid function), the
    size's source text, and where the launching function says so."""

    tile: tuple[str, str]  # ("name", "BLOCK_M") or ("meta", "BM")
    size: cst.BaseExpression | None  # None: a block covers a size the kernel's comparison does not name
    line: int
    why: str
    literal: cst.Integer | None = None  # the grid's own copy of a launch literal (``n // 64`` beside ``BLOCK=64``)
    covers: bool = False  # the tile is one block covering the size (a smaller one leaves the rest undone)
    # a block covering a size through a derived range (``BLOCK // 2``): (mul, div); ``None``: a length not read
    scale: Scale | None = ONE
    # a one-block block's divisor beside its cover, its masked-out lanes read as data (v36): dropped from a table
    # row where the original ran masked-out lanes at an entry and passed there (``guard_edit``'s ``ran_masked``)
    fills: bool = False
    # its masked-out lanes meet a max or min holding a known finite value: harm by the data's values, so no run's
    # evidence lifts it (fill12, :func:`kernelopt.tunables.blocks.filled_by_data`)
    by_data: bool = False
    # a tile that is one factor of a product the size is counted in (``triton.cdiv(n, meta["BLOCK"] *
    # meta["UNROLL"])``, v41): the other factors' tiles, and the product of the others' values (with any literal
    # factor) in the edited text and in the original (:func:`_with_partners`)
    factors: tuple[tuple[str, str], ...] = ()
    times: int = 1
    times_before: int = 1
    # the size must divide the tile instead (``tl.reshape(x, (BLOCK // N, N))``: rows of N, v44)
    divided: bool = False
    # the size is counted in parts of the tile (``N // (BLOCK_M // 16)``: a column tile the kernel computes from the
    # row tile, wrongkernel25's v114): the tile's ``per``-th part must divide it
    per: int = 1
    # the size must be at most this, whatever the tile: a tile's values under a limit its other side, computed from
    # the size, leaves room for (v102's ``ROWS`` beside ``next_power_of_2(n_cols)``: the bound falls as the tile
    # grows; :class:`kernelopt.tunables.tile_numel.Ceiling`), written ``n_cols <= 1048576 // 32`` (``most`` times
    # the tile, by the tile), the tile's value in sight as a cover's is
    most: int | None = None
    # the guard the requirement would need, in words, where no guard by a size can be written (its refusal names it)
    missing: str | None = None
    # the count of programs on a grid's axis a tile is one factor of a product in (``triton.cdiv(M, BLOCK_M) *
    # triton.cdiv(N, BLOCK_N)``): a table's row may hold its limit as a test (configs24's c44)
    count: cst.BaseExpression | None = None
    # the most :attr:`count` may be (:data:`GRID_AXIS_MOST` for a grid's axis; a host assert's own bound, ``assert
    # grid_size0 < 65536``: 65535, leftovers25 l80); ``None`` where no count is read
    count_most: int | None = None
    # the launching function takes the size modulo the tile itself (vLLM's ``assert max_num_tokens % BLOCK_M == 0``):
    # a row over a computed tile may hold the divisibility as a test, where it fails the computation runs (c44)
    host: bool = False
    # the size is padded to whole tiles (v97, v113): a divisor of the original pads no further, any tile that divides
    # the size pads nothing (refusals24 u41)
    padded: bool = False
    # the padded size is rounded down (``n // BLOCK * BLOCK``): a divisor of the original rounds it down less, a larger
    # size past the original's (1536 by 512, 1024 by 1024), and only a multiple rounds it as far or further
    # (leftovers25, l83: a divisor held as a size rounded up has it)
    rounded_down: bool = False
    # the tile itself (times :attr:`times`) must be at most this: a host check bounding the tile (``assert BLOCK <=
    # 1024``, wrongkernel30 v158), right at every size for a tile under it and at none past it
    at_most: int | None = None
    # ... and at least this (``assert BLOCK >= 16``)
    at_least: int | None = None
    # a host check's comparison of the tile with integers alone that is no bound (``assert BLOCK in (128, 256)``,
    # ``BLOCK & (BLOCK - 1) == 0``), as Python reading the tile by its name: a tile passes it at every size or at none
    # (review27 r73)
    check: str | None = None
    # the grid counts the launch's programs by a constant, not by the tile (``(n + BLOCK - 1) >> 8`` beside ``BLOCK =
    # 256``): the count does not move with the tile, so only the original holds (late47, v170)
    fixed: bool = False
    # the check reads a module name of several values (:class:`Choices`, v194): a tile failing it with one of them
    # fails where that value was assigned last, so it may fail, not fails at every size
    chosen: bool = False

    def reach(self, tile: int) -> int | None:
        """The largest size one block of ``tile`` covers (:attr:`scale`; the tile itself for a plain range)."""
        return reach_of(self.scale, tile)

    def holds(self, before: int, after: int) -> bool:
        """Whether a tile moved from ``before`` to ``after`` stays legal at every size ``before`` handled."""
        if self.fixed:
            return after == before
        if self.check is not None:  # a reading that fails at the original holds nothing but the original
            return (
                _passes(self.check, self.tile[1], after)
                if _passes(self.check, self.tile[1], before)
                else after == before
            )
        if self.at_most is not None or self.at_least is not None:
            return (self.at_most is None or after * self.times <= self.at_most) and (
                self.at_least is None or after * self.times >= self.at_least
            )
        if self.most is not None:  # a ceiling is handed over only where the moved tile passes the limit
            return False
        if self.covers:
            return covers_as_before(self.scale, before * self.times_before, after * self.times)
        if self.divided:  # every size dividing the original divides the new value
            return after % before == 0
        if self.rounded_down:  # a multiple of the original rounds down as far or further
            return (after * self.times) % (before * self.times_before) == 0
        part = after * self.times // self.per
        return part > 0 and (before * self.times_before // self.per) % part == 0

    @property
    def unread(self) -> bool:
        """A host check of the tile against a value not read (:func:`_tile_check`): no value but the original is known
        to pass it, and none is known to fail it."""
        return self.check is not None and self.missing == _UNREAD_CHECK

    @property
    def fails(self) -> str:
        """What a tile that does not hold fails to do, in words."""
        return (
            "does not match the grid's count at"
            if self.fixed
            else "may fail the check at"
            if self.chosen
            else "fails the check at"
            if self.at_most is not None or self.at_least is not None
            else "may fail the check at"
            if self.unread or self.missing == _UNREAD_BOUND
            else "fails the check at"
            if self.check is not None
            else "does not cover"
            if self.covers or self.most is not None
            else "is not a multiple of"
            if self.divided
            else "does not divide"
        )


@dataclass
class _Function:
    node: cst.FunctionDef
    params: set[str]
    bound: dict[str, int] = field(default_factory=dict)  # name -> first line it is bound on


@dataclass(frozen=True)
class Guarded:
    """The text to write and a note (one line, or ``None``), or no text and the note saying why; ``tests``: the
    condition of each guard written (``n % 64 == 0``)."""

    new_source: str | None
    note: str | None
    tests: tuple[str, ...] = ()


def _names(expr: cst.CSTNode) -> set[str]:
    """The variable names an expression reads (not attribute names, not a lambda's own parameters)."""
    out: set[str] = set()

    def visit(node: cst.CSTNode) -> None:
        if isinstance(node, cst.Name):
            out.add(node.value)
        elif isinstance(node, cst.Attribute):
            visit(node.value)
        elif not isinstance(node, cst.Lambda):
            for child in child_nodes(node):
                visit(child)

    visit(expr)
    return out


def _tile_id(expr: cst.BaseExpression) -> tuple[str, str] | None:
    """``BLOCK`` -> ("name", "BLOCK"); ``meta["BLOCK"]`` -> ("meta", "BLOCK"); ``self.BLOCK`` / ``cfg.BLOCK`` ->
    ("name", "BLOCK") (a class attribute or a field of a settings object, edited where the class holds it);
    ``TILE[0]`` -> ("name", "TILE[0]") (a module tuple's element); else ``None``."""
    if isinstance(expr, cst.Name):
        return ("name", expr.value)
    if isinstance(expr, cst.Attribute) and isinstance(expr.value, cst.Name):
        return ("name", expr.attr.value)
    if isinstance(expr, cst.Subscript) and len(expr.slice) == 1:
        index = expr.slice[0].slice
        if isinstance(index, cst.Index) and isinstance(index.value, cst.SimpleString):
            return ("meta", index.value.evaluated_value)  # type: ignore[arg-type]
    element = element_read(expr)  # a tuple's element (``TILE[0]``, b15), keyed as discovery keys it
    return ("name", f"{element[0]}[{element[1]}]") if element is not None else None


def _masked(kernel: cst.FunctionDef, helpers: Mapping[str, cst.FunctionDef] | None = None) -> bool | None:
    """Whether a Triton kernel's loads and stores carry masks (``None``: it has none of either): a mask,
    ``boundary_check`` or ``other`` argument, or a second positional argument of a load (third of a store). A
    kernel with no load or store of its own is read through the ``@triton.jit`` ``helpers`` it calls (``x =
    _load(x_ptr, offs)``: variants v7, a kernel whose every access sat in helpers was read as having none); one
    whose own accesses carry none and whose helper's do is masked (leftovers13: a row loaded by a masked helper,
    stored unmasked by the kernel, was read as a kernel without masks, and its fill rule never asked)."""
    if helpers:
        own = _masked(kernel)
        if own is True:
            return own
        called = [
            helpers[n.func.value]
            for n in walk(kernel.body)
            if isinstance(n, cst.Call) and isinstance(n.func, cst.Name) and n.func.value in helpers
        ]
        found = [own, *(_masked(h) for h in called if h is not kernel)]
        return True if True in found else False if False in found else None
    seen = False
    for node in walk(kernel.body):
        if not isinstance(node, cst.Call):
            continue
        name = dotted(node.func).split(".")[-1]
        if name not in ("load", "store"):
            continue
        seen = True
        positional = [a for a in node.args if a.keyword is None and a.star == ""]
        keywords = {a.keyword.value for a in node.args if a.keyword is not None}
        if keywords & {"mask", "boundary_check", "other"} or len(positional) > (1 if name == "load" else 2):
            return True
        if any(a.star for a in node.args):
            return True  # unreadable: assume the kernel guards itself
    return False if seen else None


def kernel_masks(source: str, kernel: str | None) -> bool | None:
    """Whether the Triton kernel ``kernel`` of ``source`` masks its loads or stores (:func:`_masked`, its
    ``@triton.jit`` helpers read too); ``None`` where it has neither, is not found, or the text does not parse."""
    try:
        module = parsed(source).module
    except cst.ParserSyntaxError:
        return None
    functions = [n for n in walk(module) if isinstance(n, cst.FunctionDef)]
    jitted = {f.name.value: f for f in functions if is_jit(f)}
    found = jitted.get(kernel or "")
    return _masked(found, jitted) if found is not None else None


def _requirements(
    fn: cst.FunctionDef,
    unmasked: Mapping[str, cst.FunctionDef],
    pos: Positions,
    kernels: Mapping[str, cst.FunctionDef] | None = None,
    helpers: Mapping[str, cst.FunctionDef] | None = None,
    imported: Collection[str] = (),
    module: Mapping[str, cst.BaseExpression | Choices] | None = None,
) -> list[Divides]:
    """What the launching function ``fn`` says each tile must divide (see the module docstring), and what the
    kernels without masks it launches say: a loop ``for k in range(0, K, BLOCK_K)`` over unmasked loads covers
    ``K`` only in whole steps, so the launch's ``BLOCK_K`` must divide the launch's ``K``. ``helpers``: the
    module's functions, where a grid ``fn`` calls is written (``lambda meta: _grid(M, N, meta)``). ``kernels``: the
    module's ``@triton.jit`` functions, whose accesses a kernel's calls of them are read through; ``imported``: the
    names of functions imported from another module (:func:`kernelopt.tunables.blocks.unchecked_blocks`); ``module``:
    the module's constant values (:func:`_module_values`), which a host check on a tile may read."""
    launches = [
        (written, call)
        for written, call in _launch_calls(fn)
        if isinstance(call.func, cst.Subscript)
        and isinstance(call.func.value, cst.Name)
        and call.func.value.value in unmasked
    ]
    launches_unmasked = bool(launches)
    out: list[Divides] = []
    for written, call in launches:
        assert isinstance(call.func, cst.Subscript) and isinstance(call.func.value, cst.Name)
        kernel = unmasked[call.func.value.value]
        out += _loop_steps(call, kernel, pos[written].start.line)
        every = set(param_names(kernel))  # a kernel without masks leaves every block unchecked
        out += _counted_loops(call, kernel, pos[written].start.line, lambda _loop, every=every: every)
        out += _kernel_divisions(call, kernel, pos[written].start.line)
        out += _grid_literals(call, pos[written].start.line, kernel)
        out += _unpaired_counts(fn, call, pos[written].start.line)
        out += _unread_grids(fn, call, kernel, pos[written].start.line, helpers or {})
    for written, call in _launch_calls(fn):
        kernel = (kernels or {}).get(dotted(call.func.value)) if isinstance(call.func, cst.Subscript) else None
        if kernel is not None:
            out += _one_block_covers(call, kernel, pos[written].start.line, kernels, imported, launcher=fn)
            out += _program_covers(fn, call, kernel, pos[written].start.line)
            out += _constant_counts(fn, call, kernel, pos[written].start.line, module or {})
            out += _grid_axis_limits(fn, call, kernel, pos[written].start.line, helpers)
            out += _divided_tiles(call, kernel, pos[written].start.line)
            out += _grouped_tiles(call, kernel, pos[written].start.line)
            out += _block_pointer_axes(call, kernel, pos[written].start.line, kernels, imported)
            if kernel.name.value not in unmasked:  # masked elsewhere: a loop whose own loads carry no mask
                out += _loop_steps(call, kernel, pos[written].start.line, bare_only=True)
                every = set(param_names(kernel))
                out += _counted_loops(call, kernel, pos[written].start.line, lambda _loop, e=every: e, floor=True)
                jit = (kernels or {}, imported)
                out += _unchecked_axes(fn, call, kernel, pos[written].start.line, pos, helpers, jit)
    launched_tiles = {
        tile
        for _, call in _launch_calls(fn)
        if isinstance(call.func, cst.Subscript) and (k := (kernels or {}).get(dotted(call.func.value))) is not None
        for tile in _launch_tiles(call, k)
    }
    out += _asserted_counts(fn, pos, helpers or {}, launched_tiles, module or {})
    for written, call in _launch_calls(fn):  # after a host assert's reading of the same padded size (v97's)
        kernel = (kernels or {}).get(dotted(call.func.value)) if isinstance(call.func, cst.Subscript) else None
        if kernel is not None:
            out += _int32_strides(fn, call, kernel, pos[written].start.line, helpers or {})
            out += _flat_masks(call, kernel, pos[written].start.line)
    flags = _flag_tests(fn)
    rounded, padded = _rounded_up(fn)
    unmasked_grids = _grid_nodes(fn, unmasked, every=True) if launches_unmasked else set()
    local_once = assigned_once(fn)
    ceilings = _ceil_floors(fn.body)  # counts rounded up: no floor (n48); without masks, _grid_divs reads them
    grid_nodes = _grid_nodes(fn)
    for node in walk(fn.body):
        line = pos[node].start.line
        if id(node) in ceilings:
            continue
        if isinstance(node, cst.BinaryOperation) and isinstance(node.operator, cst.Modulo) and id(node) not in flags:
            tile = _tile_id(node.right)
            if tile is not None and padded.get(dotted(node.left)) != tile:
                out.append(Divides(tile, node.left, line, f"line {line} takes {_code(node)}", host=True))
        elif isinstance(node, cst.BinaryOperation) and isinstance(node.operator, cst.FloorDivide):
            tile, per = _tile_part(node.right)
            # (M + BLOCK - 1) // BLOCK covers the tail: only a floor of the size alone drops it
            if (
                tile is not None
                and tile[1] not in _names(node.left) | _strings(node.left)
                and padded.get(dotted(node.left)) != tile
            ):
                grid = id(node) in grid_nodes  # a floor elsewhere (``per = 8192 // warps``) is no grid's
                said = (
                    f"the grid at line {line} has {_code(node)} programs"
                    if grid
                    else f"line {line} takes {_code(node)}"
                )
                out.append(Divides(tile, node.left, line, said, per=per))
            elif tile is not None and padded.get(dotted(node.left)) == tile and id(node) in unmasked_grids:
                # ``Hp // BLOCK`` over ``Hp = triton.cdiv(H, BLOCK) * BLOCK``: cdiv(H, BLOCK) programs of a kernel
                # without masks, which read past ``H`` where the tile does not divide it unless its inputs are padded
                # alike (review27 r74: 512 over 256 was written plainly over an unpadded input): the tile divides the
                # size padded, or, not read, keeps to divisors of the original
                said = f"the grid at line {line} has {_code(node)} programs of a kernel without masks, a size padded "
                said += f"to whole tiles of {tile[1]}"
                size = _unpadded(node.left, local_once, tile)
                missing = None if size is not None else "the size padded is not read apart from its tile"
                out.append(Divides(tile, size, line, said, missing=missing))
    # a count in the grids of the module's masked kernels alone is no kernel's without masks (wrongkernel18: a
    # grid-stride sum masked ``offs < n`` beside an unmasked finishing kernel was guarded "without masks")
    masked = _grid_nodes(fn, [k for k in kernels or {} if k not in unmasked]) - _grid_nodes(fn, unmasked, every=True)
    counts = _grid_divs(fn, rounded, helpers) + _helper_cdivs(fn, helpers) if launches_unmasked else []
    for node, tile_expr, size in counts:
        if id(node) in masked:
            continue
        tile, line = _tile_id(tile_expr), pos[node].start.line
        why = f"the grid at line {line} has {_code(node)} programs of a kernel without masks"
        if tile is not None:
            out.append(Divides(tile, size, line, why))
        elif (product := _tile_product(tile_expr)) is not None:
            tiles, literal = product
            for i, one in enumerate(tiles):
                others = tiles[:i] + tiles[i + 1 :]
                out.append(Divides(one, size, line, why, factors=others, times=literal, times_before=literal))
    return out


#: Why a grid whose count of tiles is not read gets no guard by a size (:func:`_unread_grids`)
_UNREAD_GRID = "the grid's count of tiles is not read, so no guard by a size can be written"


def _unread_grids(
    fn: cst.FunctionDef, call: cst.Call, kernel: cst.FunctionDef, line: int, helpers: Mapping[str, cst.FunctionDef]
) -> list[Divides]:
    """A tile the launch ``call`` of a kernel without masks passes it that its grid's value names (through every
    binding of ``fn``, :func:`_tile_reading`) though kernelopt reads no count of it there (``from triton import cdiv
    as cd`` then ``cd(n, BLOCK)``, ``getattr(triton, "cdiv")(n, BLOCK)``, ``triton.cdiv(*sizes)``, ``int((n + BLOCK
    - 1) / BLOCK)``, ``len(range(0, n, BLOCK))``, a loop counting tiles, a helper of another module): the count is
    unknown, not unbounded, so a divisor of the original holds (it covers every size the original covered in whole
    tiles) and any other tile is refused (wrongkernel30, v149: ``BLOCK = 512`` over 256 was written plainly, its
    unmasked loads reading past the end at n = 768). A tile that is itself a grid's count (``(NUM_SMS,)``, a ``min``
    or ``max``'s bare argument) is read as that count."""
    if not isinstance(call.func, cst.Subscript):
        return []
    starts = [e.slice.value if isinstance(e.slice, cst.Index) else e.slice for e in call.func.slice]
    named, counted = _tile_reading(starts, fn, _launch_tiles(call, kernel), helpers, _axis_counts(starts, fn))
    why = (
        f"line {line} launches a kernel without masks on a grid that counts tiles of {{tile}} in a form kernelopt "
        "does not read"
    )
    return [
        Divides(tile, None, line, why.format(tile=tile[1]), missing=_UNREAD_GRID) for tile in sorted(named - counted)
    ]


#: Why a grid that counts its programs by a constant gets no guard by a size (:func:`_constant_counts`)
_FIXED_COUNT = "the grid's count does not move with the tile"

#: The operators a grid's count divides by (``>> 8``, ``// 256``, ``/ 256``)
_COUNT_DIVISIONS = (cst.RightShift, cst.FloorDivide, cst.Divide)


def _sized(dividend: cst.BaseExpression, tiles: Collection[tuple[str, str]]) -> bool:
    """Whether ``dividend`` names a size, a name no tile is (``n + BLOCK - 1``, ``n + 255``, ``x.shape[0]``): a count
    of it by a constant counts the size (``BLOCK_M // 16``, the tile alone, counts parts of the tile, which move with
    it)."""
    return any(isinstance(n, cst.Name) and _tile_id(n) not in tiles for n in walk(dividend))


def _constant_counts(
    fn: cst.FunctionDef,
    call: cst.Call,
    kernel: cst.FunctionDef,
    line: int,
    module: Mapping[str, cst.BaseExpression | Choices] | None = None,
) -> list[Divides]:
    """Each tile the launch ``call`` sets, where its grid counts the programs by dividing by a constant (an integer
    kernelopt reads, ``>> 8``, ``// 2**8``, or a power of two of names ``fn`` neither takes nor binds, the module's
    constants read or not, ``>> SHIFT``, ``// 2**SHIFT``; a literal divisor, ``// 256``, is the copy rules' own, a
    module constant's too, ``// TILE``: a grid's copy of a launch literal moves with it, :func:`_grid_literals`, and a
    copy left behind is refused, :func:`_stale_copies`) an axis of the grid itself or a size beside one of those tiles
    (``((n + BLOCK - 1) >> 8,)`` beside ``BLOCK = 256``): the count is the original tile's and does not move with a
    new one, so a smaller tile leaves the rest undone (masked or not) and a larger one reads past the end of a kernel
    without masks; only the original holds, failing closed (late47, v170: ``BLOCK = 128`` was written plainly and
    covered half of ``n``; :func:`_unread_grids`' rule held it, as a count that grows as the tile shrinks;
    wrongkernel31, v180: ``>> SHIFT`` over a module's ``SHIFT = 8`` was no constant, and 128 was written plainly
    the same). A division by a name whose value the module does not give (``module``, :func:`_module_values`: an
    imported ``TILE``) is no copy the copy rules can read, so over a size it is a constant too (v187: ``(n + BLOCK -
    1) // TILE`` with ``from sizes import TILE`` wrote 128 plainly); over a count of tiles read (``triton.cdiv(n,
    BLOCK) // WORLD``, a split) it is not. A name ``fn`` binds is such a constant where no value it takes reads a
    tile the launch sets (wrongkernel32, v190: ``SHIFT = 8``, ``int(os.environ[...])``, each branch of an ``if``, a
    ``global``, was read as moving with the tile, and 128 written plainly); ``SHIFT = BLOCK.bit_length() - 1`` moves
    with it."""
    if not isinstance(call.func, cst.Subscript):
        return []
    starts = [e.slice.value if isinstance(e.slice, cst.Index) else e.slice for e in call.func.slice]
    tiles = _launch_tiles(call, kernel)
    axes = _axis_counts(starts, fn)
    given = {  # the copy rules read these
        k for k, v in (module or {}).items() if isinstance(v, cst.BaseExpression) and integer_value(v) is not None
    }

    def moves(divisor: cst.BaseExpression) -> bool:
        """Whether a value ``divisor`` takes in ``fn`` (through every binding, the tests each stands under) reads a
        tile the launch sets (``SHIFT = BLOCK.bit_length() - 1``): a count that moves with the tile. A parameter, a
        global or an import reads none here."""
        return any(_tile_id(n) in tiles for value in reached_values([divisor], fn) for n in walk(value))

    def constant(division: cst.BinaryOperation) -> bool:
        divisor = division.right
        if integer_value(divisor) is not None:
            return True
        names = _names(divisor)
        shifted = isinstance(division.operator, cst.RightShift) or any(
            isinstance(n, cst.BinaryOperation) and isinstance(n.operator, cst.Power | cst.LeftShift)
            for n in walk(divisor)
        )  # a count by a power of two a name gives (``>> SHIFT``, ``// 2**SHIFT``), not ``// WORLD`` (a split)
        unread = (
            isinstance(divisor, cst.Name)
            and divisor.value not in given
            and not any(cdiv_args(n) is not None or _ceil_div(n) is not None for n in walk(division.left))
        )  # ``(n + BLOCK - 1) // TILE``, ``TILE`` imported: no copy rule reads it
        return (
            (shifted or unread)
            and bool(names)
            and not moves(divisor)
            and not any(isinstance(n, cst.Call) or _tile_id(n) in tiles for n in walk(divisor))
        )

    def powered(division: cst.BinaryOperation) -> bool:  # ``>> SHIFT``, ``// 2**SHIFT``, ``// (1 << SHIFT)``
        return isinstance(division.operator, cst.RightShift) or any(
            isinstance(n, cst.BinaryOperation) and isinstance(n.operator, cst.Power | cst.LeftShift)
            for n in walk(division.right)
        )

    def copied(division: cst.BinaryOperation) -> bool:  # ``(n + BLOCK - 1) // TILE``, a local computed from the tile
        return (
            isinstance(division.right, cst.Name)
            and _tile_id(division.right) not in tiles
            and not any(cdiv_args(n) is not None or _ceil_div(n) is not None for n in walk(division.left))
        )

    found: cst.BaseExpression | None = None
    moving: list[Divides] = []
    for expr in reached_values(starts, fn):
        for node in walk(expr):
            if not (
                isinstance(node, cst.BinaryOperation)
                and isinstance(node.operator, _COUNT_DIVISIONS)
                and _sized(node.left, tiles)
                and (id(node) in axes or any(_tile_id(n) in tiles for n in walk(node.left)))
            ):
                continue
            if constant(node) and not (
                isinstance(node.right, cst.Integer) and not isinstance(node.operator, cst.RightShift)
            ):
                found = found or node
            elif (powered(node) or copied(node)) and moves(node.right):
                moving += _moving_power(fn, node, tiles, line, kernel.name.value)
    if found is None:
        return moving
    why = f"line {line} launches {kernel.name.value} on a grid that counts its programs by a constant, {_code(found)}"
    return [Divides(t, None, line, f"{why}, not by {t[1]}", missing=_FIXED_COUNT, fixed=True) for t in sorted(tiles)]


def _moving_power(
    fn: cst.FunctionDef, division: cst.BinaryOperation, tiles: Collection[tuple[str, str]], line: int, kernel: str
) -> list[Divides]:
    """A grid's count by a power of two that moves with a tile the launch sets (``(n + BLOCK - 1) >> SHIFT`` with
    ``SHIFT = BLOCK.bit_length() - 1`` in the launcher): whole tiles of the size only where the power is the tile
    (``1 << SHIFT == BLOCK``), a check on the tile by itself, read through ``fn``'s locals bound once (the copy of the
    tile's value in the dividend counted too: ``(n + 255) >> SHIFT`` moves no ``255``, so only the original holds).
    wrongkernel32, v197: any such count was the divisor rule's, and ``SHIFT = 8 if BLOCK >= 256 else 7`` (or ``max(7,
    BLOCK.bit_length() - 1)``) wrote ``BLOCK = 64`` plainly, ``(n + 63) >> 7`` programs of 64 lanes covering half of
    ``n``. A power not worked out (a local bound in each branch of an ``if``, a call) holds only the original. A
    plain divisor the launcher computes from the tile (``TILE = 256 if BLOCK else 1`` then ``(n + BLOCK - 1) //
    TILE``, review29's Seen line on v197) is read the same: whole tiles where it is the tile."""
    power = (
        cst.BinaryOperation(cst.Integer("1"), cst.LeftShift(), _parenthesized(division.right))
        if isinstance(division.operator, cst.RightShift)
        else division.right
    )
    named = {t[1] for t in tiles if t[0] == "name"}  # the tile stays a name: the check reads it at each value
    local = {k: _parenthesized(v) for k, v in assigned_once(fn).items() if k not in named}
    for _ in range(8):  # a chain of locals (``shift = bits - 1``, ``bits = BLOCK.bit_length()``), worked out in turn
        worked = _substituted(power, local)
        if _code(worked) == _code(power):
            break
        power = worked
    read = {t for n in walk(division) if (t := _tile_id(n)) in tiles and t[0] == "name"}
    out: list[Divides] = []
    for tile in sorted(read | {t for n in walk(power) if (t := _tile_id(n)) in tiles and t[0] == "name"}):
        why = (
            f"line {line} launches {kernel} on a grid counting its programs by {_code(division)}, whole tiles of "
            f"{tile[1]} only where {_code(power)} is {tile[1]}"
        )
        fixed = not any(_tile_id(n) == tile for n in walk(division.left))  # ``n + 255``: a copy that does not move
        check = f"({_code(power)}) == {tile[1]}"
        unknown = _names(power) - _PURE - {tile[1]}  # a local bound twice (``SHIFT = 8``, then under an ``if``)
        missing = _UNREAD_CHECK if unknown else "its count of programs is then no count of tiles"
        out.append(Divides(tile, None, line, why, check=check, missing=missing, fixed=fixed))
    return out


def _axis_counts(starts: Sequence[cst.BaseExpression], fn: cst.FunctionDef) -> set[int]:
    """The ids of the expressions that are a grid's axes, each a count of programs itself, and of their factors
    (``SPLIT_K`` of ``(triton.cdiv(M, BLOCK_M), SPLIT_K)``, ``B * H``): the tuple or list written at the launch, or
    each one a name it is bound to (:func:`~kernelopt.tunables.bindings.bindings`), a lambda so bound returns or a
    nested function of that name returns. A tile on an axis of its own is that axis's count, read; a tuple elsewhere
    (``sizes = (n, BLOCK)`` splatted into a call) is none."""
    bound = bindings(fn)
    nested = {d.name.value: d for d in typed(fn.body, cst.FunctionDef)}
    grids: list[cst.CSTNode] = []
    for start in starts:
        values = [v for v in bound.get(start.value, ()) if v is not None] if isinstance(start, cst.Name) else [start]
        for value in values:
            grids.append(value.body if isinstance(value, cst.Lambda) else value)
        if isinstance(start, cst.Name) and start.value in nested:
            grids += [r.value for r in typed(nested[start.value].body, cst.Return) if r.value is not None]
    return {
        id(factor)
        for grid in grids
        if isinstance(grid, cst.Tuple | cst.List)
        for element in grid.elements
        for factor in [element.value, *_product_factors(element.value)]
    }


def _launch_tiles(call: cst.Call, kernel: cst.FunctionDef) -> set[tuple[str, str]]:
    """The tiles the launch ``call`` sets ``kernel``'s constexprs by (``BLOCK=BLOCK``: ``("name", "BLOCK")``), and
    each constexpr as a grid function's ``meta`` key."""
    constexprs = set(constexpr_params(kernel))
    passed = _passed(call, kernel)
    return {("meta", p) for p in constexprs} | {
        t for p, v in passed.items() if p in constexprs and _int(v) is None and (t := _tile_id(v)) is not None
    }


def _tile_reading(
    starts: Sequence[cst.BaseExpression],
    fn: cst.FunctionDef,
    tiles: Collection[tuple[str, str]],
    helpers: Mapping[str, cst.FunctionDef],
    axes: Collection[int] = (),
) -> tuple[set[tuple[str, str]], set[tuple[str, str]]]:
    """(named, counted) of the values ``starts`` take in ``fn`` (:func:`~kernelopt.tunables.bindings.reached_values`):
    the ``tiles`` they name inside a computation (not a start itself, nor a ``min`` or ``max``'s bare argument: a
    count of programs the tile is, nor one of ``axes``: :func:`_axis_counts`), and
    every tile of a count of tiles kernelopt reads among them (:func:`_tile_count`, a module helper's ``cdiv``, a
    ``math.ceil``). A tile named and not counted is counted in a form not read: the rules that fail closed take it
    as unknown (:func:`_unread_grids`, :func:`_unread_counts`)."""
    named: set[tuple[str, str]] = set()
    counted: set[tuple[str, str] | None] = set()
    for expr in reached_values(starts, fn):
        bare = {id(expr), *axes} | {
            id(a.value)
            for n in walk(expr)
            if isinstance(n, cst.Call) and dotted(n.func) in ("min", "max")
            for a in n.args
        }
        for node in walk(expr):
            if not isinstance(node, cst.BaseExpression):
                continue
            if id(node) not in bare and (tile := _tile_id(node)) in tiles:
                named.add(tile)  # type: ignore[arg-type]
            if (count := _tile_count(node, helpers)) is not None:
                product = _tile_product(count[0])
                counted |= {_tile_id(count[0]), *(product[0] if product is not None else ())}
            elif isinstance(node, cst.Call) and isinstance(node.func, cst.Name) and node.func.value in helpers:
                counted |= {_tile_id(t) for _, t, _ in _helper_call_cdivs(node, fn, helpers)}
            if (by_ceil := ceil_args(node) or _divmod_args(node)) is not None:
                counted.add(_tile_id(by_ceil[1]))
    return named, {t for t in counted if t is not None}


#: Why a count bound by an unpacking kernelopt does not pair gets no guard by a size (:func:`_unpaired_counts`)
_UNPAIRED = "the count's size is not read, so no guard by it can be written"


def _unpaired_counts(fn: cst.FunctionDef, call: cst.Call, line: int) -> list[Divides]:
    """A name the launch of a kernel without masks reads (in its grid or arguments, through the locals bound once to
    what it reads) that an unpacking binds where its sides do not pair (``grid_m, n_tiles = (triton.cdiv(s, b) for s,
    b in ((M, BLOCK_M), (N, BLOCK_N)))``, a list comprehension, ``map(...)``), its value naming a tile: the count is
    not read, so it is unknown, not unbounded, and the rule fails closed: each tile the value names must divide the
    original (which pads no further), else the change is refused (wrongkernel28, v147: ``BLOCK_N = 128`` over 64 was
    written plainly, its unmasked loop reading 64 values past the end at N = 192). ``M, N = x.shape`` names no tile a
    launch sets, so no move is refused by it."""
    local = assigned_once(fn)
    read = {n for n in _names(call)}
    todo = list(read)
    while todo:
        name = todo.pop()
        for n in _names(local[name]) if name in local else ():
            if n not in read:
                read.add(n)
                todo.append(n)
    out: list[Divides] = []
    for node in walk(fn.body):
        if not isinstance(node, cst.Assign):
            continue
        unpaired = [b.name for b in made_by(node) if b.value is None and b.taken is node.value and b.name in read]
        if not unpaired or _divmod_args(node.value) is not None:  # whole tiles and the rest: read (_grid_divs)
            continue
        bound = {b.name for b in made_by(node)}
        why = (
            f"line {line} launches a kernel without masks on {', '.join(unpaired)}, bound by an unpacking of "
            f"{_code(node.value).strip()} that kernelopt does not follow"
        )
        for tile in sorted(_names(node.value) - bound):
            out.append(Divides(("name", tile), None, line, why, missing=_UNPAIRED))
    return out


def _tile_part(expr: cst.BaseExpression) -> tuple[tuple[str, str] | None, int]:
    """A tile (:func:`_tile_id`) and 1, or a tile's part and its divisor (``(BLOCK_M // 16)``: ``BLOCK_M``, 16; a
    column tile computed from the row tile, v114); ``(None, 1)`` for anything else."""
    inner = expr.with_changes(lpar=[], rpar=[]) if isinstance(expr, cst.BinaryOperation) else expr
    if isinstance(inner, cst.BinaryOperation) and isinstance(inner.operator, cst.FloorDivide):
        tile, per = _tile_id(inner.left), _int(inner.right)
        if tile is not None and per is not None and per > 1:
            return tile, per
    return _tile_id(expr), 1


def _divided_tiles(call: cst.Call, kernel: cst.FunctionDef, line: int) -> list[Divides]:
    """A tile the kernel divides by a size it is given as a constexpr (``BLOCK // N`` with ``N: tl.constexpr``,
    ``tl.reshape(x, (BLOCK // N, N))``: a block of rows of N, v44): the launch's ``N`` must divide its tile, or
    the shape is wrong (or empty) there. ``N`` passed a literal is not a size; a size passed at runtime makes the
    quotient a value, not a shape, and is not read."""
    passed = _passed(call, kernel)
    constexprs = set(constexpr_params(kernel))
    out: list[Divides] = []
    for node in walk(kernel.body):
        if not (isinstance(node, cst.BinaryOperation) and isinstance(node.operator, cst.FloorDivide)):
            continue
        block, size = node.left, node.right
        if not (isinstance(block, cst.Name) and isinstance(size, cst.Name)):
            continue
        if not {block.value, size.value} <= constexprs or block.value not in passed or size.value not in passed:
            continue
        given = passed[block.value]
        tile = (
            ("meta", block.value)
            if _int(given) is not None
            else _tile_id(given)
            if isinstance(given, cst.Name | cst.Attribute)
            else None
        )
        if tile is None or _int(passed[size.value]) is not None:
            continue
        why = f"the kernel {kernel.name.value} takes {_code(node)}: {size.value} must divide {block.value}"
        out.append(Divides(tile, passed[size.value], line, why, divided=True))
    return out


def _grouped_tiles(call: cst.Call, kernel: cst.FunctionDef, line: int) -> list[Divides]:
    """A tile whose program's first index the kernel divides by a size the launch gives it at runtime (vLLM's AWQ
    dequantization, ``pid_y * BLOCK_SIZE_Y // group_size + tl.arange(0, 1)``: the one row of zeros and scales every
    row of the tile reads): a tile that straddles two groups reads the first one's for both, so the launch's tile must
    divide the size (breaker13). A size given as a constexpr is the data's grain instead, held
    (:mod:`kernelopt.tunables.grains`)."""
    passed = _passed(call, kernel)
    constexprs = set(constexpr_params(kernel))
    local = assigned_once(kernel)  # the first index read through a local (``row0 = pid_y * BLOCK_SIZE_Y``, b4)
    out: list[Divides] = []
    for node in walk(kernel.body):
        if not (isinstance(node, cst.BinaryOperation) and isinstance(node.operator, cst.FloorDivide)):
            continue
        size = _group_size(node.right, local, passed, constexprs)
        if size is None:
            continue
        offset = tile_offset(node.left, constexprs, local)
        if offset is None:
            continue
        group = _code(node.right)
        for block in sorted(_names(offset) & constexprs):
            tile = _passed_tile(passed, block)
            if tile is not None:
                why = (
                    f"the kernel {kernel.name.value} takes {_code(node.with_changes(lpar=[], rpar=[]))}: one "
                    f"{group} group a program, so {block} must divide {group}"
                )
                out.append(Divides(tile, size, line, why))
    return out


def _group_size(
    divisor: cst.BaseExpression,
    local: Mapping[str, cst.BaseExpression],
    passed: Mapping[str, cst.BaseExpression],
    constexprs: Collection[str],
) -> cst.BaseExpression | None:
    """The size a kernel divides a tile's first index by (:func:`_grouped_tiles`), in the launch's arguments: a
    parameter the launch passes at runtime (``group_size``), or a local of the body bound once to an expression of
    such parameters (``gs = group_size``, ``group_size = num_rows // num_groups``: b4); ``None`` for any other (a
    constexpr is the data's grain, held)."""
    if isinstance(divisor, cst.Name) and divisor.value in local:
        divisor = local[divisor.value]
    names = _names(divisor)
    if not names or names & set(constexprs) or not names <= set(passed):
        return None
    if not all(isinstance(n, cst.Name | cst.BinaryOperation | cst.Integer) for n in [divisor]):
        return None
    return divisor.visit(Substitute({n: _parenthesized(passed[n]) for n in names}))  # type: ignore[return-value]


def _kept_literals(old: Sequence[cst.FunctionDef], new: Sequence[cst.FunctionDef], fn: cst.FunctionDef) -> set[int]:
    """The ids of ``fn``'s count literals (``triton.cdiv(N, 32)``'s 32, :func:`_divisions`) that hold the value the
    same place of the original held: no tile's copy moved with it, whatever tile's new value they equal."""
    if len(old) != len(new):
        return set()
    for o, n in zip(old, new, strict=True):
        if n is fn:
            return {id(d) for b, _, d, _ in _divisions(o.body, n.body) if b is not None and b == _int(d)}
    return set()


def _tile_product(expr: cst.BaseExpression) -> tuple[tuple[tuple[str, str], ...], int] | None:
    """A product of two or more factors, at least one a tile (``meta["BLOCK"] * meta["UNROLL"]``, ``BLOCK * 4``):
    the tiles and the product of the literal factors; ``None`` for anything else."""
    factors: list[cst.BaseExpression] = []

    def flat(node: cst.BaseExpression) -> None:
        if isinstance(node, cst.BinaryOperation) and isinstance(node.operator, cst.Multiply):
            flat(node.left)
            flat(node.right)
        else:
            factors.append(node)

    flat(expr)
    if len(factors) < 2:
        return None
    tiles, literal = [], 1
    for factor in factors:
        value, tile = _int(factor), _tile_id(factor)
        if value is not None:
            literal *= value
        elif tile is not None:
            tiles.append(tile)
        else:
            return None
    return (tuple(tiles), literal) if tiles else None


def _with_partners(
    need: Divides, fn: cst.FunctionDef, moves: Mapping[tuple[int, tuple[str, str]], tuple[int, int]]
) -> Divides | None:
    """``need`` with its partner tiles' values put in (:attr:`Divides.factors`): a partner the edit moved at its
    original and edited values (``moves``: (id of the launching function, tile) -> (before, after)), one it kept at
    the value ``fn`` passes (a launch keyword's literal, a local bound once to one); ``None`` where one is not read."""
    before, after = need.times_before, need.times
    for tile in need.factors:
        moved = moves.get((id(fn), tile))
        if moved is None:
            value = _passed_value(fn, tile)
            if value is None:
                return None
            moved = (value, value)
        before, after = before * moved[0], after * moved[1]
    return replace(need, factors=(), times=after, times_before=before)


def _passed_value(fn: cst.FunctionDef, tile: tuple[str, str]) -> int | None:
    """The value ``fn`` gives a tile it does not move: a name bound once to a literal, or a keyword its launches
    pass one literal (``meta["UNROLL"]`` beside ``UNROLL=3``)."""
    if tile[0] == "name":
        return _launch_value(fn, cst.Name(tile[1]))
    values = {
        _launch_value(fn, arg.value)
        for _, call in _launch_calls(fn)
        for arg in call.args
        if arg.keyword is not None and arg.keyword.value == tile[1]
    }
    return values.pop() if len(values) == 1 else None


def _ceil_div(node: cst.CSTNode) -> tuple[cst.BaseExpression, cst.BaseExpression] | None:
    """``(size + tile - 1) // tile`` (either order of the sum) as (tile, size); else ``None``."""
    if not (isinstance(node, cst.BinaryOperation) and isinstance(node.operator, cst.FloorDivide)):
        return None
    tile, left = _tile_id(node.right), node.left
    one = isinstance(left, cst.BinaryOperation) and isinstance(left.operator, cst.Subtract)
    if tile is None or not one or _int(left.right) != 1:  # type: ignore[union-attr]
        return None
    total = left.left  # type: ignore[union-attr]
    if not (isinstance(total, cst.BinaryOperation) and isinstance(total.operator, cst.Add)):
        return None
    for size, other in ((total.left, total.right), (total.right, total.left)):
        if _tile_id(other) == tile and tile[1] not in _names(size) | _strings(size):
            return node.right, size.with_changes(lpar=[], rpar=[])
    return None


def _grid_divs(
    fn: cst.FunctionDef, rounded: Collection[int] = (), helpers: Mapping[str, cst.FunctionDef] | None = None
) -> list[tuple[cst.CSTNode, cst.BaseExpression, cst.BaseExpression]]:
    """The counts of whole tiles ``fn`` takes, ``triton.cdiv(size, tile)`` or ``(size + tile - 1) // tile``, or a
    call of the module's own ceiling helper among ``helpers`` (``ceil_div(size, tile)``, :func:`_helper_ceiling`:
    wrongkernel22, v95), or ``divmod(size, tile)`` (:func:`_divmod_args`), as (node, tile, size), less those in
    ``rounded`` (a size rounded up to the tile, :func:`_rounded_up`): a grid of that many programs covers ``size`` in
    whole tiles, so over accesses that do not check the tile's axis the tile must divide the size."""
    out: list[tuple[cst.CSTNode, cst.BaseExpression, cst.BaseExpression]] = []
    ceilings = _ceil_floors(fn.body)
    for node in walk(fn.body):
        if id(node) in rounded:
            continue
        if isinstance(node, cst.BaseExpression) and (called := _helper_ceiling(node, helpers or {})) is not None:
            out.append((node, *called))
        elif (counted := cdiv_args(node)) is not None:
            out.append((node, counted[1], counted[0]))
        elif (ceil := _ceil_div(node)) is not None:
            out.append((node, *ceil))
        elif (split := _divmod_args(node)) is not None:
            out.append((node, split[1], split[0]))
        elif (by_ceil := ceil_args(node) or ceilings.get(id(node))) is not None:
            tile = _tile_id(by_ceil[1])
            if tile is not None and tile[1] not in _names(by_ceil[0]) | _strings(by_ceil[0]):
                out.append((node, by_ceil[1], by_ceil[0]))
    return out


def _divmod_args(node: cst.CSTNode) -> tuple[cst.BaseExpression, cst.BaseExpression] | None:
    """(size, tile) of ``divmod(size, tile)``, two plain arguments: the whole tiles of ``size`` and the rest, a count
    rounded down (``div``) or up (``div + (mod != 0)``, unsloth's chunked cross-entropy): either covers ``size`` in
    whole tiles of ``tile`` exactly where the tile divides it (wrongkernel31, v186: such a count was read as none,
    and a tile past a divisor of the original refused where a guard by the size makes it right; lead's d46)."""
    if not (isinstance(node, cst.Call) and dotted(node.func) == "divmod" and len(node.args) == 2):
        return None
    if any(a.keyword is not None or a.star for a in node.args):
        return None
    return node.args[0].value, node.args[1].value


def _parenthesized(expr: cst.BaseExpression) -> cst.BaseExpression:
    """``expr`` in parentheses where an operator around it could bind tighter (``n - 1`` put into ``2 * n``)."""
    simple = (cst.Name, cst.Attribute, cst.Subscript, cst.Call, cst.Integer)
    if isinstance(expr, simple) or expr.lpar:
        return expr
    return expr.with_changes(lpar=[cst.LeftParen()], rpar=[cst.RightParen()])


def _helper_cdivs(
    fn: cst.FunctionDef, helpers: Mapping[str, cst.FunctionDef] | None
) -> list[tuple[cst.CSTNode, cst.BaseExpression, cst.BaseExpression]]:
    """The ``triton.cdiv(size, tile)`` of the module's functions ``fn`` calls (a grid written in a helper,
    ``lambda meta: _grid(M, N, meta)``), each with its size as ``fn`` passes it (the helper's parameters replaced
    by the arguments of the call, in its tile too); a size that reads a name the call does not pass is left out. A
    ceiling helper's call (``ceil_div(n, BLOCK)``) is :func:`_grid_divs`'s, read where it is called."""
    return [
        found
        for call in walk(fn.body)
        if isinstance(call, cst.Call) and isinstance(call.func, cst.Name)
        for found in _helper_call_cdivs(call, fn, helpers or {})
    ]


def _helper_call_cdivs(
    call: cst.Call, fn: cst.FunctionDef, helpers: Mapping[str, cst.FunctionDef]
) -> list[tuple[cst.CSTNode, cst.BaseExpression, cst.BaseExpression]]:
    """:func:`_helper_cdivs` of the one call ``call`` of ``fn``."""
    helper = helpers.get(call.func.value) if isinstance(call.func, cst.Name) else None
    if helper is None or helper is fn or any(a.star for a in call.args) or _helper_ceiling(call, helpers):
        return []
    params = param_names(helper)
    given: dict[str, cst.BaseExpression] = {}
    for i, arg in enumerate(call.args):
        if arg.keyword is not None:
            given[arg.keyword.value] = arg.value
        elif i < len(params):
            given[params[i]] = arg.value
    return [
        (node, _substituted(tile, given), _substituted(size, given))
        for node, tile, size in _grid_divs(helper, _rounded_up(helper)[0])
        if _names(size) <= set(given)
    ]


def _rounded_up(fn: cst.FunctionDef) -> tuple[set[int], dict[str, tuple[str, str]]]:
    """The sizes ``fn`` rounds up to whole tiles itself (``Hp = triton.cdiv(H, BLOCK_H) * BLOCK_H``, or ``(H +
    BLOCK_H - 1) // BLOCK_H * BLOCK_H``: a buffer padded to the tile): the ids of those ``cdiv`` calls (a round-up,
    not a count of programs) and each name bound once to such a product, with its tile. Any tile divides such a
    size, so neither is a requirement."""
    rounded: set[int] = set()
    products: dict[int, tuple[str, str]] = {}
    for node in walk(fn.body):
        if not (isinstance(node, cst.BinaryOperation) and isinstance(node.operator, cst.Multiply)):
            continue
        for count, other in ((node.left, node.right), (node.right, node.left)):
            tile = _tile_id(other)
            if tile is None:
                continue
            by_cdiv = (counted := cdiv_args(count)) is not None and _tile_id(counted[1]) == tile
            by_floor = (  # (H + T - 1) // T * T
                isinstance(count, cst.BinaryOperation)
                and isinstance(count.operator, cst.FloorDivide)
                and _tile_id(count.right) == tile
                and tile[1] in _names(count.left)
            )
            if by_cdiv or by_floor:
                rounded.add(id(count))
                products[id(node)] = tile
    padded = {name: products[id(value)] for name, value in assigned_once(fn).items() if id(value) in products}
    return rounded, padded


def _grid_nodes(fn: cst.FunctionDef, of: Collection[str] | None = None, every: bool = False) -> set[int]:
    """The ids of the nodes of ``fn``'s launch grids: each launch's subscript, and the values of the assignments to
    the names it reads (``programs = n // BLOCK`` beside ``kernel[(programs,)]``), followed through names so bound;
    ``of``: the launches of those kernels only (``None``: every launch). A name an unpacking binds is followed to the
    element it takes (``grid_m, n_tiles = triton.cdiv(M, BM), triton.cdiv(N, BN)``: ``grid_m``'s count alone), and
    not at all where the sides do not pair (``M, N = x.shape``): since a2c745b9 the whole tuple was read as the grid,
    so a count beside a masked kernel's grid (``n_tiles``, an unmasked loop's) was taken for that grid's and its
    kernel's divisor dropped (leftovers25, l82). ``every``: followed through every binding instead
    (:func:`~kernelopt.tunables.bindings.reached_values`: an augmented assignment, a walrus, a loop's variable, an
    unpacking not paired), the reading that fails closed for the grids of kernels without masks, whose nodes a
    masked kernel's grid must not take from them (wrongkernel30, v156: ``g += n_tiles`` was not followed, the count
    taken for a masked kernel's alone, and the unmasked kernel's tile written plainly)."""
    grids: list[cst.CSTNode] = [
        element
        for _, call in _launch_calls(fn)
        if isinstance(call.func, cst.Subscript) and (of is None or dotted(call.func.value) in of)
        for element in call.func.slice
    ]
    if every:
        return {id(node) for value in reached_values(grids, fn) for node in walk(value)}
    names = {n for grid in grids for n in _names(grid)}
    assigned = [
        (b.name, b.taken)
        for node in walk(fn.body)
        if isinstance(node, cst.Assign)
        for b in made_by(node)
        if b.taken is not None and (b.value is not None or b.taken is not node.value)
    ]
    seen: set[str] = set()
    while names - seen:
        seen |= names
        grids += [value for made, value in assigned if made in names]
        names = seen | {n for made, value in assigned if made in seen for n in _names(value)}
    return {id(node) for grid in grids for node in walk(grid)}


def _launch_calls(fn: cst.CSTNode) -> list[tuple[cst.Call, cst.Call]]:
    """The launches in ``fn`` (a function, or one statement) as written and as ``kernel[grid](args)`` calls:
    ``functools.partial(kernel[grid], BLOCK=512)`` is read as ``kernel[grid](BLOCK=512)`` (the arguments it binds;
    the tensors come later)."""
    out: list[tuple[cst.Call, cst.Call]] = []
    warmed = warmed_kernels(fn)
    for node in typed(fn.body if isinstance(fn, cst.FunctionDef) else fn, cst.Call):
        if isinstance(node.func, cst.Subscript) and (compiled := _warmed_launch(node, warmed)) is not None:
            out.append((node, compiled))
            continue
        if isinstance(node.func, cst.Subscript):
            kernel = launched(node.func.value)  # ``wrap_triton(kernel)[grid](...)`` launches ``kernel``
            out.append((node, node if kernel is node.func.value else node.with_deep_changes(node.func, value=kernel)))
            continue
        first = node.args[0] if node.args else None
        if (
            dotted(node.func) in ("functools.partial", "partial")
            and first is not None
            and first.keyword is None
            and not first.star
            and isinstance(first.value, cst.Subscript)
        ):
            out.append((node, cst.Call(func=first.value, args=node.args[1:])))
    return out


def _warmed_launch(node: cst.Call, warmed: Mapping[str, cst.Call]) -> cst.Call | None:
    """A launch of a compile ``warmed`` holds (``_compiled[x.dtype][grid](y, x, n, BLOCK)`` with ``_compiled[x.dtype]
    = kernel.warmup(..., BLOCK=BLOCK, grid=(1,))``, the softmax tutorial's form) as the launch of its kernel,
    ``kernel[grid](y, x, n, BLOCK, BLOCK=BLOCK)``: its arguments and the compile's settings (wrongkernel22: such a
    launch was read by no rule, v98's ``BLOCK_SIZE = 512`` of 128 written plainly past the end of 3 x 128 values)."""
    assert isinstance(node.func, cst.Subscript)
    held = node.func.value
    name = dotted(held.value) if isinstance(held, cst.Subscript) else dotted(held)
    compile_ = warmed.get(name)
    if compile_ is None or not isinstance(compile_.func, cst.Attribute):
        return None
    given = {a.keyword.value for a in node.args if a.keyword is not None} | {"grid"}
    settings = [a for a in compile_.args if a.keyword is not None and a.keyword.value not in given]
    args = [*node.args, *settings]
    if args:
        args[-1] = args[-1].with_changes(comma=cst.MaybeSentinel.DEFAULT)
        args[:-1] = [a.with_changes(comma=cst.Comma(whitespace_after=cst.SimpleWhitespace(" "))) for a in args[:-1]]
    return cst.Call(func=node.func.with_changes(value=compile_.func.value), args=args)


def _flag_tests(fn: cst.FunctionDef) -> set[int]:
    """The ``%`` of a test a kernel is passed as a flag (``EVEN_K=K % BLOCK_K == 0`` at a launch, or ``even = K %
    BLOCK_K == 0`` then ``EVEN_K=even``): the kernel branches on it, so it says nothing a tile must divide (ids of
    the ``%`` nodes)."""
    passed = {a.value for _, call in _launch_calls(fn) for a in call.args}
    names = {v.value for v in passed if isinstance(v, cst.Name)}
    roots = list(passed)
    for node in walk(fn.body):
        if isinstance(node, cst.Assign) and any(dotted(t.target) in names for t in node.targets):
            roots.append(node.value)
    out: set[int] = set()
    for root in roots:
        for test in walk(root):
            if isinstance(test, cst.Comparison):
                out |= {
                    id(m)
                    for m in walk(test)
                    if isinstance(m, cst.BinaryOperation) and isinstance(m.operator, cst.Modulo)
                }
    return out


def _keyword_literals(call: cst.Call) -> dict[int, list[str]]:
    """Integer literal -> the keywords a launch passes it as (``BLOCK=64, GROUP=64``: ``{64: ["BLOCK", "GROUP"]}``)."""
    literals: dict[int, list[str]] = {}
    for arg in call.args:
        value = _int(arg.value) if arg.keyword is not None else None
        if value is not None and arg.keyword is not None:
            literals.setdefault(value, []).append(arg.keyword.value)
    return literals


def _grid_literals(call: cst.Call, line: int, kernel: cst.FunctionDef | None = None) -> list[Divides]:
    """A grid written with the launch literal's value in place of its name (``k[(n // 64,)](.., BLOCK=64)`` or
    ``triton.cdiv(n, 64)``) of a kernel without masks: the keyword's tile must divide ``n``, and the grid's
    literal is that tile's copy (a guard names both). Where two keywords share the value, the copy is the one
    ``kernel`` tiles that grid axis or that size with (:func:`_copy_owners`)."""
    literals = _keyword_literals(call)
    axes = _grid_axes(call)
    out: list[Divides] = []
    ceilings = _ceil_floors(call.func.slice[0]) if isinstance(call.func, cst.Subscript) else {}
    by_literals = _literal_ceils(call.func.slice[0]) if isinstance(call.func, cst.Subscript) else set()
    for node in walk(call.func.slice[0]) if isinstance(call.func, cst.Subscript) else ():
        if id(node) in by_literals:
            continue  # no guard for it: _unguarded_divisor says so (n50)
        if id(node) in ceilings:
            size, tile = ceilings[id(node)]
        elif isinstance(node, cst.BinaryOperation) and isinstance(node.operator, cst.FloorDivide | cst.Modulo):
            size, tile = node.left, node.right
        elif (counted := ceil_count(node)) is not None:
            size, tile = counted
        else:
            continue
        value = _int(tile)
        keywords = literals.get(value, []) if value is not None else []
        if len(keywords) > 1 and kernel is not None:
            keywords = _copy_owners(keywords, axes.get(id(node)), size, call, kernel)
        for keyword in keywords:
            why = f"the grid at line {line} has {_code(node)} programs of a kernel without masks"
            out.append(Divides(("meta", keyword), size, line, why, tile))  # type: ignore[arg-type]
    return out


def _grid_axes(call: cst.Call) -> dict[int, int]:
    """Id of each node of a grid written as a tuple at the launch ``call`` -> the grid axis whose count it is part
    of (``k[(triton.cdiv(M, 32), triton.cdiv(N, 32))]``: the first count's nodes 0, the second's 1)."""
    if not isinstance(call.func, cst.Subscript) or len(call.func.slice) != 1:
        return {}
    index = call.func.slice[0].slice
    grid = index.value if isinstance(index, cst.Index) else None
    if not isinstance(grid, cst.Tuple | cst.List):
        return {}
    return {id(node): axis for axis, element in enumerate(grid.elements) for node in walk(element.value)}


def _axis_blocks(kernel: cst.FunctionDef) -> dict[int, set[str]]:
    """Grid axis -> the ``tl.constexpr`` blocks ``kernel`` multiplies that axis's program id by (``pid_n *
    BLOCK_N`` with ``pid_n = tl.program_id(1)``, or the call written in place): the tile each axis's programs
    step by. A program id remapped (a grouped order) is read as no axis."""
    blocks = set(constexpr_params(kernel))
    local = assigned_once(kernel)

    def axis(expr: cst.BaseExpression) -> int | None:
        expr = local.get(expr.value, expr) if isinstance(expr, cst.Name) else expr
        if not (isinstance(expr, cst.Call) and dotted(expr.func).split(".")[-1] == "program_id"):
            return None
        arg = next((a.value for a in expr.args if a.keyword is None or a.keyword.value == "axis"), None)
        return _int(arg) if arg is not None else 0

    out: dict[int, set[str]] = {}
    for node in walk(kernel.body):
        if isinstance(node, cst.BinaryOperation) and isinstance(node.operator, cst.Multiply):
            for side, other in ((node.left, node.right), (node.right, node.left)):
                if isinstance(side, cst.Name) and side.value in blocks and (at := axis(other)) is not None:
                    out.setdefault(at, set()).add(side.value)
    return out


def _copy_owners(
    keywords: list[str], axis: int | None, size: cst.BaseExpression, call: cst.Call, kernel: cst.FunctionDef
) -> list[str]:
    """Of the launch keywords that share a grid literal's value, the ones whose copy it is: the block ``kernel``
    steps that grid axis's programs by (``tl.program_id(axis)``, :func:`_axis_blocks`), else the block its masks
    compare with the size the count covers (``rows < M`` beside ``triton.cdiv(M, 32)``); every one of them where
    neither tells (break14: the rows' copy was read as the columns' tile too, a guard stricter than needed and a
    note naming the wrong copy)."""
    stepping = set(_axis_blocks(kernel).get(axis, set())) if axis is not None else set()
    owners = [k for k in keywords if k in stepping]
    if owners:
        return owners
    params = {k for k, v in _passed(call, kernel).items() if _code(v).strip() == _code(size).strip()}
    tiling = {b for b, sizes in compared_sizes(kernel).items() if sizes & params}
    return [k for k in keywords if k in tiling] or keywords


GRID_AXIS_MOST = GRID_AXES_MOST[1]
"""The most programs a CUDA launch may have on its grid's second and third axes (``gridDim.y``, ``gridDim.z``; the
first takes 2**31 - 1): Triton passes its grid to the driver unchecked, and a launch past it fails ("invalid
argument") where the interpreter runs it."""


def _grid_axis_limits(
    fn: cst.FunctionDef,
    call: cst.Call,
    kernel: cst.FunctionDef,
    line: int,
    helpers: Mapping[str, cst.FunctionDef] | None = None,
) -> list[Divides]:
    """What the launch ``call``'s grid says of a tile on its second or third axis (``k[(rows, triton.cdiv(n,
    BLOCK))]``, a ``lambda meta:`` grid's ``meta["BLOCK"]``, a local bound once to the tuple, the launch literal's
    copy ``triton.cdiv(n, 64)`` beside ``BLOCK=64``, the copy of the keyword whose ranges ``kernel`` compares with
    ``n`` where two share its value; none where the launching function divides by the value elsewhere too, as a
    partials buffer's count, which a guard's fallback would leave at the new value: the launch then fails loudly
    past the limit, as before, rather than run with its copies apart): that axis holds at most
    :data:`GRID_AXIS_MOST` programs, so
    the tile covers ``n`` up to 65535 of it, and a smaller tile fails the launch at sizes the original ran (variants
    v33): the tile must reach ``n <= BLOCK * 65535``, read as a block covering ``n`` with a range 65535 times its
    size. The grid may be a function ``fn`` defines (``def grid(meta): return (...)``) or a module helper a
    ``lambda meta:`` grid calls (``_grid(n_rows, n_cols, meta)``), read as its returned tuple (wrongkernel21, v90)."""
    grid = _grid_tuple(fn, call) or _returned_grid(fn, call, helpers or {})
    if grid is None:
        return []
    literals = _keyword_literals(call)
    local = assigned_once(fn)
    out: list[Divides] = []
    for axis, element in enumerate(grid.elements[1:3], start=1):
        written = element.value
        why = f"the grid's axis {axis} at line {line} has {_code(written)} programs, at most {GRID_AXIS_MOST} on a GPU"
        # a count bound once to a local (``n_blocks = triton.cdiv(L, BLOCK)``), or a product with another size
        # (``H * triton.cdiv(L, BLOCK)``): wrongkernel21, v88 and v89
        factors = [_bound_value(f, local) for f in _product_factors(_kept_count(_bound_value(written, local), local))]
        tiled = [(f, c) for f in factors if (c := _tile_count(f, helpers or {})) is not None]
        for f in factors:  # a count by a call no rule reads (another module's helper): late24, v100
            if isinstance(f, cst.Call) and all(f is not t for t, _ in tiled):
                unread = f"{why}, counted by {_code(f).strip()}, a call whose count no rule reads"
                for arg in f.args:
                    out += _product_limits(arg.value, literals, line, unread)
        if len(factors) > 1:
            for _, (tile_expr, _size) in tiled:
                product = f"a product of {' and '.join(_code(f).strip() for f in factors)}"
                counted = _kept_count(_bound_value(written, local), local)
                out += _product_limits(tile_expr, literals, line, f"{why}, {product}", counted)
            continue
        if not tiled:
            continue
        count = tiled[0][0]
        tile_expr, size = tiled[0][1]
        value = _int(tile_expr)
        if value is not None:
            if any(_int(t) == value and n is not count for n, t, _ in _grid_divs(fn)) or any(
                isinstance(n, cst.BinaryOperation)
                and isinstance(n.operator, cst.FloorDivide)
                and _int(n.right) == value
                for n in walk(fn.body)
            ):
                continue  # another copy of the value (a buffer's count): a guard's fallback would leave it moved
            keywords = literals.get(value, [])
            if len(keywords) > 1:  # a value two tiles share: the copy of the one that tiles this size
                params = {k for k, v in _passed(call, kernel).items() if _code(v).strip() == _code(size).strip()}
                tiling = {b for b, sizes in compared_sizes(kernel).items() if sizes & params}
                keywords = [k for k in keywords if k in tiling] or keywords
            for keyword in keywords:
                out.append(Divides(("meta", keyword), size, line, why, tile_expr, True, (GRID_AXIS_MOST, 1)))  # type: ignore[arg-type]
            continue
        tile = _tile_id(tile_expr)
        if tile is not None:
            size = _unpadded(size, local, tile) or size  # ``Hp // BLOCK_H`` of ``Hp = cdiv(H, BLOCK_H) * BLOCK_H``
            out.append(Divides(tile, size, line, why, covers=True, scale=(GRID_AXIS_MOST, 1)))
        elif (product := _tile_product(tile_expr)) is not None:  # ``triton.cdiv(n, BLOCK * UNROLL)``: v92
            tiles, times = product
            for i, one in enumerate(tiles):
                others = tiles[:i] + tiles[i + 1 :]
                limit = (GRID_AXIS_MOST, 1)
                out.append(
                    Divides(one, size, line, why, None, True, limit, factors=others, times=times, times_before=times)
                )  # type: ignore[arg-type]
    return out


def _unpadded(
    size: cst.BaseExpression, local: Mapping[str, cst.BaseExpression], tile: tuple[str, str]
) -> cst.BaseExpression | None:
    """The size ``size`` pads to whole tiles of ``tile`` where it is a local bound once to ``triton.cdiv(H, T) * T``
    (breaker6's stencil_pad, ``Hp``): ``H``, whose whole tiles ``Hp // T`` counts (``cdiv(H, T)``), known where the
    tile is set while ``Hp`` is computed from it (refusals23, u32: v33's guard of a smaller tile read ``Hp``, "not
    known where BLOCK_H is set"), and so of ``(H + T - 1) // T * T``; ``None`` for any other size."""
    value = local.get(size.value) if isinstance(size, cst.Name) else None
    if not (isinstance(value, cst.BinaryOperation) and isinstance(value.operator, cst.Multiply)):
        return None
    for count, other in ((value.left, value.right), (value.right, value.left)):
        counted = _tile_count(count)  # ``triton.cdiv(H, T)``, or ``(H + T - 1) // T`` (review27 r74)
        if counted is not None and _tile_id(other) == tile and _tile_id(counted[0]) == tile and _counted_up(count):
            return counted[1]
    return None


def _kept_count(expr: cst.BaseExpression, local: Mapping[str, cst.BaseExpression]) -> cst.BaseExpression:
    """The one argument of a ``max``, ``min`` or ``int`` whose other arguments are integers, read through a local
    bound once (``max(1, H * n_blocks)``: a product of counts kept from zero rises with a smaller tile as the bare
    product does, late24, v101); ``expr`` for anything else."""
    if not (isinstance(expr, cst.Call) and dotted(expr.func) in ("max", "min", "int")):
        return expr
    if any(a.keyword is not None or a.star for a in expr.args):
        return expr
    kept = [a.value for a in expr.args if _int(a.value) is None]
    return _kept_count(_bound_value(kept[0], local), local) if len(kept) == 1 else expr


def _asserted_counts(
    fn: cst.FunctionDef,
    pos: Positions,
    helpers: Mapping[str, cst.FunctionDef] | None = None,
    tiles: Collection[tuple[str, str]] = (),
    module: Mapping[str, cst.BaseExpression | Choices] | None = None,
) -> list[Divides]:
    """What a host ``assert`` bounding a count of tiles from above says (``assert n_rows * n_parts <= WORKSPACE``
    with ``n_parts = triton.cdiv(n_cols, BLOCK)``, a workspace of partials; ``assert grid_size0 < 65536``): a smaller
    tile counts more and fails it at sizes where the original passed, sizes far past the entries that the net in
    Triton's interpreter seldom reaches (wrongkernel21, v93); a larger tile counts fewer. No one size bounds such a
    test, so a smaller tile is not written (``size`` ``None``: no guard) and a larger one holds. A count times its own
    tile is a size padded to whole tiles (``assert ws.numel() >= triton.cdiv(n, BLOCK) * BLOCK``), which a tile that
    does not divide the original pads past the original's at some size, a larger one first (wrongkernel22, v97):
    only a divisor of the original holds everywhere, any other tile where it divides the size (refusals24, u41). A
    count bounded from below (``assert triton.cdiv(n, BLOCK) >= 8``, v70) fails at small sizes, where the net's floor
    runs it. A count the assert's test needs (a conjunct of it) under an integer (``assert grid_size0 < 65536``)
    carries itself, read through the locals bound once, and that integer's most (65535): a table's row whose test
    implies it (``if N <= 1024:`` with ``BLOCK = 128``, at most 8) keeps the assert passing (leftovers25, l80).
    ``tiles``: those the launches set (:func:`_launch_tiles`), refused where a bound side computes one in a form
    kernelopt does not read (:func:`_unread_counts`). ``module``: the module's constant values, which a check on a
    tile by itself reads where the function binds no such name (:func:`_tile_check`)."""
    local = assigned_once(fn)
    own = {p.name.value for p in params_of(fn)} | set(bindings(fn))
    given = {k: v for k, v in (module or {}).items() if k not in own}
    constants = {k: _parenthesized(v) for k, v in given.items() if isinstance(v, cst.BaseExpression)}
    choices = {k: v.values for k, v in given.items() if isinstance(v, Choices)}
    aliases = _tile_aliases(local, tiles)
    out: list[Divides] = []
    for line, written in _host_asserts(fn, pos, helpers or {}):
        asserts = f"line {line} asserts {_code(written).strip()}"
        test = _substituted(written, constants)  # ``BLOCK in SUPPORTED``: the module's value read (late47, v171)
        if aliases.keys() & _names(test):  # ``cover = BLOCK; assert cover >= n``: the tile read (l292, l294)
            test = _substituted(test, aliases)
        test, chosen = _each_choice(test, choices), len(out)
        chosen = chosen if test is not written and any(k in _names(written) for k in choices) else None
        why = f"{asserts}, a count of tiles bounded from above"
        padded = f"{asserts}, a size padded to whole tiles of {{tile}} bounded from above"
        for comparison, negated, needed in _polarized(test):
            left = comparison.left
            needed = needed and (not negated or len(comparison.comparisons) == 1)  # a chain negated needs no link
            for target in comparison.comparisons:
                op = _NEGATED.get(type(target.operator), type(target.operator))() if negated else target.operator
                bounded, bounding = (
                    (left, target.comparator)
                    if isinstance(op, cst.LessThan | cst.LessThanEqual)
                    else (target.comparator, left)
                    if isinstance(op, cst.GreaterThan | cst.GreaterThanEqual)
                    else (None, None)
                )
                bounded, bounding = _difference_sides(bounded, bounding)  # ``BLOCK - n >= 0``: ``BLOCK >= n``
                if bounded is None and needed:  # ``BLOCK in (128, 256)``, ``BLOCK == 256``: the tile's own check
                    link = cst.Comparison(left=_chain_left(comparison, target), comparisons=[target])
                    out += _tile_check(link, negated, tiles, line, asserts, own, fn)
                if needed and isinstance(op, cst.Equal):  # ``assert triton.cdiv(n, BLOCK) == 1``: one block covers n
                    out += _one_tile_counts(left, target.comparator, tiles, line, asserts, helpers or {})
                left = target.comparator
                factors = _bound_factors(bounded, local) if bounded is not None else []
                most = _bound_integer(bounding, local, fn, min) if bounding is not None else None
                if most is not None and isinstance(op, cst.LessThan | cst.GreaterThan):
                    most -= 1
                counted = _product(factors) if most is not None and needed else None
                if bounding is not None and needed:
                    out += _falling_bounds(bounding, tiles, line, asserts)
                if bounded is not None and needed:
                    out += _bounded_tiles(_product_factors(bounded), tiles, most, line, asserts)
                    least = _bound_integer(bounded, local, fn, max)
                    if least is not None and bounding is not None:  # ``assert BLOCK >= 16``: a floor of its own
                        least += 1 if isinstance(op, cst.LessThan | cst.GreaterThan) else 0
                        out += _bounded_tiles(_product_factors(bounding), tiles, least, line, asserts, below=True)
                    elif bounding is not None:  # ``assert BLOCK >= n``: a floor that is no integer
                        strict = isinstance(op, cst.LessThan | cst.GreaterThan)
                        out += _unread_floors(_product_factors(bounding), bounded, strict, tiles, line, asserts)
                elif (
                    bounded is not None
                    and bounding is not None
                    and _bound_integer(bounded, local, fn, max) is None
                    and _logic_leaf(test, comparison)
                ):
                    # ``assert BLOCK >= n or n == 0``: a floor one disjunct sets; kept true, the check is (l293)
                    strict = isinstance(op, cst.LessThan | cst.GreaterThan)
                    out += _unread_floors(_product_factors(bounding), bounded, strict, tiles, line, asserts)
                if bounded is not None and needed and not any(_tile_count(f, helpers or {}) for f in factors):
                    said = f"{asserts}, a bound on a value counted from tiles"
                    out += _unread_counts(factors, fn, line, said, tiles, helpers or {})
                for factor in factors:
                    count = _tile_count(factor, helpers or {})
                    if count is None:
                        continue
                    one, product = _tile_id(count[0]), _tile_product(count[0])
                    # the count's own tiles; ``tiles`` stays the launches' for the asserts after (review27 r72)
                    counts_of = [one] if one is not None else list(product[0]) if product is not None else []
                    for tile in counts_of:
                        if any(_tile_id(f) == tile for f in factors):  # the count times its tile: a padded size
                            # a tile dividing the size pads nothing, within the original's padding (refusals24, u41)
                            up = _counted_up(factor)
                            size = count[1] if one is not None and up else None
                            why = padded.format(tile=tile[1]) + _pads_nothing(size)
                            out.append(Divides(tile, size, line, why, padded=True, rounded_down=not up))
                        else:
                            out.append(Divides(tile, None, line, why, covers=True, count=counted, count_most=most))
        out += _opaque_checks(test, tiles, line, asserts)  # ``assert ok(BLOCK)``: no comparison to read (l295)
        if not all(needed for _, _, needed in _polarized(test)):  # ``BLOCK == 128 or BLOCK == 256``: as a whole
            out += _tile_check(test, False, tiles, line, asserts, own, fn)
        if chosen is not None:  # read with each value the name may hold: a tile failing one may fail (v194)
            out[chosen:] = [replace(d, chosen=d.check is not None or d.at_most is not None or d.at_least is not None)
                            for d in out[chosen:]]  # fmt: skip
    return out


def _each_choice(test: cst.BaseExpression, choices: Mapping[str, Sequence[cst.BaseExpression]]) -> cst.BaseExpression:
    """``test`` with each module name of several values (:class:`Choices`) it reads replaced by each of them, the
    copies joined by ``and``: the check passes only where it passes whichever value the name holds (v194). At most
    64 copies; past that the names are left unread (the check holds only the original)."""
    read = [k for k in choices if k in _names(test)]
    combos = math.prod(len(choices[k]) for k in read)
    if not read or combos > 64:
        return test
    copies = [
        _parenthesized(_substituted(test, {k: _parenthesized(v) for k, v in zip(read, combo, strict=True)}))
        for combo in itertools.product(*(choices[k] for k in read))
    ]
    joined = copies[0]
    for copy in copies[1:]:
        joined = cst.BooleanOperation(joined, cst.And(), copy)
    return joined


def _unread_counts(
    factors: Sequence[cst.BaseExpression],
    fn: cst.FunctionDef,
    line: int,
    why: str,
    tiles: Collection[tuple[str, str]],
    helpers: Mapping[str, cst.FunctionDef],
) -> list[Divides]:
    """An assert's side bounded from above (its ``factors``; by an integer, or by a bound not read: ``2 ** 16``)
    that kernelopt does not read as a count or a product of counts, though a count of tiles makes its value, or a
    tile the launches set (``tiles``) is computed into it in a form not read (followed through every binding of
    ``fn``, :func:`_tile_reading`: ``assert max(grid) < 65536``, ``assert grid[-1] < 65536``, ``g0, g1 = grid``
    then ``assert g0 < 65536``, ``getattr(triton, "cdiv")(N, BLOCK)``): unknown, not unbounded, so each such tile is
    refused any move (wrongkernel29, v148, and wrongkernel30, v150: a smaller ``BLOCK_SIZE_N`` was written plainly,
    its grid failing the assert at sizes the original's passed). A tile the launches set that is itself a factor
    beside a size (``assert n_rows * BLOCK < 2**31``) grows the product: a divisor of the original holds, any other
    tile is refused (wrongkernel30, v157: ``BLOCK = 512`` over 256 was written plainly, failing the assert at 2**22
    rows)."""
    named, counted = _tile_reading(factors, fn, tiles, helpers)
    return [
        Divides(tile, None, line, f"{why} of {tile[1]} in a form kernelopt does not read", covers=True, scale=None)
        for tile in sorted(named | counted)
    ] + [
        Divides(
            tile, None, line, f"{why.replace('a value counted from tiles', 'a product')} of {tile[1]}", missing=_PRODUCT
        )
        for tile in sorted(_factor_tiles(factors, tiles) - named - counted)
    ]


def _bounded_tiles(
    factors: Sequence[cst.BaseExpression],
    tiles: Collection[tuple[str, str]],
    bound: int | None,
    line: int,
    asserts: str,
    below: bool = False,
) -> list[Divides]:
    """A host check bounding a tile the launches set by itself, times integers alone (``assert BLOCK <= 1024``,
    ``BLOCK * 4 <= 4096``; from ``below``, ``assert BLOCK >= 16``): a tile past the bound fails it at every size, one
    within it at none (wrongkernel30, v158: read by no rule, ``BLOCK = 2048`` was written guarded by ``n % 2048 ==
    0``, the assert failing wherever it ran). A bound from above not read (a module constant, a call) is unknown: a
    divisor of the original holds, any other tile refused."""
    scaled = _tile_times(factors, tiles)
    if scaled is None:
        return []
    tile, k = scaled
    why = f"{asserts}, a bound on {tile[1]} itself"
    if bound is None:
        return [] if below else [Divides(tile, None, line, why, missing=_UNREAD_BOUND)]
    edge = -(-bound // k) if below else bound // k
    missing = f"the check holds no {tile[1]} {'under' if below else 'past'} {edge}"
    held = {"at_least": bound} if below else {"at_most": bound}
    return [Divides(tile, None, line, why, times=k, times_before=k, missing=missing, **held)]  # type: ignore[arg-type]


def _tile_times(
    factors: Sequence[cst.BaseExpression], tiles: Collection[tuple[str, str]]
) -> tuple[tuple[str, str], int] | None:
    """(the one tile the launches set among a product's ``factors``, the product of the others) where every other
    factor is an integer (``BLOCK * 4``); None otherwise (two tiles, a name, a call)."""
    found = [t for t in map(_tile_id, factors) if t is not None and t in tiles]
    times = [_int(f) for f in factors if _tile_id(f) not in tiles]
    if len(found) != 1 or any(t is None for t in times):
        return None
    return found[0], math.prod(t for t in times if t is not None)


def _unread_floors(
    factors: Sequence[cst.BaseExpression],
    floor: cst.BaseExpression,
    strict: bool,
    tiles: Collection[tuple[str, str]],
    line: int,
    asserts: str,
) -> list[Divides]:
    """A host check bounding a tile the launches set (times integers alone) from below by a value that is no integer
    (``assert BLOCK >= n``, ``if n > BLOCK: raise``, ``assert BLOCK >= lo``): one block of the tile must cover the
    ``floor``, so a tile at least the original passes it wherever the original did, and a smaller one only where the
    floor is within it (``n <= 64``; ``n + 1 <= 64`` for a strict bound). A floor that reads a tile is no guard's
    test: a smaller tile is refused (review29, r90: no rule read such a floor, and ``BLOCK = 64`` over 256 was
    written plainly past ``assert BLOCK >= n``, failing the assert at every ``n`` from 65 to 256)."""
    scaled = _tile_times(factors, tiles)
    if scaled is None:
        return []
    tile, k = scaled
    why = f"{asserts}, a bound on {tile[1]} itself from below"
    if _names(floor) & {t[1] for t in tiles}:
        return [Divides(tile, None, line, why, covers=True, times=k, times_before=k, missing=_UNREAD_FLOOR)]
    size = cst.BinaryOperation(floor, cst.Add(), cst.Integer("1")) if strict else floor
    return [Divides(tile, size, line, why, covers=True, times=k, times_before=k)]


def _logic_leaf(test: cst.BaseExpression, comparison: cst.Comparison) -> bool:
    """Whether ``comparison`` stands in ``test`` under ``and``, ``or`` and ``not`` alone (``BLOCK >= n or n == 0``):
    there a comparison kept in the sense :func:`_polarized` gives it keeps the whole test passing wherever it passed
    before, each other leaf unchanged; one inside a call or a comparison (``f(BLOCK >= n)``, ``(BLOCK >= n) ==
    flag``) may turn it (late59, l293)."""
    if test is comparison:
        return True
    if isinstance(test, cst.UnaryOperation) and isinstance(test.operator, cst.Not):
        return _logic_leaf(test.expression, comparison)
    if isinstance(test, cst.BooleanOperation):
        return _logic_leaf(test.left, comparison) or _logic_leaf(test.right, comparison)
    return False


def _opaque_checks(
    test: cst.BaseExpression, tiles: Collection[tuple[str, str]], line: int, asserts: str
) -> list[Divides]:
    """A host check that passes one tile the launches set, by its name, to what kernelopt does not read, with no
    comparison or arithmetic anywhere in it (``assert ok(BLOCK)``, ``assert allowed.count(BLOCK)``, ``assert
    allowed[BLOCK]``): it may fail any other value, so only the original holds (late59, l295: read by no rule,
    ``BLOCK = 64`` over 256 was written plainly). A test with a comparison or arithmetic is the other rules'."""
    nodes = walk(test)
    if any(isinstance(n, cst.Comparison | cst.BinaryOperation) for n in nodes):
        return []
    if isinstance(test, cst.Call) and dotted(test.func) == "isinstance":  # an integer written stays one
        return []
    named = sorted({t for t in tiles if t[0] == "name" and t[1] in _names(test) - _PURE})
    if len(named) != 1:
        return []
    why = f"{asserts}, a check on {named[0][1]} kernelopt does not read"
    return [Divides(named[0], None, line, why, check=_code(test).strip(), missing=_UNREAD_CHECK)]


def _tile_aliases(
    local: Mapping[str, cst.BaseExpression], tiles: Collection[tuple[str, str]]
) -> dict[str, cst.BaseExpression]:
    """Each local bound once to a tile the launches set (``cover = BLOCK``) or to a difference reading one (``rem =
    BLOCK - n``) -> its value, parenthesized: a host check reading the local reads the tile (late59, l292: such a
    check was read by no rule, and ``BLOCK = 64`` over 256 was written plainly past ``cover = BLOCK; assert cover >=
    n``, failing it at each ``n`` from 65 to 256). The tile is set before the local is, so a guard on the tile's
    line sets the value the local takes. A local bound once to an integer is that integer (``UNROLL = 2; assert n <=
    BLOCK * UNROLL``, l294: the floor reads a tile times integers alone)."""
    names = {t[1] for t in tiles}
    return {
        k: _parenthesized(v)
        for k, v in local.items()
        if k not in names
        and (
            (isinstance(v, cst.Name) and v.value in names)
            or (_is_difference(v) and _names(v) & names)
            or isinstance(v, cst.Integer)
        )
    }


def _difference_sides(
    bounded: cst.BaseExpression | None, bounding: cst.BaseExpression | None
) -> tuple[cst.BaseExpression | None, cst.BaseExpression | None]:
    """The sides of a comparison of a difference with zero (``bounded <= bounding``) as the comparison of its two
    terms: ``BLOCK - n >= 0`` is ``n <= BLOCK``, ``0 < n - BLOCK`` is ``BLOCK < n``; any other sides as they are
    (late59, l291: a difference was read by no rule, and ``BLOCK = 64`` over 256 was written plainly past ``assert
    BLOCK - n >= 0``, failing it at each ``n`` from 65 to 256)."""
    if bounded is None or bounding is None:
        return bounded, bounding
    if _int(bounding) == 0 and _is_difference(bounded):
        return bounded.left, bounded.right  # type: ignore[attr-defined]
    if _int(bounded) == 0 and _is_difference(bounding):
        return bounding.right, bounding.left  # type: ignore[attr-defined]
    return bounded, bounding


def _is_difference(expr: cst.BaseExpression) -> bool:
    """Whether ``expr`` is ``a - b``."""
    return isinstance(expr, cst.BinaryOperation) and isinstance(expr.operator, cst.Subtract)


def _one_tile_counts(
    one: cst.BaseExpression,
    other: cst.BaseExpression,
    tiles: Collection[tuple[str, str]],
    line: int,
    asserts: str,
    helpers: Mapping[str, cst.FunctionDef],
) -> list[Divides]:
    """A host check that a count of tiles rounded up is one (``assert triton.cdiv(n, BLOCK) == 1``, ``(n + BLOCK - 1)
    // BLOCK == 1``): one block of the tile covers the size, a floor on the tile as ``assert BLOCK >= n`` is
    (:func:`_unread_floors`), so a smaller tile is written only where the size is within it, where its count and the
    original's are both one (late59, l290: the test reads a size, so ``_tile_check`` left it, and a count compared by
    ``==`` is no bound: ``BLOCK = 64`` over 256 was written plainly, failing the check at each ``n`` from 65 to
    256)."""
    for count, value in ((one, other), (other, one)):
        counted = _tile_count(count, helpers)
        if counted is not None and _int(value) == 1 and _counted_up(count):
            return _unread_floors(_product_factors(counted[0]), counted[1], False, tiles, line, asserts)
    return []


#: Why a tile's bound from above not read (a parameter, a module name imported) holds only a divisor of the original
#: (:func:`_bounded_tiles`): said "may fail the check", not "does not divide" (review29 r92)
_UNREAD_BOUND = "the bound is not read"

#: Why a tile's bound from below that reads a tile cannot be guarded (:func:`_unread_floors`)
_UNREAD_FLOOR = "the bound reads a tile, no size a guard can test"


def _falling_bounds(
    bounding: cst.BaseExpression, tiles: Collection[tuple[str, str]], line: int, asserts: str
) -> list[Divides]:
    """A host check's bound from above that divides by a tile the launches set (``assert n_rows <= 2**31 // BLOCK``):
    a larger tile lowers it below sizes the original passed, so only a divisor of the original holds (review27 r75:
    the floor was read as a size the tile must divide, ``(2**31) % 512 == 0``, which always holds, and ``BLOCK = 512``
    was written under it, the assert failing at 2**22 + 1 rows where the original's 256 passes)."""
    out: list[Divides] = []
    for node in walk(bounding):
        if isinstance(node, cst.BinaryOperation) and isinstance(node.operator, cst.FloorDivide | cst.Divide):
            tile = _tile_part(node.right)[0]
            if tile is not None and tile in tiles:
                why = f"{asserts}, a bound that falls as {tile[1]} grows"
                out.append(Divides(tile, None, line, why, missing="a larger tile lowers the bound"))
    return out


def _tile_check(
    test: cst.BaseExpression,
    negated: bool,
    tiles: Collection[tuple[str, str]],
    line: int,
    asserts: str,
    own: Collection[str] = (),
    fn: cst.FunctionDef | None = None,
) -> list[Divides]:
    """A host check's ``test`` (or one needed link of it, ``negated`` where it stands under a ``not``) that reads one
    tile the launches set and integers alone (``min``, ``max``, ``triton.next_power_of_2`` of them): it holds at every
    size or at none, so the tile keeps to the values that pass it (:func:`_passes`). review27 r73: such a check that is
    no bound (``assert BLOCK in (128, 256)``, ``BLOCK == 256``, ``BLOCK & (BLOCK - 1) == 0``, ``if BLOCK not in (128,
    256): raise``, an ``or`` of bounds) was read by no rule, and ``BLOCK = 2048`` was written plainly, the check
    failing at every size the original ran. A test that reads a size is another rule's (``assert N % BLOCK == 0``).
    A check of the tile against names the launching function neither takes nor binds (``own``), whose values the
    module does not give (:func:`_module_values`: ``SUPPORTED`` imported, or made by a call), is a check not read: it
    holds at every size or at none still, so only the original holds (wrongkernel31, v181: ``BLOCK = 2048`` was
    written plainly past ``assert BLOCK in SUPPORTED``). A name of ``fn``'s own bound once to a value that reads
    nothing ``fn`` takes or binds (``allowed = (128, 256)``) is read as that value; one bound to several such values,
    or a parameter with such a default, is a value not read (review28 r85: ``assert BLOCK in allowed`` over a local
    ``allowed`` was left to the size rules, which read none, and ``BLOCK = 2048`` was written plainly)."""
    names = _names(test) - _PURE
    named = [t for t in tiles if t[0] == "name" and t[1] in names]
    if len(named) != 1:
        return []
    others = names - {named[0][1]}
    if others & set(own):
        found = _local_constants(fn, others & set(own), {t[1] for t in tiles}) if fn is not None else None
        if found is None and not _tile_compared(test, named[0][1]):
            return []  # a size the function reads (``assert n % BLOCK == 0``): another rule's
        if found is not None:
            test = _substituted(test, found)
            others = _names(test) - _PURE - {named[0][1]}
    text = _code(test).strip()
    text = f"not ({text})" if negated else text
    why, missing = f"{asserts}, a check on {named[0][1]} by itself", "the check passes it at no size"
    if others:  # evaluated, the unread names fail it at the original too: only the original holds
        why = f"{asserts}, a check on {named[0][1]} against {', '.join(sorted(others))}"
        missing = _UNREAD_CHECK
    return [Divides(named[0], None, line, why, check=text, missing=missing)]


def _local_constants(
    fn: cst.FunctionDef, names: Collection[str], tiles: Collection[str]
) -> dict[str, cst.BaseExpression] | None:
    """Of ``names`` (names a check on a tile reads that ``fn`` takes or binds, none of them a tile): each bound once to
    a value reading nothing ``fn`` takes or binds (a constant of the function's, ``allowed = (128, 256)``), as that
    value; ``None`` where any is a size (it reads what ``fn`` takes or binds, is a parameter with no default or one
    that reads it, or is bound otherwise than by a plain assignment): the size rules' (:func:`_tile_check`). A name
    bound to several such values, or a parameter with such a default (a caller may pass another), is left as it is,
    a value not read."""
    bound = bindings(fn)
    own = set(bound)
    params = {p.name.value: p for p in params_of(fn, posonly=True, kwonly=True, stars=True)}
    given: dict[str, cst.BaseExpression] = {}
    for name in names:
        param = params.get(name)
        values = bound.get(name, ())[1:] if param is not None else bound.get(name, ())
        defaults = [param.default] if param is not None and param.default is not None else []
        if name in tiles or (param is not None and not defaults):
            return None
        read = [*values, *defaults]
        if not read or any(v is None or (_names(v) - _PURE) & own for v in read):
            return None
        if param is None and len(values) == 1:
            given[name] = _parenthesized(cast(cst.BaseExpression, values[0]))
    return given


def _tile_compared(test: cst.BaseExpression, tile: str) -> bool:
    """Whether every comparison of ``test`` sets the tile ``tile`` by itself (integers and :data:`_PURE` calls beside
    it) against a side that does not read it, by ``in``, ``not in``, ``==`` or ``!=`` (``BLOCK in allowed``, ``BLOCK
    == want``): a check no size rule reads, whatever the other side is (a parameter with no default, a value the
    launcher computes), so only the original is known to pass it where the original did (late52, l221: over ``def
    run(x, allowed)``, ``BLOCK = 2048`` was written plainly past ``assert BLOCK in allowed``). A tile inside the
    arithmetic of a size (``n % BLOCK == 0``) is the size rules'."""
    found = [n for n in walk(test) if isinstance(n, cst.Comparison)]
    for comparison in found:
        sides = [comparison.left, *(t.comparator for t in comparison.comparisons)]
        ops = (cst.In, cst.NotIn, cst.Equal, cst.NotEqual)
        if not all(isinstance(t.operator, ops) for t in comparison.comparisons):
            return False
        alone = [s for s in sides if _names(s) - _PURE == {tile}]
        if len(alone) != 1 or any(tile in _names(s) for s in sides if s is not alone[0]):
            return False
    return bool(found)


#: Why a tile's check against a value not read holds nothing but the original (:func:`_tile_check`)
_UNREAD_CHECK = "the value it is checked against is not read"


def _chain_left(comparison: cst.Comparison, target: cst.ComparisonTarget) -> cst.BaseExpression:
    """The left side of ``target``'s link in ``comparison``'s chain (``a < b < c``: ``b`` for ``< c``)."""
    left = comparison.left
    for each in comparison.comparisons:
        if each is target:
            return left
        left = each.comparator
    return left


#: the names a tile's own check may call beside the tile (:func:`_passes` gives them)
_PURE = frozenset({"min", "max", "abs", "range", "len", "triton", "next_power_of_2"})


def _passes(check: str, name: str, value: int) -> bool:
    """Whether ``check`` (Python text of a comparison, :func:`_unread_tile_checks`) holds with ``name`` at ``value``;
    ``False`` where it cannot be evaluated so."""

    def next_power_of_2(n: int) -> int:
        return 1 << (int(n) - 1).bit_length() if n > 0 else 1

    given = {"min": min, "max": max, "abs": abs, "range": range, "len": len, "next_power_of_2": next_power_of_2}
    given["triton"] = SimpleNamespace(next_power_of_2=next_power_of_2)
    try:
        return bool(eval(check, {"__builtins__": {}}, {**given, name: value}))
    except Exception:
        return False


def _factor_tiles(factors: Sequence[cst.BaseExpression], tiles: Collection[tuple[str, str]]) -> set[tuple[str, str]]:
    """The ``tiles`` among ``factors`` themselves beside a factor that is no integer (``BLOCK`` of ``n * BLOCK``; not
    of ``BLOCK * 4``, a bound of the tile's own, its knob's legality)."""
    if all(_int(f) is not None for f in factors if _tile_id(f) not in tiles):
        return set()
    return {t for t in map(_tile_id, factors) if t is not None and t in tiles}


#: Why a tile a bounded product holds gets no guard by a size (:func:`_unread_counts`)
_PRODUCT = "a larger tile takes the product past the bound at sizes the original passed, and no guard by a size is read"


#: a comparison's operator under ``not``: ``not grid_size0 >= 65536`` bounds ``grid_size0`` from above
_NEGATED: dict[type[cst.BaseCompOp], type[cst.BaseCompOp]] = {
    cst.LessThan: cst.GreaterThanEqual,
    cst.LessThanEqual: cst.GreaterThan,
    cst.GreaterThan: cst.LessThanEqual,
    cst.GreaterThanEqual: cst.LessThan,
}


def _polarized(
    test: cst.BaseExpression, negated: bool = False, needed: bool = True
) -> Iterator[tuple[cst.Comparison, bool, bool]]:
    """Each comparison of an assert's ``test`` with whether it stands under an odd count of ``not`` (its sense
    turned: ``not grid_size0 >= 65536`` bounds the count from above, leftovers26 l113, where it was read as bounding
    65536 and the count went uncarried, a smaller tile's row written plainly) and whether the assert needs it to
    pass (a conjunct, or a disjunct of a negated ``or``: ``not (a >= X or b >= Y)``); one inside an ``or`` (``a < X
    or N == 0``) is needed by none and carries no count (l80: its tile refused)."""
    if isinstance(test, cst.UnaryOperation) and isinstance(test.operator, cst.Not):
        yield from _polarized(test.expression, not negated, needed)
    elif isinstance(test, cst.BooleanOperation):
        both = isinstance(test.operator, cst.Or) if negated else isinstance(test.operator, cst.And)
        yield from _polarized(test.left, negated, needed and both)
        yield from _polarized(test.right, negated, needed and both)
    elif isinstance(test, cst.Comparison):
        yield test, negated, needed
    elif (each := _each_of(test)) is not None:  # ``all(g < 65536 for g in grid)``: a conjunction over the grid
        yield from _polarized(each[1], negated, needed and (negated if each[0] == "any" else not negated))
    else:
        for child in walk(test)[1:]:
            if isinstance(child, cst.Comparison):
                yield child, negated, False


def _each_of(test: cst.BaseExpression) -> tuple[str, cst.BaseExpression] | None:
    """(``all`` or ``any``, the element) of ``all(g < 65536 for g in grid)`` (a generator, a list or set
    comprehension, the call's one argument); ``None`` for any other expression."""
    if not (isinstance(test, cst.Call) and dotted(test.func) in ("all", "any") and len(test.args) == 1):
        return None
    arg = test.args[0]
    if arg.keyword is not None or arg.star or not isinstance(arg.value, cst.GeneratorExp | cst.ListComp | cst.SetComp):
        return None
    return dotted(test.func), arg.value.elt


def _host_asserts(
    fn: cst.FunctionDef, pos: Positions, helpers: Mapping[str, cst.FunctionDef]
) -> Iterator[tuple[int, cst.BaseExpression]]:
    """(line, test) of each ``assert`` of ``fn``'s body, and of each of a module function's body that ``fn`` calls
    (``_check_grid(grid_size0)`` over ``def _check_grid(g): assert g < 65536``), its parameters replaced by what the
    call passes and the line the call's: the assert fails in the helper as it would in ``fn`` (review26, r60: a
    helper's bound was unread, and a row of a smaller tile was written plainly where its count failed it). A name the
    helper binds that is not replaced so (``_, m = x.shape``, a name bound twice) is renamed ``m_in_check``, a name
    ``fn`` does not bind (review29 r94: read as ``fn``'s own ``m``, ``m = 7`` passed ``assert block >= m`` for a tile
    of 64, and a guard would test ``fn``'s ``m``)."""
    for node in walk(fn.body):
        if (test := _checked(node)) is not None:
            yield pos[node].start.line, test
        elif isinstance(node, cst.Call) and isinstance(node.func, cst.Name):
            helper = helpers.get(node.func.value)
            if helper is None or helper is fn or any(a.star for a in node.args):
                continue
            passed = named_args(list(node.args), param_names(helper))
            given = {p.name.value: p.default for p in params_of(helper) if p.default is not None}
            given.update({k: _parenthesized(v) for k, v in passed.items()})
            own = {k: _parenthesized(v) for k, v in assigned_once(helper).items() if k not in given}
            scoped = {k: cst.Name(f"{k}_in_{helper.name.value}") for k in bindings(helper) if k not in given}
            for inner in walk(helper.body):
                if (test := _checked(inner)) is not None:  # its own locals read first (``g = cdiv(n, b)``), then ours
                    yield pos[node].start.line, _substituted(_substituted(_substituted(test, own), scoped), given)


def _checked(node: cst.CSTNode) -> cst.BaseExpression | None:
    """What a host check ``node`` requires to pass: an ``assert``'s test, or ``not (test)`` of an ``if test:`` whose
    body only raises (:func:`~kernelopt.tunables.conditions.raised_on`: ``if grid_size0 >= 65536: raise
    ValueError(...)``, wrongkernel30 v150: read as no check, a smaller tile's row was written plainly where its count
    raised); ``None`` for any other node."""
    if isinstance(node, cst.Assert):
        return node.test
    if (  # ``torch._assert(BLOCK <= 1024, "...")``: an assert as a call (late47, v171)
        isinstance(node, cst.Call)
        and dotted(node.func) in ("torch._assert", "_assert")
        and node.args
        and node.args[0].keyword is None
        and not node.args[0].star
    ):
        return node.args[0].value
    test = raised_on(node)
    if test is None:
        return None
    test = test if test.lpar else test.with_changes(lpar=[cst.LeftParen()], rpar=[cst.RightParen()])
    return cst.UnaryOperation(cst.Not(), test)


def _product(factors: Sequence[cst.BaseExpression]) -> cst.BaseExpression:
    """``factors`` multiplied, each parenthesized where it must be (``n_rows * triton.cdiv(n_cols, BLOCK)``)."""
    out = _parenthesized(factors[0])
    for factor in factors[1:]:
        out = cst.BinaryOperation(out, cst.Multiply(), _parenthesized(factor))
    return out


def _int32_strides(
    fn: cst.FunctionDef, call: cst.Call, kernel: cst.FunctionDef, line: int, helpers: Mapping[str, cst.FunctionDef]
) -> list[Divides]:
    """A size padded to whole tiles that the launch passes a kernel which multiplies it by another value (``n_pad =
    triton.cdiv(n_cols, BLOCK) * BLOCK`` passed as a row's stride, ``row * n_pad + cols``): Triton multiplies in
    int32, right where the rows times the padded size stay below 2**31, and a tile that does not divide the
    original pads further at some size, so it wraps where the original indexed right, at sizes (gigabytes) no net
    reaches (wrongkernel24, v113). As v97's padded size under an assert: a divisor of the original holds, and any
    other tile is guarded by dividing the unpadded size (``n_cols % 2048 == 0``), where it pads nothing, so its index
    stays within the original's at every size (refusals24, u41: refused whole before)."""
    local = assigned_once(fn)
    passed = named_args([a for a in call.args if not a.star], param_names(kernel))
    out: list[Divides] = []
    for param, expr in passed.items():
        held = _held_by(kernel, param)
        product = next(
            (
                n
                for n in typed(kernel.body, cst.BinaryOperation)
                if isinstance(n.operator, cst.Multiply)
                and any(_index_names(side) & held for side in (n.left, n.right))
                and not any(_int(side) is not None for side in (n.left, n.right))
            ),
            None,
        )
        buffers = {**_restrided(fn, local), **local}
        stride = _buffer_stride(expr, buffers, helpers) if product is not None else None
        factors = _bound_factors(stride or expr, local) if product is not None else []
        if product is not None and stride is None and not _padded_among(factors, helpers):
            # fail closed: a maker not read keeps its padding's tile; a name unpacked is read through its whole value
            factors += _unread_padding(expr, {**_unpacked(fn), **buffers}, fn)
        for factor in factors:
            count = _tile_count(factor, helpers)
            tile = _tile_id(count[0]) if count is not None else None
            if tile is not None and any(_tile_id(f) == tile for f in factors):
                why = (
                    f"line {line} passes {param}, a size padded to whole tiles of {tile[1]}, which "
                    f"{kernel.name.value} multiplies in int32 ({_code(product).strip()}), past 2**31 at fewer rows "
                    "where it pads further"
                )
                # where the new tile divides the size it pads nothing: the index stays within the original's, at
                # every size the original handled (refusals24, u41: a larger tile of stencil_pad was refused whole)
                assert count is not None
                up = _counted_up(factor)
                size = count[1] if up else None
                out.append(
                    Divides(
                        tile,
                        size,
                        line,
                        why + _pads_nothing(size),
                        padded=True,
                        missing=_ROUNDED_DOWN,
                        rounded_down=not up,
                    )
                )
    return out


def _held_by(kernel: cst.FunctionDef, param: str) -> set[str]:
    """``param`` and every local of ``kernel`` whose value reads it or a local so bound (``st = tl.multiple_of(stride,
    16)``, ``s = stride``): where the kernel may multiply the value it is given (wrongkernel30, v154: a stride
    multiplied through a hint's local was read as never multiplied, and a larger tile's padded stride written
    plainly)."""
    held = {param}
    assigned = [(b.name, n.value) for n in typed(kernel.body, cst.Assign) for b in made_by(n)]
    grew = True
    while grew:
        grew = False
        for name, value in assigned:
            if name not in held and read_names(value) & held:
                held.add(name)
                grew = True
    return held


def _index_names(expr: cst.CSTNode) -> set[str]:
    """The names ``expr`` computes with as an index (:func:`~kernelopt.tunables.bindings.read_names`), not those
    inside a call but a hint's (``tl.multiple_of(stride, 16)``): ``wv * tl.load(src + offs)`` multiplies a loaded
    value, not the pointer ``src`` (a pointer's buffer was read as a stride multiplied in int32, breaker6's
    stencil_pad)."""
    if isinstance(expr, cst.Call) and dotted(expr.func).split(".")[-1] not in ("multiple_of", "max_contiguous"):
        return set()
    if isinstance(expr, cst.Name):
        return {expr.value}
    if isinstance(expr, cst.Attribute):
        return _index_names(expr.value)
    return {n for child in child_nodes(expr) for n in _index_names(child)}


def _padded_among(factors: Sequence[cst.BaseExpression], helpers: Mapping[str, cst.FunctionDef]) -> bool:
    """Whether ``factors`` hold a count of tiles beside its own tile: a size padded to whole tiles
    (:func:`_int32_strides`)."""
    for factor in factors:
        count = _tile_count(factor, helpers)
        tile = _tile_id(count[0]) if count is not None else None
        if tile is not None and any(_tile_id(f) == tile for f in factors):
            return True
    return False


def _flat_masks(call: cst.Call, kernel: cst.FunctionDef, line: int) -> list[Divides]:
    """A tile of rows whose flat int32 index is masked by the flat size (``rows = pid * ROWS + tl.arange(0, ROWS)``,
    ``offs = rows[:, None] * N + cols[None, :]``, ``mask = ... & (offs < M * N)``): the last tile's rows past ``M``
    are masked only while their index stays below 2**31; past it the index wraps negative, passes the mask and
    loads and stores out of the buffer. A tile that does not divide the original pads further, so it wraps at sizes
    (gigabytes) where the original's rows stayed below 2**31 (wrongkernel26, v124: ``ROWS=128`` for 16 wrote 8 GB
    before the output at 262160 x 8191). As v113's padded stride: a divisor of the original holds, any other tile
    only where it divides the rows (it pads nothing there). A mask on the rows themselves (``rows < M``) holds at
    every tile: a wrapped index is masked out. The index is followed through every binding of the kernel, the mask
    read either way round (``M * N > offs``); a flat size not read as two parameters (``offs < numel``, a local
    ``total = M * N``) keeps the tile to divisors of the original (wrongkernel30, v159: each was written plainly)."""
    local = assigned_once(kernel)
    params = set(param_names(kernel))
    tiles = constexpr_params(kernel)
    passed = named_args([a for a in call.args if not a.star], param_names(kernel))
    out: list[Divides] = []
    for comparison in typed(kernel.body, cst.Comparison):
        if len(comparison.comparisons) != 1:
            continue
        target = comparison.comparisons[0]
        if isinstance(target.operator, cst.LessThan | cst.LessThanEqual):
            flat, bound = comparison.left, target.comparator
        elif isinstance(target.operator, cst.GreaterThan | cst.GreaterThanEqual):  # ``M * N > offs``
            flat, bound = target.comparator, comparison.left
        else:
            continue
        if not isinstance(flat, cst.Name):
            continue
        sizes = [f.value for f in _product_factors(bound) if isinstance(f, cst.Name) and f.value in params]
        # the index through every binding of the kernel (``row_start = rows[:, None] * N`` then ``offs = row_start +
        # cols[None, :]``, or ``offs`` rebound): wrongkernel30, v159
        products = {
            id(n): n
            for value in reached_values([flat], kernel)
            for n in typed(value, cst.BinaryOperation)
            if isinstance(n.operator, cst.Multiply)
        }
        for product in products.values():
            for index, width in ((product.left, product.right), (product.right, product.left)):
                tile = _padded_index(index, local, tiles)
                if tile is None or not isinstance(width, cst.Name) or width.value not in params:
                    continue
                launched = _tile_id(passed[tile]) if tile in passed else None
                if launched is None:
                    continue
                masked = _code(comparison.with_changes(lpar=[], rpar=[])).strip()
                why = (
                    f"line {line} launches {kernel.name.value}, whose index {flat.value} "
                    f"({_code(product).strip()}) in int32 is masked by the flat size ({masked}): "
                )
                if len(sizes) != 2 or width.value not in sizes:  # ``offs < numel``, ``offs < total``: rows not read
                    why += "the last tile's rows wrap past 2**31 at fewer rows where it pads further"
                    out.append(Divides(launched, None, line, why, missing=_FLAT_UNREAD))
                    continue
                rows = sizes[1] if sizes[0] == width.value else sizes[0]
                size = passed.get(rows)
                if size is None:
                    continue
                why += f"the last tile's rows past {rows} wrap past 2**31 at fewer rows where it pads further"
                out.append(Divides(launched, size, line, why + _pads_nothing(size)))
    return out


#: Why a flat mask whose size is not read as rows times the width gets no guard (:func:`_flat_masks`)
_FLAT_UNREAD = "the flat size is not read as the rows times the width, so no guard by the rows can be written"


def _padded_index(
    index: cst.BaseExpression, local: Mapping[str, cst.BaseExpression], tiles: Collection[str]
) -> str | None:
    """The tile a program's rows are counted in, where ``index`` is (or is a local bound to) ``pid * TILE +
    tl.arange(0, TILE)``, broadcast or not (``rows[:, None]``); ``None`` for anything else."""
    if isinstance(index, cst.Subscript):
        index = index.value
    if isinstance(index, cst.Name) and index.value in local:
        index = local[index.value]
    if not (isinstance(index, cst.BinaryOperation) and isinstance(index.operator, cst.Add)):
        return None
    for start, lanes in ((index.left, index.right), (index.right, index.left)):
        offset = tile_offset(start, set(tiles), dict(local))
        arange = isinstance(lanes, cst.Call) and dotted(lanes.func).split(".")[-1] == "arange" and len(lanes.args) == 2
        if offset is None or not arange:
            continue
        sides = (offset.left, offset.right)  # type: ignore[attr-defined]
        named = [side.value for side in sides if isinstance(side, cst.Name) and side.value in tiles]
        end = lanes.args[1].value  # type: ignore[attr-defined]
        if named and isinstance(end, cst.Name) and end.value == named[0]:
            return named[0]
    return None


#: torch's allocations whose leading positional arguments (or one tuple or list of them) are a new tensor's shape
_SHAPED_ALLOCATIONS = frozenset(f"torch.{f}" for f in ("empty", "zeros", "ones", "full", "rand", "randn"))
#: A tensor's methods that make a new dense tensor of the shape they are given (``x.new_zeros(n_rows, n_pad)``:
#: review26, r65, whose padded stride was unread and a larger tile written plainly)
_NEW_ALLOCATIONS = frozenset({"new_empty", "new_zeros", "new_ones", "new_full"})


#: Why a size rounded down to whole tiles (``n // BLOCK * BLOCK``) gets no guard by the tile dividing it: there it is
#: the size itself, past the original's rounding down (the guard of u41 holds for a size rounded up only).
_ROUNDED_DOWN = (
    "where the tile divides a size rounded down to whole tiles it is the size itself, past the original's rounding "
    "down, so no guard by the tile dividing it holds"
)


def _counted_up(count: cst.BaseExpression) -> bool:
    """Whether a count of tiles (:func:`_tile_count`) rounds its size up (``triton.cdiv(n, BLOCK)``, ``(n + BLOCK -
    1) // BLOCK``), not down (``n // BLOCK``, whose whole tiles cover less than the size)."""
    return not (
        isinstance(count, cst.BinaryOperation)
        and isinstance(count.operator, cst.FloorDivide)
        and _tile_count(count) is not None
        and _ceil_spelled(count) is None
        and _ceil_div(count) is None
    )


def _pads_nothing(size: cst.BaseExpression | None) -> str:
    """Why a size padded to whole tiles is guarded by the tile dividing it (``size``, the size unpadded; ``None``: no
    one size, nothing said): there the padded size is the size itself, no larger than the original tile's padding."""
    if size is None:
        return ""
    return f"; where the tile divides {_code(size).strip()} it pads nothing, no further than the original's"


def _restrided(fn: cst.FunctionDef, local: Mapping[str, cst.BaseExpression]) -> dict[str, cst.BaseExpression]:
    """A buffer bound again to itself moved, cast or copied in its strides in ``fn``'s own statements (``ws =
    torch.zeros(n_rows, n_pad)`` then ``ws = ws.to(x.device)``), read as the one chain (``torch.zeros(n_rows,
    n_pad).to(x.device)``): each binding after the first a method of :data:`_IN_PLACE` (or ``contiguous``) called on
    the name itself (review26, r67: such a rebinding left the padded stride unread, a larger tile written plainly).
    Names bound once (``local``) and any other binding are left out."""
    bound: dict[str, list[cst.BaseExpression]] = {}
    for line in fn.body.body:
        for small in line.body if isinstance(line, cst.SimpleStatementLine) else ():
            if isinstance(small, cst.Assign) and len(small.targets) == 1:
                target = small.targets[0].target
                if isinstance(target, cst.Name) and target.value not in local:
                    bound.setdefault(target.value, []).append(small.value)
    out: dict[str, cst.BaseExpression] = {}
    for name, values in bound.items():
        chain = values[0]
        for value in values[1:]:
            call = value
            while isinstance(call, cst.Call) and isinstance(call.func, cst.Attribute):
                if call.func.attr.value not in _IN_PLACE | {"contiguous"}:
                    break
                call = call.func.value
            if not (isinstance(call, cst.Name) and call.value == name) or call is value:
                break
            chain = _substituted(value, {name: _parenthesized(chain)})
        else:
            if len(values) > 1 and all(n.value != name for n in walk(chain) if isinstance(n, cst.Name)):
                out[name] = chain
    return out


def _unpacked(fn: cst.FunctionDef) -> dict[str, cst.BaseExpression]:
    """Name -> the whole value it is unpacked from, for each name ``fn`` binds once, by unpacking that value (``_, w1 =
    ws.shape``, ``s0, _ = ws.stride()``, ``*_, w1 = ws.size()``): which side it takes is not read, so a rule that
    fails closed reads it through every name the value holds (late47, v172: a padded buffer's row length so bound was
    no stride, and a larger tile was written plainly, v117's wrap in int32)."""
    once = {name for name, values in bindings(fn).items() if len(values) == 1}
    out: dict[str, cst.BaseExpression] = {}
    for assign in typed(fn.body, cst.Assign):
        for target in assign.targets:
            if isinstance(target.target, cst.Tuple | cst.List):
                for node in walk(target.target):
                    if isinstance(node, cst.Name) and node.value in once:
                        out[node.value] = assign.value
    return out


def _unread_padding(
    expr: cst.BaseExpression, local: Mapping[str, cst.BaseExpression], fn: cst.FunctionDef
) -> list[cst.BaseExpression]:
    """The factors of every size padded to whole tiles that the making of a launcher's own buffer names, where
    ``expr`` is that buffer's stride and :func:`_buffer_stride` does not read it (``F.pad(x, (0, n_pad - n_cols))``,
    ``torch.cat([x, pad], dim=1)``, any maker not recognized): the stride is unknown, so the rule fails closed and
    reads it as padded by each such size's tile (wrongkernel28, v143-v146: such a buffer's padded stride was read as
    no size, and a larger tile written plainly). A buffer's size or stride in a form :func:`_stride_source` does not
    read (``ws.shape[1]``, ``ws.size(1)``, ``strides[0]`` of ``strides = ws.stride()``: wrongkernel30, v155) is the
    buffer's (:func:`_sized_source`), and any other spelling is read through the names it holds, each through every
    binding ``fn`` gives it (:func:`~kernelopt.tunables.bindings.reached_values`: a buffer made in each branch of an
    ``if``, or rebound; wrongkernel31, v182: such a buffer was followed by no name, and a larger tile was written
    plainly). A caller's tensor (no making in the launcher) gives none."""
    source = _stride_source(expr, local)
    # any other spelling (``len(ws[0])``, ``ws[0].numel()``, ``ws.numel() // n_rows``, ``int(n_pad)``) is read through
    # every name it holds: a padded size its making names is the stride's (review27 r76: each was written plainly)
    start = source[0] if source is not None else _sized_source(expr, local) or expr
    padded: dict[str, list[cst.BaseExpression]] = {}
    todo, seen = [start, *reached_values([start], fn)[1:]], set[str]()
    while todo:
        for node in walk(todo.pop()):
            if isinstance(node, cst.Name) and node.value in local and node.value not in seen:
                seen.add(node.value)
                todo.append(local[node.value])
            if not isinstance(node, cst.Name | cst.BinaryOperation):
                continue
            factors = _bound_factors(node, local)
            for count in factors:
                tile = _tile_count(count)
                key = _tile_id(tile[0]) if tile is not None else None
                at = next((f for f in factors if key is not None and _tile_id(f) == key), None)
                if at is not None and _code(count).strip() not in padded:
                    padded[_code(count).strip()] = [count, at]
    return [f for pair in padded.values() for f in pair]


def _stride_source(
    expr: cst.BaseExpression, local: Mapping[str, cst.BaseExpression]
) -> tuple[cst.BaseExpression, int | None] | None:
    """(the tensor, the axis) of a buffer's stride the launch passes (``ws.stride(0)``, ``ws.stride()[0]``, a local
    bound to either); ``None`` for anything else."""
    if isinstance(expr, cst.Name) and expr.value in local:
        expr = local[expr.value]  # a stride bound to a local first (``s = ws.stride(0)``)
    axis: int | None = None
    if isinstance(expr, cst.Subscript) and len(expr.slice) == 1 and isinstance(expr.slice[0].slice, cst.Index):
        axis = _signed_int(expr.slice[0].slice.value)  # ``ws.stride()[0]``: the tuple of every axis's stride
        expr = expr.value
        if not (isinstance(expr, cst.Call) and not expr.args):
            return None
    elif isinstance(expr, cst.Call) and len(expr.args) == 1:
        axis = _signed_int(expr.args[0].value)
    if not (isinstance(expr, cst.Call) and isinstance(expr.func, cst.Attribute) and expr.func.attr.value == "stride"):
        return None
    return expr.func.value, axis


def _sized_source(expr: cst.BaseExpression, local: Mapping[str, cst.BaseExpression]) -> cst.BaseExpression | None:
    """The tensor whose size or stride ``expr`` reads where :func:`_stride_source` does not read it: ``ws.shape[1]``,
    ``ws.size(1)``, ``ws.size()[1]``, ``ws.stride()[1]`` through a local bound once to the tuple (``strides =
    ws.stride()`` then ``strides[0]``); ``None`` for anything else."""
    if isinstance(expr, cst.Name) and expr.value in local:
        expr = local[expr.value]
    if isinstance(expr, cst.Call) and isinstance(expr.func, cst.Attribute) and expr.func.attr.value == "size":
        return expr.func.value
    if not isinstance(expr, cst.Subscript):
        return None
    held = expr.value
    if isinstance(held, cst.Name) and held.value in local:
        held = local[held.value]
    if isinstance(held, cst.Attribute) and held.attr.value == "shape":
        return held.value
    if (
        isinstance(held, cst.Call)
        and isinstance(held.func, cst.Attribute)
        and held.func.attr.value in ("size", "stride")
    ):
        return held.func.value
    return None


def _buffer_stride(
    expr: cst.BaseExpression, local: Mapping[str, cst.BaseExpression], helpers: Mapping[str, cst.FunctionDef]
) -> cst.BaseExpression | None:
    """A buffer's stride the launch passes, where its making shows it: ``ws.stride(0)`` where ``ws =
    torch.zeros(n_rows, n_pad, ...)`` (or ``torch.empty((n_rows, n_pad))``) is ``n_pad`` (wrongkernel25, v117:
    v113's padded row stride taken from the buffer was read by no rule), and so where a module helper returns such an
    allocation (``ws = _workspace(n_rows, n_pad, x)``, its parameters replaced by the call's arguments: v119) or the
    buffer is a view of one (``torch.zeros(n_rows * n_pad).view(n_rows, n_pad)``: v120), a transpose of one, or
    strided by its maker (``torch.empty_strided(shape, (n_pad, 1))``, ``.as_strided(shape, strides)``); ``None`` for
    anything else (a caller's tensor, ``torch.empty_like`` of one: strides unknown; :func:`_unread_padding`)."""
    source = _stride_source(expr, local)
    if source is None:
        return None
    made, axis = _made_strides(source[0], local, helpers, frozenset()), source[1]
    if axis is None or made is None or not -len(made[0]) <= axis < len(made[0]):
        return None
    return made[0][axis]  # ``ws.stride(-2)`` counts from the last axis, as torch does


def _signed_int(expr: cst.BaseExpression) -> int | None:
    """The integer ``expr`` is, a negative one written ``-2`` too."""
    if isinstance(expr, cst.UnaryOperation) and isinstance(expr.operator, cst.Minus):
        value = _int(expr.expression)
        return -value if value is not None else None
    return _int(expr)


def _made_strides(
    expr: cst.BaseExpression,
    local: Mapping[str, cst.BaseExpression],
    helpers: Mapping[str, cst.FunctionDef],
    seen: frozenset[str],
) -> tuple[list[cst.BaseExpression], bool, list[cst.BaseExpression] | None] | None:
    """(the strides of each dimension, whether contiguous, its shape where known) of the tensor ``expr`` makes, in the
    launcher's names (:func:`_buffer_stride`); ``None`` where its making does not show them."""
    if isinstance(expr, cst.Name):
        if expr.value in seen or expr.value not in local:
            return None
        return _made_strides(local[expr.value], local, helpers, seen | {expr.value})
    if isinstance(expr, cst.Subscript):  # the first values of a flat buffer kept across calls (``ws[:need]``)
        made = _made_strides(expr.value, local, helpers, seen)
        if made is None or len(made[0]) != 1 or not _plain_slice(expr):
            return None
        run = cst.ensure_type(expr.slice[0].slice, cst.Slice)
        return made[0], made[1], [run.upper] if run.lower is None and run.upper is not None else None
    if not isinstance(expr, cst.Call) or any(a.star for a in expr.args):
        return None
    positional = [a.value for a in expr.args if a.keyword is None]
    maker = dotted(expr.func)
    if maker in _SHAPED_ALLOCATIONS:
        dims = _listed(positional[:1] if maker == "torch.full" else positional)  # full: its fill follows
        return _contiguous(dims), True, dims
    if maker == "torch.empty_strided" and len(positional) >= 2:
        return _listed(positional[1:2]), False, _listed(positional[:1])
    if maker in _LIKE_ALLOCATIONS and positional:  # a dense tensor's like keeps its strides (preserve_format)
        made = _made_strides(positional[0], local, helpers, seen)
        return made if made is not None and made[1] else None
    if maker in _PADS and len(positional) >= 2:
        return _padded_shape(_made_strides(positional[0], local, helpers, seen), _listed(positional[1:2]))
    if maker == "torch.cat" and positional and isinstance(positional[0], cst.List | cst.Tuple):
        dim = next((a.value for a in expr.args if a.keyword is not None and a.keyword.value == "dim"), None)
        at = _signed_int(dim if dim is not None else positional[1]) if dim is not None or len(positional) > 1 else 0
        parts = [_made_strides(e.value, local, helpers, seen) for e in positional[0].elements]
        return _joined_shape(parts, at) if at is not None else None
    if isinstance(expr.func, cst.Attribute):
        method, source = expr.func.attr.value, expr.func.value
        if method in _NEW_ALLOCATIONS and positional:  # ``x.new_zeros(n_rows, n_pad)``: a new dense tensor
            dims = _listed(positional[:1] if method == "new_full" else positional)  # new_full: its fill follows
            return _contiguous(dims), True, dims
        if method == "as_strided" and len(positional) >= 2:
            return _listed(positional[1:2]), False, _listed(positional[:1])
        if method in ("view", "reshape") and positional:  # a contiguous tensor's view of a new shape is contiguous
            made = _made_strides(source, local, helpers, seen)
            dims = _inferred(_listed(positional), made[2], local) if made is not None and made[1] else None
            return (_contiguous(dims), True, dims) if dims is not None else None
        if method == "repeat" and positional:  # a new contiguous tensor, each dimension times its count
            return _repeated_shape(_made_strides(source, local, helpers, seen), _listed(positional))
        if method == "t" and not positional:
            made = _made_strides(source, local, helpers, seen)
            if made is None or len(made[0]) != 2:
                return None
            return made[0][::-1], False, made[2][::-1] if made[2] is not None else None
        if method in _IN_PLACE:  # ``.zero_()`` of a view returns the view itself
            return _made_strides(source, local, helpers, seen)
        if method == "contiguous" and not positional:  # a contiguous tensor itself, else a copy in its shape's strides
            made = _made_strides(source, local, helpers, seen)
            if made is None or made[1]:
                return made
            return (_contiguous(made[2]), True, made[2]) if made[2] is not None else None
    named = isinstance(expr.func, cst.Name) and expr.func.value not in seen
    if named and (helper := helpers.get(expr.func.value)) is not None:  # type: ignore[attr-defined]
        params = param_names(helper)
        returns = [r for r in walk(helper.body) if isinstance(r, cst.Return)]
        if len(params) != len(expr.args) or len(returns) != 1 or returns[0].value is None:
            return None
        if any(a.keyword is not None for a in expr.args):
            return None
        returned = _cached(returns[0].value, helper)
        made = _made_strides(returned, assigned_once(helper), helpers, frozenset({helper.name.value}))
        if made is None:
            return None
        given = {name: _parenthesized(a.value) for name, a in zip(params, expr.args, strict=True)}
        shape = [_substituted(d, given) for d in made[2]] if made[2] is not None else None
        return [_substituted(stride, given) for stride in made[0]], made[1], shape
    return None


#: torch's makers of a tensor like another (its shape, and a dense one's strides: ``preserve_format``)
_LIKE_ALLOCATIONS = frozenset(f"torch.{f}_like" for f in ("empty", "zeros", "ones", "full", "rand", "randn"))
#: ``F.pad`` as it is imported (a new contiguous tensor, its last dimensions widened by the pads)
_PADS = frozenset({"F.pad", "torch.nn.functional.pad", "nn.functional.pad", "functional.pad"})

Made = tuple[list[cst.BaseExpression], bool, list[cst.BaseExpression] | None]


def _plain_sum(terms: list[cst.BaseExpression]) -> cst.BaseExpression | None:
    """The sum of ``terms`` where it is plain: literal zeros dropped, and ``a`` beside ``b - a`` read as ``b``
    (``n_cols`` padded by ``n_pad - n_cols``: ``n_pad``, the padded size v119's rule reads); ``None`` for any other
    sum, whose stride :func:`_unread_padding` then reads failing closed (wrongkernel28, v143-v146)."""
    kept = [t for t in terms if _int(t) != 0]
    if len(kept) == 1:
        return kept[0]
    if len(kept) != 2:
        return None
    for whole, part in ((kept[0], kept[1]), (kept[1], kept[0])):
        inner = whole.with_changes(lpar=[], rpar=[]) if isinstance(whole, cst.BinaryOperation) else whole
        subtracted = isinstance(inner, cst.BinaryOperation) and isinstance(inner.operator, cst.Subtract)
        if subtracted and _code(inner.right).strip().strip("()") == _code(part).strip().strip("()"):  # type: ignore[attr-defined]
            return inner.left  # type: ignore[attr-defined]
    return None


def _dense(dims: list[cst.BaseExpression | None]) -> Made | None:
    """A new contiguous tensor of the shape ``dims``; ``None`` where a dimension any stride multiplies is not read
    (the first may be anything: no stride holds it)."""
    if any(d is None for d in dims[1:]) or not dims:
        return None
    later = [d for d in dims[1:] if d is not None]
    if dims[0] is None:
        return _contiguous([cst.Integer("1"), *later]), True, None
    return _contiguous([dims[0], *later]), True, [dims[0], *later]


def _padded_shape(made: Made | None, pads: list[cst.BaseExpression]) -> Made | None:
    """``F.pad(t, pads)`` of a tensor whose shape is read: each of its last dimensions widened by its pair of pads
    (``(left, right)`` for the last, then the one before)."""
    if made is None or made[2] is None or len(pads) % 2 or len(pads) // 2 > len(made[2]):
        return None
    dims: list[cst.BaseExpression | None] = list(made[2])
    for i in range(len(pads) // 2):
        dims[-1 - i] = _plain_sum([made[2][-1 - i], pads[2 * i], pads[2 * i + 1]])
    return _dense(dims)


def _joined_shape(parts: list[Made | None], at: int) -> Made | None:
    """``torch.cat(parts, dim=at)`` where each part's shape is read and they agree off that dimension."""
    shapes = [p[2] for p in parts if p is not None and p[2] is not None]
    if len(shapes) != len(parts) or not shapes or not -len(shapes[0]) <= at < len(shapes[0]):
        return None
    at %= len(shapes[0])
    if any(len(s) != len(shapes[0]) for s in shapes):
        return None
    for i in range(len(shapes[0])):
        if i != at and len({_code(s[i]).strip() for s in shapes}) != 1:
            return None
    dims: list[cst.BaseExpression | None] = list(shapes[0])
    dims[at] = _plain_sum([s[at] for s in shapes])
    return _dense(dims)


def _repeated_shape(made: Made | None, counts: list[cst.BaseExpression]) -> Made | None:
    """``t.repeat(*counts)`` of a tensor whose shape is read: each dimension times its count (a count of 1 keeps it, a
    dimension of 1 is its count), counts past the shape's own as leading dimensions."""
    if made is None or made[2] is None or len(counts) < len(made[2]):
        return None
    shape = [None] * (len(counts) - len(made[2])) + list(made[2])
    dims: list[cst.BaseExpression | None] = []
    for dim, count in zip(shape, counts, strict=True):
        if dim is None or _int(dim) == 1:
            dims.append(count)
        elif _int(count) == 1:
            dims.append(dim)
        else:
            dims.append(cst.BinaryOperation(_parenthesized(dim), cst.Multiply(), _parenthesized(count)))
    return _dense(dims)


def _inferred(
    dims: list[cst.BaseExpression], base: list[cst.BaseExpression] | None, local: Mapping[str, cst.BaseExpression]
) -> list[cst.BaseExpression] | None:
    """A view's shape ``dims`` with its one ``-1`` worked out from the viewed tensor's shape ``base``: the factors of
    ``base``'s values left once the other dimensions' are taken out (``torch.zeros(n_rows * n_pad).view(n_rows,
    -1)``: ``n_pad``; wrongkernel27, v139, whose padded stride was read as ``-1``); ``dims`` as they are where none is
    ``-1``; ``None`` where the factors do not cancel so."""
    unknown = [
        i
        for i, d in enumerate(dims)
        if isinstance(d, cst.UnaryOperation) and isinstance(d.operator, cst.Minus) and _int(d.expression) == 1
    ]
    if not unknown:
        return dims
    if len(unknown) > 1 or base is None:
        return None
    left = [f for d in base for f in _bound_factors(d, local)]
    for i, d in enumerate(dims):
        for factor in _bound_factors(d, local) if i != unknown[0] else []:
            match = next((j for j, f in enumerate(left) if _code(f).strip() == _code(factor).strip()), None)
            if match is None:
                return None
            left.pop(match)
    if not left:
        return None
    product = left[0]
    for factor in left[1:]:
        product = cst.BinaryOperation(_parenthesized(product), cst.Multiply(), _parenthesized(factor))
    return [*dims[: unknown[0]], product, *dims[unknown[0] + 1 :]]


def _cached(returned: cst.BaseExpression, helper: cst.FunctionDef) -> cst.BaseExpression:
    """What a helper returns read through a cache it fills: ``return _WORKSPACES[key]`` (or ``.zero_()`` of it)
    where the helper stores ``_WORKSPACES[key] = torch.zeros(rows, cols)`` once is that allocation (a workspace kept
    by its shape: wrongkernel26, v128); ``returned`` itself otherwise."""
    inner = returned
    if isinstance(returned, cst.Call) and isinstance(returned.func, cst.Attribute) and not returned.args:
        inner = returned.func.value if returned.func.attr.value in ("zero_", "contiguous") else returned
    if not (isinstance(inner, cst.Subscript) and isinstance(inner.value, cst.Name)):
        return returned
    stores = [
        node.value
        for node in walk(helper.body)
        if isinstance(node, cst.Assign)
        and len(node.targets) == 1
        and isinstance(target := node.targets[0].target, cst.Subscript)
        and isinstance(target.value, cst.Name)
        and target.value.value == inner.value.value
    ]
    return stores[0] if len(stores) == 1 else returned


#: Tensor methods that return the tensor they are called on, or a copy of its strides (torch's ``preserve_format`` of a
#: dense tensor), its strides as they were: a workspace zeroed or filled before its use (``ws[:need].view(rows,
#: cols).zero_()``), moved to the input's device or cast (``torch.zeros(n_rows, n_pad).to(x.device)``: wrongkernel27,
#: v142).
_IN_PLACE = frozenset(
    {"zero_", "fill_", "detach", "detach_", "requires_grad_", "normal_", "uniform_"}
    | {"to", "cuda", "float", "half", "bfloat16", "double", "type", "clone"}
)


def _plain_slice(expr: cst.Subscript) -> bool:
    """Whether ``expr`` takes one run of a 1-D tensor's values (``ws[:need]``, ``ws[start:end]``, no step): its stride
    the tensor's own (wrongkernel27, v132: a flat workspace grown by need, its first values viewed as rows)."""
    if len(expr.slice) != 1 or not isinstance(expr.slice[0].slice, cst.Slice):
        return False
    return expr.slice[0].slice.step is None


def _listed(args: list[cst.BaseExpression]) -> list[cst.BaseExpression]:
    """The elements of one tuple or list argument, or the arguments themselves (``view(a, b)``, ``view((a, b))``)."""
    if len(args) == 1 and isinstance(args[0], cst.Tuple | cst.List):
        return [e.value for e in args[0].elements]
    return args


def _contiguous(dims: list[cst.BaseExpression]) -> list[cst.BaseExpression]:
    """A contiguous tensor's strides of the shape ``dims`` (one tuple or the dimensions): each the product of the
    dimensions after it, the last 1."""
    shape = _listed(dims)
    strides: list[cst.BaseExpression] = [cst.Integer("1")] * len(shape)
    for i in range(len(shape) - 2, -1, -1):
        later = _parenthesized(shape[i + 1])
        strides[i] = later if i == len(shape) - 2 else cst.BinaryOperation(later, cst.Multiply(), strides[i + 1])
    return strides


def _bound_factors(
    expr: cst.BaseExpression, local: Mapping[str, cst.BaseExpression], seen: frozenset[str] = frozenset()
) -> list[cst.BaseExpression]:
    """The factors of a product, a local bound once to a product read as its own factors and one bound to a count as
    the count (``n_rows * n_pad`` with ``n_pad = triton.cdiv(n_cols, BLOCK) * BLOCK``: ``n_rows``, the count and
    ``BLOCK``, a tile kept by its name)."""
    out: list[cst.BaseExpression] = []
    for factor in _product_factors(_whole_tiles(_bound_value(expr, local))):
        bound = _whole_tiles(_bound_value(factor, local))
        named = isinstance(factor, cst.Name) and factor.value not in seen
        if named and len(_product_factors(bound)) > 1:
            out += _bound_factors(factor, local, seen | {factor.value})  # type: ignore[attr-defined]
        else:
            out.append(bound if _tile_count(bound) is not None else factor)
    return out


def _whole_tiles(expr: cst.BaseExpression) -> cst.BaseExpression:
    """``n - n % BLOCK`` read as the size rounded down to whole tiles it is, ``n // BLOCK * BLOCK`` (review26, r66:
    that spelling of l83's size was read as no product, and a divisor of the original tile written plainly);
    ``expr`` itself otherwise."""
    if not (isinstance(expr, cst.BinaryOperation) and isinstance(expr.operator, cst.Subtract)):
        return expr
    right = expr.right
    if not (isinstance(right, cst.BinaryOperation) and isinstance(right.operator, cst.Modulo)):
        return expr
    size, tile = expr.left, right.right
    if _code(size).strip().strip("()") != _code(right.left).strip().strip("()") or _int(tile) is not None:
        return expr
    count = cst.BinaryOperation(_parenthesized(size), cst.FloorDivide(), _parenthesized(tile))
    return cst.BinaryOperation(count, cst.Multiply(), _parenthesized(tile))


def _helper_ceiling(
    expr: cst.BaseExpression, helpers: Mapping[str, cst.FunctionDef]
) -> tuple[cst.BaseExpression, cst.BaseExpression] | None:
    """(tile, size) of a call of a module function or of a method of the launcher's class (``self._num_blocks(n)``,
    its ``self`` left out) whose one ``return`` is a count of tiles :func:`_tile_count` reads, its parameters
    replaced by the call's arguments: ``def ceil_div(a, b): return (a + b - 1) // b`` called ``ceil_div(n, BLOCK)``
    (vLLM's and sglang's spelling, any name: v94), ``def _num_blocks(self, n): return triton.cdiv(n, BLOCK)``
    (late24, v99); ``None`` for anything else."""
    if not isinstance(expr, cst.Call):
        return None
    func, method = expr.func, False
    if isinstance(func, cst.Attribute) and isinstance(func.value, cst.Name) and func.value.value in ("self", "cls"):
        func, method = func.attr, True
    if not isinstance(func, cst.Name) or any(a.keyword is not None or a.star for a in expr.args):
        return None
    helper = helpers.get(func.value)
    if helper is None:
        return None
    params = param_names(helper)[1:] if method else param_names(helper)
    returns = [r for r in walk(helper.body) if isinstance(r, cst.Return)]
    if len(params) != len(expr.args) or len(returns) != 1 or returns[0].value is None:
        return None
    given = {name: _parenthesized(a.value) for name, a in zip(params, expr.args, strict=True)}
    counted = _tile_count(returns[0].value)
    if counted is None:
        return None
    tile, size = (_substituted(e, given) for e in counted)
    return (tile, size) if _tile_id(tile) is not None or _int(tile) is not None else None


def _ceil_spelled(expr: cst.BaseExpression) -> tuple[cst.BaseExpression, cst.BaseExpression] | None:
    """(tile, size) of a count of tiles rounded up in the other spellings authors write, ``(n - 1) // BLOCK + 1``,
    ``-(-n // BLOCK)`` and ``-(n // -BLOCK)`` (wrongkernel21: a grid's second axis so counted was read by no rule)."""
    if isinstance(expr, cst.BinaryOperation) and isinstance(expr.operator, cst.Add):
        for floor, one in ((expr.left, expr.right), (expr.right, expr.left)):
            if _int(one) != 1 or not isinstance(floor, cst.BinaryOperation):
                continue
            less = floor.left
            if (
                isinstance(floor.operator, cst.FloorDivide)
                and isinstance(less, cst.BinaryOperation)
                and isinstance(less.operator, cst.Subtract)
                and _int(less.right) == 1
                and _tile_id(floor.right) is not None
            ):
                return floor.right, less.left.with_changes(lpar=[], rpar=[])
    if isinstance(expr, cst.UnaryOperation) and isinstance(expr.operator, cst.Minus):
        floor = expr.expression
        if (
            isinstance(floor, cst.BinaryOperation)
            and isinstance(floor.operator, cst.FloorDivide)
            and isinstance(floor.left, cst.UnaryOperation)
            and isinstance(floor.left.operator, cst.Minus)
            and _tile_id(floor.right) is not None
        ):
            return floor.right, floor.left.expression
        if (  # ``-(n // -BLOCK)``: the same ceiling, the divisor negated
            isinstance(floor, cst.BinaryOperation)
            and isinstance(floor.operator, cst.FloorDivide)
            and isinstance(floor.right, cst.UnaryOperation)
            and isinstance(floor.right.operator, cst.Minus)
            and _tile_id(floor.right.expression) is not None
        ):
            return floor.right.expression, floor.left
    return None


def _returned_grid(
    fn: cst.FunctionDef, call: cst.Call, helpers: Mapping[str, cst.FunctionDef]
) -> cst.Tuple | cst.List | None:
    """The tuple a launch's grid function returns, in ``fn``'s names: a function ``fn`` defines and launches by its
    name (``def grid(meta): return (n_rows, triton.cdiv(n_cols, meta["BLOCK"]))``, its sizes ``fn``'s own), or a
    module helper a ``lambda meta:`` grid calls (``lambda meta: _grid(n_rows, n_cols, meta)``), its parameters
    replaced by the call's arguments; ``None`` for any other grid, or a function of more than one ``return``."""
    if not isinstance(call.func, cst.Subscript) or len(call.func.slice) != 1:
        return None
    index = call.func.slice[0].slice
    grid = index.value if isinstance(index, cst.Index) else None
    given: dict[str, cst.BaseExpression] = {}
    if isinstance(grid, cst.Name):
        defined = [d for d in walk(fn.body) if isinstance(d, cst.FunctionDef) and d.name.value == grid.value]
        source = defined[0] if len(defined) == 1 else None
    elif isinstance(grid, cst.Lambda) and isinstance(grid.body, cst.Call) and isinstance(grid.body.func, cst.Name):
        source = helpers.get(grid.body.func.value)
        if source is None or source is fn or any(a.star for a in grid.body.args):
            return None
        params = param_names(source)
        for i, arg in enumerate(grid.body.args):
            if arg.keyword is not None:
                given[arg.keyword.value] = arg.value
            elif i < len(params):
                given[params[i]] = arg.value
    else:
        return None
    if source is None:
        return None
    returns = [r for r in walk(source.body) if isinstance(r, cst.Return)]
    if len(returns) != 1 or not isinstance(returns[0].value, cst.Tuple | cst.List):
        return None
    value = returns[0].value
    return cst.ensure_type(value.visit(Substitute(given)), cst.Tuple | cst.List) if given else value


def _bound_integer(
    expr: cst.BaseExpression,
    local: Mapping[str, cst.BaseExpression],
    fn: cst.FunctionDef,
    tightest: Callable[[list[int]], int],
) -> int | None:
    """The integer a check's bound ``expr`` is (:func:`_bound_value`), or, where it takes several (a local ``fn``
    binds in each branch of an ``if``, or to ``512 if ... else 1024``), the ``tightest`` of them (``min`` for a bound
    from above, ``max`` for one from below): a tile within it passes wherever the original passed. ``None`` where any
    value is not read (an augmented assignment, a call). wrongkernel31, v183: such a bound was not read, and a tile
    within every value of it was refused (a divisor of the original held)."""
    found: list[int] = []
    todo = [_bound_value(expr, local)]
    if isinstance(expr, cst.Name) and expr.value not in local:
        todo = list(bindings(fn).get(expr.value, ())) or todo  # type: ignore[arg-type]
    while todo:
        value = todo.pop()
        if isinstance(value, cst.IfExp):
            todo += [value.body, value.orelse]
        elif value is None or (one := _evaluated(value)) is None:
            return None
        else:
            found.append(one)
    return tightest(found) if found else None


def _bound_value(expr: cst.BaseExpression, local: Mapping[str, cst.BaseExpression]) -> cst.BaseExpression:
    """``expr``, or the value a local it names is bound to once (:func:`assigned_once`), or the body of a lambda so
    bound that ``expr`` calls, its parameters replaced by the call's arguments (``n_blocks = lambda n: triton.cdiv(n,
    BLOCK)`` called ``n_blocks(n_cols)``: wrongkernel22, v96)."""
    if isinstance(expr, cst.Name):
        return local.get(expr.value, expr)
    if isinstance(expr, cst.Subscript) and isinstance(expr.value, cst.Name) and len(expr.slice) == 1:
        # ``grid[0]`` of ``grid = (grid_size0, grid_size1)``: that element (review26, r69: ``assert grid[0] < 65536``
        # bounded no count, and a row of a smaller tile was written plainly)
        index, tuple_ = expr.slice[0].slice, local.get(expr.value.value)
        at = _int(index.value) if isinstance(index, cst.Index) else None
        if isinstance(tuple_, cst.Tuple | cst.List) and at is not None and at < len(tuple_.elements):
            element = tuple_.elements[at]
            return expr if isinstance(element, cst.StarredElement) else element.value
        return expr
    if not (isinstance(expr, cst.Call) and isinstance(expr.func, cst.Name)):
        return expr
    bound = local.get(expr.func.value)
    if not isinstance(bound, cst.Lambda) or any(a.keyword is not None or a.star for a in expr.args):
        return expr
    params = bound.params
    if params.star_arg is not cst.MaybeSentinel.DEFAULT or params.kwonly_params or params.star_kwarg:
        return expr
    names = [p.name.value for p in params.params]
    if len(names) != len(expr.args) or params.posonly_params:
        return expr
    given = {name: _parenthesized(a.value) for name, a in zip(names, expr.args, strict=True)}
    return _substituted(bound.body, given)


def _substituted(expr: cst.BaseExpression, given: Mapping[str, cst.BaseExpression]) -> cst.BaseExpression:
    """``expr`` with each name of ``given`` replaced by its expression."""
    return cast(cst.BaseExpression, expr.visit(Substitute(given)))


def _product_factors(expr: cst.BaseExpression) -> list[cst.BaseExpression]:
    """The factors of a product ``a * b * c`` (parentheses read through); ``[expr]`` for anything else."""
    if isinstance(expr, cst.BinaryOperation) and isinstance(expr.operator, cst.Multiply):
        return _product_factors(expr.left) + _product_factors(expr.right)
    return [expr]


def _tile_count(
    expr: cst.BaseExpression, helpers: Mapping[str, cst.FunctionDef] | None = None
) -> tuple[cst.BaseExpression, cst.BaseExpression] | None:
    """(tile, size) of a count of tiles rounded up (``triton.cdiv(n, BLOCK)``, ``(n + BLOCK - 1) // BLOCK``, a module
    helper that returns one of its two parameters over the other so, ``ceil_div(n, BLOCK)``: v94) or down (``n //
    BLOCK``, a kernel without masks: v91; a literal divisor there is no tile's copy, ``n // 2``), read through a
    ``max``, ``min`` or ``int`` around the one count among its arguments (``max(1, triton.cdiv(n, BLOCK))``: a count
    kept from zero, or capped, rises with a smaller tile as the bare count does, up to the cap: wrongkernel22, v96)."""
    if isinstance(expr, cst.Call) and dotted(expr.func) in ("max", "min", "int"):
        if any(a.keyword is not None or a.star for a in expr.args):
            return None
        counts = [c for a in expr.args if (c := _tile_count(a.value, helpers)) is not None]
        return counts[0] if len(counts) == 1 else None
    if (called := _helper_ceiling(expr, helpers or {})) is not None:
        return called
    if (counted := ceil_count(expr)) is not None:
        return counted[1], counted[0]
    if (ceil := _ceil_div(expr)) is not None:
        return ceil
    if (spelled := _ceil_spelled(expr)) is not None:
        return spelled
    floor = isinstance(expr, cst.BinaryOperation) and isinstance(expr.operator, cst.FloorDivide)
    if floor and _int(expr.right) is None and (_tile_id(expr.right) or _tile_product(expr.right)) is not None:  # type: ignore[attr-defined]
        return expr.right, expr.left  # type: ignore[attr-defined]
    return None


def _product_limits(
    tile_expr: cst.BaseExpression,
    literals: Mapping[int, list[str]],
    line: int,
    why: str,
    count: cst.BaseExpression | None = None,
) -> list[Divides]:
    """A tile counted in a product with other sizes on a grid's second or third axis (``(B, H * triton.cdiv(L,
    BLOCK))``): a smaller tile can take the product past :data:`GRID_AXIS_MOST` at sizes where the original's stayed
    under it (wrongkernel21, v89), and no one size bounds it, so a smaller tile is refused (``size`` ``None``: no
    guard is written); a larger one counts fewer programs and holds."""
    value = _int(tile_expr)
    if value is not None:  # the launch literal's copy (``triton.cdiv(L, 1024)`` beside ``BLOCK=1024``)
        tiles: list[tuple[str, str]] = [("meta", k) for k in literals.get(value, [])]
    else:
        tile = _tile_id(tile_expr)
        tiles = [tile] if tile is not None else []
    most = GRID_AXIS_MOST if count is not None else None
    return [
        Divides(t, None, line, why, covers=True, scale=(GRID_AXIS_MOST, 1), count=count, count_most=most) for t in tiles
    ]


def _grid_tuple(fn: cst.FunctionDef, call: cst.Call) -> cst.Tuple | cst.List | None:
    """The tuple the launch ``call``'s grid is: written there, a local of ``fn`` bound once to one, or what a
    ``lambda META:`` grid returns; ``None`` for any other grid."""
    if not isinstance(call.func, cst.Subscript) or len(call.func.slice) != 1:
        return None
    index = call.func.slice[0].slice
    grid = index.value if isinstance(index, cst.Index) else None
    if isinstance(grid, cst.Name):
        grid = assigned_once(fn).get(grid.value)
    if isinstance(grid, cst.Lambda):
        grid = grid.body
    return grid if isinstance(grid, cst.Tuple | cst.List) else None


def _decorator_literals(fn: cst.FunctionDef) -> list[tuple[str, cst.BaseExpression, str]]:
    """(key, value, where) of every setting a kernel holds itself, in order: each ``"KEY": <value>`` entry in its
    decorators (``triton.Config``'s dicts and ``@triton.heuristics``', a lambda's body standing for its value;
    where: ``decorator``), then each default of its signature (``BLOCK: tl.constexpr = 1024``; ``signature``), then
    each ``tl.constexpr`` its body binds to a literal (Inductor's ``RBLOCK: tl.constexpr = 64``; ``body``)."""
    out: list[tuple[str, cst.BaseExpression, str]] = []
    entries = [
        (str(node.key.evaluated_value), node.value)
        for decorator in fn.decorators
        for node in walk(decorator.decorator)
        if isinstance(node, cst.DictElement) and isinstance(node.key, cst.SimpleString)
    ]
    listed = {key for key, value in entries if not isinstance(value, cst.Lambda)}
    for key, value in entries:
        if not isinstance(value, cst.Lambda):
            out.append((key, value, "decorator"))
            continue
        # each row of a heuristic's ``V if <test> else ...`` is a value it runs; a fallback on the value the list
        # passes (``args["BLOCK"]``, late53's l230 written form) is the configs' values, read as theirs (review30 r102:
        # l252 made its row a knob and a raise to 128 of ``n // meta["BLOCK"]`` programs over 64 was written)
        # (review30 r104: a hand-written ``64 if args["n"] <= 4096 else 32`` was no value either, and ``lambda args:
        # 128`` in its place was written over the same grid); a row not a literal keeps the body whole (v127's rule)
        own = f'{param_names(value)[0]}["{key}"]' if len(param_names(value)) == 1 else None
        # tune's raise bounded again nests rows (``(256 if args["BD"] <= 64 else 128) if ...``): every leaf is one
        rows = [
            row
            for row in _if_leaves(value.body)
            if not (key in listed and own is not None and _code(row).strip() == own)
        ]
        if not rows or any(_int(row) is None for row in rows):
            rows = [value.body]
        out += [(key, row, "decorator") for row in rows]
    for param in params_of(fn, kwonly=True):
        if param.default is not None:
            out.append((param.name.value, param.default, "signature"))
    out += [(name, value, "body") for name, value in body_constexprs(fn).items()]
    return out


def _heuristic_bodies(fn: cst.FunctionDef) -> list[tuple[str, cst.BaseExpression]]:
    """(key, the lambda's body) of each ``"KEY": lambda ...`` entry of ``fn``'s decorators."""
    return [
        (str(node.key.evaluated_value), node.value.body)
        for decorator in fn.decorators
        for node in walk(decorator.decorator)
        if isinstance(node, cst.DictElement)
        and isinstance(node.key, cst.SimpleString)
        and isinstance(node.value, cst.Lambda)
    ]


def _if_leaves(expr: cst.BaseExpression) -> list[cst.BaseExpression]:
    """The values a conditional expression gives, nested ones' too (``(a if p else b) if q else c``: a, b, c)."""
    if isinstance(expr, cst.IfExp):
        return [*_if_leaves(expr.body), *_if_leaves(expr.orelse)]
    return [expr]


def _decorator_tiles(
    old: Sequence[cst.FunctionDef],
    new: Sequence[cst.FunctionDef],
    unmasked: Mapping[str, cst.FunctionDef],
    pos: Positions,
    imported: Collection[str] = (),
) -> str | None:
    """Why the edit cannot be written when it moved a tile in a kernel's decorator (an autotune ``Config``, a
    heuristic's literal) to a value that does not divide the original, where a launching function says the tile
    must divide a size (``n // meta["BLOCK"]`` programs), or below the smallest the original ran, where the kernel
    covers a size with one block of it: a decorator (or a default of the kernel's signature, which a launch that
    leaves the parameter out runs) cannot be guarded by a launch's size."""
    if len(old) != len(new):
        return None
    launchers = [f for f in new if not is_jit(f)]
    kernels = {f.name.value: f for f in new if is_jit(f)}
    for o, n in zip(old, new, strict=True):
        if not is_jit(n):
            continue
        # a size the original handled is one every value of the key divides (an autotune list may run any of
        # its configs): their least common multiple; a new value must divide it (a list pinned to one config too)
        handled: dict[str, int | None] = {}
        lowest: dict[str, int | None] = {}  # a block covering a size: the smallest any config runs covers it
        # a heuristic's row runs only where its test holds: the sizes it handled are those it divides, so the
        # sizes handled are the list's (every value's multiple) at most, and each row's (review30 r109)
        rows = {id(row) for _, body in _heuristic_bodies(o) if isinstance(body, cst.IfExp) for row in _if_leaves(body)}
        row_values: dict[str, list[int]] = {}
        for key, b_node, _ in _decorator_literals(o):
            b = _int(b_node)
            seen, low = handled.get(key, 1), lowest.get(key, b)
            if id(b_node) in rows and b is not None:
                row_values.setdefault(key, []).append(b)
            else:
                handled[key] = None if b is None or seen is None else math.lcm(seen, b)  # None: a value not read
            lowest[key] = None if b is None or low is None else min(low, b)
        for key, values in row_values.items():
            if handled.get(key, 0) is not None:
                handled[key] = math.gcd(handled.get(key, 0), *values)
        covering = {r.block: r for r in one_block(n, kernels, imported)}
        shrunk = _pruned_cover_shrunk(o, n, covering)
        if shrunk is not None:
            return shrunk
        computed = {key: b_node for key, b_node, where in _decorator_literals(o) if where == "decorator"}
        # a heuristic's rows run each at its own sizes, so its least is not what covers: the rows stay a computation
        # for v127's rule (review30 r107: ``lambda args: 2048`` over ``1024 if args["n_cols"] <= 1024 else 4096``
        # was written after r104 read the rows as values, a row of 3000 summed over its first 2048)
        computed |= {key: body for key, body in _heuristic_bodies(o) if isinstance(body, cst.IfExp)}
        for key, a_node, where in _decorator_literals(n):
            a, low = _int(a_node), lowest.get(key)
            was, r = computed.get(key), covering.get(key)
            # a fixed block in place of a computed one (``lambda args: 1024`` for ``triton.next_power_of_2(
            # args["n_cols"])``) covers only the sizes up to it, the computation every size it rises with
            # (wrongkernel26, v127: ``tunables --set`` wrote it, a row of 2000 summed over its first 1024)
            fixed = was is not None and _int(was) is None
            if r is not None and a is not None and (fixed or (low is not None and not r.holds(low, a))):
                covers = r.size if r.size is not None else "a size"
                moved = f"{key}={a} in place of the computed {_code(was).strip()}" if fixed else f"{key}={a}"  # type: ignore[arg-type]
                before = "the original" if fixed else f"the original {key}={low}"
                return (
                    f"{moved} does not cover every size {before} handled (the kernel {n.name.value} covers {covers} "
                    f"with one block of {key} ({r.test})), and a setting in {n.name.value}'s {where} cannot be guarded "
                    "by a size: not written"
                )
            if a is not None and low is not None and a < low:
                limit = _grid_limited(key, launchers, unmasked, pos, kernels, imported)
                if limit is not None:
                    return (
                        f"{key}={a} does not cover every size the original {key}={low} handled ({limit.why}), and a "
                        f"setting in {n.name.value}'s {where} cannot be guarded by a size: not written"
                    )
            b = handled.get(key)
            # a value under 1 is no tile a size is counted in: a flag (lmdeploy's ``ROUND_SCALE: tl.constexpr = 0``,
            # a default of a helper's signature) divides nothing (late58 l280: ``0 % 0``, an internal error)
            if b is None or a is None or a < 1 or b % a == 0:
                continue
            why = _divisor_needed(key, n, launchers, unmasked, pos, kernels, imported)
            if why is not None:
                return (
                    f"{key}={a} does not divide every size the original {key}={b} handled ({why}), "
                    f"and a setting in {n.name.value}'s {where} cannot be guarded by a size: not written"
                )
        undivided = _pruned_divisor_lost(o, n, {f.name.value: f for f in old})
        if undivided is not None:
            key, a, b = undivided
            why = _divisor_needed(key, n, launchers, unmasked, pos, kernels, imported)
            if why is not None:
                return (
                    f"{key}={a} as the list's least does not divide every size the original {key}={b} handled "
                    f"({why}; its prune_configs_by keeps the configs that fit each size, so the original ran "
                    f"{key}={b} where no other divides), and a setting in an autotune list cannot be guarded by a "
                    "size: not written"
                )
    return None


def _divisor_needed(
    key: str,
    kernel: cst.FunctionDef,
    launchers: Sequence[cst.FunctionDef],
    unmasked: Mapping[str, cst.FunctionDef],
    pos: Positions,
    kernels: Mapping[str, cst.FunctionDef],
    imported: Collection[str],
) -> str | None:
    """Why ``kernel``'s setting ``key`` (a decorator's) must divide a size: the kernel steps a loop by it over loads
    that leave it unchecked, or a launching function's requirement on it (``n // meta["BLOCK"]`` programs); ``None``
    where nothing asks it to."""
    own = kernel.name.value
    launches = [(f, c) for f in launchers for _, c in _launch_calls(f) if _launched_name(c) == own]
    flags = _tied_flags(kernel, launches)
    unchecked = unchecked_blocks(kernel, helpers=kernels, external=imported, flags=flags)
    bare = unmasked.get(own, kernel if key in unchecked else None)
    stepped = _stepped_by(key, {own: bare}) if bare is not None else None
    if stepped is not None and own not in unmasked:
        stepped = stepped.replace("over loads without masks", "over loads whose masks leave it unchecked")
    if stepped is not None:
        return stepped
    helpers = {f.name.value: f for f in launchers}
    for fn in launchers:
        found = _requirements(fn, unmasked, pos, kernels, helpers, imported)
        needs = [d for d in found if d.tile == ("meta", key) and not d.covers]
        if needs:
            return needs[0].why
    return None


def _pruned_divisor_lost(
    old: cst.FunctionDef, new: cst.FunctionDef, functions: Mapping[str, cst.FunctionDef]
) -> tuple[str, int, int] | None:
    """(key, the new list's least value, an original value none of the new values divides) where an autotune list
    whose early prune keeps the configs by a remainder of their ``key`` (``nargs["n_cols"] % c.kwargs["BLOCK"] ==
    0``, as an unmasked loop's tiles are pruned; ``functions``: the module's, the prune among them) lost every
    divisor of one of its values: the original handled every size one of its values divides, where a list without a
    divisor of that value keeps none ("No valid autotuner configs after pruning": wrongkernel27, v137, ``tunables
    --set`` of 64 to 128 in a list of 64, 128 and 256, wrong from 192 columns). Under any other prune, or none, any
    config may run at any size, and every value must divide the sizes handled (:func:`_decorator_tiles`' least
    common multiple)."""
    prunes = [
        functions[e.value.value]
        for d in old.decorators
        for e in walk(d.decorator)
        if isinstance(e, cst.DictElement)
        and isinstance(e.key, cst.SimpleString)
        and e.key.evaluated_value == "early_config_prune"
        and isinstance(e.value, cst.Name)
        and e.value.value in functions
    ]
    remainders = [
        node
        for prune in prunes
        for node in walk(prune.body)
        if isinstance(node, cst.BinaryOperation) and isinstance(node.operator, cst.Modulo)
    ]
    keys = dict.fromkeys(k for k, _, where in _decorator_literals(old) if where == "decorator")
    for key in keys:
        if not any(isinstance(s, cst.SimpleString) and s.evaluated_value == key for r in remainders for s in walk(r)):
            continue
        was, now = _listed_values(old, key), _listed_values(new, key)
        lost = [b for b in was if now and not any(b % a == 0 for a in now)]
        if lost:
            return key, min(now), lost[0]
    return None


def _prunes(fn: cst.FunctionDef) -> bool:
    """Whether ``fn``'s decorators prune its autotune list (``prune_configs_by=...``)."""
    return any(
        isinstance(a, cst.Arg) and a.keyword is not None and a.keyword.value == "prune_configs_by"
        for d in fn.decorators
        for a in walk(d.decorator)
    )


def _listed_values(fn: cst.FunctionDef, key: str) -> list[int]:
    """The integers ``fn``'s decorators give ``key`` (an autotune list's configs, in order); a heuristic's rows
    (r102) are not the list's: each runs only where its test holds, so none keeps a size a pruned config handled."""
    entries = _decorator_literals(fn)
    rows = {id(row) for _, body in _heuristic_bodies(fn) if isinstance(body, cst.IfExp) for row in _if_leaves(body)}
    return [
        v
        for k, node, where in entries
        if k == key and where == "decorator" and id(node) not in rows and (v := _int(node)) is not None
    ]


def _pruned_cover_shrunk(old: cst.FunctionDef, new: cst.FunctionDef, covering: Mapping[str, OneBlock]) -> str | None:
    """Why an edit of an autotune list that prunes its configs (``prune_configs_by``) cannot be written when it
    lowers the largest value of a block the kernel covers a size with: such a prune keeps the configs that fit the
    launch's size (``BLOCK_N >= nargs["n_cols"]``), so the original ran its largest block wherever the others fall
    short and handled every size it covers, and a list without it fails there ("No valid autotuner configs after
    pruning", or a block that leaves part of the size undone: wrongkernel26, v126). Without a prune any config may
    run, and the smallest is what covers (:func:`_decorator_tiles`)."""
    if not _prunes(old):
        return None
    for key, r in covering.items():
        was, now = _listed_values(old, key), _listed_values(new, key)
        if was and now and max(now) < max(was):
            covers = r.size if r.size is not None else "a size"
            return (
                f"{key}={max(now)} as the list's largest does not cover every size the original {key}={max(was)} "
                f"handled (the kernel {new.name.value} covers {covers} with one block of {key} ({r.test}), and its "
                "prune_configs_by keeps the configs that fit each size, so the original ran its largest where the "
                "others fall short), and a setting in an autotune list cannot be guarded by a size: not written"
            )
    return None


def _grid_limited(
    key: str,
    launchers: Sequence[cst.FunctionDef],
    unmasked: Mapping[str, cst.FunctionDef],
    pos: Positions,
    kernels: Mapping[str, cst.FunctionDef],
    imported: Collection[str],
) -> Divides | None:
    """The first launch's word that a decorator's ``key`` counts the programs of a grid's second or third axis
    (:func:`_grid_axis_limits`: a smaller value fails the launch at sizes the original ran); ``None`` when none
    does."""
    helpers = {f.name.value: f for f in launchers}
    for fn in launchers:
        for d in _requirements(fn, unmasked, pos, kernels, helpers, imported):
            if d.tile == ("meta", key) and d.covers and d.scale == (GRID_AXIS_MOST, 1):
                return d
    return None


def _grouped_rows(kernel: cst.FunctionDef) -> tuple[str, set[str]] | None:
    """The group parameter of a kernel's grouped program order taken whole (``pid_m = first_pid_m + (pid %
    GROUP_M)``, no ``min`` with the rows of tiles left, as the Triton tutorial's ``group_size_m`` takes), and the
    blocks the grouped row index multiplies (``pid_m * BLOCK_M``); ``None`` when the kernel has none, or clamps
    it. Such an order visits every tile only where the group divides the rows of tiles, ``triton.cdiv(M,
    BLOCK_M)``: the last, partial group maps its programs past the rows and leaves tiles undone (variants v11)."""
    params = constexpr_params(kernel)  # a group and a block, not a size
    clamped = {
        n.value
        for call in typed(kernel.body, cst.Call)
        if dotted(call.func).split(".")[-1] in ("min", "minimum")
        for n in typed(call, cst.Name)
    }
    for group in sorted(params - clamped):
        names = {group} | {  # a local bound to the group as it is (group_size_m = GROUP_SIZE_M: newuser9 n52)
            t.target.value
            for node in typed(kernel.body, cst.Assign)
            if dotted(node.value) == group
            for t in node.targets
            if isinstance(t.target, cst.Name)
        }
        rows = {
            t.target.value
            for node in typed(kernel.body, cst.Assign)
            for t in node.targets
            if isinstance(t.target, cst.Name)
            and any(
                isinstance(m.operator, cst.Modulo) and dotted(m.right) in names
                for m in typed(node.value, cst.BinaryOperation)
            )
        }
        blocks = {
            dotted(other)
            for node in typed(kernel.body, cst.BinaryOperation)
            if isinstance(node.operator, cst.Multiply)
            for one, other in ((node.left, node.right), (node.right, node.left))
            if dotted(one) in rows and dotted(other) in params
        }
        starts = any(  # the group's first row of tiles: group_id * GROUP_M
            isinstance(node.operator, cst.Multiply) and group in (dotted(node.left), dotted(node.right))
            for node in typed(kernel.body, cst.BinaryOperation)
        )
        if rows and blocks and starts and any(_calls_program_id(kernel, r) for r in rows):
            return group, blocks
    return None


def _calls_program_id(kernel: cst.FunctionDef, name: str) -> bool:
    """Whether the local ``name`` of ``kernel`` is computed from a program id (through the locals it reads)."""
    values: dict[str, list[cst.BaseExpression]] = {}
    for node in walk(kernel.body):
        if isinstance(node, cst.Assign):
            for t in node.targets:
                values.setdefault(dotted(t.target), []).append(node.value)
    seen: set[str] = set()
    todo = [name]
    while todo:
        n = todo.pop()
        if n in seen:
            continue
        seen.add(n)
        for v in values.get(n, []):
            if any(isinstance(c, cst.Call) and dotted(c.func).split(".")[-1] == "program_id" for c in walk(v)):
                return True
            todo += list(_names(v))
    return False


def _launch_value(fn: cst.FunctionDef, expr: cst.BaseExpression | None) -> int | None:
    """The integer a launch passes: a literal, or a local of ``fn`` bound once to one; ``None`` otherwise."""
    if expr is None or _int(expr) is not None:
        return _int(expr) if expr is not None else None
    if not isinstance(expr, cst.Name):
        return None
    bound = assigned_once(fn).get(expr.value)
    return _int(bound) if bound is not None else None


def _run_configs(
    kernel: cst.FunctionDef, fn: cst.FunctionDef | None, call: cst.Call | None
) -> list[dict[str, int | None]] | None:
    """The configurations one launch of ``kernel`` runs (:func:`~kernelopt.tunables.decorator_words.decorator_configs`,
    each with the values the launch passes, :func:`_launch_value`; an autotune list runs any of its configs); ``None``
    where its list is not read."""
    configs = decorator_configs(kernel)
    if configs is None:
        return None
    passed = {k: _launch_value(fn, v) for k, v in _passed(call, kernel).items()} if fn and call else {}
    return [{**config, **passed} for config in configs]


def _launch_configs(
    old: Sequence[cst.FunctionDef], new: Sequence[cst.FunctionDef], name: str
) -> Iterator[tuple[list[dict[str, int | None]], list[dict[str, int | None]], cst.FunctionDef | None, cst.Call | None]]:
    """For each launch of the kernel ``name`` (old beside new, :func:`_launch_pairs`; the kernel alone when nothing
    in the file launches it): the configurations it ran and runs (:func:`_run_configs`), the new launching function
    and call (``None``: no launch)."""
    o_kernel = next((f for f in old if is_jit(f) and f.name.value == name), None)
    n_kernel = next((f for f in new if is_jit(f) and f.name.value == name), None)
    if o_kernel is None or n_kernel is None:
        return
    launched = False
    for o, n, o_call, n_call, called in _launch_pairs(old, new):
        if called != name:
            continue
        launched = True
        before, after = _run_configs(o_kernel, o, o_call), _run_configs(n_kernel, n, n_call)
        if before is not None and after is not None:
            yield before, after, n, n_call
    if not launched:
        before, after = _run_configs(o_kernel, None, None), _run_configs(n_kernel, None, None)
        if before is not None and after is not None:
            yield before, after, None, None


def _unclamped_groups(old: Sequence[cst.FunctionDef], new: Sequence[cst.FunctionDef]) -> str | None:
    """Why an edit cannot be written when it moved the group or the row block of a kernel whose grouped order
    takes its groups whole (:func:`_grouped_rows`): the original handled only the sizes where its group divides
    ``triton.cdiv(M, BLOCK_M)``; a group that divides the original, its row block unmoved, holds there, and so
    does a group of 1 (no grouping); any other move leaves tiles undone at a size the original handled, and no
    guard by the launch's sizes is written for it. The group and the block are read wherever they are set: at
    the launch, in an ``@triton.autotune`` config or a heuristic (:func:`_run_configs`); an autotune list runs any
    of its configs, so each new config must hold wherever every old one did (variants v15)."""
    if len(old) != len(new):
        return None
    kernels = {f.name.value: f for f in new if is_jit(f)}
    grouped = {name: g for name, k in kernels.items() if (g := _grouped_rows(k)) is not None}
    for name, (group, blocks) in sorted(grouped.items()):
        for before, after, _, _ in _launch_configs(old, new, name):
            if before == after:
                continue
            for config in after:
                g1 = config.get(group)
                if g1 is None or g1 == 1:
                    continue
                held = any(  # an old config with the same row blocks and a group g1 divides
                    (g0 := was.get(group)) is not None
                    and g0 % g1 == 0
                    and all(was.get(b) == config.get(b) for b in blocks)
                    for was in before
                )
                if held or config in before:
                    continue
                same = [c for c in before if all(c.get(b) == config.get(b) for b in blocks)]
                was = next((c for c in [*same, *before] if c.get(group) is not None), {})
                moved = [b for b in sorted(blocks) if was.get(b) != config.get(b)]
                block = moved[0] if moved and was.get(group) == g1 else ""
                what = f"{block}={config.get(block)} with {group}={g1}" if block else f"{group}={g1}"
                tiles = "/".join(sorted(blocks))
                decorated = _set_in_decorator(kernels[name], group, *blocks)
                where = f"; {name}'s decorator sets {', '.join(decorated)}" if decorated else ""
                return (
                    f"{what} may leave tiles undone at a size the original handled (the kernel {name} takes its "
                    f"groups of {group} rows of tiles whole, with no min() with the rows left: correct only where "
                    f"{group} divides the rows of {tiles} tiles{where}), and no guard by a size is written for it: "
                    "not written"
                )
    return None


def _set_in_decorator(kernel: cst.FunctionDef, *keys: str) -> list[str]:
    """Which of ``keys`` a kernel's decorators set (an autotune config or a heuristic), in order."""
    held = {key for key, _, where in _decorator_literals(kernel) if where == "decorator"}
    return [k for k in keys if k in held]


def _launch_pairs(
    old: Sequence[cst.FunctionDef], new: Sequence[cst.FunctionDef]
) -> Iterator[tuple[cst.FunctionDef, cst.FunctionDef, cst.Call, cst.Call, str]]:
    """The launches outside the kernels, old beside new, function by function where a function launches as many
    kernels in both: ``(old function, new function, old call, new call, the kernel's name)``."""
    for o, n, calls in _function_launches(old, new):
        for o_call, n_call, name in calls:
            yield o, n, o_call, n_call, name


def _function_launches(
    old: Sequence[cst.FunctionDef], new: Sequence[cst.FunctionDef]
) -> Iterator[tuple[cst.FunctionDef, cst.FunctionDef, list[tuple[cst.Call, cst.Call, str]]]]:
    """:func:`_launch_pairs` by launching function: ``(old function, new function, [(old call, new call, the
    kernel's name)])``, a function whose launches are as many in both and more than none."""
    for o, n in zip(old, new, strict=True):
        if is_jit(n):
            continue
        before, after = _launch_calls(o), _launch_calls(n)
        if len(before) != len(after) or not after:
            continue
        calls = [
            (o_call, n_call, dotted(n_call.func.value) if isinstance(n_call.func, cst.Subscript) else "")
            for (_, o_call), (_, n_call) in zip(before, after, strict=True)
        ]
        yield o, n, calls


def _program_strides(kernel: cst.FunctionDef) -> dict[str, int]:
    """The parameters a kernel strides its programs by, and the grid axis of those programs: a loop ``for tile in
    range(pid, num_tiles, NUM_SMS)`` with ``pid`` a program id (directly or through a local: a persistent kernel),
    or ``range(pid_k * BLOCK_K, K, BLOCK_K * SPLIT_K)``, the step the start's unit times the stride (a split-K
    kernel), or the same written as a ``while`` loop (``tile = pid`` / ``while tile < num_tiles:`` / ``tile +=
    NUM_SMS``: variants v35): the programs of that axis cover every step only when there are at least that many of
    them."""
    out: dict[str, int] = {}
    params = set(param_names(kernel))
    bound: dict[str, list[cst.BaseExpression]] = {}
    for n in walk(kernel.body):
        if isinstance(n, cst.Assign):
            for t in n.targets:
                bound.setdefault(dotted(t.target), []).append(n.value)

    def resolved(expr: cst.BaseExpression) -> cst.BaseExpression:
        values = bound.get(expr.value, []) if isinstance(expr, cst.Name) else []
        return values[0] if len(values) == 1 else expr

    def axis(expr: cst.BaseExpression) -> int | None:
        expr = resolved(expr)
        if not (isinstance(expr, cst.Call) and dotted(expr.func).split(".")[-1] == "program_id"):
            return None
        arg = next((a.value for a in expr.args if a.keyword is None or a.keyword.value == "axis"), None)
        return _int(arg) if arg is not None else 0

    loops: list[tuple[cst.BaseExpression, cst.BaseExpression]] = []  # (start, step) of each striding loop
    for node in walk(kernel.body):
        args = _range_args(node.iter) if isinstance(node, cst.For) else None
        if args is not None and len(args) == 3:
            loops.append((args[0].value, args[2].value))
        if isinstance(node, cst.While):  # ``tile = pid`` / ``while tile < num_tiles:`` / ``tile += NUM_SMS``
            tested = _names(node.test)
            loops += [
                (cst.Name(dotted(n.target)), n.value)
                for n in walk(node.body)
                if isinstance(n, cst.AugAssign) and isinstance(n.operator, cst.AddAssign) and dotted(n.target) in tested
            ]
    for start, step in loops:
        start = resolved(start)
        unit: set[str] = set()
        at = axis(start)
        if at is None and isinstance(start, cst.BinaryOperation) and isinstance(start.operator, cst.Multiply):
            for one, other in ((start.left, start.right), (start.right, start.left)):
                if (a := axis(one)) is not None:
                    at, unit = a, _names(other)
        if at is None or not isinstance(step, cst.Name | cst.BinaryOperation):
            continue
        if isinstance(step, cst.BinaryOperation) and not isinstance(step.operator, cst.Multiply):
            continue
        strides = (_names(step) - unit) & params
        if len(strides) == 1 and _names(step) & params >= unit:
            out[strides.pop()] = at
    return out


def _atomic(kernel: cst.FunctionDef) -> bool:
    """Whether ``kernel`` adds into its output with an atomic (``tl.atomic_add`` and the like): a program run twice
    over the same part adds it twice."""
    return any(isinstance(n, cst.Call) and dotted(n.func).split(".")[-1].startswith("atomic_") for n in walk(kernel))


def _grid_programs(fn: cst.FunctionDef, call: cst.Call, axis: int = 0) -> tuple[int | None, set[str]]:
    """The most programs the launch ``call``'s grid gives on its ``axis`` when it is written as a number (``(4,)``,
    ``(min(132, num_tiles),)``, a local bound once to one, the same returned by a ``lambda META:`` grid), and the
    names that axis reads (a ``META["NUM_SMS"]`` key as ``['NUM_SMS']``)."""
    grid = _grid_tuple(fn, call)
    if grid is None or len(grid.elements) <= axis:
        return None, set()
    first = grid.elements[axis].value
    reads = _names(first) | {f"[{key!r}]" for key in _strings(first)}  # a name, or a key of the grid's META
    if isinstance(first, cst.Call) and dotted(first.func) == "min":
        counts = [v for a in first.args if (v := _launch_value(fn, a.value)) is not None]
        return (min(counts) if counts else None), reads
    return _launch_value(fn, first), reads


def _strides_past_the_grid(old: Sequence[cst.FunctionDef], new: Sequence[cst.FunctionDef]) -> str | None:
    """Why an edit cannot be written when it moved a kernel's program stride (:func:`_program_strides`: a persistent
    kernel's ``NUM_SMS``, a split-K kernel's ``SPLIT_K``) away from the programs its launch's grid gives on that
    axis, where the grid is a number of its own (``k[(4,)](..., NUM_SMS=4)``, ``(tiles, 4)`` beside ``SPLIT_K=4``):
    above them, programs striding past each other leave tiles (or parts of K) undone at every size with more of
    them than programs (variants v13: right at SHAPES of at most 4 tiles, wrong above; v17: a split-K stride right
    at the SHAPES' K of 64 and wrong at 200); below them, in a kernel that adds its part with an atomic, programs
    overlap and add a part twice. A grid reading the name the stride is passed as (``(min(NUM_SMS, num_tiles),)``,
    ``META["NUM_SMS"]``) moves with it. The stride is read wherever it is set: at the launch, in an
    ``@triton.autotune`` config or a heuristic (:func:`_run_configs`, variants v16)."""
    if len(old) != len(new):
        return None
    kernels = {f.name.value: f for f in new if is_jit(f)}
    strided = {name: s for name, k in kernels.items() if (s := _program_strides(k))}
    for name, strides in sorted(strided.items()):
        for before, after, fn, call in _launch_configs(old, new, name):
            if fn is None or call is None or before == after:
                continue
            for stride, axis in sorted(strides.items()):
                programs, reads = _grid_programs(fn, call, axis)
                if programs is None:
                    continue
                now = _passed(call, kernels[name]).get(stride)
                if (isinstance(now, cst.Name) and now.value in reads) or f"[{stride!r}]" in reads:
                    continue
                was = {c.get(stride) for c in before}
                atomic = _atomic(kernels[name])
                s1 = next(
                    (
                        v
                        for c in after
                        if (v := c.get(stride)) is not None
                        and v not in was
                        and (v > programs or atomic)
                        and v != programs
                    ),
                    None,
                )
                if s1 is None:
                    continue
                where = "" if _launch_value(fn, now) == s1 else f", set in {name}'s decorator"
                grid = f"its grid {_grid_text(fn, call)}{where}"
                on = f" on axis {axis}" if axis else ""
                if s1 > programs:
                    return (
                        f"{stride}={s1} is more than the {programs} programs the launch of {name} gives{on} ({grid}): "
                        f"the kernel strides its programs by {stride}, so they would step past each other and leave "
                        f"work undone at sizes of more than {programs} steps; the grid is a number of its own, not "
                        "moved with it: not written"
                    )
                return (
                    f"{stride}={s1} is fewer than the {programs} programs the launch of {name} gives{on} ({grid}): "
                    f"the kernel strides its programs by {stride} and adds its part with an atomic, so programs "
                    "would overlap and add a part twice; the grid is a number of its own, not moved with it: "
                    "not written"
                )
    return None


def _stale_copies(
    old: Sequence[cst.FunctionDef],
    new: Sequence[cst.FunctionDef],
    pos: Positions,
    constants: Mapping[str, int] | None = None,
) -> str | None:
    """Why an edit cannot be written when a launching function still divides a size by a moved tile's original
    value (``num = triton.cdiv(n, 256)`` beside ``BLOCK=256``): a copy of the tile's value that the edit did not
    move. It counts the programs (a tile moved below it leaves elements undone) or sizes a buffer the kernel
    indexes by program (a grid whose own copy moved with the tile writes past it): variants v18, a two-stage sum
    right at SHAPES of at most one block and wrong above. The copy may be named: a local bound once to the value,
    or a module constant (``constants``: bound once at module level, ``ROWS_PER_PROGRAM = 256`` dividing the grid
    beside ``BLOCK=256``, variants v23). A value another setting of the function still holds unmoved (square
    tiles, ``BLOCK_M=64, BLOCK_N=64``) is the moved tile's copy only where it divides a size the moved tile's
    ranges are compared with in the kernel (``M``) and the unmoved one's are not (``N``): variants v26, a buffer
    of ``triton.cdiv(M, 64)`` row tiles left behind by ``BLOCK_M=32``."""
    if len(old) != len(new):
        return None
    kernels = {f.name.value: f for f in new if is_jit(f)}
    for o, n, calls in _function_launches(old, new):
        launched = _launch_moves(o, n, calls, kernels, pos, constants)
        if isinstance(launched, str):
            return launched
        for before, node, divisor, size in _divisions(o.body, n.body):
            b = _int(divisor)
            if before is not None and before != b:
                continue  # a literal the edit itself moved (the grid's copy of another tile): no stale copy
            if isinstance(divisor, cst.Name) and divisor.value in launched.own:
                continue  # the setting itself (vLLM's cdiv(max_seq_length, BLOCK_M) beside BLOCK_M), not a copy
            if b is None and isinstance(divisor, cst.Name):  # a named copy: a local, or a module constant
                b = _launch_value(n, divisor)
                b = b if b is not None or not constants else constants.get(divisor.value)
            if b is not None and b not in launched.moved and b not in launched.kept and b in launched.products:
                line = pos[node].start.line if node in pos else 0
                names, a = launched.products[b]
                return (
                    f"{names} moves from {b} to {a}, but line {line} still divides by {b} ({_code(node)}): a copy "
                    f"of the settings' product the edit does not move (the elements a program steps over), which "
                    f"counts the programs or sizes a buffer the kernel indexes by program: not written"
                )
            if b is None or b not in launched.moved:
                continue
            key, a = _mover(launched, b, size)
            if b in launched.kept:  # a value two settings share: the moved one's copy only where it divides its size
                divided = {_code(m) for m in walk(size) if isinstance(m, cst.Name)} | {_code(size)}
                if not (divided & launched.tiles.get(key, set())) or divided & launched.kept[b]:
                    continue
            line = pos[node].start.line if node in pos else 0
            at = f"line {line}" if line else "the launching function"
            named = f", {divisor.value} = {b}" if isinstance(divisor, cst.Name) else ""
            return (
                f"{key}={a} moves the tile from {b}, but {at} still divides by {b} ({_code(node)}{named}): a copy of "
                f"the tile's value the edit does not move, which counts the programs or sizes a buffer the kernel "
                f"indexes by program, so the two would disagree at sizes of more than one block: not written"
            )
    return None


@dataclass
class _LaunchMoves:
    """What a launching function's launches pass before and after an edit (:func:`_launch_moves`)."""

    moved: dict[int, tuple[str, int]] = field(default_factory=dict)  # an original value -> (its setting, the new)
    movers: dict[int, list[tuple[str, int]]] = field(default_factory=dict)  # the same, every setting that held it
    kept: dict[int, set[str]] = field(default_factory=dict)  # a value a setting still holds unmoved -> sizes it tiles
    tiles: dict[str, set[str]] = field(default_factory=dict)  # a moved setting -> the sizes it tiles, as passed
    products: dict[int, tuple[str, int]] = field(default_factory=dict)  # two settings' product moved -> names, new
    own: set[str] = field(default_factory=set)  # a local each launch passes as one setting of its own, both sides


def _mover(launched: _LaunchMoves, value: int, size: cst.BaseExpression) -> tuple[str, int]:
    """The moved setting whose copy a division of ``size`` by its original ``value`` is: of several that held the
    value (square tiles both moved), the one whose ranges the kernel compares with ``size``; else the first by name
    (a note that named either at random, by the order of a set, named the rows' copy as the columns' tile)."""
    divided = {_code(m) for m in walk(size) if isinstance(m, cst.Name)} | {_code(size)}
    movers = launched.movers.get(value, [])
    return next((m for m in movers if launched.tiles.get(m[0], set()) & divided), launched.moved[value])


def _launch_moves(
    o: cst.FunctionDef,
    n: cst.FunctionDef,
    calls: Sequence[tuple[cst.Call, cst.Call, str]],
    kernels: Mapping[str, cst.FunctionDef],
    pos: Positions,
    constants: Mapping[str, int] | None,
) -> _LaunchMoves | str:
    """The settings launching function ``o`` (``n`` after the edit) passes its kernels, each launch beside its edited
    one and the kernel's name (``calls``, :func:`_launch_pairs`): which moved, which kept their value, the sizes each
    tiles, the products of two that moved, and the names passed as one setting of their own (:func:`_stale_copies`);
    or why the edit cannot be written, a kernel's own copy of a moved tile (:func:`_kernel_copy`)."""
    out = _LaunchMoves()
    for o_call, n_call, name in calls:
        kernel = kernels.get(name)
        if kernel is None:
            continue
        was, now = _passed(o_call, kernel), _passed(n_call, kernel)
        out.own |= _own_names(was) & _own_names(now)
        params = set(param_names(kernel, kwonly=True))
        sizes = {
            block: {_code(now[size]) for size in compared if size in now}
            for block, compared in compared_sizes(kernel).items()
        }
        values: dict[str, tuple[int, int]] = {}
        for key in sorted(was.keys() & now.keys() & params):  # a kernel's setting, not a launch option (num_warps)
            b, a = _launch_value(o, was[key]), _launch_value(n, now[key])
            if b is None or a is None:
                continue
            values[key] = (b, a)
            if a != b:
                out.moved.setdefault(b, (key, a))
                out.movers.setdefault(b, []).append((key, a))
                out.tiles.setdefault(key, set()).update(sizes.get(key, set()))
            else:
                out.kept.setdefault(b, set()).update(sizes.get(key, set()))
        for (k1, (b1, a1)), (k2, (b2, a2)) in itertools.combinations(sorted(values.items()), 2):
            if b1 * b2 != a1 * a2 and b1 > 1 and b2 > 1:  # ``4 * BLOCK_K`` steps written as 64 (v27)
                out.products.setdefault(b1 * b2, (f"{k1} * {k2}", a1 * a2))
        why = _kernel_copy(kernel, values, pos, constants)
        if why is not None:
            return why
    return out


def _kernel_copy(
    kernel: cst.FunctionDef,
    values: Mapping[str, tuple[int, int]],
    pos: Positions,
    constants: Mapping[str, int] | None = None,
) -> str | None:
    """Why an edit cannot be written when the launched kernel itself counts a size in the moved tile's original
    value (``num_pid_n = tl.cdiv(N, 64)`` beside ``BLOCK_N=64`` at the launch, ``N`` the size ``BLOCK_N``'s ranges
    are compared with): the kernel's copy, which no edit moves, maps its programs by the old tile while the grid
    and the ranges take the new one (v45: right while one tile covers ``N``, wrong above). ``values``: the launch's
    settings, (before, after); ``constants``: module constants bound once (``GROUP_N = 64`` read in the kernel)."""
    compared = compared_names(kernel)
    for key, (before, after) in values.items():
        tiled = compared.get(key, set())
        if before == after or not tiled:
            continue
        for node in walk(kernel.body):
            count = _count_of(node)
            if count is None:
                continue
            size, divisor = count
            value = _int(divisor)
            if value is None and isinstance(divisor, cst.Name) and constants:
                value = constants.get(divisor.value)
            if value != before or not {n.value for n in walk(size) if isinstance(n, cst.Name)} & tiled:
                continue
            line = pos[node].start.line if node in pos else 0
            return (
                f"{key}={after} moves the tile from {before}, but the kernel {kernel.name.value} still divides by "
                f"{before} (line {line}: {_code(node)}), a copy of the tile's value inside the kernel that no edit "
                "moves: its programs and the grid's would disagree at sizes of more than one tile: not written"
            )
    return None


def _own_names(passed: Mapping[str, cst.BaseExpression]) -> set[str]:
    """The names a launch passes as the value of exactly one of its settings (``BLOCK_M`` for ``BLOCK_M``): a
    divisor that reads one is that setting, moved with it; a name two settings share is not its own."""
    names = [v.value for v in passed.values() if isinstance(v, cst.Name)]
    return {n for n in names if names.count(n) == 1}


#: Calls that allocate a tensor of the shape their positional arguments give (``torch.empty(M, 128)``)
_ALLOCATIONS = frozenset({"empty", "zeros", "ones", "full", "new_empty", "new_zeros", "new_ones", "new_full"})


def _stale_strides(old: Sequence[cst.FunctionDef], new: Sequence[cst.FunctionDef], pos: Positions) -> str | None:
    """Why an edit cannot be written when a buffer a kernel strides by a moved block per program (``y_ptr + row *
    BLOCK_N + cols``, ``row`` a program id: rows padded to the block) is still allocated with the block's original
    value (``y = torch.empty(M, 128)`` beside ``BLOCK_N=128``): the stride moves with the block and the buffer does
    not, so the second row is written past the first's end, and the last past the buffer's (variants v40: right at
    SHAPES of one row, where there is no second, and the net moves no size of 1)."""
    if len(old) != len(new):
        return None
    kernels = {f.name.value: f for f in new if is_jit(f)}
    for o, n, o_call, n_call, name in _launch_pairs(old, new):
        kernel = kernels.get(name)
        if kernel is None:
            continue
        was, now = _passed(o_call, kernel), _passed(n_call, kernel)
        for pointer, blocks in _program_strided(kernel).items():
            buffer = now.get(pointer)
            for block in sorted(blocks) if isinstance(buffer, cst.Name) else ():
                b, a = _launch_value(o, was.get(block)), _launch_value(n, now.get(block))
                if b is None or a is None or a == b:
                    continue
                for node in _allocations(n, buffer.value, b):  # type: ignore[union-attr]
                    line = pos[node].start.line if node in pos else 0
                    return (
                        f"{block}={a} moves from {b}, but line {line} still allocates {_code(buffer)} with {b} "
                        f"({_code(node)}), and {kernel.name.value} strides {pointer} by {block} per program: rows "
                        "padded to the block would be written past each other and past the buffer: not written"
                    )
    return None


def _program_strided(kernel: cst.FunctionDef) -> dict[str, set[str]]:
    """Pointer parameter -> the ``tl.constexpr`` blocks an access of ``kernel`` strides it by per program: its
    offset multiplies a block by a local computed from a program id (``y_ptr + row * BLOCK_N + cols``)."""
    params = set(param_names(kernel))
    blocks = constexpr_params(kernel)
    out: dict[str, set[str]] = {}
    for call in walk(kernel.body):
        if not (isinstance(call, cst.Call) and dotted(call.func).split(".")[-1] in ("load", "store") and call.args):
            continue
        pointer = call.args[0].value
        strided = set()
        for node in walk(pointer):
            if not (isinstance(node, cst.BinaryOperation) and isinstance(node.operator, cst.Multiply)):
                continue
            for side, other in ((node.left, node.right), (node.right, node.left)):
                named = isinstance(side, cst.Name) and side.value in blocks and isinstance(other, cst.Name)
                if named and other.value not in params and _calls_program_id(kernel, other.value):  # type: ignore[union-attr]
                    strided.add(side.value)  # type: ignore[union-attr]
        for name in _names(pointer) & (params - blocks) if strided else ():
            out.setdefault(name, set()).update(strided)
    return out


def _allocations(fn: cst.FunctionDef, name: str, value: int) -> list[cst.Call]:
    """The calls of ``fn`` that allocate ``name`` with a shape holding the literal ``value`` at any depth of their
    positional arguments (``name = torch.empty(M, 128)``, ``torch.zeros((M * 128,))``)."""
    out: list[cst.Call] = []
    for node in walk(fn.body):
        if not (isinstance(node, cst.Assign) and any(dotted(t.target) == name for t in node.targets)):
            continue
        call = node.value
        if not (isinstance(call, cst.Call) and dotted(call.func).split(".")[-1] in _ALLOCATIONS):
            continue
        shape = [a.value for a in call.args if a.keyword is None]
        if any(isinstance(i, cst.Integer) and _int(i) == value for a in shape for i in walk(a)):
            out.append(call)
    return out


def _divisions(
    old: cst.CSTNode, new: cst.CSTNode
) -> list[tuple[int | None, cst.CSTNode, cst.BaseExpression, cst.BaseExpression]]:
    """Each count of blocks in ``new`` (:func:`_count_of`: ``n // 256``, ``(n + 255) // 256``,
    ``triton.cdiv(n, 256)``), in the order of the tree: the literal the division at the same place of ``old``
    divides by (``None`` where it is no literal, or where the two texts' divisions do not pair up one for one), the
    node, its divisor and the size divided."""
    was = [_int(c[1]) for node in walk(old) if (c := _count_of(node)) is not None]
    now = [(node, c[1], c[0]) for node in walk(new) if (c := _count_of(node)) is not None]
    paired = len(was) == len(now)
    return [(was[i] if paired else None, *division) for i, division in enumerate(now)]


def _carry_copies(
    guarded: Iterable[list[tuple[_Change, list[Divides]]]],
    old: Sequence[cst.FunctionDef],
    new: Sequence[cst.FunctionDef],
) -> None:
    """Give the guard the copies of a guarded setting's value that the edit moved with it in the launching
    function: a one-block setting guarded by a size (``if M <= 16:`` over ``BLOCK_M = 16``) whose grid is written
    from its value (``triton.cdiv(M, 16)``) has the copy written as its name (``triton.cdiv(M, BLOCK_M)``), as a
    divisor's guard writes the grid's own copy; left outside, the original value ran with the copy's programs where
    the guard does not hold (variants v28, a one-block row sum adding into its output with ``tl.atomic_add``: every
    row twice at 20 rows). A copy dividing another size than the guard's (``triton.cdiv(N, 16)`` beside a
    ``BLOCK_N`` moved with it) is that setting's; a named copy the edit leaves is :func:`_stale_copies`'. The lists
    of needs in ``guarded`` are extended in place."""
    for moved in guarded:
        for change, needs in moved:
            if change.function is None or not needs or any(d.literal is not None for d in needs):
                continue
            for o, n in zip(old, new, strict=True):
                if n is not change.function:
                    continue
                # a size dividing the tile (v44) is not the size the grid counts (``n_rows * n`` for rows of n)
                sizes = {_code(d.size) for d in needs if d.size is not None and not d.divided}
                for b, _, divisor, size in _divisions(o.body, n.body):  # b None: the two do not pair up
                    if b != change.before or _int(divisor) != change.after or (sizes and _code(size) not in sizes):
                        continue
                    needs.append(replace(needs[0], literal=divisor))
                needs += [replace(needs[0], literal=e) for e in _grid_number_copies(o, n, change)]


def _grid_number_copies(old: cst.FunctionDef, new: cst.FunctionDef, change: _Change) -> list[cst.BaseExpression]:
    """The numbers of a launch's grid tuple the edit moved with a launch keyword (``(tiles, 8)`` beside
    ``SPLIT_K=8``, from 4 and 4): a guarded keyword's copy there, written as its name with it (v46: left at 8, the
    original's 4 splits ran on eight programs of the axis and read past K)."""
    out: list[cst.BaseExpression] = []
    if change.keyword is None:
        return out
    for (_, o_call), (_, n_call) in zip(_launch_calls(old), _launch_calls(new), strict=False):
        if not any(a.keyword is not None and a.keyword.value == change.keyword for a in n_call.args):
            continue
        was, now = _grid_tuple(old, o_call), _grid_tuple(new, n_call)
        if was is None or now is None or len(was.elements) != len(now.elements):
            continue
        for o_el, n_el in zip(was.elements, now.elements, strict=True):
            if _int(o_el.value) == change.before and _int(n_el.value) == change.after:
                out.append(n_el.value)
    return out


def _constants(collector: _Collector) -> dict[str, int]:
    """The module's integer constants: a name bound once at module level, to an integer literal (``ROWS = 256``,
    ``ROWS: int = 256``, ``ROWS = tl.constexpr(256)``) or to one worked out from integers and the module's other
    constants (:func:`_module_values`: ``TILE = BASE``, ``TILE = 1 << 8``; wrongkernel31, v187: such a copy of a
    tile's value dividing the grid was read by no copy rule, and a smaller tile written plainly)."""
    return {
        k: v
        for k, e in _module_values(collector).items()
        if isinstance(e, cst.BaseExpression) and (v := integer_value(e)) is not None
    }


def _module_values(collector: _Collector) -> dict[str, cst.BaseExpression | Choices]:
    """The module's constant values: a name bound once at module level to a value of integers alone (``SUPPORTED =
    (128, 256, 512)``, ``MOST = 1 << 10``, ``range(64, 1025)``), which a host check on a tile may read (late47, v171:
    ``assert BLOCK in SUPPORTED`` was read by no rule, and a tile past it written plainly), or to one worked out from
    those and the module's other constants (:func:`~kernelopt.tunables.arithmetic.integer_values`: ``MOST = WARP *
    32``, ``SUPPORTED = tuple(range(128, 1025, 128))``, ``SMALL + (512,)``, ``tuple(1 << k for k in ...)``), given as
    its literal (wrongkernel31, v181: such a set was read by no rule, and a tile past it written plainly)."""
    # a name another binding may change (a function's ``global``, a module loop's target, an import) is no constant
    # (review28 r81: ``assert BLOCK <= most`` over ``most = 1024`` that a ``global most`` set to 256 wrote 512 plainly)
    unread = collector.rebound | collector.imported
    folded = {k: v for k, v in _module_folded(collector).items() if k not in unread}
    raw = {k: v for k, v in _module_bound(collector, _constant).items() if k not in unread} | folded
    known: dict[str, object] = {}
    for _ in range(len(raw)):  # a constant of another is worked out once that one is (a chain, in any order)
        before = len(known)
        for name, value in raw.items():
            if name not in known:
                one = integer_value(value, known)
                found = one if one is not None else integer_values(value, known)
                if found is not None:
                    known[name] = found
        if len(known) == before:
            break
    out: dict[str, cst.BaseExpression | Choices] = {}
    for name, value in raw.items():
        if not _names(value) - _PURE and name not in folded:
            out[name] = value  # as written (``range(64, 1025)``)
        elif name in known:
            out[name] = _literal(known[name])
    out.update(_global_choices(collector, known))
    return out


@dataclass(frozen=True)
class Choices:
    """The values a module name may hold when a host check reads it: the module's own and each a function declaring
    it ``global`` assigns (:func:`_global_choices`); a check on a tile against it must pass with each."""

    values: tuple[cst.BaseExpression, ...]


def _global_choices(collector: _Collector, known: Mapping[str, object]) -> dict[str, Choices]:
    """Name -> its :class:`Choices`, for each module name that functions declare ``global`` and bind only by plain
    assignments of values worked out from integers and the module's constants (``known``), the module binding it
    once too (``most = 1024`` and ``def configure(): global most; most = 256``): whichever ran last, it holds one of
    them (wrongkernel32, v194: wrongkernel31's Seen line on v181, review28's r81 made such a name unread, and a check
    against it held only the original, 512 refused under a ``most`` of 1024 or 512). A name a loop, ``with`` or
    walrus binds at module level, an import, an augmented or unpacking assignment in a function, or a value not
    worked out leaves it unread."""
    module = {
        k: v
        for k, v in {**_module_bound(collector, _constant), **_module_folded(collector)}.items()
        if k not in collector.looped and k not in collector.imported
    }
    out: dict[str, Choices] = {}
    for name, functions in collector.globals.items():
        if name not in module or name in collector.looped or name in collector.imported:
            continue
        values: list[object] = []
        for value in (module[name], *(v for fn in dict.fromkeys(functions) for v in bindings(fn).get(name, ()))):
            if value is None:
                break
            one = integer_value(value, known)
            found = one if one is not None else integer_values(value, known)
            if found is None:
                break
            values.append(found)
        else:
            out[name] = Choices(tuple(_literal(v) for v in dict.fromkeys(values)))
    return out


def _module_folded(collector: _Collector) -> dict[str, cst.BaseExpression]:
    """Name -> the value it holds once the module has run, for each name the module's own top-level statements bind
    by one plain assignment and then augmented ones (``SUPPORTED = (128, 256)`` then ``SUPPORTED += (512,)``, ``MOST
    = 512`` then ``MOST *= 2``): the assignments folded in order (``((128, 256)) + ((512,))``), for
    :func:`_module_values` to work out. A binding under an ``if``, a loop or a class body, or an augmented one first,
    leaves the name out (wrongkernel32, v193: wrongkernel31's Seen line on v181, the name was not read, and a check
    against it held only the original)."""
    steps: dict[str, list[cst.BaseSmallStatement | None]] = {}
    for line, fn in collector.statements:
        if fn is not None:
            continue
        top = id(line) in collector.top
        for small in line.body:
            targets = (
                [t.target for t in small.targets] if isinstance(small, cst.Assign)
                else [small.target] if isinstance(small, cst.AnnAssign | cst.AugAssign) else []
            )  # fmt: skip
            for target in targets:
                if isinstance(target, cst.Name):
                    plain = isinstance(small, cst.Assign) and len(small.targets) == 1
                    readable = top and (plain or isinstance(small, cst.AnnAssign | cst.AugAssign))
                    steps.setdefault(target.value, []).append(small if readable else None)
    out: dict[str, cst.BaseExpression] = {}
    for name, made in steps.items():
        first, *augmented = made
        if not augmented or not isinstance(first, cst.Assign | cst.AnnAssign) or first.value is None:
            continue
        if not all(isinstance(a, cst.AugAssign) for a in augmented):
            continue
        value: cst.BaseExpression = _parenthesized(_constant(first.value))
        for step in cast(list[cst.AugAssign], augmented):
            operator = getattr(cst, type(step.operator).__name__.removesuffix("Assign"), None)
            if operator is None:
                break
            value = _parenthesized(cst.BinaryOperation(value, operator(), _parenthesized(step.value)))
        else:
            out[name] = value
    return out


def _literal(value: object) -> cst.BaseExpression:
    """An integer or a tuple of them (:func:`_module_values`) as Python text."""
    if isinstance(value, tuple):
        return cst.Tuple([cst.Element(_literal(v)) for v in value])
    number = cast(int, value)
    if number < 0:
        return cst.UnaryOperation(cst.Minus(), cst.Integer(str(-number)))
    return cst.Integer(str(number))


#: what :func:`_module_bound` reads a module constant's value as
_Read = TypeVar("_Read")


def _module_bound(collector: _Collector, read: Callable[[cst.BaseExpression], _Read | None]) -> dict[str, _Read]:
    """Name -> ``read`` of its value, for each name bound once at module level by a plain or annotated assignment
    whose value ``read`` gives (``None``: not read)."""
    bound: dict[str, list[_Read | None]] = {}
    for line, fn in collector.statements:
        if fn is not None:
            continue
        for small in line.body:
            targets = (
                [t.target for t in small.targets] if isinstance(small, cst.Assign)
                else [small.target] if isinstance(small, cst.AnnAssign | cst.AugAssign) else []
            )  # fmt: skip
            value = getattr(small, "value", None)
            for target in targets:
                if isinstance(target, cst.Name):
                    once = isinstance(small, cst.Assign | cst.AnnAssign) and value is not None
                    bound.setdefault(target.value, []).append(read(value) if once else None)
    return {name: values[0] for name, values in bound.items() if len(values) == 1 and values[0] is not None}


def _grid_text(fn: cst.FunctionDef, call: cst.Call) -> str:
    """A launch's grid as written, a local bound once shown with its value (``grid = (tiles, 4)``)."""
    index = call.func.slice[0].slice if isinstance(call.func, cst.Subscript) else None
    grid = index.value if isinstance(index, cst.Index) else None
    if grid is None:
        return ""
    if isinstance(grid, cst.Name) and (bound := assigned_once(fn).get(grid.value)) is not None:
        return f"{grid.value} = {_code(bound)}"
    return _code(grid)


def _divisors(statement: cst.CSTNode, with_cdiv: bool) -> list[cst.BaseExpression]:
    """The right operands of ``//`` and ``%`` in a statement (and the tiles of ``triton.cdiv(size, tile)``, of
    ``math.ceil(size / tile)`` and of a floor that counts tiles rounded up, :func:`_ceil_floors`, only where
    ``with_cdiv``), in order."""
    out: list[cst.BaseExpression] = []
    ceilings = _ceil_floors(statement)
    by_literals = _literal_ceils(statement)
    for node in walk(statement):
        if id(node) in ceilings:
            if with_cdiv:
                out.append(ceilings[id(node)][1])
        elif id(node) in by_literals:
            if with_cdiv:
                assert isinstance(node, cst.BinaryOperation)
                out.append(node.right)
        elif isinstance(node, cst.BinaryOperation) and isinstance(node.operator, cst.FloorDivide | cst.Modulo):
            out.append(node.right)
        elif with_cdiv and (counted := ceil_count(node)) is not None:
            out.append(counted[1])
    return out


def _unguarded_divisor(
    old: cst.SimpleStatementLine,
    new: cst.SimpleStatementLine,
    fn: cst.FunctionDef | None,
    unmasked: Mapping[str, cst.FunctionDef],
    covered: set[int],
    pos: Positions,
) -> str | None:
    """Why the edit cannot be written when it moved a literal divisor of a size (``grid = (n // 64,)`` -> ``n //
    128``, a launch passing the tile positionally) to a value that does not divide the original, with no guard
    written for it; ``None`` when it did not."""
    if fn is None or is_jit(fn):
        return None
    launches_unmasked = any(
        isinstance(call.func, cst.Subscript) and dotted(call.func.value) in unmasked for _, call in _launch_calls(fn)
    )
    before, after = _divisors(old, launches_unmasked), _divisors(new, launches_unmasked)
    if len(before) != len(after):
        return None
    for b_node, a_node in zip(before, after, strict=True):
        b, a = _int(b_node), _int(a_node)
        if b is None or a is None or a == b or b % a == 0 or id(a_node) in covered:
            continue
        line = pos[a_node].start.line
        return (
            f"the divisor {b} at line {line} moved to {a}, which does not divide every size the original handled, "
            "in a form no guard is written for (a tile named at the launch, its grid reading the name, is): not written"
        )
    return None


def _range_args(expr: cst.BaseExpression) -> list[cst.Arg] | None:
    """The positional arguments of a loop's ``range(...)``, ``tl.range(...)`` or ``tl.static_range(...)`` (its
    keywords, ``num_stages=`` and the like, left out); ``None`` for any other iterable."""
    if not isinstance(expr, cst.Call):
        return None
    name = dotted(expr.func)
    if name != "range" and name.split(".")[-1] not in ("range", "static_range"):
        return None
    if name.split(".")[0] not in ("range", "tl", "triton", "language"):
        return None
    return [a for a in expr.args if a.keyword is None and not a.star]


def _stepped_by(name: str, unmasked: Mapping[str, cst.FunctionDef]) -> str | None:
    """Why a module-level ``name`` must divide a size: a kernel without masks loops ``range(.., N, name)`` (its
    loads cover ``N`` only in whole steps); ``None`` when none does."""
    for kernel in unmasked.values():
        for node in walk(kernel.body):
            if not (isinstance(node, cst.For) and isinstance(node.iter, cst.Call)):
                continue
            args = _range_args(node.iter)
            if args is not None and len(args) == 3 and dotted(args[2].value) == name:
                return f"the kernel {kernel.name.value} steps {_code(node.iter)} over loads without masks"
    return None


def _covered_by(name: str, kernels: Mapping[str, cst.FunctionDef]) -> tuple[str, OneBlock] | None:
    """Why a module-level ``name`` must cover a size, and the reading: a kernel reads it as a global block and
    covers a size with one block of it (:func:`kernelopt.tunables.blocks.one_block`); ``None`` when none does."""
    for kernel in kernels.values():
        if name in set(param_names(kernel)):
            continue  # the kernel's own parameter: what a launch passes it, not the global
        for r in one_block(kernel, kernels):
            if r.block == name:
                covers = r.size if r.size is not None else "a size"
                of = f"a range of {r.derived}" if r.derived else f"one block of {name}"
                return f"the kernel {kernel.name.value} covers {covers} with {of} ({r.test})", r
    return None


def _passed(call: cst.Call, kernel: cst.FunctionDef) -> dict[str, cst.BaseExpression]:
    """Kernel parameter -> the expression the launch ``call`` passes it (positional, then keyword; those before an
    unpacked ``*args`` or ``**kwargs`` alone)."""
    read = list(itertools.takewhile(lambda a: not a.star, call.args))
    return named_args(read, param_names(kernel))


def _positional_block(
    old: cst.SimpleStatementLine, new: cst.SimpleStatementLine, kernels: Mapping[str, cst.FunctionDef]
) -> str | None:
    """Why the edit cannot be written when a block passed positionally to a kernel that covers a size with one
    block (:func:`_one_block_covers`) moved lower (``k[grid](x, y, n_cols, 2048)`` -> ``512``): no guard is
    written for a positional literal; ``None`` when none did."""
    before, after = _launch_calls(old), _launch_calls(new)
    if len(before) != len(after):
        return None
    for (_, o_call), (_, n_call) in zip(before, after, strict=True):
        name = dotted(n_call.func.value) if isinstance(n_call.func, cst.Subscript) else ""
        kernel = kernels.get(name)
        if kernel is None:
            continue
        was, now = _passed(o_call, kernel), _passed(n_call, kernel)
        keywords = {a.keyword.value for a in n_call.args if a.keyword is not None}
        for d in _one_block_covers(n_call, kernel, 0, kernels):
            block = d.tile[1]
            b, a = _int(was.get(block, cst.Name("_"))), _int(now.get(block, cst.Name("_")))
            if block not in keywords and b is not None and a is not None and not d.holds(b, a):
                return (
                    f"{block}={a} does not cover every size the original {block}={b} handled ({d.why}), and a "
                    "block passed positionally is not guarded: not written"
                )
    return None


def _one_block_covers(
    call: cst.Call,
    kernel: cst.FunctionDef,
    line: int,
    helpers: Mapping[str, cst.FunctionDef] | None = None,
    imported: Collection[str] = (),
    only: Collection[str] | None = None,
    launcher: cst.FunctionDef | None = None,
) -> list[Divides]:
    """What the launch ``call`` of a kernel that covers a size with one block (:func:`kernelopt.tunables.blocks.
    one_block`, the one rule for every form it is written in) says its block must do: cover the size the launch
    passes. One program handles that size up to the block, so a smaller block leaves the rest of a larger size
    undone (masked, silently). A size the comparison does not name is ``None``: no guard is written for it.
    ``only``: the blocks to read (every one where ``None``). ``launcher``: the function that launches, where a
    parameter it passes a fixed number (a literal, or a local bound once to one) counts a loop of blocks
    (``for i in tl.static_range(CHUNKS)`` over ``i * BLOCK``: one block of ``CHUNKS * BLOCK``, v43)."""
    passed = _passed(call, kernel)
    splat = any(a.star == "**" for a in call.args)  # ``**configs[x.dtype]``: the block by its key
    fixed = None
    if launcher is not None:
        fixed = {name for name, value in passed.items() if _launch_value(launcher, value) is not None}
    out: list[Divides] = []
    for reading in dict.fromkeys(one_block(kernel, helpers, imported, fixed)):
        block, size = reading.block, reading.size
        if (block not in passed and not splat) or (size is not None and size not in passed):
            continue
        if only is not None and block not in only:
            continue
        given = passed.get(block)
        tile = (
            ("meta", block)
            if given is None or _int(given) is not None
            else _tile_id(given)
            if isinstance(given, cst.Name | cst.Attribute)
            else None
        )
        if tile is not None:
            covers = size if size is not None else "a size"
            of = f"a range of {reading.derived}" if reading.derived else f"one block of {block}"
            why = f"the kernel {kernel.name.value} covers {covers} with {of} ({reading.test})"
            size_expr = passed[size] if size is not None else None
            if reading.bound is not None:  # ``cols < 2 * n_pairs``: the bound, in the launch's arguments
                names = {n.value for n in walk(reading.bound) if isinstance(n, cst.Name)}
                given = {n: _parenthesized(passed[n]) for n in names if n in passed}
                size_expr = reading.bound.visit(Substitute(given)) if len(given) == len(names) else None
                covers = _code(reading.bound)
                why = f"the kernel {kernel.name.value} covers {covers} with {of} ({reading.test})"
            others = tuple(_passed_tile(passed, f) or ("meta", f) for f in reading.factors)
            if reading.factors:
                why += f" with {' * '.join(reading.factors)} in a product: a loop counting blocks"
            out.append(Divides(tile, size_expr, line, why, covers=True, scale=reading.scale, factors=others))
            if (
                launcher is not None
                and reading.bound is None
                and all(_fixed_block(launcher, passed.get(f)) for f in reading.factors)
            ):
                count = passed[size] if size is not None else _kernel_count(kernel, reading.test, passed)
                scale = reading.scale  # a loop of a fixed count of blocks (v43's CHUNKS): its partners too (v50)
                if count is not None:
                    out += _counted_cover(launcher, call, count, tile, given, line, why, scale, others)
    return out


def _kernel_count(
    kernel: cst.FunctionDef, test: str, passed: Mapping[str, cst.BaseExpression]
) -> cst.BaseExpression | None:
    """The count a one-block comparison's bound is where the kernel computes it from its parameters (``offs <
    num_parts`` beside ``num_parts = tl.cdiv(n, BLOCK)``, a local bound once): that count in the launch's arguments
    (``tl.cdiv(n, BLOCK_SIZE)``); ``None`` for any other bound, or a parameter the launch does not pass (v48)."""
    try:
        compared = cst.parse_expression(test)
    except cst.ParserSyntaxError:
        return None
    if not (isinstance(compared, cst.Comparison) and len(compared.comparisons) == 1):
        return None
    right = compared.comparisons[0].comparator
    if not isinstance(right, cst.Name):
        return None
    bound = assigned_once(kernel).get(right.value)
    if bound is None or (cdiv_args(bound) is None and _ceil_div(bound) is None):
        return None
    params = set(param_names(kernel))
    names = _names(bound) - {"tl", "triton", "cdiv"}
    if not names <= params or not names <= set(passed):
        return None
    return cst.ensure_type(bound.visit(Substitute({n: _parenthesized(passed[n]) for n in names})), cst.BaseExpression)


def _program_covers(fn: cst.FunctionDef, call: cst.Call, kernel: cst.FunctionDef, line: int) -> list[Divides]:
    """A grid axis's programs a kernel covers with one block of a fixed value: ``offs < tl.num_programs(1)`` with
    ``offs = tl.arange(0, TILES)`` (a row's last program summing its tiles' partials, v49), ``TILES`` a launch literal,
    the axis counting tiles of another setting (``(M, triton.cdiv(N, 256))`` beside ``BLOCK_N=256``): as v47's count
    (:func:`_counted_cover`). Read apart from :func:`~kernelopt.tunables.blocks.one_block`, where a block that also
    strides the partials by row (``row * TILES``) steps and covers nothing."""
    passed = _passed(call, kernel)
    constexprs = set(constexpr_params(kernel))
    ranges: dict[str, str] = {}  # a local bound once to ``tl.arange(0, BLOCK)`` -> BLOCK
    for name, value in assigned_once(kernel).items():
        if isinstance(value, cst.Call) and dotted(value.func).split(".")[-1] == "arange" and len(value.args) == 2:
            start, end = value.args[0].value, value.args[1].value
            if _int(start) == 0 and isinstance(end, cst.Name) and end.value in constexprs:
                ranges[name] = end.value
    out: list[Divides] = []
    for node in walk(kernel.body):
        if not (isinstance(node, cst.Comparison) and len(node.comparisons) == 1):
            continue
        left, right = node.left, node.comparisons[0].comparator
        block = ranges.get(left.value) if isinstance(left, cst.Name) else None
        if block is None or block not in passed or not isinstance(node.comparisons[0].operator, cst.LessThan):
            continue
        if not (isinstance(right, cst.Call) and dotted(right.func).split(".")[-1] == "num_programs"):
            continue
        axis, grid = (_int(right.args[0].value) if len(right.args) == 1 else None), _grid_tuple(fn, call)
        if axis is None or grid is None or axis >= len(grid.elements):
            continue
        why = f"the kernel {kernel.name.value} covers the programs of its grid's axis {axis} with one block of {block}"
        why += f" ({_code(node)})"
        out += _counted_cover(fn, call, grid.elements[axis].value, ("meta", block), passed[block], line, why)
    return out


def _counted_cover(
    launcher: cst.FunctionDef,
    call: cst.Call,
    count: cst.BaseExpression,
    block: tuple[str, str],
    given: cst.BaseExpression | None,
    line: int,
    why: str,
    scale: Scale | None = ONE,
    partners: tuple[tuple[str, str], ...] = (),
) -> list[Divides]:
    """A size a kernel covers with one block of a fixed value (a literal, a local bound once to one, a module
    constant: :func:`_fixed_block`) that the launch counts in tiles of another setting (``parts = triton.cdiv(n,
    BLOCK)``, ``math.ceil(n / BLOCK)``, ``(n + BLOCK - 1) // BLOCK``, ``-(-n // BLOCK)``, passed as it, through a local
    bound once, or read off a tensor made from it, ``parts.numel()``: :func:`_counted`, b5): that tile times the
    block is one block's reach over ``n`` (a second stage summing at most 64 partial sums of a first stage's
    ``BLOCK``, v47; the count computed in the kernel from the tile it is passed, :func:`_kernel_count`, v48); a
    smaller tile counts more than the block covers where the original's did not. A block computed from the count
    (``next_power_of_2(parts)``) grows with it: no requirement. ``scale``: the covering range's length by the block's
    (``tl.arange(0, MAX_PARTS // 2)``: (1, 2)), the reach the tile times that length; ``partners``: the fixed counts
    the block covers with (``for i in tl.static_range(CHUNKS)`` over ``i * PART``: v50), factors of the reach too."""
    if not _fixed_block(launcher, given):
        return []
    count = _counted(launcher, count)
    counted = ceil_count(count)
    floors = list(_ceil_floors(count).values())  # ``-(-n // BLOCK)``, ``(n - 1) // BLOCK + 1``
    tile_size = (
        (counted[1], counted[0])
        if counted is not None
        else _ceil_div(count) or ((floors[0][1], floors[0][0]) if len(floors) == 1 else None)
    )
    if tile_size is None:
        return []
    size, value = tile_size[1], _int(tile_size[0])
    # a launch literal's copy (``triton.cdiv(N, 256)`` beside ``BLOCK_N=256``): that keyword's tile, the copy carried
    keywords = _keyword_literals(call).get(value, []) if value is not None else []
    tile = ("meta", keywords[0]) if len(keywords) == 1 else _tile_id(tile_size[0])
    product_tiles = _tile_product(tile_size[0]) if tile is None else None
    if product_tiles is not None:  # tiles of ``BLOCK * UNROLL`` (v55): each tile with the others as factors, as v41's
        tiles, times = product_tiles
        needs = [
            need
            for i, one in enumerate(tiles)
            for need in _counted_need(one, tiles[:i] + tiles[i + 1 :], times, block, partners, size, count, line)
        ]
    elif tile is not None:
        needs = _counted_need(tile, (), 1, block, partners, size, count, line)
    else:
        return []
    literal = tile_size[0] if len(keywords) == 1 and isinstance(tile_size[0], cst.Integer) else None
    return [replace(need, why=why + need.why, scale=scale, literal=literal) for need in needs]


def _counted_need(
    tile: tuple[str, str],
    others: tuple[tuple[str, str], ...],
    times: int,
    block: tuple[str, str],
    partners: tuple[tuple[str, str], ...],
    size: cst.BaseExpression,
    count: cst.BaseExpression,
    line: int,
) -> list[Divides]:
    """:func:`_counted_cover`'s requirement for one tile of the count (``others``: the count's other tiles, ``times``
    its literal factors): the block and its partners, and the count's other tiles, are factors of the reach."""
    if tile == block:
        return []
    factors = tuple(sorted({block, *partners, *others}))  # each of a product's readings gives the same requirement
    product = " * ".join([f[1] for f in (tile, *factors)] + ([str(times)] if times != 1 else []))
    counts = f"; the launch counts it in tiles of {tile[1]} ({_code(count)}): {product} reaches {_code(size)}"
    return [Divides(tile, size, line, counts, None, covers=True, factors=factors, times=times, times_before=times)]


def _fixed_block(launcher: cst.FunctionDef, given: cst.BaseExpression | None) -> bool:
    """Whether the block a launch passes is fixed, not grown with what it covers: a literal, a local bound once to
    one (:func:`_launch_value`), or a name ``launcher`` neither takes nor binds (a module-level constant, ``MAX_PARTS=
    MAXP``: break14's b5)."""
    if _launch_value(launcher, given) is not None:
        return True
    if not isinstance(given, cst.Name):
        return False
    return given.value not in bindings(launcher)


#: The tensor makers whose first argument is the tensor's size (its first dimension, or a tuple of them).
_MAKERS = frozenset({"empty", "zeros", "ones", "full", "rand", "randn"})


def _counted(launcher: cst.FunctionDef, count: cst.BaseExpression) -> cst.BaseExpression:
    """What a count a launch passes stands for in ``launcher``: a local bound once, read for its value; the length
    of a tensor made there from a count (``parts.numel()``, ``parts.shape[0]``, ``len(parts)``, ``parts.size(0)`` of
    ``parts = torch.empty(num_parts, ...)``: break14's b5), that count; else ``count`` itself."""
    local = assigned_once(launcher)

    def once(expr: cst.BaseExpression) -> cst.BaseExpression | None:
        return local.get(expr.value) if isinstance(expr, cst.Name) else None

    count = once(count) or count
    tensor, first = None, False  # first: the first dimension asked for (else every element)
    if isinstance(count, cst.Call) and isinstance(count.func, cst.Attribute) and not count.args:
        tensor = count.func.value if count.func.attr.value == "numel" else None
    elif isinstance(count, cst.Call) and isinstance(count.func, cst.Attribute) and len(count.args) == 1:
        if count.func.attr.value == "size" and _int(count.args[0].value) == 0:
            tensor, first = count.func.value, True
    elif isinstance(count, cst.Call) and dotted(count.func) == "len" and len(count.args) == 1:
        tensor, first = count.args[0].value, True
    elif isinstance(count, cst.Subscript) and len(count.slice) == 1 and isinstance(count.value, cst.Attribute):
        index = count.slice[0].slice
        if count.value.attr.value == "shape" and isinstance(index, cst.Index) and _int(index.value) == 0:
            tensor, first = count.value.value, True
    made = once(tensor) if tensor is not None else None
    if not (isinstance(made, cst.Call) and dotted(made.func).split(".")[-1] in _MAKERS and made.args):
        return count
    sizes = [a.value for a in made.args if a.keyword is None and not a.star]
    if len(sizes) == 1 and isinstance(sizes[0], cst.Tuple | cst.List):
        sizes = [e.value for e in sizes[0].elements]
    if not sizes or (len(sizes) > 1 and not first):
        return count
    return once(sizes[0]) or sizes[0]


def _loop_steps(
    call: cst.Call,
    kernel: cst.FunctionDef,
    line: int,
    *,
    bare_only: bool = False,
    steps: Callable[[cst.For], Collection[str]] | None = None,
) -> list[Divides]:
    """The steps of ``range(start, stop, step)`` loops of an unmasked ``kernel`` whose stop and step are its
    parameters, as the launch ``call`` passes them (the step a name or a keyword literal). The stop may be a
    local the kernel first binds to a parameter (``hi = seq``, then ``if CAUSAL: hi = ...``): a causal bound
    only shortens the loop, and without it the loop covers ``seq`` in whole steps. ``bare_only``: a kernel that
    masks some loads (an attention forward masking its queries), where only a loop whose own loads or stores
    carry no mask (its keys) needs a step that divides. ``steps``: only a loop stepping by one of the parameters
    this gives for it (the blocks its own accesses leave unchecked)."""
    passed = _passed(call, kernel)
    aliases = _first_bindings(kernel)
    once = assigned_once(kernel)
    blocks = set(constexpr_params(kernel))
    out: list[Divides] = []
    for node, args in _stepped_loops(kernel):
        if len(args) != 3 or not isinstance(args[1].value, cst.Name):
            continue
        stop, given = args[1].value.value, args[2].value
        if isinstance(given, cst.Name) and given.value not in passed and given.value in once:
            given = once[given.value]  # ``step = BLOCK_K`` then ``range(0, K, step)``: wrongkernel30, v162
        # a grid stride (``nprog * BLOCK``, ``nprog = tl.num_programs(0)``, or the call itself) steps whole blocks
        parts = _product_factors(given)
        kept = [f for f in parts if not _programs_count(f, once, passed)]
        factors = _step_factors(_product(kept) if kept and len(kept) < len(parts) else given)
        stop = stop if stop in passed else aliases.get(stop, stop)
        loaded = stop not in passed and stop in _loaded_locals(kernel)  # a length read from memory (cu_seqlens)
        if (stop in passed or loaded) and (factors is None or any(f not in passed for f in factors[0])):
            # a step kernelopt does not read, naming a block the launch sets: unknown, not unbounded (of a masked
            # kernel, a block this loop's accesses leave unchecked, or over an access without a mask)
            named = (reached_names(given, kernel) | read_names(given)) & blocks & set(passed)
            if steps is not None:
                named &= set(steps(node))
            if bare_only and not _bare_access(node.body, set(param_names(kernel))):
                named = set()
            why = (
                f"the kernel {kernel.name.value} steps over {stop} by {_code(args[2].value).strip()} over loads "
                "without masks, in a form kernelopt does not read"
            )
            out += [
                Divides(t, None, line, why, missing=_UNREAD_STEP)
                for b in sorted(named)
                if (t := _passed_tile(passed, b)) is not None
            ]
            continue
        if factors is None or (stop not in passed and not loaded) or any(f not in passed for f in factors[0]):
            continue
        if steps is not None and not set(factors[0]) & set(steps(node)):
            continue
        if bare_only and not _bare_access(node.body, set(param_names(kernel))):
            continue
        tiles = [
            _tile_id(passed[f]) if isinstance(passed[f], cst.Name) else ("meta", f) if _int(passed[f]) else None
            for f in factors[0]
        ]
        step = _code(args[2].value)
        why = f"the kernel {kernel.name.value} steps range(.., {stop}, {step}) over loads without masks"
        if loaded:  # no host line knows it: a block that does not divide the original is never written
            why += f" ({stop} is computed in the kernel)"
        size = cst.Attribute(value=cst.Name(kernel.name.value), attr=cst.Name(stop)) if loaded else passed[stop]
        if len(tiles) == 1 and factors[1] == 1:
            out += [Divides(tiles[0], size, line, why)] if tiles[0] is not None else []
        elif None not in tiles:  # a step of several settings (``BLOCK * UNROLL``, v42): the product divides
            out += _product_needs([t for t in tiles if t is not None], size, line, why, factors[1])
    return out + _split_loops(call, kernel, line, bare_only=bare_only)


def _programs_count(expr: cst.BaseExpression, local: Mapping[str, cst.BaseExpression], passed: Collection[str]) -> bool:
    """Whether ``expr`` is the count of programs (``tl.num_programs(0)``, or a local of the kernel bound once to it):
    a grid-stride loop's step times it visits whole blocks, as a step of the blocks alone does."""
    if isinstance(expr, cst.Name) and expr.value not in passed:
        expr = local.get(expr.value, expr)
    return isinstance(expr, cst.Call) and dotted(expr.func).split(".")[-1] == "num_programs"


#: Why a loop's step kernelopt does not read gets no guard by a size (:func:`_loop_steps`)
_UNREAD_STEP = "the step is not read, so no guard by the size can be written"


def _stepped_loops(kernel: cst.FunctionDef) -> list[tuple[cst.CSTNode, list[cst.Arg]]]:
    """Each loop of ``kernel`` with the arguments of the ``range`` it runs: a ``for`` over ``range(...)`` /
    ``tl.range(...)``, and a ``while k < K:`` whose body steps ``k += step`` (read as ``range(k, K, step)``:
    wrongkernel30, v162, where such a loop over loads without masks was read by no rule)."""
    out: list[tuple[cst.CSTNode, list[cst.Arg]]] = []
    for node in walk(kernel.body):
        if isinstance(node, cst.For) and (args := _range_args(node.iter)) is not None:
            out.append((node, args))
        elif (
            isinstance(node, cst.While)
            and isinstance(node.test, cst.Comparison)
            and isinstance(node.test.left, cst.Name)
            and len(node.test.comparisons) == 1
            and isinstance(node.test.comparisons[0].operator, cst.LessThan)
        ):
            counter = node.test.left.value
            steps = [
                n.value
                for n in typed(node.body, cst.AugAssign)
                if isinstance(n.target, cst.Name)
                and n.target.value == counter
                and isinstance(n.operator, cst.AddAssign)
            ]
            if len(steps) == 1:
                out.append(
                    (node, [cst.Arg(node.test.left), cst.Arg(node.test.comparisons[0].comparator), cst.Arg(steps[0])])
                )
    return out


def _product_needs(
    tiles: Sequence[tuple[str, str]], size: cst.BaseExpression, line: int, why: str, literal: int = 1
) -> list[Divides]:
    """One :class:`Divides` a tile of a product of tiles (and ``literal``) that must divide ``size``, each with the
    others as its partners (:attr:`Divides.factors`, v41)."""
    return [
        Divides(tile, size, line, why, factors=tuple(tiles[:i]) + tuple(tiles[i + 1 :]), times=literal,
                times_before=literal)
        for i, tile in enumerate(tiles)
    ]  # fmt: skip


def _split_loops(call: cst.Call, kernel: cst.FunctionDef, line: int, *, bare_only: bool = False) -> list[Divides]:
    """A loop over one split of a size, ``for k in range(pid_k * per, (pid_k + 1) * per, BLOCK_K)`` with ``per = K
    // SPLIT_K`` (split-K, v46): over loads without masks it covers each split in whole steps only where the step
    times the splits divides the size, ``K % (SPLIT_K * BLOCK_K) == 0``; the two settings are one product."""
    passed = _passed(call, kernel)
    splits: dict[str, tuple[str, str]] = {}  # a local -> (the size, the number of splits), both parameters
    for node in walk(kernel.body):
        if isinstance(node, cst.Assign) and len(node.targets) == 1 and isinstance(node.targets[0].target, cst.Name):
            value = node.value
            if (
                isinstance(value, cst.BinaryOperation)
                and isinstance(value.operator, cst.FloorDivide)
                and isinstance(value.left, cst.Name)
                and isinstance(value.right, cst.Name)
            ):
                splits[node.targets[0].target.value] = (value.left.value, value.right.value)
    out: list[Divides] = []
    for node in walk(kernel.body):
        args = _range_args(node.iter) if isinstance(node, cst.For) else None
        if args is None or len(args) != 3 or not isinstance(args[2].value, cst.Name):
            continue
        per = _names(args[0].value) & _names(args[1].value) & set(splits)
        if len(per) != 1:
            continue
        size, count = splits[per.pop()]
        step = args[2].value.value
        if size not in passed or count not in passed or step not in passed:
            continue
        if bare_only and not _bare_access(node.body, set(param_names(kernel))):
            continue
        tiles = [_passed_tile(passed, step), _passed_tile(passed, count)]
        if None in tiles:
            continue
        why = (
            f"the kernel {kernel.name.value} steps {_code(node.iter)} over loads without masks, each of "
            f"{count} splits of {size}"
        )
        out += _product_needs([t for t in tiles if t is not None], passed[size], line, why)
    return out


def _step_factors(step: cst.BaseExpression) -> tuple[tuple[str, ...], int] | None:
    """A loop's step as the kernel's names it multiplies and the product of its literals (``BLOCK`` -> (("BLOCK",),
    1); ``BLOCK * UNROLL`` -> (("BLOCK", "UNROLL"), 1); ``2 * BLOCK`` -> (("BLOCK",), 2)); ``None`` for anything
    else."""
    if isinstance(step, cst.Name):
        return (step.value,), 1
    if not (isinstance(step, cst.BinaryOperation) and isinstance(step.operator, cst.Multiply)):
        return None
    names: list[str] = []
    literal = 1
    for side in (step.left, step.right):
        inner = _step_factors(side) if _int(side) is None else ((), _int(side) or 0)
        if inner is None:
            return None
        names += inner[0]
        literal *= inner[1]
    return (tuple(names), literal) if names and literal > 0 else None


def _loaded_locals(kernel: cst.FunctionDef) -> set[str]:
    """The locals of a kernel computed from what it loads (``bos = tl.load(cu_seqlens + i_b)``, ``seq_len = eos -
    bos``): lengths no host line knows."""
    out: set[str] = set()
    changed = True
    while changed:
        changed = False
        for node in walk(kernel.body):
            if not (isinstance(node, cst.Assign) and len(node.targets) == 1):
                continue
            target = node.targets[0].target
            if not isinstance(target, cst.Name) or target.value in out:
                continue
            loads = any(isinstance(n, cst.Call) and dotted(n.func).split(".")[-1] == "load" for n in walk(node.value))
            if loads or _names(node.value) & out:
                out.add(target.value)
                changed = True
    return out


def _unchecked_axes(
    fn: cst.FunctionDef,
    call: cst.Call,
    kernel: cst.FunctionDef,
    line: int,
    pos: Positions,
    helpers: Mapping[str, cst.FunctionDef] | None = None,
    jit: tuple[Mapping[str, cst.FunctionDef], Collection[str]] = ({}, ()),
) -> list[Divides]:
    """What a kernel with masks says of a block one of its accesses leaves unchecked
    (:func:`kernelopt.tunables.blocks.unchecked_blocks`: a GEMM whose K loads check only the rows, a tile kernel
    checking only ``offs_m < M``, a store in a ``@triton.jit`` helper checking only the rows), as the launch
    ``call`` in ``fn`` passes it: what a kernel without masks says of every block. A loop ``range(.., K,
    BLOCK_K)`` covers ``K`` only in whole steps, and a grid of ``triton.cdiv(N, BLOCK_N)`` programs covers ``N``
    only in whole tiles: the block must divide the size. ``jit``: the module's ``@triton.jit`` functions and the
    names imported from other modules, which the kernel's accesses are read through."""

    flags = _tied_flags(kernel, [(fn, call)])

    def unchecked(within: cst.CSTNode | None = None) -> set[str]:
        return unchecked_blocks(kernel, within, helpers=jit[0], external=jit[1], flags=flags)

    blocks = unchecked()
    if not blocks:
        return []
    out = [
        replace(d, why=d.why.replace("over loads without masks", "over loads whose masks leave it unchecked"))
        for d in _loop_steps(call, kernel, line, steps=lambda loop: unchecked(loop.body))
    ]
    out += _counted_loops(call, kernel, line, lambda loop: unchecked(loop.body), floor=False)
    passed = _passed(call, kernel)
    tiles = {("meta", b) for b in blocks} | {
        t for b in blocks if isinstance(passed.get(b), cst.Name | cst.Attribute) and (t := _tile_id(passed[b]))
    }
    grid_nodes = _grid_nodes(fn)
    for node, tile_expr, size in _grid_divs(fn, _rounded_up(fn)[0], helpers) + _helper_cdivs(fn, helpers):
        tile = _tile_id(tile_expr)
        if tile in tiles:
            at = pos[node].start.line
            # a count no grid reads (FlagAttention's N_SPLIT_SIZE = cdiv(cdiv(N, BLOCK_N), S) * BLOCK_N) is said as
            # what it is, not as the grid's (breaker19: "the grid at line 298 has triton.cdiv(N, BLOCK_N) programs")
            counted = (
                f"the grid at line {at} has {_code(node)} programs"
                if id(node) in grid_nodes
                else f"line {at} counts {_code(node)} whole tiles"
            )
            why = f"{counted} of {kernel.name.value}, whose accesses leave {tile[1]} unchecked"
            out.append(Divides(tile, size, line, why))
    for d in _unread_grids(fn, call, kernel, line, helpers or {}):  # a count not read (wrongkernel30, v153)
        if d.tile in tiles:
            unread = f"{kernel.name.value}, whose accesses leave {d.tile[1]} unchecked,"
            out.append(replace(d, why=d.why.replace("a kernel without masks", unread)))
    for d in _grid_literals(call, line, kernel):  # the grid's own copy of the block's literal (variants v24)
        if d.tile[1] in blocks:
            unread = f"of {kernel.name.value}, whose accesses leave {d.tile[1]} unchecked"
            out.append(replace(d, why=d.why.replace("of a kernel without masks", unread)))
    # one block that an access of the kernel itself leaves unchecked (its masked-out lanes read as data, a store
    # without the mask): right only where no lane is masked out (a block given to an imported helper: its own rule)
    local = unchecked_blocks(kernel, helpers=jit[0], flags=flags) if jit[1] else blocks
    by_data = filled_by_data(kernel, jit[0], flags)
    for d in _one_block_covers(call, kernel, line, jit[0], jit[1], only=local - by_data):
        if d.scale == ONE:
            out.append(replace(d, covers=False, why=f"{d.why}, {DATA_FILL}", fills=True))
    for d in _one_block_covers(call, kernel, line, jit[0], jit[1], only=local & by_data):
        if d.scale == ONE:
            out.append(replace(d, covers=False, why=f"{d.why}, {BY_DATA_FILL}", fills=True, by_data=True))
    return out


def _launched_name(call: cst.Call) -> str:
    """The kernel a launch call runs (``kernel[grid](...)``), or empty."""
    return dotted(call.func.value) if isinstance(call.func, cst.Subscript) else ""


def _tied_flags(kernel: cst.FunctionDef, launches: Sequence[tuple[cst.FunctionDef, cst.Call]]) -> set[str]:
    """The parameters of ``kernel`` that flag a block dividing a size: set by a heuristic or, at every launch of
    ``launches`` that passes it, by a ``%`` whose divisor is not a literal (``EVEN_K=K % BLOCK_K == 0``, ``even = K %
    BLOCK_K == 0`` then ``EVEN_K=even``, ``lambda args: args["K"] % args["BLOCK_K"] == 0``): its ``if EVEN_K:``
    branch runs only where the block, moved or not, divides. A flag computed from the tile's value copied
    (``EVEN_K=K % 16 == 0`` beside ``BLOCK_K=16``), or from anything else, is not one (variants v9: the tile moved
    to 32, the flag still said 16, and the fast path's unchecked K loads ran at K = 48)."""

    def tied(expr: cst.CSTNode) -> bool:
        return any(
            isinstance(m, cst.BinaryOperation) and isinstance(m.operator, cst.Modulo) and _int(m.right) is None
            for m in walk(expr)
        )

    out: set[str] = set()
    for d in kernel.decorators:
        call = d.decorator
        if not (isinstance(call, cst.Call) and dotted(call.func).split(".")[-1] == "heuristics" and call.args):
            continue
        table = call.args[0].value
        for element in table.elements if isinstance(table, cst.Dict) else []:
            key = element.key if isinstance(element, cst.DictElement) else None
            if isinstance(key, cst.SimpleString) and tied(element.value):
                out.add(str(key.evaluated_value))
    passed_by: dict[str, list[bool]] = {}
    for fn, call in launches:
        bound = {
            dotted(t.target): node.value for node in walk(fn.body) if isinstance(node, cst.Assign) for t in node.targets
        }
        for name, value in _passed(call, kernel).items():
            root = bound.get(value.value, value) if isinstance(value, cst.Name) else value
            passed_by.setdefault(name, []).append(tied(root))
    out |= {name for name, ties in passed_by.items() if all(ties) and ties}
    return out


def _count_of(expr: cst.CSTNode) -> tuple[cst.BaseExpression, cst.BaseExpression] | None:
    """(size, block) of a count of blocks: ``tl.cdiv(L, BLOCK)``, ``math.ceil(L / BLOCK)`` (newuser9 n53), or ``L //
    BLOCK`` (a floor that drops the tail); ``None`` for anything else."""
    if (counted := ceil_count(expr)) is not None:
        return counted
    if isinstance(expr, cst.BinaryOperation) and isinstance(expr.operator, cst.FloorDivide):
        return expr.left, expr.right
    return None


def _counted_loops(
    call: cst.Call,
    kernel: cst.FunctionDef,
    line: int,
    blocks: Callable[[cst.For], Collection[str]],
    floor: bool | None = None,
) -> list[Divides]:
    """Loops that count blocks, ``for i_t in range(0, tl.cdiv(L, BLOCK_T))`` (or over a local bound to that
    ``cdiv``), of a block ``blocks`` gives for the loop (one its accesses leave unchecked): the loop covers ``L``
    only in whole blocks, so the block must divide ``L``. ``L`` a parameter: the size the launch ``call`` passes
    it. ``L`` computed in the kernel (a varlen kernel's ``seq_len = eos - bos``, loaded from ``cu_seqlens``): a
    size no host line knows, written ``kernel.L``, so a block that does not divide the original is never written
    (breaker6 j8). ``floor``: only counts by floor division (``L // BLOCK``, which drops the tail whatever the masks
    say: variants v10), unless the kernel takes the tail itself (``L % BLOCK``, ``L // BLOCK * BLOCK`` elsewhere);
    ``False``: only ``tl.cdiv`` counts; ``None``: both."""
    passed = _passed(call, kernel)
    aliases = _first_bindings(kernel)
    # a local bound once to a count (tl.cdiv(L, BLOCK), L // BLOCK)
    counts = {name: value for name, value in assigned_once(kernel).items() if _count_of(value) is not None}
    out: list[Divides] = []
    for node in walk(kernel.body):
        if not (isinstance(node, cst.For) and isinstance(node.iter, cst.Call)):
            continue
        if dotted(node.iter.func).split(".")[-1] != "range" or not node.iter.args:
            continue
        args = [a.value for a in node.iter.args if a.keyword is None]
        stop = args[1] if len(args) >= 2 else args[0] if args else None
        if (len(args) >= 2 and _int(args[0]) != 0) or (len(args) > 2 and _int(args[2]) != 1):
            continue
        if isinstance(stop, cst.Name) and stop.value in counts:
            stop = counts[stop.value]
        counted = _count_of(stop) if stop is not None else None
        if counted is None:
            continue
        size, block = counted
        by_floor = ceil_count(stop) is None  # a count by math.ceil covers the tail as tl.cdiv does
        if floor is not None and by_floor != floor:
            continue
        if not isinstance(block, cst.Name) or block.value not in blocks(node):
            continue
        if floor and isinstance(size, cst.Name) and _takes_tail(kernel, size.value, block.value, stop):
            continue
        tile = _passed_tile(passed, block.value)
        if tile is None or not isinstance(size, cst.Name):
            continue
        name = size.value if size.value in passed else aliases.get(size.value, size.value)
        host = passed.get(name) or cst.Attribute(value=cst.Name(kernel.name.value), attr=cst.Name(size.value))
        what = "blocks, whole: the floor drops the tail, masks or not" if floor else "blocks over loads that leave "
        why = (
            f"the kernel {kernel.name.value} counts range({_code(stop)}) "
            + (what if floor else f"{what}{block.value} unchecked")
            + ("" if name in passed else f" ({size.value} is computed in the kernel)")
        )
        out.append(Divides(tile, host, line, why))
    return out


def _passed_tile(passed: Mapping[str, cst.BaseExpression], block: str) -> tuple[str, str] | None:
    """The tile a launch gives the kernel's block parameter ``block`` (``passed``: :func:`_passed`): the launch's own
    name for it (``BLOCK_M=BM``: ``("name", "BM")``), or the parameter's where the launch passes a literal or leaves
    it to a decorator (a heuristic, an autotune config: ``("meta", block)``); ``None`` for any other value."""
    given = passed.get(block)
    named = _tile_id(given) if isinstance(given, cst.Name) else None
    return named if named is not None else ("meta", block) if given is None or _int(given) else None


def _takes_tail(kernel: cst.FunctionDef, size: str, block: str, count: cst.CSTNode) -> bool:
    """Whether ``kernel`` takes the tail a floor count ``size // block`` (the node ``count``) leaves: it reads
    ``size % block``, or ``size // block`` again beside that count (``(K // BLOCK_K) * BLOCK_K``, where the tail
    starts)."""
    inside = {id(n) for n in walk(count)}
    return any(
        isinstance(node, cst.BinaryOperation)
        and isinstance(node.operator, cst.Modulo | cst.FloorDivide)
        and (dotted(node.left), dotted(node.right)) == (size, block)
        and id(node) not in inside
        for node in walk(kernel.body)
    )


def _kernel_divisions(call: cst.Call, kernel: cst.FunctionDef, line: int) -> list[Divides]:
    """``M // BLOCK_M`` inside a kernel without masks (a persistent kernel counting its own tiles,
    ``num_tiles = (M // BLOCK_M) * (N // BLOCK_N)``), both its parameters as the launch ``call`` passes them: the
    floor drops a tail no program covers, so the block must divide the size (the fifth trial, case i7)."""
    passed = _passed(call, kernel)
    out: list[Divides] = []
    for node in walk(kernel.body):
        if not (isinstance(node, cst.BinaryOperation) and isinstance(node.operator, cst.FloorDivide)):
            continue
        size, block = node.left, node.right
        if not (isinstance(size, cst.Name) and isinstance(block, cst.Name)) or size.value not in passed:
            continue
        tile = _passed_tile(passed, block.value)
        if tile is not None and (block.value in passed or block.value in set(param_names(kernel))):
            whole = _code(node.with_changes(lpar=[], rpar=[]))
            why = f"the kernel {kernel.name.value} counts {whole} whole tiles over loads without masks"
            out.append(Divides(tile, passed[size.value], line, why))
    return out


def _block_pointer_axes(
    call: cst.Call,
    kernel: cst.FunctionDef,
    line: int,
    helpers: Mapping[str, cst.FunctionDef] | None = None,
    imported: Collection[str] = (),
) -> list[Divides]:
    """What the block pointers of ``kernel`` say, as the launch ``call`` passes their sizes: a ``tl.load`` or
    ``tl.store`` of a pointer made by ``tl.make_block_ptr(..., shape=(M, K), block_shape=(BLOCK_M, BLOCK_K))``
    whose ``boundary_check`` leaves an axis out (``(0,)``, or none at all) reads and writes that axis in whole
    blocks, so its block must divide its size (a GEMV checking its rows and not K: ``BLOCK_K`` divides ``K``). A
    boundary check kernelopt cannot read (not a literal tuple of axes) is taken as checking every axis. The loads
    and stores read are every one the kernel reaches, its ``@triton.jit`` ``helpers``' at their calls (variants
    v12: ``x = _load_rows(x_blk)``); a block pointer given to a function ``imported`` from another module, its body
    not in the file, is read as loaded with no check."""
    passed = _passed(call, kernel)
    made: dict[str, tuple[list[cst.BaseExpression], list[cst.BaseExpression]]] = {}
    inline = False
    for node in walk(kernel.body):
        if isinstance(node, cst.Call) and dotted(node.func).split(".")[-1] == "make_block_ptr":
            inline = True
        if not (isinstance(node, cst.Assign) and len(node.targets) == 1 and isinstance(node.value, cst.Call)):
            continue
        target = node.targets[0].target
        if not isinstance(target, cst.Name) or dotted(node.value.func).split(".")[-1] != "make_block_ptr":
            continue
        axes = _pointer_axes(node.value)
        if axes is not None:
            made[target.value] = axes
    out: list[Divides] = []
    loaded = _loaded_locals(kernel)  # a length the kernel loads (a varlen ``T = eos - bos``): no host line knows it
    accesses, unread = reached_accesses(kernel, helpers, imported) if made or inline else ([], [])
    given = [  # a block pointer handed to a call kernelopt cannot read: as a load with no check
        (f"{dotted(node.func)}() is given", a.value.value, None)
        for node in unread
        for a in node.args
        if isinstance(a.value, cst.Name) and a.value.value in made
    ]
    reached = [
        (f"{dotted(node.func).split('.')[-1]}s", node.args[0].value.value, node)
        for node in accesses
        if node.args and isinstance(node.args[0].value, cst.Name) and node.args[0].value.value in made
    ]
    for node in accesses:  # ``tl.load(tl.make_block_ptr(...), boundary_check=(0,))``: made inline, in the access
        first = node.args[0].value if node.args else None
        axes = _pointer_axes(first) if isinstance(first, cst.Call) else None
        if axes is not None and dotted(first.func).split(".")[-1] == "make_block_ptr":  # type: ignore[union-attr]
            base = _code(first.args[0].value) if first.args else "?"  # type: ignore[union-attr]
            label, again = f"{base} (made inline)", 1
            while label in made:  # two made inline over one base: each its own axes
                again += 1
                label = f"{base} (made inline, {again})"
            made[label] = axes
            reached.append((f"{dotted(node.func).split('.')[-1]}s", label, node))
    padded: set[str] | None = None  # the blocks whose padding a reduction reads as data (read once, when needed)
    for verb, pointer, node in reached + given:
        check = (
            next((a.value for a in node.args if a.keyword is not None and a.keyword.value == "boundary_check"), None)
            if node is not None
            else None
        )
        axes = [_int(e.value) for e in check.elements] if isinstance(check, cst.Tuple | cst.List) else [None]
        if check is not None and None in axes:
            continue  # not read: taken as checking every axis
        checked = set(axes) if check is not None else set()
        loading = node is not None and dotted(node.func).split(".")[-1] == "load"
        if loading and checked and padded is None:
            padded = padded_blocks(kernel, helpers)
        for axis, (size, block) in enumerate(zip(*made[pointer], strict=True)):
            if not isinstance(size, cst.Name) or not isinstance(block, cst.Name):
                continue
            if axis in checked and not (loading and block.value in (padded or ())):
                continue  # checked, and its padding read as no data
            if size.value not in passed and size.value not in loaded:
                continue
            tile = _passed_tile(passed, block.value)
            if tile is not None:
                how = (
                    f"with a boundary check on axis {axis} whose padding a reduction reads as data"
                    if axis in checked
                    else f"without a boundary check on axis {axis}"
                )
                why = f"the kernel {kernel.name.value} {verb} block pointer {pointer} {how} ({block.value} over "
                why += f"{size.value})"
                if size.value in passed:
                    out.append(Divides(tile, passed[size.value], line, why))
                else:  # never written wider (breaker6 j8's rule for a block pointer)
                    host = cst.Attribute(value=cst.Name(kernel.name.value), attr=cst.Name(size.value))
                    out.append(Divides(tile, host, line, f"{why}; {size.value} is computed in the kernel"))
    return out


def _pointer_axes(make: cst.Call) -> tuple[list[cst.BaseExpression], list[cst.BaseExpression]] | None:
    """A ``tl.make_block_ptr`` call's shape and block shape, axis by axis; ``None`` where they are not literal tuples
    of one length."""
    args = call_args(make, BLOCK_PTR_ARGS)
    shape, block = args.get("shape"), args.get("block_shape")
    if isinstance(shape, cst.Tuple) and isinstance(block, cst.Tuple) and len(shape.elements) == len(block.elements):
        return [e.value for e in shape.elements], [e.value for e in block.elements]
    return None


def _helper_argument(
    old: _Collector,
    new: _Collector,
    unmasked: Mapping[str, cst.FunctionDef],
    pos: Positions,
    kernels: Mapping[str, cst.FunctionDef],
) -> str | None:
    """Why an edit that moved an argument of a launch helper cannot be written (``None`` when none did, or every
    move holds): a literal default (``def _launch(x, y, block=512)``) or a literal a call passes
    (``_launch(x, y, block=512)``, in a lambda or a function) moved to a value the helper's launch does not
    allow at every size the original handled (a grid of ``n // block`` programs of a kernel without masks). Such
    an argument is not guarded by a size (the size is the helper's)."""
    helpers: dict[str, cst.FunctionDef] = {}
    for f in new.functions:
        if not is_jit(f):
            helpers[f.name.value] = f if f.name.value not in helpers else None  # type: ignore[assignment]
    helpers = {k: v for k, v in helpers.items() if v is not None}
    olds = {f.name.value: f for f in old.functions if f.name.value in helpers}
    fields: set[str] = set()  # a class with no ``__init__`` (a ``@dataclass``): ``LaunchConfig(BLOCK_M=16)``
    for cls in new.class_defs:  # ``TritonRMSNorm(block=1024)`` passes ``__init__``'s argument
        init = next((n for n in cls.body.body if isinstance(n, cst.FunctionDef) and n.name.value == "__init__"), None)
        if init is not None:
            helpers[cls.name.value] = init
        else:
            fields.add(cls.name.value)
    moves: list[tuple[cst.FunctionDef, str, int, int]] = []
    for name, fn in helpers.items():
        was = olds.get(name)
        if was is None or len(params_of(was)) != len(params_of(fn)):
            continue
        for p_old, p_new in zip(params_of(was), params_of(fn), strict=True):
            b, a = _int(p_old.default or cst.Name("_")), _int(p_new.default or cst.Name("_"))
            if b is not None and a is not None and a != b:
                moves.append((fn, p_new.name.value, b, a))
    for (o, _), (n, _) in zip(old.statements, new.statements, strict=True):
        o_calls, n_calls = _helper_calls(o, helpers), _helper_calls(n, helpers)
        if len(o_calls) != len(n_calls):
            continue
        for (fn, was_args), (_, now_args) in zip(o_calls, n_calls, strict=True):
            for param, after in now_args.items():
                before = was_args.get(param)
                if before is not None and after != before:
                    moves.append((fn, param, before, after))
    for (o, _), (n, _) in zip(old.statements, new.statements, strict=True):
        o_built, n_built = _constructions(o, fields), _constructions(n, fields)
        if len(o_built) != len(n_built):
            continue
        for (cls_name, was_args), (_, now_args) in zip(o_built, n_built, strict=True):
            for attr, after in now_args.items():
                before = was_args.get(attr)
                if before is None or after == before:
                    continue
                if after == 0:
                    return f"{attr}=0 passed to {cls_name}(): not written"
                needs = [
                    d
                    for f in new.functions
                    if not is_jit(f)
                    for d in _requirements(f, unmasked, pos, kernels, imported=new.imported, module=_module_values(new))
                    if d.tile == ("name", attr) and d.literal is None and not d.holds(before, after)
                ]
                if needs:
                    return (
                        f"{attr}={after} {needs[0].fails} every size the original {attr}={before} handled "
                        f"({needs[0].why}), and a field given to {cls_name}() is not guarded by a size: not written"
                    )
    for fn, param, before, after in moves:
        if after == 0:
            return f"{param}=0 passed to {fn.name.value}(): not written"
        ids = {("name", param)} | {
            ("meta", n.keyword.value)
            for n in walk(fn.body)
            if isinstance(n, cst.Arg) and n.keyword is not None and isinstance(n.value, cst.Name)
            and n.value.value == param
        }  # fmt: skip
        launchers = [fn]
        if fn.name.value == "__init__":  # ``self.BLOCK = block``: read by the methods that launch as ``self.BLOCK``
            ids |= {
                ("name", t.target.attr.value)
                for n in walk(fn.body)
                if isinstance(n, cst.Assign) and isinstance(n.value, cst.Name) and n.value.value == param
                for t in n.targets
                if isinstance(t.target, cst.Attribute)
            }
            launchers = [f for f in new.functions if not is_jit(f)]
        needs = [
            d
            for f in launchers
            for d in _requirements(f, unmasked, pos, kernels, imported=new.imported, module=_module_values(new))
            if d.tile in ids and d.literal is None and not d.holds(before, after)
        ]
        if needs:
            return (
                f"{param}={after} {needs[0].fails} every size the original {param}={before} handled "
                f"({needs[0].why}), and an argument of {fn.name.value}() is not guarded by a size: not written"
            )
    return None


def _constructions(statement: cst.CSTNode, classes: set[str]) -> list[tuple[str, dict[str, int]]]:
    """The constructions of settings classes in ``statement`` (``LaunchConfig(BLOCK_M=16)``), each with the integer
    literals it passes by keyword."""
    return [
        (node.func.value, {a.keyword.value: v for a in node.args if a.keyword is not None and (v := _int(a.value))})
        for node in walk(statement)
        if isinstance(node, cst.Call) and isinstance(node.func, cst.Name) and node.func.value in classes
    ]


def _helper_calls(
    statement: cst.CSTNode, helpers: Mapping[str, cst.FunctionDef]
) -> list[tuple[cst.FunctionDef, dict[str, int]]]:
    """The calls of launch helpers in ``statement``, each with the integer literals it passes by parameter."""
    out: list[tuple[cst.FunctionDef, dict[str, int]]] = []
    for node in walk(statement):
        if not (isinstance(node, cst.Call) and isinstance(node.func, cst.Name) and node.func.value in helpers):
            continue
        fn = helpers[node.func.value]
        params = param_names(fn)
        if fn.name.value == "__init__" and fn.name.value != node.func.value:
            params = params[1:]  # a construction passes no ``self``
        given: dict[str, int] = {}
        for i, arg in enumerate(node.args):
            if arg.star:
                break
            name = arg.keyword.value if arg.keyword is not None else params[i] if i < len(params) else None
            value = _int(arg.value)
            if name is not None and value is not None:
                given[name] = value
        out.append((fn, given))
    return out


def _first_bindings(kernel: cst.FunctionDef) -> dict[str, str]:
    """Locals a kernel first binds to one of its parameters (``hi = seq``) -> that parameter; a name whose first
    binding is anything else is left out."""
    params = set(param_names(kernel))
    out: dict[str, str] = {}
    seen: set[str] = set()
    for node in walk(kernel.body):
        if isinstance(node, cst.Assign) and len(node.targets) == 1 and isinstance(node.targets[0].target, cst.Name):
            name = node.targets[0].target.value
            if name not in seen and isinstance(node.value, cst.Name) and node.value.value in params:
                out[name] = node.value.value
            seen.add(name)
    return out


def _bare_access(body: cst.CSTNode, params: set[str]) -> bool:
    """A ``tl.load`` or ``tl.store`` in ``body`` with no mask (see :func:`_masked`), outside a branch on a flag
    the launch passes (``if EVEN_K:``, the fast path taken only where the block divides: the flag says it)."""
    if isinstance(body, cst.If) and _names(body.test) & params:
        return body.orelse is not None and _bare_access(body.orelse, params)
    if isinstance(body, cst.Call) and dotted(body.func).split(".")[-1] in ("load", "store"):
        return not _masked_call(body)
    return any(_bare_access(child, params) for child in child_nodes(body))


def _masked_call(node: cst.Call) -> bool:
    """Whether one ``tl.load`` / ``tl.store`` carries a mask (a mask, ``boundary_check`` or ``other`` argument, a
    second positional argument of a load, third of a store, or a ``*``/``**`` argument kernelopt cannot read)."""
    name = dotted(node.func).split(".")[-1]
    positional = [a for a in node.args if a.keyword is None and a.star == ""]
    keywords = {a.keyword.value for a in node.args if a.keyword is not None}
    return (
        bool(keywords & {"mask", "boundary_check", "other"})
        or len(positional) > (1 if name == "load" else 2)
        or any(a.star for a in node.args)
    )


def _literal_ceils(root: cst.CSTNode) -> set[int]:
    """The ids of the floors ``(size + 63) // 64`` (either order of the sum): a count of 64-wide tiles rounded up,
    written with literals, which an edit moves together (``(n + 1023) // 1024``). Over masks any tile is right there;
    without them a guard would name the divisor alone (``(n + 1023) // BLOCK``, its fallback of 64 then counting
    ``(n + 1023) // 64`` programs, past the end at every size: newuser9 n50), so none is written."""
    out: set[int] = set()
    for node in walk(root):
        if not (isinstance(node, cst.BinaryOperation) and isinstance(node.operator, cst.FloorDivide)):
            continue
        tile, total = _int(node.right), node.left
        if tile is None or not (isinstance(total, cst.BinaryOperation) and isinstance(total.operator, cst.Add)):
            continue
        if tile - 1 in (_int(total.left), _int(total.right)):
            out.add(id(node))
    return out


def _ceil_floors(root: cst.CSTNode) -> dict[int, tuple[cst.BaseExpression, cst.BaseExpression]]:
    """The floors inside the other spellings of a count of tiles rounded up, ``(size - 1) // tile + 1`` (either
    order of the sum; ``size // tile + 1`` too, at least as many), ``-(-size // tile)`` and ``-(size // -tile)``, by the
    floor's id -> (size, tile): such a floor
    counts ``size`` in tiles rounded up, as ``triton.cdiv`` does, not ``size - 1`` or ``-size`` rounded down
    (newuser9 n48: a masked kernel's pick was refused, "in a form no guard is written for"; n54: without masks, a
    tile of ``-(n // -BLOCK)`` programs was written plainly)."""
    out: dict[int, tuple[cst.BaseExpression, cst.BaseExpression]] = {}

    def floor(node: cst.CSTNode) -> cst.BinaryOperation | None:
        ok = isinstance(node, cst.BinaryOperation) and isinstance(node.operator, cst.FloorDivide)
        return node if ok else None  # type: ignore[return-value]

    for node in walk(root):
        if isinstance(node, cst.BinaryOperation) and isinstance(node.operator, cst.Add):
            for inner, one in ((node.left, node.right), (node.right, node.left)):
                div = floor(inner)
                less = div.left if div is not None else None
                if div is None or less is None or _int(one) != 1:
                    continue
                if (
                    isinstance(less, cst.BinaryOperation)
                    and isinstance(less.operator, cst.Subtract)
                    and _int(less.right) == 1
                ):
                    out[id(div)] = (less.left.with_changes(lpar=[], rpar=[]), div.right)
                else:  # size // tile + 1: a program more than the tiles where tile divides size, never fewer (n55)
                    out[id(div)] = (less.with_changes(lpar=[], rpar=[]), div.right)
        elif isinstance(node, cst.UnaryOperation) and isinstance(node.operator, cst.Minus):
            div = floor(node.expression)
            if div is None:
                continue
            if isinstance(div.left, cst.UnaryOperation) and isinstance(div.left.operator, cst.Minus):
                out[id(div)] = (div.left.expression.with_changes(lpar=[], rpar=[]), div.right)
            elif isinstance(div.right, cst.UnaryOperation) and isinstance(div.right.operator, cst.Minus):
                # -(n // -BLOCK), the other way up (n54)
                out[id(div)] = (div.left.with_changes(lpar=[], rpar=[]), div.right.expression)
    return out


def _strings(expr: cst.CSTNode) -> set[str]:
    return {
        n.evaluated_value  # type: ignore[misc]
        for n in walk(expr)
        if isinstance(n, cst.SimpleString) and isinstance(n.evaluated_value, str)
    }


def _code(node: cst.CSTNode) -> str:
    return cst.Module([]).code_for_node(node)


def _size_text(expr: cst.BaseExpression) -> str:
    text = _code(expr).strip()
    simple = (cst.Name, cst.Attribute, cst.Subscript, cst.Call, cst.Integer)
    return text if isinstance(expr, simple) else f"({text})"


@dataclass
class _Change:
    """One literal a plain edit moved: where it is in the edited text, and what the original held."""

    before: int
    after: int
    start: int  # offsets of the literal in the edited text
    end: int
    statement: cst.SimpleStatementLine
    function: cst.FunctionDef | None
    target: str | None  # the name an assignment binds it to
    keyword: str | None  # the keyword it is passed as at a call (or the key of a dict entry)
    entry: bool = False  # an entry of a dict literal (``{"BLOCK": 64}``, splatted at a launch)


#: Modules whose functions a kernel calls without an access of their own to read (``tl.where``, ``libdevice``)
_LIBRARIES = frozenset({"triton", "torch", "math", "numpy", "functools", "typing", "__future__", "os"})


#: Methods that change a list, a set or a dict in place: a module constant one is called on anywhere is no constant
#: (review29 r95: ``SUPPORTED = [128, 256, 512]`` then ``SUPPORTED.remove(512)`` was read as holding 512)
_MUTATORS = frozenset(
    {
        "append", "extend", "insert", "remove", "pop", "clear", "sort", "reverse", "add", "discard", "update",
        "difference_update", "intersection_update", "symmetric_difference_update", "setdefault", "popitem",
        "__setitem__", "__delitem__", "__iadd__", "__ior__",
    }
)  # fmt: skip


class _Collector(cst.CSTVisitor):
    """Every statement line in order, with its function; offsets of the nodes of the edited text."""

    def __init__(self, line_starts: list[int], positions: Positions) -> None:
        self.line_starts = line_starts
        self.positions = positions
        self.stack: list[cst.FunctionDef] = []
        self.statements: list[tuple[cst.SimpleStatementLine, cst.FunctionDef | None]] = []
        self.functions: list[cst.FunctionDef] = []
        self.next_of: dict[int, cst.BaseStatement] = {}  # a statement -> the one after it in its block
        self.classes: list[cst.ClassDef] = []
        self.class_defs: list[cst.ClassDef] = []
        self.class_level: set[int] = set()  # statements of a class body (outside its methods)
        self.imported: set[str] = set()  # functions imported from a module other than triton's or torch's
        # module names bound otherwise than by an assignment: a function's ``global``, a module-level loop's, ``with``'s
        # or walrus's target, or a value changed in place anywhere (``SUPPORTED.remove(512)``, ``del SUPPORTED[-1]``,
        # review29 r95) (:func:`_module_values` reads none of them as a constant)
        self.rebound: set[str] = set()
        self.top: set[int] = set()  # the module's own top-level statements (:func:`_module_folded`)
        self.globals: dict[str, list[cst.FunctionDef]] = {}  # a name -> the functions declaring it ``global``
        self.looped: set[str] = set()  # module names a loop's, ``with``'s or walrus's target binds

    def visit_Global(self, node: cst.Global) -> None:
        self.rebound.update(n.name.value for n in node.names)
        for n in node.names:
            if self.stack:
                self.globals.setdefault(n.name.value, []).append(self.stack[-1])

    def _module_binding(self, node: cst.For | cst.WithItem | cst.NamedExpr) -> None:
        if not self.stack:
            self.rebound.update(b.name for b in made_by(node))
            self.looped.update(b.name for b in made_by(node))

    def visit_For(self, node: cst.For) -> None:
        self._module_binding(node)

    def visit_WithItem(self, node: cst.WithItem) -> None:
        self._module_binding(node)

    def visit_NamedExpr(self, node: cst.NamedExpr) -> None:
        self._module_binding(node)

    def visit_Call(self, node: cst.Call) -> None:
        # ``SUPPORTED.remove(512)``, anywhere: the list or set the module bound holds other values when it is read
        func = node.func
        if isinstance(func, cst.Attribute) and isinstance(func.value, cst.Name) and func.attr.value in _MUTATORS:
            self.rebound.add(func.value.value)

    def _changed_item(self, target: cst.BaseExpression) -> None:
        for node in walk(target):  # ``SUPPORTED[2] = 64``, ``del SUPPORTED[-1]``, ``LIMITS["most"] += 1``
            if isinstance(node, cst.Subscript) and isinstance(node.value, cst.Name):
                self.rebound.add(node.value.value)

    def visit_AssignTarget(self, node: cst.AssignTarget) -> None:
        self._changed_item(node.target)

    def visit_AugAssign(self, node: cst.AugAssign) -> None:
        self._changed_item(node.target)

    def visit_Del(self, node: cst.Del) -> None:
        self._changed_item(node.target)

    def visit_ImportFrom(self, node: cst.ImportFrom) -> None:
        module = dotted(node.module) if node.module is not None else ""
        if module.split(".")[0] in _LIBRARIES or isinstance(node.names, cst.ImportStar):
            return
        for alias in node.names:
            name = alias.asname.name if alias.asname is not None else alias.name
            if isinstance(name, cst.Name):
                self.imported.add(name.value)

    def visit_Import(self, node: cst.Import) -> None:
        for alias in node.names:
            if dotted(alias.name).split(".")[0] in _LIBRARIES:
                continue
            bound = alias.asname.name if alias.asname is not None else alias.name
            self.imported.add(dotted(bound).split(".")[0])  # ``import mylib.ops as ops``: ``ops.f(...)``

    def _block(self, body: Sequence[cst.BaseStatement]) -> None:
        for a, b in itertools.pairwise(body):
            self.next_of[id(a)] = b

    def visit_Module(self, node: cst.Module) -> None:
        self._block(node.body)
        self.top.update(id(statement) for statement in node.body)

    def visit_IndentedBlock(self, node: cst.IndentedBlock) -> None:
        self._block(node.body)

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        self.stack.append(node)
        self.functions.append(node)

    def leave_FunctionDef(self, original_node: cst.FunctionDef) -> None:
        self.stack.pop()

    def visit_ClassDef(self, node: cst.ClassDef) -> None:
        self.classes.append(node)
        self.class_defs.append(node)

    def leave_ClassDef(self, original_node: cst.ClassDef) -> None:
        self.classes.pop()

    def visit_SimpleStatementLine(self, node: cst.SimpleStatementLine) -> None:
        self.statements.append((node, self.stack[-1] if self.stack else None))
        if self.classes and not self.stack:
            self.class_level.add(id(node))  # ``BLOCK = 1024`` / ``BLOCK_M: int = 16`` in a class body

    def visit_SimpleStatementSuite(self, node: cst.SimpleStatementSuite) -> None:
        # the body of a one-line compound statement (``if n: k[grid](.., BLOCK=64)``): its literals move too
        self.statements.append((node, self.stack[-1] if self.stack else None))  # type: ignore[arg-type]

    def offset(self, node: cst.CSTNode) -> tuple[int, int]:
        rng = self.positions[node]
        return (
            self.line_starts[rng.start.line - 1] + rng.start.column,
            self.line_starts[rng.end.line - 1] + rng.end.column,
        )


def _line_starts(source: str) -> list[int]:
    starts, pos = [0], 0
    for line in source.splitlines(keepends=True):
        pos += len(line)
        starts.append(pos)
    return starts


def _int(node: cst.CSTNode) -> int | None:
    if isinstance(node, cst.Integer):
        return int(node.evaluated_value)
    return None


def _constant(node: cst.BaseExpression) -> cst.BaseExpression:
    """The literal of a module-level ``tl.constexpr(32)`` (its one argument), else ``node`` itself."""
    if (
        isinstance(node, cst.Call)
        and dotted(node.func).split(".")[-1] == "constexpr"
        and len(node.args) == 1
        and node.args[0].keyword is None
        and not node.args[0].star
    ):
        return node.args[0].value
    return node


def _environment_default(node: cst.BaseExpression) -> cst.SimpleString | None:
    """The quoted default of ``int(os.environ.get("BLOCK", "64"))`` (digits alone): the value where the variable is
    unset, discovery's knob, which an edit moves in place; ``None`` for anything else. Not a constant of the module
    (a host check against it holds only where the variable is unset), but a move of it is judged as a literal's is
    (review30 r103: no rule read it, and 128 over ``n // BLOCK`` programs of a kernel without masks was written)."""
    if not (isinstance(node, cst.Call) and dotted(node.func) == "int" and len(node.args) == 1):
        return None
    read = node.args[0].value
    if not (isinstance(read, cst.Call) and dotted(read.func) in ENVIRONMENT_READS and len(read.args) == 2):
        return None
    if any(a.keyword is not None or a.star for a in (*node.args, *read.args)):
        return None
    default = read.args[1].value
    text = default.evaluated_value if isinstance(default, cst.SimpleString) else None
    return default if isinstance(default, cst.SimpleString) and isinstance(text, str) and text.isdigit() else None


def _changes(
    old: tuple[cst.SimpleStatementLine, cst.FunctionDef | None],
    new: tuple[cst.SimpleStatementLine, cst.FunctionDef | None],
    collector: _Collector,
) -> list[_Change]:
    """The integer literals that differ between a statement of the original and its edited counterpart: the
    elements of an assignment of literals, and keyword literals of calls."""
    (o, _), (n, fn) = old, new
    out: list[_Change] = []
    old_entries = [e for e in walk(o) if isinstance(e, cst.DictElement) and isinstance(e.key, cst.SimpleString)]
    new_entries = [e for e in walk(n) if isinstance(e, cst.DictElement) and isinstance(e.key, cst.SimpleString)]
    if len(old_entries) == len(new_entries):
        for oe, ne in zip(old_entries, new_entries, strict=True):
            b, a = _int(oe.value), _int(ne.value)
            key = ne.key.evaluated_value  # type: ignore[union-attr]
            if b is not None and a is not None and a != b and isinstance(key, str):
                start, end = collector.offset(ne.value)
                out.append(_Change(b, a, start, end, n, fn, None, key, entry=True))
    pairs = _assignments(o), _assignments(n)
    if pairs[0] and len(pairs[0]) == len(pairs[1]):
        assigned = []
        for (name, ov), (_, nv) in zip(*pairs, strict=True):
            ov, nv = _constant(ov), _constant(nv)
            b, a = _int(ov), _int(nv)
            if b is None and (was := _environment_default(ov)) and (now := _environment_default(nv)):
                b, a, nv = int(str(was.evaluated_value)), int(str(now.evaluated_value)), now
            if b is not None and a is not None and a != b:
                start, end = collector.offset(nv)
                assigned.append(_Change(b, a, start, end, n, fn, name, None))
        if assigned:
            return out + assigned
    unpacked = _unpacked_changes(pairs, n, fn, collector)
    if unpacked:
        return out + unpacked
    old_calls = [c for c in walk(o) if isinstance(c, cst.Call)]
    new_calls = [c for c in walk(n) if isinstance(c, cst.Call)]
    if len(old_calls) != len(new_calls):
        return out
    for oc, nc in zip(old_calls, new_calls, strict=True):
        kept = {a.keyword.value: a.value for a in oc.args if a.keyword is not None}
        for arg in nc.args:
            if arg.keyword is None or arg.keyword.value not in kept:
                continue
            b, a = _int(kept[arg.keyword.value]), _int(arg.value)
            if b is not None and a is not None and a != b:
                start, end = collector.offset(arg.value)
                entry = dotted(nc.func) == "dict"  # ``dict(BLOCK=64)``: a dict of settings, as ``{"BLOCK": 64}``
                out.append(_Change(b, a, start, end, n, fn, None, arg.keyword.value, entry=entry))
    return out


def _unpacked_changes(
    pairs: tuple[list[tuple[str, cst.BaseExpression]], list[tuple[str, cst.BaseExpression]]],
    n: cst.SimpleStatementLine,
    fn: cst.FunctionDef | None,
    collector: _Collector,
) -> list[_Change]:
    """The moved elements of a tuple of literals bound to one name (``TILE = (64, 32)``), each as the name an
    unpacking of it binds (``bm, bn = TILE`` in ``run``, ``BLOCK_M, BLOCK_N = TILE`` at the module): discovery's
    knob an element each (``analysis._Analyzer.unpacked`` and ``subscripted``), read by the launches through those
    names (break17 b15); a nested tuple's elements by their paths (``TILE[0][1]``, read as ``bm, bn = TILE[0]`` or
    ``TILE[0][1]``: leftovers19's l3)."""
    if len(pairs[0]) != 1 or len(pairs[1]) != 1:
        return []
    (held, ov), (_, nv) = pairs[0][0], pairs[1][0]
    return _moved_elements(held, ov, nv, n, fn, collector)


def _moved_elements(
    held: str,
    ov: cst.BaseExpression,
    nv: cst.BaseExpression,
    n: cst.SimpleStatementLine,
    fn: cst.FunctionDef | None,
    collector: _Collector,
) -> list[_Change]:
    """:func:`_unpacked_changes` of the tuple ``held`` names (a path, ``TILE[0]``), ``ov`` as it was and ``nv`` as
    written: each moved literal element, and the moved elements of each tuple nested in it."""
    if not (isinstance(ov, cst.Tuple | cst.List) and isinstance(nv, cst.Tuple | cst.List)):
        return []
    if len(ov.elements) != len(nv.elements):
        return []
    out: list[_Change] = []
    for at, (oe, ne) in enumerate(zip(ov.elements, nv.elements, strict=True)):
        b, a = _int(oe.value), _int(ne.value)
        if b is None or a is None:
            out += _moved_elements(f"{held}[{at}]", oe.value, ne.value, n, fn, collector)
            continue
        if a == b:
            continue
        start, end = collector.offset(ne.value)
        names = [f"{held}[{at}]", *_unpacked_as(held, at, collector)]  # read by its index, or unpacked
        out += [_Change(b, a, start, end, n, fn, name, None) for name in names]
    return out


def _unpacked_as(held: str, at: int, collector: _Collector) -> list[str]:
    """The names that the unpackings of ``held`` (``bm, bn = TILE``: flat, no starred element) bind its element
    ``at`` to, and those its subscripts bind (``bm = TILE[0]``): :func:`~kernelopt.tunables.bindings.element_names`
    over the lines of one statement."""
    lines = [line.body[0] if len(line.body) == 1 else None for line, _ in collector.statements]
    return [*element_names(lines, held, at), *element_spellings(lines, held, at)]


def _conditional(line: cst.SimpleStatementLine) -> bool:
    """The line assigns a conditional expression (``BLOCK = 64 if x.dtype == torch.float16 else 32``)."""
    stmt = line.body[0] if len(line.body) == 1 else None
    return isinstance(stmt, cst.Assign) and isinstance(stmt.value, cst.IfExp)


def _assignments(line: cst.SimpleStatementLine) -> list[tuple[str, cst.BaseExpression]]:
    """(name, value) of a line that is one assignment to one target (see :func:`_assigned`)."""
    stmt = line.body[0] if len(line.body) == 1 else None
    if isinstance(stmt, cst.Assign) and len(stmt.targets) == 1:
        return _assigned(stmt.targets[0].target, stmt.value)
    if isinstance(stmt, cst.AnnAssign) and stmt.value is not None:  # ``BLOCK_M: int = 16`` (a dataclass field)
        return _assigned(stmt.target, stmt.value)
    return []


def _assigned(target: cst.BaseExpression, value: cst.BaseExpression) -> list[tuple[str, cst.BaseExpression]]:
    """(name, value) of ``a = 1`` or ``a, b = 1, 2`` (element-wise), of each branch of ``a, b = (1, 2) if c else
    (3, 4)`` in turn; ``[]`` for anything else."""
    if isinstance(value, cst.IfExp):
        return [*_assigned(target, value.body), *_assigned(target, value.orelse)]
    if isinstance(target, cst.Name):
        return [(target.value, value)]
    if (
        isinstance(target, cst.Tuple | cst.List)
        and isinstance(value, cst.Tuple | cst.List)
        and len(target.elements) == len(value.elements)
        and all(isinstance(e.value, cst.Name) for e in target.elements)
    ):
        return [(e.value.value, v.value) for e, v in zip(target.elements, value.elements, strict=True)]  # type: ignore[attr-defined]
    return []


def _bound_before(fn: cst.FunctionDef, line: int, pos: Positions) -> set[str]:
    """The function's parameters and the names it binds on lines before ``line`` (module names count too:
    a size is rarely one, and a missing one fails the final check)."""
    names = {p.name.value for p in params_of(fn, posonly=True, kwonly=True, stars=True)}
    for node in walk(fn.body):
        if isinstance(node, cst.Assign) and pos[node].start.line < line:
            for t in node.targets:
                names |= {n.value for n in walk(t.target) if isinstance(n, cst.Name)}
    return names


def guard_edit(old: str, new: str, *, ran_masked: Collection[tuple[str, str]] = ()) -> Guarded:
    """The text to write for the literal edit ``old`` -> ``new``: ``new`` itself when every moved tile is legal
    at every size the original handled; else ``new`` with each such tile guarded by the sizes it must divide
    (its original value the fallback); no text when a guard cannot be written (the note says why). A guard an
    earlier edit wrote after a moved literal loses the names moved now (the new value, or the new guard, holds).

    Args:
        old: kernel.py as the user wrote it.
        new: the same text with only knob literals moved (:func:`~kernelopt.tunables.edit.apply_source`).
        ran_masked: (block, size) pairs, the block as the launching function names it and the size's source
            text, where the original ran one block wider than the size at an entry and passed its check there:
            the masked-out lanes the kernel reads as data were evidently harmless to its result, so a table row
            over that computed block is not asked to fill the size (:attr:`Divides.fills`; the row must still
            cover it).
    """
    plain_old, plain_new = plain_decorators(old), plain_decorators(new)
    if plain_old is not None and plain_new is not None:  # a kernel decorated through an alias (vLLM's)
        guarded = guard_edit(plain_old, plain_new, ran_masked=ran_masked)
        written = aliased(guarded.new_source, old) if guarded.new_source is not None else None
        return replace(guarded, new_source=written)
    guarded = _guarded_edit(old, new, ran_masked)
    written = guarded.new_source
    if written is not None and (cached := cache_refusal(old, written)) is not None:  # wrongkernel22, v98
        return Guarded(None, cached)
    if written is not None and (unmoved := unmoved_grid_refusal(old, written)) is not None:  # leftovers22, l16
        return Guarded(None, unmoved)
    return guarded


def unproven_edit(old: str, new: str) -> str | None:
    """Why the literal edit ``old`` -> ``new`` may not be written, or ``None``: :func:`guard_edit` gives no text (no
    guard can make the written kernel right at every size the original handled). The one rule ``kernelopt tune``'s
    pick and ``tunables --set``'s edit are both refused by (late31 z91: ``--set`` wrote such an edit with a warning)."""
    return set_edit(old, new).refusal


@dataclass(frozen=True)
class SetEdit:
    """What ``tunables --set`` writes for a literal edit (:func:`set_edit`): ``text`` and, where a guard was written,
    ``guard`` (the guard's note: which sizes keep the original); or no text and ``refusal`` (why, ending "not
    written")."""

    text: str | None
    guard: str | None = None
    refusal: str | None = None


def set_edit(old: str, new: str) -> SetEdit:
    """The text ``kernelopt tune`` writes for the literal edit ``old`` -> ``new``, which ``tunables --set`` writes
    too (late32 z95: it wrote ``new`` with a warning naming the guard, wrong at the sizes the guard keeps): ``new``
    where no guard is needed, or where only a guard an earlier edit (or the user, inline) wrote differs (it still
    sets its value where it holds); the guard's text where one is; no text where no guard can make it right."""
    guarded = guard_edit(old, new)
    if guarded.new_source is None:
        why = (guarded.note or "a tile no longer divides a size the original handled").rstrip()
        for tail in (": nothing written", ": not written"):
            why = why.removesuffix(tail)
        return SetEdit(None, refusal=f"{why}: not written")
    if guarded.new_source == new or (guarded.note is None and guarded.new_source == strip_stale_guards(old, new)):
        return SetEdit(new)
    return SetEdit(guarded.new_source, guard=guarded.note or "a guard")


def _guarded_edit(old: str, new: str, ran_masked: Collection[tuple[str, str]]) -> Guarded:
    """:func:`guard_edit`'s text and note, before a cache of compiled kernels is asked."""
    old_read, new_read = as_decorators(old), as_decorators(new)
    if old_read is None or new_read is None:
        guarded = _rewrite(old, new, add=True, ran_masked=ran_masked)
        return replace(guarded, note=in_user_lines(guarded.note, old, new))  # the rules read the edited text
    # an autotune list applied by a call (Transformer Engine's form) is judged as the decorator it stands for, so
    # every rule on a decorator's configs reads it; the edit is written where the file holds the list
    guarded = _rewrite(old_read, new_read, add=True, ran_masked=ran_masked)
    guarded = replace(guarded, note=in_user_lines(in_user_lines(guarded.note, old_read, new_read), old, old_read))
    if guarded.new_source is None:
        return guarded
    if guarded.new_source == new_read:
        return Guarded(new, guarded.note, guarded.tests)
    return Guarded(
        None,
        "the edit needs guard lines in a file whose autotune list is applied by a call (kernel = "
        "triton.autotune(...)(kernel)); kernelopt writes them only in the decorator's form: nothing written",
    )


def strip_stale_guards(old: str, new: str) -> str:
    """``new`` without the guard lines (written by :func:`guard_edit` before) that would override the literals
    moved from ``old``: a candidate runs the configuration it names, at every size."""
    if not may_hold_guards(old):
        return new  # no guard to take out (and no parse for it)
    return _rewrite(old, new, add=False).new_source or new


def may_hold_guards(source: str) -> bool:
    """Whether ``source`` may hold a guard: a line an edit marked, or an ``if`` (a guard's form whose comment is
    gone, :func:`~kernelopt.tunables.inline_guard.read_statement_guard`, or an inline guard); a cheap test."""
    return TUNED in source or " if " in source


def may_hold_inline_guards(source: str) -> bool:
    """Whether ``source`` may hold an inline guard (a conditional expression; a cheap test, before any parse)."""
    return " if " in source and " else " in source


def _inline_guard_args(source: str) -> list[tuple[str | None, cst.IfExp, int, int]] | None:
    """(keyword, expression, start, end offsets) of every inline guard of ``source``
    (:func:`kernelopt.tunables.inline_guard.read_inline_guard`) in order, the keyword it is passed as at a launch
    (``None`` for a grid's copy of one); ``None`` when the text does not parse."""
    try:
        tree = parsed(source)
    except cst.ParserSyntaxError:
        return None
    pos = tree.positions
    starts = _line_starts(source)
    keywords = {
        id(n.value): n.keyword.value for n in walk(tree.module) if isinstance(n, cst.Arg) and n.keyword is not None
    }
    out: list[tuple[str | None, cst.IfExp, int, int]] = []
    for node in walk(tree.module):
        if isinstance(node, cst.IfExp) and read_inline_guard(node) is not None:
            rng = pos[node]
            start, end = starts[rng.start.line - 1] + rng.start.column, starts[rng.end.line - 1] + rng.end.column
            for _ in node.lpar:  # its parentheses go with it (``n // (256 if ... else 128)`` -> ``n // 128``)
                start = source.rindex("(", 0, start)
            for _ in node.rpar:
                end = source.index(")", end) + 1
            out.append((keywords.get(id(node)), node, start, end))
    return out


def _moved_inline_guards(old: str, new: str) -> tuple[str, str, frozenset[str]]:
    """``old`` and ``new`` with every inline guard whose fallback the edit moved written as that fallback (the
    original's in ``old``, the moved one in ``new``), and the keywords they are passed as: the guard then judges the
    move as a move of a literal, and the inline guard is taken out (the new value, or a new guard, holds)."""
    if not may_hold_inline_guards(old):
        return old, new, frozenset()
    before, after = _inline_guard_args(old), _inline_guard_args(new)
    if not before or after is None or len(before) != len(after):
        return old, new, frozenset()
    old_splices: list[_Splice] = []
    new_splices: list[_Splice] = []
    names: set[str] = set()
    for (keyword, o_expr, o_start, o_end), (other, n_expr, n_start, n_end) in zip(before, after, strict=True):
        was, now = read_inline_guard(o_expr), read_inline_guard(n_expr)
        if keyword != other or was is None or now is None or was == now:
            continue
        if (was.tuned, was.test) != (now.tuned, now.test):
            continue  # the guard itself was edited: not a move of its fallback
        old_splices.append((o_start, o_end, str(was.fallback)))
        new_splices.append((n_start, n_end, str(now.fallback)))
        if keyword is not None:
            names.add(keyword)
    return _spliced(old, old_splices), _spliced(new, new_splices), frozenset(names)


def _spliced(text: str, splices: list[_Splice]) -> str:
    out, at = [], 0
    for start, end, piece in sorted(splices):
        out.append(text[at:start])
        out.append(piece)
        at = end
    out.append(text[at:])
    return "".join(out)


@kept_by_text
def _collected(source: str) -> _Collector | None:
    """``source``'s statements and functions (``None``: it does not parse), kept for the next call: a tuning session
    judges every candidate's write against the same original text (:func:`guard_edit` per candidate)."""
    try:
        tree = parsed(source)
    except cst.ParserSyntaxError:
        return None
    collector = _Collector(_line_starts(source), tree.positions)
    visit(tree.module, collector)
    return collector


def _rewrite(old: str, new: str, *, add: bool, ran_masked: Collection[tuple[str, str]] = ()) -> Guarded:
    """:func:`guard_edit` (``add``) and :func:`strip_stale_guards` (not ``add``: only the stale guards taken out).

    A guard an earlier edit wrote that the moved literals make stale is spliced out, and one the user wrote after a
    moved statement refuses a guard there (:func:`_stacked`). An edit that is no literal edit (tuned lines after a
    computed setting) is judged by the table rules (:func:`_tuned_tiles`, :func:`_uncovered_rows`). A literal edit:
    a helper's argument (:func:`_helper_argument`), each moved literal a launch requires something of
    (:func:`_launch_needs`; a module-level constant,
    :func:`_constant_refusal`), then the rules that read the whole file (:func:`_file_refusal`), then a guard a
    statement (:func:`_guard`), its test among :attr:`Guarded.tests`."""
    old, new, inline = _moved_inline_guards(old, new)
    old_collector = _collected(old)
    try:
        new_tree = parsed(new)
    except cst.ParserSyntaxError:
        return Guarded(new, None)  # not ours to judge: the edit's own checks say it
    if old_collector is None:
        return Guarded(new, None)
    pos = new_tree.positions
    new_collector = _Collector(_line_starts(new), pos)
    visit(new_tree.module, new_collector)
    jitted = {f.name.value: f for f in new_collector.functions if is_jit(f)}
    unmasked = {f.name.value: f for f in new_collector.functions if is_jit(f) and _masked(f, jitted) is False}
    kernels = {f.name.value: f for f in new_collector.functions if is_jit(f)}
    plain: dict[int, list[Divides]] = {}  # what each launching function requires, read once for both rules
    if len(old_collector.statements) != len(new_collector.statements):
        # not a literal edit: tuned lines after a computed setting (one value, or a table by size)
        needed: list[tuple[cst.If, str, str]] = []
        why = _tuned_tiles(old, new_collector, unmasked, pos, ran_masked, plain, needed) if add else None
        if why is not None:
            return Guarded(None, why)
        if needed:  # a tuned line over a literal: written where its tile divides the size too, re-judged so
            again = _rewrite(old, _with_conjuncts(new_tree.module, needed), add=add, ran_masked=ran_masked)
            said = "; ".join(dict.fromkeys({(id(node), test): why for node, test, why in reversed(needed)}.values()))
            return replace(again, note=f"{said}; {again.note}" if again.note else said)
        why = _uncovered_rows(old, new_collector, unmasked, pos, plain, ran_masked) if add else None
        why = why or (numel_refusal(_numel_text(old_collector), _numel_text(new_collector), pos) if add else None)
        return Guarded(None, why) if why is not None else Guarded(new, None)
    why = _helper_argument(old_collector, new_collector, unmasked, pos, kernels) if add else None
    if why is not None:
        return Guarded(None, why)
    requirements: dict[int, list[Divides]] = {}
    kept: dict[int, set[int]] = {}  # a launching function -> its count literals the edit left as they were
    splices: list[_Splice] = []
    notes: list[str] = []
    by_statement: dict[int, list[tuple[_Change, list[Divides]]]] = {}
    overridden: dict[int, cst.If] = {}  # a statement -> a conditional of the user's right after it
    changed = [
        (n, _changes(o, n, new_collector))
        for o, n in zip(old_collector.statements, new_collector.statements, strict=True)
    ]
    moves = {
        (id(c.function), tile): (c.before, c.after)
        for _, changes in changed
        for c in changes
        if c.function is not None
        for tile in _ids(c, c.function)
    }  # every tile the edit moved, for a product of tiles (v41)
    moved_all = {c.target for _, changes in changed for c in changes if c.target}
    for n, changes in changed:
        stale = _stale_guard(n[0], {c.target for c in changes if c.target}, new_collector, new, pos, moved_all)
        if stale is not None and stale not in splices:  # two moved settings above one table: one splice of it
            splices.append(stale)
        else:
            after = _overriding(n[0], {c.target for c in changes if c.target}, new_collector)
            if after is not None:
                overridden[id(n[0])] = after
        for change in changes if add else []:
            divides = change.after != 0 and change.before % change.after == 0  # `--set BLOCK=0`: a ZeroDivisionError
            if (divides and change.after >= change.before) or (change.function is not None and is_jit(change.function)):
                continue  # legal wherever the original was
            launchers = [change.function] if change.function is not None else new_collector.functions
            why = _constant_refusal(change, unmasked, kernels, divides=divides)
            if why is not None:
                return Guarded(None, why)
            for fn in launchers:
                if is_jit(fn):
                    continue
                if id(fn) not in requirements:
                    helpers = {f.name.value: f for f in new_collector.functions if not is_jit(f)}
                    requirements[id(fn)] = _requirements(
                        fn, unmasked, pos, kernels, helpers, new_collector.imported, _module_values(new_collector)
                    )
                    kept[id(fn)] = _kept_literals(old_collector.functions, new_collector.functions, fn)
                needs = _launch_needs(change, fn, requirements[id(fn)], kept[id(fn)], moves, new_collector)
                if isinstance(needs, str):
                    return Guarded(None, needs)
                if needs:
                    by_statement.setdefault(id(change.statement), []).append((change, needs))
    if add:
        reading = numel_reading(_numel_text(old_collector), _numel_text(new_collector), pos)
        numel_why = reading.refusal or _numel_guards(
            reading.ceilings, [c for _, cs in changed for c in cs], by_statement
        )
        _carry_copies(by_statement.values(), old_collector.functions, new_collector.functions)
        why = _file_refusal(old, old_collector, new_collector, by_statement, unmasked, kernels, ran_masked, numel_why)
        if why is not None:
            return Guarded(None, why)
    tests: list[str] = []
    for moved in by_statement.values():
        user_if = overridden.get(id(moved[0][0].statement))
        if user_if is not None:
            return Guarded(None, _stacked(moved, user_if, pos))
        splice, why = _guard(moved, new, pos, inline)
        if splice is None:
            return Guarded(None, why)
        splices += splice
        notes.append(why)
        tests.append(" and ".join(dict.fromkeys(_condition(needs, c.after) for c, needs in moved)))
    if not splices:
        return Guarded(new, None)
    return Guarded(_spliced(new, splices), "; ".join(dict.fromkeys(notes)) or None, tuple(tests))


def _constant_refusal(
    change: _Change,
    unmasked: Mapping[str, cst.FunctionDef],
    kernels: Mapping[str, cst.FunctionDef],
    *,
    divides: bool,
) -> str | None:
    """Why a module-level constant's move cannot be written (``divides``: its new value divides the old): a kernel
    without masks steps by it and it no longer divides every size (:func:`_stepped_by`), or a kernel covers a size
    with one block of it and it no longer covers (:func:`_covered_by`); no guard by a size can hold a module-level
    constant. ``None`` for a setting of a function, or a move both allow."""
    if change.function is not None or not change.target:
        return None
    stepped = _stepped_by(change.target, unmasked)
    if stepped is not None and not divides:
        return (
            f"{change.target}={change.after} does not divide every size the original "
            f"{change.target}={change.before} handled ({stepped}), and a module-level constant cannot be "
            "guarded by a size: not written"
        )
    covering = _covered_by(change.target, kernels)
    if covering is not None and not covering[1].holds(change.before, change.after):
        return (
            f"{change.target}={change.after} does not cover every size the original "
            f"{change.target}={change.before} handled ({covering[0]}), and a module-level constant cannot be "
            "guarded by a size: not written"
        )
    return None


def _file_refusal(
    old: str,
    old_collector: _Collector,
    new_collector: _Collector,
    by_statement: Mapping[int, list[tuple[_Change, list[Divides]]]],
    unmasked: Mapping[str, cst.FunctionDef],
    kernels: Mapping[str, cst.FunctionDef],
    ran_masked: Collection[tuple[str, str]],
    numel_why: str | None,
) -> str | None:
    """Why a plain edit with guards to add cannot be written, by the rules that read the whole file, old and new
    (a decorator's tiles, an unclamped group, strides past the grid, a stale copy of a tile or a buffer's stride, an
    uncovered row, a tile past its limit on values no guard keeps within it: ``numel_why``, :func:`_numel_guards`),
    then by each statement (a divisor no guard covers, ``by_statement``'s needs aside; a block passed by position);
    ``None`` when none refuses it."""
    pos = new_collector.positions
    old_fns, new_fns = old_collector.functions, new_collector.functions
    why = _decorator_tiles(old_fns, new_fns, unmasked, pos, new_collector.imported)
    why = why or _unclamped_groups(old_fns, new_fns)
    why = why or _strides_past_the_grid(old_fns, new_fns)
    why = why or _stale_copies(old_fns, new_fns, pos, _constants(new_collector))
    why = why or _stale_strides(old_fns, new_fns, pos)
    why = why or _uncovered_rows(old, new_collector, unmasked, pos, ran_masked=ran_masked)
    why = why or numel_why
    if why is not None:
        return why
    covered = {id(d.literal) for moved in by_statement.values() for _, needs in moved for d in needs}
    for (o, _), (n, fn) in zip(old_collector.statements, new_collector.statements, strict=True):
        why = _unguarded_divisor(o, n, fn, unmasked, covered, pos) or _positional_block(o, n, kernels)
        if why is not None:
            return why
    return None


def _numel_guards(
    ceilings: Sequence[Ceiling],
    changes: Sequence[_Change],
    by_statement: dict[int, list[tuple[_Change, list[Divides]]]],
) -> str | None:
    """Hand each guard the tile-size rule needs (``ceilings``, :func:`kernelopt.tunables.tile_numel.numel_reading`)
    to the moved literal it is for among ``changes``, as a need of its statement in ``by_statement`` (extended in
    place): ``if n_cols <= 1048576 // 32:`` over ``ROWS = 32``, the original's ``ROWS = 4`` the fallback. The line
    of the first that no moved literal sets (a module constant, a copy), else ``None``."""
    for ceiling in ceilings:
        change = next(
            (
                c
                for c in changes
                if c.function is not None
                and c.function.name.value == ceiling.function
                and ((c.keyword == ceiling.name and c.target is None) if ceiling.literal else c.target == ceiling.name)
            ),
            None,
        )
        if change is None:
            return ceiling.refusal
        tile = ("meta", ceiling.name) if ceiling.literal else ("name", ceiling.name)
        need = Divides(tile, cst.Name(ceiling.size), ceiling.line, ceiling.why, times=ceiling.times, most=ceiling.most)
        moved = by_statement.setdefault(id(change.statement), [])
        held = next((needs for c, needs in moved if c is change), None)
        if held is None:
            moved.append((change, [need]))
        else:
            held.append(need)
    return None


def _numel_text(collector: _Collector) -> NumelText:
    """One text's reading for the tile-size rule (:func:`kernelopt.tunables.tile_numel.numel_refusal`, v102)."""
    kernels = {f.name.value: f for f in collector.functions if is_jit(f)}
    return NumelText(collector.functions, kernels, _constants(collector))


def _launch_needs(
    change: _Change,
    fn: cst.FunctionDef,
    requirements: Sequence[Divides],
    kept: Collection[int],
    moves: Mapping[tuple[int, tuple[str, str]], tuple[int, int]],
    collector: _Collector,
) -> list[Divides] | str:
    """What launching function ``fn`` requires of the literal ``change`` moved that its new value does not meet where
    the original's did (each a size a guard tests), from ``fn``'s ``requirements`` (:func:`_requirements`; ``kept``:
    its count literals the edit left as they were, :func:`_kept_literals`; ``moves``: every tile the edit moved, for
    a product of tiles); or why no guard can be written (a line: a factor, a length or a size it does not read, or a
    place no guard by a size can hold)."""
    name = change.target or change.keyword
    mine = [
        d
        for d in requirements
        if d.tile in _ids(change, fn)
        and (d.literal is None or (_int(d.literal) == change.after and id(d.literal) not in kept))
    ]  # a grid's literal copy is this launch's when it moved with it (another launch's kept its value,
    # or another setting's that the moved one's new value equals: ``cdiv(N, 32)`` of BLOCK_N=32, v46)
    # a cover whose other factors kept values kernelopt does not read (a module constant, b5) still holds where
    # the moved tile grows: the same factors times a larger tile reach further
    mine = [
        d
        for d in mine
        if not (
            d.covers
            and d.factors
            and change.after >= change.before
            and all(f[0] == "name" and _fixed_block(fn, cst.Name(f[1])) for f in d.factors)
            and not any((id(fn), f) in moves for f in d.factors)
            and _with_partners(d, fn, moves) is None
        )
    ]
    resolved = [_with_partners(d, fn, moves) if d.factors else d for d in mine]
    if None in resolved:
        product = next(d for d, r in zip(mine, resolved, strict=True) if r is None)
        return (
            f"{name}={change.after} is one factor of a product a size is counted in ({product.why}), "
            "and kernelopt does not read the other factors' values, so no guard can be written: not "
            "written"
        )
    needs = [d for d in resolved if d is not None and not d.holds(change.before, change.after)]
    if change.function is fn and change.keyword is None:  # a literal's guard stands at its line (l72)
        launched_needs = _needs_at_launch(fn, change.statement, needs, needs, f"{name}={change.after}")
        if isinstance(launched_needs, str):
            return launched_needs
        needs = launched_needs
    unread_length = next((d for d in needs if d.covers and d.scale is None), None)
    if unread_length is not None:
        return (
            f"{name}={change.after} may not cover every size the original {name}={change.before} handled "
            f"({unread_length.why}), in a form kernelopt does not read, so no guard can be written: "
            "not written"
        )
    unread = next((d for d in needs if d.size is None), None)
    if unread is not None:
        return (
            f"{name}={change.after} {unread.fails} every size the original {name}={change.before} "
            f"handled ({unread.why}), and {unread.missing or 'no one kernel parameter is that size'}, so no guard "
            "can be written: not written"
        )
    if needs and change.entry:
        return (
            f"{change.keyword}={change.after} {needs[0].fails} every size the original "
            f"{change.keyword}={change.before} handled ({needs[0].why}), and an entry of a dict of "
            "settings is not guarded by a size: not written"
        )
    if needs and _conditional(change.statement):
        return (
            f"{name}={change.after} {needs[0].fails} every size the original {name}={change.before} "
            f"handled ({needs[0].why}), and a branch of a conditional expression is not guarded by a "
            "size (a guard would also move the other branches): not written"
        )
    if needs and change.function is None:
        where = (
            "a class attribute or a field of a settings class"
            if id(change.statement) in collector.class_level
            else "a module-level constant"
        )
        return (
            f"{name}={change.after} {needs[0].fails} every size the original {name}={change.before} "
            f"handled ({needs[0].why}), and {where} cannot be guarded by a size: not written"
        )
    return needs


def tile_checks(source: str) -> dict[str, list[Divides]]:
    """Tile name -> the host checks of ``source``'s launching functions that bound it by itself (``assert BLOCK <=
    1024``, ``assert BLOCK in SUPPORTED``, ``if BLOCK > MOST: raise``; :func:`_asserted_counts`, the guard's one
    reading of them): each holds at every size or at none, so a value that fails one (:meth:`Divides.holds` from the
    original's) fails wherever the original ran, and no write of it is made; a search need not time it either
    (wrongkernel31, v185: tune timed v158's 2048 up to 1048576 past ``assert BLOCK <= 1024``). A check is listed under
    the tile's name and each kernel parameter a launch passes it as (``assert block <= 1024`` beside ``BLOCK=block``).
    Empty where the text does not parse."""
    collector = _collected(source)
    if collector is None:
        return {}
    kernels = {f.name.value: f for f in collector.functions if is_jit(f)}
    helpers = {f.name.value: f for f in collector.functions if not is_jit(f)}
    module = _module_values(collector)
    out: dict[str, list[Divides]] = {}
    for fn in helpers.values():
        if not any(isinstance(n, cst.Assert | cst.Raise) or dotted(n) == "torch._assert" for n in walk(fn.body)):
            continue  # no check to read (the common launcher): nothing walked further
        calls = [
            (call, k)
            for _, call in _launch_calls(fn)
            if isinstance(call.func, cst.Subscript) and (k := kernels.get(dotted(call.func.value))) is not None
        ]
        launched = {tile for call, k in calls for tile in _launch_tiles(call, k)}
        passed_as: dict[tuple[str, str], set[str]] = {}  # a launcher's ``block`` passed as ``BLOCK=block``
        for call, k in calls:
            for param, value in _passed(call, k).items():
                if (tile := _tile_id(value)) is not None:
                    passed_as.setdefault(tile, set()).add(param)
        for d in _asserted_counts(fn, collector.positions, helpers, launched, module) if launched else ():
            if d.at_most is not None or d.at_least is not None or d.check is not None:
                for name in sorted({d.tile[1], *passed_as.get(d.tile, ())}):
                    out.setdefault(name, []).append(d)
    return out


def guarded_values(source: str) -> dict[str, int]:
    """Name -> value of every tile a guard written by :func:`guard_edit` sets in ``source`` (``if N % 64 == 0:  #
    kernelopt: tuned`` / ``BLOCK_N = 64`` gives ``{"BLOCK_N": 64}``); empty when it holds none (or does not parse).
    An inline guard at a launch (``BLOCK=256 if n % 256 == 0 else 128``) gives its keyword and tuned value. A later
    session reads them as the configuration the file runs wherever its guards hold."""
    if not may_hold_guards(source):
        return {}
    try:
        module = cst.parse_module(source)
    except cst.ParserSyntaxError:
        return {}
    out: dict[str, int] = {}
    for node in walk(module):
        guard = read_inline_guard(node.value) if isinstance(node, cst.Arg) and node.keyword is not None else None
        if guard is not None:
            assert isinstance(node, cst.Arg) and node.keyword is not None
            out.setdefault(node.keyword.value, guard.tuned)
    for node in walk(module):
        values = _guard_values(node) if isinstance(node, cst.If) else None
        for name, value in values or ():
            out.setdefault(name, value)
    return out


def _guard_values(node: cst.BaseStatement | None) -> list[tuple[str, int]] | None:
    """The (name, value) pairs a guard written by :func:`guard_edit` sets (``if M % 64 == 0:  # kernelopt: tuned``,
    or ``if n_cols <= 512:  # kernelopt: tuned`` for a block that covers a size, over assignments of integer
    literals, no ``else``); ``None`` for any other statement. A guard whose comment is gone is read by its form
    (:func:`~kernelopt.tunables.inline_guard.read_statement_guard`)."""
    if not isinstance(node, cst.If) or node.orelse is not None or not isinstance(node.body, cst.IndentedBlock):
        return None
    if not marked_tuned(node):
        return read_statement_guard(node)
    if not (_is_divisibility(node.test) or _is_cover(node.test)):
        return None
    out: list[tuple[str, int]] = []
    for stmt in node.body.body:
        pairs = _assignments(stmt) if isinstance(stmt, cst.SimpleStatementLine) else []
        values = [(name, _int(v)) for name, v in pairs]
        if not values or any(v is None for _, v in values):
            return None
        out += [(name, v) for name, v in values if v is not None]
    return out


def _tuned_tiles(
    old: str,
    collector: _Collector,
    unmasked: Mapping[str, cst.FunctionDef],
    pos: Positions,
    ran_masked: Collection[tuple[str, str]] = (),
    made: dict[int, list[Divides]] | None = None,
    needed: list[tuple[cst.If, str, str]] | None = None,
) -> str | None:
    """Why the ``# kernelopt: tuned`` lines an edit adds after a computed setting cannot be written: one sets a tile
    the launching function says must divide a size (a grid of ``n // block`` programs, a kernel without masks, an
    ``assert``), and the value it overrides is computed, so which sizes the original handled is known only at the
    sizes checked (a tuned ``block = 128`` under ``if n <= 5000:`` is wrong at 192 where the computation gave 64);
    ``None`` when none does. Lines the original already held are not judged again. ``ran_masked``: the (block,
    size) pairs whose one-block fill divisor evidence drops (:func:`guard_edit`); ``made``: :func:`_plain_requirements`
    made so far. A line under a tuned ``if`` that overrides a literal (``BLOCK_K = 32`` / ``if M <= 1000:  #
    kernelopt: tuned`` / ``BLOCK_K = 128``: the original handled the sizes its 32 divides) is no refusal: ``needed``
    gets the ``if``, the test that keeps it right (``K % 128 == 0``) and why, and a test that holds it already is
    judged right (newuser11: a GEMV's table with ``BLOCK_K=128`` in every row was refused as overriding a computed
    value, nothing written)."""
    helpers: list[cst.FunctionDef] | None = None  # :func:`_defs_alone`, read once
    for fn in collector.functions:
        if is_jit(fn):
            continue
        needs: list[Divides] | None = None
        for node, small, tile in _tuned_tile_lines(fn, old):
            if needs is None:
                needs = _plain_requirements(fn, collector, unmasked, pos, made)
            helpers = _defs_alone(collector) if helpers is None else helpers
            why = _tuned_tile_refusal(fn, node, small, tile, needs, ran_masked, needed, collector.class_defs, helpers)
            if why is not None:
                return why
    return None


def _tuned_tile_lines(
    fn: cst.FunctionDef, old: str
) -> Iterator[tuple[cst.If | cst.SimpleStatementLine, cst.Assign, tuple[str, str]]]:
    """Each integer a ``# kernelopt: tuned`` line of ``fn`` assigns to a tile (:func:`_tile_id`) that the original
    text ``old`` did not hold: the marked ``if`` (a table's row, no divisibility guard) or line it stands in, the
    assignment and the tile."""
    for node in walk(fn.body):
        if isinstance(node, cst.If) and marked_tuned(node) and not _is_divisibility(node.test):
            # a marked ``elif`` row is a node of its own: its lines are its, not the row's before it (leftovers21 l9:
            # a test the ``elif`` row needed was added to the first row too)
            rest = node.orelse if not (isinstance(node.orelse, cst.If) and marked_tuned(node.orelse)) else None
            lines = [
                n
                for n in (*walk(node.body), *(walk(rest) if rest is not None else ()))
                if isinstance(n, cst.SimpleStatementLine)
            ]
        elif isinstance(node, cst.SimpleStatementLine) and marked_tuned(node):
            lines = [node]
        else:
            continue
        for line in lines:
            if _code(line).strip() in old and _code(node).strip() in old:
                continue
            for small in line.body:
                if not isinstance(small, cst.Assign) or len(small.targets) != 1 or _int(small.value) is None:
                    continue
                tile = _tile_id(small.targets[0].target)
                if tile is not None:
                    yield node, small, tile


def _tuned_tile_refusal(
    fn: cst.FunctionDef,
    node: cst.If | cst.SimpleStatementLine,
    small: cst.Assign,
    tile: tuple[str, str],
    needs: Sequence[Divides],
    ran_masked: Collection[tuple[str, str]],
    needed: list[tuple[cst.If, str, str]] | None,
    classes: Sequence[cst.ClassDef] = (),
    functions: Sequence[cst.FunctionDef] = (),
) -> str | None:
    """Why the tuned assignment ``small`` of ``tile`` (in ``node``, of :func:`_tuned_tile_lines`) cannot be written
    against what ``fn`` says the tile must divide (``needs``), or ``None``; a row over a literal it may keep right
    with a divisibility test goes to ``needed`` (:func:`_tuned_tiles`). ``classes``, ``functions``: the file's, for a
    field a settings dataclass never changes (:func:`_settings_field_default`) and a helper returning literals
    (:func:`_helper_returns`)."""
    row = _Row(fn, node, small, tile, tuple(classes), tuple(functions))
    launched_needs = _read_at_launch(row, needs)
    if isinstance(launched_needs, str):
        return launched_needs
    needs = launched_needs
    unbounded = _unbounded_row(row, needs, needed) or _row_past_the_grid(row, needs, needed)
    if unbounded is not None:
        return unbounded
    for d in (d for d in needs if not d.covers and d.size is not None):  # a table's bound keeps a block covering
        if d.fills and not d.by_data and d.size is not None and (tile[1], _code(d.size)) in ran_masked:
            continue  # the original ran masked-out lanes at an entry and passed: harmless there
        if d.tile[1] == tile[1] and d.literal is None:
            target = _code(small.targets[0].target)
            fallbacks = _fallback_values(fn, target) if d.padded else []
            if fallbacks and all(d.holds(b, _int(small.value) or 0) for b in fallbacks):
                continue  # a divisor of the literal it overrides pads no further (u41's padded sizes)
            test = _plain_divisibility(d, _int(small.value))
            if isinstance(node, cst.If) and test is not None and test in _conjunct_codes(node.test):
                continue  # the row's test keeps the tile dividing the size
            if (
                needed is not None
                and isinstance(node, cst.If)
                and test is not None
                and _rows_alone(fn, node)
                and (d.host or _literal_fallback(fn, target))
            ):
                needed.append((node, test, f"{target}={_int(small.value)} only where {test} ({d.why})"))
                continue
            return _over_computed(target, _int(small.value), _code(d.size), d.why)
    return None


def _read_at_launch(row: _Row, needs: Sequence[Divides]) -> list[Divides] | str:
    """``needs`` with each size and count a requirement of the row's tile reads as the launch reads it (late38's l70:
    a size the launcher reassigns after the row, ``max_num_tokens = triton.cdiv(max_num_tokens, 64) * 64``, put as
    its reassignment, so a test the row holds reads the launch's value); why not, where a reassignment cannot be read
    (:func:`kernelopt.tunables.launch_value.value_at_launch`)."""
    mine = [d for d in needs if d.tile[1] == row.tile[1] and d.literal is None]
    return _needs_at_launch(row.fn, row.node, needs, mine, f"{row.target}={_int(row.small.value)}")


def _needs_at_launch(
    fn: cst.FunctionDef, node: cst.CSTNode, needs: Sequence[Divides], mine: Collection[Divides], setting: str
) -> list[Divides] | str:
    """``needs`` read as the launch reads them where a test is written at ``node`` of ``fn`` (a table's row, a
    literal's guard); why ``setting`` is not written where one of ``mine`` reads a reassignment no test can."""
    out: list[Divides] = []
    for d in needs:
        read = {
            field_name: value_at_launch(fn, node, expr)
            for field_name, expr in (("size", d.size), ("count", d.count))
            if expr is not None
        }
        unread = next((why for why in read.values() if isinstance(why, str)), None)
        if unread is not None and any(d is m for m in mine):
            return f"{setting} is bounded where it is set ({d.why}), but {unread}: not written"
        out.append(d if unread is not None else replace(d, **read))
    return out


@dataclass(frozen=True)
class _Row:
    """A tuned assignment of a tile (:func:`_tuned_tile_lines`): its launching function, the marked ``if`` (a table's
    row) or line it stands in, the assignment and the tile."""

    fn: cst.FunctionDef
    node: cst.If | cst.SimpleStatementLine
    small: cst.Assign
    tile: tuple[str, str]
    classes: tuple[cst.ClassDef, ...] = ()
    functions: tuple[cst.FunctionDef, ...] = ()

    @property
    def target(self) -> str:
        return _code(self.small.targets[0].target)


def _unbounded_row(
    row: _Row, needs: Sequence[Divides], needed: list[tuple[cst.If, str, str]] | None = None
) -> str | None:
    """Why a tuned assignment ``small`` of ``tile`` cannot be written where ``fn`` requires of it something no one size
    bounds (a count of tiles in a product on a grid's second axis, v89; a count or a padded size a host assert bounds,
    v93 and v97: ``d.size`` is ``None``) and its value does not meet it where the original's did: a table's row over
    one size (``if L <= 5000:`` / ``BLOCK = 256``) lets the other sizes grow as a plain value does (wrongkernel23's
    v104-v106: such rows were written, or the rule raised on them). ``None`` where it meets it or none is asked."""
    target, value = row.target, _int(row.small.value)
    for d in needs:
        if d.size is not None or d.tile[1] != row.tile[1] or d.literal is not None or value is None:
            continue
        before = _fallback_values(row.fn, target)
        if before and all(d.holds(b, value) for b in before):
            continue
        counted = _row_count(row, d)
        limit = f"{_code(counted).strip()} <= {d.count_most}" if counted is not None else None
        if (
            counted is not None
            and d.count_most is not None
            and isinstance(row.node, cst.If)
            and (limit in _conjunct_codes(row.node.test) or _bounds_size(row.node.test, counted, d.count_most))
        ):
            continue  # the row's test holds, or implies, the count's limit: a size past it falls to the next row
        if limit is not None and needed is not None and isinstance(row.node, cst.If) and _rows_alone(row.fn, row.node):
            needed.append((row.node, limit, f"{target}={value} only where {limit} ({d.why})"))
            continue
        where = f" where {_code(row.node.test)}" if isinstance(row.node, cst.If) else ""
        was = f"the original {target}={before[0]}" if before else "the original computation"
        return (
            f"{target}={value}{where} {d.fails} every size {was} handled ({d.why}), and no one kernel parameter "
            "is that size, so no row over a size can keep it: not written"
        )
    return None


def _targets(assign: cst.Assign) -> set[str]:
    """The names an assignment binds (``a``, ``a, b``)."""
    return {n.value for t in assign.targets for n in walk(t.target) if isinstance(n, cst.Name)}


def _row_count(row: _Row, d: Divides) -> cst.BaseExpression | None:
    """A count a table's row sets tiles of, as the row's test must keep it within its most (``d.count_most``: a grid
    axis's count of programs, a product of counts, ``triton.cdiv(max_num_tokens, BLOCK_M) * triton.cdiv(B.size(1),
    BLOCK_N)``: vLLM's batched MoE; a count a host assert bounds): the count with each tile the row sets as its value
    (``triton.cdiv(max_num_tokens, 16) * triton.cdiv(B.size(1), config["BLOCK_SIZE_N"])``). A local computed after
    the row stands as its one computation, with the row's tiles in it (``n_blocks = triton.cdiv(L, BLOCK)``: ``H *
    triton.cdiv(L, 256)``): a tile so computed has rows of its own that test the count again with the final tiles.
    ``None`` where a name is computed otherwise, or for a grid function's tile (``META["BLOCK_N"]``), which no test
    before the launch reads (configs24's c44)."""
    if d.count is None or not isinstance(row.node, cst.If) or not isinstance(row.node.body, cst.IndentedBlock):
        return None
    if any(isinstance(n, cst.Subscript) for n in walk(d.count)):
        return None
    bound = set(param_names(row.fn)) | {t for n in walk(row.fn.body) if isinstance(n, cst.Assign) for t in _targets(n)}
    known = _known_at(row.fn, row.node)
    later: dict[str, cst.BaseExpression] = {}  # a tile computed after the row: its computation, which its own row's
    for name in (_names(d.count) & bound) - known:  # test covers where a row of it sets another value
        computed = _untuned_values(row.fn, name)
        if len(computed) != 1 or not (_names(computed[0]) & bound) <= known:
            return None  # a module's name (``triton``) is known everywhere
        later[name] = computed[0]
    tiles: dict[str, cst.BaseExpression] = {
        small.targets[0].target.value: small.value
        for line in row.node.body.body
        if isinstance(line, cst.SimpleStatementLine)
        for small in line.body
        if isinstance(small, cst.Assign)
        and len(small.targets) == 1
        and isinstance(small.targets[0].target, cst.Name)
        and _int(small.value) is not None
    }
    later = {name: _parenthesized(_substituted(value, tiles)) for name, value in later.items()}  # ``n_blocks``'s tile
    return _substituted(d.count, {**later, **tiles})


def _row_past_the_grid(row: _Row, needs: Sequence[Divides], needed: list[tuple[cst.If, str, str]] | None) -> str | None:
    """Why a tuned assignment ``small`` of a smaller ``tile`` counted on a grid's second or third axis (v33's limit,
    ``N <= BLOCK_N * 65535``) cannot be written where the row's test bounds another size (a literal's table over
    ``M``, ``if M <= 64:`` / ``BLOCK_N = 256``: wrongkernel23's v107, written, a launch a GPU refuses past 256 * 65535
    columns): a row over a literal gets the limit's test as a conjunct (``needed``), as a divisibility is (a size it
    turns away falls to the next row or to the literal, right where the original was); else refused. ``None`` where
    the row's test, or the value, keeps the count within the limit."""
    fn, node, target, value = row.fn, row.node, row.target, _int(row.small.value)
    befores = _fallback_values(fn, target)
    if not befores and (default := _settings_field_default(fn, target, row.classes)) is not None:
        befores = [default]  # late56 l261: a frozen dataclass's field its builder never passes, the same everywhere
    if not befores:  # late56 l265: a helper of the file whose every return is literals (``match C:`` cases)
        befores = _helper_returns(fn, target, row.functions)
    for d in needs:
        if not (d.covers and d.scale == (GRID_AXIS_MOST, 1) and d.size is not None and d.tile[1] == row.tile[1]):
            continue
        if value is None or d.literal is not None or d.factors or (befores and all(d.holds(b, value) for b in befores)):
            continue
        if befores and not _names(d.size) <= _known_at(fn, node):
            continue  # a size computed after the row (v97's ``n_pad``): read no way here
        test = _condition([d], value)
        reach = d.reach(value * d.times)
        if not befores:  # a row over a computation (tablebound11's extend_attn: ``if Lq <= 48:`` / ``BLOCK_M = 16``
            # over a settings helper's 32 to 128, companion rows of its own): which sizes the computation's tiles
            # reach on the axis is unknown here, so a row whose test does not bound the counted size is refused
            # (wrongkernel24); one over it (``if Lq <= 48 and max_len_extend <= 1048560:``) holds
            bounded = isinstance(node, cst.If) and reach is not None and _bounds_size(node.test, d.size, reach)
            if bounded or not _names(d.size) <= _known_at(fn, node):
                continue
            # refusals23 (u31): the row and every row of the same test (the pick's other settings, tablebound11's
            # ``num_stages = 6``) get the limit's test, so a size it turns away runs the original whole
            companions = _companion_rows(fn, node) if isinstance(node, cst.If) else None
            if needed is not None and companions is not None:
                why = f"{target}={value} only where {test} ({d.why})"
                needed += [(row_if, test, why) for row_if in companions]
                continue
            return (
                f"{target}={value} over a computed value does not cover every size the computation handled "
                f"({d.why}), and its row's test does not bound {_code(d.size)} (`and {test}`, which a row over a "
                "computation gets only where it and every row of its test stand alone, no elif or else): not written"
            )
        if isinstance(node, cst.If) and (
            test in _conjunct_codes(node.test) or (reach is not None and _bounds_size(node.test, d.size, reach))
        ):
            continue  # the row's test keeps the count within the limit
        if needed is not None and isinstance(node, cst.If) and _rows_alone(fn, node):
            needed.append((node, test, f"{target}={value} only where {test} ({d.why})"))
            continue
        return (
            f"{target}={value} does not cover every size the original handled ({d.why}), and its row's test does not "
            f"bound {_code(d.size)}: not written"
        )
    return None


def _companion_rows(fn: cst.FunctionDef, node: cst.If) -> list[cst.If] | None:
    """``node`` and every other ``# kernelopt: tuned`` row of ``fn`` with the same test (a table's bound written over
    each setting a pick moved, tablebound11), where each is an ``if`` alone (:func:`_alone`): a test added to all of
    them turns a size away from the whole pick, to the original computation and literals, right wherever they were.
    ``None`` where one is a row of a chain (a size turned away would run the next row's settings, never checked at
    it)."""
    test = _code(node.test).strip()
    rows = [
        n
        for n in walk(fn.body)
        if isinstance(n, cst.If) and (n is node or (marked_tuned(n) and _code(n.test).strip() == test))
    ]
    return rows if all(_alone(fn, n) for n in rows) else None


def _known_at(fn: cst.FunctionDef, node: cst.CSTNode) -> set[str]:
    """The names bound where the top-level statement of ``fn`` that holds ``node`` starts: its parameters and the
    targets of the statements before it."""
    known = set(param_names(fn))
    for statement in cst.ensure_type(fn.body, cst.IndentedBlock).body:
        if any(n is node for n in walk(statement)):
            break
        known |= {n.value for n in walk(statement) if isinstance(n, cst.Name)}  # read or bound: known either way
    return known


def _over_computed(name: str, value: int | None, size: str | None, why: str) -> str:
    """Why a tuned ``name=value`` that must divide ``size`` (``why``) over a computed value is not written: which sizes
    the computation handled is known only at the sizes checked (:func:`_tuned_tiles`, a heuristic's rows)."""
    return (
        f"{name}={value} must divide {size} ({why}), and the value it overrides is computed: which sizes the "
        "computation handled is known only at the sizes checked, so a tuned value is not written"
    )


def _plain_divisibility(d: Divides, value: int | None) -> str | None:
    """The test that keeps a tile of ``value`` dividing ``d``'s size (``K % 128 == 0``), where ``d`` asks only that
    (no partner factor, no scale, not a size that must divide the tile); else ``None``."""
    if value is None or d.size is None or d.factors or d.times != 1 or d.divided or d.covers or d.scale != ONE:
        return None
    if value // d.per < 1:
        return None
    return f"{_code(_parenthesized(d.size))} % {value // d.per} == 0"


def _conjunct_codes(test: cst.BaseExpression) -> set[str]:
    """The code of each term of ``test`` joined by ``and`` (``M <= 1000 and K % 128 == 0``)."""
    if isinstance(test, cst.BooleanOperation) and isinstance(test.operator, cst.And) and not test.lpar:
        return _conjunct_codes(test.left) | _conjunct_codes(test.right)
    return {_code(test).strip()}


def _alone(fn: cst.FunctionDef, node: cst.If) -> bool:
    """Whether ``node`` is an ``if`` with no ``elif`` or ``else`` and no branch of another: a test added to it moves
    no size to another row."""
    return node.orelse is None and not any(isinstance(n, cst.If) and n.orelse is node for n in walk(fn.body))


def _rows_alone(fn: cst.FunctionDef, node: cst.If) -> bool:
    """Whether ``node`` is an ``if`` alone (:func:`_alone`) or a row of a chain of ``if`` / ``elif`` rows with no
    ``else``, over a literal (leftovers21 l9: a literal's table by size): a size a row's added test turns away falls to
    the next row, which holds its own test where its tile needs one, or to the literal, right where the original was."""
    if _alone(fn, node):
        return True
    last = node
    while isinstance(last.orelse, cst.If):
        last = last.orelse
    return last.orelse is None


def _literal_fallback(fn: cst.FunctionDef, target: str) -> bool:
    """Whether every assignment of ``target`` in ``fn`` outside a ``# kernelopt: tuned`` line is one integer literal
    (and there is one): the value a tuned line overrides is a literal, whose sizes the original handled are those it
    divides, so a divisibility test keeps the tuned value right; a computation is known only where it was checked."""
    return bool(_fallback_values(fn, target))


def _fallback_values(fn: cst.FunctionDef, target: str) -> list[int]:
    """The integers ``fn`` assigns ``target`` outside ``# kernelopt: tuned`` lines (:func:`_literal_fallback`), or
    empty where one of its assignments is no integer literal (a computation) or it is written in place."""
    values = _untuned_values(fn, target)
    writes = [n for n in walk(fn.body) if isinstance(n, cst.AugAssign) and _code(n.target) == target]
    ints = [_int(v) for v in values]
    return [] if writes or None in ints else [i for i in ints if i is not None]


def _settings_field_default(fn: cst.FunctionDef, target: str, classes: Sequence[cst.ClassDef]) -> int | None:
    """The integer ``target`` holds at every size where ``fn`` computes it once from a field of a settings object it
    binds once to a frozen dataclass of the file (``cfg = StencilTiles.for_width(W)`` / ``BLOCK_H = cfg.BLOCK_H``),
    the field has an integer default (``BLOCK_H: int = 8``) and no builder passes it: the class called with keywords
    alone, or a ``@classmethod`` whose every return is ``cls(...)`` so called; the class, the one of its name in the
    file, has no base, metaclass, other decorator, ``__init__`` nor ``__post_init__``, and binds the field once
    (review30 r100).
    ``None`` for anything else (breaker30's stencil_cfg: every literal ``BLOCK_H``, 8 included, was refused over "a
    computed value", late56 l261)."""
    values = _untuned_values(fn, target)
    if len(values) != 1 or not isinstance(read := values[0], cst.Attribute) or not isinstance(read.value, cst.Name):
        return None
    obj, field_name = read.value.value, read.attr.value
    binds = _untuned_values(fn, obj)
    if len(binds) != 1 or not isinstance(call := binds[0], cst.Call) or _bound_otherwise(fn, obj):
        return None
    if _handed_on(fn, obj):
        return None  # ``object.__setattr__(cfg, "BLOCK_H", 32)`` sets a frozen field (review30 r106)
    func = call.func
    method = func.attr.value if isinstance(func, cst.Attribute) else None
    owner = func.value if isinstance(func, cst.Attribute) else func
    if not isinstance(owner, cst.Name):
        return None
    named = [c for c in classes if c.name.value == owner.value]  # two (a ``hip`` branch's): which runs is unread
    if len(named) != 1 or (cls := named[0]).bases or cls.keywords or len(cls.decorators) != 1:
        return None  # a base, a metaclass or another decorator may set the field otherwise (review30 r100)
    if not _frozen_dataclass(cls) or not isinstance(cls.body, cst.IndentedBlock):
        return None
    methods = {m.name.value: m for m in cls.body.body if isinstance(m, cst.FunctionDef)}
    if "__post_init__" in methods or "__init__" in methods:
        return None
    if method is None:
        builds = [call]
    else:
        built = methods.get(method)
        if built is None or not any(_code(d.decorator).strip() == "classmethod" for d in built.decorators):
            return None
        returns = [n.value for n in walk(built.body) if isinstance(n, cst.Return)]
        builds = [r for r in returns if isinstance(r, cst.Call) and _code(r.func).strip() in ("cls", owner.value)]
        if not returns or len(builds) != len(returns):
            return None
    if any(a.keyword is None or a.keyword.value == field_name for b in builds for a in b.args):
        return None  # a positional argument or a splat may set the field; one naming it does
    binds_field = [  # every binding of the field in the class body: a later ``BLOCK_H = 16`` is the default (r100)
        stmt
        for line in cls.body.body
        if isinstance(line, cst.SimpleStatementLine)
        for stmt in line.body
        if (isinstance(stmt, cst.AnnAssign) and _code(stmt.target).strip() == field_name)
        or (isinstance(stmt, cst.Assign) and any(field_name in _names(t.target) for t in stmt.targets))
    ]
    lines = cls.body.body
    if field_name in methods or any(not isinstance(line, cst.SimpleStatementLine | cst.FunctionDef) for line in lines):
        return None  # a property of the name, or a binding under an ``if`` of the class body
    if len(binds_field) != 1 or not isinstance(only := binds_field[0], cst.AnnAssign) or only.value is None:
        return None
    return _int(only.value)


def _defs_alone(collector: _Collector) -> list[cst.FunctionDef]:
    """The functions of the file whose name nothing but their ``def`` binds: no assignment (``_tiles = lambda c:
    (4, 1024)``), import or ``global`` of the name anywhere, so a call of the name runs that ``def`` (review30 r101:
    l265's :func:`_helper_returns` read the ``def``'s returns where a later binding ran)."""
    bound: set[str] = set(collector.rebound) | set(collector.globals) | set(collector.imported)
    for line, _ in collector.statements:
        for stmt in line.body:
            if isinstance(stmt, cst.Assign):
                bound |= {n for t in stmt.targets for n in _names(t.target)}
            elif isinstance(stmt, cst.AnnAssign | cst.AugAssign):
                bound |= _names(stmt.target)
            elif isinstance(stmt, cst.Import | cst.ImportFrom) and not isinstance(stmt.names, cst.ImportStar):
                bound |= {_code(a.asname.name if a.asname else a.name).strip().split(".")[0] for a in stmt.names}
            elif isinstance(stmt, cst.ImportFrom):
                return []  # ``from m import *`` may bind any name
    return [f for f in collector.functions if f.name.value not in bound]


def _helper_returns(fn: cst.FunctionDef, target: str, functions: Sequence[cst.FunctionDef]) -> list[int]:
    """Every integer ``target`` can hold where ``fn`` binds it once, outside tuned lines, from a call of a function of
    the file (``BLOCK_R, BLOCK_C = _tiles(C)``, ``BLOCK = _pick(N)``) whose every ``return`` gives it an integer
    literal (``return 4, 256`` in each ``case`` of a ``match C:``): the values the computation gives at some size,
    which a literal over it is judged against as over a literal's. Empty for anything else: a name bound otherwise
    or more than once, a helper that returns a computed value, or none (breaker30's scatter_rows: every literal
    ``BLOCK_C``, 256 and 512 too, was refused over "a computed value", 19 of the session's 24 candidates set aside
    untimed; late56 l265)."""
    tuned: set[int] = set()
    for node in walk(fn.body):
        if isinstance(node, cst.If | cst.SimpleStatementLine) and marked_tuned(node):
            tuned |= {id(n) for n in walk(node)}
    binds = [
        (n, t.target)
        for n in walk(fn.body)
        if isinstance(n, cst.Assign) and id(n) not in tuned
        for t in n.targets
        if target in _names(t.target)
    ]
    if len(binds) != 1 or _bound_otherwise(fn, target) or _untuned_annotated(fn, target):
        return []
    assign, bound = binds[0]
    if not isinstance(call := assign.value, cst.Call) or not isinstance(call.func, cst.Name):
        return []
    if isinstance(bound, cst.Name):
        index = None
    elif isinstance(bound, cst.Tuple | cst.List) and all(isinstance(e.value, cst.Name) for e in bound.elements):
        names = [e.value.value for e in bound.elements if isinstance(e.value, cst.Name)]
        if names.count(target) != 1 or any(isinstance(e, cst.StarredElement) for e in bound.elements):
            return []
        index = names.index(target)
    else:
        return []
    helpers = [f for f in functions if f.name.value == call.func.value]
    if len(helpers) != 1 or helpers[0].decorators or is_jit(helpers[0]):
        return []
    returns = [n.value for n in walk(helpers[0].body) if isinstance(n, cst.Return)]
    values: list[int] = []
    for r in returns:
        if index is None:
            got = _int(r) if r is not None else None
        elif isinstance(r, cst.Tuple) and len(r.elements) == len(bound.elements):
            got = _int(r.elements[index].value)
        else:
            got = None
        if got is None:
            return []
        values.append(got)
    return sorted(set(values))


def _untuned_annotated(fn: cst.FunctionDef, target: str) -> bool:
    """Whether ``fn`` binds ``target`` by an annotated assignment (``BLOCK: int = 64``)."""
    return any(isinstance(n, cst.AnnAssign) and _code(n.target).strip() == target for n in walk(fn.body))


def _handed_on(fn: cst.FunctionDef, name: str) -> bool:
    """Whether ``fn`` reads ``name`` other than as the object of an attribute read (``cfg.BLOCK_H``) or its one
    assignment's target: handed to a call (``object.__setattr__(cfg, ...)``, a helper), returned or put in a value."""
    attributes = {id(n.value) for n in walk(fn.body) if isinstance(n, cst.Attribute)}
    targets = {id(t.target) for n in walk(fn.body) if isinstance(n, cst.Assign) for t in n.targets}
    return any(
        isinstance(n, cst.Name) and n.value == name and id(n) not in attributes and id(n) not in targets
        for n in walk(fn.body)
    )


def _frozen_dataclass(cls: cst.ClassDef) -> bool:
    """Whether ``cls`` is decorated ``@dataclass(frozen=True)`` (or ``@dataclasses.dataclass(frozen=True)``)."""
    for d in cls.decorators:
        dec = d.decorator
        if isinstance(dec, cst.Call) and _code(dec.func).strip() in ("dataclass", "dataclasses.dataclass"):
            frozen = [a for a in dec.args if a.keyword is not None and a.keyword.value == "frozen"]
            return len(frozen) == 1 and _code(frozen[0].value).strip() == "True"
    return False


def _bound_otherwise(fn: cst.FunctionDef, name: str) -> bool:
    """Whether ``fn`` binds ``name`` other than by one plain assignment: a parameter, a loop's, ``with``'s or walrus's
    target, an augmented assignment, a ``global`` or ``nonlocal``, or a ``del``."""
    if name in param_names(fn):
        return True
    for n in walk(fn.body):
        if isinstance(n, cst.For) and name in _names(n.target):
            return True
        if isinstance(n, cst.WithItem) and n.asname is not None and name in _names(n.asname.name):
            return True
        if isinstance(n, cst.NamedExpr) and _code(n.target).strip() == name:
            return True
        if isinstance(n, cst.AugAssign | cst.Del) and name in _names(n.target):
            return True
        if isinstance(n, cst.Global | cst.Nonlocal) and any(x.name.value == name for x in n.names):
            return True
    return False


def _untuned_values(fn: cst.FunctionDef, target: str) -> list[cst.BaseExpression]:
    """The values ``fn`` assigns ``target`` outside ``# kernelopt: tuned`` lines (an annotated literal too: Unsloth's
    ``BLOCK_SIZE: int = 4096``, leftovers21 l9)."""
    tuned: set[int] = set()
    for node in walk(fn.body):
        if isinstance(node, cst.If) and marked_tuned(node):
            tuned |= {id(n) for n in walk(node.body)}
        elif isinstance(node, cst.SimpleStatementLine) and marked_tuned(node):
            tuned |= {id(n) for n in walk(node)}
    values = [
        n.value
        for n in walk(fn.body)
        if isinstance(n, cst.Assign)
        and id(n) not in tuned
        and any(_code(t.target).strip() == target for t in n.targets)
    ]
    return values + [
        n.value
        for n in walk(fn.body)
        if isinstance(n, cst.AnnAssign) and n.value is not None and id(n) not in tuned and _code(n.target) == target
    ]


class _Conjoined(cst.CSTTransformer):
    def __init__(self, needed: Sequence[tuple[cst.If, str, str]]) -> None:
        super().__init__()
        self.tests: dict[int, list[str]] = {}
        for node, test, _ in needed:
            self.tests.setdefault(id(node), []).append(test)

    def leave_If(self, original_node: cst.If, updated_node: cst.If) -> cst.If:
        tests = list(dict.fromkeys(self.tests.get(id(original_node), [])))
        if not tests:
            return updated_node
        left = updated_node.test
        if isinstance(left, cst.BooleanOperation) and not isinstance(left.operator, cst.And):
            left = left.with_changes(lpar=[cst.LeftParen()], rpar=[cst.RightParen()])
        for test in tests:
            left = cst.BooleanOperation(left=left, operator=cst.And(), right=cst.parse_expression(test))
        return updated_node.with_changes(test=left)


def _with_conjuncts(module: cst.Module, needed: Sequence[tuple[cst.If, str, str]]) -> str:
    """``module``'s text with each ``if`` of ``needed`` testing its divisibility too (``if M <= 1000 and K % 128 ==
    0:  # kernelopt: tuned``)."""
    return module.visit(_Conjoined(needed)).code


def _plain_requirements(
    fn: cst.FunctionDef,
    collector: _Collector,
    unmasked: Mapping[str, cst.FunctionDef],
    pos: Positions,
    made: dict[int, list[Divides]] | None,
) -> list[Divides]:
    """:func:`_requirements` of the launching function ``fn`` of ``collector``'s text, with its kernels and the
    module's other functions as helpers (as a plain pick's guard reads them: a table's row over a buffer a helper
    makes was read without them, and `tune` wrote v128's row of 4096 unguarded, wrongkernel26), made once per
    function for the rules that ask it of one text (``made``, by the function's id; ``None``: made afresh): a tuned
    table's lines and its rows (:func:`_tuned_tiles`, :func:`_uncovered_rows`)."""
    if made is not None and id(fn) in made:
        return made[id(fn)]
    kernels = {f.name.value: f for f in collector.functions if is_jit(f)}
    helpers = {f.name.value: f for f in collector.functions if not is_jit(f)}
    found = _requirements(fn, unmasked, pos, kernels, helpers, collector.imported, _module_values(collector))
    if made is not None:
        made[id(fn)] = found
    return found


def _uncovered_rows(
    old: str,
    collector: _Collector,
    unmasked: Mapping[str, cst.FunctionDef],
    pos: Positions,
    made: dict[int, list[Divides]] | None = None,
    ran_masked: Collection[tuple[str, str]] = (),
) -> str | None:
    """Why a tuned table cannot be written: a row sets a block its kernel covers a size with (``cols < N``) and its
    test does not keep the block covering it; ``None`` when every row does. A row ``if R <= 32:  # kernelopt:
    tuned`` / ``BLOCK = 128`` after a computed ``BLOCK`` (or a heuristic's ``128 if args["R"] <= 32 else
    <computation>``) holds only where one block of 128 covers ``N``: a bound over another size holds that only
    where the computation rises with it, and one that falls (``4096 // next_power_of_2(R)``, a budget the rows
    share) gave larger blocks below the sizes checked (variants v32). A row whose test bounds that size (``N <=
    128``), or bounds the computation itself at most the row's value (``128 if _block(args) <= 128 else
    _block(args)``: the original covers wherever it ran, so a block at least its value does), holds. Rows the
    original held are not judged again; a grid axis' limit of programs (:func:`_grid_axis_limits`) is not asked of
    a row (a computed block's row is most often the computation's own value at the sizes checked)."""
    kernels = {f.name.value: f for f in collector.functions if is_jit(f)}
    for fn in collector.functions:
        if is_jit(fn):
            why = _uncovered_lambda_rows(fn, kernels, collector.imported, old, ran_masked)
            if why is not None:
                return why
            continue
        needs: list[Divides] | None = None
        for node in walk(fn.body):
            if not (isinstance(node, cst.If) and marked_tuned(node) and not _is_divisibility(node.test)):
                continue
            if _code(node).strip() in old or not isinstance(node.body, cst.IndentedBlock):
                continue
            for line in node.body.body:
                for name, value in _assignments(line) if isinstance(line, cst.SimpleStatementLine) else []:
                    v = _int(value)
                    if v is None:
                        continue
                    if needs is None:
                        needs = _plain_requirements(fn, collector, unmasked, pos, made)
                    covering = (d for d in needs if d.covers and d.scale != (GRID_AXIS_MOST, 1))  # not v33's limit
                    for d in (d for d in covering if d.tile == ("name", name) and d.literal is None):
                        reach = d.reach(v)
                        if d.size is None:
                            continue  # a size the comparison does not name: not read, as before
                        if reach is None or not _bounds_size(node.test, d.size, reach):
                            return _uncovered(name, v, _code(node.test), d.why)
    return None


def _uncovered(name: str, value: int, test: str, why: str) -> str:
    return (
        f"{name}={value} where {test} may not cover every size the original computation handled ({why}), and a "
        f"row's bound over another size keeps it covering only where the computation rises with that size: not "
        "written"
    )


def _uncovered_lambda_rows(
    kernel: cst.FunctionDef,
    kernels: Mapping[str, cst.FunctionDef],
    imported: Collection[str],
    old: str,
    ran_masked: Collection[tuple[str, str]] = (),
) -> str | None:
    """:func:`_uncovered_rows` for the tables in ``kernel``'s ``@triton.heuristics``: each row ``V if <test>`` of
    a lambda over a block the kernel covers a size with must bound ``args["N"]`` (the lambda's own parameter
    name) or the computation the table falls back on. A block whose masked-out lanes the kernel reads as data
    (:func:`_lambda_fill`, v36's rule as :func:`_tuned_tiles` asks it of a launching function's) takes no row."""
    covering: dict[str, OneBlock] | None = None
    filled: tuple[set[str], set[str]] | None = None
    for decorator in kernel.decorators:
        for node in walk(decorator.decorator):
            if not (isinstance(node, cst.DictElement) and isinstance(node.key, cst.SimpleString)):
                continue
            if not (isinstance(node.value, cst.Lambda) and isinstance(node.value.body, cst.IfExp)):
                continue
            if _code(node.value.body).strip() in old or not params_of(node.value):
                continue
            if covering is None:
                covering = {r.block: r for r in one_block(kernel, kernels, imported)}
            key = str(node.key.evaluated_value)
            reading = covering.get(key)
            if reading is None:
                continue
            args = param_names(node.value)[0]
            source = reading.bound if reading.bound is not None else cst.Name(reading.size or "_")
            names = {n.value for n in walk(source) if isinstance(n, cst.Name)}
            given = {n: cst.parse_expression(f'{args}["{n}"]') for n in names}
            size = cst.ensure_type(source.visit(Substitute(given)), cst.BaseExpression)
            covers = _code(source) if reading.size is not None else "a size"
            why = f"the kernel {kernel.name.value} covers {covers} with one block of {key} ({reading.test})"
            rows: list[cst.IfExp] = []
            fallback: cst.BaseExpression = node.value.body
            while isinstance(fallback, cst.IfExp):
                rows.append(fallback)
                fallback = fallback.orelse
            if filled is None:
                filled = _lambda_fill(kernel, kernels, imported)
            fill = _lambda_fill_why(key, reading, filled, ran_masked, why, _code(size))
            row_values = [v for row in rows if (v := _int(row.body)) is not None]
            if fill is not None and row_values:
                return _over_computed(key, row_values[0], reading.size, fill)
            for row in rows:
                v = _int(row.body)
                if v is None or reading.size is None or _bounds_size(row.test, fallback, v):
                    continue  # over the computation itself, at most the row's value; or a size not read
                reach = reading.reach(v)
                if reach is None or not _bounds_size(row.test, size, reach):
                    return _uncovered(key, v, _code(row.test), why)
    return None


def _lambda_fill(
    kernel: cst.FunctionDef, kernels: Mapping[str, cst.FunctionDef], imported: Collection[str]
) -> tuple[set[str], set[str]]:
    """The blocks of ``kernel`` one of its accesses leaves unchecked (its masked-out lanes read as data among
    them), and those whose lanes meet a max or min as a fixed value (:func:`~kernelopt.tunables.blocks.
    filled_by_data`); a heuristic knows no launch, so every ``if FLAG:`` branch is left out, as ``flags=None``."""
    unchecked = unchecked_blocks(kernel, helpers=kernels, external=imported)
    return unchecked, filled_by_data(kernel, kernels) & unchecked


def _lambda_fill_why(
    key: str,
    reading: OneBlock,
    filled: tuple[set[str], set[str]],
    ran_masked: Collection[tuple[str, str]],
    why: str,
    given: str,
) -> str | None:
    """Why a heuristic's one-block ``key`` must fill its size (v36's rule, ``why`` its cover), or ``None``: it is
    checked by every access, or the original ran masked-out lanes at an entry and passed (``ran_masked``, the size
    named as the kernel does or as the lambda reads it, ``given``: ``args["n_cols"]``), which a max or min over a
    fixed fill does not lift."""
    unchecked, by_data = filled
    if key not in unchecked or reading.scale != ONE or reading.size is None:
        return None
    if key in by_data:
        return f"{why}, {BY_DATA_FILL}"
    if (key, reading.size) in ran_masked or (key, given) in ran_masked:
        return None
    return f"{why}, {DATA_FILL}"


def _bounds_size(test: cst.BaseExpression, size: cst.BaseExpression, most: int) -> bool:
    """Whether ``test`` holds only where ``size`` is at most ``most``: a conjunct ``x <= u`` (or ``x < u``, ``u``
    an integer, ``1024 // 2`` and the like read) where ``size`` is ``x`` or rises with it alone (``x // 2``, ``2 *
    x + 1``), its value at ``u`` at most ``most``."""
    for conjunct in conjuncts(test):
        if not (isinstance(conjunct, cst.Comparison) and len(conjunct.comparisons) == 1):
            continue
        op, upto = conjunct.comparisons[0].operator, _evaluated(conjunct.comparisons[0].comparator)
        if upto is None or not isinstance(op, cst.LessThanEqual | cst.LessThan):
            continue
        upto -= 1 if isinstance(op, cst.LessThan) else 0
        at = _rising_at(size, _code(conjunct.left).strip().strip("()"), upto)
        if at is not None and at <= most:
            return True
    return False


def _rising_at(expr: cst.BaseExpression, x: str, value: int) -> int | None:
    """``expr``'s value where the expression whose text is ``x`` is ``value``, when ``expr`` is it or rises with it
    alone (integer constants beside it: ``x // 2``, ``2 * x``, ``x + 1``, a count of tiles of a positive integer,
    ``triton.cdiv(x, 128)``, and a ``max`` or ``min`` of such and integers: leftovers25's l80); ``None``
    otherwise."""
    if _code(expr).strip().strip("()") == x:
        return value
    if (counted := ceil_count(expr)) is not None:
        at, tile = _rising_at(counted[0], x, value), _evaluated(counted[1])
        return -(-at // tile) if at is not None and tile is not None and tile > 0 else None
    if isinstance(expr, cst.Call) and dotted(expr.func) in ("max", "min") and expr.args:
        if any(a.keyword is not None or a.star for a in expr.args):
            return None
        values = [v if (v := _evaluated(a.value)) is not None else _rising_at(a.value, x, value) for a in expr.args]
        known = [v for v in values if v is not None]
        if len(known) < len(values):
            return None
        return max(known) if dotted(expr.func) == "max" else min(known)
    if not isinstance(expr, cst.BinaryOperation):
        return None
    left, right = expr.left, expr.right
    rising_left = (cst.Multiply, cst.FloorDivide, cst.Add, cst.Subtract, cst.LeftShift, cst.RightShift)
    if isinstance(expr.operator, rising_left) and (k := _evaluated(right)) is not None and k >= 0:
        at = _rising_at(left, x, value)
        if at is None:
            return None
        return (
            _evaluated(cst.BinaryOperation(cst.Integer(str(at)), expr.operator, cst.Integer(str(k))))
            if at >= 0
            else None
        )
    if isinstance(expr.operator, cst.Multiply | cst.Add) and (k := _evaluated(left)) is not None and k >= 0:
        at = _rising_at(right, x, value)
        return None if at is None else (k * at if isinstance(expr.operator, cst.Multiply) else k + at)
    return None


def _evaluated(expr: cst.BaseExpression) -> int | None:
    """The integer ``expr`` is (``1024 // 2``, ``256 * 2``), ``None`` for anything but integer arithmetic: the one
    evaluator (:func:`kernelopt.tunables.arithmetic.integer_value`) with the operators a bound was always read with.
    A shift by more than :data:`~kernelopt.tunables.arithmetic.POWER_MOST` is not known: unbounded, a file's
    ``n <= 1 << (1 << 36)`` took 21 s and gigabytes to read (evaluators16's find)."""
    return integer_value(expr, operators=BOUND_OPERATORS, calls=())


def _is_cover(test: cst.BaseExpression) -> bool:
    """``n_cols <= 512`` (``n_cols <= 1024 // 2`` for a range derived from the block), or several joined by ``and``:
    the guard of a block that covers a size."""
    if isinstance(test, cst.BooleanOperation) and isinstance(test.operator, cst.And):
        return _is_cover(test.left) and _is_cover(test.right)
    return (
        isinstance(test, cst.Comparison)
        and len(test.comparisons) == 1
        and isinstance(test.comparisons[0].operator, cst.LessThanEqual)
        and bound_block(test.comparisons[0].comparator) is not None
    )


def _is_divisibility(test: cst.BaseExpression) -> bool:
    """``a % 64 == 0``, or several joined by ``and``."""
    if isinstance(test, cst.BooleanOperation) and isinstance(test.operator, cst.And):
        return _is_divisibility(test.left) and _is_divisibility(test.right)
    return (
        isinstance(test, cst.Comparison)
        and len(test.comparisons) == 1
        and isinstance(test.comparisons[0].operator, cst.Equal)
        and _int(test.comparisons[0].comparator) == 0
        and isinstance(test.left, cst.BinaryOperation)
        and isinstance(test.left.operator, cst.Modulo)
    )


def _overriding(statement: cst.SimpleStatementLine, moved: set[str], collector: _Collector) -> cst.If | None:
    """The ``if`` right after ``statement`` that sets one of the names ``moved`` again, when it is no guard an edit
    wrote (:func:`_guard_values`): a conditional override of the user's (``if n_cols <= 512:`` / ``BLOCK = 1024``,
    a guard of an older form whose comment the user deleted among them); ``None`` otherwise."""
    after = collector.next_of.get(id(statement)) if moved else None
    if not isinstance(after, cst.If) or _guard_values(after) is not None:
        return None
    sets = {
        t.target.value
        for node in walk(after)
        if isinstance(node, cst.Assign)
        for t in node.targets
        if isinstance(t.target, cst.Name)
    }
    return after if sets & moved else None


def _stacked(moved: list[tuple[_Change, list[Divides]]], user_if: cst.If, pos: Positions) -> str:
    """Why a guard is not written above a conditional of the user's that sets the same name (it would stack: the
    user's, later, wins wherever both hold, so the tuned value would not run there)."""
    change, needs = moved[0]
    name = change.target or change.keyword
    test = cst.Module([]).code_for_node(user_if.test)
    return (
        f"{name}={change.after} {needs[0].fails} every size the original {name}={change.before} handled "
        f"({needs[0].why}), and the conditional at line {pos[user_if].start.line} (`if {test}:`) sets {name} again "
        "right after it: a guard written there would be stacked on it and overridden where both hold, so it is kept "
        f"as yours: not written (if an earlier tune wrote it, put back its `# {TUNED}` comment to have it replaced)"
    )


def _stale_guard(
    statement: cst.SimpleStatementLine,
    moved: set[str],
    collector: _Collector,
    new: str,
    pos: Positions,
    moved_all: set[str] | None = None,
) -> _Splice | None:
    """The splice that takes the names ``moved`` out of the guard right after ``statement`` (the whole guard when
    it sets nothing else), or the names ``moved_all`` (every name the edit moves, ``moved`` by default) out of the
    per-bucket table after it (:func:`_stale_table`); ``None`` when no guard there sets one of them."""
    after = collector.next_of.get(id(statement)) if moved else None
    table = _stale_table(statement, moved, moved_all or moved, collector, new, pos)
    if table is not None:
        return table
    values = _guard_values(after)
    if after is None or values is None or not moved & {name for name, _ in values}:
        return None
    starts = _line_starts(new)
    rng = pos[after]
    start, end = starts[rng.start.line - 1], starts[rng.end.line]
    kept = [(name, v) for name, v in values if name not in moved]
    if not kept:
        return (start, end, "")
    header = new[start : starts[rng.start.line]]
    body_line = new[starts[rng.start.line] : starts[rng.start.line + 1]]
    indent = body_line[: len(body_line) - len(body_line.lstrip())]
    names = ", ".join(name for name, _ in kept)
    return (start, end, f"{header}{indent}{names} = {', '.join(str(v) for _, v in kept)}\n")


def _stale_table(
    statement: cst.SimpleStatementLine,
    moved: set[str],
    moved_all: set[str],
    collector: _Collector,
    new: str,
    pos: Positions,
) -> _Splice | None:
    """The splice that takes the names ``moved_all`` out of the per-bucket table an edit wrote (:func:`_table_rows`)
    after ``statement``, past the other literal settings between them (``BLOCK = 128`` / ``num_warps = 4`` / the
    table), when ``statement`` sets a name ``moved`` that the table sets: the whole table when it sets nothing else,
    else each row without them (a row left with nothing: ``pass``, so the sizes it holds keep the fallback's other
    settings, not the next row's). A candidate moving BLOCK alone under a table of BLOCK and num_warps kept the table,
    which ran its BLOCK at every size it reaches: the candidate was timed as the table (newuser19's n126 covered a
    table of one name only; late27, z53). Every statement of one edit that finds the table gives the same splice."""
    after = collector.next_of.get(id(statement)) if moved else None
    while isinstance(after, cst.SimpleStatementLine) and all(
        (pairs := literal_settings(small)) and not {name for name, _ in pairs} & moved_all for small in after.body
    ):
        after = collector.next_of.get(id(after))
    rows = _table_rows(after)
    table = {name for _, settings in rows or [] for name, _ in settings}
    if after is None or rows is None or not table & moved:
        return None
    starts = _line_starts(new)
    rng = pos[after]
    start, end = starts[rng.start.line - 1], starts[rng.end.line]
    if table <= moved_all:
        return (start, end, "")
    text = []
    for branch, settings in rows:
        body = branch.body
        assert isinstance(body, cst.IndentedBlock)
        first = pos[body.body[0]].start.line
        text.append(new[starts[pos[branch].start.line - 1] : starts[first - 1]])  # its `if`/`elif` line, as written
        line = new[starts[first - 1] : starts[first]]
        indent = line[: len(line) - len(line.lstrip())]
        kept = [(name, v.value) for name, v in settings if name not in moved_all]
        text += [f"{indent}{name} = {value}\n" for name, value in kept] or [f"{indent}pass\n"]
    return (start, end, "".join(text))


def _table_rows(node: cst.BaseStatement | None) -> list[tuple[cst.If, list[tuple[str, cst.Integer]]]] | None:
    """The rows of a per-bucket table an edit wrote (``if n <= 1000:  # kernelopt: tuned`` / ``BLOCK = 1024`` /
    ``elif n <= 4096:  # kernelopt: tuned`` / ``BLOCK = 4096``), each branch with its settings: an ``if`` with one
    ``elif`` or more, each branch marked, its body integer literal settings (or ``pass``, a row a candidate emptied:
    :func:`_stale_table`), no ``else``; ``None`` for any other statement. (A single row is a guard,
    :func:`_guard_values`.) The literal above it is the fallback, run only above its rows: a candidate that moves a
    name the table sets runs its value at every size with the table spliced out of it (newuser19 n126: the table
    kept, every entry ran its rows and the session timed one kernel again and again)."""
    if not isinstance(node, cst.If) or not isinstance(node.orelse, cst.If):
        return None
    rows: list[tuple[cst.If, list[tuple[str, cst.Integer]]]] = []
    branch: cst.BaseStatement | cst.BaseSuite | None = node
    while isinstance(branch, cst.If):
        if not marked_tuned(branch) or not isinstance(branch.body, cst.IndentedBlock):
            return None
        settings: list[tuple[str, cst.Integer]] = []
        for stmt in branch.body.body:
            if not isinstance(stmt, cst.SimpleStatementLine):
                return None
            for small in stmt.body:
                pairs = literal_settings(small)
                if not pairs and not isinstance(small, cst.Pass):
                    return None
                settings += pairs or []
        rows.append((branch, settings))
        branch = branch.orelse
    return rows if branch is None and any(settings for _, settings in rows) else None


def _ids(change: _Change, fn: cst.FunctionDef) -> set[tuple[str, str]]:
    """How the launching function may name the moved tile: the variable, and the launch keywords it feeds
    (``meta["BLOCK"]`` in a grid function)."""
    if change.keyword is not None:
        return {("meta", change.keyword)}
    assert change.target is not None
    out = {("name", change.target)}
    for node in walk(fn.body):
        if (
            isinstance(node, cst.Arg)
            and node.keyword is not None
            and isinstance(node.value, cst.Name)
            and node.value.value == change.target
        ):
            out.add(("meta", node.keyword.value))
    return out


def _condition(needs: list[Divides], value: int) -> str:
    tests = dict.fromkeys(
        f"{_size_text(d.size)} <= {d.most * value * d.times} // {value * d.times}"
        if d.most is not None
        else f"{_size_text(d.size)} <= {reach_text(d.scale, value * d.times)}"
        if d.covers
        else f"{value} % {_size_text(d.size)} == 0"
        if d.divided
        else f"{_size_text(d.size)} % {value * d.times // d.per} == 0"
        for d in needs
    )
    return " and ".join(tests)


def _guard(
    moved: list[tuple[_Change, list[Divides]]], new: str, pos: Positions, inline: frozenset[str] = frozenset()
) -> tuple[list[_Splice] | None, str]:
    """The splices that guard the moved tiles of one statement, and the note; ``None`` and why when the sizes
    are not known where the tiles are set. Launch keywords in ``inline`` were inline guards: guarded inline again."""
    statement = moved[0][0].statement
    fn = moved[0][0].function
    assert fn is not None
    if isinstance(statement, cst.SimpleStatementSuite):
        names = ", ".join(f"{c.target or c.keyword}={c.after}" for c, _ in moved)
        return None, (
            f"{names} {moved[0][1][0].fails} every size the original handled ({moved[0][1][0].why}), and the guard "
            "cannot be written into a one-line compound statement: not written"
        )
    line = pos[statement].start.line
    known = _bound_before(fn, line, pos)
    for change, needs in moved:
        missing = sorted({n for d in needs for n in _names(d.size)} - known - _LIBRARIES)  # not triton (q111)
        name = change.target or change.keyword
        if missing:
            return None, (
                f"{name}={change.after} {needs[0].fails} every size the original {name}={change.before} handled "
                f"({needs[0].why}), and {', '.join(missing)} is not known where {name} is set: not written"
            )
    whys = "; ".join(dict.fromkeys(needs[0].why for _, needs in moved))
    names = ", ".join(f"{c.target or c.keyword}={c.after}" for c, _ in moved)
    conditions = " and ".join(dict.fromkeys(_condition(needs, c.after) for c, needs in moved))  # a product: once
    rule = " or a block cover it" if any(d.covers for _, needs in moved for d in needs) else ""
    rule += " or keep its tile within a limit" if any(d.most is not None for _, n in moved for d in n) else ""
    rule += " or be a multiple of a size it is divided by" if any(d.divided for _, n in moved for d in n) else ""
    must = f"a tile must divide its size{rule}"
    if all(d.most is not None for _, n in moved for d in n):  # a ceiling alone (refusals23)
        must = "a tile must keep within its limit on values"
    note = f"{names} only where {conditions}, the original values elsewhere ({must}: {whys})"
    copies = [(c, d.literal) for c, needs in moved for d in needs if d.literal is not None]
    tests = [_condition(needs, c.after) for c, needs in moved]
    splices = _set_under([c for c, _ in moved], tests, fn, new, pos, conditions, copies, inline)
    if splices is None:
        return None, f"{names}: an assignment and a launch literal moved on one line: not written"
    return splices, note


#: The launch options whose default Triton 3.6 gives alike on every backend (NVIDIA's CUDAOptions and AMD's
#: HIPOptions: four warps, one CTA; ``num_stages`` is 3 on NVIDIA and 2 on AMD, so no one value stands for it:
#: :data:`DEFAULT_STAGES`).
PORTABLE_DEFAULTS: dict[str, int] = {"num_warps": 4, "num_ctas": 1}


#: ``num_stages`` a launch that leaves it out runs with, by the GPU's vendor: Triton 3.6's (the version kernelopt
#: pins) CUDAOptions give 3, its HIPOptions 2 (``triton/backends/{nvidia,amd}/compiler.py``).
DEFAULT_STAGES: dict[str, int] = {"nvidia": 3, "amd": 2}


def option_defaults(gpu: str | None) -> dict[str, int]:
    """The defaults of the launch options a launch leaves out that a bound may fall back on, for a session on
    ``gpu`` (a spec-sheet name): :data:`PORTABLE_DEFAULTS`, and on an NVIDIA or AMD GPU its backend's ``num_stages``
    (:data:`DEFAULT_STAGES`: the value the original ran with where the session timed it). No ``num_stages`` where no
    GPU, or one of no known vendor, is named: its default is not known."""
    if not gpu:
        return dict(PORTABLE_DEFAULTS)
    from kernelopt.errors import UsageError
    from kernelopt.hardware.specs import lookup

    try:
        vendor = lookup(gpu).vendor.lower()
    except UsageError:
        return dict(PORTABLE_DEFAULTS)
    stages = DEFAULT_STAGES.get(vendor)
    return {**PORTABLE_DEFAULTS, "num_stages": stages} if stages is not None else dict(PORTABLE_DEFAULTS)


def bound_moves(
    old: str, new: str, test: str, defaults: Mapping[str, int] = PORTABLE_DEFAULTS, *, at_launch: bool = False
) -> Guarded:
    """``new`` (``old`` with literal knobs moved, :func:`~kernelopt.tunables.edit.write_config`) with every moved
    literal set under ``test`` (``Lq <= 48``: the bound of the tuned table written beside them), its original value
    the fallback above it, as the guard writes a tile (``num_stages = 1`` / ``if Lq <= 48:  # kernelopt: tuned`` /
    ``num_stages = 6``; a launch literal gets a line of its own first, or, where the function already uses its
    name, ``num_warps=8 if Lq <= 48 else 4``; a literal of a ``@triton.heuristics`` lambda in the lambda itself,
    ``lambda args: 64 if args["D"] <= 32 else 16``, late48's l173). A pick is one configuration: where a table falls
    back on the original computation, every setting the pick moved falls back with it (tablebound11: extend_attn's
    six stages beside a BLOCK_M/BLOCK_N table over Lq up to 48 ran with the original tiles at D=65, 458752 B of
    shared memory of 232448 on an H100). No text, and why, when a moved literal cannot be set under ``test``: a
    module constant, a kernel's own literal, an entry of a dict of settings, a branch of a conditional, a name of
    ``test`` not known where it is set, or an edit that is not literals alone (an inserted launch option).
    ``at_launch``: ``test``
    reads the sizes as the launch reads them (a table's bound over the sizes recorded there), so where a size is
    rebound between a moved literal and the launch (``n = n * 2``) its test reads the rebinding
    (:func:`~kernelopt.tunables.launch_value.value_at_launch`, ``(n * 2) <= 64``; late39's l73 for the table's own
    rows, l74 here), or no text where that cannot be read."""
    old_collector = _collected(old)
    try:
        new_tree = parsed(new)
        cst.parse_expression(test)
    except cst.ParserSyntaxError:
        return Guarded(None, f"the bound {test!r} or the edited text does not parse")
    pos = new_tree.positions
    collector = _Collector(_line_starts(new), pos)
    visit(new_tree.module, collector)
    if old_collector is None or len(old_collector.statements) != len(collector.statements):
        return Guarded(None, "the edit is not of literals alone")
    restores: list[_Splice] = []
    by_statement: dict[int, list[_Change]] = {}
    tests: dict[int, str] = {}  # statement -> the bound as its function reads it
    rows: dict[int, LaterRow] = {}  # statement -> where its line moves below, its bound known only there
    copies: dict[int, list[tuple[_Change, cst.CSTNode]]] = {}  # statement -> its moved tiles' grid copies
    claims: dict[int, tuple[cst.CSTNode, list[_Change]]] = {}  # a copy -> the settings it moved with
    for o, n in zip(old_collector.statements, collector.statements, strict=True):
        inserted = _inserted_options(o, n, collector, defaults)
        if isinstance(inserted, str):
            return Guarded(None, f"{inserted}, so it has no value of the file's to fall back on where {test} fails")
        for change, cut in [*((c, (c.start, c.end, str(c.before))) for c in _changes(o, n, collector)), *inserted]:
            name = change.target or change.keyword
            fn = change.function
            where = (
                "it is an entry of a dict of settings"
                if change.entry
                else "it is a branch of a conditional expression"
                if _conditional(change.statement)
                else "it is set outside a launching function"
                if fn is None or is_jit(fn)
                else "it is set on a one-line compound statement"
                if isinstance(change.statement, cst.SimpleStatementSuite)
                else None
            )
            own: str | None = test
            later: LaterRow | None = None  # where the literal's line moves below, its bound known only there
            if fn is not None and where is None:
                read = _row_test(test, change, fn, new_tree.module, pos, at_launch, change.statement)
                if isinstance(read, str) and change.target is not None:
                    # the sizes bound below the literal's line: the line moved below them, unchanged (late48, l170)
                    places, ends = later_rows(fn, change.statement)
                    tried = ((p, _row_test(test, change, fn, new_tree.module, pos, at_launch, p.below)) for p in places)
                    later, found = next(((p, t) for p, t in tried if not isinstance(t, str)), (None, read))
                    if later is None and ends is not None and change.target in statement_binds(ends):
                        found = f"{read}, nor below it before line {pos[ends].start.line} sets {change.target} again"
                    read = found
                own, where = (None, read) if isinstance(read, str) else (read[0], None)
            if where is not None or own is None:
                return Guarded(None, f"{name}={change.after} cannot be set under {test} ({where})")
            restores.append(cut)
            by_statement.setdefault(id(change.statement), []).append(change)
            tests[id(change.statement)] = own
            if later is not None:
                rows[id(change.statement)] = later
            for lit in _moved_copies(o[1], n[1], change):  # a tile's grid copy (``triton.cdiv(M, 32)``) moves with it
                claims.setdefault(id(lit), (lit, []))[1].append(change)
    for lit, changes in claims.values():
        # a copy in a launch that moved a setting is that launch's (a kernel launched twice: each grid its own)
        owners = [c for c in changes if any(node is lit for node in walk(c.statement))] or changes
        alike = {(c.function, c.keyword, c.before, c.after, tests[id(c.statement)]) for c in owners}
        if len(owners) > 1 and len(alike) == 1:
            owners = owners[:1]  # outside the launches, one setting moved alike in each, one bound: the first names it
        if len(owners) > 1:
            return Guarded(None, f"{_code(lit)} moved with two settings: no bound names it")
        copies.setdefault(id(owners[0].statement), []).append((owners[0], lit))
        restores.append((*collector.offset(lit), str(owners[0].before)))
    lambdas: list[tuple[str, str]] = []  # (the setting moved, the bound as its heuristic reads it)
    splices: list[_Splice] = []
    for change in _heuristic_changes(old, new_tree.module):
        start, end = collector.offset(change.literal)
        own = _in_heuristic(test, change.parameter)
        unknown = sorted(_names(cst.parse_expression(own)) - {change.parameter} - _LIBRARIES)
        if unknown:
            return Guarded(
                None,
                f"{change.name}={change.after} cannot be set under {test} (its heuristic reads {', '.join(unknown)}, "
                "which it is not given)",
            )
        restores.append((start, end, str(change.before)))
        written = f"{change.after} if {own} else {change.before}"
        splices.append((start, end, written if change.whole else f"({written})"))
        lambdas.append((f"{change.name}={change.after}", own))
    if _spliced(new, restores) != old:
        return Guarded(None, f"the edit moved more than literals that can be set under {test}")
    for key, moved in by_statement.items():
        fn = moved[0].function
        assert fn is not None
        written = _set_under(
            moved, [tests[key]] * len(moved), fn, new, pos, tests[key], copies.get(key, []), below=rows.get(key)
        )
        if written is None:
            return Guarded(None, "an assignment and a launch literal moved on one line cannot be set under a bound")
        splices += written
    # a setting moved in each of two launches is said once
    sets = ", ".join(
        dict.fromkeys(
            [*(f"{c.target or c.keyword}={c.after}" for moved in by_statement.values() for c in moved)]
            + [s for s, _ in lambdas]
        )
    )
    where = sorted({*tests.values(), *(t for _, t in lambdas)})
    spelled = "; ".join(t for t in where if t != test)
    said = f"{' and '.join(where)} ({test} at the launch)" if spelled else test
    moves = "".join(
        f"; line {pos[by_statement[key][0].statement].start.line}"
        f"{''.join(f' and line {pos[c].start.line}' for c in later.carried)} moved below line "
        f"{_last_line(later.below, pos)}, where its bound is known"
        for key, later in rows.items()
    )
    return Guarded(_spliced(new, splices), f"{sets} only where {said}, the original values elsewhere{moves}")


@dataclass(frozen=True)
class _HeuristicChange:
    """An integer literal a plain edit moved in a ``@triton.heuristics`` lambda (``lambda args: 32`` -> ``64``)."""

    literal: cst.Integer  # in the edited text
    before: int
    after: int
    name: str  # the setting the entry sets
    parameter: str  # the lambda's own name for the kernel's arguments
    whole: bool  # the literal is the lambda's whole body


def _heuristic_lambdas(module: cst.Module) -> list[tuple[str, cst.Lambda]]:
    """Each entry of a ``@triton.heuristics({...})`` decorator of ``module``'s functions whose value is a lambda,
    with the setting it names, in source order."""
    out = []
    for fn in (n for n in walk(module) if isinstance(n, cst.FunctionDef)):
        for deco in fn.decorators:
            call = deco.decorator
            if not isinstance(call, cst.Call) or dotted(call.func).split(".")[-1] != "heuristics" or not call.args:
                continue
            table = call.args[0].value
            for e in table.elements if isinstance(table, cst.Dict) else ():
                if isinstance(e, cst.DictElement) and isinstance(e.value, cst.Lambda):
                    key = e.key.evaluated_value if isinstance(e.key, cst.SimpleString) else None
                    out.append((key if isinstance(key, str) else "?", e.value))
    return out


def _heuristic_changes(old: str, new: cst.Module) -> list[_HeuristicChange]:
    """The integer literals a plain edit of ``old`` moved inside a heuristic's lambda (late48, l173); none where the
    two texts' heuristics differ in any other way (the caller's check of the whole edit refuses that)."""
    try:
        before = _heuristic_lambdas(parsed(old).module)
    except cst.ParserSyntaxError:
        return []
    after = _heuristic_lambdas(new)
    if len(before) != len(after):
        return []
    out = []
    for (name, o), (_, n) in zip(before, after, strict=True):
        params = n.params.params
        if len(params) != 1:
            continue
        olds = [x for x in walk(o.body) if isinstance(x, cst.Integer)]
        news = [x for x in walk(n.body) if isinstance(x, cst.Integer)]
        if len(olds) != len(news):
            continue
        for ol, nl in zip(olds, news, strict=True):
            b, a = _int(ol), _int(nl)
            if b is not None and a is not None and a != b:
                out.append(_HeuristicChange(nl, b, a, name, params[0].name.value, n.body is nl))
    return out


def _in_heuristic(test: str, parameter: str) -> str:
    """``test`` (over ``args["X"]``) as a heuristic whose lambda names the kernel's arguments ``parameter`` reads it."""
    if parameter == "args":
        return test
    renamed = cst.parse_expression(test).visit(Substitute({"args": cst.Name(parameter)}))
    return cst.Module([]).code_for_node(renamed)


def _row_test(
    test: str,
    change: _Change,
    fn: cst.FunctionDef,
    module: cst.Module,
    pos: Positions,
    at_launch: bool,
    row: cst.CSTNode,
) -> tuple[str] | str:
    """:func:`bound_moves`' ``test`` as ``fn`` reads it in a row right after ``row`` (the moved literal's statement,
    or a later statement its line is moved below), in a 1-tuple; why it cannot be read there, a string."""
    # a heuristic's table bounds args["N"]: the launch's own argument N is the same size where it is set
    own = launch_test(test, change.statement, fn, module, change.target, row if change.target is not None else None)
    if own is None:
        return "args is not known where it is set, and the launch passes no argument it reads again the same"
    if at_launch:
        read = value_at_launch(fn, row, cst.parse_expression(own))
        if isinstance(read, str):
            return read
        own = cst.Module([]).code_for_node(read)
    # names bound before the row: the literal's statement's own line, or the lines through a later one
    line = pos[row].start.line if row is change.statement else _last_line(row, pos) + 1
    missing = sorted(
        _names(cst.parse_expression(own))
        - _LIBRARIES
        - (module_names(module) - _bound_before(fn, pos[fn].end.line + 1, pos))  # a module's name the fn never
        - _bound_before(fn, line, pos)  # binds (c43)
    )
    return f"{', '.join(missing)} is not known where it is set" if missing else (own,)


def _moved_copies(old: cst.FunctionDef | None, new: cst.FunctionDef | None, change: _Change) -> list[cst.CSTNode]:
    """The literals of ``new`` (the edited launching function) that moved with the launch keyword ``change`` from
    its value to the new one: a count of blocks dividing by it (``triton.cdiv(M, 16)`` -> ``32``) and a number of the
    launch's grid tuple (:func:`_grid_number_copies`). Set under a bound with the keyword, they are written as its
    name, else the original tile would run on the pick's count of programs."""
    if old is None or new is None or change.keyword is None or change.function is not new:
        return []
    counts = [d for b, _, d, _ in _divisions(old.body, new.body) if b == change.before and _int(d) == change.after]
    grids = [e for e in _grid_number_copies(old, new, change) if all(e is not d for d in counts)]
    return [*counts, *grids]


def _inserted_options(
    old: tuple[cst.SimpleStatementLine, cst.FunctionDef | None],
    new: tuple[cst.SimpleStatementLine, cst.FunctionDef | None],
    collector: _Collector,
    defaults: Mapping[str, int],
) -> list[tuple[_Change, _Splice]] | str:
    """The launch options an edit inserted into a statement's calls (``, num_warps=8`` where the launch left it to
    Triton), each as a move from Triton's default (``defaults``: :func:`option_defaults`) and the splice that takes
    the insertion out again; why not, for an option whose default is not known (``num_stages`` off NVIDIA)."""
    (o, _), (n, fn) = old, new
    out: list[tuple[_Change, _Splice]] = []
    old_calls = [c for c in walk(o) if isinstance(c, cst.Call)]
    new_calls = [c for c in walk(n) if isinstance(c, cst.Call)]
    for oc, nc in zip(old_calls, new_calls, strict=False):
        had = {a.keyword.value for a in oc.args if a.keyword is not None}
        for i, arg in enumerate(nc.args):
            if arg.keyword is None or arg.keyword.value in had:
                continue
            name, value = arg.keyword.value, _int(arg.value)
            if name not in defaults or value is None:
                return f"{name} is not passed at the launch (Triton's default, which differs between backends)"
            start, end = collector.offset(arg.value)
            cut_from = collector.offset(nc.args[i - 1].value)[1] if i else collector.offset(arg)[0]
            change = _Change(defaults[name], value, start, end, n, fn, None, name)
            out.append((change, (cut_from, end, "")))
    return out


def _guard_block(indent: str, conditions: str, targets: str, values: str) -> str:
    """The guard's block as ``tune`` writes it, at ``indent``: ``if <conditions>:  # kernelopt: tuned`` over
    ``<targets> = <values>`` one step further in (the form :func:`_guard_values` and
    :func:`~kernelopt.tunables.guard_blocks.one_block_per_condition` read back)."""
    return f"{indent}if {conditions}:  # {TUNED}\n{indent}{_step(indent)}{targets} = {values}\n"


def _last_line(statement: cst.CSTNode, pos: Positions) -> int:
    """The last line of ``statement`` (an indented block's range ends at the start of the line after it)."""
    end = pos[statement].end
    return end.line - 1 if end.column == 0 and end.line > pos[statement].start.line else end.line


def _step(indent: str) -> str:
    """One level of indentation as the file writes it: a tab where the line is indented with tabs."""
    return "\t" if "\t" in indent else "    "


def _first_holding(
    fn: cst.FunctionDef, launch: cst.SimpleStatementLine, copies: Sequence[cst.CSTNode], pos: Positions
) -> cst.BaseStatement | None:
    """The statement the guard's lines go before: the launch statement, or an earlier statement of its block that
    holds a copy of a moved literal (``grid = (B, triton.cdiv(D, 64))`` before ``_k[grid](..., BLOCK_D=64)``: the
    grid then names ``BLOCK_D``, which must be bound above it; breaker6/varlen_pool's ``BLOCK_D=32`` was written
    below its grid, an UnboundLocalError at every size). ``None`` when a copy lies outside that block before it
    (the inline form is written then)."""
    block = next((b for b in walk(fn) if isinstance(b, cst.IndentedBlock) and any(st is launch for st in b.body)), None)
    if block is None:
        return None
    first = launch
    for lit in copies:
        at = pos[lit].start.line
        holder = next((st for st in block.body if pos[st].start.line <= at <= pos[st].end.line), None)
        if holder is None:
            if at < pos[launch].start.line:
                return None
            continue
        if pos[holder].start.line < pos[first].start.line:
            first = holder
    return first


def _unbound_above(fn: cst.FunctionDef, conditions: str, first: cst.BaseStatement, pos: Positions) -> bool:
    """Whether ``conditions`` reads a name ``fn`` binds only at or below the statement ``first``, where the guard's
    lines go: a grid's copy of a tile set beside a guarded one (``grid = (triton.cdiv(M, 16),)`` above ``N =
    x.shape[1]``, the guard ``N % 64 == 0``) would read it unbound, an UnboundLocalError at every size (b6)."""
    try:
        names = {n.value for n in walk(cst.parse_expression(conditions)) if isinstance(n, cst.Name)}
    except cst.ParserSyntaxError:
        return False
    params = set(param_names(fn, kwonly=True))
    at = pos[first].start.line
    for node in walk(fn.body):
        targets = [t.target for t in node.targets] if isinstance(node, cst.Assign) else []
        if isinstance(node, cst.AugAssign | cst.AnnAssign | cst.For | cst.NamedExpr | cst.WithItem):
            targets = [getattr(node, "target", None) or getattr(node, "asname", None)]
        bound = {n.value for t in targets if t is not None for n in walk(t) if isinstance(n, cst.Name)}
        if bound & names and node in pos and pos[node].start.line < at:
            names -= bound
    return bool((names - params) & set(bindings(fn)))


def _set_under(
    moved: Sequence[_Change],
    tests: Sequence[str],
    fn: cst.FunctionDef,
    new: str,
    pos: Positions,
    conditions: str,
    copies: Sequence[tuple[_Change, cst.CSTNode]] = (),
    inline: frozenset[str] = frozenset(),
    below: LaterRow | None = None,
) -> list[_Splice] | None:
    """The splices that set the literals ``moved`` on one statement of ``fn`` only where ``conditions`` hold, their
    original values elsewhere (``tests``: each literal's own condition, for the inline form): the one writer of the
    guard (:func:`_guard`) and of a table's bound (:func:`bound_moves`). Assigned tiles keep their line and the
    tuned values follow under the condition (``BLOCK = 64`` / ``if n % 128 == 0:  # kernelopt: tuned`` / ``BLOCK =
    128``). Launch literals get a line of their own before the launch statement, named like the keywords, and the
    condition follows it (``BM = 16`` / ``if M % 32 == 0:  # kernelopt: tuned`` / ``BM = 32``; the launch passes
    ``BM=BM``), the grid's ``copies`` of them named too; where the function already uses such a name, inline at
    the launch (``BM=32 if M % 32 == 0 else 16``), and where the launch held an inline guard (``inline``).
    Assigned tiles whose condition is known only ``below`` a later statement (:func:`~kernelopt.tunables.
    launch_bound.later_rows`) have their line, as the original wrote it, moved below that one and the condition
    follows it there (``Lq, Lk = ...`` / ``BLOCK = 32`` / ``if Lk <= 128:  # kernelopt: tuned`` / ``BLOCK = 128``).
    ``None`` where an assignment and a launch literal moved on one line."""
    statement = moved[0].statement
    starts = _line_starts(new)
    if all(c.target is not None for c in moved):
        rng = pos[statement]
        line = new[starts[rng.start.line - 1] : starts[rng.start.line]]
        indent = line[: len(line) - len(line.lstrip())]
        targets, values = ", ".join(c.target for c in moved), ", ".join(str(c.after) for c in moved)  # type: ignore[misc]
        block = _guard_block(indent, conditions, targets, values)
        end_of_statement = starts[rng.end.line]  # the statement line ends with its newline
        restored = [(c.start, c.end, str(c.before)) for c in moved]
        if below is None:
            return [*restored, (end_of_statement, end_of_statement, block)]
        start = starts[rng.start.line - 1 - len(statement.leading_lines)]  # its comments move with it
        original = _spliced(new[start:end_of_statement], [(a - start, b - start, v) for a, b, v in restored])
        cuts = [(start, end_of_statement, "")]
        for carried in below.carried:
            cut = (starts[pos[carried].start.line - 1 - len(carried.leading_lines)], starts[_last_line(carried, pos)])
            cuts.append((*cut, ""))
            block += new[cut[0] : cut[1]]
        at = starts[_last_line(below.below, pos)]
        return [*cuts, (at, at, original + block)]
    if any(c.target is not None for c in moved):
        return None
    names = [c.keyword for c in moved]
    keywords = {id(n.keyword) for n in walk(fn) if isinstance(n, cst.Arg) and n.keyword is not None}
    used = {n.value for n in walk(fn) if isinstance(n, cst.Name) and id(n) not in keywords}
    spans = [
        (starts[pos[lit].start.line - 1] + pos[lit].start.column, len(_code(lit)), c)
        for c, lit in {id(lit): (c, lit) for c, lit in copies}.values()
    ]
    first = _first_holding(fn, statement, [lit for _, lit in copies], pos)
    if first is not None and _unbound_above(fn, conditions, first, pos):
        return None  # the condition reads a name bound below the first copy (break14's b6)
    if first is None or (used | inline) & set(names):  # type: ignore[arg-type]
        inlined = {id(c): f"{c.after} if {t} else {c.before}" for c, t in zip(moved, tests, strict=True)}
        grid = [(at, at + size, f"({inlined[id(c)]})") for at, size, c in spans]
        return [*((c.start, c.end, inlined[id(c)]) for c in moved), *grid]
    at = starts[pos[first].start.line - 1]
    line = new[at : starts[pos[first].start.line]]
    indent = line[: len(line) - len(line.lstrip())]
    targets = ", ".join(names)  # type: ignore[arg-type]
    before = ", ".join(str(c.before) for c in moved)
    after = ", ".join(str(c.after) for c in moved)
    block = f"{indent}{targets} = {before}\n{_guard_block(indent, conditions, targets, after)}"
    grid = [(start, start + size, c.keyword or "") for start, size, c in spans]
    return [(at, at, block), *((c.start, c.end, c.keyword or "") for c in moved), *grid]


@dataclass(frozen=True)
class TiledExtent:
    """A count of whole tiles over an extent a launching function takes (:func:`tiled_extents`): ``tile`` by name
    (``BLOCK``) or, a literal tile, by value (``1024``); ``size`` the local it counts over, where it is one name (whose
    value a run of the task tells); ``factors`` the names and numbers whose product the extent is, where it is
    written so in the grid or in the size's one assignment (``n = M * K``), else empty."""

    tile: str | int
    size: str | None
    factors: tuple[str | int, ...] = ()


def tiled_extents(source: str, kernel: str) -> list[TiledExtent]:
    """Each count of whole tiles a function that launches ``kernel`` takes (``triton.cdiv(n, BLOCK)``, ``(n + BLOCK -
    1) // BLOCK``, ``triton.cdiv(n, meta["BLOCK"])``, ``triton.cdiv(n, 1024)``): the extent the tile covers. Empty
    when ``source`` does not parse or no such count is written; a size read no way (``x.numel()`` in the grid) is
    left out."""
    try:
        module = parsed(source).module
    except cst.ParserSyntaxError:
        return []
    out: list[TiledExtent] = []
    for fn in (n for n in walk(module) if isinstance(n, cst.FunctionDef)):
        if not any(_launched_name(call).split(".")[-1] == kernel for _, call in _launch_calls(fn)):
            continue
        local = assigned_once(fn)
        for _node, tile, size in _grid_divs(fn, _rounded_up(fn)[0]):
            named = _tile_id(tile)
            key = named[1] if named is not None else _int(tile)
            name = size.value if isinstance(size, cst.Name) else None
            factors = _factors(local.get(name, size) if name is not None else size)
            if key is not None and (name is not None or factors):
                out.append(TiledExtent(key, name, factors))
    return out


def _factors(expr: cst.BaseExpression) -> tuple[str | int, ...]:
    """The names and integers whose product ``expr`` is (``M * K``, ``B * H * 64``); empty for any other form."""
    if isinstance(expr, cst.BinaryOperation) and isinstance(expr.operator, cst.Multiply):
        left, right = _factors(expr.left), _factors(expr.right)
        return (*left, *right) if left and right else ()
    if isinstance(expr, cst.Name):
        return (expr.value,)
    value = _int(expr)
    return (value,) if value is not None else ()
