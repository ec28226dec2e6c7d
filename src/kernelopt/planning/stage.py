"""Run Stage 2 on a workspace with any planner, guarded: it may write only ``plans/v<N>_plan.md``.

:func:`run_stage2` reads the Stage 1 evidence (``profiles/v<N>/summary.json``) and the unmasked
memory, snapshots the workspace, calls the planner, reverts every write outside
``plans/v<N>_plan.md`` (the DESIGN's "may write" column, enforced with
:mod:`kernelopt.backends.guard`), then parses and validates the plan file, which is the only input
of Stage 3. A plan that breaks a rule is moved out of ``plans/`` to ``.kernelopt/rejected/`` (kept
for inspection, never used) and the stage fails with one line.
"""

from __future__ import annotations

import shutil
from dataclasses import dataclass
from pathlib import Path

from kernelopt.backends import guard
from kernelopt.backends.protocol import Planner, PlanOutcome, StageContext
from kernelopt.evidence.summary import SUMMARY_JSON, read_summary
from kernelopt.memory.model import IterationRecord
from kernelopt.planning.history import plan_signature
from kernelopt.planning.markdown import parse_plan
from kernelopt.planning.plan import Plan, PlanError
from kernelopt.planning.validate import validate_plan
from kernelopt.workspace import Workspace

REJECTED_DIR = "rejected"


@dataclass
class Stage2Result:
    """What Stage 2 produced.

    Attributes:
        version: the iteration N.
        planner: the planner's name.
        plan: the validated plan parsed from the file, or ``None`` when no new actionable path remains.
        path: ``plans/v<N>_plan.md`` when a plan was written.
        reason: why there is no plan, or the planner's note.
        outcome: the planner's own result (transcript, token usage).
    """

    version: int
    planner: str
    plan: Plan | None
    path: Path | None
    reason: str | None
    outcome: PlanOutcome


def default_version(ws: Workspace) -> int:
    """The iteration to plan: the newest ``profiles/v<N>/summary.json`` whose version has no memory record.

    Raises:
        PlanError: no profile summary at all, or the newest one belongs to a recorded version.
    """
    profiled = sorted(
        int(p.name[1:]) for p in ws.profiles_dir.glob("v*") if p.name[1:].isdigit() and (p / SUMMARY_JSON).is_file()
    )
    if not profiled:
        raise PlanError(
            f"{ws.root}: no profiles/v<N>/summary.json to plan from", hint="run Stage 1 (kernelopt profile) first"
        )
    n = profiled[-1]
    if ws.memory.exists(n):
        raise PlanError(
            f"{ws.root}: the newest profile, v{n}, belongs to a recorded version (memory/v{n}.json)",
            hint="profile the next version first, or pass --version",
        )
    return n


def _reject(ws: Workspace, path: Path) -> Path:
    target = ws.state_dir / REJECTED_DIR / path.name
    target.parent.mkdir(parents=True, exist_ok=True)
    shutil.move(str(path), target)
    return target


def run_stage2(
    ws: Workspace,
    version: int,
    planner: Planner,
    *,
    history: list[IterationRecord] | None = None,
    options: dict[str, object] | None = None,
) -> Stage2Result:
    """Run ``planner`` for iteration ``version`` and check what it wrote.

    Args:
        ws: the workspace.
        version: the iteration N (``profiles/v<N>/summary.json`` must exist).
        planner: any :class:`~kernelopt.backends.protocol.Planner`.
        history: unmasked records to plan against (default: every unmasked record below ``version``).
        options: passed to the planner in its context.

    Raises:
        PlanError: no summary for ``version``; the planner wrote outside ``plans/v<N>_plan.md`` (those
            writes are reverted); it returned a plan but wrote no file, or a file that differs from
            what it returned; the plan file is malformed or breaks a Stage 2 rule (it is moved to
            ``.kernelopt/rejected/``).
        SummaryError: the summary is corrupt.
    """
    profile = ws.profile_dir(version)
    if not (profile / SUMMARY_JSON).is_file():
        raise PlanError(
            f"no Stage 1 evidence for v{version}: profiles/v{version}/{SUMMARY_JSON} not found",
            hint="run Stage 1 (kernelopt profile) first",
        )
    summary = read_summary(profile)
    if history is None:
        history = [r for r in ws.memory.records() if r.number < version]
    history = [r for r in history if not r.masked]
    rel = f"plans/v{version}_plan.md"
    path = ws.plan_path(version)
    before = guard.snapshot(ws.root)
    ctx = StageContext(workspace=ws, version=version, summary=summary, history=history, options=dict(options or {}))
    try:
        outcome = planner.plan(ctx)
    finally:
        violations = guard.enforce(ws, before, [rel])
    name = getattr(planner, "name", type(planner).__name__)
    if violations:
        kept = ""
        if path.is_file() and guard.snapshot(ws.root).get(rel) != before.get(rel):
            kept = f"; its plan was moved to {_reject(ws, path).relative_to(ws.root)}"
        listed = ", ".join(f"{c.path} ({c.kind})" for c in violations)
        raise PlanError(f"planner '{name}' wrote outside {rel}: {listed}; reverted{kept}")
    changed = guard.snapshot(ws.root).get(rel) != before.get(rel)
    if outcome.plan is None:
        reason = outcome.reason or "the planner found no new actionable path"
        if changed and path.is_file():
            reason += f" (it wrote a plan all the same; moved to {_reject(ws, path).relative_to(ws.root)})"
        return Stage2Result(version, name, None, None, reason, outcome)
    if not path.is_file():
        raise PlanError(f"planner '{name}' returned a plan but wrote no {rel}")
    try:
        plan = parse_plan(path.read_text(encoding="utf-8"), origin=rel)
        if plan.version != version:
            raise PlanError(f"{rel}: the plan says version {plan.version}, expected {version}")
        if plan_signature(plan) != plan_signature(outcome.plan):
            raise PlanError(f"{rel}: the file's action differs from the action planner '{name}' returned")
        validate_plan(plan, ws, history, summary)
    except PlanError as exc:
        moved = _reject(ws, path).relative_to(ws.root)
        why = exc.message.removeprefix(f"{rel}: ")
        raise PlanError(f"{rel} rejected: {why} (moved to {moved})") from None
    return Stage2Result(version, name, plan, path, outcome.reason, outcome)
