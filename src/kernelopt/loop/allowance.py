"""DESIGN.md's "may write" column as glob patterns per stage, and the auxiliary files a plan may open up.

The loop enforces these with before/after workspace snapshots (:mod:`kernelopt.backends.guard`).
Pure: no I/O.
"""

from __future__ import annotations

from pathlib import PurePosixPath

from kernelopt.loop.protocols import Stage
from kernelopt.planning.plan import Plan

_AUX_SUFFIXES = (".py", ".cu", ".cuh", ".h", ".hpp", ".c", ".cc", ".cpp", ".hip")
_PROTECTED = ("reference.py", "test_kernel.py", "README.md", ".gitignore", "baseline_report.md")
_PROTECTED_DIRS = ("memory", "plans", "profiles", ".git", ".kernelopt")


def may_write(stage: Stage, version: int, aux_files: list[str] | None = None) -> list[str]:
    """DESIGN.md's "may write" column: glob patterns (workspace-relative) a stage may change.

    Backend stages (plan, implement) may also leave their transcript under ``profiles/v<N>/`` (the
    backends store ``agent_<stage>.log`` / ``llm_<stage>.log`` there).
    """
    n = version
    transcripts = [f"profiles/v{n}/*transcript*", f"profiles/v{n}/agent_*.log", f"profiles/v{n}/llm_*.log"]
    table: dict[Stage, list[str]] = {
        Stage.BASELINE_GATE: [f"memory/v{n}.json"],
        Stage.BASELINE_PROFILE: [f"profiles/v{n}/*"],
        Stage.PROFILE: [f"profiles/v{n}/*"],
        Stage.PLAN: [f"plans/v{n}_plan.md", *transcripts],
        Stage.IMPLEMENT: ["kernel.py", *(aux_files or []), *transcripts],
        Stage.GATE: [f"memory/v{n}.json"],
        Stage.RECORD: [],
        Stage.STOP: [],
    }
    return table[stage]


def aux_files_of(plan: Plan) -> list[str]:
    """Auxiliary source files a plan names in its targets (``helpers.cu``, ``csrc/k.cuh:12``).

    Only workspace-relative source files qualify; the reference, the harness entry point, the task
    card and the record folders never do.
    """
    out: list[str] = []
    for target in plan.targets:
        rel = target.split(":", 1)[0].strip()
        if not rel.endswith(_AUX_SUFFIXES) or rel == "kernel.py":
            continue
        p = PurePosixPath(rel)
        if p.is_absolute() or ".." in p.parts or rel in _PROTECTED or p.parts[0] in _PROTECTED_DIRS:
            continue
        if rel not in out:
            out.append(rel)
    return out
