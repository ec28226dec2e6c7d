"""late37: the ratio ``tune`` states is the written kernel's (docs/faults.md, "Honest ratios for guarded writes"): where
a guard or a table row's test does not hold at a ``SHAPES`` entry, the written kernel runs the original there, and the
figure there is the original's; a write that runs the pick at no entry timed is not written."""

from __future__ import annotations

import shutil
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from kernelopt.tuning.candidate import Outcome, Result
from tests.test_wrongkernel17_cases import VARIANTS

CURRENT = {"BLOCK": 1024}
_PREPARED: dict[Path, Any] = {}


def _session(folder: Path, timed: dict[int, dict[str, float]], shapes: list[dict[str, int]] | None = None) -> Any:
    """``folder`` (a copy of a variant, its ``SHAPES`` replaced by ``shapes`` where given) replayed through the
    judgement and the edit ``tune`` makes (:func:`_judged`): the tuning :func:`judge_as_written` is given and what it
    makes of it."""
    from kernelopt.tuning.folder import judge_as_written

    if shapes is not None:
        ref = folder / "reference.py"
        text = ref.read_text()
        line = next(x for x in text.splitlines() if x.startswith("SHAPES = "))
        ref.write_text(text.replace(line, f"SHAPES = {shapes!r}"))
    tuning, (edit, note) = _judged(folder, timed)
    assert edit is not None, note
    before = replace(tuning, edit=edit, edit_made=True, edit_note=note)
    return before, judge_as_written(before)


def _judged(folder: Path, timed: dict[int, dict[str, float]]) -> Any:
    """``folder`` replayed up to the edit ``tune`` makes, its candidates ``BLOCK`` -> latency at each entry (the
    current 1024 among them), each re-timed in one round: the tuning and :func:`shaped_edit`'s edit and note."""
    from kernelopt.tuning.folder import TuneRequest, judge_session, prepare_folder, shaped_edit
    from kernelopt.tuning.session import SessionResult, StopReason
    from kernelopt.tuning.shapes import total

    # one preparation of a folder for its several sessions (each runs kernel.py in a worker)
    if folder not in _PREPARED:
        _PREPARED[folder] = prepare_folder(TuneRequest(folder=folder, device="cpu"))
    prepared = _PREPARED[folder]
    labels = [s.label() for s in prepared.shapes]
    results = [
        Result(config={"BLOCK": b}, outcome=Outcome.OK, latency_us=total(list(us.values())), latency_us_by_shape=us,
               retimed=True)
        for b, us in timed.items()
    ]  # fmt: skip
    assert all(set(r.latency_us_by_shape) == set(labels) for r in results), labels
    best = min(results, key=lambda r: r.latency_us or 0.0)
    now = next(r for r in results if r.config == CURRENT)
    result = SessionResult(
        best_config=best.config, best_latency_us=best.latency_us, current_config=CURRENT,
        current_latency_us=now.latency_us, results=results, retimed=results, evaluations=len(results), served=0,
        budget=len(results), space_size=len(results), wall_s=1.0, stop=StopReason.CANDIDATES, strategy="exhaustive",
    )  # fmt: skip
    tuning = judge_session(prepared, result)
    assert tuning.judgement.better, tuning.judgement
    return tuning, shaped_edit(tuning)


AT_3000, AT_5000 = "n_rows=4,n_cols=3000", "n_rows=2,n_cols=5000"


@pytest.mark.parametrize("folder", ["pad_rows_helper", "pad_rows_view", "pad_rows_cached"])
def test_v119_v120_v128_a_guard_or_rows_holding_at_no_entry_are_not_written(folder: str, tmp_path: Path) -> None:
    """v119 (pad_rows_helper: ``tune`` said "2.01x faster than the current BLOCK=1024 ... written to kernel.py" of
    ``BLOCK = 8192`` under ``n_cols % 8192 == 0``, which holds at neither entry, 3000 and 5000) and v120, v128 (tables
    whose rows ``n_cols <= 3000 and n_cols % 4096 == 0`` hold at no size): a guard that runs the original at every
    entry timed is not written, in one line; a table's row that holds at no size of its bucket is not written, and a
    table left with none is not; a row that holds in its bucket (``n_cols <= 5000 and n_cols % 2048 == 0``, at 4096)
    but at no entry leaves the original's figures there, and the write that runs the pick nowhere is not written."""
    shutil.copytree(VARIANTS / folder, tmp_path / folder)
    both = {AT_3000: 2.0, AT_5000: 2.0}
    # one pick best at both entries (v119's session)
    before, after = _session(tmp_path / folder, {1024: both, 8192: dict.fromkeys(both, 1.0)})
    assert "    if n_cols % 8192 == 0:  # kernelopt: tuned\n" in before.edit.new_source, before.edit_note
    assert after.edit is None and not after.judgement.better, after.judgement
    assert after.edit_note == (  # the guard named, and what to do (fresh24 f23)
        f"the guard (n_cols % 8192 == 0) holds at none of the sizes timed ({AT_3000}, {AT_5000}): not written; add a "
        "SHAPES entry where it holds to have it timed there"
    )
    # v120's and v128's tables: 4096 best at 3000, 8192 at 5000; both rows dead
    dead = {1024: both, 4096: {AT_3000: 1.0, AT_5000: 3.0}, 8192: {AT_3000: 3.0, AT_5000: 1.0}}
    tuning, (edit, note) = _judged(tmp_path / folder, dead)
    assert tuning.judgement.table and edit is None, note
    assert note == (
        "the table's rows hold at no size of their buckets (n_cols <= 3000 and n_cols % 4096 == 0; n_cols <= 5000 and "
        "n_cols % 8192 == 0): not written"
    )
    # 2048 best at 5000: its row holds at 4096 columns, in its bucket, and at no entry
    before, after = _session(
        tmp_path / folder, {**dead, 8192: dict.fromkeys(both, 3.0), 2048: {AT_3000: 3.0, AT_5000: 1.0}}
    )
    written = before.edit.new_source
    assert (
        "n_cols % 4096" not in written
        and "    if n_cols <= 5000 and n_cols % 2048 == 0:  # kernelopt: tuned\n" in written
    )
    assert (
        "the rows n_cols <= 3000 and n_cols % 4096 == 0 hold at no size of their buckets: not written"
        in before.edit_note
    )
    assert after.edit is None and " holds at none of the sizes timed" in after.edit_note, after.edit_note


def test_a_guard_holding_at_one_of_two_entries_states_that_entry_s_pick_and_the_other_s_original(
    tmp_path: Path,
) -> None:
    """v119 with entries of 4096 and 3000 columns: ``BLOCK = 4096`` under ``n_cols % 4096 == 0`` runs the pick at 4096
    alone. Timed 1.0 us at both against the original's 2.0, the session's "2.00x" was the pick's; the written kernel's
    figure is 1.0 + 2.0 against 4.0 (1.33x), 3000's the original's, and it is still written."""
    shutil.copytree(VARIANTS / "pad_rows_helper", tmp_path / "v")
    shapes = [{"n_rows": 4, "n_cols": 4096}, {"n_rows": 2, "n_cols": 3000}]
    labels = ["n_rows=4,n_cols=4096", "n_rows=2,n_cols=3000"]
    timed = {1024: dict.fromkeys(labels, 2.0), 4096: dict.fromkeys(labels, 1.0)}
    before, after = _session(tmp_path / "v", timed, shapes)
    assert "    if n_cols % 4096 == 0:  # kernelopt: tuned\n        BLOCK = 4096\n" in before.edit.new_source
    assert before.result.speedup == pytest.approx(2.0)
    assert after.edit is before.edit and after.judgement.better, after.judgement
    assert after.result.speedup == pytest.approx(4.0 / 3.0)
    assert after.judgement.gain_pct == pytest.approx(100 / 3)
    assert after.judgement.reason.startswith(
        "as written it runs BLOCK=4096 at n_rows=4,n_cols=4096; the original at n_rows=2,n_cols=3000: "
    ), after.judgement.reason
    chosen = {s.shape: s.chosen_latency_us for s in after.per_shape}
    assert chosen == {labels[0]: 1.0, labels[1]: 2.0}
