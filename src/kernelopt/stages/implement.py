"""Stage 3 with any implementer, under the guard, with the correctness check at once and repair attempts.

:func:`run_implement` is the one Stage 3 of ``kernelopt implement`` and of the loop. Each attempt calls
the implementer (attempt 0, then repair attempts with the previous failure), undoes whatever it did
outside ``kernel.py`` and the plan's auxiliary files (:class:`~kernelopt.stages.guard.RunGuard`), then
checks what it left: ``kernel.py`` present, UTF-8 text, changed, parsing as Python, and passing the
correctness check. Every failed attempt is a :class:`~kernelopt.memory.model.PitfallAndFix`; the
stage's failure reason names the FIRST real cause (a crash, a timeout), followed by what the repair
attempts met. On failure ``kernel.py`` (and the auxiliary files) are put back as they were.
"""

from __future__ import annotations

import difflib
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from kernelopt import pyparse
from kernelopt.actions import SEARCH_LIMIT_SHORT, SEARCH_NO_GAIN, SEARCH_TOO_NOISY
from kernelopt.backends.protocol import (
    AGENT_UNAVAILABLE,
    AGENT_UNFINISHED,
    BackendFailure,
    Implementer,
    ImplementOutcome,
    StageContext,
)
from kernelopt.errors import InputFileError, KerneloptError, UsageError
from kernelopt.evidence.model import ProfileSummary
from kernelopt.evidence.summary import SUMMARY_JSON, SummaryError, read_summary
from kernelopt.fileio import SourceChanged, decode_python, made_a_link
from kernelopt.harness.model import CorrectnessReport
from kernelopt.memory.model import CorrectnessStatus, GateResult, IterationRecord, PitfallAndFix
from kernelopt.oneline import one_line
from kernelopt.planning.plan import Plan, PlanError
from kernelopt.stagenames import Stage
from kernelopt.stages.allowance import aux_files_of, editable_files, may_write
from kernelopt.stages.guard import (
    Captured,
    Link,
    RunGuard,
    capture,
    restore,
    violation_message,
    violation_pitfall,
)
from kernelopt.stages.plan import MarkdownPlanReader, PlanReader, transcript_allowance
from kernelopt.workspace import Workspace

CorrectnessCheck = Callable[[Workspace], CorrectnessReport]
AttemptSink = Callable[[PitfallAndFix, str, bool], None]
"""Told of each failed attempt: (pitfall, one-line message, True when no repair attempt is left)."""


NO_GAIN = SEARCH_NO_GAIN
"""error_type of an iteration whose Stage 3 search found nothing faster than the current configuration."""


@dataclass
class ImplementResult:
    """What Stage 3 produced.

    Attributes:
        version: the iteration N.
        implementer: the implementer's name.
        ok: ``kernel.py`` changed, parses, and passed the correctness check (or no check was asked for).
        outcome: the last implementer outcome (``None`` when the implementer raised).
        attempts: implementer calls made.
        result: the verdict a failure records (FAIL, TIMEOUT_FAIL, AGENT_UNAVAILABLE); ``None`` when ok.
        reason: one line: the first real cause, then what the repair attempts met; ``None`` when ok.
        error_type: ``implementer_error``, ``agent_unavailable``, ``agent_unfinished``, ``write_violation``,
            ``no_change``, ``correctness``, ...
        correctness: the last correctness report, when the check ran.
        rel_err: its relative error when it passed.
        diff: unified diff of ``kernel.py`` (empty when it failed and was put back).
        violations: what the guard undid, one line each.
        pitfalls: one entry per failed attempt and per violation.
        tokens: (who, token usage) per attempt that reported usage.
        transcript: the last attempt's transcript file.
    """

    version: int
    implementer: str
    ok: bool = False
    outcome: ImplementOutcome | None = None
    attempts: int = 0
    result: GateResult | None = None
    reason: str | None = None
    error_type: str | None = None
    correctness: CorrectnessReport | None = None
    rel_err: float | None = None
    diff: str = ""
    violations: list[str] = field(default_factory=list)
    pitfalls: list[PitfallAndFix] = field(default_factory=list)
    tokens: list[tuple[str, dict[str, int]]] = field(default_factory=list)
    transcript: Path | None = None


@dataclass
class _Attempt:
    """Why one attempt failed."""

    message: str
    error_type: str
    repairable: bool
    status: CorrectnessStatus = CorrectnessStatus.FAIL


def run_implement(
    ws: Workspace,
    version: int,
    plan: Plan,
    implementer: Implementer,
    *,
    guard: RunGuard,
    check: CorrectnessCheck | None,
    summary: ProfileSummary | None,
    history: list[IterationRecord],
    repair_attempts: int = 0,
    on_failed_attempt: AttemptSink | None = None,
    wall_left_s: float | None = None,
    note: Callable[[str], None] | None = None,
) -> ImplementResult:
    """Run ``implementer`` on ``plan`` under the guard, check correctness at once, repair on failure.

    Args:
        ws: the workspace.
        version: the iteration N.
        plan: the checked plan of ``version``.
        implementer: any :class:`~kernelopt.backends.protocol.Implementer`.
        guard: the run's guard.
        check: the correctness check; ``None`` skips it (``kernelopt implement --no-check``).
        summary: the Stage 1 evidence of ``version``.
        history: the records the implementer sees; masked ones and those of ``version`` or later are dropped.
        repair_attempts: implementer calls after a failed check (or a kernel.py that does not parse).
        on_failed_attempt: told of each failed attempt as it happens (the loop journals it).
        wall_left_s: seconds left of the run's wall-time limit (:attr:`StageContext.wall_left_s`).
        note: where the implementer's progress goes (:attr:`StageContext.note`).

    Raises:
        KerneloptError: the correctness check itself cannot run (no usable Python, device, task card).
    """
    aux = aux_files_of(plan)
    allowed = may_write(Stage.IMPLEMENT, version, aux)
    editable = editable_files(Stage.IMPLEMENT, version, aux)
    history = [r for r in history if not r.masked and r.number < version]
    res = ImplementResult(version=version, implementer=implementer.name)
    good = capture(ws.root, editable)
    kept = good.get("kernel.py")  # the user's own link (loses20 l1): read through, its target its own (l7)
    good_kernel, was = (kept.data, kept.target) if isinstance(kept, Link) else (kept, None)
    attempts = _Attempts(res, repair_attempts + 1, on_failed_attempt)
    for attempt in range(attempts.total):
        res.attempts = attempt + 1
        ctx = StageContext(
            workspace=ws,
            version=version,
            summary=summary,
            history=history,
            plan=plan,
            attempt=attempt,
            failure=attempts.failure_text,
            aux_files=list(aux),
            wall_left_s=wall_left_s,
            note=note,
        )
        point = guard.begin(editable)
        res.outcome, res.transcript, why = _call(implementer, ctx, res, attempt)
        violations = guard.check(point, allowed + transcript_allowance(ws, version, res.transcript))
        if violations:
            return _fail(ws, res, good, _violated(res, violations, allowed, on_failed_attempt), attempts.first)
        why = why or _verdict(ws, res, good_kernel, check, was)
        if why is None:
            res.ok = True
            res.diff = _diff(good_kernel, ws.kernel_py.read_bytes())
            return res
        final = res.outcome is not None and res.outcome.final  # the implementer makes no repair attempt (f65)
        last = attempt == attempts.total - 1 or not why.repairable or final
        made = attempt + (res.outcome.attempts_before if res.outcome is not None else 0)  # across its calls (l271)
        attempts.failed(why, made, last)
        if last:
            if why.repairable and made > 0:
                why.message = f"{why.message} after {made + 1} attempt(s)"
            return _fail(ws, res, good, why, attempts.first)
    raise AssertionError("unreachable")  # pragma: no cover


@dataclass
class _Attempts:
    """The failed attempts of one Stage 3 so far: the first real cause, the failure the next attempt repairs."""

    res: ImplementResult
    total: int
    sink: AttemptSink | None
    first: str | None = None
    failure_text: str | None = None

    def failed(self, why: _Attempt, attempt: int, last: bool) -> None:
        """Record attempt ``attempt``'s failure (counted from 0 over the implementer's calls) as a pitfall and tell
        the sink."""
        error_type = why.error_type if why.error_type != "correctness" else f"correctness_{why.status.value.lower()}"
        self.res.pitfalls.append(
            PitfallAndFix(
                error_type=error_type,
                error_message=one_line(why.message, 500),
                root_cause=f"implementation attempt {attempt + 1} of {self.total}",
                fix_applied="none: kernel.py restored to the last good version"
                if last
                else "repair attempt by the implementer",
                lesson=None,
            )
        )
        if self.sink is not None:
            self.sink(self.res.pitfalls[-1], why.message, last)
        if self.first is None:
            self.first = why.message
        self.failure_text = why.message


def _call(
    implementer: Implementer, ctx: StageContext, res: ImplementResult, attempt: int
) -> tuple[ImplementOutcome | None, Path | None, _Attempt | None]:
    """One implementer call: (its outcome, its transcript, why it failed when it raised)."""
    try:
        outcome = implementer.implement(ctx)
    except SourceChanged:  # a save of the user's during the call: theirs, no failure of the implementer's; the
        raise  # run stops, the save kept (as a failed attempt it was written over with the last good kernel, f9)
    except KerneloptError as exc:  # BackendFailure or a usage problem of the backend
        transcript = None
        if isinstance(exc, BackendFailure):
            transcript = exc.transcript
            if exc.tokens:
                res.tokens.append((f"implement attempt {attempt}", dict(exc.tokens)))
        unavailable = isinstance(exc, BackendFailure) and exc.unavailable
        unfinished = isinstance(exc, BackendFailure) and exc.unfinished
        kind = AGENT_UNAVAILABLE if unavailable else AGENT_UNFINISHED if unfinished else "implementer_error"
        why = _Attempt(f"the implementer failed: {exc.one_line()}", kind, repairable=False)
        return None, transcript, why
    if outcome.tokens:
        res.tokens.append((f"implement attempt {attempt}", dict(outcome.tokens)))
    return outcome, outcome.transcript, None


def _violated(res: ImplementResult, violations: list[str], allowed: list[str], sink: AttemptSink | None) -> _Attempt:
    """Record writes outside the allowance (a pitfall, told to the sink); the failure they are."""
    res.violations += violations
    res.pitfalls.append(
        violation_pitfall(violations, stage=Stage.IMPLEMENT, who="implementer", allowed_patterns=allowed)
    )
    if sink is not None:
        sink(res.pitfalls[-1], res.pitfalls[-1].error_message, True)
    return _Attempt(violation_message("implementer", "its allowance", violations), "write_violation", repairable=False)


def _verdict(
    ws: Workspace, res: ImplementResult, good_kernel: bytes | None, check: CorrectnessCheck | None, was: str | None
) -> _Attempt | None:
    """What is wrong with an attempt that returned: its error, the kernel.py it left (``was``: where the user's own
    link pointed as the stage began), or the correctness check (not run on a kernel.py the implementer checked on the
    full problem, ``outcome.checked``)."""
    outcome = res.outcome
    if outcome is not None and outcome.error and outcome.no_gain:
        # a measured search found nothing faster: a result, not a failure of the implementer
        return _Attempt(outcome.error, NO_GAIN, repairable=False)
    if outcome is not None and outcome.error and outcome.noisy:
        # a session too noisy to rank: measured, not a plan the implementer could not apply (and not converged)
        return _Attempt(outcome.error, SEARCH_TOO_NOISY, repairable=False)
    if outcome is not None and outcome.error and outcome.limit_short:
        # every candidate past its limit, the kernel as written too: the machine's pace, not the action (l201)
        return _Attempt(outcome.error, SEARCH_LIMIT_SHORT, repairable=False)
    if outcome is not None and outcome.error and outcome.unavailable:
        return _Attempt(f"the implementer was unavailable: {outcome.error}", AGENT_UNAVAILABLE, repairable=False)
    if outcome is not None and outcome.error and outcome.unfinished:
        return _Attempt(f"the implementer was stopped: {outcome.error}", AGENT_UNFINISHED, repairable=False)
    if outcome is not None and outcome.error:
        return _Attempt(
            f"the implementer could not apply the plan: {outcome.error}", "implementer_error", repairable=False
        )
    why = _inspect(ws, good_kernel, was)
    if why is not None or check is None or (outcome is not None and outcome.checked):
        return why
    report = check(ws)
    res.correctness = report
    if report.passed:
        res.rel_err = report.rel_err
        return None
    status = (
        report.status
        if report.status not in (CorrectnessStatus.PASS, CorrectnessStatus.NOT_RUN)
        else CorrectnessStatus.FAIL
    )
    return _Attempt(
        f"correctness {status.value}: {report.message or 'no message'}", "correctness", repairable=True, status=status
    )


def kernel_problem(ws: Workspace, good_kernel: bytes | None, was: str | None = None) -> str | None:
    """What is wrong with kernel.py before its correctness check can run (deleted, unchanged, not UTF-8, does
    not parse), in one line; ``None`` when nothing is. The same check Stage 3 makes of an implementer's work,
    for a caller that asks before it (``kernelopt mcp``'s ``validate``; ``was``: where the user's own link pointed as
    the stage began)."""
    problem = _inspect(ws, good_kernel, was)
    return problem.message if problem is not None else None


def _inspect(ws: Workspace, good_kernel: bytes | None, was: str | None = None) -> _Attempt | None:
    """What is wrong with the kernel.py an implementer left, or ``None``. A link it made is refused; the user's own
    (``was``: where kernel.py pointed as the stage began) is read through: the stage wrote the user's file (l7)."""
    if made_a_link(ws.kernel_py, was):  # gated through the link, committed as one: the kernel is what it points at
        return _Attempt(
            "the implementer made kernel.py a symbolic link (to a file the workspace does not hold): write the kernel "
            "into kernel.py itself",
            "linked_kernel",
            repairable=False,
        )
    if not ws.kernel_py.is_file():
        return _Attempt("the implementer deleted kernel.py", "deleted_kernel", repairable=False)
    data = ws.kernel_py.read_bytes()
    if data == good_kernel:
        return _Attempt("the implementer left kernel.py unchanged", "no_change", repairable=False)
    try:
        text = decode_python(data, "kernel.py")[0]  # in the encoding it declares (PEP 263)
    except InputFileError as exc:
        return _Attempt(
            f"the implementer left a kernel.py that Python cannot read: {exc.message}",
            "binary_kernel",
            repairable=False,
        )
    try:
        pyparse.parse(text, filename="kernel.py")
    except SyntaxError as exc:
        return _Attempt(f"kernel.py does not parse: line {exc.lineno}: {exc.msg}", "correctness", repairable=True)
    return None


def _fail(
    ws: Workspace, res: ImplementResult, good: dict[str, Captured], why: _Attempt, first: str | None
) -> ImplementResult:
    restore(ws.root, good)
    res.ok = False
    res.error_type = why.error_type
    if why.error_type == AGENT_UNAVAILABLE:
        res.result = GateResult.AGENT_UNAVAILABLE
    else:
        res.result = GateResult.TIMEOUT_FAIL if why.status is CorrectnessStatus.TIMEOUT_FAIL else GateResult.FAIL
    if first is not None and first != why.message and not why.message.startswith(first):
        res.reason = f"{first}; then {why.message}"
    else:
        res.reason = why.message
    return res


def _diff(old: bytes | None, new: bytes) -> str:
    a = (old or b"").decode("utf-8", errors="replace").splitlines(keepends=True)
    b = new.decode("utf-8", errors="replace").splitlines(keepends=True)
    return "".join(difflib.unified_diff(a, b, fromfile="a/kernel.py", tofile="b/kernel.py"))


# -- what the commands implement ----------------------------------------------------------------------


def implement_version(ws: Workspace) -> int:
    """The version Stage 3 implements by default: the newest ``plans/v<N>_plan.md``, when its version is not
    recorded (as Stage 2 plans the newest profile whose version has no record).

    Raises:
        UsageError: there is no plan, or the newest one's version is recorded (``memory/v<N>.json``): implementing it
            again re-ran its whole tuning session into kernel.py, outside any version, and the loop then refused
            kernel.py's uncommitted change.
    """
    planned = []
    for p in ws.plans_dir.glob("v*_plan.md"):
        head = p.name.split("_", 1)[0]
        if head[1:].isdigit():
            planned.append(int(head[1:]))
    if not planned:
        raise UsageError(f"{ws.root}: no plans/v<N>_plan.md to implement", hint="run Stage 2 (kernelopt plan) first")
    n = max(planned)
    if ws.memory.exists(n):
        raise UsageError(
            f"{ws.root}: the newest plan, plans/v{n}_plan.md, belongs to a recorded version (memory/v{n}.json)",
            hint=f"plan the next version first (kernelopt plan), or pass --version {n} to apply it again by hand",
        )
    return n


def read_plan(ws: Workspace, version: int, reader: PlanReader | None = None) -> Plan:
    """Parse ``plans/v<N>_plan.md``.

    Raises:
        UsageError: no such plan file.
        PlanError: the file is not a valid plan.
    """
    path = ws.plan_path(version)
    if not path.is_file():
        raise UsageError(f"no plan for v{version}: {path} is missing", hint="run Stage 2 (kernelopt plan) first")
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError:
        raise PlanError(f"{path}: not UTF-8 text") from None
    return (reader or MarkdownPlanReader()).parse(text)


def summary_of(ws: Workspace, version: int) -> ProfileSummary | None:
    """``profiles/v<N>/summary.json`` of ``version``, or ``None`` when there is none or it is unreadable."""
    folder = ws.profile_dir(version)
    if not (folder / SUMMARY_JSON).is_file():
        return None
    try:
        return read_summary(folder)
    except SummaryError:
        return None


def stage_context(
    ws: Workspace, version: int, *, plan: Plan | None = None, knowledge: list[str] | None = None
) -> StageContext:
    """The :class:`StageContext` a backend gets for ``version`` (what ``kernelopt prompt`` renders):
    the Stage 1 summary, the unmasked records below ``version``, the plan and its auxiliary files."""
    return StageContext(
        workspace=ws,
        version=version,
        summary=summary_of(ws, version),
        history=[r for r in ws.memory.records() if r.number < version],
        plan=plan,
        aux_files=aux_files_of(plan),
        knowledge=list(knowledge or []),
    )
