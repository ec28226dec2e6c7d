"""``kernelopt ceilings [--refresh] [--cached] [--device-index I]``: measured copy bandwidth and matmul rates.

Measures on the current GPU (in a worker process) unless a cached measurement for this GPU and driver
exists; ``--refresh`` measures again, ``--cached`` only shows the cache.
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
        """Device-to-device copy GB/s (read + write) and dense matmul TFLOP/s per dtype, cached per GPU + driver."""
        from kernelopt.hardware.ceilings import cache_path, cached_ceilings, measure_ceilings

        found = None if refresh else cached_ceilings()
        origin = "cached"
        if found is None:
            if cached:
                raise EnvironmentProblem("no cached ceilings for this GPU", hint="run `kernelopt ceilings`")
            found = measure_ceilings(device_index)
            origin = "measured now"
        if as_json:
            emit_json({**found.model_dump(mode="json"), "origin": origin})
            return
        rows = [["copy (read + write)", f"{found.copy_gbps:.1f}", "GB/s"]]
        rows += [[f"matmul {k}", f"{v:.1f}", "TFLOP/s"] for k, v in sorted(found.matmul_tflops.items())]
        table(f"{found.gpu_name} (driver {found.driver or 'unknown'}), {origin}", ["ceiling", "value", "unit"], rows)
        info(f"measured {found.measured_at:%Y-%m-%d %H:%M} UTC; {found.method}")
        info(f"cache: {cache_path(found.gpu_name, found.driver)}")
