"""Timing-only evidence: what Stage 1 can say when hardware counters cannot be read.

Used when ``ncu`` is missing or the GPU forbids performance counters (``ERR_NVGPUCTRPERM``, common on
cloud GPUs). The evidence is the CUDA-event time of one call of the candidate (``time.perf_counter`` on the
CPU), analytic FLOP/byte counts (from the reference's hooks, or input + output sizes) turned into achieved
TFLOP/s and GB/s, the compiler's resource use (registers, spills, shared memory, warps) and SASS facts of the
compiled Triton kernels.
Every such summary says ``counters_available: false`` with the reason, and each kernel carries a
``timing_only`` finding so that planners know what they are missing. Pure: no I/O.
"""

from __future__ import annotations

from kernelopt.evidence.model import (
    CPU_TIMING_REASON,
    Confidence,
    EvidenceItem,
    Finding,
    IsaFacts,
    KernelEvidence,
    Metric,
    ProfileSummary,
    Vendor,
)
from kernelopt.evidence.nvidia_rules import NVIDIA_RULES
from kernelopt.evidence.rules import run_rules
from kernelopt.evidence.sass import isa_facts, parse_listing
from kernelopt.evidence.symptoms import TIMING_ONLY_ACTIONS, Symptom
from kernelopt.profiling.driver import CompiledKernel, DriverResult

_NOT_MEASURED = "hardware counters unavailable (timing-only profile)"
CUDA_EVENTS = "CUDA events"
CPU_TIMER = "time.perf_counter on the CPU"
CPU_REASON = CPU_TIMING_REASON
"""Why a ``--device cpu`` Stage 1 has no counters (the loop's and ``kernelopt profile``'s)."""


def _timing_metrics(result: DriverResult, source: str, timer: str) -> dict[str, Metric]:
    m: dict[str, Metric] = {}
    t = result.median_us
    timed = "CUDA-event timed calls" if timer == CUDA_EVENTS else f"calls timed by {timer}"  # CPU: no CUDA event
    m["duration_us"] = (
        Metric(value=t, unit="us", source=f"{source}: median of {len(result.samples_us)} {timed}")
        if t is not None
        else Metric(value=None, unit="us", missing_reason="no timed call")
    )
    if result.bytes_moved is not None and t:
        m["achieved_gbps"] = Metric(
            value=result.bytes_moved / (t * 1e-6) / 1e9,
            unit="GB/s",
            source=f"{source}: {result.bytes_source} / duration_us",
        )
        m["analytic_bytes"] = Metric(value=result.bytes_moved, unit="bytes", source=result.bytes_source)
    else:
        m["achieved_gbps"] = Metric(value=None, unit="GB/s", missing_reason="bytes per call unknown")
    if result.flops is not None and t:
        m["achieved_tflops"] = Metric(
            value=result.flops / (t * 1e-6) / 1e12, unit="TFLOP/s", source=f"{source}: reference.flops / duration_us"
        )
        m["analytic_flops"] = Metric(value=result.flops, unit="FLOP", source="reference.flops")
    else:
        m["achieved_tflops"] = Metric(
            value=None, unit="TFLOP/s", missing_reason="reference.py defines no flops(); FLOPs are not guessed"
        )
    for name, unit in (
        ("sm_throughput_pct", "%"),
        ("memory_throughput_pct", "%"),
        ("dram_throughput_pct", "%"),
        ("achieved_occupancy_pct", "%"),
    ):
        m[name] = Metric(value=None, unit=unit, missing_reason=_NOT_MEASURED)
    return m


def _compiler_metrics(ck: CompiledKernel, source: str) -> dict[str, Metric]:
    def metric(v: float | int | None, unit: str, what: str) -> Metric:
        if v is None:
            return Metric(value=None, unit=unit, missing_reason=f"the compiler did not report {what}")
        return Metric(value=float(v), unit=unit, source=f"{source}: Triton compiled kernel {what}")

    return {
        "registers_per_thread": metric(ck.registers, "registers", "n_regs"),
        "spilled_registers": metric(ck.spilled_registers, "registers", "n_spills"),
        "shared_mem_per_block_bytes": metric(ck.shared_bytes, "bytes", "shared"),
        "block_size_threads": metric(32 * ck.num_warps if ck.num_warps else None, "threads", "num_warps x 32"),
        "num_stages": metric(ck.num_stages, "stages", "num_stages"),
    }


def timing_only_finding(kernel: KernelEvidence, reason: str, *, timer: str) -> Finding:
    """The ``timing_only`` finding: what was measured, how it was timed, and that counters were not.

    One builder for every timing-only profile (the CUDA-event driver run here, the gate's CPU timing
    of ``--device cpu`` in :func:`kernelopt.loop.wiring.cpu_timing_summary`). Each evidence item cites
    its metric's own source, which names the file the value was read from.

    Args:
        kernel: evidence of one kernel: ``duration_us`` always becomes evidence (``None`` with its
            reason when not timed); ``achieved_gbps``, ``achieved_tflops``, ``registers_per_thread`` and
            ``spilled_registers`` do where measured.
        reason: why hardware counters were not available (one line).
        timer: what timed the calls, for the inference (``CUDA events``, the gate's timing method such
            as ``cpu_perf_counter, 10 launch(es)/sample, 30 samples``).
    """
    artifact = kernel.artifact or "profile"

    def cite(name: str, m: Metric) -> EvidenceItem:
        return EvidenceItem(
            metric=name,
            value=m.value,
            unit=m.unit,
            source=m.source or artifact,
            missing_reason=m.missing_reason if m.value is None else None,
        )

    duration = kernel.metrics.get("duration_us") or Metric(value=None, unit="us", missing_reason="not timed")
    evidence = [cite("duration_us", duration)]
    evidence.append(EvidenceItem(metric="hardware_counters", value="unavailable", source=reason))
    for name in ("achieved_gbps", "achieved_tflops", "registers_per_thread", "spilled_registers"):
        m = kernel.metrics.get(name)
        if m is not None and m.value is not None:
            evidence.append(cite(name, m))
    known = [f"timing ({timer})", "analytic byte/FLOP counts"]
    if kernel.metric("registers_per_thread") is not None:
        known.append("compiler facts")
    return Finding(
        rule_id="timing_only",
        symptom=Symptom.TIMING_ONLY.value,
        confidence=Confidence.LOW,
        evidence=evidence,
        inference=(
            f"only {', '.join(known[:-1])} and {known[-1]} are known; the bottleneck cannot be classified "
            "from counters — compare achieved GB/s and TFLOP/s with the measured ceilings of the device that "
            "ran it; tune the kernel's knobs empirically, one measured move at a time"
        ),
        action_categories=list(TIMING_ONLY_ACTIONS),
    )


def timing_only_summary(
    result: DriverResult,
    *,
    reason: str,
    version: str | None,
    sass_text: dict[str, str],
    artifact: str,
    artifacts: list[str],
) -> ProfileSummary:
    """The timing-only :class:`ProfileSummary` of one driver run.

    Args:
        result: the driver's timing run.
        reason: why counters were not available (one line).
        version: ``v<N>``.
        sass_text: SASS listing per compiled kernel name (from the driver's ``*.sass`` files).
        artifact: the driver result file, as evidence names it.
        artifacts: all files of the profile folder.
    """
    kernels: list[KernelEvidence] = []
    timer = CPU_TIMER if result.device == "cpu" else CUDA_EVENTS
    targets = result.compiled or [CompiledKernel(name="kernel.py (one call)")]
    for ck in targets:
        metrics = _timing_metrics(result, artifact, timer)
        if result.compiled:
            metrics.update(_compiler_metrics(ck, artifact))
        isa: IsaFacts | None = None
        text = sass_text.get(ck.name)
        if text:
            listing = parse_listing(text)
            instructions = listing.get(ck.name) or [i for ins in listing.values() for i in ins]
            isa = isa_facts(
                instructions,
                source=f"{ck.sass_file or ck.name + '.sass'} (cuobjdump -sass of the compiled kernel)",
                registers_per_thread=ck.registers,
                spilled_registers=ck.spilled_registers,
            )
        k = KernelEvidence(
            kernel_name=ck.name,
            metrics=metrics,
            isa=isa,
            artifact=artifact,
            notes=[
                f"counters unavailable: {reason}",
                "duration_us covers one whole call of the candidate (every kernel it launches plus launch overhead)"
                if len(targets) > 1 or not result.compiled
                else f"duration_us is the {timer} time of one call of the candidate (includes launch overhead)",
            ],
        )
        findings = [timing_only_finding(k, reason, timer=timer)]
        findings += [f for f in run_rules(k, NVIDIA_RULES)]
        k.findings = findings
        kernels.append(k)
    return ProfileSummary(
        version=version,
        vendor=Vendor.NVIDIA,
        tool_used=f"timing-only ({timer} + compiler facts)" if timer == CUDA_EVENTS else f"timing-only ({timer})",
        gpu=result.device,
        counters_available=False,
        counters_unavailable_reason=reason,
        artifacts=artifacts,
        kernels=kernels,
    )
