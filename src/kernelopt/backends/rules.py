"""The rules backend (the default; no LLM): the ``rules`` planner adapter and the rule-based implementer.

:class:`RulePlanner` is the Stage 2 backend registered as ``rules``; its planning logic lives in
:mod:`kernelopt.planning.rules` (which does not import this package).

:class:`RuleImplementer` (Stage 3). A plan of the launch configuration
(:data:`~kernelopt.actions.LAUNCH_CONFIGURATION`, what the rules planner plans for it; an older plan's
candidate set reads the same: :meth:`~kernelopt.planning.plan.Plan.is_tuning_session`) is one tuning session
of the tuning engine (:mod:`kernelopt.backends.launch_tuning`): every knob of the launch searched jointly,
every candidate recorded, the fastest correct one applied through the tunables' checked edit when it beats
the current configuration by ``min_gain_pct``; when none does, kernel.py is left unchanged and the outcome
says so (``no_gain``: the launch configuration has converged).

A plan of one knob move:

The plan names the knob and the change in ``Plan.parameters`` (``{"num_warps": 8}``,
``{"BLOCK_SIZE": 2048}``, ``{"BLOCK_M": "x2"}``, ``{"num_stages": "+1"}``) or, without parameters, in
``Plan.targets`` (then the category's default move applies: one legal step *up*). When a knob name is
carried by several literals with different values (every config of an autotune list), an absolute
``before -> after`` from the plan's ``current_values`` becomes the same relative move at each of them.
The knob must be one that the plan's category moves (:data:`KNOB_CATEGORIES`), so one iteration
changes one category. The edit goes through :mod:`kernelopt.tunables` (legality, resource limits,
grid consistency), which checks that the new text differs from the old one only in the planned
literals (knob values re-read, every other knob and line unchanged); the implementer then checks
those are the knobs the plan named.

Categories that are code changes (coalescing, fusion, swizzles, TMA, ...) cannot be expressed as a
knob move: the implementer says so and changes nothing.
"""

from __future__ import annotations

import math
from typing import Any

from kernelopt.actions import ActionCategory
from kernelopt.backends.protocol import ImplementOutcome, PlanOutcome, StageContext
from kernelopt.backends.settings import RuleSettings, load_settings
from kernelopt.errors import InputFileError
from kernelopt.fileio import read_source, replace_source
from kernelopt.numeric import is_number
from kernelopt.planning.plan import Plan
from kernelopt.tunables import (
    EditResult,
    ResourceLimits,
    Tunable,
    TunableError,
    apply_source,
)
from kernelopt.tunables.evaluate import discover_evaluated
from kernelopt.tunables.model import PLAN_KNOB_CATEGORIES

AC = ActionCategory

# Plan category -> the knob categories that may express it: one table, in kernelopt.tunables.model.
KNOB_CATEGORIES = PLAN_KNOB_CATEGORIES

# Categories whose direction is unclear without the plan's parameters (fewer warps or smaller tiles?).
NEEDS_PARAMETERS = frozenset({AC.OCCUPANCY, AC.REGISTER_PRESSURE, AC.PERSISTENT_KERNEL, AC.MFMA_USE})

DEFAULT_MOVE = "up"


def supported_categories() -> list[ActionCategory]:
    """The categories the rule-based implementer can express as a knob move."""
    return list(KNOB_CATEGORIES)


def _fail(message: str) -> ImplementOutcome:
    return ImplementOutcome(changed=False, error=message)


def _primary_kernel(ctx: StageContext, tunables: list[Tunable]) -> str | None:
    """The kernel of the file that the profile's dominant launch belongs to, when it can be told."""
    primary = ctx.summary.primary() if ctx.summary else None
    if primary is None:
        return None
    kernels = {t.kernel for t in tunables if t.kernel}
    for k in sorted(kernels, key=len, reverse=True):
        if primary.kernel_name == k or primary.kernel_name.startswith(k):
            return k
    return None


def relative_move(sites: list[Tunable], requested: Any, before: Any) -> Any:
    """The plan's absolute ``before -> requested`` as the same move at every site of a knob.

    A knob name carried by several literals with different values (each config of an autotune list)
    cannot take one absolute value; a plan that says ``num_stages 3 -> 4`` means "one stage deeper"
    there, and ``BLOCK_M 64 -> 128`` means "twice as large". Returns ``requested`` unchanged when it
    is already relative, when the sites agree, or when ``before`` is not one of their values.
    """
    values = {t.value for t in sites}
    numeric = is_number(requested) and is_number(before)
    if len(values) < 2 or not numeric or before not in values or before == 0:
        return requested
    ratio = requested / before
    if all(t.legality.power_of_two for t in sites) and ratio > 0:
        exponent = math.log2(ratio)
        if exponent == int(exponent):
            return f"x{int(ratio)}" if ratio >= 1 else f"/{round(1 / ratio)}"
    delta = requested - before
    return f"+{delta:g}" if delta > 0 else f"-{-delta:g}"


def _matches(t: Tunable, ident: str) -> bool:
    return ident in (t.key, t.name) or ident in t.feeds


def _planned_changes(plan: Plan, tunables: list[Tunable]) -> dict[str, Any] | str:
    """The knob moves of a plan of one knob category (its parameters, else its targets or the category's
    one knob moved one step up), checked: each names an editable, non-semantic knob of the category; or
    one line saying why not."""
    cat = plan.action_category
    allowed = KNOB_CATEGORIES[cat]
    editable = [t for t in tunables if t.editable]
    candidates = sorted({t.name for t in editable if set(t.categories) & allowed})
    changes: dict[str, Any] = dict(plan.parameters)
    if not changes:
        if cat in NEEDS_PARAMETERS:
            return (
                f"the plan gives no parameters; '{cat.value}' needs the knob and its new value "
                f"(e.g. parameters: {{num_warps: 4}}); candidates: {', '.join(candidates) or 'none'}"
            )
        named = [tg for tg in plan.targets if any(_matches(t, tg) for t in tunables)]
        if named:
            changes = dict.fromkeys(named, DEFAULT_MOVE)
        elif len(candidates) == 1:
            changes = {candidates[0]: DEFAULT_MOVE}
        else:
            return (
                f"the plan names no knob for '{cat.value}'; candidates in kernel.py: {', '.join(candidates) or 'none'}"
            )
    for ident in changes:
        found = [t for t in tunables if _matches(t, ident)]
        if not found:
            known = ", ".join(sorted({t.key for t in editable})) or "none"
            return f"kernel.py has no tunable named '{ident}' (editable: {known})"
        semantic = [t for t in found if t.semantic]
        if semantic:
            return f"'{ident}' is not a performance knob: {semantic[0].refused_reason}; the rules never move it"
        wrong = [t for t in found if not set(t.categories) & allowed]
        if wrong:
            moved_by = ", ".join(c.value for c in wrong[0].categories) or "no category"
            return (
                f"knob '{wrong[0].key}' is moved by {moved_by}, not by the plan's category '{cat.value}' "
                "(one category per iteration)"
            )
    return changes


def _moves(result: EditResult) -> str:
    """``BLOCK 64 -> 128 (kernel.py:12; ...)`` for every knob an edit moved."""
    return ", ".join(
        f"{e.key} {e.before_said} -> {e.after} ({e.location}"
        + (f"; overrides the computed `{e.overrides}`" if e.overrides else "")
        + ("; the launch left it at Triton's default, now written out" if e.inserted else "")
        + ")"
        for e in result.edits
    )


class RulePlanner:
    """The ``rules`` planner backend: :func:`kernelopt.planning.rules.plan_version` behind the Planner protocol.

    Args:
        options: settings (see :class:`~kernelopt.planning.rules.RuleOptions`).

    Raises:
        UsageError: an unknown option.
    """

    name = "rules"

    def __init__(self, options: dict[str, Any] | None = None) -> None:
        # imported here: the implementer in this module needs none of the planning machinery
        from kernelopt.planning.rules import RuleOptions

        self.options = RuleOptions.from_dict(options or {})

    def plan(self, ctx: StageContext) -> PlanOutcome:
        """Plan iteration ``ctx.version``; write ``plans/v<N>_plan.md`` or say why there is no plan."""
        from kernelopt.planning.rules import plan_version

        plan, reason = plan_version(ctx.workspace, ctx.version, ctx.summary, ctx.history, self.options)
        return PlanOutcome(plan, reason=reason)


class RuleImplementer:
    """Stage 3 without an LLM: one planned knob move, checked and applied to ``kernel.py``.

    Args:
        options: :class:`~kernelopt.backends.settings.RuleSettings` fields (``gpu``, ``dtype``,
            ``check_resources``).
    """

    name = "rules"

    def __init__(self, options: dict[str, Any] | None = None) -> None:
        self.options = dict(options or {})

    def _limits(self, ctx: StageContext, settings: RuleSettings) -> ResourceLimits | None:
        if not settings.check_resources:
            return None
        card = ctx.workspace.task_card()
        gpu, dtype = settings.gpu or card.gpu, settings.dtype or card.dtype
        return ResourceLimits.for_target(gpu, dtype)

    def implement(self, ctx: StageContext) -> ImplementOutcome:
        """Apply the plan's one knob move to ``kernel.py``.

        Returns:
            ``changed=True`` with ``knob_changes`` (knob -> (before, after)) on success; otherwise
            ``changed=False`` and ``error`` saying why (no plan, a category that is not a knob move, no
            such knob, a knob of another category, an illegal or refused change, a config that
            cannot fit).

        Raises:
            UsageError: invalid options.
        """
        settings = load_settings(RuleSettings, {**ctx.options, **self.options}, {}, backend="rules")
        plan = ctx.plan
        if plan is None:
            return _fail("no plan to implement")
        if plan.is_tuning_session():
            from kernelopt.backends.launch_tuning import tune_launch

            return tune_launch(ctx, settings)
        cat = plan.action_category
        if cat not in KNOB_CATEGORIES:
            return _fail(
                f"category '{cat.value}' is a code change, not a knob move; the rules implementer cannot express "
                "it (use --implementer agent-cli or llm-api)"
            )
        kernel_py = ctx.workspace.kernel_py
        gpu = settings.gpu or ctx.workspace.task_card().gpu
        try:
            source = read_source(kernel_py)  # the bytes the edit may replace (a save meanwhile is kept, f9)
            old = source.text
            # autotune lists built by code are read back by importing kernel.py in a worker process
            tunables, evaluation = discover_evaluated(
                kernel_py, gpu=gpu, reference=ctx.workspace.reference_py, device=settings.device or "auto"
            )
        except (TunableError, InputFileError, OSError, UnicodeDecodeError, SyntaxError) as exc:
            return _fail(f"cannot read the knobs of kernel.py: {getattr(exc, 'message', exc)}")
        changes = _planned_changes(plan, tunables)
        if isinstance(changes, str):
            return _fail(changes)
        kernel = _primary_kernel(ctx, tunables)
        before_values: dict[str, Any] = dict(getattr(plan, "current_values", {}) or {})
        for ident, requested in list(changes.items()):
            sites = [t for t in tunables if _matches(t, ident) and t.editable]
            mine = [t for t in sites if t.kernel in (kernel, None)] if kernel else sites
            changes[ident] = relative_move(mine or sites, requested, before_values.get(ident))
        result, why = self._apply(ctx, settings, old, changes, tunables, kernel, gpu, evaluation)
        if result is None:
            return _fail(why or "the edit was refused")
        replace_source(source, result.new_source)
        return ImplementOutcome(
            changed=True,
            description=f"{cat.value}: {_moves(result)}",
            knob_changes=dict(result.knob_changes),
            knob_overrides=result.knob_overrides,
        )

    def _apply(
        self,
        ctx: StageContext,
        settings: Any,
        old: str,
        changes: dict[str, Any],
        tunables: list[Tunable],
        kernel: str | None,
        gpu: str | None,
        evaluation: Any,
    ) -> tuple[EditResult | None, str | None]:
        """The tunables' checked edit of ``changes`` as (EditResult, None), or (None, why it is refused).

        ``apply_source`` checks that the new text differs from the old one only in these literals (knob
        values re-read, every other knob and line unchanged); this checks they are the planned ones.
        """
        try:
            result = apply_source(
                old,
                changes,
                filename="kernel.py",
                limits=self._limits(ctx, settings),
                kernel=kernel,
                gpu=gpu,
                evaluation=evaluation,
            )
        except TunableError as exc:
            return None, exc.one_line()
        planned = {t.key for ident in changes for t in tunables if _matches(t, ident)}
        stray = [e.key for e in result.edits if e.key not in planned]
        if stray:
            return None, f"the edit touched knobs the plan did not name: {', '.join(stray)}"
        return result, None
