"""Problem sizes: the module-level size constants of reference.py, overridden or scaled down.

Published KernelBench problems declare their sizes as module-level constants (``batch_size = 16``,
``dim = 16384``) that ``get_inputs()`` and ``get_init_inputs()`` read when called. The task card's
``sizes`` (name -> number) replaces some of them; ``size_scale`` (or ``--size-scale``) multiplies the
others for a quick run. The file stays as written, so its sizes remain the default timed shape. The
constants are found by parsing the file, never by importing it; the worker sets the values on the
loaded module before anything is built. Pure: reads the one file it is given.
"""

from __future__ import annotations

import ast
from collections.abc import Mapping
from pathlib import Path

from kernelopt.errors import InputFileError, UsageError
from kernelopt.taskcard import TaskCard

#: Integer constants below this are left alone by ``size_scale``: they are kernel sizes, strides,
#: padding, small channel counts or ranks, whose meaning a scale would change (our choice).
SCALE_MIN_VALUE = 16


def size_constants(reference_py: Path) -> dict[str, int | float]:
    """Module-level ``NAME = <number>`` assignments of ``reference_py`` (bools excluded), in file order.

    Raises:
        InputFileError: the file is missing or is not valid Python.
    """
    path = Path(reference_py)
    try:
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    except FileNotFoundError:
        raise InputFileError(path, "no such file") from None
    except SyntaxError as exc:
        raise InputFileError(path, f"syntax error at line {exc.lineno}: {exc.msg}") from None
    out: dict[str, int | float] = {}
    for node in tree.body:
        if isinstance(node, ast.Assign) and len(node.targets) == 1:
            target, value = node.targets[0], node.value
        elif isinstance(node, ast.AnnAssign) and node.value is not None:
            target, value = node.target, node.value
        else:
            continue
        if not isinstance(target, ast.Name) or not isinstance(value, ast.Constant):
            continue
        if isinstance(value.value, bool) or not isinstance(value.value, int | float):
            continue
        out[target.id] = value.value
    return out


def effective_constants(
    reference_py: Path, *, sizes: Mapping[str, int | float], scale: float | None
) -> dict[str, int | float]:
    """The constants the worker sets: ``sizes`` as given, the other integer constants of at least
    :data:`SCALE_MIN_VALUE` times ``scale`` (rounded, at least 1); empty when neither is asked.

    Raises:
        UsageError: ``sizes`` names a constant reference.py does not define (exit 2, naming it), or a
            value is not a positive number, or ``scale`` is outside (0, 1].
    """
    if not sizes and scale is None:
        return {}
    if scale is not None and not 0 < scale <= 1:
        raise UsageError(f"size scale {scale:g} is outside (0, 1]", hint="use e.g. --size-scale 0.25")
    found = size_constants(reference_py)
    for name, value in sizes.items():
        if name not in found:
            known = ", ".join(found) or "none"
            raise UsageError(
                f"task card sizes: {reference_py} defines no module-level size constant {name!r}",
                hint=f"its constants: {known}",
            )
        if isinstance(value, bool) or not isinstance(value, int | float) or value <= 0:
            raise UsageError(f"task card sizes: {name} = {value!r} is not a positive number")
    out: dict[str, int | float] = dict(sizes)
    if scale is not None and scale != 1:
        scaled = [n for n, v in found.items() if n not in out and isinstance(v, int) and v >= SCALE_MIN_VALUE]
        if not scaled:
            raise UsageError(
                f"size scale {scale:g} changes nothing: {reference_py.name} has no module-level integer size "
                f"constant of {SCALE_MIN_VALUE} or more to scale",
                hint="its sizes are in SHAPES or get_inputs' defaults: add a smaller SHAPES entry, or make the "
                "sizes module-level constants (batch_size = 16384)",
            )
        for name in scaled:
            out[name] = max(1, round(found[name] * scale))
    return out


def card_constants(reference_py: Path, size_scale: float | None) -> dict[str, int | float]:
    """The constants for a process that has only the paths (the profiler's driver): the task card
    ``README.md`` beside reference.py and ``size_scale`` (``KERNELOPT_SIZE_SCALE``; None: the card's),
    the same sizes the gate uses.

    Raises:
        UsageError: as :func:`effective_constants`.
        WorkspaceError: the task card is invalid.
    """
    card_path = Path(reference_py).parent / "README.md"
    card = TaskCard.load(card_path) if card_path.is_file() else TaskCard()
    scale = card.size_scale if size_scale is None else size_scale
    return effective_constants(reference_py, sizes=card.sizes, scale=scale)
