"""An autotune list a module function chooses by a condition: what a pinned list would drop.

Triton's matmul tutorial writes ``@triton.autotune(configs=get_autotune_config(), ...)`` where
``get_autotune_config()`` returns the CUDA list ``if is_cuda():`` and the HIP list ``else:``. A session tunes on
one platform and pins the list (:func:`kernelopt.tunables.edit.pin_configs`): the written kernel.py would run the
list tuned on CUDA (or the CPU) on AMD too, the user's HIP list silently gone. Which branch a session ran is known
only where the condition is evaluated, so the list is not pinned there: the write is refused and says why
(breaker19's "Seen, not changed"; seen19's s2).
"""

from __future__ import annotations

import libcst as cst

from kernelopt.tunables.analysis import analyze
from kernelopt.tunables.blocks import walk
from kernelopt.tunables.syntax import parsed


def _returns_under(node: cst.If) -> bool:
    """Whether a ``return`` of the function is under ``node`` (not in a function nested in it)."""
    stack: list[cst.CSTNode] = [node]
    while stack:
        at = stack.pop()
        if isinstance(at, cst.Return):
            return True
        if not isinstance(at, cst.FunctionDef | cst.Lambda):
            stack.extend(at.children)
    return False


def branched_list(source: str, kernel: str, filename: str = "kernel.py") -> str | None:
    """Why ``kernel``'s autotune list cannot be pinned without dropping a list the user wrote for another case: its
    ``configs=`` is a call of a module function of ``source`` that returns under a condition (``if is_cuda():``),
    one line naming the call and the condition with their lines; ``None`` for any other list."""
    an, _, _ = analyze(source, filename)
    expr = an.autotune_configs_expr(kernel)
    if not isinstance(expr, cst.Call) or not isinstance(expr.func, cst.Name):
        return None
    tree = parsed(source)
    name = expr.func.value
    fn = next(
        (s for s in tree.module.body if isinstance(s, cst.FunctionDef) and s.name.value == name),
        None,
    )
    if fn is None:
        return None
    branch = next((n for n in walk(fn.body) if isinstance(n, cst.If) and _returns_under(n)), None)
    if branch is None:
        return None
    test = tree.module.code_for_node(branch.test)
    return (
        f"{kernel}'s autotune list is {name}() (line {an.span(expr).line}), which chooses its list by `if {test}:` "
        f"(line {tree.positions[branch].start.line}): a pinned list would run the configs tuned here where that test "
        "chooses another list too, and the list written for there would be gone (pin the branch tuned by hand)"
    )
