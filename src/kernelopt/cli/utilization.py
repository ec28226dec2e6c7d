"""``kernelopt utilization``: the spec's compute_utilization as a command."""

from __future__ import annotations

import typer

from kernelopt.cli.output import emit_json, fmt, info, table, warn
from kernelopt.hardware.specs import lookup, normalize_dtype
from kernelopt.utilization import compute_utilization


def register(app: typer.Typer) -> None:
    @app.command("utilization")
    def utilization(
        latency_us: float = typer.Option(..., "--latency-us", help="Measured latency per launch, us."),
        flops: float | None = typer.Option(None, "--flops", help="FLOP per launch (omit when unknown)."),
        bytes_moved: float | None = typer.Option(None, "--bytes", help="Bytes read + written per launch."),
        gpu: str = typer.Option(..., "--gpu", help="GPU name or alias (see `kernelopt wiki spec`)."),
        dtype: str = typer.Option("fp32", "--dtype", help="fp64, fp32, tf32, bf16, fp16, fp8."),
        measured_gbps: float | None = typer.Option(
            None, "--measured-gbps", help="Measured bandwidth ceiling to use instead of the spec's."
        ),
        measured_tflops: float | None = typer.Option(
            None, "--measured-tflops", help="Measured compute ceiling to use instead of the spec's."
        ),
        as_json: bool = typer.Option(False, "--json", help="Print the result as JSON."),
    ) -> None:
        """TFLOP/s, GB/s, % of peak, arithmetic intensity, ridge point and the bounding roof."""
        spec = lookup(gpu)
        dt = normalize_dtype(dtype)
        peak_t = measured_tflops if measured_tflops is not None else spec.peak_tflops(dt)
        peak_b = measured_gbps if measured_gbps is not None else spec.memory_bandwidth_gbps
        u = compute_utilization(
            latency_us=latency_us, flops=flops, bytes_moved=bytes_moved, peak_tflops=peak_t, peak_gbps=peak_b
        )
        sources = {
            "peak_tflops": "measured (--measured-tflops)"
            if measured_tflops is not None
            else spec.cite(f"peak_tflops_{dt}"),
            "peak_gbps": "measured (--measured-gbps)"
            if measured_gbps is not None
            else spec.cite("memory_bandwidth_gbps"),
        }
        if as_json:
            emit_json({"gpu": spec.id, "dtype": dt, **u.model_dump(mode="json"), "sources": sources})
            return
        table(
            f"{spec.name}, {dt}",
            ["quantity", "value", "unit"],
            [
                ["achieved", fmt(u.tflops), "TFLOP/s"],
                ["achieved", fmt(u.bandwidth_gbps), "GB/s"],
                ["compute roof", fmt(u.peak_tflops), "TFLOP/s"],
                ["memory roof", fmt(u.peak_gbps), "GB/s"],
                ["% of compute peak", fmt(u.tflops_pct), "%"],
                ["% of bandwidth peak", fmt(u.bandwidth_pct), "%"],
                ["arithmetic intensity", fmt(u.arithmetic_intensity), "FLOP/byte"],
                ["ridge point", fmt(u.ridge_point), "FLOP/byte"],
                ["bound by", u.bound.value, ""],
                ["roofline latency", fmt(u.roofline_latency_us), "us"],
                ["% of roofline bound", fmt(u.roofline_pct), "%"],
            ],
        )
        info(f"compute roof: {sources['peak_tflops']}")
        info(f"memory roof: {sources['peak_gbps']}")
        for w in u.warnings:
            warn(w)
