"""late43: one configuration, one figure (docs/faults.md, "One figure (late43, 2026-12-07)").

fresh25's two ``tune --device cpu --budget 6`` sessions, their records kept in tests/data/late43 as recorded, replayed
through the session: each candidate's first measurement as it was timed, then the re-time as it was. The progress
lines said "best 5833 us ... (BLOCK=2048)" where the table gave 6816 us, and "best 31550 us ... (GROUP=8)" where the
verdict said "the current configuration is the best found (70 ms ...)": each figure now names its round."""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path

import pytest

from kernelopt.tuning.budget import Budget, ManualClock
from kernelopt.tuning.candidate import Config, Result
from kernelopt.tuning.space import Space, knob_of

DATA = Path(__file__).parent / "data" / "late43"


class _Recorded:
    """A record's figures: each configuration's first measurement, then its re-time (both as recorded)."""

    def __init__(self, record: Path) -> None:
        lines = [Result.model_validate(json.loads(x)["result"]) for x in record.read_text().splitlines()[1:]]
        self.order = [Config.of(r.config) for r in lines if not r.retimed]
        self.first = {Config.of(r.config): r for r in lines if not r.retimed}
        self.again = {Config.of(r.config): r for r in lines if r.retimed}

    def evaluate(self, batch: Sequence[Config]) -> list[Result]:
        return [self.first[c] for c in batch]

    def retime(self, batch: Sequence[Config]) -> list[Result]:
        return [self.again[c] for c in batch]

    def close(self) -> None:
        pass


def _replayed(name: str):  # type: ignore[no-untyped-def]
    """The record ``name`` replayed: its current first (the record's first line), then the others in the order timed;
    the progress lines said and the session's result."""
    from kernelopt.tuning.session import tune

    ev = _Recorded(DATA / f"{name}_record.jsonl")
    current, *rest = ev.order
    knobs = tuple(knob_of(k, sorted({c[k] for c in ev.order}), current[k]) for k in current)
    said: list[str] = []
    res = tune(Space(knobs), ev, budget=Budget(len(ev.order), ManualClock()), seeds=rest,
               on_progress=lambda p: said.append(p.line()))  # fmt: skip
    assert [Config.of(r.config) for r in res.results] == ev.order  # the session as it ran
    return said, res


@pytest.mark.parametrize("name", ["dict_dtype", "gemm_nomask"])
def test_l120_each_figure_names_its_round_the_progress_the_first_and_the_end_the_re_time(name: str) -> None:
    """dict_dtype: BLOCK=2048 first at 5833 us, re-timed 6816 us and still the pick; the progress line says its
    figure is the first round's, the end names the re-time beside it. gemm_nomask: GROUP=8 first at 31550 us, its
    re-time 73380 us behind the current GROUP=4's 70000 us: the verdict that keeps the current names both re-times.
    Before, the progress said "best 5833 us" and "best 31550 us" and nothing named the re-time."""
    from kernelopt.cli.tune import verdict_line
    from kernelopt.tuning.session import judge_gain

    said, res = _replayed(name)
    last = said[-1]
    verdict = verdict_line(res, judge_gain(res), kernel_py="kernel.py", written=False, dry_run=False)
    if name == "dict_dtype":
        assert last == "6 of 6 candidates, first-round best 5833 us for its 2 shapes together (BLOCK=2048)"
        assert res.best_config == {"BLOCK": 2048} and res.best_latency_us == pytest.approx(6816, abs=1)
        assert (
            res.retime_note()
            == "re-timed (each the sum of its 2 shapes): BLOCK=2048 6816 us, the first round's 5833 us"
        )
        assert not res.reordered() and "5833" not in verdict  # the pick stayed: the line reads the re-time alone
        assert verdict.startswith("best BLOCK=2048: 6.816 ms for its 2 shapes together, 5.27x faster")
    else:
        assert last == (
            "6 of 6 candidates, first-round best 31550 us for its 2 shapes together (BK=32, BM=32, BN=32, GROUP=8)"
        )
        assert res.best_config == res.current_config and res.reordered()
        note = (
            "re-timed (each the sum of its 2 shapes): GROUP=4 70000 us, the first round's 69450 us; "
            "GROUP=8 73380 us, the first round's fastest at 31550 us"
        )
        assert res.retime_note() == note
        assert verdict == (
            f"the current configuration is the best found (70 ms for its 2 shapes together; {note}); "
            "kernel.py left unchanged"
        )


def test_l120_no_note_where_the_progress_best_is_the_pick_at_its_figure() -> None:
    """The pick the first round's fastest at the same figure once re-timed (to four digits): nothing to name; a pick
    whose figure is its first round's (not re-timed) neither."""
    from kernelopt.tuning.figures import retime_note

    ev = _Recorded(DATA / "dict_dtype_record.jsonl")
    first = list(ev.first.values())
    best = Config.of({"BLOCK": 2048})
    same = ev.first[best].model_copy(update={"retimed": True})
    assert retime_note(first, [same], best, same.latency_us) is None
    assert retime_note(first, [], best, ev.first[best].latency_us) is None


def test_l121_batch_s_default_output_is_under_tmpdir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """fresh25: ``batch`` wrote its table to /tmp/kernelopt_batch_batch_<hash>/ with TMPDIR set elsewhere; its default
    folder is now in the temporary folder TMPDIR names (/tmp where unset, :func:`tempfile.gettempdir`'s rule)."""
    import tempfile

    from kernelopt.cli.batch import _out_dir

    mine = tmp_path / "mine"
    mine.mkdir()
    monkeypatch.setenv("TMPDIR", str(mine))
    monkeypatch.setattr(tempfile, "tempdir", None)  # read again, as a process started with this TMPDIR reads it
    out = _out_dir(tmp_path / "batch", None)
    assert out.parent == mine.resolve() and out.name.startswith("kernelopt_batch_batch_"), out
