"""The evidence, profile and doctor commands (one line per error, --json everywhere)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from kernelopt.cli.app import main
from kernelopt.profiling import environment
from kernelopt.profiling.environment import Check, CheckStatus

from .nvidia_data import NVIDIA, STUB_NCU, report


def test_evidence_text_and_json(capsys: pytest.CaptureFixture[str]) -> None:
    path = str(report("h200_bank_conflict"))
    assert main(["evidence", path]) == 0
    out = capsys.readouterr().out
    assert "SYMPTOMS: smem_bank_conflicts" in out and "== kernel: transpose_naive_smem_kernel (launch 0)" in out
    assert all(len(line) < 4000 for line in out.splitlines())
    assert main(["evidence", str(report("ncu_rtx2080ti_ncu2022_3")), "--json", "--kernel", "kernel_A"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert [k["kernel_name"] for k in data["kernels"]] == ["kernel_A(double *, int, int)"]
    assert data["kernels"][0]["bottleneck"] == "compute_bound"
    assert data["kernels"][0]["metrics"]["duration_us"]["value"] == pytest.approx(1168077.824)


def test_evidence_csv_kernel_filter_and_diff(capsys: pytest.CaptureFixture[str]) -> None:
    gemv = str(NVIDIA / "ncu_rtx5090_cublas_gemv_details_na.csv")
    flash = str(NVIDIA / "ncu_rtx5090_flashfwd_splitkv_details.csv")
    assert main(["evidence", gemv, "--kernel", "cublasGemv"]) == 0
    assert "occupancy_limited_registers" in capsys.readouterr().out
    assert main(["evidence", gemv, "--kernel", "no_such"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("kernelopt: error:") and "kernels in it: enable_if" in err[0]
    assert main(["evidence", flash, "--diff", gemv, "--json"]) == 0
    d = json.loads(capsys.readouterr().out)
    assert d["kernels"][0]["symptoms_added"] == ["occupancy_limited_registers"]


def test_evidence_errors_are_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["evidence", str(tmp_path / "missing.ncu-rep")]) == 2
    assert main(["evidence", str(tmp_path)]) == 2
    (tmp_path / "x.txt").write_text("hi")
    assert main(["evidence", str(tmp_path / "x.txt")]) == 2
    lines = [ln for ln in capsys.readouterr().err.splitlines() if ln]
    assert len(lines) == 3 and all(ln.startswith("kernelopt: error:") for ln in lines)
    assert "no such file" in lines[0] and "holds no summary.json" in lines[1] and "unknown report type" in lines[2]


def test_profile_cli_rejects_amd_flags_for_nvidia(add_workspace, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["profile", str(add_workspace.root), "--pmc-only"]) == 2
    assert "are AMD options" in capsys.readouterr().err
    assert main(["profile", str(add_workspace.root), "--vendor", "amd", "--iteration-range", "x"]) == 2
    assert "A-B" in capsys.readouterr().err


def test_doctor_one_line_per_check(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    checks = [
        Check("gpu", CheckStatus.OK, "NVIDIA H200 (sm_90, 140 GiB), driver 580.159.04, CUDA 13.0"),
        Check("ncu", CheckStatus.OK, "ncu 2025.3.1 at /usr/local/cuda/bin/ncu"),
        Check("counters", CheckStatus.FAIL, "not readable by this user (ERR_NVGPUCTRPERM)", "ask the admin"),
    ]
    monkeypatch.setattr(environment, "run_checks", lambda probe_counters=True, **_: checks)
    assert main(["doctor"]) == 3
    out = capsys.readouterr().out.splitlines()
    assert out == [
        "OK   gpu: NVIDIA H200 (sm_90, 140 GiB), driver 580.159.04, CUDA 13.0",
        "OK   ncu: ncu 2025.3.1 at /usr/local/cuda/bin/ncu",
        "FAIL counters: not readable by this user (ERR_NVGPUCTRPERM) -> ask the admin",
    ]
    monkeypatch.setattr(environment, "run_checks", lambda probe_counters=True, **_: checks[:2])
    assert main(["doctor", "--json"]) == 0
    assert [c["status"] for c in json.loads(capsys.readouterr().out)] == ["ok", "ok"]


def test_counters_probe_with_stub_ncu(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("STUB_NCU_MODE", "perm")
    c = environment.check_counters(str(STUB_NCU))
    assert c.status is CheckStatus.FAIL and "ERR_NVGPUCTRPERM" in c.detail and "NVreg" in (c.fix or "")
    monkeypatch.setenv("STUB_NCU_MODE", "ok")
    monkeypatch.setenv("STUB_NCU_RUN", "0")
    monkeypatch.setenv("STUB_NCU_REPORT", str(NVIDIA / "ncu_rtx2080ti_ncu2022_3.ncu-rep.gz"))
    c = environment.check_counters(str(STUB_NCU))
    assert c.status is CheckStatus.OK and "38 pass" in c.detail
    assert environment.check_counters(None).status is CheckStatus.SKIP


def test_ncu_check(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("KERNELOPT_NCU", str(STUB_NCU))
    check, ncu = environment.check_ncu()
    assert check.status is CheckStatus.OK and ncu == str(STUB_NCU) and "2025.3.1" in check.detail
    monkeypatch.setenv("STUB_NCU_MODE", "old")
    assert environment.check_ncu()[0].status is CheckStatus.FAIL
    monkeypatch.setenv("KERNELOPT_NCU", "/nonexistent/ncu")
    monkeypatch.setenv("PATH", "/nonexistent")
    check, ncu = environment.check_ncu()
    assert ncu is None and check.status in (CheckStatus.WARN, CheckStatus.OK)


def test_importing_stage1_pulls_in_no_heavy_module() -> None:
    import subprocess
    import sys

    code = (
        "import sys, kernelopt.profiling, kernelopt.profiling.nvidia, kernelopt.profiling.reader, "
        "kernelopt.profiling.environment, kernelopt.evidence.nvidia, kernelopt.cli.profile, "
        "kernelopt.cli.evidence, kernelopt.cli.doctor, kernelopt.hardware.gpu\n"
        "print(','.join(m for m in ('torch', 'triton', 'numpy', 'ncu_report') if m in sys.modules))"
    )
    import os

    src = str(Path(__file__).resolve().parents[1] / "src")
    env = {**os.environ, "PYTHONPATH": src + os.pathsep + os.environ.get("PYTHONPATH", "")}
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=True, env=env)
    assert out.stdout.strip() == ""
