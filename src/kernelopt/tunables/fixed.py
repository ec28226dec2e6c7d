"""The knobs the reference fixes: a constant of kernel.py that reference.py defines too and computes with.

A chunked operator (a chunk-gated scan, a chunked linear-attention state pass) is defined by its chunk: the
reference walks the input in chunks of ``CHUNK`` and the kernel in chunks of ``BT=CHUNK``, and any other chunk
gives other results, right ones for another operator. Such a constant reads like a block size in kernel.py
alone, so discovery listed it as a knob while ``tune`` then found every other value wrong (breaker5, i6). The
rule is read from the two sources before anything runs, in this one place, so that ``kernelopt tunables``,
``tune``, the planner and the rules implementer say the same: the knob is listed, not editable, with the reason.

A knob is fixed by the reference when reference.py assigns a module-level constant of the knob's name to the
same value and reads that name in its operator (a function or class other than ``get_inputs`` /
``get_init_inputs``: the sizes it builds inputs with are no part of the operator). A constant reference.py
imports from kernel.py follows it, so it is no such constant. Discovery of a file applies it
(:func:`~kernelopt.tunables.analysis.discover`, :func:`~kernelopt.tunables.evaluate.discover_evaluated`) with the
reference given, or else the ``reference.py`` beside the kernel.
"""

from __future__ import annotations

import ast
from collections.abc import Iterable
from pathlib import Path

from kernelopt import pyparse
from kernelopt.errors import InputFileError
from kernelopt.fileio import read_python
from kernelopt.numeric import is_int
from kernelopt.tunables.model import Tunable

#: Functions of reference.py that build the inputs: a constant read only there sizes the problem, not the operator.
INPUT_BUILDERS = frozenset({"get_inputs", "get_init_inputs"})


def reference_constants(reference_source: str) -> dict[str, int]:
    """The module-level integer constants reference.py assigns (``CHUNK = 16``) and reads in its operator;
    empty when it does not parse (its loader says why, elsewhere)."""
    try:
        tree = pyparse.parse(reference_source)
    except (SyntaxError, ValueError):
        return {}
    assigned: dict[str, int] = {}
    for node in tree.body:
        if isinstance(node, ast.Assign) and isinstance(node.value, ast.Constant):
            value = node.value.value
            if is_int(value):
                for target in node.targets:
                    if isinstance(target, ast.Name):
                        assigned[target.id] = value
    read: set[str] = set()
    for node in tree.body:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef) and node.name not in INPUT_BUILDERS:
            read.update(n.id for n in ast.walk(node) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load))
    return {name: value for name, value in assigned.items() if name in read}


def fixed_reason(name: str, value: int) -> str:
    """Why a knob the reference fixes is not moved: the one wording ``tunables`` and ``tune`` say."""
    return (
        f"fixed by the reference: reference.py sets {name} = {value} too and computes with it, so the operator "
        "is defined by it (any other value gives other results); to change it, change it in both files"
    )


def fix_by_reference(found: Iterable[Tunable], reference_source: str | None) -> None:
    """Mark each knob of ``found`` the reference fixes as not editable, with :func:`fixed_reason` (in place)."""
    if reference_source is None:
        return
    constants = reference_constants(reference_source)
    for t in found:
        if t.semantic or t.refused_reason is not None:
            continue
        # the constant's own name (a module constant's key) or the name the kernel sees it by
        for name in dict.fromkeys((t.key.rsplit(":", 1)[-1], t.name)):
            if name in constants and constants[name] == t.value:
                t.refused_reason = fixed_reason(name, constants[name])
                break


def reference_text(kernel_py: Path, reference: Path | None = None) -> str | None:
    """The text of the task's reference: ``reference``, else the ``reference.py`` beside ``kernel_py``; None when
    there is none or it cannot be read as UTF-8 (its loader says why, where it runs)."""
    path = Path(reference) if reference is not None else Path(kernel_py).with_name("reference.py")
    try:
        return read_python(path)  # in the encoding it declares (PEP 263)
    except (OSError, InputFileError):
        return None
