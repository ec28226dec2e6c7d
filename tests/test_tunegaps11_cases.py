"""What the tuner could not yet tune after the tenth session (issue 32, lane tunegaps11, 2026-12-06): a heuristic
that falls with size, a search range that missed the authors' own values, one size spelled two ways, a heuristic's
table written as one long line, and a keyed autotune list of more than 8 configurations judged as one. Each case
runs the real discovery, space and edit on a kernel of tests/data (Triton's interpreter on the CPU runs the written
kernel against its reference, at sizes no ``SHAPES`` entry names); docs/faults.md's tunegaps11 section has the
before and after of ``kernelopt tune --device cpu`` on each."""

from __future__ import annotations

import shutil
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import pytest

from tests.test_breaker_cases import _tune_edit
from tests.test_variants_cases import _correct_padded

DATA = Path(__file__).parent / "data"


def _copy(name: str, tmp_path: Path) -> Path:
    return Path(shutil.copytree(DATA / name, tmp_path / Path(name).name))


def _prepared(folder: Path, budget: int | None = None):
    from kernelopt.tuning.folder import TuneRequest, prepare_folder

    return prepare_folder(TuneRequest(folder=folder, device="cpu", budget=budget))


@pytest.mark.timeout(120)
def test_a_falling_heuristic_is_tabled_over_the_size_its_block_covers(tmp_path: Path) -> None:
    """variants/heur_falling: each row one block of ``4096 // next_power_of_2(args["R"])`` (a budget the rows
    share: the block falls as the batch grows). A table over R was refused (v32: wrong where fewer rows are wider),
    and one over the computation's value (``128 if comp(args) <= 128``) holds no block smaller than the
    computation, where the session's gain lay (128 at 16 rows, where the computation gave 256): the table is bounded
    by N, the size the block covers, and is right at sizes no entry names, the computation the fallback. A
    falling heuristic that covers nothing (rows a program, ``max(1, 1024 // next_power_of_2(args["N"]))``) is
    tabled over its own size, as before, and is right there too."""
    folder = _copy("variants/heur_falling", tmp_path)
    written, note = _tune_edit(folder, {"BLOCK": 128})
    assert written is not None, note
    assert 'lambda args: 128 if args["N"] <= 100 else 4096 // triton.next_power_of_2(args["R"])' in written, written
    assert 'over args["N"] up to 100' in (note or ""), note
    (folder / "kernel.py").write_text(written)
    shapes = [{"R": 16, "N": 200}, {"R": 2, "N": 1000}]
    assert _correct_padded(folder, shapes) == {f"R={s['R']},N={s['N']}": True for s in shapes}
    # the same computation in the launching function: its N is the argument the kernel covers, so the table is
    # bounded by it there too
    heuristic = '@triton.heuristics({"BLOCK": lambda args: 4096 // triton.next_power_of_2(args["R"])})\n'
    launch = "BLOCK = 4096 // triton.next_power_of_2(R)\n    _rsum[(R,)](x, y, R, N, BLOCK=BLOCK)"
    original = (DATA / "variants" / "heur_falling" / "kernel.py").read_text()
    (folder / "kernel.py").write_text(original.replace(heuristic, "").replace("_rsum[(R,)](x, y, R, N)", launch))
    written, note = _tune_edit(folder, {"BLOCK": 128})
    assert written is not None and "    if N <= 100:  # kernelopt: tuned\n        BLOCK = 128\n" in written, note
    (folder / "kernel.py").write_text(written)
    assert _correct_padded(folder, shapes[:1]) == {"R=16,N=200": True}
    rows = _copy("tunegaps11/heur_rows", tmp_path)
    written, note = _tune_edit(rows, {"BLOCK_M": 16})
    assert written is not None and '16 if args["N"] <= 300 else max(1, 1024 //' in written, (note, written)
    (rows / "kernel.py").write_text(written)
    shapes = [{"R": 5, "N": 1000}, {"R": 33, "N": 7}]
    assert _correct_padded(rows, shapes) == {f"R={s['R']},N={s['N']}": True for s in shapes}


@pytest.mark.timeout(120)
def test_a_computed_block_is_searched_over_the_values_its_computation_gave() -> None:
    """breaker10/mamba_ssu: ``BLOCK_SIZE_M`` from a nested conditional of ``dstate`` (32, 16, 8, 4 rows a program)
    was searched over the block grid 16..256: the authors' 4 (dstate 100, a SHAPES entry) and 8 were never tried.
    A computed knob's values at the SHAPES entries join its domain, with the powers of two up to the grid (k5's
    rule for a literal); tunegaps11/heur_rows' ``BLOCK_M`` heuristic (8 and 2 rows) gains 2 and 4. A knob whose
    computation stays inside its grid keeps its space (heur_falling's ``BLOCK``, 256 and 128)."""
    mamba = _prepared(DATA / "breaker10" / "mamba_ssu")
    assert mamba.space.knob("BLOCK_SIZE_M").values == (4, 8, 16, 32, 64, 128, 256)
    rows = _prepared(DATA / "tunegaps11" / "heur_rows")
    assert rows.space.knob("BLOCK_M").values == (2, 4, 8, 16, 32, 64, 128, 256)
    falling = _prepared(DATA / "variants" / "heur_falling")
    assert falling.space.knob("BLOCK").values[:2] == (128, 256) and falling.space.size.count == 2


@pytest.mark.timeout(120)
def test_a_size_spelled_two_ways_is_one_table_s_key(tmp_path: Path) -> None:
    """breaker10/mamba_ssu: the ``BLOCK_SIZE_DSTATE`` heuristic reads ``args["dstate"]``, the launcher computes
    ``BLOCK_SIZE_M`` from its ``dstate``, which it passes as that argument: one size. Before, the heuristic was
    "kept at its computation (it reads args["dstate"], not dstate)" beside a table over ``dstate``; now both are
    tabled over it, each spelled as its code reads it, and the kernel is right at sizes no entry names."""
    folder = _copy("breaker10/mamba_ssu", tmp_path)
    written, note = _tune_edit(folder, {"BLOCK_SIZE_M": 8, "BLOCK_SIZE_DSTATE": 128})
    assert written is not None, note
    assert "BLOCK_SIZE_M, BLOCK_SIZE_DSTATE tuned in a table over dstate up to 100" in (note or ""), note
    assert "    if dstate <= 100:  # kernelopt: tuned\n        BLOCK_SIZE_M = 8\n" in written, written
    assert '"BLOCK_SIZE_DSTATE": lambda args: 128 if args["dstate"] <= 100 else triton.next_power_of_2(' in written
    (folder / "kernel.py").write_text(written)
    shapes = [{"B": 2, "D": 37, "S": 20}, {"B": 1, "D": 9, "S": 129}, {"B": 2, "D": 20, "S": 100}]
    assert _correct_padded(folder, shapes) == {f"B={s['B']},D={s['D']},S={s['S']}": True for s in shapes}


def test_a_heuristic_s_table_is_written_as_the_formatter_lays_it_out(tmp_path: Path) -> None:
    """A table written into a heuristic's lambda made its decorator one line of 165 characters (newuser8's two
    rows). A decorator the table makes longer than 120 columns is laid out as ``ruff format`` lays it out, one
    clause a line where the body does not fit; a second write of one row puts it back on one line; the table
    reads back either way, and a decorator the edit did not touch is left as written."""
    from kernelopt.tunables import discover_source
    from kernelopt.tunables.edit import write_table
    from kernelopt.tunables.heuristic_layout import lay_out_heuristics
    from kernelopt.tunables.model import Bucket, TunedTable

    source = (DATA / "variants" / "heur_falling" / "kernel.py").read_text()
    untouched = '@triton.heuristics({"B": lambda args: 1 if args["R"] <= 1 else 2 if args["R"] <= 2 else 3 if args["R"] <= 3 else args["R"] * 2 + 1})\n'
    other = "@triton.jit\ndef _other(x_ptr, R, B: tl.constexpr):\n    pass\n"
    source = source.replace("import triton.language as tl\n", f"import triton.language as tl\n\n\n{untouched}{other}")
    rows = [Bucket(upto=u, values={"BLOCK": v}) for u, v in [(100, 128), (200, 256), (1000, 1024)]]
    three = write_table(source, TunedTable(size='args["N"]', buckets=rows)).new_source
    assert three is not None and untouched in three
    assert all(len(line) <= 120 for line in three.splitlines() if line != untouched.rstrip("\n")), three
    assert (
        '        "BLOCK": lambda args: (\n            128\n            if args["N"] <= 100\n            else 256\n'
        in three
    )
    laid = tmp_path / "three.py"
    laid.write_text(three.replace(untouched, ""))
    ruff = [sys.executable, "-m", "ruff", "format", "--check", "--line-length", "120", "--no-cache", str(laid)]
    assert subprocess.run(ruff, capture_output=True, text=True, check=False).returncode == 0, three
    found = {t.name: t for t in discover_source(three, "kernel.py") if t.kernel == "_rsum"}
    table = found["BLOCK"].tuned_table
    assert table is not None and [(b.upto, b.values) for b in table.buckets] == [
        (100, {"BLOCK": 128}), (200, {"BLOCK": 256}), (1000, {"BLOCK": 1024}),
    ]  # fmt: skip
    # a dict its author ended with a comma stays one entry a line, as the formatter keeps it
    exploded = (
        '@triton.heuristics(\n    {\n        "BLOCK": lambda args: 4,\n    }\n)\n@triton.jit\ndef f(x):\n    pass\n'
    )
    tabled = exploded.replace("args: 4", 'args: 128 if args["N"] <= 100 else 4')
    assert lay_out_heuristics(tabled, exploded) == tabled
    one = write_table(three, TunedTable(size='args["N"]', buckets=rows[:1])).new_source
    assert one is not None
    assert (
        '@triton.heuristics({"BLOCK": lambda args: 128 if args["N"] <= 100 else 4096 // triton.next_power_of_2(args["R"])})\n'
        in one
    )


@pytest.mark.timeout(120)
def test_a_keyed_list_of_more_than_eight_is_timed_whole_when_the_budget_holds_it() -> None:
    """tunegaps11/keyed_nine: a keyed autotune list of nine block sizes. A list of more than 8 distinct configurations
    was judged as one entry on every shape (``folder.LIST_CURRENT_MOST``), said nowhere; now a session whose
    candidate budget holds the list times each entry as the kernel as written, and one whose budget does not says
    so in one line before it starts."""
    from kernelopt.tuning.budget import BudgetRule
    from kernelopt.tuning.folder import list_configs, list_note

    small = _prepared(DATA / "tunegaps11" / "keyed_nine", budget=6)
    assert list_configs(small) == []
    line = list_note(small)
    assert line is not None and "holds 9 distinct configurations, more than the 8" in line and "--budget 9" in line
    whole = replace(small, budget=BudgetRule(count=12))
    assert [c["BLOCK"] for c in list_configs(whole)] == [2**i for i in range(4, 13)] and list_note(whole) is None


# ------------------------------------------------------------------------------------- on a GPU


@pytest.mark.gpu
@pytest.mark.timeout(900)
def test_the_tables_written_here_compile_and_hold_on_a_gpu(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """On an NVIDIA GPU (Triton compiled, not interpreted), the forms this lane's rules write, at sizes no ``SHAPES``
    entry names: heur_falling's ``128 if args["N"] <= 100`` over its falling computation (16 rows of 200 columns,
    where the computation gives 256; one row of 4096), heur_rows' ``BLOCK_M`` and ``BLOCK_N`` in one table over
    ``N`` (a row of 16384 columns, 65536 rows), and Mamba's table of the authors' own ``BLOCK_SIZE_M = 4`` beside
    ``BLOCK_SIZE_DSTATE`` tabled over the same ``dstate`` (``args["dstate"]`` in its lambda)."""
    from tests.gpu_correct import assert_correct, written_files
    from tests.test_breaker7_cases import _outputs_checked

    monkeypatch.delenv("TRITON_INTERPRET", raising=False)
    falling = written_files(DATA / "variants", {"heur_falling": {"BLOCK": 128}}, tmp_path)["heur_falling"]
    rows = written_files(DATA / "tunegaps11", {"heur_rows": {"BLOCK_M": 16}}, tmp_path)["heur_rows"]
    mamba_pick = {"BLOCK_SIZE_M": 4, "BLOCK_SIZE_DSTATE": 128}
    mamba = written_files(DATA / "breaker10", {"mamba_ssu": mamba_pick}, tmp_path)["mamba_ssu"]
    assert "if dstate <= 100:  # kernelopt: tuned\n        BLOCK_SIZE_M = 4\n" in mamba.read_text()
    cases: list[tuple[Path, Path, list[dict[str, int]]]] = [
        (DATA / "variants" / "heur_falling", falling, [{"R": 16, "N": 200}, {"R": 1, "N": 4096}, {"R": 4096, "N": 1}]),
        (DATA / "tunegaps11" / "heur_rows", rows, [{"R": 5, "N": 1000}, {"R": 65536, "N": 300}, {"R": 3, "N": 16384}]),
        (DATA / "breaker10" / "mamba_ssu", mamba, [{"B": 3, "D": 300, "S": 16}, {"B": 64, "D": 4096, "S": 100}]),
    ]
    for folder, kernel_py, shapes in cases:
        assert_correct(folder, shapes, _outputs_checked, kernel_py=kernel_py)
