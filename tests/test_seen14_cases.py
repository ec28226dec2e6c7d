"""seen14: this session's "seen, not changed" items a user meets (docs/faults.md, "seen14")."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

DATA = Path(__file__).parent / "data"


@pytest.mark.timeout(10)
def test_a_slowdown_not_reliable_gives_its_interval_as_a_slowdown() -> None:
    """break15's seen item: optimize's summary said "103x slower than the reference (PyTorch eager), not reliable:
    its 95 % interval 0.00618-0.0126x spans more than 2x", a slowdown beside an interval of speedups (n68 mended
    the reliable line only)."""
    from kernelopt.report.headline import interval_text

    eager = "the reference (PyTorch eager)"
    said = interval_text(1 / 103, 0.00618, 0.0126, eager)
    assert said.startswith(
        "103x slower than the reference (PyTorch eager), not reliable: its 95 % interval 79.4-162x slower spans more"
    ), said
    # a speedup not reliable, and one whose interval crosses 1, keep their factors
    assert "its 95 % interval 0.004-3.2x spans" in interval_text(1.55, 0.004, 3.2, eager)
    assert "its 95 % interval 0.3-1.2x spans" in interval_text(0.5, 0.3, 1.2, eager)


@pytest.mark.timeout(120)
def test_a_reference_raising_at_import_is_said_once_not_at_an_entry(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """newuser11/12's seen item: `tune` said "the SHAPES entry n=4096: reference.py: RuntimeError: boom at import",
    as if that entry were at fault. validate, optimize and batch say "correctness: loading: reference.py raised
    RuntimeError: boom at import" (no entry), as before."""
    from kernelopt.cli.app import main

    folder = tmp_path / "f"
    shutil.copytree(DATA / "tuning" / "divides", folder, ignore=shutil.ignore_patterns(".kernelopt", "__pycache__"))
    before = (folder / "kernel.py").read_text()
    ref = folder / "reference.py"
    ref.write_text(ref.read_text().replace("\nSHAPES =", '\nraise RuntimeError("boom at import")\nSHAPES ='))
    code = main(["tune", str(folder), "--device", "cpu", "--repetitions", "2"])
    out, err = capsys.readouterr()
    errors = [line for line in err.splitlines() if line.startswith("kernelopt: error:")]
    assert code == 2 and out == "" and len(errors) == 1, err
    assert errors[0].startswith("kernelopt: error: reference.py raised at import: RuntimeError: boom at import"), err
    assert "SHAPES entry" not in err
    assert (folder / "kernel.py").read_text() == before


@pytest.mark.timeout(10)
def test_a_list_where_get_inputs_annotates_an_integer_is_refused_before_any_work() -> None:
    """newuser12's seen item: `SHAPES = [{"n": 4096}, {"n": [1000, 2]}]` where `get_inputs(n: int = 4096)` ran as a
    1000 x 2 tensor (torch takes a list as a shape); the entries' one rule (`kernelsource.entry_fault`, which tune,
    validate, optimize, init and batch ask first) refused a float or a bool there, not a list. A float where the
    parameter is annotated `int` was already refused (checked beside it)."""
    from kernelopt.errors import EXIT_BAD_INPUT, InputFileError
    from kernelopt.tuning.shapes import check_entries

    reference = DATA / "tuning" / "divides" / "reference.py"
    with pytest.raises(InputFileError) as caught:
        check_entries(reference, [{"n": 4096}, {"n": [1000, 2]}])
    assert caught.value.exit_code == EXIT_BAD_INPUT
    assert caught.value.one_line().endswith(
        "SHAPES[1] {'n': [1000, 2]} cannot be built: n is the list [1000, 2], where get_inputs takes an integer "
        "(n: int); write one integer for 'n' (sizes of several dimensions need a parameter each)"
    ), caught.value.one_line()
    with pytest.raises(InputFileError) as floated:
        check_entries(reference, [{"n": 1000.5}])
    assert "n is the float 1000.5, where get_inputs takes an integer (n: int)" in floated.value.one_line()
    check_entries(reference, [{"n": 4096}, {"n": 1000}])  # integers: accepted


@pytest.mark.timeout(10)
def test_a_tuple_bound_in_a_guard_is_no_setting_of_its_element() -> None:
    """The session's seen item: `inline_guard._literal_assignments` read `BLOCK = 64,` (the tuple (64,)) as
    a guard setting BLOCK=64, where `guard_blocks._literals` did not: one reading now
    (`inline_guard.literal_settings`), the tuple not a setting, in both."""
    import libcst as cst

    from kernelopt.tunables import guard_blocks
    from kernelopt.tunables.inline_guard import read_statement_guard

    def guard(body: str) -> cst.CSTNode:
        return cst.parse_module(f"if n % 64 == 0:\n    {body}\n").body[0]

    assert read_statement_guard(guard("BLOCK = 64")) == [("BLOCK", 64)]
    assert read_statement_guard(guard("BLOCK, WARPS = 64, 4")) == [("BLOCK", 64), ("WARPS", 4)]
    for tupled in ("BLOCK = 64,", "BLOCK = (64,)", "BLOCK, = 64"):
        assert read_statement_guard(guard(tupled)) is None, tupled
    # guard_blocks merges two guards under one test only where both read as settings
    two = "    A = 16\n    if n % 64 == 0:  # kernelopt: tuned\n        A = {a}\n    B = 8\n    if n % 64 == 0:  # kernelopt: tuned\n        B = 32\n"
    source = "def launch(n):\n" + two + "    return A, B\n"
    assert "A, B = 64, 32" in guard_blocks.one_block_per_condition(source.format(a="64"))
    tupled = source.format(a="64,")
    assert guard_blocks.one_block_per_condition(tupled) == tupled


@pytest.mark.timeout(120)
def test_a_table_a_guard_refuses_gives_way_row_by_row(
    monkeypatch: pytest.MonkeyPatch, tmp_path_factory: pytest.TempPathFactory
) -> None:
    """table14's seen item: a per-bucket table refused whole by a guard (not by its check) was dropped whole, where one
    failing its check gives way row by row. The row normalize's table ``100: 256, 256: 512``, where the guard
    refuses any text holding the row for 100 (as a tile a size must divide is refused): that row gives way to its
    bucket's next-best (512), the table is checked on the entries and by the net in the interpreter, and written
    (the text table14's test runs right at 100, 256, 512 and 1000 columns)."""
    from kernelopt.tuning import folder as tf
    from tests.test_table14_cases import ROW_100, _table_session, refusing_row
    from tests.test_tuning_net import _evaluator

    folder = tmp_path_factory.mktemp("seen14") / "rownorm"
    shutil.copytree(DATA / "tuning" / "rownorm", folder, ignore=shutil.ignore_patterns(".kernelopt", "__pycache__"))
    monkeypatch.setenv("TRITON_INTERPRET", "1")
    prepared = tf.prepare_folder(tf.TuneRequest(folder=folder, device="cpu"))
    tuning = _table_session(prepared, {256: (5.0, 100.0), 512: (8.0, 60.0)})
    refused = refusing_row(monkeypatch, ROW_100)
    with _evaluator(prepared) as evaluator:
        done = tf._checked_edit(tuning, evaluator)
    assert refused and done.edit is not None, done.edit_note
    text = done.edit.new_source
    assert "if n_cols <= 256:  # kernelopt: tuned\n            block = 512\n" in text and ROW_100 not in text, text
    note = done.edit_note or ""
    assert note.startswith(
        "block=256 must divide n_cols (a guard cannot be written here): the row n_cols <= 100: BLOCK=256 not written; "
        "its bucket's next-best passes: BLOCK tuned in a table over n_cols up to 256"
    ), note
    assert done.judgement.better and "+25.0 % on n_rows=8,n_cols=100" in done.judgement.reason, done.judgement
    assert done.net is not None and done.net.failed is None, done.net  # the net ran the written text: right
