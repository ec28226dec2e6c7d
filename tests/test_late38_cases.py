"""late38: a table's row tests a size as the launch reads it (docs/faults.md "## Sizes read at the launch (late38,
2026-12-07)"). tests/data/variants/moe_padded_tokens is vLLM's batched MoE (breaker23) whose launcher pads
``max_num_tokens`` to whole 64-row tiles after reading its config, so the grid counts ``triton.cdiv(padded, BLOCK_M)``
tiles of tokens and the assert reads the padded size too."""

from __future__ import annotations

import shutil
from pathlib import Path
from types import SimpleNamespace

import libcst as cst
import pytest

from tests.test_breaker7_cases import _correct_padded

MOE = Path(__file__).parent / "data" / "variants" / "moe_padded_tokens"
KEY_CPU = 'get_device_name() == "cpu"'
PAD = "    max_num_tokens = triton.cdiv(max_num_tokens, 64) * 64\n"
LAUNCHED = "(triton.cdiv(max_num_tokens, 64) * 64)"


def _guarded(source: str):
    from kernelopt.tunables.edit import write_table
    from kernelopt.tunables.guard import guard_edit
    from kernelopt.tunables.model import Bucket, TunedTable

    rows = [Bucket(upto=64, values={"BLOCK_M": 16, "BLOCK_N": 32, "BLOCK_K": 32})]
    table = write_table(
        source, TunedTable(size="max_num_tokens", buckets=rows, key=KEY_CPU), kernel="batched_triton_kernel"
    )
    return guard_edit(source, table.new_source or "")


def _holds(test: str, tokens: int, columns: int) -> bool:
    """The row's test at ``tokens`` (the size bound at the row) and ``B.size(1) == columns``, the tiles 16 x 32 (the
    caller's dict's 32 columns, the M row's 16 rows)."""
    names = {
        "triton": SimpleNamespace(cdiv=lambda a, b: -(-a // b)),
        "B": SimpleNamespace(size=lambda axis: columns),
        "config": {"BLOCK_SIZE_N": 32},
        "max_num_tokens": tokens,
        "BLOCK_M": 16,
        "get_device_name": lambda: "cpu",
    }
    return bool(eval(test, names))  # the row's own test, written by guard_edit from our fixture


@pytest.mark.timeout(120)
def test_l70_a_row_s_grid_count_and_divisor_read_the_size_the_launch_reads(tmp_path: Path) -> None:
    """configs24's c44 row held ``triton.cdiv(max_num_tokens, 16) * triton.cdiv(B.size(1), ...) <= 65535`` over the
    size bound at the row; this launcher pads it to 64 rows after, so at 16 tokens and 2**19 columns in 32-column
    tiles the row counted 1 x 16384 programs on axis 1 where the launch counts 4 x 16384 = 65536, past a GPU's
    65535. The row reads the padded size now: it turns that size away (the caller's dict runs), keeps a size whose
    launch fits, and the written kernel is right at a size SHAPES does not name (40 tokens: no multiple of 16)."""
    source = (MOE / "kernel.py").read_text()
    assert PAD in source
    guarded = _guarded(source)
    assert guarded.new_source is not None, guarded.note
    tests = [
        line.split("if ", 1)[1].split(":  # kernelopt: tuned")[0]
        for line in guarded.new_source.splitlines()
        if line.endswith("# kernelopt: tuned") and "65535" in line
    ]
    assert len(tests) == 2, tests
    m_row = next(t for t in tests if "16) * triton.cdiv(B.size(1)" in t)
    assert f"triton.cdiv({LAUNCHED}, 16) * " in m_row and f"{LAUNCHED} % 16 == 0" in m_row, m_row
    n_row = next(t for t in tests if "triton.cdiv(B.size(1), 32)" in t)
    assert f"triton.cdiv({LAUNCHED}, BLOCK_M) * " in n_row, n_row
    # the grid's count, reasoned: 16 tokens pad to 64, so 16-row tiles count 4 and 32-column tiles of 2**19 columns
    # 16384; the old value's count was 1 x 16384, within the limit, the launch's 65536, past it
    cdiv = lambda a, b: -(-a // b)  # noqa: E731
    assert cdiv(16, 16) * cdiv(2**19, 32) <= 65535 < cdiv(cdiv(16, 64) * 64, 16) * cdiv(2**19, 32)
    for row in (m_row, n_row):
        assert _holds(row.replace(LAUNCHED, "max_num_tokens"), 16, 2**19)  # what c44 wrote: held past the limit
        assert not _holds(row, 16, 2**19)
        assert _holds(row, 16, 2**18)  # 4 x 8192 programs: the row serves
    folder = tmp_path / "moe"
    folder.mkdir()
    shutil.copy(MOE / "reference.py", folder / "reference.py")
    (folder / "kernel.py").write_text(guarded.new_source)
    (folder / "configs").symlink_to(MOE / "configs", target_is_directory=True)
    got = _correct_padded(folder, [{"E": 3, "T": 40, "K": 40, "N": 72}])  # 40 tokens pad to 64: the row serves
    assert all(v is True for v in got.values()), got


def test_l71_a_reassignment_the_row_cannot_read_refuses_the_row_and_one_after_the_launch_is_not_read() -> None:
    """A size rebound after the row in a way its test cannot carry (an augmented assignment, a branch's, one from a
    name itself rebound after the row) refuses the
    row by name, where before the test read the old value silently; a size rebound only after its last read (the
    launch) is read at the row, as before."""
    from kernelopt.tunables.launch_value import UnreadSize, value_at_launch

    source = (MOE / "kernel.py").read_text()
    with pytest.raises(UnreadSize, match="max_num_tokens is rebound after the row in a way its test cannot read"):
        _guarded(source.replace(PAD, "    max_num_tokens += 64 - max_num_tokens % 64\n"))  # the table itself (l73)
    fn = cst.ensure_type(
        cst.parse_module(
            "def launch(n, pad, m, BLOCK):\n    row = 0\n    m = n\n    pad = pad * 2\n    n = n + pad\n"
            "    if pad:\n        BLOCK = 32\n    k[(n // BLOCK,)](n)\n    n = 0\n    m = 1\n"
        ).body[0],
        cst.FunctionDef,
    )
    body = cst.ensure_type(fn.body, cst.IndentedBlock).body
    assert "pad, itself rebound after the row" in str(value_at_launch(fn, body[0], cst.parse_expression("n")))
    branch = value_at_launch(fn, body[0], cst.parse_expression("n // BLOCK"))
    assert "BLOCK is rebound after the row in a way its test cannot read" in str(branch)
    plain = fn.with_changes(body=fn.body.with_changes(body=[*body[:2], body[3], *body[5:]]))
    n_at = value_at_launch(plain, body[0], cst.parse_expression("n // BLOCK"))
    assert not isinstance(n_at, str) and cst.Module([]).code_for_node(n_at) == "(n + pad) // BLOCK"
    m_at = value_at_launch(plain, body[0], cst.parse_expression("m"))
    assert not isinstance(m_at, str) and cst.Module([]).code_for_node(m_at) == "m"  # rebound after its last read


#: a launcher that doubles the first half of ``x`` unmasked: the original's 64-element tiles divide it where its
#: assert says, and ``n`` is halved after the tile is set
HALVES = """import torch
import triton
import triton.language as tl


@triton.jit
def double(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(y_ptr + offs, tl.load(x_ptr + offs) * 2)


def run(x):
    n = x.shape[0]
    BLOCK = 64
    n = n // 2
    assert n % BLOCK == 0
    y = x.clone()
    double[(n // BLOCK,)](x, y, n, BLOCK=BLOCK)
    return y
"""


def test_l72_a_literal_s_guard_reads_the_size_the_launch_reads(tmp_path: Path) -> None:
    """The same question for a plain literal's guard (``--set BLOCK=128`` guarded at its line): the guard was
    ``n % 128 == 0`` over the size before ``n = n // 2``, so at 128 elements it set 128 where the launch asserts
    ``64 % 128 == 0`` (the original's 64 ran there). The guard reads ``(n // 2)`` now: the original runs at 128
    elements, 128-element tiles at 256, both right in the interpreter."""
    import torch

    from kernelopt.tunables.guard import guard_edit
    from tests.conftest import load_fresh, triton_interpreted

    guarded = guard_edit(HALVES, HALVES.replace("    BLOCK = 64\n", "    BLOCK = 128\n"))
    assert guarded.new_source is not None, guarded.note
    assert "    if (n // 2) % 128 == 0:  # kernelopt: tuned\n        BLOCK = 128\n" in guarded.new_source, guarded.note
    (tmp_path / "kernel.py").write_text(guarded.new_source)
    with triton_interpreted():
        kernel = load_fresh(tmp_path / "kernel.py", "_late38_halves")
        for length in (128, 256):
            x = torch.arange(length, dtype=torch.float32)
            want = torch.cat([x[: length // 2] * 2, x[length // 2 :]])
            assert torch.equal(kernel.run(x), want), length


#: v130: a row-wise launcher that doubles ``n`` after its setting is computed; the run records the doubled size at the
#: launch, which is what a table's buckets are made of (``folder._size_of``)
DOUBLES = Path(__file__).parent / "data" / "variants" / "doubled_after_setting"


def test_l73_a_table_s_bound_reads_the_size_its_buckets_were_recorded_at() -> None:
    """A table's buckets are sizes recorded at the launch (SHAPES entries of 64 and 128 elements: ``n`` is 64 and 128
    there); its bound was written ``if n <= 64:`` over ``n`` before ``n = n * 2``, so the 64-element bucket's row
    also served 65-128 elements (``n`` 33-64 at the row), sizes the session timed with the computation's 64-wide
    tile, never with the row's 32. The bound reads ``(n * 2)`` now: it holds at the sizes of its bucket only."""
    from kernelopt.tunables.edit import write_table
    from kernelopt.tunables.model import Bucket, TunedTable

    table = TunedTable(size="n", buckets=[Bucket(upto=64, values={"BLOCK": 32})])
    new = write_table((DOUBLES / "kernel.py").read_text(), table, kernel="double").new_source or ""
    assert "    if (n * 2) <= 64:  # kernelopt: tuned\n        BLOCK = 32\n    n = n * 2\n" in new, new
    test = new.split("    if ", 1)[1].split(":  # kernelopt: tuned")[0]
    served = [length for length in range(2, 257, 2) if eval(test, {"n": length // 2})]  # the row's n at each length
    assert served == list(range(2, 65, 2))  # before: up to 128 elements, twice the bucket's sizes
    assert eval("n <= 64", {"n": 128 // 2})  # what was written held at 128 elements, past the bucket


def test_l74_a_literal_moved_beside_a_table_is_bounded_by_the_size_the_launch_reads() -> None:
    """late39's Seen line: a literal a pick moves beside a table (``warps = 4`` to 8) is set under the table's bound,
    a bound over the sizes recorded at the launch, but it was written over ``n`` where the literal stands, before
    ``n = n * 2``: ``if n <= 64`` there held up to 128 elements, twice the sizes the session timed the pick at. It now
    reads the rebinding (``(n * 2) <= 64``); a launch keyword, set after the rebinding, keeps the bound as it is."""
    from kernelopt.tunables.guard import bound_moves

    text = (DOUBLES / "kernel.py").read_text()
    old = text.replace("    n = n * 2\n", "    warps = 4\n    n = n * 2\n").replace(
        "BLOCK=BLOCK)", "BLOCK=BLOCK, num_warps=warps, num_stages=2)"
    )
    new = old.replace("warps = 4\n", "warps = 8\n").replace("num_stages=2)", "num_stages=3)")
    bounded = bound_moves(old, new, "n <= 64", at_launch=True)
    written = bounded.new_source or ""
    assert "    if (n * 2) <= 64:  # kernelopt: tuned\n        warps = 8\n    n = n * 2\n" in written, bounded.note
    # a launch literal gets a line of its own, after the rebinding: n there is what the launch reads and records
    assert (
        "    n = n * 2\n    y = torch.empty_like(x)\n    num_stages = 2\n    if n <= 64:  # kernelopt: tuned\n"
        in written
    )
    test = written.split("    if ", 1)[1].split(":  # kernelopt: tuned")[0]
    assert [length for length in range(2, 257, 2) if eval(test, {"n": length // 2})] == list(range(2, 65, 2))
    plain = bound_moves(old, new, "n <= 64").new_source or ""  # a bound in the row's own terms is written as given
    assert "    if n <= 64:  # kernelopt: tuned\n        warps = 8\n" in plain


def _doubled_row(test: str, setting: str = "BLOCK = 32") -> str:
    """v130 with a tuned row ``if <test>:`` setting ``setting`` where the table writes it, before ``n = n * 2``."""
    computed = "    BLOCK = min(triton.next_power_of_2(n), 1024)\n"
    row = f"{computed}    if {test}:  # kernelopt: tuned\n        {setting}\n"
    return (DOUBLES / "kernel.py").read_text().replace(computed, row)


def test_l75_a_row_s_test_holds_where_its_row_reads_it_not_at_the_launch_s_value() -> None:
    """late37's ``guard_run`` evaluated each row's test with the launch's recorded values: v130's row ``(n * 2) <= 64``
    (l73's writing of the bucket up to 64 elements) was read with the launch's ``n`` (64 at 64 elements) as 128 <= 64,
    so the written kernel was said to run the original at the very size its row was timed at (a right write dropped,
    or a figure the original's). It reads the rebinding back now: the row holds at 64 elements, not at 128; a row
    over the row-time ``n`` (which no launch value reads without inverting the doubling) is not read (``None``: the
    session's judgement stands as it was, as for any test that cannot be evaluated, and the edit's note names it)."""
    from kernelopt.tunables.guard_holds import guard_run, unread_at_launch

    written = _doubled_row("(n * 2) <= 64")
    at = {length: guard_run(written, lambda name, n=length: n if name == "n" else None) for length in (64, 128)}
    assert at[64] is not None and at[64].held == {"BLOCK": 32}
    assert at[128] is not None and at[128].held == {}
    assert guard_run(_doubled_row("n <= 64"), lambda name: 64 if name == "n" else None) is None
    assert unread_at_launch(_doubled_row("n <= 64")) == ["n <= 64"]  # named in the edit's note (judge_as_written)
    assert unread_at_launch(_doubled_row("(n * 2) <= 64")) == []


def test_l76_a_dead_row_over_a_reassigned_size_is_found() -> None:
    """late39's Seen line: ``dead_rows`` bounded only a row written ``<size> <= hi``, so a row over v130's reassigned
    ``n`` (``(n * 2) <= 3000 and (n * 2) % 4096 == 0``, which holds at no launch size of its bucket) was kept as
    text. It reads the row over the launch's ``n`` now, as ``guard_run`` does: dropped, its live neighbour kept."""
    from kernelopt.tunables.guard_holds import dead_rows

    source = _doubled_row(
        "(n * 2) <= 64 and (n * 2) % 32 == 0",
        "BLOCK = 32\n    elif (n * 2) <= 3000 and (n * 2) % 4096 == 0:  # kernelopt: tuned\n        BLOCK = 64",
    )
    live, dead = dead_rows(source, "n")
    assert dead == ["(n * 2) <= 3000 and (n * 2) % 4096 == 0"]
    assert (
        "    if (n * 2) <= 64 and (n * 2) % 32 == 0:  # kernelopt: tuned\n        BLOCK = 32\n    n = n * 2\n" in live
    )


def test_l77_a_setting_beside_a_guarded_tile_reads_the_guard_from_its_own_place() -> None:
    """late39's Seen line: ``folder._guard_beside`` set a pick's other settings under the guard written at its tile
    (``(n // 2) % 128 == 0`` before ``n = n // 2``), copied as text to a setting after the halving (``warps``), where
    ``n`` is already halved: at 256 elements the tile took 128 and ``warps`` kept 4, a combination never timed. The
    guard is read over the launch's values now (``n % 128 == 0``), then from the setting's own place: both agree."""
    from kernelopt.tunables.guard import bound_moves, guard_edit
    from kernelopt.tunables.guard_holds import read_at_launch

    base = HALVES.replace("    y = x.clone()\n", "    warps = 4\n    y = x.clone()\n")
    base = base.replace("BLOCK=BLOCK)", "BLOCK=BLOCK, num_warps=warps)")
    first = guard_edit(base, base.replace("    BLOCK = 64\n", "    BLOCK = 128\n"))
    assert first.tests == ("(n // 2) % 128 == 0",) and first.new_source is not None, first.note
    launch = read_at_launch(first.new_source, first.tests[0])  # _guard_beside's reading
    assert launch == "n % 128 == 0"
    moved = first.new_source.replace("warps = 4", "warps = 8")
    bounded = bound_moves(first.new_source, moved, launch, at_launch=True)
    assert "    warps = 4\n    if n % 128 == 0:  # kernelopt: tuned\n        warps = 8\n" in (bounded.new_source or "")
    tile, beside = "(n // 2) % 128 == 0", "n % 128 == 0"  # each read where it stands: n halved between them
    for length in range(2, 1025, 2):
        assert eval(tile, {"n": length}) == eval(beside, {"n": length // 2}), length
    assert read_at_launch(first.new_source, "n % 64 == 0") is None  # no tuned if tests it: passed as before
