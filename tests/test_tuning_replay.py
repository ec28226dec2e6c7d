"""Recorded sweeps: the sweep file model and its JSON Schema, the older 2026-11-29 files, the replay
evaluator and the space a sweep covers, and replayed trials."""

from __future__ import annotations

import gzip
import itertools
import json
from pathlib import Path

import pytest

from kernelopt.errors import InputFileError
from kernelopt.tuning.budget import BudgetRule, ManualClock
from kernelopt.tuning.candidate import Config, Outcome
from kernelopt.tuning.record import (
    SweepFile,
    SweepStatus,
    read_sweeps,
    render_sweep_schema,
    shipped_sweep_schema,
    write_sweep,
)
from kernelopt.tuning.replay import NOT_RECORDED, ReplayEvaluator, replay_trials, space_from_sweep

RUNS = Path(__file__).resolve().parents[1] / "docs" / "gpu-runs"
SWEEPS = RUNS / "2026-12-01-sweeps"


def sweep(name: str) -> SweepFile:
    return read_sweeps(SWEEPS / f"{name}.json")[0]


def test_shipped_sweep_schema_matches_the_model() -> None:
    assert shipped_sweep_schema() == render_sweep_schema(), (
        "run: kernelopt schema sweep > src/kernelopt/tuning/sweep.schema.json"
    )
    schema = json.loads(shipped_sweep_schema())
    assert {"schema", "key", "space", "configs", "wall_s"} <= set(schema["properties"])


@pytest.mark.parametrize("path", sorted(SWEEPS.glob("*.json")), ids=lambda p: p.stem)
def test_every_recorded_sweep_of_2026_12_01_is_schema_1(path: Path, tmp_path: Path) -> None:
    (s,) = read_sweeps(path)
    assert s.schema_version == 1 and s.name == path.stem and s.best() is not None
    write_sweep(tmp_path / "again.json", s)  # written back, it reads back the same
    assert read_sweeps(tmp_path / "again.json") == [s]
    assert json.loads((tmp_path / "again.json").read_text()).keys() == json.loads(path.read_text()).keys()


def test_the_2026_11_29_files_hold_the_same_entries_in_another_envelope() -> None:
    paths = sorted(RUNS.glob("2026-11-29-run*-sweep_*.json.gz"))
    assert len(paths) == 5
    for path in paths:
        raw = json.loads(gzip.decompress(path.read_bytes()))
        assert "schema" not in raw and "results" in raw
        (s,) = read_sweeps(path)
        assert s.key.kernel_sha256 is None and s.key.gpu == "NVIDIA H200"
        assert s.complete and len(s.configs) == len(raw["results"][0]["configs"])
        assert s.space == raw["results"][0]["knobs"]


def test_bad_sweep_files_are_one_line(tmp_path: Path) -> None:
    cases = {
        "not_json.json": "{",
        "other_schema.json": json.dumps({"schema": 7}),
        "no_envelope.json": json.dumps({"configs": []}),
        "missing_key.json": json.dumps({**json.loads((SWEEPS / "sumsq.json").read_text()), "key": {}}),
    }
    for name, text in cases.items():
        (tmp_path / name).write_text(text)
        with pytest.raises(InputFileError) as exc:
            read_sweeps(tmp_path / name)
        assert exc.value.exit_code == 2 and "\n" not in exc.value.one_line(), name
    with pytest.raises(InputFileError, match="no such file"):
        read_sweeps(tmp_path / "absent.json")


def test_replay_serves_recorded_outcomes_and_charges_recorded_seconds() -> None:
    s = sweep("transpose_fp32")
    clock = ManualClock()
    ev = ReplayEvaluator(s, clock)
    error = next(c for c in s.configs if c.status is SweepStatus.ERROR)
    ok = next(c for c in s.configs if c.status is SweepStatus.OK)
    got = ev.evaluate([Config.of(ok.config), Config.of(error.config)])
    assert got[0].outcome is Outcome.OK and got[0].latency_us == ok.latency_us and got[0].recorded
    assert got[1].outcome is Outcome.COMPILE_ERROR and "OutOfResources" in (got[1].reason or "")
    assert clock() == pytest.approx(2 * s.wall_s / len(s.timed()))
    assert "wall_s / 125" in ev.time_note
    (again,) = ev.retime([Config.of(ok.config)])
    assert again.retimed and again.latency_us == ok.latency_us


def test_pruned_and_unrecorded_configurations_are_invalid() -> None:
    s = sweep("matmul")  # incomplete: 156 configurations never timed
    space = space_from_sweep(s)
    pruned = next(c for c in s.configs if c.status is SweepStatus.PRUNED)
    recorded = {c.key for c in s.configs}
    missing = next(
        c for c in (Config.of(dict(zip(s.space, v, strict=True))) for v in _product(s)) if c.key() not in recorded
    )
    clock = ManualClock()
    got = ReplayEvaluator(s, clock).evaluate([Config.of(pruned.config), missing])
    assert got[0].outcome is Outcome.INVALID and "shared memory" in (got[0].reason or "")
    assert got[1].outcome is Outcome.INVALID and got[1].reason == NOT_RECORDED
    assert clock() == 0.0  # rejected before compiling: no time
    assert space.size.exact and space.size.count == len(s.timed()) == 480
    assert not space.fits(Config.of(pruned.config)) and not space.fits(missing)
    assert space.default() == Config.of(s.naive_config)


def _product(s: SweepFile) -> list[tuple[object, ...]]:
    return list(itertools.product(*s.space.values()))


def test_replayed_trials_are_deterministic_and_within_the_budget() -> None:
    s = sweep("sumsq")
    one = replay_trials(s, trials=6, strategy="local", seed=3)
    two = replay_trials(s, trials=6, strategy="local", seed=3)
    assert one == two
    assert one.budget == 24 and one.fit_size == 38 and one.mean_evaluations == 24
    assert 0 <= one.success_rate <= 1 and one.mean_ratio_to_best >= 1
    tenth = replay_trials(s, trials=6, budget=BudgetRule(fraction=0.1), strategy="random")
    assert tenth.budget == 4 and tenth.mean_evaluations == 4
    swept = replay_trials(s, trials=2, budget=BudgetRule(count=38), strategy="exhaustive")
    assert swept.success_rate == 1.0 and swept.mean_ratio_to_best == 1.0


def test_a_kernel_space_restricted_to_a_sweep_holds_only_the_sweeps_values() -> None:
    from kernelopt.tunables import discover
    from kernelopt.tuning.launch import space_from_tunables
    from kernelopt.tuning.replay import restrict_to_sweep

    kernel = Path(__file__).resolve().parents[1] / "examples" / "elementwise" / "kernel.py"
    full = space_from_tunables(discover(kernel))
    elementwise = sweep("elementwise")
    cut = restrict_to_sweep(full, elementwise)
    assert cut.names == full.names
    for name, values in elementwise.space.items():
        assert list(cut.knob(name).values) == sorted(values)
    # a knob the sweep does not vary (the launch's num_stages) is held where the sweep held it
    assert cut.knob("num_stages").values == (full.knob("num_stages").default,)
    assert cut.raw_size == len(elementwise.configs) < full.raw_size
    assert "restricted to the sweep of elementwise" in cut.fit_rules[-1]
    with pytest.raises(ValueError, match=r"varies \['BLOCK_K', 'BLOCK_M', 'BLOCK_N', 'GROUP_M'\]"):
        restrict_to_sweep(full, sweep("matmul"))
