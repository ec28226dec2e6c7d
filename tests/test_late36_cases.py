"""A saved tuning session replayed across kernelopt versions (late36, 2026-12-07): a session record keeps the version
of the check rules its verdicts were made by (:data:`kernelopt.tuning.record.CHECK_RULES`); a record made under other
rules serves nothing, is kept beside the new one, and the tune says so in one line.

The records are real files written by a session under one rules version and read by a session under another (the
constant monkeypatched, as a newer or an older kernelopt would hold it); the hardware is a recorded sweep (the session
tests' replay) or the loop folder in Triton's interpreter (the CLI's)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from kernelopt.cli.app import main
from kernelopt.tuning import record as record_module
from kernelopt.tuning.budget import ManualClock
from kernelopt.tuning.candidate import Outcome
from kernelopt.tuning.folder import TuneRequest, prepare_folder
from kernelopt.tuning.new_session import new_session_line
from kernelopt.tuning.record import RecordHeader, SessionRecord, latest_beside
from kernelopt.tuning.replay import space_from_sweep
from kernelopt.tuning.session import StopReason

from .test_tuning_session import Counting, session, sweep

DATA = Path(__file__).parent / "data"


class OldRules(Counting):
    """The replay as an older kernelopt's checks judged it: ``refused`` configurations a wrong result (a rule since
    mended passed or refused them otherwise)."""

    def __init__(self, *args: object, refused: set[str]) -> None:
        super().__init__(*args)  # type: ignore[arg-type]
        self.refused = refused

    def evaluate(self, batch):  # type: ignore[no-untyped-def]
        return [
            r.model_copy(update={"outcome": Outcome.WRONG_RESULT, "latency_us": None, "reason": "the old rule"})
            if r.key in self.refused
            else r
            for r in super().evaluate(batch)
        ]


def test_l50_a_record_of_older_check_rules_serves_no_verdict_and_is_kept_beside(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A record written under rules 0 (a refusal made by the old rule in it) read under rules 1: nothing served, every
    candidate checked again (the refused one passes now), the old file kept byte for byte beside the new one; the new
    record resumes as before under its own rules; a record of newer rules (a downgrade) is set aside alike, under a
    name no file holds."""
    s = sweep("layernorm")
    space = space_from_sweep(s)
    path = tmp_path / "record.jsonl"
    monkeypatch.setattr(record_module, "CHECK_RULES", 0)
    old_header = RecordHeader.for_space(space, device="cuda", versions={"kernelopt": "0.1.0"})
    assert old_header.check_rules == 0
    clock = ManualClock()
    refused = {space.default().key()}
    old = session(space, OldRules(s, clock, refused=refused), clock, SessionRecord.open(path, old_header))
    assert old.stop is StopReason.CURRENT_FAILED
    old_text = path.read_text()

    monkeypatch.setattr(record_module, "CHECK_RULES", 1)
    header = RecordHeader.for_space(space, device="cuda", versions={"kernelopt": "0.2.0"})
    opened = SessionRecord.open(path, header)
    aside = tmp_path / "record.rules0.jsonl"
    assert opened.results == [] and opened.set_aside is not None and opened.set_aside.path == aside
    assert aside.read_text() == old_text  # the user's record, untouched
    assert opened.aside_line() == (
        f"the session record's {len(SessionRecord.read(aside).served())} configuration(s) were checked under check rules 0 (kernelopt 0.1.0), this "
        f"kernelopt's are 1: none is served, every candidate is checked and timed again; that record is kept at {aside}"
    )
    clock = ManualClock()
    again = Counting(s, clock)
    new = session(space, again, clock, opened)
    assert new.served == 0 and space.default().key() in again.asked  # the old refusal is not served: checked again
    assert new.current_latency_us is not None and new.stop is not StopReason.CURRENT_FAILED

    resumed = SessionRecord.open(path, header)  # the same rules: served as before, nothing set aside
    assert resumed.set_aside is None and resumed.aside_line() is None
    assert space.default().key() in resumed.served() and resumed.served()[space.default().key()].outcome.ok

    monkeypatch.setattr(record_module, "CHECK_RULES", 0)  # an older kernelopt reads the newer record
    (tmp_path / "record.rules1.jsonl").write_text("a file of the user's\n")
    older = SessionRecord.open(path, RecordHeader.for_space(space))
    assert older.set_aside is not None and older.set_aside.path == tmp_path / "record.rules1.2.jsonl"
    assert (tmp_path / "record.rules1.jsonl").read_text() == "a file of the user's\n"
    assert "this kernelopt's are 0" in (older.aside_line() or "") and aside.read_text() == old_text


def test_l50_a_record_from_before_the_rules_were_kept_reads_as_rules_0(tmp_path: Path) -> None:
    """A header without ``check_rules`` (every record written before late36) is rules 0: not served by the rules now in force."""
    space = space_from_sweep(sweep("sumsq"))
    path = tmp_path / "record.jsonl"
    header = RecordHeader.for_space(space)
    doc = json.loads(header.model_dump_json(by_alias=True))
    del doc["check_rules"]
    path.write_text(json.dumps(doc) + "\n")
    assert SessionRecord.read(path).header.check_rules == 0
    assert SessionRecord.open(path, header).set_aside is not None


FAST = ["--device", "cpu", "--budget", "2", "--repetitions", "2"]


@pytest.mark.timeout(180)
def test_l51_tune_says_in_one_line_why_a_record_of_other_rules_was_not_served(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """`kernelopt tune` run again after an upgrade that changed the check rules: its session record (same session
    folder: same kernel, reference, device) serves nothing, the run says why in one line and in ``--json``'s
    ``record_aside``, and the old record is kept beside."""
    folder = tmp_path / "loop"
    shutil.copytree(DATA / "loop", folder, ignore=shutil.ignore_patterns(".kernelopt", "__pycache__"))
    monkeypatch.setattr(record_module, "CHECK_RULES", 0)
    assert main(["tune", str(folder), *FAST, "--dry-run", "--json"]) == 0
    first = json.loads(capsys.readouterr().out)
    assert first["evaluations"] == 2 and first["record_aside"] is None
    old_text = Path(first["record"]).read_text()
    assert SessionRecord.read(Path(first["record"])).header.folder == str(folder.resolve())  # review25 r50

    monkeypatch.setattr(record_module, "CHECK_RULES", 1)
    code = main(["tune", str(folder), *FAST, "--dry-run"])
    out, err = capsys.readouterr()
    assert code == 0, err
    aside = Path(first["record"]).with_name("record.rules0.jsonl")
    assert aside.read_text() == old_text
    said = [line for line in out.splitlines() if line.startswith("the session record's ")]
    assert said == [
        f"the session record's 2 configuration(s) were checked under check rules 0 (kernelopt {_version()}, "
        f"{SessionRecord.read(aside).header.started_at}), this kernelopt's are 1: none is served, every candidate is "
        f"checked and timed again; that record is kept at {aside}"
    ], out
    assert f"session record: {first['record']}\n" in out or f"session record: {first['record']};" in out  # 0 served
    assert len(SessionRecord.read(Path(first["record"])).served()) == 2  # the new record, under rules 1

    # l52: a real change of kernel.py's code starts a new session folder, and what the run says of the last one's record
    # (newuser21's seen line: it said nothing); the session prepared (tune_folder says the same line, ``record_aside``)
    kernel = folder / "kernel.py"
    kernel.write_text(kernel.read_text().replace("    return out\n", "    out.add_(0)\n    return out\n"))
    changed = prepare_folder(TuneRequest(folder=folder, device="cpu"))
    assert changed.record_path != Path(first["record"]) and not changed.record_path.exists()
    assert new_session_line(latest_beside(changed.record_path), changed.key_parts) == (
        f"a new session: the last one's record ({first['record']}, 2 configuration(s)) does not match this run in "
        "kernel.py's code, so none of it is served; it is kept there"
    )


def test_l52_a_record_that_kept_no_parts_is_said_as_such(tmp_path: Path) -> None:
    """The last session's record written before the parts were kept (no ``key_parts``): the line says so; no earlier
    record, or one without a result, says nothing."""
    from kernelopt.tuning.candidate import Result

    space = space_from_sweep(sweep("sumsq"))
    earlier = SessionRecord.open(tmp_path / "a" / "record.jsonl", RecordHeader.for_space(space))
    assert new_session_line(None, {}) is None and new_session_line(earlier, {"kernel": "x"}) is None
    earlier.append(Result(config=space.default().as_dict(), outcome=Outcome.OK, latency_us=2.0))
    assert new_session_line(earlier, {"kernel": "x"}) == (
        f"a new session: the last one's record ({earlier.path}, 1 configuration(s)) was made by a kernelopt that did "
        "not keep what it was for, so none of it is served; it is kept there"
    )


def _version() -> str:
    from kernelopt import __version__

    return __version__
