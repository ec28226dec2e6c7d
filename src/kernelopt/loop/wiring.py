"""The real stage implementations behind the loop's Protocols (plain imports: our own modules are never optional).

- Stage 1: ``kernelopt.profiling.profile(workspace, version, *, vendor, kernel_regex, fast, timeout_s)``
- Stage 2 and 3 backends: :func:`kernelopt.stages.backends.build_planner` /
  :func:`~kernelopt.stages.backends.build_implementer` (the same as ``kernelopt plan`` / ``implement``),
  plan reading :class:`kernelopt.stages.plan.MarkdownPlanReader`
- Stage 3 check: ``kernelopt.harness.gate.check_correctness(workspace, device=...)``
- Stage 4: ``kernelopt.harness.gate.validate(workspace, version, *, previous, plan, device)``
- ceilings: ``kernelopt.hardware.ceilings.cached_ceilings(gpu_name=...)``
- baseline report: :class:`kernelopt.report.baseline.BaselineRenderer` (the one renderer of
  ``baseline_report.md``).
"""

from __future__ import annotations

import hashlib
import json
import shutil
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from kernelopt import profiling
from kernelopt.errors import GitError, KerneloptError, RecordError
from kernelopt.evidence.model import (
    CPU_EVIDENCE,
    BottleneckType,
    KernelEvidence,
    Metric,
    ProfileSummary,
    Vendor,
)
from kernelopt.evidence.summary import write_summary
from kernelopt.hardware.ceilings import cached_ceilings
from kernelopt.hardware.gpu import NvmlUnavailable, nvidia_gpus
from kernelopt.harness.gate import GateReport, check_correctness, validate
from kernelopt.harness.model import CorrectnessReport
from kernelopt.harness.settings import HarnessSettings
from kernelopt.loop.journal import RunSettings
from kernelopt.loop.protocols import (
    BaselineRenderer,
    Ceilings,
    Collaborators,
    NullProgress,
    ProgressSink,
)
from kernelopt.memory.model import CorrectnessStatus, GateResult, QualityGate, version_label
from kernelopt.planning.plan import Plan
from kernelopt.profiling.reuse import committed_sources, digests_of, reuse_unchanged, source_digests, write_stamp
from kernelopt.profiling.timing_only import CPU_TIMER, timing_only_finding
from kernelopt.report.baseline import BaselineRenderer as ReportBaselineRenderer
from kernelopt.stages.backends import build_implementer, build_planner
from kernelopt.stages.plan import MarkdownPlanReader
from kernelopt.tuning.code_net import check_code_change
from kernelopt.workspace import Workspace

CPU_REASON = f"{CPU_EVIDENCE} no GPU profiler runs; the evidence is the harness's CPU timing"


def cpu_timing_summary(workspace: Workspace, version: int) -> ProfileSummary:
    """Timing-only Stage 1 evidence for ``--device cpu``: the latest passing version's CPU timing.

    The kernel in ``kernel.py`` is the last good version, whose latency the gate measured on the CPU
    (``memory/v<K>.json``); achieved GB/s and TFLOP/s come from the reference's byte and FLOP counts.
    The shared ``timing_only`` finding (:func:`kernelopt.profiling.timing_only.timing_only_finding`)
    says what is known, how it was timed, and what is not (no counters, no bottleneck class).
    """
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
        gpu = _single_gpu_name() if self.reuse else None
        reused = reuse_unchanged(workspace, version, fast=self.fast, gpu=gpu)
        if reused is not None:
            return reused
        summary: ProfileSummary = profiling.profile(
            workspace, version, vendor=self.vendor, kernel_regex=None, fast=self.fast, timeout_s=self.timeout_s
        )
        if gpu is not None and summary.counters_available:
            write_stamp(workspace, version, fast=self.fast, gpu=gpu)
        return summary


def _single_gpu_name() -> str | None:
    """The product name and driver of the machine's NVIDIA GPUs when they are all one; else ``None``.

    (NVML lists every GPU whatever CUDA_VISIBLE_DEVICES says, so a machine of mixed models never reuses.)
    """
    try:
        names = {f"{g.name} (driver {g.driver_version})" for g in nvidia_gpus()}
    except (NvmlUnavailable, OSError):  # no NVML, no driver: reuse is only an optimization
        return None
    return names.pop() if len(names) == 1 else None


class HarnessGate:
    """Stage 3's correctness check and the Stage 4 gate through ``kernelopt.harness.gate``.

    ``net``: the versions are an implementer's rewrites (agent-cli, llm-api, an MCP agent), not the rules backend's
    tuned picks (whose session casts the net before it writes): a rewrite that passes its check at the ``SHAPES``
    entries is then checked at the sizes ``SHAPES`` does not name where V0's kernel passes
    (:func:`kernelopt.tuning.code_net.check_code_change`), in Stage 3's check, so that one wrong there fails the
    check and the implementer gets its repair attempt with the size named (leftovers22 l18; break21's b43 cast it in
    Stage 4 alone, after the timing, where a failure only reverts). The gate reads the verdict of the same bytes
    again (one net a rewrite), and casts it itself for a kernel no check saw. A verdict is kept for the bytes of every
    file the kernel is built and checked from (:func:`kernelopt.profiling.reuse.source_digests`), not kernel.py's
    alone: a plan may change a helper module and leave kernel.py as it was, and the verdict of the kernel before was
    read as the new one's (review22, r21)."""

    def __init__(self, *, device: str | None = None, net: bool = False) -> None:
        self.device = device
        self.net = net
        self._verdicts: dict[str, _NetRead] = {}  # the sources' digest -> the net's reading of that kernel

    def check_correctness(self, workspace: Workspace) -> CorrectnessReport:
        report = check_correctness(workspace, device=self.device)
        if not self.net or not report.passed:
            return report
        read = self._net(workspace, None)
        if read.failed is None:
            return report
        return report.model_copy(update={"passed": False, "status": CorrectnessStatus.FAIL, "message": read.failed})

    def validate(self, workspace: Workspace, version: int, *, previous: int | None, plan: Plan | None) -> GateReport:
        # V0 is the kernel as written, the run's start: an entry it cannot run is the problem's (refblame14 r11)
        report = validate(workspace, version, previous=previous, plan=plan, device=self.device, baseline=version == 0)
        if not self.net or version == 0 or report.result is not GateResult.PASS:
            return report
        return self._netted(workspace, report)

    def _net(self, workspace: Workspace, label: str | None) -> _NetRead:
        """The net's reading of the kernel as it is now, cast once for the bytes of its sources (``label``: the
        session folder's; ``None``, Stage 3's: ``check-`` and the sources' digest, so a changed helper gets a folder
        of its own, not the session of the kernel before)."""
        written = workspace.kernel_py.read_bytes()
        now = source_digests(workspace.root)
        key = hashlib.sha256(json.dumps(now, sort_keys=True).encode()).hexdigest()
        known = self._verdicts.get(key)
        if known is not None:
            return known
        try:
            commit = workspace.memory.read(0).git_commit_hash or ""
            original = workspace.kernel_at(commit, 0)
            before = committed_sources(workspace, commit) if original is not None else {}
        except (RecordError, GitError) as exc:
            return _NetRead(warning=f"sizes not checked: {exc}")  # not kept: a later read may find V0's record
        if original is not None:
            before["kernel.py"] = original  # a link's kept bytes, not the path it names
        # did the kernel change: the digest of every source, the rule the verdict is kept by (late31 z92: kernel.py's
        # text alone left a helper-only rewrite unnetted)
        helpers = {n for n in (now.keys() | before.keys()) - {"kernel.py"} if now.get(n) != digests_of(before).get(n)}
        if original is None or (original == written and not helpers):
            read = _NetRead()
        else:
            try:
                net = check_code_change(
                    workspace.root,
                    original.decode("utf-8", "replace"),
                    written.decode("utf-8", "replace"),
                    device=self.device,
                    session_dir=workspace.state_dir / "net" / (label or f"check-{key[:12]}"),
                    size_scale=HarnessSettings.from_env(None, device=self.device).size_scale,
                    original_root=_sources_folder(workspace.state_dir / "net" / "v0-sources", before)
                    if helpers
                    else None,
                )
            except KerneloptError as exc:  # the bench worker could not start, the problem does not fit: no verdict
                read = _NetRead(warning=f"sizes not checked: {exc.one_line()}")
            else:
                line = net.line().replace("the written kernel", "the kernel", 1)
                failed = f"correct at the timed sizes only: {line}" if net.failed is not None else None
                read = _NetRead(failed=failed, note=net.line() if net.checks and failed is None else None)
        self._verdicts[key] = read
        return read

    def _netted(self, workspace: Workspace, report: GateReport) -> GateReport:
        """``report`` of a passing rewrite, failed where the net finds a size V0's kernel passes and it does not."""
        read = self._net(workspace, version_label(report.version))
        if read.warning is not None:
            return report.model_copy(update={"warnings": [*report.warnings, read.warning]})
        if read.failed is None:
            return report.model_copy(update={"notes": [*report.notes, *([read.note] if read.note else [])]})
        reason = read.failed
        record = report.record.model_copy(
            update={"quality_gate": QualityGate(result=GateResult.FAIL, failure_reason=reason, culprit="kernel")}
        )
        workspace.memory.write(record)
        return report.model_copy(update={"result": GateResult.FAIL, "failure_reason": reason, "record": record})


def _sources_folder(folder: Path, sources: dict[str, bytes]) -> Path:
    """``folder`` holding exactly ``sources`` (V0's, by workspace-relative path): where the net runs the original
    beside the helper modules it was written with."""
    shutil.rmtree(folder, ignore_errors=True)
    for name, data in sources.items():
        path = folder / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
    return folder


@dataclass(frozen=True)
class _NetRead:
    """The net's reading of one kernel.py: the failure line (``correct at the timed sizes only: ...``), the note of a
    pass, or the warning where no verdict came."""

    failed: str | None = None
    note: str | None = None
    warning: str | None = None


class CachedCeilings:
    """Measured ceilings from ``kernelopt ceilings``' cache; None when none were measured."""

    def ceilings(self, gpu_name: str | None) -> Ceilings | None:
        return cached_ceilings(gpu_name=gpu_name)


def baseline_renderer() -> BaselineRenderer:
    """The report package's renderer of ``baseline_report.md``."""
    return ReportBaselineRenderer()


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
    """The real collaborators for ``settings`` (backends are built now, so a bad name or option fails first).

    Raises:
        UsageError: unknown backend name, or an option the backend does not know.
    """
    implementer_options = dict(implementer_options or {})
    if settings.implementer == "rules" and settings.device is not None:
        implementer_options.setdefault("device", settings.device)  # candidates are timed where the gate runs
    planner = build_planner(settings.planner, planner_options, implementer=settings.implementer)
    implementer = build_implementer(settings.implementer, implementer_options)
    return Collaborators(
        profiler=StageOneProfiler(vendor=vendor_of(workspace.task_card().platform), device=settings.device),
        planner=planner,
        plan_reader=MarkdownPlanReader(),
        implementer=implementer,
        gate=HarnessGate(device=settings.device, net=settings.implementer != "rules"),  # a rewrite: b43
        baseline_renderer=baseline_renderer(),
        ceilings=CachedCeilings(),
        progress=progress or NullProgress(),
    )
