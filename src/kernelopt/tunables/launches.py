"""The launches of a kernel file from what tunable discovery lists (pure: the tunables are given).

``kernelopt tunables`` lists knobs per *group*: a launch site (``launch k (kernel.py:31)``), one
``triton.Config`` of an autotune list, a ``@triton.heuristics`` entry, or no group (a marked constant of a
CUDA kernel). A *launch* is what one tuning session configures jointly (:mod:`kernelopt.tuning.launch` builds
its space). This is the one place that groups the knobs into launches and says which knobs cannot change a
launch's speed, so ``kernelopt tune`` and the loop's planner (one session a launch, issue 32 case h11) see the
same launches.

A launch's *label* carries its line (``launch _ln_bwd_dx (kernel.py:59)``), for a person to find it; its
*identity* (:attr:`Launch.identity`, ``launch _ln_bwd_dx in run()``) carries none, so a version that moves lines
(a kept tuning session that adds a guard) keeps it: the loop's plans, records and stop rule name a launch by it
(:func:`same_launch` also reads the labels older records hold).
"""

from __future__ import annotations

import ast
import re
from collections.abc import Collection, Sequence
from dataclasses import dataclass, field

from kernelopt import pyparse
from kernelopt.tunables.model import Tunable, TunableKind

#: The label of the knobs that belong to no launch (marked constants of a CUDA kernel).
NO_LAUNCH = "module constants (no launch)"


#: a label's location suffix: `` (kernel.py:59)``
_AT_LINE = re.compile(r" \([^()]*:\d+\)$")
#: an identity's function suffix: `` in run()`` or `` at module level``
_IN_FUNCTION = re.compile(r"( in [\w.]+\(\)| at module level)$")
#: a launch site's label (:func:`launch_label`): ``launch _bwd_inter_kernel (kernel.py:462)``, ``launch k#2
#: (kernel.py:80)`` for the second launch of a kernel the file launches more than once
_LAUNCH_LABEL = re.compile(r"^launch (?P<key>(?P<kernel>\w+)(?:#\d+)?) \(.*:\d+\)$")


def launch_label(launch_id: str, at: str) -> str:
    """The group label of a launch site as discovery lists it: ``launch k#2 (kernel.py:80)`` (``launch_id``: the
    kernel's name, with ``#N`` where the file launches it more than once; ``at``: ``file:line``). The one maker of the
    form :func:`launch_key` and :func:`launched_kernel` read."""
    return f"launch {launch_id} ({at})"


def launch_key(label: str) -> str | None:
    """The launch's key of a launch site's label (``k#2`` of ``launch k#2 (kernel.py:80)``, what ``--kernel`` takes);
    ``None`` for any other group (an autotune list's ``k.configs``, a heuristics entry, :data:`NO_LAUNCH`)."""
    found = _LAUNCH_LABEL.match(label)
    return found.group("key") if found else None


def launched_kernel(label: str) -> str | None:
    """The kernel a launch site's label launches (``k`` of ``launch k#2 (kernel.py:80)``); ``None`` for any other
    group, or a launch whose kernel discovery could not name."""
    found = _LAUNCH_LABEL.match(label)
    return found.group("kernel") if found else None


@dataclass
class Launch:
    """One launch: its label as discovery prints it (with its line), its kernel, its tunables, and its identity
    (the same in every version of the file, no line number: :func:`stable_name`)."""

    label: str
    kernel: str | None
    tunables: list[Tunable] = field(default_factory=list)
    identity: str = ""

    def __post_init__(self) -> None:
        self.identity = self.identity or stable_name(self.label)

    def knob_names(self) -> list[str]:
        """The names of its knobs, in discovery's order, each once."""
        return list(dict.fromkeys(t.name for t in self.tunables))


def stable_name(label: str) -> str:
    """A group label without its location: ``k.configs`` and :data:`NO_LAUNCH` as they are, ``k.heuristics
    (kernel.py:12)`` as ``k.heuristics`` (a launch site's identity comes from discovery, ``Tunable.launch_ids``)."""
    return _AT_LINE.sub("", label)


def same_launch(stored: str | None, identity: str) -> bool:
    """Whether a launch named ``stored`` in a plan or a record (an identity, or the label an older record holds,
    ``launch _ln_bwd_dx (kernel.py:59)``) is the launch whose identity is ``identity``: the same identity, or an
    old label of the same kernel and ordinal (its line may have moved since)."""
    if stored is None:
        return False
    if stored == identity:
        return True
    if _AT_LINE.search(stored) is None:
        return False
    return stable_name(stored) == _IN_FUNCTION.sub("", identity)


def loop_kernels(source: str) -> frozenset[str]:
    """The functions of ``source`` whose body holds a ``for`` or ``while`` loop (empty when it does not parse)."""
    try:
        tree = pyparse.parse(source)
    except SyntaxError:
        return frozenset()
    return frozenset(
        f.name
        for f in ast.walk(tree)
        if isinstance(f, ast.FunctionDef | ast.AsyncFunctionDef)
        and any(isinstance(n, ast.For | ast.While | ast.AsyncFor) for n in ast.walk(f))
    )


def branch_kernels(source: str) -> frozenset[str]:
    """The kernels ``source`` launches in one branch of an ``if`` and not in its other (``run()`` picking a kernel by
    size: ``if n <= 128: one_block[grid](...)`` / ``else: looped[grid](...)``; or a launch under an ``if`` alone,
    AITER's split-K reduce under ``if config["NUM_KSPLIT"] > 1:``): which of them runs at a ``SHAPES`` entry only a
    run tells, and an entry where one does not run gives no figure for its knobs (breaker22: the reduce kernel's tiles
    were timed at two entries where it never ran, their noise read as one entry's "own best", late30 z81). Empty
    when it does not parse."""
    try:
        tree = pyparse.parse(source)
    except SyntaxError:
        return frozenset()

    def launched(body: Sequence[ast.stmt]) -> set[str]:
        return {
            n.func.value.id
            for stmt in body
            for n in ast.walk(stmt)
            if isinstance(n, ast.Call) and isinstance(n.func, ast.Subscript) and isinstance(n.func.value, ast.Name)
        }

    out: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If):
            one, other = launched(node.body), launched(node.orelse)
            if one != other:
                out |= one ^ other
    return frozenset(out)


def inert_reason(t: Tunable, looped: Collection[str] | None) -> str | None:
    """Why ``t`` cannot change the launch's speed (then it is held at its value), or ``None``."""
    if t.name == "num_ctas" and t.kind is TunableKind.LAUNCH_DEFAULT:
        return "thread-block clusters: left at Triton's default unless the launch sets num_ctas"
    if t.name == "num_stages" and looped is not None and t.kernel is not None and t.kernel not in looped:
        return f"{t.kernel} has no loop for Triton to pipeline"
    return None


def held_knobs(tunables: Sequence[Tunable], looped: Collection[str] | None) -> dict[str, str]:
    """Tunable key -> why it is held at its value (:func:`inert_reason`)."""
    return {t.key: why for t in tunables if (why := inert_reason(t, looped)) is not None}


def launches(tunables: Sequence[Tunable], looped: Collection[str] | None = None) -> list[Launch]:
    """Every launch with at least one editable, non-semantic knob that can change its speed, in source order.

    ``looped``: the kernels of the file that have a loop (:func:`loop_kernels`); ``None``: unknown, every
    ``num_stages`` is a knob.
    """
    held = held_knobs(tunables, looped)
    usable = [t for t in tunables if t.editable and not t.semantic and t.key not in held]
    out: dict[str, Launch] = {}
    heuristics: list[Tunable] = []
    for t in usable:
        if t.kind is TunableKind.HEURISTIC:
            heuristics.append(t)
            continue
        if t.kind is TunableKind.AUTOTUNE_CONFIG:
            labels = [f"{t.kernel}.configs"]
        else:
            labels = [g for g in t.groups if not g.startswith(f"{t.kernel}.heuristics")] or [NO_LAUNCH]
        for label in labels:
            identity = t.launch_ids.get(label, "")
            la = out.setdefault(label, Launch(label, t.kernel if label != NO_LAUNCH else None, identity=identity))
            if len(t.groups) == 1 and label != NO_LAUNCH:
                # a knob of this launch alone names its kernel (one setting several launches read is listed
                # under the first launch's kernel)
                la.kernel = t.kernel
            la.tunables.append(t)
    for h in heuristics:
        hosts = [la for la in out.values() if la.kernel == h.kernel] or [
            out.setdefault(f"{h.kernel}.heuristics", Launch(f"{h.kernel}.heuristics", h.kernel))
        ]
        for la in hosts:
            la.tunables.append(h)
    return list(out.values())


def profiled_launch(profiled: str | None, tunables: Sequence[Tunable]) -> str | None:
    """The kernel of the file that a profiler's kernel name is (``add_kernel`` for ``add_kernel_0d1d``):
    the longest kernel name it equals or starts with; ``None`` when none."""
    if not profiled:
        return None
    kernels = sorted({t.kernel for t in tunables if t.kernel}, key=len, reverse=True)
    return next((k for k in kernels if profiled == k or profiled.startswith(k)), None)


def session_order(found: Sequence[Launch], profiled: str | None = None) -> list[Launch]:
    """The launches in the order the loop tunes them, one session each: first the one ``kernelopt tune`` tunes
    by default (:func:`tuned_first` of the profiled kernel's launches, else of all), then the others in source
    order."""
    if not found:
        return []
    kernel = profiled_launch(profiled, [t for la in found for t in la.tunables])
    pool = [la for la in found if kernel is not None and la.kernel == kernel] or list(found)
    first = tuned_first(pool)
    return [first, *(la for la in found if la is not first)]


def tuned_first(pool: Sequence[Launch]) -> Launch:
    """The launch a session tunes first among ``pool`` (``kernelopt tune`` without ``--kernel``, the loop's first
    session): the one with most knobs; on a tie, an autotune list before a launch site (the space its authors
    declared for tuning: Mamba's ``_chunk_cumsum_fwd_kernel`` autotunes ``BLOCK_SIZE_H`` and computes the chunk's
    block at its launch, breaker8 m3), then the first in source order."""

    return max(pool, key=_rank)


def _rank(la: Launch) -> tuple[int, bool]:
    """:func:`tuned_first`'s order: its knobs, then whether it holds an autotune list."""
    return len(la.knob_names()), any(t.kind is TunableKind.AUTOTUNE_CONFIG for t in la.tunables)


def first_reason(pool: Sequence[Launch], chosen: Launch) -> str:
    """Why :func:`tuned_first` takes ``chosen`` among ``pool`` (leftovers27 l134): the most knobs, else an autotune
    list on a tie (its authors' space), else the first in source order on a tie."""
    knobs, listed = _rank(chosen)
    tied = [la for la in pool if la is not chosen and len(la.knob_names()) == knobs]
    if not tied:
        return f"the one with the most knobs ({knobs})"
    if listed and not any(_rank(la)[1] for la in tied):
        return f"an autotune list, its authors' space, where another launch has as many knobs ({knobs})"
    return f"the first in source order of those with the most knobs ({knobs})"
