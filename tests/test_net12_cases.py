"""net12: the net's leftovers (docs/faults.md, "net12"; :mod:`kernelopt.tuning.net`, ``folder._checked_edit``).

An edit that fails its own check on the ``SHAPES`` entries gives way to the next-best pick as a net failure does;
the first size's cost is estimated from the entries' own check seconds before it starts; the size below the
smallest entry also moves one dimension at a time; integer outputs are fenced with a value the reference does not
produce. The real-engine case runs grid_named_copy (v23, ``BLOCK=128`` wrong above 128 elements, its rule switched
off) in the session's own workers under Triton's interpreter.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from kernelopt.tunables.guard import Guarded

VARIANTS = Path(__file__).parent / "data" / "variants"


@pytest.mark.timeout(120)
def test_an_edit_failing_its_check_on_the_entries_gives_way_to_the_next_best_as_a_net_failure_does(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """On an H100 (2026-12-06) a pick whose written text failed its check on a ``SHAPES`` entry wrote nothing ("the
    edit to write failed its check (wrong_result: on the SHAPES entry n=524288 ...)") where a net failure gives way
    to the next-best: a table or a guard writes text the session did not time. Here v23's ``BLOCK=128`` (its rule
    off) is the session's pick over entries of 100 and 200 elements and fails the check at 200; ``BLOCK=512`` (its
    programs overlap: correct everywhere) passes the entries and the net and is written instead, the line naming the
    entry; with no next-best nothing is written, as before."""
    from kernelopt.tuning import folder as tf
    from tests.test_tuning_net import _evaluator, _session

    monkeypatch.setenv("TRITON_INTERPRET", "1")
    monkeypatch.setattr(tf, "guard_edit", lambda old, new: Guarded(new_source=new, note=None))
    folder = Path(shutil.copytree(VARIANTS / "grid_named_copy", tmp_path / "grid_named_copy"))
    reference = folder / "reference.py"
    reference.write_text(reference.read_text().replace('{"n": 128}', '{"n": 200}'))
    prepared = tf.prepare_folder(tf.TuneRequest(folder=folder, device="cpu"))
    with _evaluator(prepared) as evaluator:
        picks = [({"BLOCK": 128}, 10.0), ({"BLOCK": 512}, 11.0)]
        done = tf._checked_edit(_session(prepared, picks, ({"BLOCK": 256}, 20.0)), evaluator)
        alone = tf._checked_edit(_session(prepared, picks[:1], ({"BLOCK": 256}, 20.0)), evaluator)
    assert done.edit is not None and "scale_kernel[grid](x, y, n, BLOCK=512)" in done.edit.new_source
    assert done.result.best_config == {"BLOCK": 512} and done.judgement.better
    assert done.edit_note is not None and done.edit_note.startswith(
        "the edit to write failed its check (wrong_result: on the SHAPES entry n=200"
    ), done.edit_note
    assert "BLOCK=128 not written; the next-best, BLOCK=512, passes: written instead" in done.edit_note
    assert done.net is not None and done.net.failed is None and "correct at n=257" in done.net.line()
    assert alone.edit is None and not alone.judgement.better
    assert alone.edit_note is not None and alone.edit_note.startswith("the edit to write failed its check ("), (
        alone.edit_note
    )
    assert alone.edit_note.endswith(": nothing written") and "n=200" in alone.judgement.reason
