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


def conditions_over(root: cst.CSTNode) -> dict[int, list[cst.BaseExpression]]:
    """The tests of the ``if`` / ``elif`` statements of ``root`` (a function, or its body) that decide whether each
    node of it runs, by the node's id, outermost first: the test of an ``if`` whose body or ``else`` holds it, and
    of every ``elif`` before it (an ``elif`` is an ``if`` in the ``else`` of the one above). ``[]`` for a node that
    runs unconditionally; a node ``root`` does not hold is not there. Nested functions and classes are not entered.
    One walk of ``root`` for all its nodes (a launcher's bindings each asked it of the whole function again)."""
    out: dict[int, list[cst.BaseExpression]] = {}

    def enter(node: cst.CSTNode, tests: list[cst.BaseExpression]) -> None:
        out[id(node)] = tests
        for child in node.children:
            if isinstance(child, _SCOPES):
                continue
            chooses = isinstance(node, cst.If) and child is not node.test
            enter(child, [*tests, node.test] if chooses else tests)  # type: ignore[attr-defined]

    enter(root, [])
    return out


def raised_on(node: cst.CSTNode) -> cst.BaseExpression | None:
    """The test of ``if test: raise ...`` (no ``else``, its body the raise alone): where it holds the function stops,
    so past the statement ``not test`` holds; ``None`` for any other statement. The one reading of a raising check,
    the guard's host checks' (wrongkernel30, v150) and a tile's limit's bounds (v112)."""
    if not (isinstance(node, cst.If) and node.orelse is None and isinstance(node.body, cst.IndentedBlock)):
        return None
    body = node.body.body
    raises = (
        len(body) == 1
        and isinstance(body[0], cst.SimpleStatementLine)
        and len(body[0].body) == 1
        and isinstance(body[0].body[0], cst.Raise)
    )
    return node.test if raises else None
