"""summary.txt rendering, the diff between two profiles, and the timing-only summary."""

from __future__ import annotations

from kernelopt.evidence.diff import diff_summaries, render_diff
from kernelopt.evidence.nvidia import build_summary
from kernelopt.evidence.summary import render_text
from kernelopt.profiling.driver import CompiledKernel, DriverResult
from kernelopt.profiling.timing_only import timing_only_summary

from .evidence_sass_data import SPILL_SASS
from .nvidia_data import raw_report


def test_summary_text_has_diagnosis_symptoms_and_localize() -> None:
    text = render_text(build_summary(raw_report("h200_uncoalesced")))
    assert "bottleneck: memory_bound" in text
    assert "  duration_us: 38.3 us" in text
    assert "SYMPTOMS: uncoalesced_global, dram_bandwidth_bound" in text
    localize = next(ln for ln in text.splitlines() if ln.startswith("LOCALIZE: "))
    assert localize.startswith("LOCALIZE: /tmp/") and "kernel.py:13" in localize and "0x" in localize
    assert "[high] nv.uncoalesced_global" in text and "-> try coalescing, tiling, vectorized_access" in text
    assert "not measured:" in text and "hotspot kernel.py" not in text  # paths are as recorded
    assert "profiler rule HighPipeUtilization (est. speedup 99.5% LOCAL)" in text


def test_diff_full_against_fast() -> None:
    full = build_summary(raw_report("h200_softmax"))
    fast = build_summary(raw_report("h200_softmax_fast"))
    d = diff_summaries(full, fast, before_name="full", after_name="fast")
    k = d.kernels[0]
    assert k.bottleneck_before == k.bottleneck_after == "memory_bound"
    assert k.isa_changes == {}  # the fast report has no SASS: nothing to compare, not a change
    dur = next(m for m in k.metrics if m.name == "duration_us")
    assert dur.before == 64.736 and dur.after < dur.before and dur.delta_pct is not None
    text = render_diff(d)
    assert "bottleneck: memory_bound unchanged" in text and "duration_us: 64.74 -> " in text


def test_diff_pairs_by_name_when_several_kernels() -> None:
    a = build_summary(raw_report("ncu_gtx1660s_dotprod_full"))
    b = a.model_copy(update={"kernels": list(reversed(a.kernels))})
    d = diff_summaries(a, b)
    assert [k.before_kernel for k in d.kernels] == [k.kernel_name for k in a.kernels]
    assert all(not k.symptoms_added and not k.symptoms_removed for k in d.kernels)


def test_timing_only_summary_from_driver_facts() -> None:
    result = DriverResult(
        mode="time",
        device="NVIDIA H200",
        samples_us=[20.0, 22.0, 21.0],
        median_us=21.0,
        flops=2e9,
        bytes_moved=8e6,
        bytes_source="reference.bytes_moved",
        compiled=[
            CompiledKernel(
                name="spill_kernel",
                num_warps=1,
                registers=255,
                spilled_registers=96,
                shared_bytes=0,
                sass_file="spill_kernel.sass",
            )
        ],
    )
    s = timing_only_summary(
        result,
        reason="GPU performance counters are not readable (ERR_NVGPUCTRPERM)",
        version="v2",
        sass_text={"spill_kernel": SPILL_SASS},
        artifact="driver.json",
        artifacts=["driver.json", "spill_kernel.sass"],
    )
    assert not s.counters_available and s.tool_used.startswith("timing-only")
    k = s.kernels[0]
    assert k.metric("achieved_gbps") == 8e6 / 21e-6 / 1e9
    assert k.metric("achieved_tflops") == 2e9 / 21e-6 / 1e12
    assert k.metric("block_size_threads") == 32 and k.metric("spilled_registers") == 96
    assert [f.symptom for f in k.findings] == ["timing_only", "register_spills"]
    timing = k.findings[0]
    assert [e.source for e in timing.evidence[:3]] == [
        "driver.json: median of 3 CUDA-event timed calls",
        "GPU performance counters are not readable (ERR_NVGPUCTRPERM)",
        "driver.json: reference.bytes_moved / duration_us",
    ]
    assert "only timing (CUDA events), analytic byte/FLOP counts and compiler facts are known" in timing.inference
    assert k.isa is not None and k.isa.spill_ops == 2 and k.isa.spilled_registers == 96
    assert "COUNTERS UNAVAILABLE" in render_text(s)
