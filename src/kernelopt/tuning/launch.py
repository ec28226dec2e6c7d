"""The space of one launch from what tunable discovery lists (pure: the tunables are given, nothing is read).

``kernelopt tunables`` lists knobs per *group*: a launch site (``launch k (kernel.py:31)``), one
``triton.Config`` of an autotune list, a ``@triton.heuristics`` entry, or no group (a marked constant of a
CUDA kernel). A *launch* here is what one tuning session configures jointly:

- a launch site's knobs (literal keywords, launch options left out, computed settings overridden at the
  launch, module constants that feed it), with the ``@triton.heuristics`` values of the same kernel;
- an autotuned kernel's ``triton.Config`` list, as one configuration (the edit pins the winner);
- the marked constants that belong to no launch (a CUDA block size).

Only editable, non-semantic knobs are knobs of the space, and only those that can change the launch's speed
(:func:`inert_reason`): ``num_stages`` of a kernel with no loop (Triton software-pipelines the loads of a
loop; the source tells, :func:`loop_kernels`), and ``num_ctas`` where the launch leaves it at Triton's default
of 1 (thread-block clusters, which Triton's autotune configs and Inductor's leave alone too), are held at their
value. Legal values: the tunable's own finite list
(:attr:`Tunable.legal_values`), narrowed to its family's range (:func:`kernelopt.planning.knobs.family_values`);
a family range when discovery gives no list; for a count of no known family, the powers of two from a
quarter to four times its value. The current value is always legal, so the current configuration is a
configuration of the space.

Fit pruning: :func:`kernelopt.tunables.resource_problems` with the caller's limits (shared memory of a
pipelined tile, registers, threads per block), and, when the problem's sizes are known, "a tile is no larger
than the problem": a tile of M/N/K at most the size of that axis rounded up to a power of two, a 1-D block at
most the largest size rounded up, or the extent its grid counts it over where a run told that and it is larger
(``triton.cdiv(n, BLOCK)`` with ``n = M * K``; a larger one only adds masked lanes); and a block pointer's tile a
thread, its sides' values at each ``SHAPES`` entry the kernel runs at, at most the authors' own largest there or
what the registers hold (:mod:`kernelopt.tunables.block_tiles`).
"""

from __future__ import annotations

import math
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass

from kernelopt.actions import ActionCategory
from kernelopt.errors import UsageError
from kernelopt.harness.interpreter import dot_min_k
from kernelopt.kernelsource import entry_imported, plain_torch_note
from kernelopt.numeric import is_int, is_number, plain_int
from kernelopt.planning.knobs import KnobFamily, family, family_values
from kernelopt.tunables import AutotuneEvaluation, ResourceLimits, Tunable, TunableKind, resource_problems
from kernelopt.tunables.block_tiles import (
    HeldTiles,
    block_tiles,
    calls_dot,
    picked_config,
    tile_entries,
    tile_problems,
)
from kernelopt.tunables.compile_cache import unread_launch_note
from kernelopt.tunables.empty_counts import Count, sized_counts
from kernelopt.tunables.guard import Divides, tile_checks, tiled_extents
from kernelopt.tunables.knobs import LAUNCH_OPTIONS, TRITON_MAX_TENSOR_NUMEL
from kernelopt.tunables.launches import (
    Launch,
    first_reason,
    held_knobs,
    launch_key,
    launches,
    same_launch,
    tuned_first,
)
from kernelopt.tunables.pick_readers import pick_floors
from kernelopt.tunables.quotients import quotient_floors
from kernelopt.tunables.tile_growth import tile_growth
from kernelopt.tunables.tile_numel import kernel_tiles
from kernelopt.tuning.candidate import Config, Value
from kernelopt.tuning.space import Fit, Knob, KnobOrigin, Space, knob_of

#: A count of no known family ranges over the powers of two from its value / SPREAD to its value * SPREAD.
SPREAD = 4
#: The values of a computed count of no known family whose value no run told.
_SMALL_COUNTS = (1, 2, 4, 8, 16, 32, 64)
_TILE_AXES = {KnobFamily.TILE_M: "M", KnobFamily.TILE_N: "N", KnobFamily.TILE_K: "K"}


def space_from_tunables(
    tunables: Sequence[Tunable],
    *,
    kernel: str | None = None,
    limits: ResourceLimits | None = None,
    problem_sizes: Mapping[str, int] | None = None,
    evaluation: AutotuneEvaluation | None = None,
    looped: Collection[str] | None = None,
    held_options: Mapping[str, Mapping[str, Value]] | None = None,
    covered: Mapping[tuple[str, str], int] | None = None,
    source: str | None = None,
) -> Space:
    """The space of one launch of a kernel file.

    Args:
        tunables: what :func:`kernelopt.tunables.discover` (or ``discover_evaluated``) lists for the file.
        kernel: which launch: a group label as discovery prints it, a kernel name (its launch with the most
            knobs), or a launch key prefix (``rms_kernel#2``). ``None``: the launch with the most knobs (the
            first in source order on a tie).
        limits: the GPU's block limits for fit pruning; ``None``: no resource check.
        problem_sizes: the problem's sizes (``{"M": 8192, "N": 128, "K": 4096}``, a ``SHAPES`` entry) for
            the rule "a tile is no larger than the problem"; ``None``: no such rule.
        evaluation: the evaluation discovery used; an autotuned kernel then starts from the config its
            autotuner picked (else from its first config).
        looped: the kernels of the file that have a loop (:func:`loop_kernels` of its source); ``None``:
            unknown, every ``num_stages`` is a knob.
        held_options: launch label -> the launch options it is written with that are no knobs here (on the CPU,
            where the interpreter ignores them: :func:`written_options`); the fit estimates with them (a launch of
            ``num_stages=8`` holds 8 tiles in shared memory on a GPU), not with Triton's defaults.
        covered: (kernel, size parameter) -> the largest value the parameter takes at the shapes every candidate
            is checked on (:func:`kernelopt.tunables.model.covered_sizes`): a knob one block of which must cover
            that size (:attr:`Tunable.covers`) starts at the smallest value that does (:func:`_cover_bound`); a
            smaller one leaves part of a row undone and fails the check, so it is never proposed.
        source: the kernel file's text: the chosen kernel's body tells which way its tiles move with each knob
            (:func:`kernelopt.tunables.tile_growth.tile_growth`, :attr:`Space.tile_growth`); ``None``: not read.

    Raises:
        UsageError: no editable knob, no launch of that name, or a space the fit rules leave empty (one
            line naming what discovery sees).
    """
    held = held_knobs(tunables, looped)
    found = launches(tunables, looped)
    if not found:
        raise UsageError(f"no tunable knob: discovery lists {seen_knobs(tunables, source)}")
    chosen = _choose(found, kernel, tunables)
    least = quotient_floors(source, chosen.kernel, _given(tunables, chosen.kernel)) if source and chosen.kernel else {}
    if source and chosen.kernel and chosen.label.endswith(".configs"):
        # the host reads the pick back: no block below the list's own (Mamba-2)
        _raise_floors(least, pick_floors(source, chosen.kernel, chosen.tunables))
    if source and chosen.kernel and limits is not None and limits.elem_bytes:
        _raise_floors(least, _dot_k_floors(source, chosen.kernel, chosen.tunables, limits.elem_bytes))
    checks = tile_checks(source) if source is not None else {}
    knobs, origins, notes, floors = _knobs(chosen, evaluation, covered or {}, least, checks)
    fixed = {n: v for n, v in (held_options or {}).get(chosen.label, {}).items() if n not in origins}
    tiles = block_tiles(source, chosen.kernel) if source is not None and chosen.kernel is not None else ()
    held_tiles = HeldTiles(
        tiles, tile_entries(chosen.kernel, chosen.label.endswith(".configs"), evaluation) if tiles else ()
    )
    extents = _extents(source, chosen.kernel, evaluation, problem_sizes) if problem_sizes else {}
    numel = kernel_tiles(source, chosen.kernel) if source is not None and chosen.kernel is not None else ()
    counts = _knob_counts(source, chosen.kernel, origins, _given(tunables, chosen.kernel)) if source else ()
    notes += [line for c in counts if (line := c.as_written()) is not None]
    fit, rules = _fit(knobs, origins, limits, problem_sizes, fixed, floors, held_tiles, extents, numel, counts)
    rules += [f"held at its value: {key} ({why})" for key, why in held.items()]
    growth = tile_growth(source, chosen.kernel) if source is not None and chosen.kernel is not None else None
    space = Space(tuple(knobs), fit, tuple(rules), chosen.kernel, chosen.label, origins, tuple(notes), growth)
    if space.size.count == 0:
        raise UsageError(
            f"{chosen.label}: the fit rules leave no configuration of {', '.join(k.describe() for k in knobs)}",
            hint=f"rules: {'; '.join(rules)}",
        )
    return space


def written_options(tunables: Sequence[Tunable]) -> dict[str, dict[str, Value]]:
    """Launch label -> the launch options (``num_warps``, ``num_stages``, ...) each launch site is written with, or
    runs with by Triton's default, as discovery read them: what a GPU runs where they are no knobs."""
    out: dict[str, dict[str, Value]] = {}
    for t in tunables:
        if t.name in LAUNCH_OPTIONS and t.kind is not TunableKind.AUTOTUNE_CONFIG and isinstance(t.value, int):
            for label in t.groups:
                out.setdefault(label, {})[t.name] = t.value
    return out


def seen_knobs(tunables: Sequence[Tunable], source: str | None = None) -> str:
    """What discovery lists of a file with no knob tune can move: each knob and why it cannot be edited; for a file
    with none whose kernel is launched from a cache of compiles (``source``), what to change."""
    if not tunables:
        cached = unread_launch_note(source) if source else None
        if cached is not None:
            return f"nothing: {cached}"
        torch_only = plain_torch_note(source) if source else None
        if torch_only is not None:
            return f"nothing: {torch_only}"
        imported = entry_imported(source) if source else None
        if imported is not None:
            return (
                f"nothing: kernel.py imports its entry point ({imported}) and launches no kernel of its own; tune "
                "and the loop edit kernel.py alone, so that kernel's knobs are out of their reach: put its code (its "
                "launch and the kernel it launches) in kernel.py"
            )
        return "nothing (no launch literal, autotune config or `# kernelopt: tunable` constant)"
    why = [f"{t.key} ({'semantic' if t.semantic else t.refused_reason or 'no value'})" for t in tunables]
    return "only knobs it cannot edit: " + ", ".join(why)


# ---------------------------------------------------------------------------------------------- inert knobs


# ---------------------------------------------------------------------------------------------- launches


def choice_line(tunables: Sequence[Tunable], space: Space, looped: Collection[str] | None) -> str | None:
    """Where the file has several launches with a knob (a backward's two passes), which one a session of ``space``
    tunes and why (:func:`~kernelopt.tunables.launches.tuned_first`'s rule, or the launch it was given), the others
    it leaves alone by name (``launch _ln_bwd_dwdb (kernel.py:63)``), and how to tune one of them (``--kernel``;
    leftovers27 l134); ``None`` for a file of one launch. ``looped`` is the space's own (:func:`loop_kernels` of the
    source): a loopless kernel's ``num_stages`` is no knob of it, so counted it would tie launches the space did not
    and call the pick "given" (review27 r70)."""
    pool = launches(tunables, looped)
    chosen = next((la for la in pool if la.label == space.launch), None)
    others = [la for la in pool if la is not chosen]
    if chosen is None or not others:
        return None
    names = "; ".join(la.label for la in others)
    why = first_reason(pool, chosen) if tuned_first(pool) is chosen else "the one this session was given"
    return (
        f"the file has {len(pool)} launches with knobs; this session tunes {chosen.label}, {why}, and leaves {names} "
        f"as {'it is' if len(others) == 1 else 'they are'}: --kernel NAME tunes another (a kernel's name or a "
        f"launch's label as `kernelopt tunables` prints it: --kernel {_taking(pool, others[0])})"
    )


def _taking(pool: list[Launch], la: Launch) -> str:
    """What ``--kernel`` takes to tune ``la`` (:func:`_choose`): its kernel's name where no other launch of ``pool``
    runs that kernel, else its key (``_scale#2``, the label's own words), which a kernel launched twice needs: its
    name takes the first launch again (review27 r71)."""
    if la.kernel is not None and sum(o.kernel == la.kernel for o in pool) == 1:
        return la.kernel
    key = launch_key(la.label)
    return key if key is not None and _choose(pool, key) is la else repr(la.label)


def _choose(launches: list[Launch], kernel: str | None, tunables: Sequence[Tunable] = ()) -> Launch:
    """The launch named by ``kernel`` (label, identity as the loop's plan names it, kernel name or label prefix),
    else :func:`~kernelopt.tunables.launches.tuned_first` of them (the loop's first session is the same launch);
    ``tunables`` (discovery's) says why a kernel named that has none."""
    pool = launches
    if kernel is not None:
        pool = [la for la in launches if kernel in (la.label, la.kernel, la.identity) or launch_key(la.label) == kernel]
        pool = pool or [la for la in launches if same_launch(kernel, la.identity)]
        pool = pool or [la for la in launches if la.label.startswith(kernel)]
        if not pool:
            names = "; ".join(la.label for la in launches)
            held = [t for t in tunables if t.kernel == kernel]
            if held:  # the launch is there, its knobs are not movable: say why, not that it does not exist
                why = f"launch {kernel} has no knob tune can move: {seen_knobs(held)}"
                raise UsageError(why, hint=f"launches with knobs: {names}")
            raise UsageError(f"no launch named {kernel!r}", hint=f"launches with knobs: {names}")
    return tuned_first(pool)


def _knob_name(t: Tunable) -> str:
    return t.name


# ---------------------------------------------------------------------------------------------- knobs


def _given(tunables: Sequence[Tunable], kernel: str) -> dict[str, int]:
    """The integer values the file gives ``kernel``'s settings, by name, where they agree (``SCALE_BLOCK_SIZE``: 32)."""
    seen: dict[str, set[int]] = {}
    for t in tunables:
        if t.kernel == kernel and (v := plain_int(t.value)) is not None:
            seen.setdefault(t.name, set()).add(v)
    return {name: next(iter(vs)) for name, vs in seen.items() if len(vs) == 1}


def _knobs(
    la: Launch,
    evaluation: AutotuneEvaluation | None,
    covered: Mapping[tuple[str, str], int],
    least: Mapping[str, tuple[int, str]],
    checks: Mapping[str, Sequence[Divides]],
) -> tuple[list[Knob], dict[str, KnobOrigin], list[str], dict[str, int]]:
    """The launch's knobs by name (an autotune list: one knob per name over all its configs), one line for each
    whose domain starts where its block covers the sizes checked (:func:`_cover_bound`) or where a range its body
    sizes by a quotient of it is empty below (``least``: :func:`kernelopt.tunables.quotients.quotient_floors`), or
    leaves out the values a host check of the launcher fails at every size (``checks``:
    :func:`~kernelopt.tunables.guard.tile_checks`, :func:`_checked_cut`), and that start by knob."""
    by_name: dict[str, list[Tunable]] = {}
    for t in la.tunables:
        by_name.setdefault(_knob_name(t), []).append(t)
    picked = picked_config(la.kernel, la.label.endswith(".configs"), evaluation)
    knobs: list[Knob] = []
    origins: dict[str, KnobOrigin] = {}
    notes: list[str] = []
    floors: dict[str, int] = {}
    for name, ts in by_name.items():
        first = ts[0]
        value = picked.get(name, first.value) if picked else first.value
        values, default = _domain(first, value)
        # an autotune list's own values are in its domain: the authors' choices (Mamba's BLOCK_SIZE_H of 1, 2
        # and 4 for a few heads sit below the block family's grid; breaker8 m7)
        values += [t.value for t in ts if _own_value(t) and t.value not in values]
        # a computed knob's values at the SHAPES entries are the authors' choices too (Mamba's BLOCK_SIZE_M of 4
        # and 8 rows a program for a large dstate sat below the block grid's 16: tunegaps11)
        values += _computed_values(first, values, la.kernel, evaluation)
        from_problem = first.computed is not None and not any(".configs[" in t.key for t in ts)  # as KnobOrigin's
        values, default, low, note = _cover_bound(
            name, first, values, default, None if from_problem else value, covered
        )
        if low is not None and note is not None:
            notes.append(note)
            floors[name] = low
        if name in least:
            values, default, note = _least_cut(name, values, default, value, *least[name])
            if note is not None:
                notes.append(note)
                floors[name] = max(floors.get(name, 0), least[name][0])
        values, default, note = _checked_cut(name, first, values, default, value, checks)
        if note is not None:
            notes.append(note)
        knobs.append(knob_of(name, values, default))
        origins[name] = KnobOrigin(
            keys=tuple(t.key for t in ts),
            value=value,
            computed=first.computed,
            feeds=tuple(first.feeds or [name]),
            categories=tuple(c.value for c in first.categories),
        )
    return knobs, origins, notes, floors


def _raise_floors(least: dict[str, tuple[int, str]], more: Mapping[str, tuple[int, str]]) -> None:
    """Each knob's floor of ``more`` (its least value, and why) put in ``least`` where it is higher than the one there:
    the highest floor, and its reason, wins."""
    for name, floor in more.items():
        if floor[0] > least.get(name, (0, ""))[0]:
            least[name] = floor


def _dot_k_floors(source: str, kernel: str, tunables: Sequence[Tunable], elem_bytes: int) -> dict[str, tuple[int, str]]:
    """Knob -> the least K tile of a kernel that multiplies with ``tl.dot`` operands ``elem_bytes`` wide, and why:
    Triton's NVIDIA backend compiles a dot only with K >= 32 for 8-bit operands, K >= 16 for any other
    (:func:`kernelopt.harness.interpreter.dot_min_k`), so bitsandbytes' int8 GEMM searched at ``BLOCK_K=16`` spent a
    candidate that failed to compile on an H100 (docs/faults.md knobs17). The K tile is the knob of the ``TILE_K``
    family (``BLOCK_K``, ``BLOCK_SIZE_K``); a kernel without a ``tl.dot`` has none."""
    if not calls_dot(source, kernel):
        return {}
    bits = 8 * elem_bytes
    need = dot_min_k(bits)
    why = (
        f"{kernel}'s tl.dot multiplies {bits}-bit operands, which a GPU compiles only with K >= {need} "
        "(Triton's NVIDIA backend, min_dot_size)"
    )
    return {t.name: (need, why) for t in tunables if _tunable_family(t) is KnobFamily.TILE_K}


def _cover_bound(
    name: str,
    t: Tunable,
    values: list[Value],
    default: Value,
    current: Value | None,
    covered: Mapping[tuple[str, str], int],
) -> tuple[list[Value], Value, int | None, str | None]:
    """The domain of a knob one block of which must cover a size (:attr:`Tunable.covers`), cut below the smallest
    value that covers the largest size checked, that value, and the line that says why; unchanged (bound and note
    ``None``) when the knob covers nothing or no size is known. The ``current`` literal stays (the current
    configuration is one of the space, wrong or not); a knob the kernel computes from the problem (``current``
    ``None``) keeps its computation, and the neighbour of its computation among the literals (its default, the value
    on the primary shape) moves up to the bound."""
    bounds: list[tuple[int, str]] = []
    for cover in t.covers:
        size = covered.get((cover.kernel, cover.size))
        now = plain_int(current) if cover.held else None
        low: int | None = None
        if size is not None:
            low = cover.lowest(values, size)
            if low is None:  # no value of the domain covers it: every literal but the current one would fail
                low = max((i for v in values if (i := plain_int(v)) is not None), default=None)
        if now is not None and (low is None or low < now):
            # a size past the entries (or one no run tells, a count loaded from memory) that the original covers
            # would be left undone, and no guard can be written: the knob only grows
            why = f"{cover.rule()}, and no guard by a size can be written for {name} (it covers {cover.size} up to "
            bounds.append((now, why + f"its value {now} wherever the original runs)"))
        elif low is not None and size is not None:
            bounds.append((low, f"{cover.rule()}, and {cover.size} is up to {size} at the SHAPES entries checked"))
    if not bounds:
        return values, default, None, None
    low, why = max(bounds)
    kept = [v for v in values if v == current or not _lt(v, low)]
    if len(kept) == len(values):
        return values, default, None, None
    if default not in kept or current is None:  # a computation's literal neighbour: the smallest that covers
        default = min((v for v in kept if not _lt(v, low)), key=_int_key)
    left = [v for v in values if v not in kept]
    return (
        kept,
        default,
        low,
        f"{name} starts at {low}: {why}, so a smaller {name} ({', '.join(map(str, left))}) would leave part of "
        "a row undone and is never proposed",
    )


def _least_cut(
    name: str, values: list[Value], default: Value, current: Value | None, low: int, why: str
) -> tuple[list[Value], Value, str | None]:
    """``values`` without those below ``low`` (the current one stays: the current configuration is one of the space),
    the default moved up to the least kept where it was cut, and the line that says why (``None``: nothing cut)."""
    kept = [v for v in values if v == current or not _lt(v, low)]
    if len(kept) == len(values):
        return values, default, None
    if default not in kept:
        default = min((v for v in kept if not _lt(v, low)), key=_int_key, default=kept[0])
    left = ", ".join(str(v) for v in values if v not in kept)
    return kept, default, f"{name} starts at {low}: {why}, so a smaller {name} ({left}) is never proposed"


def _checked_cut(
    name: str,
    t: Tunable,
    values: list[Value],
    default: Value,
    current: Value | None,
    checks: Mapping[str, Sequence[Divides]],
) -> tuple[list[Value], Value, str | None]:
    """``values`` without those a host check of the launcher bounding the tile by itself fails (``assert BLOCK <=
    1024``: :func:`~kernelopt.tunables.guard.tile_checks`), the current one kept, and the line that says why
    (``None``: nothing cut). Such a value fails the check at every size, so it is never written; timed, it ran the
    assert (wrongkernel31, v185: v158's tune timed BLOCK up to 1048576 past ``assert BLOCK <= 1024``). The check
    is matched by the tile's name as the knob or a parameter it feeds."""
    found = [d for n in dict.fromkeys([name, *t.feeds]) for d in checks.get(n, ())]
    if not found or not is_int(current):
        return values, default, None
    kept = [v for v in values if v == current or not is_int(v) or all(d.holds(current, v) for d in found)]
    if len(kept) == len(values):
        return values, default, None
    if default not in kept:
        default = current
    left = ", ".join(str(v) for v in values if v not in kept)
    unread = next((d for d in found if d.unread), None)
    if unread is not None:  # no value is known to fail it (review28 r82: "they fail ..., at every size" was said)
        said = f"{unread.why}, and {unread.missing}, so no value but {current} can be written"
        return kept, default, f"{name} leaves out {left}: {said}"
    chosen = next((d for d in found if d.chosen), None)
    if chosen is not None:  # a module name of several values: they fail it with one of them (v194)
        return kept, default, f"{name} leaves out {left}: they may fail {chosen.why}, with one of the values it reads"
    return kept, default, f"{name} leaves out {left}: they fail {found[0].why}, at every size"


def _lt(value: Value, limit: int) -> bool:
    return is_number(value) and value < limit


def _int_key(value: Value) -> float:
    return float(value) if is_number(value) else float("inf")


def _own_value(t: Tunable) -> bool:
    """Whether ``t`` is an autotune config's integer value its legality accepts."""
    v = t.value
    return t.kind is TunableKind.AUTOTUNE_CONFIG and is_int(v) and t.legality.problem(v) is None


def _computed_values(
    t: Tunable, values: list[Value], kernel: str | None, evaluation: AutotuneEvaluation | None
) -> list[Value]:
    """The legal values a knob computed from the problem took at the ``SHAPES`` entries the evaluation ran that
    ``values`` lacks, each with the powers of two between it and the grid (:func:`_up_to_grid`): what the
    authors' own computation gives, a heuristic's or a launcher's, is searched as their literals are."""
    if t.computed is None or kernel is None or evaluation is None:
        return []
    feed = t.feeds[0] if t.feeds else t.name
    # a launch value passed by keyword, else (passed positionally: Mamba's BLOCK_SIZE_M) the launching function's
    # local the setting is computed into; and that local beside the launch value, the largest a run's launches gave
    # it (breaker19 d4: LMDeploy's RMS norm, launched over the hidden size and then over each head, told its last
    # launch's block, 256 at H=1000, and the search offered none that covers 1000)
    local = t.name if t.kind is TunableKind.COMPUTED_SETTING else None
    given = [
        g
        for e in evaluation.shape_sizes
        for g in (
            e.launch_values.get(kernel, {}).get(feed, e.sizes.get(kernel, {}).get(local) if local else None),
            e.sizes.get(kernel, {}).get(local) if local else None,
        )
    ]
    out: list[Value] = []
    for v in sorted({i for g in given if (i := plain_int(g)) is not None}):
        if v in values or v in out or t.legality.problem(v) is not None:
            continue
        out.append(v)
        out += [w for w in _up_to_grid(t, v, [*values, *out]) if w not in out]
    return out


def _domain(t: Tunable, value: Value | None) -> tuple[list[Value], Value]:
    """The legal values of ``t`` and its default (its value, or the middle of the domain when unknown)."""
    fam = _tunable_family(t)
    grid = family_values(fam)
    # a marker's own list (``# kernelopt: tunable values=default,max-autotune``): every value it names, strings and
    # floats too (newuser18's n115: ``legal_values`` lists integers alone, and a string knob's space was its current
    # value, "MODE: one of ['default']")
    values: list[Value] = list(t.legal_values or t.legality.values or [])
    if values and grid is not None:
        values = [v for v in values if v in grid] or values
    elif not values and grid is not None:
        values = [v for v in grid if t.legality.problem(v) is None]
    elif not values and (i := plain_int(value)) is not None:
        values = _around(t, i)
    elif not values and value is None:
        values = [v for v in _SMALL_COUNTS if t.legality.problem(v) is None]
    if value is not None and value not in values:
        values.append(value)
        values += _up_to_grid(t, value, values) if grid is not None else []
    default = value if value is not None else values[len(values) // 2]
    return values, default


def _up_to_grid(t: Tunable, value: Value, values: list[Value]) -> list[Value]:
    """The powers of two between a current power of two below its family's grid and the grid's start, legal ones:
    xformers' ``BLOCK_SIZE_INDEX=1`` and attorch's ``BLOCK_SIZE_BATCH`` of 1 (a row a program) were searched at 1
    and 16 and up, never 2, 4 or 8 rows a program (breaker9)."""
    ints = [i for v in values if (i := plain_int(v)) is not None]
    if not is_int(value) or value < 1 or value & (value - 1) or not ints:
        return []
    start = min((v for v in ints if v > value), default=None)
    if start is None:
        return []
    return [
        v for v in (value << i for i in range(1, start.bit_length())) if v < start and t.legality.problem(v) is None
    ]


def _around(t: Tunable, value: int) -> list[Value]:
    """Powers of two from ``value / SPREAD`` to ``value * SPREAD`` that the knob's legality accepts."""
    lo, hi = max(1, value // SPREAD), max(1, value * SPREAD)
    powers = (1 << i for i in range(hi.bit_length() + 1))
    return [v for v in powers if lo <= v <= hi and t.legality.problem(v) is None]


# ---------------------------------------------------------------------------------------------- fit


def _fit(
    knobs: list[Knob],
    origins: Mapping[str, KnobOrigin],
    limits: ResourceLimits | None,
    problem_sizes: Mapping[str, int] | None,
    fixed: Mapping[str, Value] | None = None,
    floors: Mapping[str, int] | None = None,
    tiles: HeldTiles | None = None,
    extents: Mapping[str | int, int] | None = None,
    numel: Sequence[Sequence[str | int]] = (),
    counts: Sequence[KnobCount] = (),
) -> tuple[Fit | None, list[str]]:
    """The fit callable of the launch and the words for the rules it checks (``fixed``: the launch options it is
    written with that are no knobs, which the resource estimate reads; ``floors``: knob -> the smallest value that
    covers the rows checked, :func:`_cover_bound`, never "larger than the problem": a range of ``BLOCK // 2`` needs
    a block twice the row; ``tiles``: the kernel's block pointers' tiles and the entries it runs at, whose share a
    thread :func:`~kernelopt.tunables.block_tiles.tile_problems` bounds; ``extents``: a 1-D block's tile, by name or
    literal value -> the largest extent the launch's grid counts it over, :func:`_extents`; ``numel``: the sides of
    the tiles the kernel's body builds, :func:`~kernelopt.tunables.tile_numel.kernel_tiles`, each tile whose every
    side is a knob or an integer held to Triton's limit on a tensor's values, :func:`_numel_tiles`; ``counts``: the
    counts of pieces a loop or the grid is sized by that the knobs alone compute, none of which may be 0,
    :func:`_knob_counts`)."""
    rules: list[str] = []
    tiles = tiles if tiles is not None and tiles.entries and limits is not None else None
    tile = _tile_limits(knobs, origins, problem_sizes, extents or {}) if problem_sizes else {}
    tile = {n: max(m, (floors or {}).get(n, 0)) for n, m in tile.items()}
    fixed = dict(fixed or {})
    if limits is not None:
        rules.append(f"resource_problems({limits.model_dump_json(exclude={'source'})})")
        if fixed:
            rules.append("as written: " + ", ".join(f"{n}={v}" for n, v in sorted(fixed.items())))
    if tiles is not None:
        rules.append(tiles.rule())
    if tile:
        rules.append("tile <= problem: " + ", ".join(f"{n} <= {m}" for n, m in sorted(tile.items())))
    held = _numel_tiles(numel, origins)
    if held:
        spans = ", ".join(" x ".join(str(s) for s in t) for t in held)
        rules.append(f"a tile's values <= {TRITON_MAX_TENSOR_NUMEL} (Triton's limit): {spans}")
    if counts:
        rules.append("a count of pieces the knobs compute is not 0: " + "; ".join(c.rule() for c in counts))
    if not rules:
        return None, rules

    def fit(config: Config) -> list[str]:
        out = [f"{n}={config[n]} > {m}: larger than the problem" for n, m in tile.items() if _gt(config[n], m)]
        out += _numel_problems(held, config)
        out += [why for c in counts if (why := c.problem(config)) is not None]
        if limits is not None:
            values = {**fixed, **{feed: config[n] for n, o in origins.items() for feed in o.feeds}}
            out += resource_problems(values, limits)
            out += tile_problems(tiles, values, limits) if tiles is not None else []
        return out

    return fit, rules


def _numel_tiles(
    tiles: Sequence[Sequence[str | int]], origins: Mapping[str, KnobOrigin]
) -> list[tuple[str | int, ...]]:
    """The kernel's tiles (:func:`~kernelopt.tunables.tile_numel.kernel_tiles`) with each side a knob's name or an
    integer, those of at least one knob whose every side is one: xformers' ``(BLOCK_SIZE_INDEX, BLOCK_SIZE_ROW,
    BLOCK_SIZE_COL)`` of ``source_indices[:, None, None]``, ``rows[None, :, None]`` and ``cols[None, None, :]`` held
    64 x 128 x 512 values, past Triton's limit, and the candidate failed at once (breaker22's p4). A side the
    launch computes or passes from a size is no knob: its tile is left out (its values are not known here)."""
    knob_of = {feed: name for name, o in origins.items() for feed in o.feeds}
    out: list[tuple[str | int, ...]] = []
    for tile in tiles:
        sides = tuple(s if isinstance(s, int) else knob_of.get(s, "") for s in tile)
        if all(s != "" for s in sides) and any(isinstance(s, str) for s in sides) and sides not in out:
            out.append(sides)
    return out


def _numel_problems(tiles: Sequence[tuple[str | int, ...]], config: Config) -> list[str]:
    """Why ``config`` cannot run: a tile of :func:`_numel_tiles` holding more values than Triton allows (none where a
    side's value is not a number: a knob at its computation)."""
    out = []
    for tile in tiles:
        values = [s if isinstance(s, int) else config.get(s) for s in tile]
        if all(is_int(v) for v in values) and (n := math.prod(values)) > TRITON_MAX_TENSOR_NUMEL:
            shown = " x ".join(f"{s}={v}" if isinstance(s, str) else str(v) for s, v in zip(tile, values, strict=True))
            out.append(f"a tile of {shown} holds {n} values, past Triton's {TRITON_MAX_TENSOR_NUMEL}")
    return out


@dataclass(frozen=True)
class KnobCount:
    """A count of pieces the kernel's loop or grid is sized by (:func:`~kernelopt.tunables.empty_counts.sized_counts`)
    that the launch's knobs alone compute: ``knobs`` the knob each named factor is (by a name it feeds), ``given``
    the values the launch gives the others, ``current`` the knobs' values as written."""

    count: Count
    knobs: Mapping[str, str]
    given: Mapping[str, int]
    current: Mapping[str, Value | None]

    def rule(self) -> str:
        return f"{self.count.formula()} ({self.count.sizes})"

    def _value(self, values: Mapping[str, Value | None]) -> int | None:
        of = dict(self.given)
        for name, knob in self.knobs.items():
            if (v := plain_int(values.get(knob))) is None:
                return None
            of[name] = v
        return self.count.value(of)

    def _own(self, config: Config) -> bool:
        """Every knob of the count at its value as written: the user's own configuration, kept (:meth:`as_written`)."""
        return all(config.get(k) == self.current.get(k) for k in set(self.knobs.values()))

    def problem(self, config: Config) -> str | None:
        """Why ``config`` computes nothing there (the count is 0), ``None`` where it does or is the file's own."""
        if self._value(config) != 0 or self._own(config):
            return None
        shown = ", ".join(f"{k}={config[k]}" for k in sorted(set(self.knobs.values())))
        return f"{shown} make {self.count.formula()} 0: {self.count.sizes} runs over nothing"

    def as_written(self) -> str | None:
        """The line saying the file as written already makes the count 0 (kept as the current configuration, not
        refused), ``None`` where it does not."""
        if self._value(self.current) != 0:
            return None
        shown = ", ".join(f"{k}={self.current[k]}" for k in sorted(set(self.knobs.values())))
        return (
            f"as written, {shown} make {self.count.formula()} 0, so {self.count.sizes} runs over nothing: the "
            "current configuration is kept as the file's own, and no other configuration with a count of 0 is proposed"
        )


def _knob_counts(
    source: str, kernel: str | None, origins: Mapping[str, KnobOrigin], given: Mapping[str, int]
) -> list[KnobCount]:
    """The counts of pieces ``kernel`` loops or is launched over that the knobs of ``origins`` compute, each named
    factor a knob (by its name or a name it feeds) or a value the launch gives (``given``) and at least one a knob: a
    count that reads a size (``triton.cdiv(n, BLOCK)``, ``n // BLOCK``) is 0 at small sizes by design and is left
    out (docs/faults.md l100)."""
    if kernel is None:
        return []
    by_name = {feed: n for n, o in origins.items() for feed in (n, *o.feeds)}
    out: list[KnobCount] = []
    for count in sized_counts(source, kernel):
        knobs: dict[str, str] = {}
        fixed: dict[str, int] = {}
        for factor in (*count.dividend, *count.divisor):
            if isinstance(factor, int):
                continue
            knob = next((by_name[n] for n in factor if n in by_name), None)
            value = next((given[n] for n in factor if n in given), None)
            if knob is not None:
                knobs[factor[0]] = knob
            elif value is not None:
                fixed[factor[0]] = value
            else:
                break
        else:
            if knobs:
                current = {k: origins[k].value for k in knobs.values()}
                out.append(KnobCount(count, knobs, fixed, current))
    return out


def _gt(value: Value, limit: int) -> bool:
    return is_number(value) and value > limit


def _extents(
    source: str | None, kernel: str | None, evaluation: AutotuneEvaluation | None, sizes: Mapping[str, int]
) -> dict[str | int, int]:
    """A tile (its name, or a literal tile's value) -> the largest extent a grid of the launching function counts
    whole tiles of it over (:func:`~kernelopt.tunables.guard.tiled_extents`): ``triton.cdiv(n, BLOCK)``'s ``n`` at
    the ``SHAPES`` entries the run of the task told, else, where ``n`` is a product of the problem's sizes (``n = M *
    K``), the product of their largest values; empty where neither is read."""
    if source is None or kernel is None:
        return {}
    axes = {k.upper(): v for k, v in sizes.items()}
    out: dict[str | int, int] = {}
    for extent in tiled_extents(source, kernel):
        told = [
            v
            for entry in (evaluation.shape_sizes if evaluation is not None else ())
            if (v := plain_int(entry.sizes.get(kernel, {}).get(extent.size or ""))) is not None
        ]
        value = max(told, default=0)
        if not told and extent.factors and all(isinstance(f, int) or f.upper() in axes for f in extent.factors):
            value = math.prod(f if isinstance(f, int) else axes[f.upper()] for f in extent.factors)
        if value > out.get(extent.tile, 0):
            out[extent.tile] = value
    return out


def _tile_limits(
    knobs: list[Knob], origins: Mapping[str, KnobOrigin], sizes: Mapping[str, int], extents: Mapping[str | int, int]
) -> dict[str, int]:
    """Knob name -> the largest useful value: a tile of an axis the problem names, a 1-D block (at most the largest
    size, or the extent its grid counts it over where that is larger: ``n = M * K`` beside ``M = K = 1024`` is a
    vector of 2**20, newuser11; the block's name or its value as the launch writes it ties it to that grid)."""
    by_axis = {k.upper(): i for k, v in sizes.items() if (i := plain_int(v)) is not None and i > 0}
    if not by_axis:
        return {}
    out: dict[str, int] = {}
    for k in knobs:
        fam = _family(origins[k.name].feeds[0], origins[k.name].categories)
        axis = _TILE_AXES.get(fam)
        if axis is not None and axis in by_axis:
            out[k.name] = _pow2_ceil(by_axis[axis])
        elif fam is KnobFamily.BLOCK:
            o = origins[k.name]
            ties = [t for t in (*o.feeds, o.value) if isinstance(t, str) or is_int(t)]
            out[k.name] = _pow2_ceil(max([*by_axis.values(), *(extents[t] for t in ties if t in extents)]))
    lowest = {k.name: k.values[0] for k in knobs}
    # a problem smaller than the smallest legal tile prunes nothing (else it would prune everything)
    return {n: m for n, m in out.items() if not _gt(lowest[n], m)}


def _family(feed: str, categories: Sequence[str]) -> KnobFamily:
    """The knob family of the name a knob feeds; one of no known family whose primary category is a block size (a
    cap on a computed block, ``MAX_FUSED_SIZE``; a block pointer's ``BS``, breaker8 m8) is a block: its grid, and a
    1-D block's bound by the problem's largest size."""
    fam = family(feed)
    if fam is KnobFamily.OTHER and list(categories[:1]) == [ActionCategory.BLOCK_SIZE.value]:
        return KnobFamily.BLOCK
    return fam


def _tunable_family(t: Tunable) -> KnobFamily:
    """The knob family of ``t`` (:func:`_family` of the name it feeds, its own where it feeds none)."""
    return _family(t.feeds[0] if t.feeds else t.name, [c.value for c in t.categories])


def _pow2_ceil(n: int) -> int:
    return 1 << max(0, (n - 1).bit_length())
