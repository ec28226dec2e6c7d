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


def _imported_elsewhere(name: str) -> bool:
    """Whether ``name`` is a top-level module of :data:`IMPORTED_NAMES` or one this Python (the harness's workers') can
    import from outside the workspace: a library a reference imports (``einops``, ``flash_attn``, ``transformers``)
    is shadowed by a file of that name as surely as torch is (review19 r4: the fixed list let a plan name
    ``einops.py``)."""
    if name in IMPORTED_NAMES:
        return True
    from importlib.machinery import PathFinder

    here = {"", os.getcwd()}  # the folder kernelopt runs in may be the workspace itself
    return PathFinder.find_spec(name, [p for p in sys.path if p not in here]) is not None


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
        rel = target.split(":", 1)[0].strip()
        p = PurePosixPath(rel)
        if not rel or p.is_absolute() or ".." in p.parts or p.suffix not in AUX_SUFFIXES or GLOB_CHARS & set(rel):
            continue
        if p.suffix == ".py" and _imported_elsewhere(p.parts[0] if len(p.parts) > 1 else p.stem):
            continue
        rel = p.as_posix()
        if rel == "kernel.py" or rel in PROTECTED or p.parts[0] in PROTECTED_DIRS:
            continue
        if rel not in out:
            out.append(rel)
    return out
