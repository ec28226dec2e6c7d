"""Utilization arithmetic and spec lookup."""

from __future__ import annotations

import json

import pytest

from kernelopt.cli.app import main
from kernelopt.errors import UsageError
from kernelopt.hardware.specs import builtin_specs, lookup
from kernelopt.utilization import Roof, compute_utilization


def test_gemm_4096_in_201_7_us() -> None:
    spec = lookup("H200")
    u = compute_utilization(
        latency_us=201.7,
        flops=2 * 4096**3,
        bytes_moved=3 * 4096 * 4096 * 2,
        peak_tflops=spec.peak_tflops("bf16"),
        peak_gbps=spec.memory_bandwidth_gbps,
    )
    assert u.tflops == pytest.approx(681.4, abs=0.05)
    assert u.bound is Roof.COMPUTE
    assert u.ridge_point == pytest.approx(989.5e12 / 4800e9)
    assert u.tflops_pct == pytest.approx(681.4 / 989.5 * 100, rel=1e-3)
    assert u.roofline_pct == pytest.approx(u.tflops_pct, rel=1e-9)


def test_memory_bound_and_unknown_flops() -> None:
    u = compute_utilization(latency_us=100.0, flops=None, bytes_moved=400e6, peak_tflops=67.0, peak_gbps=4800.0)
    assert u.tflops is None and u.arithmetic_intensity is None
    assert u.bandwidth_gbps == pytest.approx(4000.0)
    assert u.bound is Roof.MEMORY and u.roofline_pct == pytest.approx(4000 / 4800 * 100)


def test_over_100_percent_is_flagged() -> None:
    u = compute_utilization(latency_us=1.0, flops=None, bytes_moved=10e6, peak_tflops=None, peak_gbps=4800.0)
    assert u.warnings and "accounting error" in u.warnings[0]


def test_zero_latency_is_refused() -> None:
    with pytest.raises(UsageError, match="latency must be positive"):
        compute_utilization(latency_us=0, flops=1, bytes_moved=1, peak_tflops=1, peak_gbps=1)


def test_spec_lookup_aliases_and_unknown() -> None:
    assert lookup("h200-sxm").id == lookup("NVIDIA H200").id == "nvidia-h200-sxm"
    assert lookup("MI300X").arch == "gfx942"
    with pytest.raises(UsageError, match="unknown GPU 'H300'"):
        lookup("H300")
    with pytest.raises(UsageError, match="unknown dtype"):
        lookup("H200").peak_tflops("int3")
    assert lookup("A100").peak_tflops("fp8") is None


def test_every_known_figure_has_a_source() -> None:
    required = {"h100", "h200", "a100", "b200", "mi300x", "mi355x"}
    names = {a for s in builtin_specs() for a in s.aliases}
    assert required <= names
    for s in builtin_specs():
        for key, fig in s.figures.items():
            if fig.value is not None:
                assert fig.source in s.sources, (s.id, key)
            else:
                assert fig.source is not None or fig.how_to_measure, (s.id, key)


def test_utilization_cli(capsys: pytest.CaptureFixture[str]) -> None:
    code = main(
        [
            "utilization",
            "--latency-us",
            "201.7",
            "--flops",
            str(2 * 4096**3),
            "--bytes",
            str(3 * 4096 * 4096 * 2),
            "--gpu",
            "H200",
            "--dtype",
            "bf16",
            "--json",
        ]
    )
    assert code == 0
    data = json.loads(capsys.readouterr().out)
    assert round(data["tflops"], 1) == 681.4 and data["bound"] == "compute"
    assert "H200" in data["sources"]["peak_tflops"]
    assert main(["utilization", "--latency-us", "0", "--gpu", "H200"]) == 2
    assert "latency must be positive" in capsys.readouterr().err
    assert main(["utilization", "--latency-us", "5", "--gpu", "nope"]) == 2
    assert main(["utilization", "--latency-us", "5", "--gpu", "H200", "--dtype", "int3"]) == 2
    code = main(["utilization", "--latency-us", "100", "--bytes", "400e6", "--gpu", "H200", "--measured-gbps", "4250"])
    assert code == 0 and "measured" in capsys.readouterr().out
