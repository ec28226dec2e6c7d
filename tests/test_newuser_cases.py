"""A new user's first hour with README and docs on a fresh clone (2026-12-05), one test per fix
(docs/faults.md, "A new user's first hour, 2026-12-05")."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from kernelopt.cli.app import main

LOOP = Path(__file__).parent / "data" / "loop"


@pytest.mark.timeout(30)
def test_a_table_wider_than_the_console_folds_its_wide_column_and_keeps_every_column(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """tune's per-shape table, piped (100 columns), lost its last column ("current's latency" cut to "current's
    lat"): Rich cannot fold a column below its min_width, so it cropped the table at the right edge."""
    from kernelopt.cli.output import table

    monkeypatch.delenv("COLUMNS", raising=False)
    columns = ["shape", "its own best", "latency", "chosen's latency", "chosen vs its best", "current's latency"]
    rows = [
        ["n=4096", "BLOCK=4096", 8.956, 8.956, "+0.0 %", 338.9],
        ["n=1000", "BLOCK=1024, num_warps=4, num_stages=3", 7.823, 8.285, "+5.9 %", 88.62],
        ["rows=4,cols=300", "BLOCK_SIZE=computed", 7831.0, 7831.0, "+0.0 %", 7831.0],
    ]
    table("per shape (latency, us)", columns, rows, wide="its own best")
    lines = capsys.readouterr().out.splitlines()
    framed = [line for line in lines if line.strip() and line.lstrip()[0] in "┏┃┡│└"]
    assert framed and all(len(line) <= 100 and line.rstrip()[-1] in "┓┃┩│┘" for line in framed), lines
    assert "338.9" in "\n".join(lines) and "88.62" in "\n".join(lines)
    assert "│ BLOCK_SIZE=computed │" in "\n".join(lines)  # a word of the wide column is not cut ("BLOCK_SIZE=comp")
    table("t", ["", "configuration", "latency (us)"], [["current", "BLOCK=64", 427.6]], wide="configuration")
    narrow = capsys.readouterr().out
    assert "│ BLOCK=64                 │" in narrow  # a table that fits keeps the wide column's 24 characters


def _folder(tmp_path: Path, shapes: str) -> Path:
    folder = tmp_path / "add"
    shutil.copytree(LOOP, folder, ignore=shutil.ignore_patterns("make_summaries.py", "summary_*"))
    ref = folder / "reference.py"
    ref.write_text(ref.read_text().replace('SHAPES = [{"n": 4096}, {"n": 1000}]', f"SHAPES = {shapes}"))
    return folder


@pytest.mark.timeout(30)
@pytest.mark.parametrize(
    ("shapes", "said"),
    [
        ('{"n": 4096}', "not dict ({'n': 4096})"),
        ("5", "not int (5)"),
        ('["n=4"]', "not list of str ('n=4')"),
        ("[]", "SHAPES is empty"),
    ],
)
def test_tune_refuses_a_shapes_that_is_not_a_list_of_dicts_in_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], shapes: str, said: str
) -> None:
    """`SHAPES = {"n": 4096}` was read as its keys: tune timed get_inputs()'s defaults and wrote kernel.py;
    `SHAPES = 5` ended in "reference.py: TypeError: 'int' object is not iterable; the worker's log: ..."."""
    folder = _folder(tmp_path, shapes)
    before = (folder / "kernel.py").read_bytes()
    assert main(["tune", str(folder), "--device", "cpu", "--budget", "4"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith(f"kernelopt: error: {folder / 'reference.py'}: SHAPES"), err
    assert said in err
    assert (folder / "kernel.py").read_bytes() == before


@pytest.mark.timeout(30)
def test_a_computed_shapes_that_is_not_a_list_is_refused_where_the_worker_loads_it(tmp_path: Path) -> None:
    """A SHAPES the parent cannot read as a literal (``dict(n=4096)``) is checked where the bench worker imports
    reference.py, by the rule validate uses (`harness.loader.check_shapes`)."""
    from kernelopt.tuning.checks import LoadedProblem
    from kernelopt.tuning.problem import Problem

    folder = tmp_path / "add"
    folder.mkdir()
    (folder / "kernel.py").write_text("def run(x):\n    return x\n")
    (folder / "reference.py").write_text(
        "SHAPES = dict(n=4096)\n\n\ndef get_inputs(n=8):\n    return [n]\n\n\ndef reference(x):\n    return x\n"
    )
    problem = Problem.from_folder(folder, device="cpu")
    with pytest.raises(ValueError, match=r"SHAPES must be a list of dicts .* not dict \(\{'n': 4096\}\)"):
        LoadedProblem.load(problem, "cpu")


@pytest.mark.timeout(30)
def test_a_read_only_kernel_py_is_refused_before_the_session_and_by_tunables_set(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """`chmod 444 kernel.py`, then `tune` (or `tunables --set`): the rename replaced it all the same (its mode
    kept, the edit in it). Now one line, exit 3 (no permission), before any candidate runs; --dry-run still runs."""
    folder = _folder(tmp_path, '[{"n": 4096}, {"n": 1000}]')
    kernel = folder / "kernel.py"
    before = kernel.read_bytes()
    kernel.chmod(0o444)
    try:
        for argv in (
            ["tune", str(folder), "--device", "cpu", "--budget", "4"],
            ["tunables", str(kernel), "--set", "BLOCK=128"],
        ):
            assert main(argv) == 3
            err = capsys.readouterr().err
            assert (
                err
                == f"kernelopt: error: {kernel}: read-only (mode 0444), so nothing was written to it; make it writable (chmod u+w) and run again\n"
            )
            assert kernel.read_bytes() == before
        assert not (folder / ".kernelopt").exists()  # refused before the session: no record, no budget spent
        assert main(["tunables", str(kernel), "--set", "BLOCK=128", "--dry-run"]) == 0
        assert "+BLOCK = 128" in capsys.readouterr().out and kernel.read_bytes() == before
    finally:
        kernel.chmod(0o644)


@pytest.mark.timeout(30)
def test_a_kernel_py_with_a_syntax_error_says_python_s_reason_as_reference_py_s_does(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """kernel.py said "not Python: syntax error at line 17" and no more, where reference.py said "syntax error at
    line 25: '(' was never closed"."""
    folder = _folder(tmp_path, '[{"n": 4096}]')
    kernel = folder / "kernel.py"
    kernel.write_text(kernel.read_text() + "\nout = (\n")
    before = kernel.read_bytes()
    assert main(["tune", str(folder), "--device", "cpu", "--budget", "4"]) == 2
    err = capsys.readouterr().err
    assert err == "kernelopt: error: kernel.py: not Python: syntax error at line 18: '(' was never closed\n", err
    assert kernel.read_bytes() == before


@pytest.mark.timeout(30)
def test_a_latency_in_a_table_is_written_out_not_in_exponent_form() -> None:
    """tune's table on the CPU read "current  BLOCK=512  2.914e+04" beside a verdict of "29.14 ms"."""
    from kernelopt.cli.output import fmt

    assert fmt(29140.3) == "29140" and fmt(12764.0) == "12760" and fmt(-15328.7) == "-15330"
    assert fmt(427.6) == "427.6" and fmt(9.898e-06) == "9.898e-06" and fmt(1.718e10) == "1.718e+10"
    assert fmt(None) == "n/a" and fmt(3) == "3"
