"""The tuning engine's edges (issue 32, the defects the session of 2026-12-05 left): a candidate that could never
be written costs no budget, ``--within`` a sweep recorded before computed points, the re-time bounded by the wall
time, a refusal said once, and a retune of a guarded file.

The sessions here run on the CPU without timing anything: :class:`Stopwatch` stands in for the evaluator (it makes
each candidate's source through the session's own editor, so what the edit layer refuses is refused as in a real
session) and gives each configuration a latency from a rule, on every ``SHAPES`` entry."""

from __future__ import annotations

import shutil
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any, ClassVar

import pytest

from kernelopt.tuning.candidate import Config, Outcome, Result, Value

DATA = Path(__file__).parent / "data"

Rule = Callable[[Mapping[str, Value], str], float]
"""configuration, candidate source -> latency in microseconds (the same on every shape)."""


class Stopwatch:
    """An evaluator of :func:`kernelopt.tuning.folder.tune_folder` (the shapes evaluator's arguments) that times
    nothing: each configuration's latency is ``rule(config, source)``; a refused edit is ``INVALID``. ``asked``
    lists the configurations it was asked to evaluate, ``retimed`` those it re-timed."""

    rule: ClassVar[Rule] = staticmethod(lambda config, source: 100.0)  # type: ignore[assignment]
    asked: ClassVar[list[Config]] = []
    retimed: ClassVar[list[Config]] = []
    ready = None  # no bench worker starts, so none named its device (the session's timed_on)

    def __init__(self, problem: Any, *args: Any, **kwargs: Any) -> None:
        self.apply = args[-1]  # (shapes, base source, apply) or (base source, apply)
        self.shapes = [s.label() for s in (args[0] if len(args) == 3 else [])]
        self.evaluators = [self]  # as a ShapesEvaluator's: its first entry's evaluator is the one whose worker timed

    def __enter__(self) -> Stopwatch:
        return self

    def __exit__(self, *exc: object) -> None:
        return None

    def close(self) -> None:
        return None

    def never_cut(self, keys: object) -> None:  # nothing is timed, so nothing is cut
        return None

    @property
    def check_notes(self) -> list[str]:  # no check is run, so nothing is said of it
        return []

    def _one(self, config: Config, *, retimed: bool) -> Result:
        from kernelopt.tuning.kernel_evaluator import Refusal

        made = self.apply(config)
        if isinstance(made, Refusal):
            return Result.failed(config, Outcome.INVALID, made.reason)
        latency = type(self).rule(config.as_dict(), made)
        by = {label: latency / max(1, len(self.shapes)) for label in self.shapes}
        return Result(
            config=config.as_dict(), outcome=Outcome.OK, latency_us=latency, samples_us=[latency] * 20,
            latency_us_by_shape=by, retimed=retimed,
        )  # fmt: skip

    def evaluate(self, batch: Sequence[Config]) -> list[Result]:
        type(self).asked += list(batch)
        return [self._one(c, retimed=False) for c in batch]

    def retime(self, batch: Sequence[Config]) -> list[Result]:
        type(self).retimed += list(batch)
        return [self._one(c, retimed=True) for c in batch]

    def check_source(self, source: str, config: Config) -> Result:
        return Result(config=config.as_dict(), outcome=Outcome.OK)

    def aside_lines(self) -> tuple[tuple[str, str], ...]:  # it stands in for the ShapesEvaluator: no entry set aside
        return ()


@pytest.fixture
def stopwatch(monkeypatch: pytest.MonkeyPatch) -> type[Stopwatch]:
    import kernelopt.tuning.folder as folder

    # a test sets its own rule: restored after it, or the next test in the process times by it (KeyError: 'TILE')
    monkeypatch.setattr(Stopwatch, "rule", Stopwatch.__dict__["rule"])
    monkeypatch.setattr(Stopwatch, "asked", [])
    monkeypatch.setattr(Stopwatch, "retimed", [])
    monkeypatch.setattr(folder, "ShapesEvaluator", Stopwatch)
    monkeypatch.setattr(folder, "KernelEvaluator", Stopwatch)
    return Stopwatch


def _copy(name: str, tmp_path: Path) -> Path:
    return Path(shutil.copytree(DATA / name, tmp_path / Path(name).name))


def _tune(folder: Path, **request: Any) -> Any:
    from kernelopt.tuning.folder import TuneRequest, prepare_folder, tune_folder

    return tune_folder(prepare_folder(TuneRequest(folder=folder, device="cpu", **request)))


@pytest.mark.timeout(60)
def test_tune_json_carries_what_the_checks_setup_said_of_the_float64_run(
    tmp_path: Path, stopwatch: type[Stopwatch], monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """leftovers10: the reference's float64 run for its integer outputs skipped for the device's room
    (harness/highrun.py's skip, :attr:`KernelEvaluator.check_notes`) was a warning on stderr only: ``tune --json``
    said nothing of it. It is the summary's ``check_notes``, the line the warning prints."""
    import json

    from kernelopt.cli.app import main

    why = "the float64 run of the reference for its integer outputs needs 3.1 GB, 1.2 GB free"
    monkeypatch.setattr(Stopwatch, "check_notes", property(lambda self: [f"the check: {why}"]))
    folder = _copy("breaker2/global_tile", tmp_path)
    code = main(["tune", str(folder), "--device", "cpu", "--budget", "2", "--dry-run", "--json"])
    out = capsys.readouterr()
    assert code in (0, 3), out.err
    assert json.loads(out.out)["check_notes"] == [f"the check: {why}"]
    assert f"the check: {why}" in out.err  # the warning as before


# ------------------------------------------------------------------------------ 1. unwritable candidates


@pytest.mark.timeout(60)
def test_a_candidate_that_could_never_be_written_is_set_aside_untimed_and_free(
    tmp_path: Path, stopwatch: type[Stopwatch]
) -> None:
    """global_tile's ``TILE = tl.constexpr(32)`` is a module-level constant of a kernel without masks: a tile
    that does not divide 32 cannot be guarded, so it can never be written. Such candidates were timed and charged
    (and, fastest, left the session with nothing to write); now they are set aside before any timing, recorded
    with the guard's reason, not charged, and never proposed again. Since gpuleft10 (2026-12-06) they leave the space
    before the session (:mod:`kernelopt.tuning.writable`): never proposed at all, the space's fit rules naming the
    guard's reason."""
    stopwatch.rule = staticmethod(lambda config, source: 1000.0 / int(config["TILE"]))  # larger tiles faster
    folder = _copy("breaker2/global_tile", tmp_path)
    tuning = _tune(folder, budget=6)
    r = tuning.result
    asked = {c["TILE"] for c in stopwatch.asked}
    assert asked <= {16, 32}, asked  # 64 and up never reached the evaluator
    space = tuning.prepared.space
    assert max(space.knob("TILE").values) == 32, space.knob("TILE").values  # 64 and up never proposed
    rule = space.fit_rules[-1]
    assert rule.startswith("cannot be written: TILE = 64") and "module-level constant cannot be guarded" in rule
    assert not [x for x in r.results if x.outcome is Outcome.INVALID] and not r.screened
    assert r.evaluations == len(asked)
    keys = [Config.of(x.config).key() for x in r.results]
    assert len(keys) == len(set(keys))  # nothing proposed twice
    record = (tuning.prepared.record_path).read_text()
    assert "cannot be written" in record  # attribution: the refusal is in the session record (its header's rules)
    # the fastest tile that can be written is the current one (before: 65536, timed, picked, and not written)
    assert r.best_config == {"TILE": 32} and not tuning.judgement.better and tuning.edit_note is None


@pytest.mark.timeout(30)
def test_set_aside_configurations_cost_no_budget() -> None:
    """In the session alone: a budget of 3 candidates times 3 configurations, however many the screen refuses
    in between."""
    from kernelopt.tuning.budget import Budget, ManualClock
    from kernelopt.tuning.session import tune
    from kernelopt.tuning.space import Space, knob_of

    space = Space((knob_of("B", [16, 32, 64, 128, 256, 512], 16),))
    timed: list[Config] = []

    class Flat:
        def evaluate(self, batch: Sequence[Config]) -> list[Result]:
            timed.extend(batch)
            return [Result(config=c.as_dict(), outcome=Outcome.OK, latency_us=10.0, samples_us=[10.0]) for c in batch]

        retime = evaluate

        def close(self) -> None:
            return None

    odd = {32, 128, 512}
    result = tune(
        space, Flat(), budget=Budget(3, ManualClock()), strategy="exhaustive",
        screen=lambda c: "refused" if c["B"] in odd else None,
    )  # fmt: skip
    assert len({c["B"] for c in timed}) == 3 and not {c["B"] for c in timed} & odd
    assert result.evaluations == 3 and result.screened == 2 and result.budget == 3  # 32 and 128 between them


@pytest.mark.timeout(30)
def test_set_aside_configurations_do_not_count_toward_a_stall() -> None:
    """A default budget's stall stop counts the candidates that ran after the last gain: refusals in between
    are none (every other configuration refused, the stall still waits for 24 timed after the first)."""
    from kernelopt.tuning.budget import Budget, ManualClock
    from kernelopt.tuning.session import StopReason, tune
    from kernelopt.tuning.space import Space, knob_of

    space = Space((knob_of("B", list(range(1, 301)), 1),))

    class Flat:
        def evaluate(self, batch: Sequence[Config]) -> list[Result]:
            return [Result(config=c.as_dict(), outcome=Outcome.OK, latency_us=10.0, samples_us=[10.0]) for c in batch]

        retime = evaluate

        def close(self) -> None:
            return None

    result = tune(
        space, Flat(), budget=Budget(200, ManualClock(), stall=True), strategy="exhaustive",
        screen=lambda c: "refused" if int(c["B"]) % 2 == 0 else None,
    )  # fmt: skip
    assert result.stop is StopReason.STALLED and 25 <= result.evaluations <= 28 and result.screened >= 24  # rounds of 4


# ------------------------------------------------------------------------------ 4. a refusal said once


@pytest.mark.timeout(60)
def test_a_refused_write_is_said_once(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """``tune global_tile`` whose best was a tile no guard could write printed the refusal twice: as the edit's
    note and again in the verdict line. One line, once."""
    from kernelopt.cli.tune import _render
    from kernelopt.tuning.folder import FolderTuning, TuneRequest, _checked_edit, prepare_folder
    from kernelopt.tuning.session import SessionResult, StopReason, judge_gain

    folder = _copy("breaker2/global_tile", tmp_path)
    prepared = prepare_folder(TuneRequest(folder=folder, device="cpu"))
    by = {s.label(): 5.0 for s in prepared.shapes}
    won = Result(config={"TILE": 128}, outcome=Outcome.OK, latency_us=10.0, latency_us_by_shape=by, retimed=True)
    now = Result(config={"TILE": 32}, outcome=Outcome.OK, latency_us=20.0, latency_us_by_shape=by, retimed=True)
    result = SessionResult(
        best_config={"TILE": 128}, best_latency_us=10.0, current_config={"TILE": 32}, current_latency_us=20.0,
        results=[now, won], retimed=[now, won], evaluations=2, served=0, budget=2, space_size=13, wall_s=1.0,
        stop=StopReason.CANDIDATES, strategy="exhaustive",
    )  # fmt: skip
    tuning = _checked_edit(FolderTuning(prepared, result, judge_gain(result)), None)  # type: ignore[arg-type]
    assert tuning.edit is None and tuning.edit_note is not None
    _render(tuning, "", written=False, dry_run=False, plot=None)
    out = capsys.readouterr().out
    assert out.count("cannot be guarded by a size") == 1, out


# ------------------------------------------------------------------------------ 5. a retune of a guarded file


TWIN = {"BLOCK_K": 32, "BLOCK_M": 32, "BLOCK_N": 64}


def _guarded_mm(tmp_path: Path) -> Path:
    """mm_nomask after ``tune`` wrote ``BLOCK_N=64`` (the tile must divide N): the guard, 32 the fallback."""
    from kernelopt.tunables import apply_source
    from kernelopt.tunables.guard import guard_edit

    folder = _copy("breaker/mm_nomask", tmp_path)
    text = (folder / "kernel.py").read_text()
    guarded = guard_edit(text, apply_source(text, {"BLOCK_N": 64}).new_source).new_source
    assert guarded is not None and "    if N % 64 == 0:  # kernelopt: tuned\n        BLOCK_N = 64\n" in guarded
    (folder / "kernel.py").write_text(guarded)
    return folder


@pytest.mark.timeout(60)
def test_a_retune_of_a_guarded_file_claims_no_noise_gain(
    tmp_path: Path, stopwatch: type[Stopwatch], capsys: pytest.CaptureFixture[str]
) -> None:
    """Seen after ``tune mm_nomask`` wrote its guard: a second ``tune`` timed the file as written (the guard: 64 at
    every shape) as "BLOCK_N=32" and the literal 64 apart, and 4 % of noise between the two timings of one kernel
    read as a gain, written again (the same guard). Now the guard's configuration is the current point, timed
    once; nothing is written."""
    stopwatch.rule = staticmethod(
        lambda config, source: 100.0 if "kernelopt: tuned" in source else 96.0 if config == TWIN else 200.0
    )
    folder = _guarded_mm(tmp_path)
    before = (folder / "kernel.py").read_text()
    tuning = _tune(folder, budget=5)
    assert not tuning.judgement.better and tuning.edit is None, tuning.judgement
    assert tuning.guarded == TWIN
    assert Config.of(TWIN) not in stopwatch.asked and Config.of(TWIN) not in stopwatch.retimed
    assert tuning.result.best_config == tuning.result.current_config == {"BLOCK_K": 32, "BLOCK_M": 32, "BLOCK_N": 32}
    assert (folder / "kernel.py").read_text() == before
    from kernelopt.cli.tune import _render

    _render(tuning, "", written=False, dry_run=False, plot=None)
    out = capsys.readouterr().out
    assert out.count("BLOCK_N=64 wherever the guard an earlier tune wrote into kernel.py holds") == 1, out
    assert "the current configuration is the best found" in out


def test_a_better_tile_on_a_guarded_file_replaces_the_guard_never_nests_it(tmp_path: Path) -> None:
    """The other side: a tile really faster on the guarded file (128) is written as one guard in place of the old
    one, never a guard inside a guard; a divisor of the original (16) needs no divisibility test and takes the old
    one out, kept under the grid's limit of programs on its second axis alone (``N // BLOCK_N``, wrongkernel21)."""
    from kernelopt.tuning.folder import TuneRequest, _config_edit, prepare_folder

    prepared = prepare_folder(TuneRequest(folder=_guarded_mm(tmp_path), device="cpu"))
    wider, note = _config_edit(prepared, {**TWIN, "BLOCK_N": 128})
    assert wider is not None and note is not None and "only where N % 128 == 0" in note
    assert wider.new_source.count("# kernelopt: tuned") == 1 and "if N % 64" not in wider.new_source
    assert "    if N % 128 == 0:  # kernelopt: tuned\n        BLOCK_N = 128\n" in wider.new_source
    narrower, _ = _config_edit(prepared, {**TWIN, "BLOCK_N": 16})
    assert narrower is not None and narrower.new_source.count("# kernelopt: tuned") == 1
    assert (
        "if N % 64" not in narrower.new_source
        and "    if N <= 16 * 65535:  # kernelopt: tuned\n" in narrower.new_source
    )


# ------------------------------------------------------------------------------ 3. the re-time within the wall


class _Paced:
    """An evaluator on a manual clock: each configuration evaluated or re-timed costs ``each_s``; its latency is
    ``B`` microseconds' worth of a rule (smaller B faster), its samples ``spread`` apart around it."""

    def __init__(self, clock: Any, each_s: float, spread: float = 0.0) -> None:
        self.clock, self.each_s, self.spread = clock, each_s, spread
        self.retimed: list[Config] = []

    def _one(self, c: Config, retimed: bool) -> Result:
        self.clock.advance(self.each_s)
        mid = float(c["B"])
        samples = [mid * (1 + self.spread * ((k % 4) - 1.5)) for k in range(20)]
        return Result(config=c.as_dict(), outcome=Outcome.OK, latency_us=mid, samples_us=samples, retimed=retimed)

    def evaluate(self, batch: Sequence[Config]) -> list[Result]:
        return [self._one(c, False) for c in batch]

    def retime(self, batch: Sequence[Config]) -> list[Result]:
        self.retimed += list(batch)
        return [self._one(c, True) for c in batch]

    def close(self) -> None:
        return None


def _paced_session(
    wall_s: float, spread: float = 0.0, values: Sequence[int] = (16, 32, 64, 128, 256, 512)
) -> tuple[Any, _Paced, Any]:
    from kernelopt.tuning.budget import Budget, ManualClock
    from kernelopt.tuning.session import tune
    from kernelopt.tuning.space import Space, knob_of

    clock = ManualClock()
    space = Space((knob_of("B", list(values), 512),), origins={})
    evaluator = _Paced(clock, each_s=10.0, spread=spread)
    budget = Budget(4, clock, wall_s=wall_s)
    return tune(space, evaluator, budget=budget, strategy="exhaustive"), evaluator, budget


@pytest.mark.timeout(30)
def test_the_re_time_is_bounded_by_the_wall_time() -> None:
    """docs/tuning-engine.md said "the re-time after a candidates or stalled stop is not bounded": 4 candidates of
    10 s under a 45 s wall were followed by a re-time of 4 more (85 s in all). Now a wall that leaves no room
    for it re-times nothing, says so, and keeps the ranking's pick."""
    result, evaluator, budget = _paced_session(45.0)
    assert evaluator.retimed == [] and budget.elapsed_s <= 45.0
    assert result.unretimed is not None and "cannot fit the re-time" in result.unretimed
    assert result.best_config == {"B": 16} and result.noisy is None  # the fastest first measurement


@pytest.mark.timeout(30)
def test_a_wall_that_fits_part_of_the_re_time_re_times_the_fastest_and_the_current_first() -> None:
    result, evaluator, budget = _paced_session(75.0)  # 40 s spent, 35 s left: three of the four picks
    assert len(evaluator.retimed) == 3 and budget.elapsed_s <= 75.0
    assert evaluator.retimed[:2] == [Config.of({"B": 16}), Config.of({"B": 512})]  # the fastest, the current
    assert result.unretimed is not None and "3 of the top 4" in result.unretimed
    result, evaluator, _ = _paced_session(1000.0)  # room for all: no line
    assert len(evaluator.retimed) == 4 and result.unretimed is None


@pytest.mark.timeout(30)
def test_a_pick_too_noisy_to_rank_without_a_re_time_writes_nothing() -> None:
    """Item 7 beside item 3: with no re-time, first samples that spread over half their median, where another
    candidate may be as fast, are too noisy to rank: the current configuration stays."""
    from kernelopt.tuning.session import judge_gain

    result, evaluator, _ = _paced_session(45.0, spread=0.5, values=(16, 18, 40, 80, 512))
    assert evaluator.retimed == [] and result.noisy is not None and "without a re-time" in result.noisy
    assert not judge_gain(result).better


# ------------------------------------------------------------------------------ 2. --within a sweep of literals


def _literal_sweep(tmp_path: Path, space: dict[str, list[int]], naive: dict[str, int], *, complete: bool) -> Path:
    """A sweep file as the sweeps recorded before computed points existed write it: literals only."""
    from kernelopt.tuning.record import read_sweeps, write_sweep

    base = read_sweeps(DATA.parent.parent / "docs" / "gpu-runs" / "2026-12-01-sweeps" / "sumsq.json")[0]
    path = tmp_path / "sweep.json"
    write_sweep(path, base.model_copy(update={"space": space, "naive_config": naive, "complete": complete}))
    return path


@pytest.mark.timeout(120)
def test_within_a_literal_sweep_refuses_a_computation_of_several_values(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """rownorm computes BLOCK from the row (128 at 100 columns, 256 at 256): no one point of a sweep of literals.
    ``tune --within`` searched the sweep's values plus the computation, picked "computed", a point the sweep never
    timed, and said nothing; now one line, exit 2, before any candidate runs."""
    from kernelopt.cli.app import main

    folder = _copy("tuning/rownorm", tmp_path)
    before = (folder / "kernel.py").read_bytes()
    sweep = _literal_sweep(tmp_path, {"BLOCK": [128, 256, 512]}, {"BLOCK": 256}, complete=True)
    code = main(["tune", str(folder), "--device", "cpu", "--within", str(sweep), "--dry-run"])
    err = capsys.readouterr().err
    assert code == 2, err
    assert err.startswith("kernelopt: error: --within") and "BLOCK is computed by kernel.py" in err, err
    assert "128 at n_rows=8,n_cols=100, 256 at n_rows=8,n_cols=256" in err and "holds literals only" in err
    assert "Traceback" not in err and (folder / "kernel.py").read_bytes() == before


@pytest.mark.timeout(120)
def test_within_a_literal_sweep_maps_a_computation_of_one_value(
    tmp_path: Path, stopwatch: type[Stopwatch], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Timed on one shape (256 columns) the computation is the literal 256: the current configuration is the
    sweep's BLOCK=256, the session searches the sweep's literals only, and says that the sweep was cut short
    (its best is the best of the configurations it timed, never called the exhaustive best). (The bound of a block
    that must cover the row is left out: at 256 columns it leaves nothing but 256, and tune says so before any
    candidate, tuneleft8.)"""
    import kernelopt.tuning.folder as folder_module

    monkeypatch.setattr(folder_module, "covered_sizes", lambda *a, **k: {})
    folder = _copy("tuning/rownorm", tmp_path)
    ref = folder / "reference.py"
    ref.write_text(ref.read_text().replace('{"n_rows": 8, "n_cols": 100}, ', ""))
    sweep = _literal_sweep(tmp_path, {"BLOCK": [128, 256, 512]}, {"BLOCK": 256}, complete=False)
    tuning = _tune(folder, within=sweep)
    within = tuning.prepared.within
    assert within is not None and within.mapped == {"BLOCK": 256} and not within.complete
    assert tuning.result.current_config == {"BLOCK": 256}
    assert all(c["BLOCK"] in (128, 256, 512) for c in stopwatch.asked)
    assert all(r.config["BLOCK"] != "computed" for r in tuning.result.results)
    line = within.line()
    assert "cut short" in line and f"best of {within.timed} timed, not the exhaustive best" in line
    assert "BLOCK computed -> 256" in line


def test_within_names_a_complete_sweep_s_best_the_exhaustive_best(tmp_path: Path) -> None:
    from kernelopt.tuning.folder import WithinSweep

    done = WithinSweep(
        sweep="s", path="s.json", complete=True, timed=48, configurations=48, best_latency_us=3.5,
        best_label="exhaustive best",
    )  # fmt: skip
    assert "complete, 48 timed of 48" in done.line() and "is the exhaustive best of this space" in done.line()


def test_within_refuses_a_current_configuration_outside_the_sweep() -> None:
    """A kernel at BLOCK_SIZE=128 cut to a sweep of 256 and up started from 256 and called it "current" (the
    kernel as written never ran); now one line."""
    from kernelopt.tunables import discover
    from kernelopt.tuning.launch import space_from_tunables
    from kernelopt.tuning.record import read_sweeps
    from kernelopt.tuning.replay import restrict_to_sweep

    kernel = DATA.parent.parent / "examples" / "elementwise" / "kernel.py"
    sweep = read_sweeps(DATA.parent.parent / "docs" / "gpu-runs" / "2026-12-01-sweeps" / "elementwise.json")[0]
    higher = sweep.model_copy(
        update={
            "space": {**sweep.space, "BLOCK_SIZE": [256, 512, 1024]},
            "naive_config": {**sweep.naive_config, "BLOCK_SIZE": 256},
        }
    )
    with pytest.raises(ValueError, match=r"BLOCK_SIZE: the kernel runs 128, which is not among the sweep's values"):
        restrict_to_sweep(space_from_tunables(discover(kernel)), higher)


def test_a_sweep_cut_short_is_drawn_as_the_best_of_n_timed() -> None:
    from kernelopt.cli.tune import _sweep_best

    runs = DATA.parent.parent / "docs" / "gpu-runs" / "2026-12-01-sweeps"
    best, label = _sweep_best(runs / "matmul.json")  # 2026-12-01: cut at its time limit
    assert best is not None and label.startswith("best of ") and "timed" in label
    assert _sweep_best(runs / "sumsq.json")[1] == "sweep best"


@pytest.mark.timeout(60)
def test_the_loop_s_record_says_what_was_set_aside_and_an_unretimed_pick(tmp_path: Path) -> None:
    """Stage 3 of the loop (backends/launch_tuning.py) says the same as ``tune``: the configurations set aside
    untimed, and a pick the wall time left no re-time for."""
    from kernelopt.backends.launch_tuning import apply_best
    from kernelopt.tuning.folder import FolderTuning, TuneRequest, prepare_folder
    from kernelopt.tuning.session import SessionResult, StopReason, judge_gain

    prepared = prepare_folder(TuneRequest(folder=_copy("breaker2/global_tile", tmp_path), device="cpu"))
    now = Result(config={"TILE": 32}, outcome=Outcome.OK, latency_us=20.0)
    aside = Result.failed({"TILE": 64}, Outcome.INVALID, "cannot be written: a module-level constant")
    result = SessionResult(
        best_config={"TILE": 32}, best_latency_us=20.0, current_config={"TILE": 32}, current_latency_us=20.0,
        results=[now, aside], retimed=[], evaluations=1, served=0, budget=3, space_size=13, wall_s=1.0,
        stop=StopReason.WALL_TIME, strategy="local", screened=1, unretimed="the wall time left cannot fit the re-time",
    )  # fmt: skip
    outcome = apply_best(FolderTuning(prepared, result, judge_gain(result)))
    assert not outcome.changed and outcome.error is not None
    assert "1 set aside untimed" in outcome.error and "cannot fit the re-time" in outcome.error
    assert [c.status.value for c in outcome.candidates] == ["ok", "refused"]
