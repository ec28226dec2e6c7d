"""A ``@triton.heuristics`` value computed from the kernel's arguments keeps its computation when tuned (issue 32
item 2): the pick is written into the lambda as a size-bucketed table that falls back on it
(``64 if args["n_cols"] <= 300 else (1 if args["n_cols"] > 256 else 2)``), not as a literal body wrong at sizes
never timed. Pure edits, then ``kernelopt tune`` on the CPU (Triton's interpreter; the loop's Stage 3 writes through
the same ``shaped_edit``) with the written kernel checked at both ``SHAPES`` entries and at sizes no entry names."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from kernelopt.tunables import Bucket, TunableKind, TunedTable, discover_source, write_table

from .steady_timing import steady_timing
from .test_knob_generality import correct_at, row_programs, task

NAME = "row_sumsq_heuristics"
CORPUS = Path(__file__).parent / "data" / "tunables" / "corpus" / f"{NAME}.py"
# SHAPES: 32 rows of 100 and of 300 columns; 700 and 1500 columns are sizes no entry names
SIZES = [(32, 100), (32, 300), (5, 700), (3, 1500)]
BLOCK_M = '"BLOCK_M": lambda args: '
COMPUTED_M = '1 if args["n_cols"] > 256 else 2'
COMPUTED_N = 'triton.next_power_of_2(args["n_cols"])'


@pytest.fixture(autouse=True)
def _interpreter(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TRITON_INTERPRET", "1")


@pytest.mark.timeout(60)
def test_a_table_is_written_into_the_lambda_and_reads_back() -> None:
    src = CORPUS.read_text()
    found = {t.key: t for t in discover_source(src)}
    block_n = found["row_sumsq_kernel.heuristics.BLOCK_N"]
    assert block_n.kind is TunableKind.HEURISTIC and block_n.computed == COMPUTED_N
    assert block_n.size_names == ['args["n_cols"]']
    table = TunedTable(
        size='args["n_cols"]',
        buckets=[Bucket(upto=100, values={"BLOCK_N": 128, "BLOCK_M": 16}), Bucket(upto=300, values={"BLOCK_N": 512})],
    )
    r = write_table(src, table)
    # laid out as ruff formats it, past 120 columns on one line (tunegaps11)
    assert (
        '        "BLOCK_N": lambda args: (\n'
        f'            128 if args["n_cols"] <= 100 else 512 if args["n_cols"] <= 300 else {COMPUTED_N}\n'
        "        ),\n"
    ) in r.new_source
    # a computation that is itself a conditional keeps its parentheses: it stays the fallback as written
    assert f'{BLOCK_M}16 if args["n_cols"] <= 100 else ({COMPUTED_M}),' in r.new_source
    after = {t.key: t for t in discover_source(r.new_source)}
    got = after["row_sumsq_kernel.heuristics.BLOCK_M"]
    assert got.tuned_table is not None and [(b.upto, b.values) for b in got.tuned_table.buckets] == [
        (100, {"BLOCK_M": 16})
    ]
    assert got.computed == f"({COMPUTED_M})"
    # written again, the table is replaced (the computation stays once)
    again = write_table(
        r.new_source, TunedTable(size='args["n_cols"]', buckets=[Bucket(upto=300, values={"BLOCK_M": 32})])
    )
    assert f'{BLOCK_M}32 if args["n_cols"] <= 300 else ({COMPUTED_M}),' in again.new_source
    assert again.new_source.count(COMPUTED_M) == 1


def _kept(text: str) -> None:
    """Both computations still there once; a moved BLOCK_M is a table bounded by the sizes checked (300)."""
    assert text.count(COMPUTED_M) == 1 and text.count(COMPUTED_N) == 1, text
    lines = text.splitlines()
    (at,) = [i for i, ln in enumerate(lines) if BLOCK_M in ln]
    line = lines[at]
    if line.endswith("("):  # laid out over several lines as ruff formats it (tunegaps11): its clauses joined
        end = next(i for i in range(at, len(lines)) if lines[i].strip() in (")", "),"))
        line = " ".join(ln.strip() for ln in lines[at + 1 : end])
    assert line.rstrip(",").endswith(f"({COMPUTED_M})") and 'args["n_cols"] <= 300 else' in line, line


@pytest.mark.timeout(240)
def test_tune_writes_a_heuristic_as_a_table_over_its_computation(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Two rows per program on 8 rows is 4 interpreted programs; a larger tile is one, so tune moves BLOCK_M (the
    figures are those programs, :func:`~tests.test_knob_generality.row_programs`)."""
    from kernelopt.cli.app import main

    steady_timing(monkeypatch, row_programs)
    folder = task(tmp_path, NAME)
    args = ["tune", str(folder), "--device", "cpu", "--budget", "4", "--repetitions", "1", "--json"]
    assert main(args) == 0, capsys.readouterr().err
    out = json.loads(capsys.readouterr().out)
    assert out["written"] and 'tuned in a table over args["n_cols"] up to 300' in (out["edit_note"] or ""), out
    _kept((folder / "kernel.py").read_text())
    assert all(correct_at(folder, SIZES).values())
