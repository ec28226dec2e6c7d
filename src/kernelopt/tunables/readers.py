"""Which settings a kernel file computes from a knob: a launch option moved moves what is computed from it too
(``num_warps = 2`` then ``BLOCK = num_warps * 32``), so a change no rule on launch options would check can change which
elements a kernel covers (newuser11's n61: ``num_warps=8`` moved BLOCK from 64 to 256 over a grid of ``n // BLOCK``
programs without masks, wrong at n=64). The one reading of it, for ``tune``'s net and ``tunables --set``."""

from __future__ import annotations

import ast
from collections.abc import Collection, Sequence

from kernelopt.tunables.model import Tunable, TunableKind


def computed_readers(tunables: Sequence[Tunable], source: str, names: Collection[str]) -> list[Tunable]:
    """The settings of ``tunables`` the file computes from a name one of the knobs ``names`` binds: the knob's own
    name, and each name its literal's line assigns (``nw = 2`` beside ``num_warps=nw``)."""
    lines = source.splitlines()
    bound: set[str] = set(names)
    for t in tunables:
        if t.name not in names or t.location is None:
            continue
        try:
            tree = ast.parse(lines[int(t.location.rsplit(":", 1)[1]) - 1].strip())
        except (SyntaxError, ValueError, IndexError):
            continue
        bound |= {
            n.id for node in tree.body if isinstance(node, ast.Assign) for n in node.targets if isinstance(n, ast.Name)
        }
    return [t for t in tunables if t.kind is TunableKind.COMPUTED_SETTING and set(t.size_names) & bound]
