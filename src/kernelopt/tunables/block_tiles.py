"""The tiles a kernel holds through block pointers, and the fit estimate of their registers (pure).

A block pointer's ``block_shape`` (``tl.make_block_ptr(x, (T, D), (D, 1), (i_t * BT, 0), (BT, BD), (1, 0))``, a
tensor descriptor's) is a tile every thread of the program keeps a share of. Its sides are often a knob and a setting
the launching function computes from the problem (fla's ``BD = next_power_of_2(D)``), known only from a run of the
task: the 1-D block estimate (:func:`kernelopt.tunables.knobs.resource_problems`) reads a knob's name and sees neither
the second side nor the tile. fla's ``l2norm_fwd`` was tuned on the CPU to ``BT = 512`` on one warp, a 512 x 512 fp32
tile at D = 512 (8192 elements a thread), whose compile for sm_90 took 8 min 52 s (docs/faults.md, breaker12 f6).

:func:`block_tiles` reads the tiles of a kernel's body; :func:`tile_problems` refuses a configuration whose largest
tile, at a ``SHAPES`` entry the kernel is launched at (each side's value from the configuration, else from the launch
there), keeps more elements a thread than both the registers hold (:data:`~kernelopt.tunables.knobs.LIVE_BLOCK_TENSORS`
fp32 copies in :attr:`ResourceLimits.max_registers_per_thread`: certain spills) and the largest the authors' own
configurations keep there (their autotune list, or the launch as written). The authors' bound matters: fla's own
``BT = 128`` on one warp keeps 512 elements a thread at D = 128, past the registers, and is no candidate to refuse.

A kernel that multiplies tiles with ``tl.dot`` is left out: its operand tiles are staged through shared memory, which
the GEMM estimate counts (``num_stages * (BM*BK + BK*BN)``), and its accumulator is the accumulator rule's.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

import libcst as cst

from kernelopt.numeric import plain_int
from kernelopt.tunables.blocks import BLOCK_PTR_ARGS, DESCRIPTOR_ARGS, call_args, dotted, walk
from kernelopt.tunables.knobs import LIVE_BLOCK_TENSORS, TRITON_DEFAULTS, ResourceLimits
from kernelopt.tunables.model import AutotuneEvaluation, Value
from kernelopt.tunables.syntax import parsed

#: the makers whose ``block_shape`` is a tile, with the names of their arguments in order
_MAKERS = {"make_block_ptr": BLOCK_PTR_ARGS, "make_tensor_descriptor": DESCRIPTOR_ARGS}

#: One side of a tile: a name (a parameter of the kernel) or an integer literal.
Side = str | int
#: A tile: its sides, in the order the block shape writes them.
Tile = tuple[Side, ...]


def block_tiles(source: str, kernel: str) -> tuple[Tile, ...]:
    """The tiles of at least two sides that the block pointers and tensor descriptors of ``kernel``'s body hold,
    each side a name or an integer literal (a tile with another side is left out: its size is not known); empty when
    ``source`` does not parse, defines no such kernel, or the kernel (or a function of the file it calls) calls
    ``tl.dot`` (module docstring)."""
    try:
        tree = parsed(source)
    except cst.ParserSyntaxError:
        return ()
    fn = next((n for n in walk(tree.module) if isinstance(n, cst.FunctionDef) and n.name.value == kernel), None)
    if fn is None:
        return ()
    calls = [n for n in walk(fn.body) if isinstance(n, cst.Call)]
    if _multiplies_through(tree.module, fn, calls):
        return ()
    out: list[Tile] = []
    for call in calls:
        names = _MAKERS.get(dotted(call.func).split(".")[-1])
        shape = call_args(call, names).get("block_shape") if names is not None else None
        if not isinstance(shape, cst.Tuple | cst.List) or len(shape.elements) < 2:
            continue
        sides = [_side(e.value) for e in shape.elements]
        tile = tuple(s for s in sides if s is not None)
        if len(tile) == len(sides) and tile not in out:
            out.append(tile)
    return tuple(out)


def calls_dot(source: str, kernel: str) -> bool:
    """Whether ``kernel`` (or a function of the file it calls) multiplies tiles with ``tl.dot``; ``False`` when
    ``source`` does not parse or defines no such kernel."""
    try:
        tree = parsed(source)
    except cst.ParserSyntaxError:
        return False
    fn = next((n for n in walk(tree.module) if isinstance(n, cst.FunctionDef) and n.name.value == kernel), None)
    if fn is None:
        return False
    return _multiplies_through(tree.module, fn, [n for n in walk(fn.body) if isinstance(n, cst.Call)])


def _multiplies_through(module: cst.Module, fn: cst.FunctionDef, calls: list[cst.Call]) -> bool:
    """Whether ``fn`` or a function of ``module`` one of its ``calls`` names calls ``tl.dot`` (fa2's sits in the
    helper its kernel calls)."""
    functions = {n.name.value: n for n in module.body if isinstance(n, cst.FunctionDef)}
    helpers = [functions[c.func.value] for c in calls if isinstance(c.func, cst.Name) and c.func.value in functions]
    return any(_multiplies(f) for f in [fn, *helpers])


def _multiplies(fn: cst.FunctionDef) -> bool:
    """Whether ``fn``'s body multiplies tiles with ``tl.dot``."""
    return any(isinstance(n, cst.Call) and dotted(n.func).split(".")[-1] == "dot" for n in walk(fn.body))


def _side(expr: cst.BaseExpression) -> Side | None:
    if isinstance(expr, cst.Name):
        return expr.value
    if isinstance(expr, cst.Integer):
        return int(expr.value, 0)
    return None


@dataclass(frozen=True)
class TileEntry:
    """One ``SHAPES`` entry the kernel is launched at.

    Attributes:
        label: the entry in words (``B=3, T=130, D=100``).
        launched: the values its launch received there (sizes computed from the problem, the options it ran with).
        authors: the values of each of the authors' own configurations there (each config of the autotune list, or
            the launch as written), whose largest tile a thread is the bound a candidate may reach.
    """

    label: str
    launched: Mapping[str, Value]
    authors: tuple[Mapping[str, Value], ...]


def picked_config(kernel: str | None, listed: bool, evaluation: AutotuneEvaluation | None) -> dict[str, Value]:
    """The config ``kernel``'s autotuner picked for the task's shape (when the evaluation ran it), by knob name;
    ``listed``: the launch is its autotune list (``k.configs``), else there is no pick to read."""
    if evaluation is None or kernel is None or not listed:
        return {}
    space = evaluation.spaces.get(kernel)
    if space is None or space.best_config is None:
        return {}
    return space.best_config.knob_values()


def tile_entries(kernel: str | None, listed: bool, evaluation: AutotuneEvaluation | None) -> tuple[TileEntry, ...]:
    """The ``SHAPES`` entries the run of the task launched ``kernel`` at, each with the values its launch received
    there (the config its autotuner picked for the task's shape in place of the entry's own pick: the list tune
    writes pins it) and the authors' configurations (the autotune list's, ``listed``, else the launch itself); none
    without a run (``evaluation`` ``None``, or one that did not launch it)."""
    if evaluation is None or kernel is None:
        return ()
    runs = [(e.shape, e.launch_values[kernel]) for e in evaluation.shape_sizes if kernel in e.launch_values]
    if not runs and kernel in evaluation.launch_values:
        runs = [(evaluation.shape or {}, evaluation.launch_values[kernel])]
    space = evaluation.spaces.get(kernel) if listed else None
    configs = tuple(c.knob_values() for c in space.configs) if space is not None else ()
    picked = picked_config(kernel, listed, evaluation)
    return tuple(
        TileEntry(", ".join(f"{k}={v}" for k, v in shape.items()), {**launched, **picked}, configs or (launched,))
        for shape, launched in runs
    )


def per_thread(tile: Tile, values: Mapping[str, Value | None], warp_size: int) -> tuple[int, float] | None:
    """The elements of ``tile`` at ``values`` and their share a thread (``num_warps * warp_size`` threads, Triton's
    default warps when ``values`` names none); ``None`` when a side's value or the warps are not known integers."""
    sides = [s if isinstance(s, int) else plain_int(values.get(s)) for s in tile]
    warps = plain_int(values.get("num_warps", TRITON_DEFAULTS["num_warps"]))
    if warps is None or warps < 1 or any(s is None or s < 1 for s in sides):
        return None
    elements = math.prod(s for s in sides if s is not None)
    return elements, elements / (warps * warp_size)


def _largest(tiles: Iterable[Tile], values: Mapping[str, Value | None], warp_size: int) -> tuple[Tile, int, float]:
    got = [(t, *share) for t in tiles if (share := per_thread(t, values, warp_size)) is not None]
    return max(got, key=lambda g: g[2], default=((), 0, 0.0))


@dataclass(frozen=True)
class HeldTiles:
    """A kernel's block pointer tiles (:func:`block_tiles`) and the ``SHAPES`` entries it is launched at."""

    tiles: tuple[Tile, ...]
    entries: tuple[TileEntry, ...]

    def rule(self) -> str:
        """The rule in words (part of a space's fingerprint)."""
        shapes = "; ".join(f"({', '.join(map(str, t))})" for t in self.tiles)
        return (
            f"block pointer tiles {shapes} a thread at {len(self.entries)} SHAPES entries: at most the authors' "
            f"largest, or {LIVE_BLOCK_TENSORS} fp32 copies within the registers"
        )


def tile_problems(held: HeldTiles, config: Mapping[str, Value | None], limits: ResourceLimits) -> list[str]:
    """Why ``config`` (values by the names the kernel reads: its knobs and the options it is written with) keeps too
    large a tile a thread, at the first entry of ``held`` where it does (module docstring); empty where it fits, or
    where the registers are not capped (AMD)."""
    cap = limits.max_registers_per_thread
    if cap is None or not held.tiles:
        return []
    for entry in held.entries:
        values = {**entry.launched, **config}
        tile, elements, share = _largest(held.tiles, values, limits.warp_size)
        if share * LIVE_BLOCK_TENSORS <= cap:
            continue
        mine = entry.launched
        own = max(entry.authors, key=lambda a: _largest(held.tiles, {**mine, **a}, limits.warp_size)[2], default={})
        authors = {**entry.launched, **own}
        own_tile, _, own_share = _largest(held.tiles, authors, limits.warp_size)
        if share <= own_share:
            continue
        warps = values.get("num_warps", TRITON_DEFAULTS["num_warps"])
        return [
            f"at {entry.label} the block pointer's block_shape ({_sides(tile)}) = ({_sides(tile, values)}) holds "
            f"{elements} elements on {warps} warp{'' if warps == 1 else 's'}: {share:.0f} a thread, more than the "
            f"authors' own largest there ({own_share:.0f} a thread: {_named(own_tile, authors)}) and than {cap} "
            f"registers hold with {LIVE_BLOCK_TENSORS} fp32 copies live (certain spills)"
        ]
    return []


def _sides(tile: Tile, values: Mapping[str, Value | None] | None = None) -> str:
    return ", ".join(str(values.get(s) if values is not None and isinstance(s, str) else s) for s in tile)


def _named(tile: Tile, values: Mapping[str, Value | None]) -> str:
    names = [s for s in tile if isinstance(s, str)] + ["num_warps"]
    return ", ".join(f"{n}={values.get(n, TRITON_DEFAULTS.get(n))}" for n in names)
