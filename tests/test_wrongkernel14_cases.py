"""wrongkernel14: the net's blind spots (docs/faults.md, "wrongkernel14"): a size far past the entries (the ``far``
ladder, v47-v50 caught with their rules off) and sizes sharing a factor with the pick's tiles
(:mod:`kernelopt.tuning.net`)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from kernelopt.harness.sizekeys import KeyReading, KeyRole
from kernelopt.tuning.candidate import Outcome
from kernelopt.tuning.net import FarRoom, NetCap, SizeClass, cast, derived_sizes
from kernelopt.tuning.problem import ProblemShape

ROOM = FarRoom(primary_bytes=4 * 4 * 3000, free_bytes=8 * 16 * 70_000)  # 16 bytes an element: 70000 of them


def _far(entries: list[dict[str, Any]], room: FarRoom | None = ROOM, roles: Any = None) -> list[list[str]]:
    sizes = derived_sizes([ProblemShape(kwargs=e) for e in entries], roles=roles, far=room)
    return [[t.label() for t in s.tries] for s in sizes if s.kind is SizeClass.FAR]


def test_the_far_size_doubles_each_key_alone_up_to_the_room_the_primary_s_bytes_allow() -> None:
    """v47's entries (3000 and 8192 elements, common factor 8): each rung twice the last past the largest entry, plus
    the entries' common factor (a size their own grain allows, past one a fixed count of tiles reaches exactly), up to
    the room: the primary's bench peak (16 bytes an element here) against an eighth of the free memory, 70000 elements
    (65544 the last rung). No room: no far size. A key of at most 8 (a code, a ``dim``) does not climb; an exponent
    climbs by one a rung past the past and power sizes' (wrongkernel17's v66); the other keys stay at their largest."""
    assert _far([{"n": 3000}, {"n": 8192}]) == [["n=16392", "n=32776", "n=65544"]]
    assert _far([{"n": 3000}, {"n": 8192}], room=None) == []
    rows = FarRoom(primary_bytes=16 * 8 * 500, free_bytes=ROOM.free_bytes)  # M=8,N=500 the primary
    two = _far([{"M": 8, "N": 500}, {"M": 4, "N": 1000}, {"M": 16, "N": 500}], room=rows)
    assert two == [["M=36,N=1000", "M=68,N=1000"], ["M=16,N=2500"]], two  # M=16,N=4500: 72000 elements
    exponent = {"log_n": KeyReading(KeyRole.EXPONENT, "a dimension is a power of it")}
    assert _far([{"log_n": 10, "act": 2}], roles=exponent) == [["log_n=13,act=2", "log_n=14,act=2"]]


def _rungs(bad_from: int, reach: int) -> tuple[Any, list[str]]:
    """A check where the written kernel is wrong from ``bad_from`` elements and the original refuses past ``reach``."""
    seen: list[str] = []

    def check_at(source: str, shape: ProblemShape) -> tuple[Outcome, str | None]:
        n = shape.kwargs["n"]
        seen.append(f"{source}@{n}")
        if n > reach:
            return Outcome.RUN_ERROR, "AssertionError: at most 64 partial sums"
        return (Outcome.WRONG_RESULT, "differs") if source == "written" and n >= bad_from else (Outcome.OK, None)

    return check_at, seen


def test_the_far_ladder_climbs_while_the_written_kernel_passes_and_stops_where_the_original_refuses() -> None:
    """The ladder runs the written kernel up, rung by rung: failed at the first rung where it fails and the original
    passes (v47's 32776); held at the last it passed where the next is refused by the original (its own reach); with
    no cap, its first rung only."""
    entries = [ProblemShape(kwargs={"n": 3000}), ProblemShape(kwargs={"n": 8192})]
    [far] = [s for s in derived_sizes(entries, far=ROOM) if s.kind is SizeClass.FAR]
    cap = NetCap.of(60.0, 0.0)
    check_at, seen = _rungs(bad_from=32769, reach=65536)
    verdict = cast([far], "original", "written", check_at, cap=cap, clock=lambda: 0.0)
    assert verdict.failed is not None and verdict.failed.shape.label() == "n=32776", verdict.line()
    assert seen == ["written@16392", "written@32776", "original@32776"], seen
    check_at, seen = _rungs(bad_from=10**9, reach=40000)
    verdict = cast([far], "original", "written", check_at, cap=cap, clock=lambda: 0.0)
    assert verdict.failed is None and verdict.checks[0].shape.label() == "n=32776", verdict.line()
    assert seen == ["written@16392", "written@32776", "written@65544", "original@65544"], seen
    check_at, seen = _rungs(bad_from=10**9, reach=10**9)
    verdict = cast([far], "original", "written", check_at, clock=lambda: 0.0)
    assert seen == ["written@16392"] and verdict.checks[0].passed, verdict.line()


@pytest.mark.timeout(120)
def test_v47_fails_the_far_size_with_its_rule_off(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """wrongkernel13's v47 (parts_capped: a second stage summing at most 64 partials, ``BLOCK=512`` reaching 32768 of
    the original's 65536 elements), written plainly (its rule off), passed every size of the net before the far size
    (8193, 8196, 1501): the ladder fails it at its second rung, 32776, where the original passes, and nothing is
    written. v48-v50 likewise (``benchmarks/net_catch.py cases``; docs/faults.md, "wrongkernel14")."""
    from tests.test_tuning_net import plain_pick_checked

    done = plain_pick_checked(tmp_path, monkeypatch, "parts_capped", {"BLOCK": 512})
    assert done.edit is None and done.net is not None and done.net.failed is not None, done.edit_note
    assert done.net.failed.kind is SizeClass.FAR and done.net.failed.shape.label() == "n=32776", done.net.line()
    assert done.net.failed.outcome is Outcome.WRONG_RESULT, done.net.line()


JOINT = [(64, 16), (32, 16), (16, 16), (8, 16), (8, 8), (4, 8), (4, 4), (2, 4), (2, 2), (1, 2), (1, 1)]


def test_the_residue_size_steps_each_key_alone_down_from_half_its_grain() -> None:
    """Each key alone at its largest entry plus half the entries' grain, a quarter, ... down to 1 (v52's rows of 128
    and 256 by columns of 64 and 32: grains 128 and 32), the rest at their largest; none for a key whose entries share
    no factor of two (its odd entry: the original handles odd sizes) or a small one; none where the pick grows no tile
    (``residue`` off)."""
    entries = [ProblemShape(kwargs={"M": 128, "N": 64}), ProblemShape(kwargs={"M": 256, "N": 32})]
    assert not [s for s in derived_sizes(entries) if s.kind is SizeClass.RESIDUE]  # no tile grown: none
    sizes = derived_sizes(entries, residue=True)
    residue = [[t.label() for t in s.tries] for s in sizes if s.kind is SizeClass.RESIDUE]
    assert residue == [
        [f"M={256 + d},N=64" for d in (64, 32, 16, 8, 4, 2, 1)],
        [f"M=256,N={64 + d}" for d in (16, 8, 4, 2, 1)],
        [f"M={256 + d},N={64 + e}" for d, e in JOINT],  # the keys together (wrongkernel15)
    ], residue
    odd = [ProblemShape(kwargs={"n": 3001, "act": 2}), ProblemShape(kwargs={"n": 8192, "act": 2})]
    odd = derived_sizes(odd, residue=True)
    assert not [s for s in odd if s.kind is SizeClass.RESIDUE]


def _blocks(pick: int, own: int) -> Any:
    """A check where the original handles multiples of its block ``own`` only, the written kernel of ``pick``."""
    seen: list[str] = []

    def check_at(source: str, shape: ProblemShape) -> tuple[Outcome, str | None]:
        n = shape.kwargs["n"]
        seen.append(f"{source}@{n}")
        ok = n % (pick if source == "written" else own) == 0
        return (Outcome.OK, None) if ok else (Outcome.WRONG_RESULT, "output not written")

    return check_at, seen


def test_the_residue_size_descends_to_the_original_s_block_and_is_cast_only_where_it_refuses_odd_sizes() -> None:
    """n61's form (``n // BLOCK`` programs, no masks; entries 8192 and 1024): a pick whose block is 256 over the
    original's 64 passes 8704 and 8448 and fails 8320, a multiple of the original's block: caught; one of 64 passes every step down to 8256 and stops where the original fails (8224). An
    original that passes the past size's first try (masks) casts no residue size."""
    entries = [ProblemShape(kwargs={"n": 8192}), ProblemShape(kwargs={"n": 1024})]
    sizes = [s for s in derived_sizes(entries, residue=True) if s.kind in (SizeClass.PAST, SizeClass.RESIDUE)]
    check_at, seen = _blocks(pick=256, own=64)
    verdict = cast(sizes, "original", "written", check_at, clock=lambda: 0.0)
    assert verdict.failed is not None and verdict.failed.kind is SizeClass.RESIDUE, verdict.line()
    assert verdict.failed.shape.label() == "n=8320", verdict.line()
    assert seen[2:] == ["written@8704", "written@8448", "written@8320", "original@8320"], seen
    check_at, seen = _blocks(pick=64, own=64)
    verdict = cast(sizes, "original", "written", check_at, clock=lambda: 0.0)
    assert verdict.failed is None and verdict.checks[-1].shape.label() == "n=8256", verdict.line()
    assert seen[-2:] == ["written@8224", "original@8224"], seen
    check_at, seen = _blocks(pick=1, own=1)
    verdict = cast(sizes, "original", "written", check_at, clock=lambda: 0.0)
    assert [c.kind for c in verdict.checks] == [SizeClass.PAST] and seen == ["written@8193"], seen


@pytest.mark.timeout(120)
def test_v53_a_tile_computed_from_two_settings_fails_the_residue_size_with_the_rules_off(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """v53 (tile_two_knobs: ``TILE = BLOCK * UNROLL``, 128, a grid of ``n // TILE`` programs without masks; SHAPES 8192
    and 1024): a pick of ``TILE=256`` written plainly (the rules off) passed every size of the net: the original
    refuses the odd ones, the half size stepped by the entries' 1024 (the computed tile is read as grown by nothing).
    The residue size descends to 8320, a multiple of the original's 128 and not of 256: caught. Since wrongkernel20's
    v87 (the floor cast for a tile shrunk too) the floor, taken first as a size the table's rows serve, fails it at
    128 elements (no program of 256), which the original runs."""
    from tests.test_tuning_net import plain_pick_checked

    done = plain_pick_checked(tmp_path, monkeypatch, "tile_two_knobs", {"TILE": 256})
    assert done.edit is None and done.net is not None and done.net.failed is not None, done.edit_note
    assert done.net.failed.kind is SizeClass.FLOOR and done.net.failed.shape.label() == "n=128", done.net.line()


def test_a_module_level_size_beside_the_keys_steps_alone_from_one_past_then_down_from_half_its_power_of_two() -> None:
    """v54's ``HIDDEN = 1024`` beside a ``rows`` key (residue on): the keys at their largest, ``HIDDEN`` at 1025, then
    1536, 1280, ..., 1026; none without a grown tile, none for a small or non-integer constant, none where the
    constants are what moves (no key: the past and half sizes move them already)."""
    entries = [ProblemShape(kwargs={"rows": 4}), ProblemShape(kwargs={"rows": 8})]
    consts = {"HIDDEN": 1024, "GROUPS": 4, "SCALE": 0.5}  # a tuple: tests/test_wrongkernel15_cases.py
    sizes = derived_sizes(entries, constants=consts, residue=True)
    steps = [[t.label() for t in s.tries] for s in sizes if s.kind is SizeClass.CONSTANT]
    assert steps == [[f"rows=8,HIDDEN={1024 + d}" for d in (1, 512, 256, 128, 64, 32, 16, 8, 4, 2)]], steps
    assert not [s for s in derived_sizes(entries, constants=consts) if s.kind is SizeClass.CONSTANT]
    alone = derived_sizes([ProblemShape(kwargs={})], constants={"HIDDEN": 1024}, residue=True)
    assert alone and not [s for s in alone if s.kind is SizeClass.CONSTANT]


@pytest.mark.timeout(120)
def test_v54_a_tile_dividing_a_module_level_size_fails_the_constant_size_with_its_rule_off(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """v54 (row_module_size: rows of reference.py's ``HIDDEN = 1024`` looped in blocks of 256 without masks, SHAPES of
    4 and 8 rows): ``BLOCK=512`` written plainly (its rule off) passed every size of the net, which moved the rows
    only, and was wrong at the 1280 columns the original handled. The constant size: 1025 (refused by the original),
    1536 (passed), 1280: caught."""
    from tests.test_tuning_net import plain_pick_checked

    done = plain_pick_checked(tmp_path, monkeypatch, "row_module_size", {"BLOCK": 512})
    assert done.edit is None and done.net is not None and done.net.failed is not None, done.edit_note
    assert done.net.failed.kind is SizeClass.CONSTANT, done.net.line()
    assert done.net.failed.shape.label() == "rows=8,HIDDEN=1280", done.net.line()


@pytest.mark.timeout(120)
def test_v55_a_count_of_tiles_of_a_product_is_guarded_by_its_reach_and_the_far_size_keeps_out_the_plain_pick(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """v55 (parts_unroll: v47's two-stage sum whose first stage sums ``UNROLL=4`` blocks of ``BLOCK=256`` a program,
    counted ``triton.cdiv(n, BLOCK * UNROLL)``, the second stage one block of 64): main before this lane (a5bd810f)
    wrote ``UNROLL=2`` plainly with the rules on, the net correct at 8193, 8196 and 1501, wrong past 32768 elements.
    The count of tiles of a product is read as v41's (each tile with the others as factors): ``if n <= 32768``, and
    that text passes the net, the far size included (32776: the original values there); the plain pick (rules off)
    fails the far size at 32776, where the original passes."""
    import shutil

    from kernelopt.tunables.guard import Guarded
    from kernelopt.tuning import folder as tf
    from tests.test_tuning_net import _evaluator, _session

    monkeypatch.setenv("TRITON_INTERPRET", "1")
    folder = Path(shutil.copytree(Path(__file__).parent / "data" / "variants" / "parts_unroll", tmp_path / "v55"))
    prepared = tf.prepare_folder(tf.TuneRequest(folder=folder, device="cpu"))
    current = prepared.space.current()
    tuning = _session(prepared, [({"UNROLL": 2}, 1.0)], (current.as_dict() if current is not None else {}, 2.0))
    with _evaluator(prepared) as evaluator:
        guarded = tf._checked_edit(tuning, evaluator)
        with monkeypatch.context() as m:
            m.setattr(tf, "guard_edit", lambda old, new, **_: Guarded(new_source=new, note=None))
            plain = tf._checked_edit(tuning, evaluator)
    assert guarded.edit is not None and "    if n <= 32768:  # kernelopt: tuned\n" in guarded.edit.new_source
    assert guarded.net is not None and guarded.net.failed is None, guarded.net.line()
    assert "n=32776" in guarded.net.line(), guarded.net.line()
    assert plain.edit is None and plain.net is not None and plain.net.failed is not None, plain.edit_note
    assert plain.net.failed.kind is SizeClass.FAR and plain.net.failed.shape.label() == "n=32776", plain.net.line()


GPU_CASES = [
    # variant, its SHAPES as written, realistic SHAPES, the pick, the size the plain pick fails at (None: any joint
    # residue, below), its class
    ("parts_capped", '[{"n": 3000}, {"n": 8192}]', '[{"n": 12000}, {"n": 16384}]', {"BLOCK": 512}, "n=32800", "far"),
    ("parts_unroll", '[{"n": 3000}, {"n": 8192}]', '[{"n": 12000}, {"n": 16384}]', {"UNROLL": 2}, "n=32800", "far"),
    (
        "tile2d_nomask",
        '[{"M": 128, "N": 64}, {"M": 256, "N": 32}]',
        '[{"M": 4096, "N": 2048}, {"M": 8192, "N": 1024}]',
        {"BLOCK_N": 8},
        "M=8192,N=2052",
        "residue",
    ),
    (
        "tile_two_knobs",
        '[{"n": 8192}, {"n": 1024}]',
        '[{"n": 4194304}, {"n": 1048576}]',
        {"TILE": 256},
        "n=4194432",
        "residue",
    ),
    (  # wrongkernel15's v56: the joint residue (both keys off their multiples)
        "flat2d_nomask",
        '[{"M": 64, "N": 64}, {"M": 32, "N": 64}]',
        '[{"M": 4096, "N": 4096}, {"M": 2048, "N": 4096}]',
        {"BLOCK": 64},
        None,  # the joint steps are bisected: 4100 x 4104 expected, 4100 x 4100 found (H100 2026-12-06)
        "residue",
    ),
]


@pytest.mark.gpu
@pytest.mark.timeout(600)
@pytest.mark.parametrize(("variant", "shapes", "realistic", "pick", "size", "kind"), GPU_CASES)
def test_on_cuda_the_far_and_residue_sizes_keep_out_the_plain_picks_and_pass_what_the_rules_write(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    variant: str,
    shapes: str,
    realistic: str,
    pick: dict[str, int],
    size: str | None,
    kind: str,
) -> None:
    """On a GPU, compiled, at realistic sizes: v47 and v55 (parts_capped, parts_unroll over 12000 and 16384
    elements), v52 (tile2d_nomask
    over 4096 x 2048 and 8192 x 1024), v53 (tile_two_knobs over 2**22 and 2**20 elements) and wrongkernel15's v56
    (flat2d_nomask over 4096 x 4096 and 2048 x 4096: it fails a joint residue, both keys off the pick's multiple,
    ``M * N`` a multiple of the original's 16 and not of the pick's 64, as 4100 x 4100 or 4100 x 4104, the size not
    pinned: kkt18, as its CPU twin in test_wrongkernel15_cases.py). With the rules off the
    plain pick fails the far size (v47, v55: 32800 elements, past the 64 partials of 512) or the residue size (v52's 2052
    columns, v53's 2**22 + 128 elements: multiples of the original's block and not of the pick's) where the original
    passes, and nothing is written; with the rules on what they write passes the net (v53's pick is refused by its
    rule: nothing to net)."""
    from tests.test_tuning_net import realistic_picks

    off, on = realistic_picks(tmp_path, monkeypatch, variant, shapes, realistic, pick)
    assert off.edit is None and off.net is not None and off.net.failed is not None, off.edit_note
    failed = off.net.failed
    assert failed.kind.value == kind and (size is None or failed.shape.label() == size), off.net.line()
    if size is None:  # flat2d_nomask's joint residue: both keys off the pick's block, which leaves elements unwritten
        m, n, block = failed.shape.kwargs["M"], failed.shape.kwargs["N"], pick["BLOCK"]
        assert m % block and n % block and (m * n) % 16 == 0 and (m * n) % block, off.net.line()
    if variant == "tile_two_knobs":
        assert on.edit is None and on.net is None and "not written" in (on.edit_note or ""), on.edit_note
    else:
        assert on.edit is not None and on.net is not None and on.net.failed is None, on.net
