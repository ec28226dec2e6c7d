"""What the loop changed in one problem of an ``--optimize`` batch, in one line (the row's ``changed``). Pure.

Read from the workspace's memory records and the loop's stop decision (the journal), never from the
loop's printed output:

- versions were kept: the knob changes Stage 3 applied (``optimization.knob_changes``) over the kept
  versions V1..best, each knob from its V0 value to its value in the best version, then how many
  versions were kept and how many candidates the tuning sessions evaluated:
  ``BLOCK_SIZE 1024 -> 4096, num_warps 4 -> 8 (2 versions, 24 candidates)``. A kept version that changed
  code rather than knobs (agent-cli, llm-api) is named by its action category;
- nothing was kept: why, from the stop decision: ``launch configuration converged at 85 % of roofline
  (measured ceilings)``, ``no tunable knob in kernel.py: ...`` (a torch-only ``ModelNew``), ``nothing
  kept: v1 passed the gate but measured slower than v0`` (no significant change, and the best version is
  the fastest), ``nothing kept: 2 versions failed, last v2: ...``, else the loop's stop line.
"""

from __future__ import annotations

from collections.abc import Sequence

from kernelopt.loop.stop import CODE_CHANGE, StopDecision, StopReason
from kernelopt.memory.model import GateResult, IterationRecord, best_version
from kernelopt.oneline import one_line

#: The longest ``changed`` text (the knob list or the reason), characters; the table shows it whole.
CHANGED_CHARS = 160

#: Why the rules backend moves nothing in a kernel with no knob (a literal launch argument, a triton.Config
#: value or a ``# kernelopt: tunable`` constant: the planner's rule; its whole line is the row's ``stop``).
NO_KNOB = "no tunable knob in kernel.py: a code change needs agent-cli or llm-api"

__all__ = ["CHANGED_CHARS", "NO_KNOB", "changed_text", "kept_versions", "knob_path"]


def kept_versions(records: Sequence[IterationRecord]) -> list[IterationRecord]:
    """The versions V1..best the best version is built on: every unmasked version up to it that passed the
    gate (a failed version is reverted, so the next one starts from the last passing one), oldest first."""
    best = best_version(records)
    if best is None:
        return []
    kept = [
        r for r in records if 0 < r.number <= best.number and not r.masked and r.quality_gate.result is GateResult.PASS
    ]
    return sorted(kept, key=lambda r: r.number)


def knob_path(kept: Sequence[IterationRecord]) -> dict[str, tuple[object, object]]:
    """Each knob the kept versions moved: (its value before the first move, after the last), in the order
    first moved; a knob that came back to where it started is left out."""
    path: dict[str, tuple[object, object]] = {}
    for r in kept:
        for knob, change in r.optimization.knob_changes.items():
            if len(change) != 2:
                continue
            before = path[knob][0] if knob in path else change[0]
            path[knob] = (before, change[1])
    return {k: v for k, v in path.items() if v[0] != v[1]}


def _plural(n: int, word: str) -> str:
    return f"{n} {word}" if n == 1 else f"{n} {word}s"


def _what_kept(records: Sequence[IterationRecord], kept: Sequence[IterationRecord]) -> str:
    """``BLOCK 1024 -> 4096, tiling (v2) (2 versions, 24 candidates)``."""
    parts = [f"{k} {a} -> {b}" for k, (a, b) in knob_path(kept).items()]
    parts += [
        f"{r.optimization.action_category.value if r.optimization.action_category else 'change'} ({r.version})"
        for r in kept
        if not r.optimization.knob_changes
    ]
    candidates = sum(1 for r in records for c in r.candidates if not c.served)
    counts = _plural(len(kept), "version") + (f", {_plural(candidates, 'candidate')}" if candidates else "")
    what = ", ".join(parts) or "knobs moved and moved back"
    return f"{one_line(what, CHANGED_CHARS - len(counts) - 3)} ({counts})"


def _converged(best: IterationRecord | None) -> str:
    roofline = best.performance.roofline if best is not None else None
    pct, which = roofline.stop_figure() if roofline is not None else (None, "none")
    at = f"at {pct:.0f} % of roofline ({which})" if pct is not None else "(no roofline bound known)"
    return f"launch configuration converged {at}: {CODE_CHANGE}"


def changed_text(
    records: Sequence[IterationRecord], stop: StopDecision | None, *, knobless: bool = False
) -> str | None:
    """What the loop changed, or why nothing, in one line (see the module docstring).

    Args:
        records: every record of the workspace (``memory/v<N>.json``), any order.
        stop: the loop's stop decision; ``None`` when the loop did not finish.
        knobless: kernel.py has no tunable knob (what the rules planner found when it had no plan).

    Returns:
        ``None`` when the baseline failed (the row's status and reason say it) or nothing is known.
    """
    kept = kept_versions(records)
    if kept:
        return _what_kept(records, kept)
    if stop is None or stop.reason is StopReason.BASELINE_FAILED:
        return None
    if stop.reason is StopReason.CONVERGED:
        return one_line(_converged(best_version(records)), CHANGED_CHARS)
    if stop.reason is StopReason.NO_NEW_PLAN and knobless:
        return one_line(NO_KNOB, CHANGED_CHARS)
    tried = sorted((r for r in records if r.number > 0 and not r.masked), key=_n)
    failed = [r for r in tried if r.quality_gate.result is not GateResult.PASS]
    slower = [r.version for r in tried if r.quality_gate.result is GateResult.PASS]
    if slower:  # passed the gate (no significant change) but measured slower than V0, the best
        also = f"; {_plural(len(failed), 'version')} failed" if failed else ""
        text = f"nothing kept: {', '.join(slower)} passed the gate but measured slower than v0{also}"
        return one_line(text, CHANGED_CHARS)
    if failed:
        last = failed[-1]
        why = last.quality_gate.failure_reason or "no reason recorded"
        text = f"nothing kept: {_plural(len(failed), 'version')} failed, last {last.version}: {why}"
        return one_line(text, CHANGED_CHARS)
    return one_line(f"nothing changed: {stop.line()}", CHANGED_CHARS)


def _n(r: IterationRecord) -> int:
    return r.number
