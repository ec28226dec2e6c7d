"""The one module loader: import a ``.py`` file as a fresh module with a name never used before.

Every process that runs user code (the gate's worker, the profile driver, the autotune reader, the
bench and compile services) loads ``kernel.py`` / ``reference.py`` through :func:`load_module`, so a
second version of a file is never served from ``sys.modules`` and the file's own folder is importable
(a kernel that imports a helper module beside it). :func:`unload` forgets a module again, so a
long-lived worker that loads hundreds of candidates does not keep them all.

Importing user code runs it: only worker processes call these functions.
"""

from __future__ import annotations

import importlib.util
import itertools
import sys
from pathlib import Path
from types import ModuleType

_counter = itertools.count()

PREFIX = "kernelopt_user_"
"""Every loaded module's name starts with this (then the file's stem and a number)."""


def module_name(path: Path) -> str:
    """A module name for ``path`` never handed out before in this process (``kernelopt_user_kernel_3``)."""
    stem = "".join(c if c.isalnum() or c == "_" else "_" for c in Path(path).stem)
    return f"{PREFIX}{stem}_{next(_counter)}"


def load_module(path: Path, *, name: str | None = None) -> ModuleType:
    """Import the Python file at ``path`` as a new module.

    The module is registered in ``sys.modules`` under its name (dataclasses, pickling and Triton's
    ``@jit`` look it up there) and the file's folder is put first on ``sys.path`` when it is not there.

    Args:
        path: the file to import.
        name: the module's name; default :func:`module_name` (fresh each call).

    Raises:
        ImportError: the file cannot be loaded. An exception the file raises while it executes
            (``SyntaxError``, its own ``ImportError``, anything) propagates as raised, and the half-made
            module is removed from ``sys.modules``.
    """
    path = Path(path)
    name = name or module_name(path)
    spec = importlib.util.spec_from_file_location(name, path)
    if spec is None or spec.loader is None:
        raise ImportError(f"cannot load {path}")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    folder = str(path.parent)
    if folder not in sys.path:
        sys.path.insert(0, folder)
    try:
        spec.loader.exec_module(module)
    except BaseException:
        sys.modules.pop(name, None)
        raise
    return module


def unload(module: ModuleType) -> None:
    """Remove ``module`` from ``sys.modules`` (its objects live on while something refers to them)."""
    if sys.modules.get(module.__name__) is module:
        del sys.modules[module.__name__]
