"""A new user's first hour on a fresh clone, tenth trial (2026-12-06): what the eleventh session changed (module-level
sizes, tuple ``SHAPES`` entries, key roles, the net's time cap and the size below the smallest entry, bounded tables,
falling heuristic tables, ``list_note``, int8 sizing) tried on the user's own kernels, and bad input of every kind;
one test per fix (docs/faults.md, "A new user's first hour, tenth trial")."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

DATA = Path(__file__).parent / "data"

#: tests/data/loop's reference with its size given as a shape: ``{"shape": [4096]}``.
SHAPED_REFERENCE = """import torch

SHAPES = {shapes}


def get_inputs(shape=(4096,), device="cpu"):
    g = torch.Generator().manual_seed(0)
    return [torch.randn(*shape, generator=g).to(device), torch.randn(*shape, generator=g).to(device)]


def reference(x, y):
    return x + y
"""


def _loop(tmp_path: Path, shapes: str) -> Path:
    folder = shutil.copytree(DATA / "loop", tmp_path / "loop", ignore=lambda _, names: [".kernelopt"])
    (folder / "reference.py").write_text(SHAPED_REFERENCE.format(shapes=shapes))
    return folder


@pytest.mark.timeout(120)
def test_n56_a_shapes_entry_holding_a_list_is_read_as_its_tuple(tmp_path: Path) -> None:
    """n56: ``SHAPES = [{"shape": [4096]}, ...]`` (a list where the eleventh session's tuples are taken), and a tuple
    built by code (``[dict(shape=(n,)) for n in ...]``, which comes back from the child that reads it as JSON's
    list), ended ``tune`` in exit 70 before its first candidate: "TypeError: unhashable type: 'list'" (the session's
    line of the shapes it times keyed the entries by their items). The entries are read with each list a tuple, as
    the bench workers hold them (a real ``tune`` of both forms then runs, and its net moves each number:
    docs/faults.md)."""
    from kernelopt.cli.tune import _timed_shape
    from kernelopt.tuning.problem import Problem, reference_shapes

    built = _loop(tmp_path / "built", "[dict(shape=(n,)) for n in (4096, 1000)]")
    assert reference_shapes(built / "reference.py", device="cpu") == [{"shape": (4096,)}, {"shape": (1000,)}]
    folder = _loop(tmp_path, '[{"shape": [4096]}, {"shape": [1000]}]')
    problem = Problem.from_folder(folder, device="cpu")
    assert reference_shapes(problem.reference_py) == [{"shape": (4096,)}, {"shape": (1000,)}]
    assert _timed_shape(problem, []) == "shape=(4096,)"


#: rowmax_zero's block computed by a heuristic instead of in run() (n58).
HEURISTIC = '@triton.heuristics({"BLOCK": lambda args: triton.next_power_of_2(args["n_cols"])})\n@triton.jit\n'


@pytest.mark.timeout(120)
def test_n57_a_table_row_the_evidence_lifts_is_netted_where_it_masks_the_most_lanes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """n57 (a wrong written kernel): a row max over a one-block ``BLOCK = next_power_of_2(n_cols)`` whose masked-out
    lanes load 0.0, SHAPES 200 and 1000 columns. v36's rule refuses a table row wider than its size there (the lanes
    are read as data), but lanelift11 lifts it on evidence: the original ran 56 masked lanes at 200 columns and passed
    (random rows of 200 have a maximum above 0). ``if n_cols <= 1000: BLOCK = 1024`` was written, netted at 1025,
    1004 and 101 columns (right there too) and wrong at 4, 2 and 1 columns, where the original's block fills the
    row: a row of negative values gave 0. A table by size is now netted with each dimension at 1 too; this one fails
    there, where the original passes, and nothing is written."""
    from kernelopt.tuning import folder as tf
    from tests.test_tuning_net import _evaluator, _session

    monkeypatch.setenv("TRITON_INTERPRET", "1")
    folder = _unread_fill(tmp_path)
    prepared = tf.prepare_folder(tf.TuneRequest(folder=folder, device="cpu"))
    with _evaluator(prepared) as evaluator:
        done = tf._checked_edit(_session(prepared, PICK, CURRENT), evaluator)
    assert done.edit is None and done.edit_note is not None, done.edit_note
    assert done.edit_note.startswith("the written kernel fails at m=4,n_cols=1 (below the smallest entry)"), (
        done.edit_note
    )


def _unread_fill(tmp_path: Path) -> Path:
    """rowmax_zero with its fill passed as a parameter (``other=fill``, 0.0 at the launch): a lane the reading does
    not know, so fill12's rule (a max over a fixed fill takes no table row, evidence or none) leaves the table to the
    lift and the net, which these tests prove (the literal ``other=0.0`` is refused by the rule:
    tests/test_fill12_cases.py)."""
    folder = Path(shutil.copytree(DATA / "newuser10" / "rowmax_zero", tmp_path / "rowmax"))
    kernel = (
        (folder / "kernel.py")
        .read_text()
        .replace("other=0.0", "other=fill")
        .replace("n_cols, BLOCK:", "n_cols, fill, BLOCK:")
    )
    (folder / "kernel.py").write_text(kernel.replace("(x, y, n_cols, BLOCK", "(x, y, n_cols, 0.0, BLOCK"))
    return folder


#: The pick and the current configuration of n57 and n58's session.
PICK, CURRENT = [({"BLOCK": 1024}, 10.0)], ({"BLOCK": 256}, 20.0)

#: rowmax_zero's block computed by a heuristic instead of in run() (n58).
HEURISTIC = '@triton.heuristics({"BLOCK": lambda args: triton.next_power_of_2(args["n_cols"])})\n@triton.jit\n'


@pytest.mark.timeout(120)
def test_n58_a_heuristic_s_table_is_netted_with_each_dimension_at_1_too(tmp_path: Path) -> None:
    """n58 (a wrong written kernel): rowmax_zero's block computed in a ``@triton.heuristics`` lambda, which v36's fill
    rule does not read at all: ``1024 if args["n_cols"] <= 1000 else triton.next_power_of_2(args["n_cols"])`` was
    written with or without evidence, wrong at 4, 2 and 1 columns like n57's. The edit says it is a table, so the
    net's sizes hold ``n_cols=1`` (n57's test runs that size through the real net). Since fill12 the rule reads a
    heuristic's block, and the literal 0.0 fill under a max is refused before the net; the unread fill run here
    (:func:`_unread_fill`) is lifted by the session's evidence (``args["n_cols"]``) and netted as before."""
    from kernelopt.tuning import folder as tf
    from kernelopt.tuning.net import derived_sizes
    from tests.test_tuning_net import _session

    folder = _unread_fill(tmp_path)
    kernel = (folder / "kernel.py").read_text().replace("@triton.jit\n", HEURISTIC)
    kernel = kernel.replace("    BLOCK = triton.next_power_of_2(n_cols)\n", "").replace(", BLOCK=BLOCK)", ")")
    (folder / "kernel.py").write_text(kernel)
    prepared = tf.prepare_folder(tf.TuneRequest(folder=folder, device="cpu"))
    edit, _ = tf.shaped_edit(_session(prepared, PICK, CURRENT))
    assert edit is not None and edit.table, edit
    assert '"BLOCK": lambda args: 1024 if args["n_cols"] <= 1000 else' in edit.new_source, edit.new_source
    roles, constants = prepared.size_readings
    sizes = derived_sizes(prepared.shapes, [1024], roles, constants, least=edit.table)
    assert "m=4,n_cols=1" in [t.label() for s in sizes for t in s.tries]
    assert "m=4,n_cols=1" not in [
        t.label() for s in derived_sizes(prepared.shapes, [1024], roles, constants) for t in s.tries
    ]
