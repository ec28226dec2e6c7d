"""The knob values that can never be written, found before any candidate is proposed.

A session times only what ``tune`` could write (:func:`~kernelopt.tuning.kernel_evaluator.knob_editor`,
``writable``): a tile set in a kernel's decorator (an autotune ``Config``, a heuristic's literal) or at module level
that no longer divides a size the original handled cannot be guarded by a size, so
:func:`~kernelopt.tunables.guard.guard_edit` refuses it, and the session set such a candidate aside untimed after
the strategy proposed it. On the H100 (2026-12-06) 14 of grouped_gemm's 34 candidates were "cannot be written:
BLOCK_SIZE_K=32 does not divide every size the original BLOCK_SIZE_K=16 handled": proposals, edits and rounds spent
on configurations known unwritable before any run.

:func:`writable_space` asks the guard once per value, before the session: each value of a knob the guard cannot
guard (a decorator's or a module-level setting) is moved alone from the current configuration, and a value whose
move cannot be written leaves the knob's domain (the space's fit rules name it, and the space's size is what is
left). The guard's rules of that kind read one knob's value against the original's (a divisor of every value the
list held, a block at least the smallest that covered a row), so the value is unwritable beside any other; where a
refusal would read several knobs, the session's screen still sets each candidate aside as before.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from kernelopt.oneline import one_line
from kernelopt.tunables.knobs import LAUNCH_OPTIONS
from kernelopt.tunables.model import Tunable, TunableKind
from kernelopt.tuning.candidate import Value
from kernelopt.tuning.kernel_evaluator import UNWRITABLE, Apply, Refusal, divides
from kernelopt.tuning.space import Space, knob_of

#: Where a setting lives that the guard cannot guard by a size (it refuses a value instead of guarding it).
UNGUARDABLE = frozenset(
    {TunableKind.AUTOTUNE_CONFIG, TunableKind.HEURISTIC, TunableKind.MODULE_CONSTANT, TunableKind.MARKED_CONSTANT}
)


#: Edits asked of the guard at most (each parses the edited file: about 0.3 s for grouped_gemm's 140 lines on a loaded
#: 2-core CPU); past it, the session's screen sets the rest aside as it meets them.
PROBES = 24


def writable_space(space: Space, apply: Apply, tunables: Sequence[Tunable]) -> Space:
    """``space`` without the values no configuration can be written with (see the module docstring); ``space``
    itself when there are none or its current configuration is not known.

    Args:
        space: the fit-pruned space of the launch.
        apply: the session's editor, ``writable`` (its refusals of an unwritable edit start :data:`UNWRITABLE`).
        tunables: discovery's knobs, which say where each knob of the space lives.

    Only a knob the kernel does not compute from the problem, set where the guard cannot guard it
    (:data:`UNGUARDABLE`), and not a launch option, is probed, at its values that do not divide its current one and
    whose single move from the current configuration fits the space, smallest first: a value refused by the
    divisor rule takes its multiples with it, and the first value written ends the knob's probes (the rule does not
    hold it). One edit a knob, most often (4 for grouped_gemm), each one the session would have made for that
    neighbour. A block below the smallest that covered a row (the guard's other rule of this kind) is left to the
    session's screen.
    """
    current = space.current()
    if current is None or not space.literal(current):
        return space
    kinds = {t.key: t.kind for t in tunables}
    knobs, rules = [], []
    probes = 0
    for knob in space.knobs:
        origin = space.origins.get(knob.name)
        if (
            origin is None
            or knob.name in LAUNCH_OPTIONS
            or space.computed(knob.name)
            or not any(kinds.get(k) in UNGUARDABLE for k in origin.keys)
        ):
            knobs.append(knob)
            continue
        refused: dict[Value, str] = {}
        for value in knob.values:  # ascending: the smallest non-divisor first
            if value in refused or _divides(value, current[knob.name]):
                continue
            moved = current.with_values({knob.name: value})
            if not space.fits(moved) or probes >= PROBES:
                continue
            probes += 1
            made = apply(moved)
            if not (isinstance(made, Refusal) and made.reason.startswith(UNWRITABLE)):
                break  # written: the guard's divisor rule does not hold this knob (a masked tile, a guard written)
            refused[value] = made.reason.removeprefix(UNWRITABLE)
            if "does not divide" in refused[value]:  # a multiple of a non-divisor divides nothing more
                for other in knob.values:
                    if other not in refused and _divides(value, other):
                        refused[other] = refused[value]
        kept = [v for v in knob.values if v not in refused]
        if not refused or not kept:
            knobs.append(knob)
            continue
        knobs.append(knob_of(knob.name, kept, knob.default))
        first = next(iter(refused.values()))
        rules.append(f"cannot be written: {knob.name} = {', '.join(map(str, refused))} ({one_line(first, 240)})")
    if not rules:
        return space
    return replace(
        space,
        knobs=tuple(knobs),
        fit_rules=(*space.fit_rules, *rules),
        domain_notes=(*space.domain_notes, *rules),
        _fit_cache={},
    )


def _divides(value: Value, current: Value) -> bool:
    """``value`` divides the integer ``current`` (``current`` itself included): legal wherever the original was by
    the guard's divisor rule (a divisor of one value of a list divides their least common multiple), so not probed."""
    return value == current or divides(value, current)
