"""Measured ceilings: the bandwidth streams (copy, add, sum), the memory ceiling taken as the fastest,
its consumers (stop condition, report, CLI), and cache entries written before the read-heavy streams.

The streams run on the CPU with small buffers; the byte accounting is checked with a fake timer.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path

import pytest

from kernelopt.hardware import ceilings as mod
from kernelopt.hardware.ceilings import BandwidthStream, Ceilings
from kernelopt.hardware.specs import lookup
from kernelopt.harness import ceilings as measure
from kernelopt.loop.stop import roofline_bounds
from kernelopt.memory.model import Performance
from kernelopt.report.model import CeilingKind, CeilingOrigin
from kernelopt.report.reader import measured_ceilings

pytestmark = pytest.mark.timeout(60)

# The H200 observation of docs/results.md (2026-11-29): the copy reached 4128 GB/s, an elementwise
# kernel with 2 reads : 1 write 4345 GB/s. The add/sum figures here are made up around it.
H200_STREAMS = {"copy": 4128.0, "add": 4460.0, "sum": 4390.0}


def h200(streams: dict[str, float] | None = None) -> Ceilings:
    return Ceilings(
        gpu_name="NVIDIA H200",
        driver="580.159.04",
        stream_gbps=H200_STREAMS if streams is None else streams,  # type: ignore[arg-type]
        matmul_tflops={"fp16": 726.0},
        measured_at=datetime(2026, 11, 29, tzinfo=UTC),
    )


# -- the model ----------------------------------------------------------------------------------------


def test_memory_ceiling_is_the_fastest_stream_and_the_copy_stays_visible() -> None:
    c = h200()
    assert c.memory_stream is BandwidthStream.ADD and c.memory_gbps == 4460.0
    assert c.copy_gbps == 4128.0 and c.read_heavy_measured
    # the elementwise kernel that was 105 % of the copy is under the new ceiling
    assert 4345.0 / c.copy_gbps > 1.05 and 4345.0 / c.memory_gbps < 1.0
    # a tie goes to the first stream in declaration order (copy), so the name is deterministic
    assert h200({"copy": 4000.0, "add": 4000.0}).memory_stream is BandwidthStream.COPY


def test_copy_only_cache_entry_is_read_as_the_copy_stream() -> None:
    old = {
        "gpu_name": "NVIDIA H200",
        "driver": "580.159.04",
        "copy_gbps": 4128.0,
        "matmul_tflops": {"bf16": 751.0},
        "measured_at": "2026-11-29T10:00:00Z",
        "method": "copy: median of 20 1 GiB device-to-device copies",
    }
    c = Ceilings.model_validate(old)
    assert c.stream_gbps == {BandwidthStream.COPY: 4128.0}
    assert c.memory_gbps == c.copy_gbps == 4128.0 and c.memory_stream is BandwidthStream.COPY
    assert not c.read_heavy_measured
    assert "copy_gbps" not in c.model_dump()  # written back in the new shape only
    with pytest.raises(ValueError, match="copy stream"):
        h200({"add": 4400.0})
    with pytest.raises(ValueError):
        h200({"copy": 4128.0, "add": 0.0})  # a bandwidth is positive


def test_cache_round_trip_keeps_every_stream(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("KERNELOPT_CACHE_DIR", str(tmp_path))
    monkeypatch.setattr(mod, "current_gpu", lambda device_index=0: ("NVIDIA H200", "580.159.04"))
    c = h200()
    path = mod.store_ceilings(c)
    assert json.loads(path.read_text())["stream_gbps"] == H200_STREAMS
    assert mod.cached_ceilings() == c


# -- the streams, on the CPU ----------------------------------------------------------------------------


def test_streams_do_what_they_say() -> None:
    import torch

    copy = measure.stream_case(BandwidthStream.COPY, "cpu", 4096)
    copy.run()
    src, dst = copy.buffers
    assert torch.equal(src, dst) and copy.bytes_moved == 2 * 4096
    add = measure.stream_case(BandwidthStream.ADD, "cpu", 4096)
    add.run()
    a, b, c = add.buffers
    assert torch.equal(c, a + b) and add.bytes_moved == 3 * 4096
    total = measure.stream_case(BandwidthStream.SUM, "cpu", 4096)
    (x,) = total.buffers
    assert torch.allclose(total.run(), x.sum()) and total.bytes_moved == 4096 + 4  # one fp32 result written


def test_bandwidth_counts_bytes_read_plus_written_over_the_median() -> None:
    calls: dict[str, int] = {}

    def fake_timer(fn: Callable[[], object], reps: int) -> list[float]:
        fn()
        calls[str(len(calls))] = reps
        return [9.0, 1.0, 2.0][:reps]  # median 2 ms: one slow outlier does not move it

    got = measure.measure_bandwidth("cpu", fake_timer, buffer_bytes=1 << 20, reps=3)
    b = 1 << 20
    assert got == {
        BandwidthStream.COPY: pytest.approx(2 * b / 2e-3 / 1e9),
        BandwidthStream.ADD: pytest.approx(3 * b / 2e-3 / 1e9),
        BandwidthStream.SUM: pytest.approx((b + 4) / 2e-3 / 1e9),
    }
    assert list(calls.values()) == [3, 3, 3]


def test_bandwidth_with_the_cpu_timer_gives_a_positive_figure_per_stream() -> None:
    got = measure.measure_bandwidth("cpu", measure.cpu_timer, buffer_bytes=1 << 16, reps=3)
    assert set(got) == set(BandwidthStream) and all(v > 0 for v in got.values())
    c = h200({k.value: v for k, v in got.items()})
    assert c.memory_gbps == max(got.values())


# -- consumers -----------------------------------------------------------------------------------------


def test_stop_condition_bound_uses_the_fastest_stream() -> None:
    # a memory-bound point: 1e9 bytes in 250 us = 4000 GB/s, no FLOP count
    perf = Performance(latency_us=250.0, bandwidth_gbps=4000.0)
    b = roofline_bounds(perf, spec=lookup("H200"), spec_missing=None, dtype="fp16", ceilings=h200())
    assert b.measured_pct == pytest.approx(4000.0 / 4460.0 * 100)
    assert "measured add 4460 GB/s" in b.measured_note


def test_report_memory_roof_names_the_stream_and_lists_all() -> None:
    found = measured_ceilings(h200(), "fp16")
    memory = next(c for c in found if c.kind is CeilingKind.MEMORY)
    assert memory.origin is CeilingOrigin.MEASURED and memory.value == 4460.0
    assert memory.label == "add bandwidth"
    assert "copy 4128, add 4460, sum 4390" in memory.source and "580.159.04" in memory.source


def test_cli_shows_each_stream_and_the_ceiling(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from kernelopt.cli.app import main

    monkeypatch.setenv("KERNELOPT_CACHE_DIR", str(tmp_path))
    monkeypatch.setattr(mod, "current_gpu", lambda device_index=0: ("NVIDIA H200", "580.159.04"))
    mod.store_ceilings(h200())
    assert main(["ceilings", "--cached", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["stream_gbps"] == H200_STREAMS
    assert (data["copy_gbps"], data["memory_gbps"], data["memory_stream"]) == (4128.0, 4460.0, "add")
    assert main(["ceilings", "--cached"]) == 0
    out = capsys.readouterr().out
    assert "copy (1 read : 1 write)" in out and "add (2 reads : 1 write)" in out and "sum (read only)" in out
    assert "memory ceiling (fastest: add)" in out and "4460.0" in out
    mod.store_ceilings(h200({"copy": 4128.0}))  # an entry from before the read-heavy streams
    assert main(["ceilings", "--cached"]) == 0
    assert "--refresh" in capsys.readouterr().out
