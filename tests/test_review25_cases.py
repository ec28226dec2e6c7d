"""review25's round (2026-12-07): the session's last landings reread and tried as a user would."""

from __future__ import annotations

from pathlib import Path

from kernelopt.tuning.candidate import Outcome, Result
from kernelopt.tuning.new_session import new_session_line
from kernelopt.tuning.record import RecordHeader, SessionRecord, latest_beside
from kernelopt.tuning.replay import space_from_sweep

from .test_tuning_session import sweep


def test_r50_another_kernels_record_in_a_shared_out_is_not_the_last_session(tmp_path: Path) -> None:
    """Two kernel folders tuned into one ``--out``: the first session of the second kernel found the first kernel's
    record beside it and said "a new session: the last one's record (...) was made for other kernel.py's code, so
    none of it is served" of a kernel it never tuned. The last record is its own folder's only; one written before
    the folder was kept is read as it may be."""
    space = space_from_sweep(sweep("sumsq"))
    out = tmp_path / "shared"
    parts = {"kernel": "a-code", "reference": "same"}
    theirs = SessionRecord.open(
        out / "aaa" / "record.jsonl", RecordHeader.for_space(space, key_parts=parts, folder="/k/a")
    )
    theirs.append(Result(config=space.default().as_dict(), outcome=Outcome.OK, latency_us=2.0))
    mine = out / "bbb" / "record.jsonl"
    ours = {"kernel": "b-code", "reference": "same"}
    assert latest_beside(mine, "/k/b") is None
    assert new_session_line(latest_beside(mine, "/k/b"), ours) is None

    # the same folder's earlier session (a real change of its kernel.py) is still named
    again = latest_beside(out / "ccc" / "record.jsonl", "/k/a")
    assert again is not None and again.path == theirs.path
    assert "does not match this run in kernel.py's code" in (new_session_line(again, ours) or "")

    # a record from before the folder was kept: it may be this kernel's, as before
    older = SessionRecord.open(out / "ddd" / "record.jsonl", RecordHeader.for_space(space, key_parts=parts))
    older.append(Result(config=space.default().as_dict(), outcome=Outcome.OK, latency_us=3.0))
    found = latest_beside(mine, "/k/b")
    assert found is not None and found.path == older.path
