"""DESIGN.md's "may write" column: the one allowance table of every stage, and the files no backend may touch.

Pure: no I/O. The guard (:mod:`kernelopt.stages.guard`) enforces these patterns with before/after
workspace snapshots around every stage.
"""

from __future__ import annotations

import os
import sys
from pathlib import PurePosixPath

from kernelopt.planning.plan import Plan
from kernelopt.stagenames import BACKEND_FILES, Stage

PROTECTED_FILES = ("reference.py", "test_kernel.py", "README.md")
"""The kernel contract and the task card: their content is recorded at run start and restored from it."""
PROTECTED = (*PROTECTED_FILES, ".gitignore", "baseline_report.md")
"""Files no backend may ever write, whatever a plan names."""
PROTECTED_DIRS = ("memory", "plans", "profiles", ".git", ".kernelopt")
"""Folders no auxiliary file of a plan may live in."""
AUX_SUFFIXES = (".py", ".cu", ".cuh", ".h", ".hpp", ".cpp", ".cc", ".c", ".hip", ".cl", ".inc")
"""Suffixes an auxiliary source file named by a plan may have."""
GLOB_CHARS = frozenset("*?[]")
"""Characters an auxiliary file's name may not hold: the allowance is a list of glob patterns, and a target ``*.py``
let Stage 3 write any ``.py`` file at any depth (``memory/x.py`` too, past :data:`PROTECTED_DIRS`) (a5)."""
IMPORTED_NAMES = frozenset(
    {*sys.stdlib_module_names, "torch", "triton", "numpy", "kernelopt", "kernel", "reference", "test_kernel"}
    | {"sitecustomize", "usercustomize", "conftest"}
)
"""Top-level module names no auxiliary file may take: the workspace is first on the harness's ``sys.path``, so a
``torch.py`` (or ``triton/__init__.py``, ``json.py``) a plan named would be what the reference and the kernel import
in place of the library (a5)."""


def _imported_from(name: str) -> str | None:
    """Where ``name`` is imported from outside the workspace: ``"the harness"`` for a top-level module of
    :data:`IMPORTED_NAMES`, else the place this Python (the harness's workers') finds it; ``None`` for a name no import
    takes. A library a reference imports (``einops``, ``flash_attn``, ``transformers``) is shadowed by a file of that
    name as surely as torch is (review19 r4: the fixed list let a plan name ``einops.py``)."""
    if name in IMPORTED_NAMES:
        return "the standard library or the harness's own imports"
    from importlib.machinery import PathFinder

    here = {"", os.getcwd()}  # the folder kernelopt runs in may be the workspace itself
    spec = PathFinder.find_spec(name, [p for p in sys.path if p not in here])
    if spec is None:
        return None
    return spec.origin or next(iter(spec.submodule_search_locations or []), None) or "this Python"


def _source_target(target: str) -> PurePosixPath | None:
    """The workspace-relative source file a plan's target names (``csrc/k.cuh:12`` -> ``csrc/k.cuh``); ``None`` for a
    knob, a glob, a path outside, another suffix."""
    rel = target.split(":", 1)[0].strip()
    p = PurePosixPath(rel)
    if not rel or p.is_absolute() or ".." in p.parts or p.suffix not in AUX_SUFFIXES or GLOB_CHARS & set(rel):
        return None
    return p


def _module_name(p: PurePosixPath) -> str | None:
    """The top-level module name a ``.py`` file at ``p`` would be imported by (its folder's for a nested one)."""
    return (p.parts[0] if len(p.parts) > 1 else p.stem) if p.suffix == ".py" else None


def shadowing_target(plan: Plan) -> str | None:
    """Why a plan's ``.py`` target may not be written, naming the module it would stand in for; ``None`` when none
    would. :func:`aux_files_of` leaves such a target out, and Stage 3 then failed its write as outside the allowance
    with no word of why (a helper ``utils.py`` where an installed distribution ships a ``utils`` module; late19 z2):
    the plan is refused by this line, and the planner names its helper otherwise."""
    for target in plan.targets:
        p = _source_target(target)
        if p is None or p.as_posix() == "kernel.py" or p.as_posix() in PROTECTED or p.parts[0] in PROTECTED_DIRS:
            continue  # kernel.py is always Stage 3's; the protected files never are, whatever their name
        name = _module_name(p)
        where = _imported_from(name) if name is not None else None
        if where is not None:
            return (
                f"target {p.as_posix()}: a module {name} is imported from {where}, and the workspace is first on the "
                f"workers' path, so this file would be imported in its place; give the helper a name no import takes "
                f"(kernel_{name}.py)"
            )
    return None


def transcripts(version: int) -> list[str]:
    """Where a backend may leave its transcript of a stage (``profiles/v<N>/agent_plan.log`` ...)."""
    return [f"profiles/v{version}/{pattern}" for pattern in BACKEND_FILES]


def may_write(stage: Stage, version: int, aux_files: list[str] | None = None) -> list[str]:
    """Glob patterns (workspace-relative) that ``stage`` of version ``version`` may change.

    Backend stages (plan, implement) may also leave their transcript under ``profiles/v<N>/``.
    """
    n = version
    table: dict[Stage, list[str]] = {
        Stage.BASELINE_GATE: [f"memory/v{n}.json"],
        Stage.BASELINE_PROFILE: [f"profiles/v{n}/*"],
        Stage.PROFILE: [f"profiles/v{n}/*"],
        Stage.PLAN: [f"plans/v{n}_plan.md", *transcripts(n)],
        Stage.IMPLEMENT: ["kernel.py", *(aux_files or []), *transcripts(n)],
        Stage.GATE: [f"memory/v{n}.json"],
        Stage.RECORD: [],
        Stage.STOP: [],
    }
    return table[stage]


def editable_files(stage: Stage, version: int, aux_files: list[str] | None = None) -> list[str]:
    """The plain files (no globs, no transcripts) a backend stage edits: what a failed stage puts back."""
    if stage is Stage.PLAN:
        return [f"plans/v{version}_plan.md"]
    if stage is Stage.IMPLEMENT:
        return ["kernel.py", *(aux_files or [])]
    return []


def aux_files_of(plan: Plan | None) -> list[str]:
    """Auxiliary source files a plan names in its targets (``helpers.cu``, ``csrc/k.cuh:12``).

    Only workspace-relative source files qualify; ``kernel.py``, the protected files and the record
    folders never do.
    """
    if plan is None:
        return []
    out: list[str] = []
    for target in plan.targets:
        p = _source_target(target)
        name = _module_name(p) if p is not None else None
        if p is None or (name is not None and _imported_from(name) is not None):
            continue
        rel = p.as_posix()
        if rel == "kernel.py" or rel in PROTECTED or p.parts[0] in PROTECTED_DIRS:
            continue
        if rel not in out:
            out.append(rel)
    return out
