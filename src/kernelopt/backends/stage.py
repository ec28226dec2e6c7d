"""What each backend stage may write, and Stage 3 run under the write guard with an immediate check.

The orchestrator owns the rules, not the backend: :func:`allowance` is the stage's "may write"
column (DESIGN.md); :func:`run_implement` snapshots the workspace, calls any implementer, reverts and
reports every write outside the allowance, puts ``kernel.py`` back when the stage failed, and
validates the new ``kernel.py`` (it must parse as Python) and runs the correctness check at once, as
the spec's Stage 3 requires. (Stage 2 runs under :func:`kernelopt.planning.stage.run_stage2`.)
"""

from __future__ import annotations

import ast
import difflib
import importlib
from collections.abc import Callable
from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path, PurePosixPath
from typing import Any, Protocol

from kernelopt.backends import guard
from kernelopt.backends.guard import Change
from kernelopt.backends.protocol import Implementer, ImplementOutcome, StageContext
from kernelopt.errors import EnvironmentProblem, InputFileError, KerneloptError, UsageError
from kernelopt.planning.plan import Plan
from kernelopt.workspace import Workspace


class Stage(StrEnum):
    """The two stages a backend can run."""

    PLAN = "plan"
    IMPLEMENT = "implement"


# Files no backend may ever write, whatever a plan names (the kernel contract and the record).
PROTECTED = ("reference.py", "test_kernel.py", "README.md", ".gitignore", "baseline_report.md")
PROTECTED_DIRS = ("memory", "plans", "profiles", ".git", ".kernelopt")
# Suffixes an auxiliary source file named by a plan may have.
AUX_SUFFIXES = (".py", ".cu", ".cuh", ".h", ".hpp", ".cpp", ".cc", ".c", ".hip", ".cl", ".inc")


def transcript_path(ws: Workspace, version: int, stage: Stage | str, *, kind: str = "agent") -> Path:
    """``profiles/v<N>/<kind>_<stage>.log``: where a backend's transcript of a stage is saved."""
    return ws.profile_dir(version) / f"{kind}_{Stage(stage).value}.log"


def aux_files(plan: Plan | None) -> list[str]:
    """Auxiliary source files a plan names in its targets (``kernel.py`` and protected files excluded).

    A target counts as a file when it is a relative path (``csrc/tile.cuh``, optionally with
    ``:line``) with a source suffix, inside the workspace.
    """
    if plan is None:
        return []
    out = []
    for target in plan.targets:
        path = target.strip().split(":", 1)[0]
        p = PurePosixPath(path)
        if not path or p.is_absolute() or ".." in p.parts or p.suffix not in AUX_SUFFIXES:
            continue
        if path == "kernel.py" or path in PROTECTED or p.parts[0] in PROTECTED_DIRS:
            continue
        if path not in out:
            out.append(path)
    return out


def allowance(ws: Workspace, version: int, stage: Stage | str, plan: Plan | None = None) -> list[str]:
    """Glob patterns (relative to the workspace) the stage may write.

    Stage 2: ``plans/v<N>_plan.md``; Stage 3: ``kernel.py`` plus the auxiliary files the plan names.
    (Backend transcripts under ``profiles/v<N>/`` are skipped by every guard snapshot.)
    """
    if Stage(stage) is Stage.PLAN:
        return [f"plans/v{version}_plan.md"]
    return ["kernel.py", *aux_files(plan)]


def editable_files(ws: Workspace, version: int, stage: Stage | str, plan: Plan | None = None) -> list[str]:
    """The files of :func:`allowance` (they are plain paths, no globs): what a failed stage puts back."""
    return allowance(ws, version, stage, plan)


class CorrectnessLike(Protocol):
    passed: bool
    message: str


CorrectnessCheck = Callable[[Workspace], CorrectnessLike]


def harness_check() -> CorrectnessCheck | None:
    """``kernelopt.harness.gate.check_correctness`` when the harness provides it, else ``None``."""
    try:
        module = importlib.import_module("kernelopt.harness.gate")
    except ImportError:
        return None
    fn = getattr(module, "check_correctness", None)
    return fn if callable(fn) else None


def load_plan_parser() -> Callable[[str], Plan] | None:
    """``kernelopt.planning.markdown.parse_plan`` (plan-file text -> Plan) when installed, else ``None``."""
    try:
        module = importlib.import_module("kernelopt.planning.markdown")
    except ImportError:
        return None
    fn = getattr(module, "parse_plan", None)
    return fn if callable(fn) else None


def read_plan_reply(
    text: str,
    *,
    version: int,
    planner: str,
    parser: Callable[[str], Plan] | None,
    fail: Callable[[str], Exception],
    what: str,
) -> Plan:
    """Parse a backend's plan text and check it is for ``version``; name ``planner`` when it names none.

    Args:
        text: the plan Markdown the agent wrote or the model replied.
        version: the iteration being planned.
        planner: the backend's name, recorded in the plan when the text names no planner.
        parser: the plan parser (``None``: load :func:`load_plan_parser`).
        fail: builds the exception raised for a failure (the backend's own failure with its transcript).
        what: how the messages name the text ("the agent's plans/v3_plan.md", "the reply").

    Raises:
        The exception ``fail`` builds: no parser installed, unparsable plan, or a plan for another version.
    """
    parse = parser or load_plan_parser()
    if parse is None:
        raise fail("cannot read the plan: the plan parser (kernelopt.planning.markdown) is not installed")
    try:
        plan = parse(text)
    except (KerneloptError, ValueError) as exc:
        raise fail(f"{what} is not a valid plan: {getattr(exc, 'message', exc)}") from None
    if plan.version != version:
        raise fail(f"{what} is for version {plan.version}, expected {version}")
    if plan.planner is None:
        plan.planner = planner
    return plan


@dataclass
class ImplementReport:
    """What Stage 3 produced.

    Attributes:
        outcome: the implementer's outcome (``error`` set when the stage failed).
        diff: unified diff of ``kernel.py`` (empty when unchanged or restored).
        syntax_error: why the new kernel.py does not parse, when it does not.
        correctness_ran: True when the correctness check ran.
        correctness_passed: its verdict (``None`` when it did not run).
        correctness_message: its message, or why it did not run.
        correctness_error: why the check itself could not run (environment), when it could not.
    """

    outcome: ImplementOutcome
    diff: str = ""
    syntax_error: str | None = None
    correctness_ran: bool = False
    correctness_passed: bool | None = None
    correctness_message: str | None = None
    correctness_error: str | None = None

    @property
    def ok(self) -> bool:
        """True when kernel.py changed, parses, and passed correctness (or no check was available / asked
        for); False when the check itself could not run."""
        return (
            self.outcome.error is None
            and self.outcome.changed
            and self.syntax_error is None
            and self.correctness_passed is not False
            and self.correctness_error is None
        )


def _fail_violations(outcome: ImplementOutcome, violations: list[Change], allowed: list[str]) -> None:
    outcome.violations = [*outcome.violations, *[v for v in violations if v not in outcome.violations]]
    msg = (
        f"the implement backend wrote outside its allowance ({', '.join(allowed)}): "
        f"{guard.describe(violations)}; reverted"
    )
    outcome.error = f"{outcome.error}; {msg}" if outcome.error else msg


def run_implement(
    ctx: StageContext,
    implementer: Implementer,
    *,
    check: CorrectnessCheck | None = None,
    run_check: bool = True,
) -> ImplementReport:
    """Run ``implementer`` as Stage 3 under the write guard, then validate and check correctness at once.

    Args:
        ctx: the stage context (``ctx.plan`` is the plan to implement).
        implementer: the backend.
        check: the correctness check (default: the harness's ``check_correctness``); injectable so
            tests and other harnesses can supply their own.
        run_check: False to skip the correctness check (the report says it did not run).

    Returns:
        The report; on a backend failure or a guard violation, ``kernel.py`` (and any auxiliary file)
        is back as it was before the stage. A kernel that fails correctness is left in place for the
        caller to repair or revert.
    """
    ws = ctx.workspace
    allowed = allowance(ws, ctx.version, Stage.IMPLEMENT, ctx.plan)
    before = guard.snapshot(ws.root)
    kept = guard.capture(ws.root, editable_files(ws, ctx.version, Stage.IMPLEMENT, ctx.plan))
    old_kernel = ws.kernel_py.read_text(encoding="utf-8")
    outcome = implementer.implement(ctx)
    violations = guard.enforce(ws, before, allowed)
    report = ImplementReport(outcome=outcome)
    if violations:
        _fail_violations(outcome, violations, allowed)
    new_kernel = ws.kernel_py.read_text(encoding="utf-8") if ws.kernel_py.is_file() else ""
    if outcome.error is None and new_kernel == old_kernel and not outcome.changed:
        outcome.error = "the implementer left kernel.py unchanged"
    if outcome.error is not None:
        outcome.changed = False
        guard.restore(ws.root, kept)
        return report
    outcome.changed = new_kernel != old_kernel or outcome.changed
    report.diff = "".join(
        difflib.unified_diff(
            old_kernel.splitlines(keepends=True),
            new_kernel.splitlines(keepends=True),
            fromfile="a/kernel.py",
            tofile="b/kernel.py",
        )
    )
    try:
        ast.parse(new_kernel, filename="kernel.py")
    except SyntaxError as exc:
        report.syntax_error = f"kernel.py line {exc.lineno}: {exc.msg}"
        report.correctness_passed = False
        report.correctness_message = f"kernel.py does not parse: {report.syntax_error}"
        return report
    if not run_check:
        report.correctness_message = "correctness check skipped on request"
        return report
    fn = check or harness_check()
    if fn is None:
        report.correctness_message = (
            "correctness check unavailable (kernelopt.harness.gate.check_correctness not installed); "
            "run `python test_kernel.py` in the workspace"
        )
        return report
    try:
        result = fn(ws)
    except KerneloptError as exc:  # no usable Python / device, invalid task card: not the kernel's fault
        report.correctness_error = exc.one_line()
        report.correctness_message = f"the correctness check could not run: {exc.one_line()}"
        return report
    report.correctness_ran = True
    report.correctness_passed = bool(result.passed)
    report.correctness_message = str(result.message)
    return report


def plan_version(ws: Workspace) -> int:
    """The version Stage 2 plans by default: the newest profiled version, else the next unused one."""
    profiled = []
    for p in ws.profiles_dir.glob("v*"):
        if p.is_dir() and p.name[1:].isdigit():
            profiled.append(int(p.name[1:]))
    return max(profiled) if profiled else ws.next_version()


def implement_version(ws: Workspace) -> int:
    """The version Stage 3 implements by default: the newest ``plans/v<N>_plan.md``.

    Raises:
        UsageError: there is no plan.
    """
    planned = []
    for p in ws.plans_dir.glob("v*_plan.md"):
        head = p.name.split("_", 1)[0]
        if head[1:].isdigit():
            planned.append(int(head[1:]))
    if not planned:
        raise UsageError(f"{ws.root}: no plans/v<N>_plan.md to implement", hint="run Stage 2 (kernelopt plan) first")
    return max(planned)


def read_plan(ws: Workspace, version: int, parser: Callable[[str], Plan] | None = None) -> Plan:
    """Parse ``plans/v<N>_plan.md``.

    Raises:
        UsageError: no such plan file.
        EnvironmentProblem: the plan parser is not installed.
        InputFileError: the file is not a valid plan.
    """
    path = ws.plan_path(version)
    if not path.is_file():
        raise UsageError(f"no plan for v{version}: {path} is missing", hint="run Stage 2 (kernelopt plan) first")
    fn = parser or load_plan_parser()
    if fn is None:
        raise EnvironmentProblem("cannot read plans: kernelopt.planning.markdown (parse_plan) is not installed")
    try:
        return fn(path.read_text(encoding="utf-8"))
    except KerneloptError:
        raise
    except ValueError as exc:
        raise InputFileError(path, f"not a valid plan: {exc}") from None


def stage_context(
    ws: Workspace,
    version: int,
    *,
    plan: Plan | None = None,
    options: dict[str, Any] | None = None,
    knowledge: list[str] | None = None,
) -> StageContext:
    """A :class:`StageContext` from workspace state: ``profiles/v<N>/summary.json`` (when present) and
    the unmasked memory records (masked ones are never passed).

    Raises:
        SummaryError: the summary exists but is corrupt.
        RecordError: a memory record is corrupt.
    """
    from kernelopt.evidence.summary import SUMMARY_JSON, read_summary

    summary_file = ws.profile_dir(version) / SUMMARY_JSON
    summary = read_summary(summary_file) if summary_file.is_file() else None
    history = [r for r in ws.memory.records() if r.number < version]
    return StageContext(
        workspace=ws,
        version=version,
        summary=summary,
        history=history,
        plan=plan,
        options=dict(options or {}),
        knowledge=list(knowledge or []),
    )
