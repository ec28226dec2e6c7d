"""The ``torch.compile`` backend the gate times the reference with (``KERNELOPT_COMPILE_BACKEND``), checked against
the backends this torch has before a command runs anything.

A misspelt backend (``indutor``) was taken at every command's start and failed only at the gate's compile: the run
went on, and each version's figure against torch.compile was "not timed: its compile failed" (newuser20 n152). The
names every torch 2 registers itself are taken at once; any other is looked up in torch's own registry
(``torch._dynamo.list_backends``, which holds the backends third-party packages register) in a child process, since
importing torch's compiler takes seconds that a command with nothing to compile must not pay (newuser21 n156).
"""

from __future__ import annotations

import difflib
import functools
import json
import sys
from collections.abc import Mapping

from kernelopt.env import EnvSettings, variable
from kernelopt.errors import UsageError
from kernelopt.proc import run_command

BUILT_IN = ("inductor", "eager", "aot_eager", "cudagraphs")
"""Backends torch registers itself in every 2.x release (``torch/_dynamo/backends``): taken without asking torch."""

LOOKUP_TIMEOUT_S = 120.0
"""The limit of the child that asks torch for its backends (the harness's start-up limit: Python and torch's import)."""

_LIST = (
    "import json, torch._dynamo as d; "
    "print(json.dumps({'listed': sorted(d.list_backends()), 'all': sorted(d.list_backends(exclude_tags=()))}))"
)


def check_compile_backend(env: Mapping[str, str] | None = None) -> None:
    """Refuse a ``KERNELOPT_COMPILE_BACKEND`` this torch does not have, in one line naming the one it is spelt like
    and those it has. Unset, or a built-in name: nothing is started. Where torch cannot be asked (not installed, its
    import fails or runs past :data:`LOOKUP_TIMEOUT_S`), nothing is said here: the gate's compile says it.

    Raises:
        UsageError: the backend is not one of this torch's.
    """
    backend = EnvSettings.read(env).compile_backend
    if backend is None or backend in BUILT_IN:
        return
    known = _torch_backends()
    if known is None:
        return
    problem = backend_problem(backend, *known)
    if problem is not None:
        raise UsageError(problem)


def backend_problem(backend: str, listed: list[str], every: list[str]) -> str | None:
    """Why ``backend`` is not one of torch's (``every``: all it registers; ``listed``: those
    ``torch._dynamo.list_backends()`` shows, debug and experimental ones left out, to which the line adds the
    built-in ones among ``every``), or ``None`` when it is."""
    if backend in every:
        return None
    near = difflib.get_close_matches(backend, every, n=1)
    mean = f" (did you mean {near[0]}?)" if near else ""
    shown = sorted({*listed, *(b for b in BUILT_IN if b in every)})
    name = variable("compile_backend").name
    return (
        f"{name}={backend!r} is not a torch.compile backend of this torch{mean}; it has {', '.join(shown)} "
        f"(torch._dynamo.list_backends()); fix it, or unset it for inductor"
    )


@functools.cache
def _torch_backends() -> tuple[list[str], list[str]] | None:
    """``(listed, all)`` of this Python's torch, asked once a process; ``None`` where it cannot be asked."""
    result = run_command([sys.executable, "-c", _LIST], timeout_s=LOOKUP_TIMEOUT_S)
    if not result.ok:
        return None
    try:
        said = json.loads(result.stdout.strip().splitlines()[-1])
        return list(said["listed"]), list(said["all"])
    except (ValueError, IndexError, KeyError, TypeError):
        return None
