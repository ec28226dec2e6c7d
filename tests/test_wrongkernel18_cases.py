"""wrongkernel18: a pick that raises below the smallest entry, where the original runs (docs/faults.md v70, b17 on
the H100: ``assert triton.cdiv(n, BLOCK) >= 8`` over ``BLOCK = 256``, ``BLOCK = 1024`` written, raising from 7168
elements down; the net looked no lower than half the smallest kept entry, 16385). The net's ``floor`` size descends
below the smallest entry, a halving a rung, down to the original's block."""

from __future__ import annotations

from pathlib import Path

import pytest

from kernelopt.harness.sizekeys import KeyRole, key_roles
from kernelopt.tuning.candidate import Outcome
from kernelopt.tuning.net import DerivedSize, SizeClass, cast, derived_sizes
from kernelopt.tuning.problem import ProblemShape
from tests.test_wrongkernel17_cases import _caught, _checked, _refused_by_the_grid

VECTOR = "def get_inputs(n=32768):\n    return [torch.randn(n)]\n"


def _floors(
    get_inputs: str, entries: list[dict[str, int]], block: int | None, constants: dict[str, int] | None = None
) -> list[DerivedSize]:
    """The floor sizes of a pick growing a tile to 1024 over ``entries`` (``constants``: reference.py's module-level
    sizes, the entries then naming none), keys read from the text of ``get_inputs``."""
    shapes = [ProblemShape(kwargs=e, constants=constants or {}) for e in entries]
    sizes = derived_sizes(shapes, (1024,), key_roles(get_inputs), constants, residue=True, block=block)
    return [s for s in sizes if s.kind is SizeClass.FLOOR]


def _floor(block: int | None) -> DerivedSize:
    [floor] = _floors(VECTOR, [{"n": 32768}, {"n": 65536}], block)
    return floor


def test_the_floor_size_halves_the_smallest_entry_made_odd_down_to_the_original_s_block() -> None:
    """A quarter of the smallest entry, an eighth, ... made odd (the size below took the half), each with its plain
    halving to run where the original refuses the odd one, down to the first rung at or under the original's block;
    with no block (a tile the kernel computes), down to 1. Only where a tile grows (``residue``)."""
    floor = _floor(256)
    assert [t.kwargs["n"] for t in floor.tries] == [8193, 4097, 2049, 1025, 513, 257]
    assert [f.kwargs["n"] for f in floor.fallbacks] == [8192, 4096, 2048, 1024, 512, 256]
    assert [t.kwargs["n"] for t in _floor(None).tries][-3:] == [5, 3, 1]
    entries = [ProblemShape(kwargs={"n": 32768})]
    assert not [s for s in derived_sizes(entries, (), key_roles(VECTOR)) if s.kind is SizeClass.FLOOR]


def test_the_floor_ladder_fails_a_pick_that_raises_where_the_original_runs_and_stops_where_the_original_refuses() -> (
    None
):
    """The written kernel down the rungs while it passes: failed at the first rung where it raises and the original
    runs (``BLOCK=1024`` at 4097, v70); a correct pick passes every rung down to where the original refuses the odd
    rung and its plain halving (a power-of-two original: its plain halvings only), held at the last it passed."""
    seen: list[str] = []

    def check_at(source: str, shape: ProblemShape) -> tuple[Outcome, str | None]:
        n, block = shape.kwargs["n"], (1024 if source == "written" else 256)
        seen.append(f"{source}@{n}")
        return (Outcome.OK, None) if -(-n // block) >= 8 else (Outcome.RUN_ERROR, "AssertionError: at least 8")

    wrong = cast([_floor(256)], "original", "written", check_at)
    assert wrong.failed is not None and wrong.failed.shape.label() == "n=4097", wrong.line()
    assert seen == ["written@8193", "written@4097", "original@4097"]
    seen.clear()
    right = cast([_floor(256)], "original", "original", check_at)
    assert right.failed is None and right.checks[0].shape.label() == "n=2049", right.line()
    assert seen[-4:] == ["original@1025", "original@1025", "original@1024", "original@1024"]

    def pow2(source: str, shape: ProblemShape) -> tuple[Outcome, str | None]:
        n = shape.kwargs["n"]
        return (
            (Outcome.OK, None) if n & (n - 1) == 0 and (source == "original" or n >= 4096) else (Outcome.RUN_ERROR, "x")
        )

    caught = cast([_floor(256)], "original", "written", pow2)
    assert caught.failed is not None and caught.failed.shape.label() == "n=2048", caught.line()


@pytest.mark.timeout(120)
def test_v70_a_pick_that_raises_below_the_smallest_entry_fails_the_floor_size_with_the_rules_on(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """v70 (programs_floor: b17's kernel, ``assert triton.cdiv(n, BLOCK) >= 8`` over ``BLOCK = 256``; SHAPES 32768
    and 65536): ``BLOCK=1024`` was written with the rules on, "correct at n=65537, n=66048, n=16385, ...", and raises
    at 2048 to 7168 elements, which the original runs. Now the floor size fails it at 4097; nothing is written."""
    done = _checked(tmp_path, monkeypatch, "programs_floor", {"BLOCK": 1024})
    _caught(done, SizeClass.FLOOR, "n=4097")


def test_the_floor_moves_a_key_handed_to_run_and_a_module_level_size_and_a_seed_run_reads_is_handed_to_it() -> None:
    """A key ``get_inputs`` hands to ``run()`` (a chunk) halves with the dimensions, and where the module-level sizes
    are what moves (``N = 32768``, no SHAPES) they do; a key of at most :data:`SMALL_KEY` stays. A key that seeds the
    generator and is handed to ``run()`` (``manual_seed(chunk)`` beside ``return [x, chunk]``) is handed to it, no
    longer kept as a seed."""
    text = (
        "def get_inputs(n=65536, chunk=4096, code=2):\n    g = torch.Generator().manual_seed(chunk)\n"
        "    return [torch.randn(n, generator=g), chunk, code]\n"
    )
    roles = key_roles(text)
    assert (roles["chunk"].role, roles["code"].role) == (KeyRole.PASSED, KeyRole.PASSED), roles
    assert (
        key_roles("def get_inputs(n=8, seed=3):\n    torch.manual_seed(seed)\n    return [torch.randn(n)]\n")[
            "seed"
        ].why
        == "a seed"
    )
    floor, *alone = _floors(text, [{"n": 65536, "chunk": 4096, "code": 2}], 128)
    assert [a.tries[0].label() for a in alone] == ["n=16385,chunk=4096,code=2", "n=65536,chunk=1025,code=2"]
    assert [t.label() for t in floor.tries][:2] == ["n=16385,chunk=1025,code=2", "n=8193,chunk=513,code=2"]
    assert floor.fallbacks[0] is not None and floor.fallbacks[0].label() == "n=16384,chunk=1024,code=2"
    [floor] = _floors("", [{}], None, {"N": 32768})
    assert [t.constants["N"] for t in floor.tries][:3] == [8193, 4097, 2049]


@pytest.mark.timeout(120)
def test_v71_a_pick_that_raises_below_a_module_level_size_fails_its_floor(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """v71 (programs_module_size: v70's kernel over reference.py's ``N = 32768``, no SHAPES): with v70's fix alone
    ``BLOCK=1024`` was written, "correct at N=32769, N=33280" (the floor moved tensor dimensions only); now the
    module-level size has its floor: fails at N=4097; nothing written."""
    done = _checked(tmp_path, monkeypatch, "programs_module_size", {"BLOCK": 1024})
    _caught(done, SizeClass.FLOOR, "N=4097")


@pytest.mark.timeout(120)
def test_v72_a_chunk_that_seeds_the_generator_and_is_handed_to_run_fails_its_floor(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """v72 (chunk_parts_seeded: chunk sums over at least 4 programs of ``BLOCK=128`` a chunk, the chunk seeding the
    generator and handed to ``run()``; SHAPES chunks of 4096 and 8192): ``BLOCK=1024`` was written, "kept chunk (a
    seed)", raising at chunks of 3072 and less, which the original runs down to 385. Now the chunk is handed to
    ``run()`` and its floor fails the pick at chunks of 1024 (1025 is no divisor of n: the plain halving)."""
    done = _checked(tmp_path, monkeypatch, "chunk_parts_seeded", {"BLOCK": 1024})
    _refused_by_the_grid(done)  # the net's catch was at its floor, n=16384,chunk=1024


def test_each_dimension_has_a_floor_of_its_own_where_there_are_two() -> None:
    """Two dimensions: after their floor together, each alone, the other at its smallest entry (v73: the columns'
    rungs refused by the original, the rows' floor still met); one dimension has its floor together only."""
    text = "def get_inputs(n_rows=2048, n_cols=64):\n    return [torch.randn(n_rows, n_cols)]\n"
    floors = _floors(text, [{"n_rows": 2048, "n_cols": 64}, {"n_rows": 4096, "n_cols": 128}], 32)
    assert [[t.label() for t in f.tries] for f in floors] == [
        [
            "n_rows=513,n_cols=17",
            "n_rows=257,n_cols=9",
            "n_rows=129,n_cols=5",
            "n_rows=65,n_cols=3",
            "n_rows=33,n_cols=1",
        ],
        [
            "n_rows=513,n_cols=64",
            "n_rows=257,n_cols=64",
            "n_rows=129,n_cols=64",
            "n_rows=65,n_cols=64",
            "n_rows=33,n_cols=64",
        ],
        ["n_rows=2048,n_cols=17"],
    ]


@pytest.mark.timeout(120)
def test_v73_a_pick_that_raises_below_the_entries_rows_where_the_columns_are_refused_fails_the_rows_own_floor(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """v73 (rows_programs_floor: row scaling over tiles of ``BLOCK_M=32`` rows, at least 4 programs, rows of a multiple
    of 64 columns; SHAPES 1024 x 64 and 2048 x 128): ``BLOCK_M=128`` was written with v70-v72's fixes, the floor's
    rungs refused whole by the original (17 and 16 columns) and the size below one at 513 rows above the pick's floor
    of 385; raises at 384 rows and less, which the original runs down to 97. Now the rows' own floor fails it at
    257 rows; nothing is written."""
    done = _checked(tmp_path, monkeypatch, "rows_programs_floor", {"BLOCK_M": 128})
    _caught(done, SizeClass.FLOOR, "n_rows=257,n_cols=64")


@pytest.mark.timeout(120)
def test_v74_a_pick_that_raises_below_an_exponent_s_smallest_entry_fails_its_floor(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """v74 (programs_pow2_floor: v70's kernel over ``1 << log_n`` elements; SHAPES log_n 15 and 16): ``BLOCK=1024``
    was written after v70-v73's fixes, "correct at log_n=17, log_n=18" (an exponent had no size below its smallest
    entry, and the floor moved none); raises at 2048 and 4096 elements, which the original runs. Now an exponent's
    floor steps down by one a rung: fails at log_n=12; nothing written."""
    [floor] = _floors("def get_inputs(log_n=15):\n    return [torch.randn(1 << log_n)]\n", [{"log_n": 15}], 256)
    assert [t.kwargs["log_n"] for t in floor.tries] == [14, 13, 12, 11, 10, 9, 8]
    done = _checked(tmp_path, monkeypatch, "programs_pow2_floor", {"BLOCK": 1024})
    _caught(done, SizeClass.FLOOR, "log_n=12")


@pytest.mark.timeout(120)
def test_v75_a_floor_whose_halvings_the_original_s_grain_refuses_steps_on_multiples_of_the_entries_grain(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """v75 (programs_vec8_floor: v70's kernel asserting ``n % 8 == 0`` too; SHAPES 100000 and 200000, multiples of 32):
    ``BLOCK=1024`` was written after v70-v74's fixes, the floor held at 25000 and stopped at 12501 and 12500, which the
    original refuses; raises at 2048 to 7168 elements, which the original runs. Now a rung's plain halving refused,
    it is rounded down to a multiple of the entries' power of two (12480): fails at 6240; nothing written."""
    [floor] = _floors(VECTOR, [{"n": 100000}, {"n": 200000}], 256)
    assert [f.kwargs["n"] for f in floor.fallbacks[:3] if f is not None] == [25000, 12500, 6250]
    assert [f.kwargs["n"] for f in floor.rounded[:4] if f is not None] == [24992, 12480, 6240, 3104]
    done = _checked(tmp_path, monkeypatch, "programs_vec8_floor", {"BLOCK": 1024})
    _caught(done, SizeClass.FLOOR, "n=6240")


@pytest.mark.timeout(120)
def test_v76_a_floor_keeps_the_entries_odd_factor_in_its_plain_halvings(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """v76 (programs_rgb_floor: v70's kernel asserting ``n % 3 == 0``, whole pixels of 3 channels; SHAPES 98304 and
    196608): ``BLOCK=1024`` was written with v75's fix alone, its rounding to the entries' power of two dropping the 3
    (24577 and 16384 refused: the floor stopped at its first rung); raises at 3072 to 6144 elements, which the
    original runs. Now the plain halving (24576, a multiple of 3) runs first: fails at 6144; nothing written."""
    [floor] = _floors(VECTOR, [{"n": 98304}, {"n": 196608}], 256)
    assert [f.kwargs["n"] for f in floor.fallbacks[:3] if f is not None] == [24576, 12288, 6144]
    done = _checked(tmp_path, monkeypatch, "programs_rgb_floor", {"BLOCK": 1024})
    _caught(done, SizeClass.FLOOR, "n=6144")


GPU_CASES = [
    ("programs_floor", 'SHAPES = [{"n": 32768}, {"n": 65536}]', 'SHAPES = [{"n": 4194304}, {"n": 8388608}]', "n=4097"),
    ("programs_module_size", "N = 32768", "N = 4194304", "N=4097"),
    (
        "chunk_parts_seeded",
        'SHAPES = [{"n": 65536, "chunk": 4096}, {"n": 32768, "chunk": 8192}]',
        'SHAPES = [{"n": 4194304, "chunk": 4096}, {"n": 4194304, "chunk": 8192}]',
        "n=1048576,chunk=1024",
    ),
    (
        "rows_programs_floor",
        'SHAPES = [{"n_rows": 1024, "n_cols": 64}, {"n_rows": 2048, "n_cols": 128}]',
        'SHAPES = [{"n_rows": 65536, "n_cols": 64}, {"n_rows": 131072, "n_cols": 128}]',
        "n_rows=257,n_cols=64",
    ),
    (
        "programs_pow2_floor",
        'SHAPES = [{"log_n": 15}, {"log_n": 16}]',
        'SHAPES = [{"log_n": 22}, {"log_n": 23}]',
        "log_n=12",
    ),
    (
        "programs_vec8_floor",
        'SHAPES = [{"n": 100000}, {"n": 200000}]',
        'SHAPES = [{"n": 4000000}, {"n": 8000000}]',
        "n=3840",
    ),
    (
        "programs_rgb_floor",
        'SHAPES = [{"n": 98304}, {"n": 196608}]',
        'SHAPES = [{"n": 6291456}, {"n": 12582912}]',
        "n=6144",
    ),
]


@pytest.mark.gpu
@pytest.mark.timeout(600)
@pytest.mark.parametrize(("variant", "shapes", "realistic", "at"), GPU_CASES)
def test_on_cuda_v70_to_v76_s_picks_fail_the_floor_below_the_entries_rules_on_or_off(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, variant: str, shapes: str, realistic: str, at: str
) -> None:
    """On a GPU, compiled, at realistic sizes each original compiles for sm_90 (``compile_for_target``, no error,
    2026-12-06 18:55, 19:17 and 19:30 UTC): ``BLOCK=1024`` (``BLOCK_M=128`` for v73) over v70's 2**22 and 2**23
    elements, v71's ``N = 2**22``, v72's chunks of 4096 and 8192 in 2**22 elements, v73's 65536 and 131072 rows, v74's
    log_n 22 and 23, v75's 4000000 and 8000000 and v76's 3 * 2**21 and 3 * 2**22 elements fails the floor size where
    the original runs, whether the rules are on or off (none reads a host assert on the programs' count), and nothing
    is written."""
    from tests.test_tuning_net import realistic_picks

    pick = {"BLOCK_M": 128} if variant == "rows_programs_floor" else {"BLOCK": 1024}
    for done in realistic_picks(tmp_path, monkeypatch, variant, shapes, realistic, pick):
        _caught(done, SizeClass.FLOOR, at)
