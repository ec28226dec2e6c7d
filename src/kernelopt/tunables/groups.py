"""Work groups: a ``tl.constexpr`` that sets how many items (heads, rows, tokens) one program handles in a loop.

Unsloth's RoPE handles ``ROPE_GROUP_SIZE`` heads a program: ``head_start = pid * ROPE_GROUP_SIZE``, ``for k in
range(head_start, min(head_start + ROPE_GROUP_SIZE, n_heads))``, and the host counts the groups with a ceiling
(``div, mod = divmod(n_heads, ROPE_GROUP_SIZE)``, ``n_groups = div + (mod != 0)``). Any group size gives the same
result there: the loop's end is bounded by the count it groups (the last group is short), and the grid covers every
item. That is a knob (its name ``*_GROUP_SIZE``, :func:`~kernelopt.tunables.knobs.knob_rule`).

A group size is no such knob (:func:`group_refusal`) when the kernel reads it as what it computes (a quantization
group: ``tl.arange(0, GROUP)`` spans the elements one scale covers), when the group's end is not bounded (``range(
start, start + G)``: a size G does not divide is read past its end, and which sizes it divides cannot be known), or
when the host does not count the groups with a ceiling (``n // G`` leaves the last items undone). Pure: libcst
nodes in, a line out.
"""

from __future__ import annotations

import libcst as cst

from kernelopt.tunables.blocks import cdiv_args, dotted, walk

_MINIMA = frozenset({"min", "minimum"})


def _reads(node: cst.CSTNode, name: str) -> bool:
    return any(isinstance(n, cst.Name) and n.value == name for n in walk(node))


def _calls(node: cst.CSTNode, last: frozenset[str] | set[str]) -> list[cst.Call]:
    return [n for n in walk(node) if isinstance(n, cst.Call) and dotted(n.func).split(".")[-1] in last]


def _bounded(kernel: cst.FunctionDef, name: str) -> bool:
    """The kernel bounds a group's end by what it groups: ``min(start + G, n)`` (or ``tl.minimum``)."""
    for call in _calls(kernel.body, _MINIMA):
        for arg in call.args:
            adds = [
                n for n in walk(arg.value) if isinstance(n, cst.BinaryOperation) and isinstance(n.operator, cst.Add)
            ]
            if any(_reads(a, name) for a in adds):
                return True
    return False


def _ceiling_count(launcher: cst.FunctionDef, name: str) -> bool:
    """The launching function counts the groups with a ceiling: ``triton.cdiv(n, G)``, ``(n + G - 1) // G``, or
    ``divmod(n, G)`` whose remainder it tests (``div + (mod != 0)``)."""
    if any((c := cdiv_args(n)) is not None and _reads(c[1], name) for n in walk(launcher.body)):
        return True
    for node in walk(launcher.body):  # (n + G - 1) // G
        if (
            isinstance(node, cst.BinaryOperation)
            and isinstance(node.operator, cst.FloorDivide)
            and isinstance(node.left, cst.BinaryOperation)
            and _reads(node.right, name)
            and _reads(node.left, name)
        ):
            return True
    for node in walk(launcher.body):
        if not (isinstance(node, cst.Assign) and isinstance(node.value, cst.Call)):
            continue
        call = node.value
        if dotted(call.func) != "divmod" or len(call.args) != 2 or not _reads(call.args[1].value, name):
            continue
        target = node.targets[0].target
        if not (isinstance(target, cst.Tuple) and len(target.elements) == 2):
            continue
        rest = target.elements[1].value
        if isinstance(rest, cst.Name) and any(
            isinstance(c, cst.Comparison) and _reads(c, rest.value) for c in walk(launcher.body)
        ):
            return True
    return False


def group_refusal(kernel: cst.FunctionDef, launcher: cst.FunctionDef | None, name: str) -> str | None:
    """Why the work group ``name`` of ``kernel`` launched from ``launcher`` is not a knob (module docstring), or
    ``None`` when it is: bounded in the kernel, counted by a ceiling at the launch, read as no block."""
    if not _reads(kernel.body, name):
        return None
    if any(_reads(c, name) for c in _calls(kernel.body, {"arange", "zeros", "full"})):
        return f"'{name}' spans a block of the kernel (a group of what it computes, as a quantization group)"
    if not _bounded(kernel, name):
        return (
            f"'{name}' groups items with no bound on a group's end (min(start + {name}, n)): a value that does not "
            "divide what it groups would read past its end"
        )
    if launcher is None or not _ceiling_count(launcher, name):
        return (
            f"the launch does not count the groups of '{name}' with a ceiling (triton.cdiv, or divmod and its "
            "remainder): another value would leave the last items undone"
        )
    return None
