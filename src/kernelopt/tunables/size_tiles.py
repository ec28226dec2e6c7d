"""A raised tile beside tiles the problem's sizes span: where a pick's on-chip footprint also grows with the inputs
(pure).

A tile's shared memory and registers are the product of its sides. Lightning Attention's backward holds ``[BLOCK, d]``
and ``[e, d]`` tiles, ``d`` and ``e`` the head's sizes passed as ``tl.constexpr``: a session whose ``SHAPES`` name
``D = E <= 64`` timed ``BLOCK = 128`` where it fits, and the written kernel asked 458752 B of shared memory of 232448
on an H100 at ``D = E = 128``, where the original's ``BLOCK = 64`` runs (late44, l140). The sizes the entries name
bound what the session saw fit; past them, a tile raised above the original's is a footprint never compiled.

:func:`size_tile_params` reads, for each kernel, the ``tl.constexpr`` parameters that span a tile of its body
(:func:`~kernelopt.tunables.tile_growth.tile_growth`, growing or either way) and whose value the problem sets: a size
of the problem (discovery's semantic parameters: ``d`` unpacked from ``q.shape``) or a value computed at the launch
(``triton.next_power_of_2(n_cols)``), never a literal knob. :func:`raised_sizes` gives, for a pick's changes, the
kernels where it raises such a tile (a block knob above its original value, spanning a tile that grows with it) and
the size parameters beside it: the bound the writer sets the pick under, as ``args["d"]`` per parameter (the form
:func:`~kernelopt.tunables.launch_bound.launch_test` spells as the launch passes it). :func:`size_bounded` sets a
pick's text under that bound, for each writer of a pick (``tune``'s and ``tunables --set``'s: wrongkernel31, v184).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

import libcst as cst

from kernelopt.actions import ActionCategory
from kernelopt.tunables.launches import launched_kernel
from kernelopt.tunables.model import Tunable, argument_key
from kernelopt.tunables.syntax import kept_by_text
from kernelopt.tunables.tile_growth import tile_growth


@kept_by_text
def _growths(source: str) -> dict[str, Mapping[str, int]]:
    """Kernel -> its :func:`~kernelopt.tunables.tile_growth.tile_growth` in ``source``, filled as :func:`_growth`
    asks: each question of this module asks it per knob, and the text's kernels are read once."""
    return {}


def _growth(source: str, kernel: str) -> Mapping[str, int]:
    """How the tiles of ``kernel`` in ``source`` move as each parameter grows (read once per text and kernel)."""
    found = _growths(source)
    if kernel not in found:
        found[kernel] = tile_growth(source, kernel)
    return found[kernel]


def _fixed(t: Tunable) -> bool:
    """Whether ``t`` holds a literal of the file (a knob's value, a refused literal): no size moves it."""
    return not t.semantic and t.computed is None and t.value is not None


def size_tile_params(found: Sequence[Tunable], source: str) -> dict[str, list[str]]:
    """Kernel -> its ``tl.constexpr`` parameters that span a tile and whose value the problem sets (module
    docstring), in discovery's order; kernels with none are left out."""
    out: dict[str, list[str]] = {}
    for t in found:
        if t.kernel is None or _fixed(t):
            continue
        if _growth(source, t.kernel).get(t.name, -1) >= 0 and t.name not in out.get(t.kernel, []):
            out.setdefault(t.kernel, []).append(t.name)
    return out


def _kernels(t: Tunable) -> list[str]:
    """The kernels knob ``t`` reaches: those of the launches it is set for, else its own."""
    named = [k for g in t.groups if (k := launched_kernel(g)) is not None]
    return list(dict.fromkeys(named or ([t.kernel] if t.kernel else [])))


def raised_sizes(
    moved: Mapping[str, tuple[Sequence[str], object, object]], source: str, found: Sequence[Tunable]
) -> dict[str, list[str]]:
    """Kernel -> the size parameters (:func:`size_tile_params`) beside a tile a pick raises there. ``moved``: each
    setting the pick changes -> (the tunable keys it moves, its original value, the pick's); a block moved above its
    original integer raises each tile of a kernel it reaches that grows with it. A parameter the pick moves itself (a
    computed block it sets) is left out. Empty where the pick raises no tile beside a size."""
    sizes = size_tile_params(found, source)
    by_key = {t.key: t for t in found}
    out: dict[str, list[str]] = {}
    for keys, old, new in moved.values():
        if not isinstance(old, int) or not isinstance(new, int) or new <= old:
            continue
        for t in (by_key[k] for k in keys if k in by_key):
            for kernel in _kernels(t):
                if _growth(source, kernel).get(t.name, -1) < 0:
                    continue  # no tile of this kernel grows with the knob
                beside = [p for p in sizes.get(kernel, []) if p not in moved]
                if beside:
                    out[kernel] = list(dict.fromkeys([*out.get(kernel, []), *beside]))
    return out


def needs_sizes(found: Sequence[Tunable], source: str) -> bool:
    """Whether a block knob of ``found`` (a block size or a tiling knob: a heuristic's ``BLOCK_N``, late48's l173)
    spans a tile of a kernel that a size of the problem spans too: a raise of it is bounded by those sizes at the
    ``SHAPES`` entries, which a run of the task tells."""
    sizes = size_tile_params(found, source)
    return any(
        t.editable
        and not t.semantic
        and t.category in (ActionCategory.BLOCK_SIZE, ActionCategory.TILING)
        and any(sizes.get(k) and _growth(source, k).get(t.name, -1) >= 0 for k in _kernels(t))
        for t in found
    )


def computed_most(found: Sequence[Tunable], kernel: str, param: str) -> int | None:
    """The most the computed setting ``kernel`` gets as ``param`` can be, where its computation caps it by an integer
    literal (``BLOCK_D = min(triton.next_power_of_2(D), 64)``: 64, whatever ``D``); ``None`` where it is not so
    capped (a cap by a name, a knob of its own, moves with its edit)."""
    computed = [t.computed for t in found if t.kernel == kernel and t.name == param and t.computed is not None]
    if len(computed) != 1:
        return None
    text = computed[0]
    try:
        line = cst.parse_statement(text) if "=" in text.replace("==", "") else None
        expr = cst.parse_expression(text) if line is None else None
    except cst.ParserSyntaxError:
        return None
    if line is not None:
        body = line.body[0] if isinstance(line, cst.SimpleStatementLine) and len(line.body) == 1 else None
        expr = body.value if isinstance(body, cst.Assign) else None
    if not (isinstance(expr, cst.Call) and isinstance(expr.func, cst.Name) and expr.func.value == "min"):
        return None
    caps = [int(a.value.evaluated_value) for a in expr.args if not a.star and isinstance(a.value, cst.Integer)]
    return min(caps) if caps else None


def bound_test(bounds: Mapping[str, int]) -> str:
    """The test a raised tile is set under: each size parameter at most its largest value at the entries, as a
    heuristic reads the kernel's arguments (``args["d"] <= 32 and args["e"] <= 64``)."""
    return " and ".join(f"{argument_key(p)} <= {v}" for p, v in bounds.items())


def size_bounds(
    base: str,
    moved: Mapping[str, tuple[Sequence[str], object, object]],
    found: Sequence[Tunable],
    told: Callable[[str, str], Sequence[int]],
    *,
    said: str,
) -> dict[str, int] | str:
    """The bound a pick's settings ``moved`` (:func:`raised_sizes`' ``moved``) are set under: each size parameter
    beside a tile it raises, at most its largest value where ``told`` says the entries ran it (:func:`size_bounded`);
    empty where the pick raises no such tile, or the computation caps the size at what the entries gave it; why not,
    where no run told such a size at any entry."""
    bounds: dict[str, int] = {}
    for kernel, params in raised_sizes(moved, base, found).items():
        for param in params:
            seen = list(told(kernel, param))
            if not seen:
                return (
                    f"{said} raises a tile of {kernel} beside {param}, a size of the problem no run told at the "
                    "SHAPES entries: past them its footprint was never compiled; not written"
                )
            most = computed_most(found, kernel, param)
            if most is not None and most <= max(seen):
                continue  # the computation never passes what the entries gave it (breaker29's q92: ``min(..., 64)``)
            bounds[param] = max(bounds.get(param, 0), *seen)
    return bounds


def size_bounded(
    base: str,
    new: str,
    moved: Mapping[str, tuple[Sequence[str], object, object]],
    found: Sequence[Tunable],
    told: Callable[[str, str], Sequence[int]],
    *,
    defaults: Mapping[str, int] | None = None,
    said: str,
) -> tuple[str | None, str | None]:
    """``new`` (``base`` with the settings ``moved`` written plainly, :func:`raised_sizes`' ``moved``) with every
    setting it moved set under the sizes the ``SHAPES`` entries checked, where it raises a tile of a kernel whose
    tiles a size of the problem spans too (``if d <= 32 and e <= 64:  # kernelopt: tuned``, the original's values past
    them, late44's l140); ``new`` itself and no note where it raises none. ``told(kernel, param)``: the values of the
    size ``param`` where ``kernel`` was launched at the entries a run of the task ran; ``said``: the pick in words. No
    text, and why, where such a size was not told at any entry or the bound cannot be written where the settings are
    set: past the entries the raised tile's footprint was never compiled, and may not fit where the original does.
    The one rule for ``tune``'s write and ``tunables --set``'s (wrongkernel31, v184: ``--set`` wrote the raise for
    every size)."""
    from kernelopt.tunables.guard import PORTABLE_DEFAULTS, bound_moves

    bounds = size_bounds(base, moved, found, told, said=said)
    if isinstance(bounds, str):
        return None, bounds
    if not bounds:
        return new, None
    test = bound_test(bounds)
    bounded = bound_moves(base, new, test, PORTABLE_DEFAULTS if defaults is None else defaults, at_launch=True)
    if bounded.new_source is None:
        return None, (
            f"{said} raises a tile beside sizes of the problem, set only up to the SHAPES entries' ({test}), and "
            f"{bounded.note}: not written"
        )
    why = ", ".join(f"{p} up to {v}" for p, v in bounds.items())
    return bounded.new_source, f"{bounded.note}: the raised tile's footprint grows with {why} checked (l140)"
