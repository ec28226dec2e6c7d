"""The least value of an autotune list's settings when the host reads the autotuner's pick back (pure, over the
kernel file's text).

Mamba-2's state-passing backward sizes its per-block partial sums by a host constant (``BLOCK_SIZE_min = 64``,
``cdiv(dim, 64)`` columns) and, after the launch, sums ``cdiv(dim, _state_passing_bwd_kernel.best_config.kwargs[
"BLOCK_SIZE"])`` of them: host code written for the list's own blocks, none below 64. ``tune --kernel`` searched the
list's ``BLOCK_SIZE`` from 16, and its 16 and 32 wrote past the buffer (each crashed the interpreted worker and was
refused: two of six candidates spent). Where the host reads ``<kernel>.best_config`` (through a name bound to the
kernel too, ``k = kernel``, or ``getattr(kernel, "best_config")``: break16's b18), each setting of the kernel's list
(launch options aside) starts at the least value the authors listed; larger ones stay in the search.
"""

from __future__ import annotations

from collections.abc import Iterable

import libcst as cst

from kernelopt.numeric import is_int
from kernelopt.tunables.blocks import walk
from kernelopt.tunables.knobs import LAUNCH_OPTIONS
from kernelopt.tunables.model import Tunable
from kernelopt.tunables.syntax import parsed


def pick_floors(source: str, kernel: str, listed: Iterable[Tunable]) -> dict[str, tuple[int, str]]:
    """Setting -> (the least value ``kernel``'s autotune list gives it, why) when ``source`` reads
    ``kernel.best_config`` (``listed``: the list's tunables, ``k.configs[i].NAME``); empty otherwise."""
    reads = pick_reads(source, kernel)
    if not reads:
        return {}
    least: dict[str, int] = {}
    for t in listed:
        if ".configs[" in t.key and t.name not in LAUNCH_OPTIONS and is_int(t.value):
            least[t.name] = min(least.get(t.name, t.value), t.value)
    return {
        name: (
            low,
            f"the host reads {kernel}.best_config after the launch (line {reads[0]}), code written for the list's "
            f"own {name}, the least {low}",
        )
        for name, low in least.items()
    }


def pick_reads(source: str, kernel: str) -> list[int]:
    """The lines where ``source`` reads ``kernel``'s pick back, ``kernel.best_config`` (through a name bound to the
    kernel too, ``k = kernel``, or ``getattr(kernel, "best_config")``: break16's b18), in order; empty where it reads
    none or does not parse."""
    try:
        tree = parsed(source)  # the text's one parse, discovery's
    except cst.ParserSyntaxError:
        return []
    # the kernel's own name, and each name a plain assignment binds to it (``k = kernel``; ``k.best_config``)
    names = {kernel} | {
        t.target.value
        for n in walk(tree.module)
        if isinstance(n, cst.Assign) and isinstance(n.value, cst.Name) and n.value.value == kernel
        for t in n.targets
        if isinstance(t.target, cst.Name)
    }
    return sorted(
        tree.positions[n].start.line
        for n in walk(tree.module)
        if _best_config_of(n, names) or _getattr_best_config(n, names)
    )


def _best_config_of(node: cst.CSTNode, names: set[str]) -> bool:
    """``kernel.best_config``."""
    return (
        isinstance(node, cst.Attribute)
        and node.attr.value == "best_config"
        and isinstance(node.value, cst.Name)
        and node.value.value in names
    )


def _getattr_best_config(node: cst.CSTNode, names: set[str]) -> bool:
    """``getattr(kernel, "best_config")`` (a default after it or not)."""
    args = node.args if isinstance(node, cst.Call) else ()
    return (
        isinstance(node, cst.Call)
        and isinstance(node.func, cst.Name)
        and node.func.value == "getattr"
        and len(args) >= 2
        and isinstance(args[0].value, cst.Name)
        and args[0].value.value in names
        and isinstance(args[1].value, cst.SimpleString)
        and args[1].value.evaluated_value == "best_config"
    )
