"""fill12 (2026-12-06): v36's fill rule (a one-block block whose masked-out lanes are read as data must fill its size)
read for a ``@triton.heuristics`` block as for one computed in the launching function, and lanelift11's evidence
(the original ran masked-out lanes at an entry and passed) kept from lifting it where those lanes meet a max or min
as a fixed value; and newuser10's two leftovers, said at the start (docs/faults.md, "fill12")."""

from __future__ import annotations

from pathlib import Path

import pytest

DATA = Path(__file__).parent / "data"

#: rowmax's heuristic and the table a session picking ``BLOCK=1024`` over SHAPES of 200 and 1000 columns wrote (n58)
LAMBDA = 'lambda args: triton.next_power_of_2(args["n_cols"])'
TABLE = 'lambda args: 1024 if args["n_cols"] <= 1000 else triton.next_power_of_2(args["n_cols"])'
#: the launching function's form of the same table (n57)
POW2 = "    BLOCK = triton.next_power_of_2(n_cols)\n"
ROWS = "    if n_cols <= 1000:  # kernelopt: tuned\n        BLOCK = 1024\n"


def _maxima_right(kernel: Path, reference: Path, sizes: tuple[int, ...]) -> dict[int, bool]:
    """Whether ``kernel``'s row maxima match ``reference``'s at 8 rows of each column count (Triton's interpreter)."""
    import torch

    from tests.conftest import load_fresh, triton_interpreted

    with triton_interpreted():
        ref, ker = load_fresh(reference, "_fill12_ref"), load_fresh(kernel, "_fill12_ker")
        out = {}
        for n in sizes:
            (x,) = ref.get_inputs(m=8, n_cols=n)
            out[n] = bool(torch.equal(ker.run(x), ref.reference(x)))
    return out


@pytest.mark.timeout(120)
def test_a_heuristic_s_table_over_a_zero_filled_max_is_refused_where_its_harm_needs_two_columns(tmp_path: Path) -> None:
    """variants/rowmax_fast1: n58's row max (a heuristic's one block of ``next_power_of_2(n_cols)``, masked-out lanes
    loaded as 0.0) whose run() copies a one-column row without a launch. The table n58 wrote is right at both
    SHAPES and at 1 column (the net's size below every entry: the kernel never runs there), and wrong at 2 and 4,
    where the original's block fills the row (a row of negatives gave 0). The rule refuses it given the evidence a
    session has (the original ran masked-out lanes at 200 columns and passed: ``folder._ran_masked`` names the size
    as the lambda reads it, test_newuser10_cases' n58), the net never asked."""
    from kernelopt.tunables.guard import BY_DATA_FILL, guard_edit

    folder = DATA / "variants" / "rowmax_fast1"
    original = (folder / "kernel.py").read_text()
    table = tmp_path / "table.py"
    table.write_text(original.replace(LAMBDA, TABLE))
    sizes = (1, 2, 4, 200)
    assert _maxima_right(folder / "kernel.py", folder / "reference.py", sizes) == dict.fromkeys(sizes, True)
    assert _maxima_right(table, folder / "reference.py", sizes) == {1: True, 2: False, 4: False, 200: True}
    refused = guard_edit(original, table.read_text(), ran_masked={("BLOCK", 'args["n_cols"]')})
    assert refused.new_source is None and BY_DATA_FILL in (refused.note or ""), refused


def test_the_fill_rule_reads_a_heuristic_s_block_and_evidence_lifts_it_only_off_a_max_of_a_fixed_fill() -> None:
    """The one rule for both forms: a row over a one-block block whose masked-out lanes are read as data is refused
    without evidence, in the launching function and in a heuristic alike; the evidence (``ran_masked``, the size as
    the launching function or the lambda names it) lifts it where the lanes' value is not known (``other=fill``, a
    parameter), never where a max meets them as a fixed 0.0; a ``-inf`` fill (the max's identity) needs none."""
    from kernelopt.tunables.guard import BY_DATA_FILL, DATA_FILL, guard_edit

    launched = (DATA / "newuser10" / "rowmax_zero" / "kernel.py").read_text()
    heuristic = (DATA / "variants" / "rowmax_fast1" / "kernel.py").read_text()
    lifted = {("BLOCK", "n_cols"), ("BLOCK", 'args["n_cols"]')}
    for old, new in ((launched, launched.replace(POW2, POW2 + ROWS)), (heuristic, heuristic.replace(LAMBDA, TABLE))):
        assert BY_DATA_FILL in (guard_edit(old, new, ran_masked=lifted).note or "")
        unread = [
            t.replace("other=0.0", "other=fill").replace("n_cols, BLOCK:", "n_cols, fill, BLOCK:") for t in (old, new)
        ]
        assert DATA_FILL in (guard_edit(*unread).note or ""), guard_edit(*unread)
        assert guard_edit(*unread, ran_masked=lifted).new_source == unread[1]
        neutral = [t.replace("other=0.0", 'other=float("-inf")') for t in (old, new)]
        assert guard_edit(*neutral).new_source == neutral[1]


def test_a_whole_float_where_get_inputs_takes_an_integer_is_refused_before_the_session() -> None:
    """newuser10's leftover: ``SHAPES = [{"n_cols": 1000.0}]`` where ``get_inputs``'s default is an integer was
    refused only after the session started, with torch's own long line (exit 2). The entries' one rule
    (``kernelsource.entry_fault``, which ``tune``, ``validate``, ``optimize``, ``init`` and ``batch`` ask first) says
    it in one line with the fix (a fraction where ``get_inputs`` does not say it takes an integer is left to the
    run, a scale: newuser11's n60 test)."""
    from kernelopt.errors import EXIT_BAD_INPUT, InputFileError
    from kernelopt.tuning.shapes import check_entries

    reference = DATA / "tuning" / "divides" / "reference.py"
    with pytest.raises(InputFileError) as caught:
        check_entries(reference, [{"n": 4096}, {"n": 1e3}])
    assert caught.value.exit_code == EXIT_BAD_INPUT
    assert caught.value.one_line().endswith(
        "SHAPES[1] {'n': 1000.0} cannot be built: n is the float 1000.0, get_inputs's default is the integer 4096; "
        "write 'n': 1000 (or give get_inputs a float default where it takes one)"
    ), caught.value.one_line()


#: a scale over a module-level size and no SHAPES, as newuser10 wrote it (``N = 1 << 20``: ``tune --budget 4`` ran
#: past 10 minutes in the interpreter, 16384 programs a run at a block of 64)
MODULE_SIZED = """import torch

N = {n}


def get_inputs(device="cpu"):
    return [torch.randn(N).to(device)]


def reference(x):
    return x * 2.0
"""


@pytest.mark.parametrize(
    ("n", "device", "said"), [("1 << 20", "cpu", True), ("1 << 12", "cpu", False), ("1 << 20", "cuda", False)]
)
def test_a_large_module_level_size_without_shapes_is_said_up_front_on_the_cpu(
    tmp_path: Path, n: str, device: str, said: bool
) -> None:
    """newuser10's other leftover: a module-level ``N = 1 << 20`` with no SHAPES is timed whole in the interpreter
    (2**20 is under ``INTERPRETER_MAX_SIZE``, which assumes few programs). ``tune`` now says so among its first
    lines (run by hand: right after "timed on get_inputs()'s defaults", before any candidate), what runs unchanged;
    ``N = 1 << 12`` (tuned in seconds) and a GPU's run are not told."""
    from kernelopt.tuning.problem import Problem, default_size_hint

    (tmp_path / "kernel.py").write_text((DATA / "variants" / "rowmax_fast1" / "kernel.py").read_text())
    (tmp_path / "reference.py").write_text(MODULE_SIZED.format(n=n))
    problem = Problem.from_folder(tmp_path, device=device)
    hint = default_size_hint(problem, [])
    if not said:
        assert hint is None, hint
        return
    assert hint == (
        "no SHAPES: Triton's interpreter runs every program of N=1048576 one at a time, "
        "which may take minutes a candidate; "
        "give reference.py a small SHAPES entry for the CPU (at most 2**16 elements), or scale the sizes (--size-scale)"
    )
    assert default_size_hint(problem, [{"N": 4096}]) is None
