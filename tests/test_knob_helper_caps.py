"""Tuning keeps kernel.py as general as it was (issue 32 item 2): a module-level cap read inside a settings helper
(``block = min(MAX_FUSED, next_power_of_2(n_cols))`` in ``row_settings``) is a knob where the kernel loops over the
row, and a limit the helper raises above is never offered. Tuned end to end on the CPU (Triton's interpreter, tiny
sizes) by ``kernelopt tune`` (``optimize``'s Stage 3 is the same session, :mod:`kernelopt.backends.launch_tuning`, and
its planner's knobs the same discovery); the kernel written is checked at both ``SHAPES`` entries and at sizes no
entry names."""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest

from .steady_timing import programs, steady_timing
from .test_knob_generality import correct_at, task


@pytest.fixture(autouse=True)
def _interpreter(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TRITON_INTERPRET", "1")


CAPPED = "row_logsumexp_helper_cap"
# SHAPES: 4 rows of 300 and of 1000 columns; 50 and 2500 columns are sizes no entry names
CAPPED_SIZES = [(4, 300), (4, 1000), (3, 50), (2, 2500)]


def _cap_of(text: str) -> int:
    """The cap as kernel.py sets it; the helper that reads it stays as written."""
    assert "    block = min(MAX_FUSED, triton.next_power_of_2(n_cols))\n" in text, text
    assert "# kernelopt: tuned" not in text  # the block stays computed: no table, no override
    (line,) = [ln for ln in text.splitlines() if ln.startswith("MAX_FUSED = ")]
    return int(line.split("=")[1])


@pytest.mark.timeout(240)
def test_tune_moves_the_cap_a_settings_helper_reads(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """``block = min(MAX_FUSED, next_power_of_2(n_cols))`` inside ``row_settings`` was not followed: only the
    block was offered (a table). The kernel loops over the row, so the cap is a knob legal at every size; 128 is
    8 trips round the interpreted loop on 1000 columns, a larger cap one, so tune raises it. The figures are those
    trips (``steady_timing``: at load 10-17 a preempted sample kept 128 as the best, 2026-12-05 and -06)."""
    from kernelopt.cli.app import main
    from kernelopt.planning.rules import discover_knobs
    from kernelopt.tunables.knobs import LAUNCH_OPTIONS

    def trips(config: Mapping[str, Any], entry: Mapping[str, Any]) -> float:
        block = min(config["MAX_FUSED"], 1 << (entry["cols"] - 1).bit_length())
        return programs(entry["rows"], -(-entry["cols"] // block)) + block / 1000  # a smaller block breaks ties

    steady_timing(monkeypatch, trips)
    folder = task(tmp_path, CAPPED)
    args = ["tune", str(folder), "--device", "cpu", "--budget", "3", "--repetitions", "1", "--json"]
    assert main(args) == 0, capsys.readouterr().err
    out = json.loads(capsys.readouterr().out)
    assert set(out["best_config"]) == {"MAX_FUSED"}, out  # the interpreter ignores the warps; BLOCK goes by the cap
    assert out["written"] and _cap_of((folder / "kernel.py").read_text()) > 128, out
    assert all(correct_at(folder, CAPPED_SIZES).values())
    # what optimize plans on the CPU: the planner's knobs come from the same discovery, less the launch options
    # the interpreter ignores (planning.rules._planning); its Stage 3 is this session (backends.launch_tuning)
    knobs, why = discover_knobs(folder / "kernel.py", "cpu")
    assert knobs is not None and [k.name for k in knobs if k.name not in LAUNCH_OPTIONS] == ["MAX_FUSED"], why


@pytest.mark.timeout(240)
def test_a_limit_the_helper_raises_above_is_never_offered(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """RMSNorm's ``calculate_settings`` raises above MAX_FUSED_SIZE: a lower value would make sizes the original
    handled raise, so tune never moves it (the block must cover the row: one line, kernel.py unchanged)."""
    from kernelopt.cli.app import main

    folder = task(tmp_path, "rmsnorm_calculate_settings")
    before = (folder / "kernel.py").read_bytes()
    assert main(["tune", str(folder), "--device", "cpu", "--budget", "3", "--repetitions", "2", "--json"]) == 2
    captured = capsys.readouterr()
    assert "MAX_FUSED_SIZE" not in captured.out + captured.err.split("kernelopt: error")[-1]
    assert (folder / "kernel.py").read_bytes() == before


@pytest.mark.timeout(120)
def test_a_cap_is_written_as_one_value_when_each_shape_has_its_own_best(tmp_path: Path) -> None:
    """Replayed per-shape timings where each SHAPES entry has its own best cap: a per-bucket table needs a setting
    computed from the size, and the cap is a constant, so one configuration is written and said (the edit of
    that case indexed an empty list: exit 70)."""
    from kernelopt.tuning.candidate import Outcome, Result
    from kernelopt.tuning.folder import FolderTuning, TuneRequest, prepare_folder, shaped_edit
    from kernelopt.tuning.session import SessionResult, StopReason, judge_gain
    from kernelopt.tuning.shapes import ChoiceKind, choose, per_shape

    folder = task(tmp_path, CAPPED)
    prepared = prepare_folder(TuneRequest(folder=folder, device="cpu"))
    small, large = (s.label() for s in prepared.shapes)

    def timed(cap: int, a: float, b: float) -> Result:
        by = {small: a, large: b}
        return Result(config={"MAX_FUSED": cap}, outcome=Outcome.OK, latency_us=a + b,
                      latency_us_by_shape=by, retimed=True)  # fmt: skip

    results = [timed(256, 10.0, 100.0), timed(1024, 14.0, 70.0)]
    chosen = min(results, key=lambda r: r.latency_us or 0.0)
    result = SessionResult(
        best_config=chosen.config, best_latency_us=chosen.latency_us, current_config=None, current_latency_us=None,
        results=results, retimed=results, evaluations=2, served=0, budget=2, space_size=13, wall_s=1.0,
        stop=StopReason.CANDIDATES, strategy="exhaustive",
    )  # fmt: skip
    shapes = per_shape(results, results, chosen.config)
    choice = choose(shapes)
    assert choice.kind is ChoiceKind.TABLE
    edit, note = shaped_edit(FolderTuning(prepared, result, judge_gain(result), per_shape=tuple(shapes), choice=choice))
    assert (
        edit is not None
        and note == "one configuration written: a per-bucket table needs a setting computed from the size"
    )
    assert _cap_of(edit.new_source) == chosen.config["MAX_FUSED"]
