"""The report's content as rows and lines, shared by the Markdown and HTML renderers (pure).

Each function turns :class:`~kernelopt.report.model.ReportData` into plain cells (strings) so both
formats show the same figures; ``n/a`` marks every value that was not measured.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from kernelopt.actions import SEARCH_NO_GAIN
from kernelopt.evidence.model import Metric
from kernelopt.evidence.summary import KEY_METRICS
from kernelopt.harness.stats import claim_text
from kernelopt.memory.model import GateResult, Performance, unlinked_versions
from kernelopt.report import cells
from kernelopt.report.headline import compiled_name, eager_claim, interval_text, previous_cell, previous_latency_change
from kernelopt.report.model import PREVIOUS_RUNS, ReportData, VersionEntry, v0_runs
from kernelopt.report.roofline import roofline_bounds, roofline_points

#: What the timeline's columns mean (Markdown and HTML alike).
TIMELINE_NOTE = (
    "Latency is the median per launch of the version's own gate run; `vs previous` is the gate's interleaved "
    f"comparison with the previous version ({PREVIOUS_RUNS}): the median of its ABBA blocks' ratios and its 95 % "
    "interval, or, where the samples are skewed and the ratio of the two versions' medians lies outside that "
    "interval, the smaller of the two readings, its interval widened to hold both (the gate warns), the one figure "
    "the CSV, the JSON and the version's result lines say, to trust when the two disagree: "
    f"`speedup vs V0` multiplies {v0_runs('the version')}: medians of separate runs drift with the host's load and "
    "the GPU's clocks, which kernelopt never locks, so two versions' latencies are compared only beside each other. "
    "`% of roofline` is the roofline bound's latency over the measured one."
)
TIMELINE_COLUMNS = (
    "version",
    "status",
    "latency (us)",
    "vs previous",
    "speedup vs V0",
    "TFLOP/s",
    "GB/s",
    "% TFLOP/s peak",
    "% GB/s peak",
    "% of roofline",
    "action",
    "commit",
)

MEMORY_COLUMNS = (
    "version",
    "masked",
    "latency (us)",
    "TFLOP/s",
    "GB/s",
    "% TFLOP/s peak",
    "% GB/s peak",
    "% of roofline",
    "correctness",
    "rel_err",
    "gate",
    "action",
    "commit hash",
)

#: Columns whose cells are numbers (the HTML report right-aligns them): every column of the tables above
#: but the text ones, and the roofline table's.
NUMERIC_COLUMNS = frozenset(TIMELINE_COLUMNS + MEMORY_COLUMNS) - {
    "version",
    "status",
    "masked",
    "correctness",
    "gate",
    "action",
    "commit",
    "commit hash",
} | {"FLOP/byte", "value"}

# Metrics of the primary kernel shown per version when the profile has them (summary.txt's order).
EVIDENCE_METRICS = KEY_METRICS


def _action(v: VersionEntry) -> str:
    cat = v.record.optimization.action_category
    if v.record.number == 0 and cat is None:
        return "baseline"
    return cells.text(cat)


def timeline_rows(data: ReportData) -> list[list[str]]:
    """The version timeline: latency, rates, utilization and the action of every version."""
    rows = []
    for v in data.versions:
        p = v.record.performance
        rows.append(
            [
                v.label,
                v.status,
                cells.num(p.latency_us),
                previous_cell(p.comparison_with_previous),
                cells.speedup(data.speedup(v)) if not v.record.masked else cells.NA,
                cells.num(p.tflops),
                cells.num(p.bandwidth_gbps),
                cells.pct(p.tflops_peak_utilization_pct),
                cells.pct(p.bandwidth_peak_utilization_pct),
                cells.pct(p.roofline_utilization_pct),
                _action(v),
                v.commit or cells.NA,
            ]
        )
    return rows


def memory_rows(data: ReportData) -> list[list[str]]:
    """The spec's memory summary: every record, masked ones marked."""
    rows = []
    for v in data.versions:
        r = v.record
        p = r.performance
        rows.append(
            [
                r.version,
                "yes" if r.masked else "no",
                cells.num(p.latency_us),
                cells.num(p.tflops),
                cells.num(p.bandwidth_gbps),
                cells.pct(p.tflops_peak_utilization_pct),
                cells.pct(p.bandwidth_peak_utilization_pct),
                cells.pct(p.roofline_utilization_pct),
                r.correctness.status.value,
                cells.num(r.correctness.rel_err),
                cells.text(r.quality_gate.result),
                cells.text(r.optimization.action_category),
                v.commit or cells.NA,
            ]
        )
    return rows


def hardware_fields(data: ReportData) -> list[tuple[str, str | None]]:
    """The header's hardware: the GPU, or, when the versions were timed elsewhere, both plainly.

    ``[("GPU", "NVIDIA H200 SXM")]`` when every version was timed on the GPU the report names;
    otherwise ``[("task card GPU", "H200"), ("measured on", "cpu (CPU timing path, no GPU; ...)")]`` (and
    the Stage 1 profiles' GPU when they were taken on another device than the timing).
    """
    if not data.measured_elsewhere:
        return [("GPU", data.gpu_spec or data.gpu)]
    out: list[tuple[str, str | None]] = []
    if data.card_gpu:
        out.append(("task card GPU", data.card_gpu))
    out.append(("measured on", "; ".join(d.describe() for d in data.measured_on)))
    timed = {d.name for d in data.measured_on}
    if any(g not in timed for g in data.profiled_on):
        out.append(("profiled on", ", ".join(data.profiled_on)))
    return out


def card_fields(data: ReportData) -> list[tuple[str, str | None]]:
    """The report's header card: the hardware (:func:`hardware_fields`), dtype, kernel type, framework."""
    return [
        *hardware_fields(data),
        ("dtype", data.dtype),
        ("kernel type", data.kernel_type),
        ("framework", data.framework),
    ]


def _elsewhere_line(data: ReportData) -> str | None:
    """A summary caveat when the versions were not timed on the GPU the roofs are for."""
    if not data.measured_elsewhere:
        return None
    where = ", ".join(d.name for d in data.measured_on)
    roofs = f"the {data.gpu_spec or data.gpu} roofs below are not the roofs of that device" if data.gpu else ""
    cpu = any(d.is_cpu for d in data.measured_on)
    text = f"Measured on {where}" + (f", not on the task card's {data.card_gpu}" if data.card_gpu else "")
    text += ": latencies and rates are " + ("the CPU timing path's (no GPU)" if cpu else "that device's")
    return text + (f"; {roofs}" if roofs else "")


def plot_title(data: ReportData) -> str:
    """The roofline figure's title: the roofs' GPU and dtype, and, when the versions were timed elsewhere, where,
    so that the image read alone (it is a file of its own) does not pass CPU timings off as that GPU's."""
    roofs = data.gpu_spec or data.gpu or "unknown GPU"
    dtype = data.dtype or "dtype n/a"
    if not data.measured_elsewhere:
        return f"{data.name}: {roofs}, {dtype}"
    where = ", ".join(d.name for d in data.measured_on) or "an unknown device"
    if not data.gpu:  # no GPU named anywhere (a run on the CPU alone): no roof is drawn, none is anyone's (n98)
        return f"{data.name}: timed on {where}, {dtype}; no GPU named, so no roofs"
    return f"{data.name}: timed on {where}, {dtype}; the roofs drawn are the {roofs}'s, not that device's"


def headline(data: ReportData) -> list[str]:
    """The summary bullets: baseline, final, best, speedup, roofline share, counts, caveats."""
    base, final, best = data.baseline(), data.final(), data.best()
    lines = []

    def describe(v: VersionEntry | None) -> str:
        if v is None:
            return cells.NA
        p = v.record.performance
        return (
            f"{v.label}: {cells.with_unit(p.latency_us, 'us')}, {cells.num(p.tflops)} TFLOP/s, "
            f"{cells.num(p.bandwidth_gbps)} GB/s, {cells.pct(p.roofline_utilization_pct)} of the roofline bound"
        )

    elsewhere = _elsewhere_line(data)
    if elsewhere:
        lines.append(elsewhere)
    lines.append(f"Baseline {describe(base)}")
    lines.append(f"Final {describe(final)}{_over_v0(data, final)}")
    if best is not None and final is not None and best.record.number != final.record.number:
        lines.append(f"Fastest {describe(best)}{_over_v0(data, best)}")
    # what the chain lacks to link an old record to the version its gate ran beside (leftovers28 l184)
    lines += [f"Note: {line}" for line in unlinked_versions(v.record for v in data.versions)]
    if data.stop_reason is not None:
        lines.append(f"Run stopped: {data.stop_reason}")
    else:
        lines.append("Run stopped: not recorded (no finished run in this workspace's .kernelopt/)")
    vs_ref = reference_line(final.record.performance) if final is not None else None
    if vs_ref is not None:
        lines.append(f"{final.label if final else ''} {vs_ref[0].lower()}{vs_ref[1:]}".strip())
    stop = f"Stop conditions in README.md: {cells.pct(data.stop_roofline_pct)} of the roofline bound"
    if data.max_iterations is not None:
        stop += f" or {data.max_iterations} iterations"
    lines.append(stop)
    n_pass = sum(1 for v in data.versions if v.gate is GateResult.PASS and not v.record.masked)
    lines.append(
        f"Versions: {len(data.versions)} recorded ({n_pass} passed, {len(data.failed_versions())} failed, "
        f"{len(data.masked_versions())} masked)" + (f"; {len(data.unreadable)} unreadable" if data.unreadable else "")
    )
    sessions = [v for v in data.versions if v.record.candidates]
    if sessions:
        timed = sum(v.record.candidates_timed for v in sessions)
        served = sum(v.record.candidates_served for v in sessions)
        tried = sum(len(v.record.candidates) for v in sessions) - served
        line = f"Candidates timed by Stage 3: {timed} of {tried} evaluated, in {len(sessions)} tuning session(s)"
        lines.append(line + (f"; {served} more served from a session record (timed before)" if served else ""))
    if data.stage_seconds:
        spent = ", ".join(f"{stage} {seconds:.1f} s" for stage, seconds in data.stage_seconds.items())
        taken = {None: "", 0: "; no profiler run"}.get(data.profiles_taken, f"; {data.profiles_taken} profile(s) taken")
        lines.append(f"Wall time per stage: {spent}{taken}")
    timing_only = data.timing_only_versions()
    if timing_only:
        lines.append(
            "Timing-only evidence (hardware counters unavailable) for "
            + ", ".join(v.label for v in timing_only)
            + ": plans used timing, analytic FLOP/byte counts and compiler facts only"
        )
    for b in roofline_bounds(roofline_points(data), data.ceilings):
        roofs = ", ".join(b.roofs)
        lines.append(f"Roofline bound for this problem size ({b.origin.value} {roofs}): {cells.num(b.latency_us)} us")
    return lines


def ceiling_rows(data: ReportData) -> list[list[str]]:
    """The roofs with value, origin and source."""
    return [[c.label, f"{cells.num(c.value)} {c.unit}", c.origin.value, c.source] for c in data.ceilings]


def ceiling_notes(data: ReportData) -> list[str]:
    """Why a roof is missing, when one is."""
    notes = []
    if data.spec_problem:
        notes.append(f"Spec roofs: {data.spec_problem}")
    if data.measured_problem:
        notes.append(f"Measured ceilings: {data.measured_problem}")
    return notes


def point_rows(data: ReportData) -> list[list[str]]:
    """The plotted points as a table (so the Markdown carries the plot's numbers)."""
    return [
        [p.version, cells.num(p.intensity), cells.num(p.tflops), cells.num(p.bandwidth_gbps), cells.num(p.latency_us)]
        for p in roofline_points(data)
    ]


@dataclass
class VersionStory:
    """Evidence -> action -> result of one version, as lines of text.

    Attributes:
        title: ``V3: block_size (PASS)``.
        evidence: what Stage 1 measured and concluded.
        action: what Stage 2 planned and Stage 3 changed.
        result: what Stage 4 measured and decided.
        pitfalls: failures met on the way (error, cause, fix, lesson).
        candidates: the candidates of Stage 3's tuning session, one line each: configuration -> latency -> chosen.
    """

    title: str
    evidence: list[str] = field(default_factory=list)
    action: list[str] = field(default_factory=list)
    result: list[str] = field(default_factory=list)
    pitfalls: list[str] = field(default_factory=list)
    candidates: list[str] = field(default_factory=list)

    def parts(self) -> list[tuple[str, list[str]]]:
        """(heading, lines) for Evidence, Action, Candidates, Result and Pitfalls, leaving out empty ones."""
        named = [("Evidence", self.evidence), ("Action", self.action), ("Candidates", self.candidates)]
        named += [("Result", self.result), ("Pitfalls", self.pitfalls)]
        return [(k, lines) for k, lines in named if lines]


def _metric_text(name: str, metric: Metric) -> str:
    if metric.value is None:
        return f"{name} n/a" + (f" ({metric.missing_reason})" if metric.missing_reason else "")
    return f"{name} {cells.num(metric.value)}" + (f" {metric.unit}" if metric.unit else "")


def _evidence_lines(v: VersionEntry) -> list[str]:
    out = []
    pe = v.record.profile_evidence
    s = v.summary
    if s is not None:
        source = f"profiles/v{v.record.number}/summary.json"
        line = f"Profile: {s.tool_used} ({source})"
        if s.gpu:
            line += f" on {s.gpu}"
        out.append(line)
        out += s.gui_lines(f"profiles/v{v.record.number}")
        if not s.counters_available:
            out.append(
                "Hardware counters unavailable: "
                f"{s.counters_unavailable_reason or 'reason not recorded'}; timing-only evidence"
            )
        k = s.primary()
        if k is not None:
            out.append(f"Kernel `{k.kernel_name}`: bottleneck {k.bottleneck.value}")
            shown = [_metric_text(name, k.metrics[name]) for name in EVIDENCE_METRICS if name in k.metrics]
            if shown:
                out.append("Metrics: " + ", ".join(shown))
            if k.stall_breakdown_pct:
                top = sorted(k.stall_breakdown_pct.items(), key=lambda kv: -kv[1])[:4]
                out.append("Top stalls: " + ", ".join(f"{r} {p:.1f} %" for r, p in top))
            for f in k.findings[:3]:
                out.append(f"[{f.confidence.value}] {f.rule_id}: {cells.one_line(f.chain(), 400)}")
    else:
        out.append(f"Profile: {v.summary_problem or 'none'}")
    if pe.bottleneck_type and (s is None or (s.primary() is None)):
        out.append(f"Bottleneck (record): {pe.bottleneck_type}")
    if pe.evidence_summary:
        out.append(f"Summary (record): {cells.one_line(pe.evidence_summary)}")
    for chain in pe.evidence_chain[:5]:
        out.append(f"Chain: {cells.one_line(chain, 400)}")
    return out


def _action_lines(v: VersionEntry) -> list[str]:
    o = v.record.optimization
    out = []
    if v.record.number == 0 and o.action_category is None:
        out.append("Baseline: the kernel as given, no change")
    else:
        out.append(f"Category: {cells.text(o.action_category)}")
        if o.action_description:
            out.append(f"Change: {cells.one_line(o.action_description)}")
        for knob, values in o.knob_changes.items():
            before = values[0] if values else None
            after = values[1] if len(values) > 1 else None
            # a knob whose edit replaced a computation was that computation, not its value at one size
            was = f"computed ({o.knob_overrides[knob]})" if knob in o.knob_overrides else cells.text(before)
            out.append(f"Knob {knob}: {was} -> {cells.text(after)}")
        if o.expected_impact:
            out.append(f"Expected: {cells.one_line(o.expected_impact)}")
        if o.risks_and_rollback:
            out.append(f"Risks and rollback: {cells.one_line(o.risks_and_rollback)}")
    if v.plan_path:
        out.append(f"Plan: {v.plan_path}" + (f" ({v.plan_title})" if v.plan_title else ""))
    elif v.record.number > 0:
        out.append("Plan: none on disk")
    if v.record.search_log:
        first = v.record.search_log[0]
        out.append(
            f"Knowledge: {first.source} '{cells.one_line(first.query, 80)}' -> {cells.one_line(first.finding, 160)}"
            + (f" (+{len(v.record.search_log) - 1} more)" if len(v.record.search_log) > 1 else "")
        )
    return out


def reference_line(p: Performance) -> str | None:
    """The version against the reference, as the gate timed it beside the kernel; ``None`` when not timed."""
    ref = p.speedup_vs_reference
    if ref is None:
        return None
    parts = []
    if ref.eager is not None:
        # the interval and "not reliable" by the one rule the summary and the batch table follow
        claim = eager_claim(ref)
        parts.append(
            interval_text(ref.eager, ref.eager_ci_low, ref.eager_ci_high, "PyTorch eager")
            + f" (PyTorch eager: {cells.with_unit(ref.eager_latency_us, 'us')})"
            + (f", {claim}" if claim else "")
        )
    elif ref.withheld:
        parts.append(f"speedup over PyTorch eager not reliable: {cells.one_line(ref.withheld, 200)}")
    if ref.compiled is not None:
        compile_s = f", compiled in {ref.compile_s:.1f} s, not timed" if ref.compile_s is not None else ""
        parts.append(
            interval_text(ref.compiled, ref.compiled_ci_low, ref.compiled_ci_high, compiled_name(ref))
            + f" (torch.compile: {cells.with_unit(ref.compiled_latency_us, 'us')}{compile_s})"
        )
    elif ref.compile_error:
        parts.append(f"{compiled_name(ref)} not timed: {cells.one_line(ref.compile_error, 160)}")
    return "Against the reference: " + "; ".join(parts) if parts else None


def _over_v0(data: ReportData, v: VersionEntry | None) -> str:
    """`` (speedup over V0: 11x: the gates' interleaved speedups chained from V0 to V1, ...)``: the figure and the runs
    it multiplies (:func:`~kernelopt.report.model.v0_runs`)."""
    shown = cells.speedup(data.speedup(v))
    return (
        f" (speedup over V0: {shown}: {v0_runs(v.label)})"
        if v is not None and shown != cells.NA
        else f" (speedup over V0: {shown})"
    )


def _result_lines(v: VersionEntry, data: ReportData) -> list[str]:
    r = v.record
    p = r.performance
    c = p.comparison_with_previous
    out = [
        f"Latency {cells.with_unit(p.latency_us, 'us')}"
        + (f" (IQR {cells.with_unit(p.latency_iqr_us, 'us')})" if p.latency_iqr_us is not None else "")
        + f", {cells.num(p.tflops)} TFLOP/s, {cells.num(p.bandwidth_gbps)} GB/s, "
        f"{cells.pct(p.roofline_utilization_pct)} of the roofline bound"
    ]
    vs_ref = reference_line(p)
    if vs_ref is not None:
        out.append(vs_ref)
    if r.number > 0:
        runs = f" ({PREVIOUS_RUNS})" if c.latency_delta is not None or c.speedup is not None else ""
        comp = f"Against the previous version{runs}: latency {cells.signed_pct(previous_latency_change(c))}"
        if c.speedup is not None:
            comp += f", speedup {previous_cell(c)}"
        claim = claim_text(
            c.verdict,
            c.speedup_p_value,
            c.speedup_effect_size_d,
            c.speedup_retime,
            (c.speedup_ci_low, c.speedup_ci_high),
        )
        if claim:
            comp += f", {claim}" if claim != c.verdict else f": {claim}"
        out.append(comp)
    corr = f"Correctness {r.correctness.status.value}, rel_err {cells.num(r.correctness.rel_err)}"
    if r.correctness.message:
        corr += f" ({cells.one_line(r.correctness.message, 200)})"
    out.append(corr)
    # a session that kept nothing is recorded FAIL (the stop rule reads it) but no kernel failed: say both
    gate = "Gate: converged (recorded FAIL)" if v.converged else f"Gate: {cells.text(r.quality_gate.result)}"
    if r.quality_gate.failure_reason:
        gate += f": {cells.one_line(r.quality_gate.failure_reason)}"
    out.append(gate)
    for m in r.isa_metric_progress:
        met = "met" if m.met else ("not met" if m.met is False else "unknown")
        out.append(f"ISA target {m.metric} {m.target}: {cells.text(m.current)} ({met})")
    # what the gate warned of, first what it did not run (a SHAPES entry too large for Triton's interpreter):
    # the record kept it and the report showed none of it (loopbreak trial, examples/softmax on the CPU)
    warned = sorted(p.warnings, key=lambda w: "not run" not in w)
    out += [f"Gate warning: {cells.one_line(w, 240)}" for w in warned[:MAX_WARNINGS]]
    if len(warned) > MAX_WARNINGS:
        out.append(f"Gate warnings: {len(warned) - MAX_WARNINGS} more in memory/{r.version}.json")
    if r.masked:
        out.append("Masked: kept for audit, not active data")
    if v.commit_subject:
        out.append(f"Commit: {v.commit_subject}")
    return out


MAX_WARNINGS = 4
"""Our choice: the gate's warnings a version's result shows (the record keeps them all)."""


def candidate_lines(v: VersionEntry) -> list[str]:
    """``BLOCK_M=64, num_warps=4 -> 123 us -> chosen`` per candidate of the version's tuning session, fastest first."""
    rows = sorted(v.record.candidates, key=lambda c: (c.latency_us is None, c.latency_us or 0.0))
    out = []
    for c in rows:
        config = ", ".join(f"{k}={val}" for k, val in c.parameters.items()) or "as is"
        what = cells.with_unit(c.latency_us, "us") if c.latency_us is not None else c.status.value
        if c.latency_us is not None and c.latency_us_by_shape:  # the sum over the SHAPES entries, and each
            what += " (" + "; ".join(f"{k}: {cells.with_unit(x, 'us')}" for k, x in c.latency_us_by_shape.items()) + ")"
        tags = [t for t, on in (("current", c.current), ("chosen", c.chosen)) if on]
        line = f"{config} -> {what}" + (f" -> {', '.join(tags)}" if tags else "")
        if c.reason and c.latency_us is None:
            line += f" ({cells.one_line(c.reason, 160)})"
        out.append(line)
    return out


def version_stories(data: ReportData) -> list[VersionStory]:
    """Evidence -> action -> result per version."""
    out = []
    for v in data.versions:
        title = f"{v.label}: {_action(v)} ({v.status})"
        story = VersionStory(
            title=title, evidence=_evidence_lines(v), action=_action_lines(v), result=_result_lines(v, data)
        )
        story.candidates = candidate_lines(v)
        for pf in v.record.pitfalls_and_fixes:
            story.pitfalls.append(
                _pitfall_line(pf.error_type, pf.error_message, pf.root_cause, pf.fix_applied, pf.lesson)
            )
        out.append(story)
    return out


def _pitfall_line(kind: str, message: str, cause: str | None, fix: str | None, lesson: str | None) -> str:
    line = f"{kind}: {cells.one_line(message, 240)}"
    if cause:
        line += f"; cause: {cells.one_line(cause, 160)}"
    if fix:
        line += f"; fix: {cells.one_line(fix, 160)}"
    if lesson:
        line += f"; lesson: {cells.one_line(lesson, 160)}"
    return line


def failure_rows(data: ReportData) -> list[list[str]]:
    """Failed attempts: failed versions with the gate's reason, and every recorded pitfall but a converged
    session's (no attempt failed there)."""
    rows = []
    for v in data.versions:
        if v.failed:
            rows.append(
                [
                    v.label,
                    cells.text(v.record.optimization.action_category),
                    cells.text(v.gate),
                    cells.one_line(v.record.quality_gate.failure_reason or "reason not recorded"),
                ]
            )
        for pf in v.record.pitfalls_and_fixes:
            if v.failed and pf.error_message == v.record.quality_gate.failure_reason:
                continue
            if pf.error_type == SEARCH_NO_GAIN:  # a session that kept nothing converged: the version's story says so
                continue
            rows.append(
                [
                    v.label,
                    cells.text(v.record.optimization.action_category),
                    pf.error_type,
                    _pitfall_line("", pf.error_message, pf.root_cause, pf.fix_applied, pf.lesson).lstrip(": "),
                ]
            )
    return rows
