"""The command line's paths: a leading ``~`` expanded in every path argument and option, at the one boundary.

A shell expands ``~`` only in a word of its own: ``--out=~/runs``, a quoted ``"~/my runs"`` and a path an agent
passes through ``subprocess`` reach kernelopt as written. Some commands expanded it (``init --kernel``, a workspace,
``batch``, ``--out``) and some did not (``init --reference``, ``tune PATH``, ``tunables``, ``evidence``): the same
``~/k/reference.py`` was "no such file" beside a ``~/k/kernel.py`` that was found. One rule for every command here.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any


def _home(value: Any) -> Any:
    """``value`` with a :class:`~pathlib.Path` that starts with ``~`` expanded (lists and tuples of them too)."""
    if isinstance(value, Path) and str(value).startswith("~"):
        try:
            return value.expanduser()
        except RuntimeError:  # no home for that user (``~nobody``): left as written, and refused as a missing path
            return value
    if isinstance(value, list | tuple):
        return type(value)(_home(v) for v in value)
    return value


def _takes_paths(param: Any) -> bool:
    annotation = getattr(getattr(param, "type_descriptor", None), "annotation", None)
    return annotation is Path or annotation == list[Path]


def expand_home(command: Any) -> None:
    """Every path parameter of ``command`` and its sub-commands gives its value with ``~`` expanded (the parsed
    value, before the command sees it; a path without ``~`` is given as written)."""
    for param in command.get_params(command.context_class(command)):
        if _takes_paths(param) and not getattr(param, "_kernelopt_home", False):
            process = param.process_value

            def expanded(ctx: Any, value: Any, _process: Any = process) -> Any:
                return _home(_process(ctx, value))

            param.process_value = expanded
            param._kernelopt_home = True
    for sub in getattr(command, "commands", {}).values():
        expand_home(sub)
