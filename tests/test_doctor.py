"""`kernelopt doctor` proves that ncu can profile: a trivial kernel under its own timeout, the reason when not."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from kernelopt.cli.app import main
from kernelopt.profiling import environment
from kernelopt.profiling.environment import CheckStatus

pytestmark = pytest.mark.timeout(120)


def _fake_ncu(tmp_path: Path, body: str) -> str:
    path = tmp_path / "ncu"
    path.write_text("#!/bin/sh\n" + body + "\n")
    path.chmod(path.stat().st_mode | stat.S_IXUSR)
    return str(path)


def test_a_hung_ncu_version_is_said(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("KERNELOPT_NCU", _fake_ncu(tmp_path, 'echo "starting"; sleep 30'))
    check, ncu = environment.check_ncu(timeout_s=1.0)
    assert ncu is None and check.status is CheckStatus.FAIL
    assert "--version ran past 1 s and was killed" in check.detail and "starting" in check.detail


def test_a_silent_ncu_failure_is_said(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("KERNELOPT_NCU", _fake_ncu(tmp_path, "exit 5"))
    check, _ = environment.check_ncu()
    assert check.status is CheckStatus.FAIL and "(exit 5): no output" in check.detail


def test_the_trivial_kernel_profile_has_its_own_timeout(tmp_path: Path) -> None:
    ncu = _fake_ncu(tmp_path, 'echo "==PROF== Connected to process"; sleep 30')
    check = environment.check_counters(ncu, timeout_s=1.0)
    assert check.status is CheckStatus.FAIL
    assert "profiling a trivial kernel ran past 1 s" in check.detail and "Connected to process" in check.detail
    assert check.fix and "--probe-timeout" in check.fix


def test_a_failed_trivial_kernel_profile_prints_the_reason(tmp_path: Path) -> None:
    ncu = _fake_ncu(tmp_path, 'echo "==ERROR== Failed to prepare kernel for profiling" >&2; exit 1')
    check = environment.check_counters(ncu, timeout_s=10.0)
    assert check.status is CheckStatus.FAIL and "Failed to prepare kernel for profiling" in check.detail


def test_doctor_passes_its_probe_timeout(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    seen: dict[str, object] = {}

    def checks(**kw: object) -> list[environment.Check]:
        seen.update(kw)
        return [environment.Check("counters", CheckStatus.FAIL, "profiling a trivial kernel ran past 5 s", "x")]

    monkeypatch.setattr(environment, "run_checks", checks)
    assert main(["doctor", "--probe-timeout", "5"]) == 3
    assert seen == {"probe_counters": True, "probe_timeout_s": 5.0}
    assert capsys.readouterr().out.strip() == "FAIL counters: profiling a trivial kernel ran past 5 s -> x"


@pytest.mark.gpu
def test_doctor_profiles_a_trivial_kernel_on_the_gpu(capsys: pytest.CaptureFixture[str]) -> None:
    """On an NVIDIA GPU with ncu: the probe runs and either passes or names its reason (never empty)."""
    code = main(["doctor", "--probe-timeout", "300"])
    out = capsys.readouterr().out
    line = next(x for x in out.splitlines() if " counters: " in x)
    status, _, detail = line.partition(" counters: ")
    assert detail.strip() and "no output" not in detail
    if os.environ.get("KERNELOPT_EXPECT_COUNTERS", "1") == "1":
        assert status.strip() == "OK", line
        assert "profiled one launch of a trivial kernel" in detail and code in (0, 3)
