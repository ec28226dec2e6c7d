"""docs/harness.md matches the code for every timeout variable: names, defaults and what "the run" means."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from kernelopt.backends import settings as backend_settings
from kernelopt.env import variable
from kernelopt.errors import UsageError
from kernelopt.harness import settings as hs
from kernelopt.harness.gate import limits_of
from kernelopt.harness.progress import LimitKind, Limits, Watchdog

pytestmark = pytest.mark.timeout(30)

DOC = Path(__file__).resolve().parents[1] / "docs" / "harness.md"


def _documented() -> dict[str, float]:
    text = DOC.read_text(encoding="utf-8").split("Every timeout variable of kernelopt", 1)[1]
    return {m.group(1): float(m.group(2)) for m in re.finditer(r"^\| `([A-Z_]+)` \| (\d+) s \|", text, re.M)}


def _code() -> dict[str, float]:
    harness = hs.HarnessSettings()
    out = {
        variable(name).name: getattr(harness, name)
        for name in ("case_timeout_s", "run_timeout_s", "compile_timeout_s", "startup_timeout_s")
    }
    for cls, env in backend_settings._ENV.items():
        if "timeout_s" in env:
            out[env["timeout_s"]] = cls.model_fields["timeout_s"].default
    return out


def test_every_timeout_variable_is_documented_with_its_default() -> None:
    assert _documented() == _code()


def test_the_run_limit_is_never_below_the_case_limit() -> None:
    assert limits_of(hs.HarnessSettings(run_timeout_s=10.0)).run_s == 30.0
    assert limits_of(hs.HarnessSettings(case_timeout_s=120.0)).run_s == 120.0
    assert limits_of(hs.HarnessSettings()).run_s == 60.0


def test_the_run_limit_counts_case_and_timing_phases_without_compilation() -> None:
    dog = Watchdog(limits=Limits(startup_s=120, compile_s=300, case_s=30, run_s=60), started_at=0.0)
    dog.feed({"t": 1.0, "event": "phase", "phase": "case", "case": 0})
    dog.feed({"t": 2.0, "event": "compile_start"})
    dog.feed({"t": 200.0, "event": "compile_end"})  # 198 s of compilation: not counted
    dog.feed({"t": 225.0, "event": "phase", "phase": "bench", "case": 0})  # case 0 used 26 s
    dog.feed({"t": 245.0, "event": "phase", "phase": "bench", "case": 1})  # its timing 20 s
    assert dog.check(255.0) is None  # 26 + 20 + 10 = 56 s
    timeout = dog.check(260.0)  # 26 + 20 + 15 = 61 s > 60 s, no single phase past 30 s
    assert timeout is not None and timeout.kind is LimitKind.RUN and "KERNELOPT_RUN_TIMEOUT_S" in timeout.message


def test_a_bad_value_is_a_one_line_usage_error() -> None:
    with pytest.raises(UsageError, match="KERNELOPT_RUN_TIMEOUT_S='soon'"):
        hs.HarnessSettings.from_env({"KERNELOPT_RUN_TIMEOUT_S": "soon"})
    # out of range is said by the environment's table too, naming the variable (issue 23)
    with pytest.raises(UsageError, match=r"^KERNELOPT_RUN_TIMEOUT_S='-1' must be greater than 0$"):
        hs.HarnessSettings.from_env({"KERNELOPT_RUN_TIMEOUT_S": "-1"})
