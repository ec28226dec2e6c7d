"""ISA targets of the task card and severe ISA regressions between two profiles (pure).

Targets come from the README front matter, e.g.::

    isa_targets:
      spills: 0
      global_load_bits: ">=128"
      tensor_pipe_pct: ">=50"

A target is a comparison (``>=``, ``<=``, ``>``, ``<``, ``==``, ``!=``) and a number; a bare number
means ``<=`` for metrics where lower is better (spills, registers, scratch, bank conflicts) and
``==`` otherwise. The current value is read from the primary kernel of Stage 1's
``profiles/v<N>/summary.json``: a normalized metric of that name, an ISA fact of that name, an
instruction-count family of that name, or one of the aliases below.

Severe ISA regressions (spec, "Quality Gate": "No severe ISA regression, such as new spills or a
large occupancy drop"): spills where the previous profile had none, or achieved (else theoretical)
occupancy falling by at least :data:`OCCUPANCY_DROP_REL_PCT` percent of its previous value and at
least :data:`OCCUPANCY_DROP_ABS_PTS` points.
"""

from __future__ import annotations

import operator
import re
from collections.abc import Callable
from enum import StrEnum

from pydantic import BaseModel

from kernelopt.evidence.model import KernelEvidence, ProfileSummary
from kernelopt.memory.model import IsaMetricProgress
from kernelopt.numeric import is_number

#: Our threshold for "a large occupancy drop": the spec's own example is 25 % -> 12 % (a 52 % drop);
#: a quarter of the previous value still costs latency hiding on a memory-bound kernel.
OCCUPANCY_DROP_REL_PCT = 25.0
#: ...and at least this many percentage points, so 8 % -> 5 % on a tiny grid is not called severe.
OCCUPANCY_DROP_ABS_PTS = 5.0

LOWER_IS_BETTER = frozenset(
    {"spills", "spill_ops", "spilled_registers", "registers_per_thread", "registers", "scratch_bytes", "bank_conflicts"}
)

_OPS: dict[str, Callable[[float, float], bool]] = {
    ">=": operator.ge,
    "<=": operator.le,
    ">": operator.gt,
    "<": operator.lt,
    "==": operator.eq,
    "!=": operator.ne,
}
_TARGET_RE = re.compile(r"^\s*(>=|<=|==|!=|>|<|=)?\s*([-+]?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?)\s*%?\s*$")

# metric name in the task card -> where to look (first found wins): "m:<metric>" or "isa:<IsaFacts field>"
ALIASES: dict[str, tuple[str, ...]] = {
    "spills": ("isa:spill_ops", "isa:spilled_registers", "m:local_spill_requests", "m:spill_bytes"),
    "spill_ops": ("isa:spill_ops",),
    "registers": ("m:registers_per_thread", "isa:registers_per_thread"),
    "registers_per_thread": ("m:registers_per_thread", "isa:registers_per_thread"),
    "occupancy": ("m:achieved_occupancy_pct",),
    "achieved_occupancy": ("m:achieved_occupancy_pct",),
    "theoretical_occupancy": ("m:theoretical_occupancy_pct",),
    "tensor_pipe": ("m:tensor_pipe_pct",),
    "global_load_bits": ("isa:global_load_bits",),
    "vgprs": ("isa:registers_per_thread",),
    "sgprs": ("isa:sgprs",),
    "scratch_bytes": ("isa:scratch_bytes",),
    "tensor_instructions": ("isa:tensor_instructions",),
}


class Target(BaseModel):
    """A parsed target: ``current <op> value``."""

    op: str
    value: float

    def met(self, current: float) -> bool:
        return _OPS[self.op](current, self.value)

    def text(self) -> str:
        return f"{self.op}{self.value:g}"


class RegressionKind(StrEnum):
    NEW_SPILLS = "new_spills"
    OCCUPANCY_DROP = "occupancy_drop"


class IsaRegression(BaseModel):
    """A severe ISA regression between the previous and the current profile.

    Attributes:
        kind: what regressed.
        metric: the metric compared.
        previous: its previous value.
        current: its current value.
        message: one line for the gate's failure reason.
    """

    kind: RegressionKind
    metric: str
    previous: float
    current: float
    message: str


def parse_target(metric: str, raw: str | int | float) -> Target:
    """``">=128"`` -> ``Target(op=">=", value=128)``; a bare number per the module rules.

    Raises:
        ValueError: not a comparison with a number.
    """
    if isinstance(raw, bool):
        raise ValueError(f"isa_targets.{metric}: {raw!r} is not a number or comparison")
    if isinstance(raw, int | float):
        return Target(op="<=" if metric in LOWER_IS_BETTER else "==", value=float(raw))
    m = _TARGET_RE.match(str(raw))
    if not m:
        raise ValueError(f"isa_targets.{metric}: {raw!r} is not a comparison such as '>=128'")
    op = m.group(1) or ("<=" if metric in LOWER_IS_BETTER else "==")
    return Target(op="==" if op == "=" else op, value=float(m.group(2)))


def metric_value(name: str, kernel: KernelEvidence) -> float | None:
    """The current value of ``name`` in one kernel's evidence, ``None`` when not found or not measured."""
    lookups = [f"m:{name}", f"isa:{name}", *ALIASES.get(name, ())]
    for key in lookups:
        kind, _, field = key.partition(":")
        if kind == "m":
            v = kernel.metric(field)
            if v is not None:
                return float(v)
        elif kernel.isa is not None:
            v = getattr(kernel.isa, field, None)
            if is_number(v):
                return float(v)
    if kernel.isa is not None and name in kernel.isa.instruction_counts:
        return float(kernel.isa.instruction_counts[name])
    return None


def isa_progress(targets: dict[str, str | int | float], summary: ProfileSummary | None) -> list[IsaMetricProgress]:
    """One progress entry per target; ``current``/``met`` are ``None`` without evidence for it."""
    kernel = summary.primary() if summary is not None else None
    out = []
    for metric, raw in targets.items():
        try:
            target = parse_target(metric, raw)
        except ValueError:
            out.append(IsaMetricProgress(metric=metric, target=str(raw), current=None, met=None))
            continue
        current = metric_value(metric, kernel) if kernel is not None else None
        out.append(
            IsaMetricProgress(
                metric=metric,
                target=target.text(),
                current=current,
                met=target.met(current) if current is not None else None,
            )
        )
    return out


def _spills(kernel: KernelEvidence) -> float | None:
    return metric_value("spills", kernel)


def _occupancy(kernel: KernelEvidence) -> tuple[str, float] | None:
    for name in ("achieved_occupancy_pct", "theoretical_occupancy_pct"):
        v = kernel.metric(name)
        if v is not None:
            return name, float(v)
    return None


def severe_regressions(previous: ProfileSummary | None, current: ProfileSummary | None) -> list[IsaRegression]:
    """New spills and large occupancy drops of the primary kernel, previous -> current."""
    if previous is None or current is None:
        return []
    pk, ck = previous.primary(), current.primary()
    if pk is None or ck is None:
        return []
    out = []
    ps, cs = _spills(pk), _spills(ck)
    if ps is not None and cs is not None and ps == 0 and cs > 0:
        out.append(
            IsaRegression(
                kind=RegressionKind.NEW_SPILLS,
                metric="spills",
                previous=ps,
                current=cs,
                message=f"new register spills: {cs:g} spill instructions where the previous version had none",
            )
        )
    po, co = _occupancy(pk), _occupancy(ck)
    if po is not None and co is not None and po[0] == co[0] and po[1] > 0:
        drop_pts = po[1] - co[1]
        drop_rel = 100.0 * drop_pts / po[1]
        if drop_rel >= OCCUPANCY_DROP_REL_PCT and drop_pts >= OCCUPANCY_DROP_ABS_PTS:
            out.append(
                IsaRegression(
                    kind=RegressionKind.OCCUPANCY_DROP,
                    metric=po[0],
                    previous=po[1],
                    current=co[1],
                    message=f"large occupancy drop: {po[0]} {po[1]:.1f} % -> {co[1]:.1f} % (-{drop_rel:.0f} %)",
                )
            )
    return out
