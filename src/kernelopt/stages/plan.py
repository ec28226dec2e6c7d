"""Stage 2 with any planner, under the guard: it may write only ``plans/v<N>_plan.md``.

:func:`run_plan` is the one Stage 2 of ``kernelopt plan`` and of the loop: it calls the planner with
the Stage 1 evidence and the unmasked history, undoes whatever the call did outside its allowance
(:class:`~kernelopt.stages.guard.RunGuard`), then reads the plan file (the only input of Stage 3),
checks it (parse, version, the action the planner returned, the plan rules, not a repeat of an earlier
version's action) and, when the evidence is timing-only, makes sure the plan says so.

Every outcome is a :class:`PlanResult` (planned, nothing new, or failed with a one-line reason and its
error type); exceptions are left for our bugs and a broken environment.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from enum import StrEnum
from pathlib import Path
from typing import Protocol

from kernelopt.backends.protocol import AGENT_UNAVAILABLE, AGENT_UNFINISHED, BackendFailure, Planner, StageContext
from kernelopt.errors import KerneloptError
from kernelopt.evidence.model import ProfileSummary
from kernelopt.evidence.summary import SUMMARY_JSON
from kernelopt.fileio import atomic_write_text
from kernelopt.memory.model import IterationRecord, PitfallAndFix
from kernelopt.planning.history import Signature, never_judged, plan_signature
from kernelopt.planning.markdown import parse_plan
from kernelopt.planning.plan import Plan, PlanError
from kernelopt.planning.validate import validate_plan
from kernelopt.stagenames import Stage
from kernelopt.stages.allowance import editable_files, may_write, shadowing_target
from kernelopt.stages.guard import RunGuard, restore, violation_message, violation_pitfall
from kernelopt.workspace import Workspace

TIMING_ONLY_NOTE = (
    "**Timing-only evidence**: hardware counters were unavailable for this iteration ({reason}); "
    "this plan rests on timing and analytic FLOP/byte counts only."
)


class PlanReader(Protocol):
    """Stage 2 tooling: parse the plan file a planner wrote and check it against the workspace."""

    def parse(self, text: str) -> Plan:
        """Parse ``plans/v<N>_plan.md``; raises a KerneloptError subclass when malformed."""
        ...

    def validate(
        self, plan: Plan, workspace: Workspace, history: list[IterationRecord], summary: ProfileSummary | None
    ) -> None:
        """Raise a KerneloptError subclass when the plan is invalid (no evidence, repeated action, ...)."""
        ...


class MarkdownPlanReader:
    """The plan file format (:mod:`kernelopt.planning.markdown`) and rules (:mod:`kernelopt.planning.validate`)."""

    def parse(self, text: str) -> Plan:
        return parse_plan(text)

    def validate(
        self, plan: Plan, workspace: Workspace, history: list[IterationRecord], summary: ProfileSummary | None
    ) -> None:
        validate_plan(plan, workspace, history, summary)
        shadowing = shadowing_target(plan)  # Stage 3 could not write it: said now, not as its write refused (z2)
        if shadowing is not None:
            raise PlanError(f"plan v{plan.version}: {shadowing}")


class PlanVerdict(StrEnum):
    PLANNED = "planned"
    NO_PLAN = "no_plan"
    FAILED = "failed"


@dataclass
class PlanResult:
    """What Stage 2 produced.

    Attributes:
        version: the iteration N.
        planner: the planner's name.
        verdict: planned, nothing new left, or failed.
        plan: the checked plan (``PLANNED`` only).
        reason: why there is no plan, why the stage failed, or the planner's note.
        error_type: the failure's kind (``planner_error``, ``agent_unavailable``, ``agent_unfinished``,
            ``write_violation``, ``invalid_plan``, ``repeated_plan``), ``None`` unless failed.
        violations: what the guard undid, ``path (kind)`` or a git change, one line each.
        pitfalls: the memory entries of those violations.
        tokens: token usage of the planner call.
        transcript: the planner's transcript file, when there is one.
        notes: remarks for the progress display (the timing-only note could not be added, ...).
    """

    version: int
    planner: str
    verdict: PlanVerdict
    plan: Plan | None = None
    reason: str | None = None
    error_type: str | None = None
    violations: list[str] = field(default_factory=list)
    pitfalls: list[PitfallAndFix] = field(default_factory=list)
    tokens: dict[str, int] = field(default_factory=dict)
    transcript: Path | None = None
    notes: list[str] = field(default_factory=list)

    @property
    def path(self) -> str:
        return f"plans/v{self.version}_plan.md"


def cpu_evidence(ws: Workspace, version: int | None) -> int:
    """``--device cpu`` of ``kernelopt plan`` and ``prompt``: the version to plan, with Stage 1's timing-only
    CPU evidence taken first when that version has none (no GPU, no profiler: the kernel timed on the CPU),
    so the step-by-step workflow runs on a machine without a GPU.

    Raises:
        KerneloptError: Stage 1 failed (the kernel does not run, ...).
    """
    from kernelopt.profiling import profile

    if version is None:
        try:
            return default_version(ws)
        except PlanError:
            version = ws.next_version()
    if not (ws.profile_dir(version) / SUMMARY_JSON).is_file():
        profile(ws, version, device="cpu")
    return version


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
            f"{ws.root}: no profiles/v<N>/summary.json to plan from",
            hint="run Stage 1 (kernelopt profile) first, or pass --device cpu to take timing-only evidence on the CPU",
        )
    n = profiled[-1]
    if ws.memory.exists(n):
        raise PlanError(
            f"{ws.root}: the newest profile, v{n}, belongs to a recorded version (memory/v{n}.json)",
            hint="profile the next version first, or pass --version",
        )
    return n


def tried_signatures(ws: Workspace, reader: PlanReader, *, before: int) -> dict[Signature, int]:
    """Plan signature -> version, for every unmasked recorded version ``0 < N < before`` with a plan file.

    The one repeated-plan check of the package reads this: a plan whose signature is here repeats the
    action of that version.
    """
    out: dict[Signature, int] = {}
    for r in ws.memory.records():
        if not 0 < r.number < before or never_judged(r):
            continue  # an action never judged (no agent to try it, or a wrong implementation of it) is not tried
        path = ws.plan_path(r.number)
        if not path.is_file():
            continue
        try:
            plan = reader.parse(path.read_text(encoding="utf-8"))
        except (KerneloptError, UnicodeDecodeError):
            continue
        out.setdefault(plan_signature(plan), r.number)
    return out


def transcript_allowance(ws: Workspace, version: int, transcript: Path | None) -> list[str]:
    if transcript is None:
        return []
    path = transcript if transcript.is_absolute() else ws.root / transcript
    try:
        rel = path.resolve().relative_to(ws.root.resolve()).as_posix()
    except ValueError:
        return []
    return [rel] if rel.startswith(f"profiles/v{version}/") else []


def say_timing_only(path: Path, summary: ProfileSummary, reader: PlanReader) -> bool:
    """Make sure the plan file says that its evidence is timing-only (appended when it does not).

    The note goes at the end, else as a quote under the Input Evidence heading, where the plan writer puts it: a
    plan an agent wrote ends in free text (its Risks and Rollback), which a note appended changed, so each such plan
    was warned of, even one whose front matter said ``counters_available: false`` as the plan prompt asks (newuser21
    n160).

    Returns False when the note could not be added without changing the parsed plan.
    """
    text = path.read_text(encoding="utf-8")
    if "timing-only" in text.lower():
        return True
    note = TIMING_ONLY_NOTE.format(reason=summary.counters_unavailable_reason or "reason unknown")
    heading = re.search(r"^##[ \t]+Input Evidence[ \t]*\n", text, flags=re.MULTILINE | re.IGNORECASE)
    places = [text.rstrip("\n") + "\n\n" + note + "\n"]
    if heading is not None:
        places.append(f"{text[: heading.end()]}\n> {note}\n{text[heading.end() :]}")
    try:
        parsed = reader.parse(text)
    except KerneloptError:
        return False
    for new in places:
        try:
            same = reader.parse(new) == parsed
        except KerneloptError:
            same = False
        if same:
            atomic_write_text(path, new)
            return True
    return False


def _written_plan(
    ws: Workspace,
    version: int,
    returned: Plan,
    reader: PlanReader,
    history: list[IterationRecord],
    summary: ProfileSummary | None,
) -> Plan:
    """The plan file as ``reader`` reads and validates it: for ``version``, with the action the planner
    returned.

    Raises:
        KerneloptError: it is not UTF-8, does not parse or validate, or is another plan.
    """
    path = ws.plan_path(version)
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError:
        raise PlanError(f"{path.name} is not UTF-8 text") from None
    plan = reader.parse(text)
    if plan.version != version:
        raise PlanError(f"{path.name} is for version {plan.version}, not {version}")
    if plan_signature(plan) != plan_signature(returned):
        raise PlanError(f"{path.name}: the file's action differs from the action the planner returned")
    reader.validate(plan, ws, history, summary)
    return plan


def run_plan(
    ws: Workspace,
    version: int,
    planner: Planner,
    *,
    guard: RunGuard,
    reader: PlanReader | None = None,
    summary: ProfileSummary | None,
    history: list[IterationRecord],
) -> PlanResult:
    """Run ``planner`` for iteration ``version`` under the guard and check what it wrote.

    Args:
        ws: the workspace.
        version: the iteration N.
        planner: any :class:`~kernelopt.backends.protocol.Planner`.
        guard: the run's guard.
        reader: parses and validates the plan file (default: :class:`MarkdownPlanReader`).
        summary: the Stage 1 evidence of ``version`` (``None`` when there is none).
        history: the records to plan against; masked ones and those of ``version`` or later are dropped here.
    """
    reader = reader or MarkdownPlanReader()
    history = [r for r in history if not r.masked and r.number < version]
    name = planner.name
    result = PlanResult(version=version, planner=name, verdict=PlanVerdict.FAILED)
    allowed = may_write(Stage.PLAN, version)
    ctx = StageContext(workspace=ws, version=version, summary=summary, history=history)
    point = guard.begin(editable_files(Stage.PLAN, version))

    def fail(reason: str, error_type: str) -> PlanResult:
        result.reason, result.error_type = reason, error_type
        if error_type in ("planner_error", AGENT_UNAVAILABLE, AGENT_UNFINISHED, "write_violation"):
            restore(ws.root, point.kept)  # a failed planner leaves no (half-written) plan behind
        return result

    def guarded(transcript: Path | None) -> list[str]:
        violations = guard.check(point, allowed + transcript_allowance(ws, version, transcript))
        if violations:
            result.violations = violations
            result.pitfalls.append(
                violation_pitfall(violations, stage=Stage.PLAN, who="planner", allowed_patterns=allowed)
            )
        return violations

    try:
        outcome = planner.plan(ctx)
    except KerneloptError as exc:  # BackendFailure: the planner could not plan (crash, hang, bad output)
        transcript = exc.transcript if isinstance(exc, BackendFailure) else None
        result.tokens = dict(exc.tokens) if isinstance(exc, BackendFailure) else {}
        result.transcript = transcript
        violations = guarded(transcript)
        if violations:  # the stray writes are the first cause: a planner must never make them
            return fail(violation_message("planner", str(result.path), violations), "write_violation")
        unavailable = isinstance(exc, BackendFailure) and exc.unavailable
        unfinished = isinstance(exc, BackendFailure) and exc.unfinished
        kind = AGENT_UNAVAILABLE if unavailable else AGENT_UNFINISHED if unfinished else "planner_error"
        return fail(f"the planner failed: {exc.one_line()}", kind)
    result.tokens, result.transcript = dict(outcome.tokens), outcome.transcript
    violations = guarded(outcome.transcript)
    if violations:
        return fail(violation_message("planner", str(result.path), violations), "write_violation")
    if outcome.plan is None:
        result.verdict = PlanVerdict.NO_PLAN
        result.reason = outcome.reason or "the planner found no new actionable plan"
        return result
    path = ws.plan_path(version)
    if not path.is_file():
        return fail(f"the planner returned a plan but wrote no {path.name}", "invalid_plan")
    try:
        plan = _written_plan(ws, version, outcome.plan, reader, history, summary)
    except KerneloptError as exc:
        return fail(f"invalid plan: {exc.one_line()}", "invalid_plan")
    repeated = tried_signatures(ws, reader, before=version).get(plan_signature(plan))
    if repeated is not None:
        return fail(
            f"the plan repeats the action of V{repeated} ({plan.action_category.value} {dict(plan.parameters)})",
            "repeated_plan",
        )
    if summary is not None and not summary.counters_available and not say_timing_only(path, summary, reader):
        result.notes.append(
            f"{path.name} does not say its evidence is timing-only, and a note appended would change the plan: "
            "say so in its front matter (counters_available: false)"
        )
    result.verdict, result.plan, result.reason = PlanVerdict.PLANNED, plan, outcome.reason
    return result
