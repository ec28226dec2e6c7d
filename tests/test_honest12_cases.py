"""honest12: a per-bucket table writes only what was timed, and claims only like against like (docs/faults.md,
"A per-bucket table that wrote what it never timed").

Found on an H100 on 2026-12-06: ``kernelopt tune tests/data/breaker11/xformers_rms --device cuda`` wrote
``if N <= 100: BLOCK_SIZE = 64 / elif N <= 777: BLOCK_SIZE = 256`` beside ``num_stages = 6`` and claimed "+33.3 % on
B=2,T=3,D=100". Its row for 100 columns came from a candidate's first measurement (64, 6 stages, 32 warps: 3.05 us)
set against re-timed ones, and was judged against the current configuration's re-time (4.06 us), where in the
first round the current ran 2.46 us; and what the row writes (the computation's 1 warp from a 64 block) was never
timed. tests/data/honest12/xformers_rms_h100.json is that session's record (every result, the re-timed last).
"""

from __future__ import annotations

import json
import shutil
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from kernelopt.tuning.candidate import COMPUTED, Config, Outcome, Result
from kernelopt.tuning.shapes import ChoiceKind, choose, per_shape, same_round, total

DATA = Path(__file__).parent / "data"
RECORD = json.loads((DATA / "honest12" / "xformers_rms_h100.json").read_text())
SMALL, LARGE, MIDDLE = "B=2,T=3,D=100", "B=1,T=5,D=9000", "B=3,T=1,D=777"
CURRENT = {"BLOCK_SIZE": COMPUTED, "num_stages": 3, "num_warps": COMPUTED}


@pytest.fixture(scope="module")
def xformers_on_an_h100(tmp_path_factory: pytest.TempPathFactory) -> Any:
    """tests/data/breaker11/xformers_rms prepared for tuning on an H100, with what its run told there (the block and
    warps the computation gave at each entry, and the row length ``N``): the CPU cannot run its launch
    (``torch.cuda.device``), so the GPU session's figures stand in, as they were recorded."""
    from kernelopt.tunables import AutotuneEvaluation
    from kernelopt.tunables.model import ShapeSizes
    from kernelopt.tuning.folder import TuneRequest, prepare_folder

    folder = tmp_path_factory.mktemp("honest12") / "xformers_rms"
    shutil.copytree(DATA / "breaker11" / "xformers_rms", folder)
    prepared = prepare_folder(TuneRequest(folder=folder, device="cuda", gpu=RECORD["gpu"]))
    told = []
    for shape in prepared.shapes:
        given = RECORD["computed_by_shape"][shape.label()]
        kw = shape.kwargs
        sizes = {"M": kw["B"] * kw["T"], "N": kw["D"], "MAX_FUSED_SIZE": 16384, **given}
        told.append(ShapeSizes(shape=kw, sizes={"_rms_norm_kernel": sizes}, launch_values={"_rms_norm_kernel": given}))
    return replace(prepared, evaluation=AutotuneEvaluation(shape_sizes=told))


def _result(config: dict, by_shape: dict[str, float], *, retimed: bool) -> Result:
    return Result(config=config, outcome=Outcome.OK, latency_us=total(list(by_shape.values())),
                  latency_us_by_shape=by_shape, retimed=retimed)  # fmt: skip


def _replay(prepared: Any, first: list[Result], again: list[Result], best: dict, kind: ChoiceKind) -> Any:
    """The session ``first`` (round one) and ``again`` (the re-time) replay on ``prepared``, before ``tune_folder``
    judges its choice (of ``kind``): the pick ``best`` re-timed, the current configuration re-timed beside it."""
    from kernelopt.tuning.folder import FolderTuning
    from kernelopt.tuning.session import SessionResult, StopReason, judge_gain

    mine = next(r for r in again if r.config == best)
    now = next(r for r in again if r.config == CURRENT)
    result = SessionResult(
        best_config=best, best_latency_us=mine.latency_us, current_config=CURRENT, current_latency_us=now.latency_us,
        results=first, retimed=again, evaluations=len(first), served=0, budget=120, space_size=600, wall_s=55.3,
        stop=StopReason.STALLED, strategy="local",
    )  # fmt: skip
    shapes = per_shape(first, again, best, CURRENT)
    choice = choose(shapes)
    assert choice.kind is kind, choice
    return FolderTuning(prepared, result, judge_gain(result), per_shape=tuple(shapes), choice=choice)


def _session(prepared: Any, first: list[Result], again: list[Result], best: dict) -> Any:
    """The session replayed as ``tune_folder`` judges a per-bucket table (``shape_choice`` ``table``)."""
    from kernelopt.tuning.folder import judge_choice

    return judge_choice(_replay(prepared, first, again, best, ChoiceKind.TABLE))


def _served(tuning: Any) -> dict[str, Config]:
    """Shape label -> the configuration the table ``tuning`` would write runs there."""
    from kernelopt.tuning.folder import _rows, _serving, _table_plan

    names, size = _table_plan(tuning.prepared, tuning.result.best_config)
    return _serving(tuning, names, size, _rows(tuning, names, size))


@pytest.mark.timeout(60)
def test_the_h100_record_writes_no_table_it_never_timed_and_claims_no_gain(xformers_on_an_h100: Any) -> None:
    """Replayed, the session's table is judged by what it would run: BLOCK_SIZE at its computation with 6 stages and
    the computation's warps (32 warps cannot be written beside a table over N: num_warps reads BLOCK_SIZE), a
    configuration neither round timed. No row, no "+33.3 %", nothing written; the per-shape figures are the
    re-time's, current and chosen alike."""
    results = [Result.model_validate({**r, "outcome": Outcome(r["outcome"])}) for r in RECORD["results"]]
    first = [r for r in results if not r.retimed]
    again = [r for r in results if r.retimed]
    assert (len(first), len(again)) == (32, 6)
    best = {"BLOCK_SIZE": COMPUTED, "num_stages": 6, "num_warps": 32}
    tuning = _session(xformers_on_an_h100, first, again, best)
    j = tuning.judgement
    assert j.table and not j.better and j.gain_pct is None, j
    assert "33.3" not in j.reason and "never timed there" in j.reason, j.reason
    assert "BLOCK_SIZE=computed, num_stages=6, num_warps=computed at" in j.reason, j.reason
    served = _served(tuning)
    untimed = Config.of({"BLOCK_SIZE": COMPUTED, "num_stages": 6, "num_warps": COMPUTED})
    assert set(served.values()) == {untimed}
    assert all(untimed not in same_round(first, again, [c]) for c in served.values())
    # the per-shape figures come from one round: the current's re-time (4.06 us on 100 columns), never its
    # first measurement (2.46) beside another's re-time, nor another's first measurement (3.05) beside its re-time
    small = next(s for s in tuning.per_shape if s.shape == SMALL)
    assert small.current_latency_us == pytest.approx(4.064, abs=1e-3) and small.chosen_latency_us is None


@pytest.mark.timeout(60)
def test_a_row_is_a_configuration_timed_in_the_round_it_is_judged_in(xformers_on_an_h100: Any) -> None:
    """Round one has a 64 block with 6 stages fastest on 100 columns (2.0 us, the current 2.5); the re-time, which
    runs everything 1.6x slower, did not take it, and has 256 fastest there (3.6 us against the current's 4.0). The
    row for 100 columns is 256 (chosen among the re-timed, as the judgement reads them), judged +11.1 % on the
    re-time's figures; a 64 block with 32 warps, faster still in the re-time, is no row: 32 warps cannot be written
    beside a table over N (the computation gives num_warps from the block)."""
    from kernelopt.tuning.folder import shaped_edit

    stages6 = {"num_stages": 6, "num_warps": COMPUTED}
    pick = {"BLOCK_SIZE": COMPUTED, **stages6}
    b256 = {"BLOCK_SIZE": 256, **stages6}
    warps32 = {"BLOCK_SIZE": 64, "num_stages": 6, "num_warps": 32}
    first = [
        _result(CURRENT, {SMALL: 2.5, LARGE: 6.0, MIDDLE: 3.0}, retimed=False),
        _result(pick, {SMALL: 2.6, LARGE: 5.0, MIDDLE: 2.5}, retimed=False),
        _result({"BLOCK_SIZE": 64, **stages6}, {SMALL: 2.0, LARGE: 90.0, MIDDLE: 6.5}, retimed=False),
        _result(b256, {SMALL: 2.3, LARGE: 20.0, MIDDLE: 4.0}, retimed=False),
        _result(warps32, {SMALL: 2.1, LARGE: 91.0, MIDDLE: 6.7}, retimed=False),
    ]
    again = [
        _result(CURRENT, {SMALL: 4.0, LARGE: 9.6, MIDDLE: 4.8}, retimed=True),
        _result(pick, {SMALL: 4.2, LARGE: 8.0, MIDDLE: 4.0}, retimed=True),
        _result(b256, {SMALL: 3.6, LARGE: 32.0, MIDDLE: 6.4}, retimed=True),
        _result(warps32, {SMALL: 3.4, LARGE: 145.0, MIDDLE: 10.7}, retimed=True),
    ]
    tuning = _session(xformers_on_an_h100, first, again, pick)
    served = _served(tuning)
    assert served == {SMALL: Config.of(b256), LARGE: Config.of(pick), MIDDLE: Config.of(pick)}
    pool = same_round(first, again, served.values())
    assert all(c in pool for c in served.values()) and pool[Config.of(b256)].retimed  # one round: the re-time
    j = tuning.judgement
    assert j.better and j.table and j.gain_pct == pytest.approx(20.0), j  # 9.6 / 8.0 on the largest
    assert "(least +11.1 % on B=2,T=3,D=100)" in j.reason, j.reason  # 4.0 / 3.6, not 2.5 / 2.0 nor 4.0 / 2.0
    edit, note = shaped_edit(tuning)
    assert edit is not None and edit.new_source is not None, note
    text = edit.new_source
    assert "if N <= 100:  # kernelopt: tuned\n        BLOCK_SIZE = 256\n" in text, edit.diff
    assert "BLOCK_SIZE = 64" not in text and "num_warps = 32" not in text
    assert "num_warps = min(max(BLOCK_SIZE // 256, 1), 8)" in text  # the warps the 256 row ran: computed


@pytest.mark.timeout(180)
def test_a_re_time_slower_than_round_one_is_compared_only_with_itself_in_the_interpreter(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """``tune`` on the row normalize in Triton's interpreter, its re-time made 3x slower than its first round (the
    H100's re-time ran xformers' RMS norm 1.6x slower): every figure the session compares (each shape's current
    and chosen latency, the pick's and the current's, the gain) is the re-time's, never a first measurement set
    against a re-timed one, whatever the session chose and wrote."""
    from kernelopt.cli.app import main
    from kernelopt.tuning.shape_evaluator import ShapesEvaluator

    real = ShapesEvaluator.retime

    def slower(self: ShapesEvaluator, picks: Any) -> list[Result]:
        def times3(r: Result) -> Result:
            by = {k: v * 3 for k, v in r.latency_us_by_shape.items()}
            late = r.latency_us * 3 if r.latency_us is not None else None
            return r.model_copy(update={"latency_us": late, "latency_us_by_shape": by,
                                        "samples_us": [s * 3 for s in r.samples_us]})  # fmt: skip

        return [times3(r) for r in real(self, picks)]

    monkeypatch.setattr(ShapesEvaluator, "retime", slower)
    folder = tmp_path / "rownorm"
    shutil.copytree(DATA / "tuning" / "rownorm", folder)
    argv = ["tune", str(folder), "--device", "cpu", "--budget", "2", "--repetitions", "3", "--json"]
    assert main([*argv, "--out", str(tmp_path / "logs")]) == 0
    doc = json.loads(capsys.readouterr().out)
    lines = [json.loads(line) for line in Path(doc["record"]).read_text().splitlines()]
    results = [Result.model_validate(x["result"]) for x in lines if x["kind"] == "result"]
    again = {Config.of(r.config): r for r in results if r.retimed and r.outcome is Outcome.OK}
    firsts = {Config.of(r.config): r for r in results if not r.retimed and r.outcome is Outcome.OK}
    assert len(again) >= 2 and doc["per_shape"], doc

    def shapes_of(ran: dict[Config, Result]) -> bool:  # every per-shape figure from the configurations of ``ran``
        current = ran.get(Config.of(doc["current_config"]))
        return current is not None and all(
            shape["current_latency_us"] == current.latency_us_by_shape[shape["shape"]]
            and shape["best_latency_us"] == min(r.latency_us_by_shape[shape["shape"]] for r in ran.values())
            and shape["chosen_latency_us"] in {None, *(r.latency_us_by_shape[shape["shape"]] for r in ran.values())}
            for shape in doc["per_shape"]
        )

    # the re-timed configurations as the re-time ran them, or (a short re-time slower than the first round:
    # session._load_only_adds) as the first round ran them, totals and shapes alike (breaker30's q102)
    read = [ran for ran in (again, {c: firsts[c] for c in again if c in firsts}) if shapes_of(ran)]
    assert read, doc["per_shape"]
    table = doc["shape_choice"]["kind"] == "table"
    if doc["gain_pct"] is not None and table:  # the table's gain: its best shape, both figures the re-time's
        gains = [
            s["current_latency_us"] / s["chosen_latency_us"] - 1 for s in doc["per_shape"] if s["chosen_latency_us"]
        ]
        assert doc["gain_pct"] == pytest.approx(max(gains) * 100)
    elif doc["gain_pct"] is not None:
        assert doc["gain_pct"] == pytest.approx((doc["current_latency_us"] / doc["best_latency_us"] - 1) * 100)
        # the pick's and the current's latency from one round (a short re-time gives way to a lower first
        # measurement: session._load_only_adds, both alike here, where the re-time is slower for each)
        pair = (doc["best_latency_us"], doc["current_latency_us"])
        picked, now = Config.of(doc["best_config"]), Config.of(doc["current_config"])
        same = [ran for ran in read if picked in ran and now in ran]  # the round the shapes were read in
        assert any(pair == pytest.approx((ran[picked].latency_us, ran[now].latency_us)) for ran in same), pair


def _one(prepared: Any, first: list[Result], again: list[Result], best: dict) -> Any:
    """The session replayed as ``tune_folder`` judges one configuration (``shape_choice`` ``one``): before, after."""
    from kernelopt.tuning.folder import judge_written

    tuning = _replay(prepared, first, again, best, ChoiceKind.ONE)
    return tuning, judge_written(tuning)


@pytest.mark.timeout(60)
def test_one_configuration_is_judged_by_what_its_edit_runs_and_next_picks_by_their_own_round(
    xformers_on_an_h100: Any,
) -> None:
    """A one-configuration pick of 32 warps with 5 stages is written as 5 stages and the computation's warps (num_warps
    reads BLOCK_SIZE, not N): never timed, it claims nothing; timed, it is judged by its own re-time. And the
    next picks the net falls back on are judged in their own round: a candidate 8.7 % slower than the current in the
    first round (12.5 against 11.5 us) is no "41 % faster" next pick against the current's re-time (17.6)."""
    from kernelopt.tuning.folder import _next_picks

    pick = {"BLOCK_SIZE": COMPUTED, "num_stages": 5, "num_warps": 32}
    runs = {"BLOCK_SIZE": COMPUTED, "num_stages": 5, "num_warps": COMPUTED}
    other = {"BLOCK_SIZE": 2048, "num_stages": 5, "num_warps": COMPUTED}
    first = [
        _result(CURRENT, {SMALL: 2.5, LARGE: 6.0, MIDDLE: 3.0}, retimed=False),
        _result(pick, {SMALL: 2.0, LARGE: 5.0, MIDDLE: 2.5}, retimed=False),
        _result(other, {SMALL: 2.8, LARGE: 6.5, MIDDLE: 3.2}, retimed=False),
    ]
    again = [
        _result(CURRENT, {SMALL: 4.0, LARGE: 9.0, MIDDLE: 4.6}, retimed=True),
        _result(pick, {SMALL: 3.0, LARGE: 7.0, MIDDLE: 3.5}, retimed=True),
    ]
    before, tuning = _one(xformers_on_an_h100, first, again, pick)
    assert before.judgement.better  # the pick's own timing: 13.5 against 17.6 us
    j = tuning.judgement
    assert not j.better and j.gain_pct is None, j
    assert j.reason.startswith(
        "BLOCK_SIZE=computed, num_stages=5, num_warps=32 is written as BLOCK_SIZE=computed, num_stages=5, "
        "num_warps=computed (num_warps kept at its computation: it reads BLOCK_SIZE, not N), a configuration never "
        "timed"
    ), j.reason
    assert _next_picks(before) == []  # other: 12.5 us against the current's first 11.5, not its re-time
    timed = [*again, _result(runs, {SMALL: 3.2, LARGE: 7.8, MIDDLE: 3.7}, retimed=True)]
    _, tuning = _one(xformers_on_an_h100, first, timed, pick)
    j = tuning.judgement
    assert j.better and tuning.result.best_config == runs, j
    assert j.gain_pct == pytest.approx((17.6 / 14.7 - 1) * 100), j  # its re-time against the current's


@pytest.mark.timeout(60)
def test_a_keyed_list_not_re_timed_whole_is_judged_in_the_first_round(tmp_path: Path) -> None:
    """A keyed list of [1024, 8192] whose re-time (2x slower) took 2048 and 1024 but not 8192: the autotuner's pick at
    each key is known in the first round only, so the table is judged there too, each shape's own best among the
    first measurements (2048's 900 us against the list's 1000 on n=1000: +11.1 %), never a re-time (1800) against
    a first measurement (1000), which read as 44 % slower."""
    from kernelopt.tuning.folder import judge_against_list
    from tests.test_newuser8_cases import _keyed_list, _replayed, _timed

    prepared, listed = _keyed_list(tmp_path)
    small, large = labels = tuple(s.label() for s in prepared.shapes)
    first = [_timed(labels, 1024, 1000.0, 20000.0), _timed(labels, 8192, 1500.0, 5000.0),
             _timed(labels, 2048, 900.0, 10000.0)]  # fmt: skip
    first = [r.model_copy(update={"retimed": False}) for r in first]
    again = [_timed(labels, 2048, 1800.0, 20000.0), _timed(labels, 1024, 2000.0, 40000.0)]
    before = _replayed(prepared, first, {"BLOCK": 2048}, {"BLOCK": 1024}, 42000.0)
    retimed = before.result.model_copy(update={"retimed": again})
    before = replace(before, result=retimed, per_shape=tuple(per_shape(first, again, {"BLOCK": 2048}, {"BLOCK": 1024})))
    assert before.per_shape[0].best_latency_us == 1800.0  # as tune_folder has them: the re-time's
    judged = judge_against_list(before, listed)
    j = judged.judgement
    assert j.better and j.gain_pct == pytest.approx((1000.0 / 900.0 - 1) * 100), j
    figures = {s.shape: (s.best_latency_us, s.current_latency_us) for s in judged.per_shape}
    assert figures == {small: (900.0, 1000.0), large: (5000.0, 5000.0)}


@pytest.mark.timeout(60)
def test_a_literal_the_computation_gives_at_every_shape_timed_is_judged_by_its_own_timing(tmp_path: Path) -> None:
    """breaker10's two sizes (``BLOCK_M`` from M, tabled; ``BLOCK_N = next_power_of_2(N)`` kept at its computation) at
    two entries of 100 columns: a pick of ``BLOCK_N=128``, which the computation gives at both, is written as the
    computation and runs the pick itself wherever the session timed it: judged by the pick's timing. A pick of
    ``BLOCK_N=256`` is written as the computation's 128, a configuration never timed: not better."""
    from kernelopt.tuning.folder import FolderTuning, TuneRequest, judge_written, prepare_folder
    from kernelopt.tuning.session import SessionResult, StopReason, judge_gain
    from tests.test_breaker10_cases import TWO_SIZES, TWO_SIZES_REFERENCE

    folder = tmp_path / "two_sizes"
    folder.mkdir()
    (folder / "kernel.py").write_text(TWO_SIZES)
    entries = '[{"M": 20, "N": 100}, {"M": 100, "N": 100}]'
    (folder / "reference.py").write_text(
        TWO_SIZES_REFERENCE.replace('[{"M": 20, "N": 100}, {"M": 100, "N": 60}]', entries)
    )
    prepared = prepare_folder(TuneRequest(folder=folder, device="cpu"))
    labels = [s.label() for s in prepared.shapes]
    current = {"BLOCK_M": COMPUTED, "BLOCK_N": COMPUTED}

    def judged(pick: dict) -> Any:
        won = _result(pick, dict.fromkeys(labels, 1.0), retimed=True)
        now = _result(current, dict.fromkeys(labels, 2.0), retimed=True)
        result = SessionResult(
            best_config=pick, best_latency_us=won.latency_us, current_config=current, current_latency_us=now.latency_us,
            results=[won, now], retimed=[won, now], evaluations=2, served=0, budget=2, space_size=10, wall_s=1.0,
            stop=StopReason.CANDIDATES, strategy="local",
        )  # fmt: skip
        shapes = per_shape([won, now], [won, now], pick, current)
        tuning = FolderTuning(prepared, result, judge_gain(result), per_shape=tuple(shapes), choice=choose(shapes))
        return judge_written(tuning).judgement

    assert judged({"BLOCK_M": 16, "BLOCK_N": 128}).better
    j = judged({"BLOCK_M": 16, "BLOCK_N": 256})
    assert (
        not j.better and "BLOCK_N kept at its computation: it reads N, not M), a configuration never timed" in j.reason
    )
