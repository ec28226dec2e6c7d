"""The report as an agent asks for it first: the figures a user wants, in a few hundred bytes a version.

``kernelopt mcp``'s ``report`` returned the whole report (its data and its Markdown): 65 kB for three versions,
past Claude Code's limit on a tool's output, which then spills it to a file. By default it now returns this
digest, built from the same :class:`~kernelopt.report.model.ReportData` by the same rules (the speedup over V0
of :meth:`ReportData.speedup`, the headline against the reference of :mod:`kernelopt.report.headline`, the
change of :func:`kernelopt.loop.commits.change_summary`), and names where the full report is written and how to
ask for one section. Pure: no I/O.
"""

from __future__ import annotations

from pydantic import BaseModel

from kernelopt.loop.commits import change_summary
from kernelopt.memory.model import GateResult
from kernelopt.oneline import one_line
from kernelopt.report import sections
from kernelopt.report.headline import compiled_name, reference_headline
from kernelopt.report.model import ReportData, VersionEntry

FAILURE_CHARS = 200
"""A failure reason or an action is cut to this many characters (the evidence section has it whole)."""

DIGITS = 4
"""Significant digits of the figures (the report's tables print as many)."""


def _figure(x: float | None) -> float | None:
    return float(f"{x:.{DIGITS}g}") if x is not None else None


class VersionLine(BaseModel):
    """One version's figures.

    Attributes:
        version: ``V<N>``.
        status: the gate's verdict (``PASS``, ``FAIL``, ``TIMEOUT_FAIL``, ``not gated``), ``, masked`` when masked.
        latency_us: the gate's median latency, microseconds.
        speedup_vs_v0: its speedup over V0 by the chain of the gates' side-by-side verdicts (``ReportData.speedup``).
        speedup_vs_reference: the reference's (PyTorch eager) latency over this one's, timed beside it; ``None``
            when not timed or withheld as not reliable.
        speedup_vs_compiled: the same against ``torch.compile(reference)``, when it was timed.
        compiled_against: what built that compiled reference, as every printed place says it
            (:func:`kernelopt.report.headline.compiled_name`: ``torch.compile (mode max-autotune)``; late28 z62).
        action: the change (``autotune: BLOCK 64 -> 4096``), ``baseline`` for V0.
        failure: why the gate failed it, one line.
        commit: its commit's short hash.
    """

    version: str
    status: str
    latency_us: float | None = None
    speedup_vs_v0: float | None = None
    speedup_vs_reference: float | None = None
    speedup_vs_compiled: float | None = None
    compiled_against: str | None = None
    action: str | None = None
    failure: str | None = None
    commit: str | None = None


class ReportDigest(BaseModel):
    """The report in brief.

    Attributes:
        workspace: the workspace folder.
        best: the best version (the one the loop ends on), ``V<N>``.
        best_latency_us: its latency, microseconds.
        speedup_vs_v0: its speedup over V0.
        vs_reference: its speedup over the reference with the 95 % interval, or why it is not reliable.
        stop: why the last run stopped.
        passed, failed, masked: how many versions the gate passed, failed, and are masked.
        versions: every version's figures.
        summary: the report's Summary section (baseline, best, roofline share, stage times, caveats).
        more: where the full report is, and how to ask for one section.
    """

    workspace: str
    best: str | None = None
    best_latency_us: float | None = None
    speedup_vs_v0: float | None = None
    vs_reference: str | None = None
    stop: str | None = None
    passed: int
    failed: int
    masked: int
    versions: list[VersionLine]
    summary: list[str]
    more: str


def _action(v: VersionEntry) -> str | None:
    o = v.record.optimization
    if o.action_category is None:
        return "baseline" if v.record.number == 0 else o.action_description
    category = o.action_category.value
    said = change_summary(category, {}, o.knob_changes, o.action_description or "", o.knob_overrides)
    # an agent's edit has no knob changes: its plan's sentence, under its category
    return one_line(said if said.startswith(f"{category}:") else f"{category}: {said}".rstrip(": "), FAILURE_CHARS)


def version_line(data: ReportData, v: VersionEntry) -> VersionLine:
    ref = v.record.performance.speedup_vs_reference
    failure = v.record.quality_gate.failure_reason if v.failed else None
    return VersionLine(
        version=v.label,
        status=v.status,
        latency_us=_figure(v.record.performance.latency_us),
        speedup_vs_v0=_figure(data.speedup(v)) if not v.record.masked else None,
        speedup_vs_reference=_figure(ref.eager) if ref else None,
        speedup_vs_compiled=_figure(ref.compiled) if ref else None,
        compiled_against=compiled_name(ref) if ref and ref.compiled is not None else None,
        action=_action(v),
        failure=one_line(failure, FAILURE_CHARS) if failure else None,
        commit=v.commit,
    )


def digest(data: ReportData, *, more: str) -> ReportDigest:
    """The digest of ``data``; ``more`` says where the whole report was written and how to ask for a section."""
    best = data.best()
    return ReportDigest(
        workspace=data.root,
        best=best.label if best else None,
        best_latency_us=_figure(best.record.performance.latency_us) if best else None,
        speedup_vs_v0=_figure(data.speedup(best)),
        vs_reference=reference_headline(best.record.performance.speedup_vs_reference) if best else None,
        stop=data.stop_reason,
        passed=sum(1 for v in data.versions if v.gate is GateResult.PASS and not v.record.masked),
        failed=len(data.failed_versions()),
        masked=len(data.masked_versions()),
        versions=[version_line(data, v) for v in data.versions],
        summary=sections.headline(data) + [f"Unreadable record {u}" for u in data.unreadable],
        more=more,
    )


def missing_version(data: ReportData, version: int) -> str | None:
    """Why ``report(section="evidence", version=N)`` has nothing to show, the words after the workspace's name: no
    record of that version, with those there; ``None`` where it has one. The tool answered "No record of V9." as a
    success (newuser21 n159), where ``compare`` refuses a version that does not exist."""
    recorded = [v.record.number for v in data.versions]
    if version in recorded:
        return None
    have = ", ".join(f"V{n}" for n in recorded) or "none yet"
    return (
        f"has no record of V{version} (recorded: {have}); give one of them, or leave version out for every version's "
        "evidence"
    )
