"""The real stage implementations behind the loop's Protocols, imported lazily by name.

Nothing here is imported before it is needed, so ``import kernelopt.loop`` stays light and a missing
stage is reported as one line when it is first used:

- Stage 1: ``kernelopt.profiling.profile(workspace, version, *, vendor, kernel_regex, fast, timeout_s)``
- Stage 2: ``kernelopt.backends.registry.planner_class(name)(options)``, then
  ``kernelopt.planning.markdown.parse_plan(text)`` and
  ``kernelopt.planning.validate.validate_plan(plan, workspace, history, summary)``
- Stage 3: ``kernelopt.backends.registry.implementer_class(name)(options)`` and
  ``kernelopt.harness.gate.check_correctness(workspace, device=...)``
- Stage 4: ``kernelopt.harness.gate.validate(workspace, version, *, previous, plan, device)``
- ceilings: ``kernelopt.hardware.ceilings.cached_ceilings(gpu_name=...)``
- baseline report: ``kernelopt.report.baseline.render_baseline(workspace, record, summary, *,
  roofline_lines)``, else the loop's built-in renderer.
"""

from __future__ import annotations

import importlib
from typing import Any

from kernelopt.errors import EnvironmentProblem
from kernelopt.evidence.model import (
    BottleneckType,
    KernelEvidence,
    Metric,
    ProfileSummary,
    Vendor,
)
from kernelopt.evidence.summary import write_summary
from kernelopt.loop.baseline import BuiltinBaselineRenderer
from kernelopt.loop.journal import RunSettings
from kernelopt.loop.protocols import (
    BaselineRenderer,
    Ceilings,
    Collaborators,
    CorrectnessResult,
    GateOutcome,
    NullProgress,
    ProgressSink,
)
from kernelopt.memory.model import GateResult, IterationRecord, version_label
from kernelopt.planning.plan import Plan
from kernelopt.workspace import Workspace


def _missing(exc: ModuleNotFoundError, module: str) -> bool:
    """True when the import failed because ``module`` itself (or a parent) does not exist."""
    return exc.name is not None and (module == exc.name or module.startswith(exc.name + "."))


def load(module: str, attr: str, what: str) -> Any:
    """``module.attr``, imported now.

    Raises:
        EnvironmentProblem: this kernelopt has no such module or attribute (a stage not installed).
    """
    try:
        mod = importlib.import_module(module)
    except ModuleNotFoundError as exc:
        if not _missing(exc, module):
            raise
        raise EnvironmentProblem(
            f"{what} is not available: no module {module}", hint="this kernelopt build lacks that stage"
        ) from None
    try:
        return getattr(mod, attr)
    except AttributeError:
        raise EnvironmentProblem(
            f"{what} is not available: {module} has no {attr}", hint="this kernelopt build lacks that stage"
        ) from None


CPU_REASON = "--device cpu: no GPU profiler runs; the evidence is the harness's CPU timing"
CPU_TIMER = "time.perf_counter on the CPU"


def cpu_timing_summary(workspace: Workspace, version: int) -> ProfileSummary:
    """Timing-only Stage 1 evidence for ``--device cpu``: the latest passing version's CPU timing.

    The kernel in ``kernel.py`` is the last good version, whose latency the gate measured on the CPU
    (``memory/v<K>.json``); achieved GB/s and TFLOP/s come from the reference's byte and FLOP counts.
    The shared ``timing_only`` finding (:func:`kernelopt.profiling.timing_only.timing_only_finding`)
    says what is known, how it was timed, and what is not (no counters, no bottleneck class).
    """
    from kernelopt.profiling.timing_only import timing_only_finding

    good = [r for r in workspace.memory.records(include_masked=True) if r.quality_gate.result is GateResult.PASS]
    latest = good[-1] if good else (workspace.memory.latest(include_masked=True))
    metrics: dict[str, Metric] = {}
    artifact: str | None = None
    timer = CPU_TIMER
    if latest is not None:
        artifact = f"memory/{latest.version}.json"
        p = latest.performance
        timer = p.timing_method or CPU_TIMER
        for name, value, unit, field_name in (
            ("duration_us", p.latency_us, "us", "latency_us"),
            ("achieved_gbps", p.bandwidth_gbps, "GB/s", "bandwidth_gbps"),
            ("achieved_tflops", p.tflops, "TFLOP/s", "tflops"),
        ):
            metrics[name] = (
                Metric(value=value, unit=unit, source=f"{artifact}: performance.{field_name} (CPU)")
                if value is not None
                else Metric(value=None, unit=unit, missing_reason=f"{artifact} has no performance.{field_name}")
            )
    kernel = KernelEvidence(
        kernel_name="kernel.py (CPU)", metrics=metrics, bottleneck=BottleneckType.UNKNOWN, artifact=artifact
    )
    kernel.findings = [timing_only_finding(kernel, CPU_REASON, timer=timer)]
    summary = ProfileSummary(
        version=version_label(version),
        vendor=Vendor.NVIDIA,
        tool_used="timing-only (cpu)",
        counters_available=False,
        counters_unavailable_reason=CPU_REASON,
        kernels=[kernel],
    )
    write_summary(workspace.profile_dir(version), summary)
    return summary


class StageOneProfiler:
    """Stage 1 through ``kernelopt.profiling.profile``; with ``device="cpu"`` no GPU profiler runs and
    the evidence is timing-only (:func:`cpu_timing_summary`).

    An unchanged kernel (byte-identical ``kernel.py``, ``reference.py`` and other sources, same GPU, same
    metric set) is not profiled again: its newest profile is copied into the new version's folder with a note
    (:mod:`kernelopt.profiling.reuse`; ``reuse=False`` always profiles).
    """

    def __init__(
        self,
        *,
        vendor: Vendor | None = None,
        device: str | None = None,
        fast: bool = False,
        timeout_s: float = 900.0,
        reuse: bool = True,
    ) -> None:
        self.vendor = vendor
        self.device = device
        self.fast = fast
        self.timeout_s = timeout_s
        self.reuse = reuse

    def profile(self, workspace: Workspace, version: int) -> ProfileSummary:
        if self.device == "cpu":
            return cpu_timing_summary(workspace, version)
        from kernelopt.profiling.reuse import reuse_unchanged, write_stamp

        gpu = _single_gpu_name() if self.reuse else None
        reused = reuse_unchanged(workspace, version, fast=self.fast, gpu=gpu)
        if reused is not None:
            return reused
        profile = load("kernelopt.profiling", "profile", "Stage 1 (profiling)")
        summary: ProfileSummary = profile(
            workspace, version, vendor=self.vendor, kernel_regex=None, fast=self.fast, timeout_s=self.timeout_s
        )
        if gpu is not None and summary.counters_available:
            write_stamp(workspace, version, fast=self.fast, gpu=gpu)
        return summary


def _single_gpu_name() -> str | None:
    """The product name and driver of the machine's NVIDIA GPUs when they are all one; else ``None``.

    (NVML lists every GPU whatever CUDA_VISIBLE_DEVICES says, so a machine of mixed models never reuses.)
    """
    from kernelopt.hardware.gpu import NvmlUnavailable, nvidia_gpus

    try:
        names = {f"{g.name} (driver {g.driver_version})" for g in nvidia_gpus()}
    except (NvmlUnavailable, OSError):  # no NVML, no driver: reuse is only an optimization
        return None
    return names.pop() if len(names) == 1 else None


class MarkdownPlanReader:
    """Stage 2 tooling through ``kernelopt.planning.markdown`` and ``kernelopt.planning.validate``."""

    def parse(self, text: str) -> Plan:
        parse_plan = load("kernelopt.planning.markdown", "parse_plan", "the plan format")
        plan: Plan = parse_plan(text)
        return plan

    def validate(
        self, plan: Plan, workspace: Workspace, history: list[IterationRecord], summary: ProfileSummary | None
    ) -> None:
        validate_plan = load("kernelopt.planning.validate", "validate_plan", "plan validation")
        validate_plan(plan, workspace, history, summary)


class HarnessGate:
    """Stage 3's correctness check and the Stage 4 gate through ``kernelopt.harness.gate``."""

    def __init__(self, *, device: str | None = None) -> None:
        self.device = device

    def check_correctness(self, workspace: Workspace) -> CorrectnessResult:
        check = load("kernelopt.harness.gate", "check_correctness", "the correctness check")
        result: CorrectnessResult = check(workspace, device=self.device)
        return result

    def validate(self, workspace: Workspace, version: int, *, previous: int | None, plan: Plan | None) -> GateOutcome:
        validate = load("kernelopt.harness.gate", "validate", "the quality gate")
        report: GateOutcome = validate(workspace, version, previous=previous, plan=plan, device=self.device)
        return report


class CachedCeilings:
    """Measured ceilings from ``kernelopt ceilings``' cache; None when none were measured (or no module)."""

    def ceilings(self, gpu_name: str | None) -> Ceilings | None:
        try:
            cached = load("kernelopt.hardware.ceilings", "cached_ceilings", "measured ceilings")
        except EnvironmentProblem:
            return None
        result: Ceilings | None = cached(gpu_name=gpu_name)
        return result


class ReportBaselineRenderer:
    """``kernelopt.report.baseline.render_baseline(workspace, record, summary, *, roofline_lines)``; the
    loop's two roofline-bound lines are appended when the report did not show them."""

    def __init__(self, render: Any) -> None:
        self._render = render

    def render(
        self,
        *,
        workspace: Workspace,
        record: IterationRecord,
        summary: ProfileSummary | None,
        roofline_lines: list[str],
    ) -> str:
        text: str = self._render(workspace, record, summary, roofline_lines=list(roofline_lines))
        if roofline_lines and roofline_lines[0] not in text:
            text = text.rstrip("\n") + "\n\n## Roofline bounds (loop)\n\n" + "".join(f"- {x}\n" for x in roofline_lines)
        return text


def baseline_renderer() -> BaselineRenderer:
    """The report package's renderer when it exists, else the built-in one."""
    try:
        return ReportBaselineRenderer(load("kernelopt.report.baseline", "render_baseline", "the baseline report"))
    except EnvironmentProblem:
        return BuiltinBaselineRenderer()


def vendor_of(platform: str | None) -> Vendor | None:
    """The task card's ``platform`` as a vendor (None when unset or unknown)."""
    try:
        return Vendor(platform.strip().lower()) if platform else None
    except ValueError:
        return None


def build_collaborators(
    workspace: Workspace,
    settings: RunSettings,
    *,
    progress: ProgressSink | None = None,
    planner_options: dict[str, Any] | None = None,
    implementer_options: dict[str, Any] | None = None,
) -> Collaborators:
    """The real collaborators for ``settings`` (backends are instantiated now, so a bad name fails first).

    Raises:
        UsageError: unknown backend name.
        EnvironmentProblem: a backend's module is not installed.
    """
    from kernelopt.backends.registry import IMPLEMENTERS, PLANNERS, implementer_class, planner_class

    def backend(kind: str, builtins: dict[str, str], find: Any, name: str, options: dict[str, Any]) -> Any:
        try:
            return find(name)(dict(options))
        except ModuleNotFoundError as exc:
            module = builtins.get(name, "").partition(":")[0]
            if module and _missing(exc, module):
                raise EnvironmentProblem(
                    f"the {kind} backend {name!r} is not available: no module {module}",
                    hint="this kernelopt build lacks that backend (see --planner / --implementer)",
                ) from None
            raise

    planner_options = dict(planner_options or {})
    if settings.planner == "rules" and settings.implementer == "rules":
        # The rules implementer only moves knobs: a code-change plan it cannot apply would cost a
        # failed iteration, so the rules planner is asked for knob moves only.
        planner_options.setdefault("knob_only", True)
    implementer_options = dict(implementer_options or {})
    if settings.implementer == "rules" and settings.device is not None:
        implementer_options.setdefault("device", settings.device)  # candidates are timed where the gate runs
    planner = backend("planner", PLANNERS, planner_class, settings.planner, planner_options)
    implementer = backend("implementer", IMPLEMENTERS, implementer_class, settings.implementer, implementer_options)
    return Collaborators(
        profiler=StageOneProfiler(vendor=vendor_of(workspace.task_card().platform), device=settings.device),
        planner=planner,
        plan_reader=MarkdownPlanReader(),
        implementer=implementer,
        gate=HarnessGate(device=settings.device),
        baseline_renderer=baseline_renderer(),
        ceilings=CachedCeilings(),
        progress=progress or NullProgress(),
    )
