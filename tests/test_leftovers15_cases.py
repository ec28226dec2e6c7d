"""leftovers15: the fourteenth session's behaviour leftovers (docs/faults.md, "leftovers15")."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

DATA = Path(__file__).parent / "data"


@pytest.mark.timeout(120)
def test_a_table_written_after_a_refusal_that_fails_its_check_gives_way_again(
    monkeypatch: pytest.MonkeyPatch, tmp_path_factory: pytest.TempPathFactory
) -> None:
    """s5 chained: the row normalize's table ``100: 256, 256: 512`` (1024 timed third at both entries). A guard refuses
    any text holding the row for 100 (stood in by a wrapper, as seen14's test); its row gives way to its bucket's
    next-best, 512, which merges into one row ``n_cols <= 256: 512``, written and failing its check on 100 columns
    (as a row fails only on a GPU). That row gives way in turn at both entries it serves, to 1024: checked for real
    on the entries and by the net in the interpreter, and written. Before, the second failure dropped the table."""
    from kernelopt.tunables.guard import Guarded
    from kernelopt.tuning import folder as tf
    from tests.test_table14_cases import ROW_100, ROW_256, _checked_failing, _table_session
    from tests.test_tuning_shapes import _correct_at, _written_copy

    folder = tmp_path_factory.mktemp("leftovers15") / "rownorm"
    shutil.copytree(DATA / "tuning" / "rownorm", folder, ignore=shutil.ignore_patterns(".kernelopt", "__pycache__"))
    monkeypatch.setenv("TRITON_INTERPRET", "1")
    prepared = tf.prepare_folder(tf.TuneRequest(folder=folder, device="cpu"))
    tuning = _table_session(prepared, {256: (5.0, 100.0), 512: (8.0, 60.0), 1024: (9.0, 70.0)})
    guard_edit, refused = tf.guard_edit, []

    def refusing(old: str, new: str, **kw: object) -> Guarded:
        if ROW_100 in new:
            refused.append(new)
            return Guarded(None, "block=256 must divide n_cols (a guard cannot be written here)")
        return guard_edit(old, new, **kw)  # type: ignore[arg-type]

    monkeypatch.setattr(tf, "guard_edit", refusing)
    done, checked = _checked_failing(prepared, tuning, [ROW_256], monkeypatch)
    assert refused and done.edit is not None, done.edit_note
    text = done.edit.new_source
    assert "if n_cols <= 256:  # kernelopt: tuned\n            block = 1024\n" in text, text
    assert ROW_100 not in text and ROW_256 not in text, text
    # the refused text ran nothing; the 512 table was checked (and failed), then the 1024 table (and passed)
    assert len(checked) == 2 and ROW_256 in checked[0] and checked[1] == text, checked
    note = done.edit_note or ""
    assert note.startswith(
        "block=256 must divide n_cols (a guard cannot be written here): the row n_cols <= 100: BLOCK=256 not written; "
        "the edit to write failed its check (wrong_result: on the SHAPES entry n_rows=8,n_cols=100: wrong_result: 3 "
        "of 800 elements differ): the row n_cols <= 256: BLOCK=512 not written; its bucket's next-best passes: BLOCK "
        "tuned in a table over n_cols up to 256"
    ), note
    # judged by what it now runs: 9 + 70 us against the computation's 10 + 100
    assert done.judgement.better and "+11.1 % on n_rows=8,n_cols=100" in done.judgement.reason, done.judgement
    assert done.net is not None and done.net.failed is None, done.net
    assert _correct_at(_written_copy(text, tmp_path_factory.mktemp("written"))) == {
        "100": True, "256": True, "512": True, "1000": True
    }  # fmt: skip
