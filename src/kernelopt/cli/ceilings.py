"""``kernelopt ceilings [--refresh] [--cached] [--device-index I]``: measured memory bandwidth and matmul rates.

Measures on the current GPU (in a worker process) unless a cached measurement for this GPU and driver
exists; ``--refresh`` measures again, ``--cached`` only shows the cache. Every bandwidth stream (copy,
add, sum) is shown with its GB/s, then the memory ceiling the roofline uses: the fastest stream.
"""

from __future__ import annotations

import typer

from kernelopt.cli.output import emit_json, info, table
from kernelopt.errors import EnvironmentProblem


def register(app: typer.Typer) -> None:
    @app.command("ceilings")
    def ceilings_cmd(
        device_index: int = typer.Option(0, "--device-index", help="CUDA device index to measure."),
        refresh: bool = typer.Option(False, "--refresh", help="Measure again even when cached."),
        cached: bool = typer.Option(False, "--cached", help="Only show the cached measurement; never measure."),
        as_json: bool = typer.Option(False, "--json", help="Print the ceilings as JSON."),
    ) -> None:
        """Memory GB/s per stream (copy, add, sum; read + write) and dense matmul TFLOP/s, cached per GPU + driver."""
        from kernelopt.hardware.ceilings import STREAM_TRAFFIC, cache_path, cached_ceilings
        from kernelopt.harness.ceilings import measure_ceilings

        found = None if refresh else cached_ceilings()
        origin = "cached"
        if found is None:
            if cached:
                raise EnvironmentProblem("no cached ceilings for this GPU", hint="run `kernelopt ceilings`")
            found = measure_ceilings(device_index)
            origin = "measured now"
        if as_json:
            emit_json(
                {
                    **found.model_dump(mode="json"),
                    "copy_gbps": found.copy_gbps,
                    "memory_gbps": found.memory_gbps,
                    "memory_stream": found.memory_stream.value,
                    "origin": origin,
                }
            )
            return
        rows = [
            [f"{stream.value} ({STREAM_TRAFFIC[stream]})", f"{gbps:.1f}", "GB/s"]
            for stream, gbps in found.stream_gbps.items()
        ]
        rows.append([f"memory ceiling (fastest: {found.memory_stream.value})", f"{found.memory_gbps:.1f}", "GB/s"])
        rows += [[f"matmul {k}", f"{v:.1f}", "TFLOP/s"] for k, v in sorted(found.matmul_tflops.items())]
        table(f"{found.gpu_name} (driver {found.driver or 'unknown'}), {origin}", ["ceiling", "value", "unit"], rows)
        info(f"measured {found.measured_at:%Y-%m-%d %H:%M} UTC; {found.method}")
        if not found.read_heavy_measured:
            info("this cached entry holds the copy stream only: `kernelopt ceilings --refresh` adds add and sum")
        info(f"cache: {cache_path(found.gpu_name, found.driver)}")
