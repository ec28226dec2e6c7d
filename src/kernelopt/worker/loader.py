"""The one module loader: import a ``.py`` file as a fresh module with a name never used before.

Every process that runs user code (the gate's worker, the profile driver, the autotune reader, the
bench and compile services) loads ``kernel.py`` / ``reference.py`` through :func:`load_module`, so a
second version of a file is never served from ``sys.modules`` and the file's own folder is importable
(a kernel that imports a helper module beside it, ``from settings import ...``, or relatively, ``from .settings
import ...``: the folder is then registered as the file's package). :func:`unload` forgets a module again, so a
long-lived worker that loads hundreds of candidates does not keep them all.

A problem's sizes can be substituted as the file runs (``overrides``, the plan of
:mod:`kernelopt.harness.sizes`): each named value is assigned again right after the module-level
statement that binds it, before any later statement reads it, so shapes derived from it follow.

Importing user code runs it: only worker processes call these functions.
"""

from __future__ import annotations

import ast
import importlib.util
import itertools
import sys
from collections.abc import Mapping
from pathlib import Path
from types import ModuleType

from kernelopt import pyparse

_counter = itertools.count()

PREFIX = "kernelopt_user_"
"""Every loaded module's name starts with this (then the file's stem and a number)."""


def module_name(path: Path) -> str:
    """A module name for ``path`` never handed out before in this process (``kernelopt_user_kernel_3``)."""
    stem = "".join(c if c.isalnum() or c == "_" else "_" for c in Path(path).stem)
    return f"{PREFIX}{stem}_{next(_counter)}"


def _bound_names(target: ast.expr) -> list[str]:
    if isinstance(target, ast.Name):
        return [target.id]
    if isinstance(target, ast.Tuple | ast.List):
        return [n for e in target.elts for n in _bound_names(e)]
    if isinstance(target, ast.Starred):
        return _bound_names(target.value)
    return []


def substitute(tree: ast.Module, overrides: Mapping[str, object]) -> set[str]:
    """Put ``name = value`` after every module-level assignment of ``tree`` that binds a name of
    ``overrides`` (plain, annotated, chained or unpacked); returns the names it found bound. Values are
    numbers or tuples of numbers (written as their ``repr``)."""
    body: list[ast.stmt] = []
    found: set[str] = set()
    for stmt in tree.body:
        body.append(stmt)
        if isinstance(stmt, ast.Assign):
            targets = stmt.targets
        elif isinstance(stmt, ast.AnnAssign) and stmt.value is not None:
            targets = [stmt.target]
        else:
            continue
        for bound in dict.fromkeys(n for t in targets for n in _bound_names(t)):
            if bound in overrides:
                value = pyparse.parse(repr(overrides[bound]), mode="eval").body
                assign = ast.Assign(targets=[ast.Name(id=bound, ctx=ast.Store())], value=value)
                body.append(ast.fix_missing_locations(ast.copy_location(assign, stmt)))
                found.add(bound)
    tree.body = body
    return found


def load_module(
    path: Path,
    *,
    name: str | None = None,
    overrides: Mapping[str, object] | None = None,
    package: Path | None = None,
) -> ModuleType:
    """Import the Python file at ``path`` as a new module.

    The module is registered in ``sys.modules`` under its name (dataclasses, pickling and Triton's
    ``@jit`` look it up there) and the file's folder is put first on ``sys.path`` when it is not there.

    Args:
        path: the file to import.
        name: the module's name; default :func:`module_name` (fresh each call).
        overrides: module-level values to substitute as the file runs (:func:`substitute`); a name the
            file never binds at module level is set on the module after it ran.
        package: the folder the file's relative imports resolve in (default: its own); a tuning candidate,
            written elsewhere, resolves ``from .settings import ...`` in the base kernel's folder.

    Raises:
        ImportError: the file cannot be loaded. An exception the file raises while it executes
            (``SyntaxError``, its own ``ImportError``, anything) propagates as raised, and the half-made
            module is removed from ``sys.modules``.
    """
    path = Path(path)
    name = name or module_name(path)
    if _imports_relatively(path):  # ``from .settings import ...``: the file's folder is its package
        name = f"{_folder_package(package or path.parent)}.{name}"
    spec = importlib.util.spec_from_file_location(name, path)
    if spec is None or spec.loader is None:
        raise ImportError(f"cannot load {path}")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    folder = str(path.parent)
    if folder not in sys.path:
        sys.path.insert(0, folder)
    try:
        if overrides:
            tree = pyparse.parse(path.read_bytes(), filename=str(path))  # bytes: Python's own reading (PEP 263)
            found = substitute(tree, overrides)
            exec(compile(tree, str(path), "exec"), module.__dict__)  # the user's file, as an import runs it
            for key, value in overrides.items():
                if key not in found:
                    setattr(module, key, value)
        else:
            spec.loader.exec_module(module)
    except BaseException:
        sys.modules.pop(name, None)
        raise
    return module


_packages: dict[Path, str] = {}


def _imports_relatively(path: Path) -> bool:
    """True when the file has a relative import (``from .settings import pick``); ``False`` when it does not
    parse (the import then says why)."""
    try:
        tree = pyparse.parse(path.read_bytes(), filename=str(path))  # bytes: Python's own reading (PEP 263)
    except (SyntaxError, UnicodeDecodeError, ValueError, OSError):
        return False
    return any(isinstance(node, ast.ImportFrom) and node.level for node in ast.walk(tree))


def _folder_package(folder: Path) -> str:
    """The name of a package registered for ``folder`` (its ``__path__`` the folder), made once per folder in
    this process: a kernel loaded as one of its modules resolves ``from .settings import ...`` to the folder's
    ``settings.py``, as it would inside the user's own package."""
    folder = folder.resolve()
    if folder not in _packages:
        package = ModuleType(module_name(folder / "package"))
        package.__path__ = [str(folder)]
        sys.modules[package.__name__] = package
        _packages[folder] = package.__name__
    return _packages[folder]


def unload(module: ModuleType) -> None:
    """Remove ``module`` from ``sys.modules`` (its objects live on while something refers to them)."""
    if sys.modules.get(module.__name__) is module:
        del sys.modules[module.__name__]
