"""The conditions that choose a statement of a function: the tests of the ``if`` / ``elif`` statements enclosing
it, and what a computed launch setting reads through them.

A launcher often picks its settings by branches rather than by one expression: vLLM's ``triton_scaled_mm`` assigns
``tile_shape = (64, 64, 256)`` under ``if next_power_of_2_M <= 32:``, another tuple under each ``elif``, then
unpacks ``block_size_m, block_size_n, block_size_k = tile_shape``. The tiles depend on ``M`` and ``N`` through the
tests, not through any expression assigned; a setting chosen so reads the names of its conditions.
"""

from __future__ import annotations

import libcst as cst

_SCOPES = (cst.FunctionDef, cst.ClassDef, cst.Lambda)


def conditions_over(root: cst.CSTNode, target: cst.CSTNode) -> list[cst.BaseExpression] | None:
    """The tests of the ``if`` / ``elif`` statements of ``root`` (a function, or its body) that decide whether
    ``target`` runs, outermost first: the test of an ``if`` whose body or ``else`` holds it, and of every ``elif``
    before it (an ``elif`` is an ``if`` in the ``else`` of the one above). ``[]`` when ``target`` runs
    unconditionally, ``None`` when ``root`` does not hold it. Nested functions and classes are not entered."""
    if root is target:
        return []
    for child in root.children:
        if isinstance(child, _SCOPES):
            continue
        found = conditions_over(child, target)
        if found is not None:
            chooses = isinstance(root, cst.If) and child is not root.test
            return [root.test, *found] if chooses else found
    return None
