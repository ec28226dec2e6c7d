"""The rules backend (the default; no LLM): the ``rules`` planner adapter and the rule-based implementer.

:class:`RulePlanner` is the Stage 2 backend registered as ``rules``; its planning logic lives in
:mod:`kernelopt.planning.rules` (which does not import this package).

:class:`RuleImplementer` (Stage 3). A plan with a candidate set (a measured search inside one category)
is carried out by timing: every candidate configuration is written as its own copy of ``kernel.py``
through the tunables edit (refused edits are recorded), compiled and checked on the small shape in
parallel killable workers, and quick-timed with the current configuration as the yardstick
(:func:`kernelopt.harness.candidates.evaluate`). The fastest correct candidate that beats the current
configuration by ``min_gain_pct`` is applied; when none does, kernel.py is left unchanged and the
outcome says so (``no_gain``). Every candidate's measurement is returned for ``memory/v<N>.json``.

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
from kernelopt.fileio import atomic_write_text
from kernelopt.memory.model import CandidateResult, CandidateStatus
from kernelopt.planning.plan import Plan, PlanCandidate
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
    numeric = (
        isinstance(requested, int | float)
        and not isinstance(requested, bool)
        and isinstance(before, int | float)
        and not isinstance(before, bool)
    )
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
        return ResourceLimits.for_gpu_or_generic(gpu, dtype)

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
        if plan.candidates:
            return self._search(ctx, plan, settings)
        cat = plan.action_category
        if cat not in KNOB_CATEGORIES:
            return _fail(
                f"category '{cat.value}' is a code change, not a knob move; the rules implementer cannot express "
                "it (use --implementer agent-cli or llm-api)"
            )
        kernel_py = ctx.workspace.kernel_py
        gpu = settings.gpu or ctx.workspace.task_card().gpu
        try:
            old = kernel_py.read_text(encoding="utf-8")
            # autotune lists built by code are read back by importing kernel.py in a worker process
            tunables, evaluation = discover_evaluated(kernel_py, gpu=gpu, reference=ctx.workspace.reference_py)
        except (TunableError, InputFileError, OSError, UnicodeDecodeError) as exc:
            return _fail(f"cannot read the knobs of kernel.py: {getattr(exc, 'message', exc)}")
        allowed = KNOB_CATEGORIES[cat]
        editable = [t for t in tunables if t.editable]
        candidates = sorted({t.name for t in editable if set(t.categories) & allowed})

        changes: dict[str, Any] = dict(plan.parameters)
        if not changes:
            if cat in NEEDS_PARAMETERS:
                return _fail(
                    f"the plan gives no parameters; '{cat.value}' needs the knob and its new value "
                    f"(e.g. parameters: {{num_warps: 4}}); candidates: {', '.join(candidates) or 'none'}"
                )
            named = [tg for tg in plan.targets if any(_matches(t, tg) for t in tunables)]
            if named:
                changes = dict.fromkeys(named, DEFAULT_MOVE)
            elif len(candidates) == 1:
                changes = {candidates[0]: DEFAULT_MOVE}
            else:
                return _fail(
                    f"the plan names no knob for '{cat.value}'; candidates in kernel.py: "
                    f"{', '.join(candidates) or 'none'}"
                )
        for ident in changes:
            found = [t for t in tunables if _matches(t, ident)]
            if not found:
                known = ", ".join(sorted({t.key for t in editable})) or "none"
                return _fail(f"kernel.py has no tunable named '{ident}' (editable: {known})")
            semantic = [t for t in found if t.semantic]
            if semantic:
                return _fail(
                    f"'{ident}' is not a performance knob: {semantic[0].refused_reason}; the rules never move it"
                )
            wrong = [t for t in found if not set(t.categories) & allowed]
            if wrong:
                t = wrong[0]
                moved_by = ", ".join(c.value for c in t.categories) or "no category"
                return _fail(
                    f"knob '{t.key}' is moved by {moved_by}, not by the plan's category '{cat.value}' "
                    "(one category per iteration)"
                )
        kernel = _primary_kernel(ctx, tunables)
        before_values: dict[str, Any] = dict(getattr(plan, "current_values", {}) or {})
        for ident, requested in list(changes.items()):
            sites = [t for t in tunables if _matches(t, ident) and t.editable]
            mine = [t for t in sites if t.kernel in (kernel, None)] if kernel else sites
            changes[ident] = relative_move(mine or sites, requested, before_values.get(ident))
        result, why = self._apply(ctx, settings, old, changes, tunables, kernel, gpu, evaluation)
        if result is None:
            return _fail(why or "the edit was refused")
        atomic_write_text(kernel_py, result.new_source)
        moves = ", ".join(
            f"{e.key} {e.before} -> {e.after} ({e.location}"
            + (f"; overrides the computed `{e.overrides}`" if e.overrides else "")
            + ("; the launch left it at Triton's default, now written out" if e.inserted else "")
            + ")"
            for e in result.edits
        )
        return ImplementOutcome(
            changed=True,
            description=f"{cat.value}: {moves}",
            knob_changes=dict(result.knob_changes),
            knob_overrides=result.knob_overrides,
        )

    # -- a measured search ------------------------------------------------------------------------

    def _edit(
        self,
        ctx: StageContext,
        plan: Plan,
        old: str,
        tunables: list[Tunable],
        params: dict[str, Any],
        settings: Any,
        *,
        gpu: str | None = None,
        evaluation: Any = None,
    ) -> tuple[str | None, dict[str, tuple[Any, Any]], str | None, dict[str, str]]:
        """(new source, knob changes, None, overridden expressions) of one candidate, or
        (None, {}, why the edit is refused, {})."""
        allowed = KNOB_CATEGORIES[plan.action_category]
        kernel = _primary_kernel(ctx, tunables)
        changes: dict[str, Any] = {}
        for ident, value in params.items():
            sites = [t for t in tunables if _matches(t, ident) and t.editable]
            if not sites:
                return None, {}, f"kernel.py has no editable tunable named '{ident}'", {}
            if any(t.semantic for t in sites):
                return None, {}, f"'{ident}' is not a performance knob; the rules never move it", {}
            if any(not set(t.categories) & allowed for t in sites):
                return None, {}, f"knob '{ident}' is not moved by '{plan.action_category.value}'", {}
            mine = [t for t in sites if t.kernel in (kernel, None)] if kernel else sites
            now = {t.value for t in (mine or sites)}
            if now == {value}:
                continue
            changes[ident] = relative_move(mine or sites, value, plan.current_values.get(ident))
        if not changes:
            return old, {}, None, {}
        result, why = self._apply(ctx, settings, old, changes, tunables, kernel, gpu, evaluation)
        if result is None:
            return None, {}, why, {}
        return result.new_source, dict(result.knob_changes), None, dict(result.knob_overrides)

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

    def _search(self, ctx: StageContext, plan: Plan, settings: RuleSettings) -> ImplementOutcome:
        """Time every candidate of ``plan`` and apply the fastest correct one (see the module docstring)."""
        from kernelopt.harness.candidates import Candidate, SweepSettings, evaluate

        kernel_py = ctx.workspace.kernel_py
        gpu = settings.gpu or ctx.workspace.task_card().gpu
        try:
            old = kernel_py.read_text(encoding="utf-8")
            # autotune lists built by code are read back by importing kernel.py in a worker process
            tunables, evaluation = discover_evaluated(kernel_py, gpu=gpu, reference=ctx.workspace.reference_py)
        except (TunableError, InputFileError, OSError, UnicodeDecodeError) as exc:
            return _fail(f"cannot read the knobs of kernel.py: {getattr(exc, 'message', exc)}")
        cat = plan.action_category
        if cat not in KNOB_CATEGORIES:
            return _fail(f"category '{cat.value}' is a code change: a candidate set needs knobs")
        current_params = {k: v for k, v in plan.current_values.items()}
        entries: list[
            tuple[PlanCandidate | None, str | None, dict[str, tuple[Any, Any]], str | None, dict[str, str]]
        ] = [(None, old, {}, None, {})]
        for c in plan.candidates:
            edited = self._edit(ctx, plan, old, tunables, dict(c.parameters), settings, gpu=gpu, evaluation=evaluation)
            entries.append((c, *edited))
        to_time = [
            Candidate(label=f"c{i:02d}", source=src)
            for i, (_, src, _, why, _) in enumerate(entries)
            if src is not None and why is None
        ]
        card = ctx.workspace.task_card()
        sweep = SweepSettings(
            compile_timeout_s=settings.candidate_compile_timeout_s,
            case_timeout_s=settings.candidate_case_timeout_s,
            bench_seconds=settings.candidate_bench_seconds,
            parallel=settings.candidate_parallel,
            device=settings.device,
        )
        found = evaluate(
            to_time,
            reference_py=ctx.workspace.reference_py,
            sweep_dir=ctx.workspace.state_dir / "sweeps" / f"v{ctx.version}",
            settings=sweep,
            dtype_hint=settings.dtype or card.dtype,
        )
        by_label = {e.label: e for e in found}
        results: list[CandidateResult] = []
        for i, (pc, src, _, why, _) in enumerate(entries):
            params = dict(pc.parameters) if pc is not None else dict(current_params)
            ev = by_label.get(f"c{i:02d}")
            if src is None or why is not None:
                results.append(
                    CandidateResult(
                        parameters=params,
                        status=CandidateStatus.REFUSED,
                        reason=why,
                        evidence=pc.evidence if pc else None,
                    )
                )
            elif ev is None:
                results.append(
                    CandidateResult(parameters=params, status=CandidateStatus.NOT_TIMED, reason="not evaluated")
                )
            else:
                results.append(
                    CandidateResult(
                        parameters=params,
                        status=ev.status,
                        latency_us=ev.latency_us,
                        reason=ev.reason,
                        current=pc is None,
                        evidence=pc.evidence if pc else "the current configuration (the yardstick)",
                    )
                )
        timed = [(i, r) for i, r in enumerate(results) if r.status is CandidateStatus.OK and r.latency_us is not None]
        n_timed = len(timed)
        if not timed:
            return ImplementOutcome(
                changed=False,
                error=f"no candidate of {len(plan.candidates)} was correct and timed: {_failures(results)}",
                candidates=results,
            )
        best_i, best = min(timed, key=lambda ir: (ir[1].latency_us or 0.0, ir[0]))
        base = results[0]
        base_us = base.latency_us if base.status is CandidateStatus.OK else None
        gain = base_us is None or (best.latency_us or 0.0) < base_us * (1 - settings.min_gain_pct / 100)
        if best_i == 0 or not gain:
            results[0] = base.model_copy(update={"chosen": True})
            what = (
                f"the current configuration ({_params(current_params)}, {base_us:.4g} us) was the fastest"
                if best_i == 0 and base_us is not None
                else f"the fastest candidate ({_params(best.parameters)}, {best.latency_us:.4g} us) beats the "
                f"current {base_us:.4g} us by less than {settings.min_gain_pct:g} %"
            )
            return ImplementOutcome(
                changed=False,
                error=f"{cat.value} search: {what} of {n_timed} timed candidate(s){_not_timed(results)}; "
                "kernel.py left unchanged",
                candidates=results,
                no_gain=True,
            )
        results[best_i] = best.model_copy(update={"chosen": True})
        _, src, knob_changes, _, overrides = entries[best_i]
        assert src is not None
        atomic_write_text(kernel_py, src)
        vs = f" vs current {base_us:.4g} us" if base_us is not None else ""
        return ImplementOutcome(
            changed=True,
            description=(
                f"{cat.value}: timed {n_timed} of {len(results)} configurations; fastest correct "
                f"{_params(best.parameters)} ({best.latency_us:.4g} us{vs})"
            ),
            knob_changes=knob_changes,
            knob_overrides=overrides,
            candidates=results,
        )


def _params(params: dict[str, Any]) -> str:
    return ", ".join(f"{k}={v}" for k, v in params.items()) or "as is"


def _not_timed(results: list[CandidateResult]) -> str:
    """`` (2 refused, 1 timeout)``: the candidates that were not timed, by status; empty when all were."""
    counts: dict[str, int] = {}
    for r in results:
        if r.status is not CandidateStatus.OK:
            counts[r.status.value] = counts.get(r.status.value, 0) + 1
    return f" ({', '.join(f'{n} {s}' for s, n in counts.items())})" if counts else ""


def _failures(results: list[CandidateResult]) -> str:
    out = [f"{_params(r.parameters)}: {r.status.value}" + (f" ({r.reason[:80]})" if r.reason else "") for r in results]
    return "; ".join(out[:6]) + ("; ..." if len(out) > 6 else "")
