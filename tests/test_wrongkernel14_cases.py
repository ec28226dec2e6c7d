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
    (65544 the last rung). No room: no far size. A key of at most 8 (a code, a ``dim``) and an exponent do not climb;
    the other keys stay at their largest."""
    assert _far([{"n": 3000}, {"n": 8192}]) == [["n=16392", "n=32776", "n=65544"]]
    assert _far([{"n": 3000}, {"n": 8192}], room=None) == []
    rows = FarRoom(primary_bytes=16 * 8 * 500, free_bytes=ROOM.free_bytes)  # M=8,N=500 the primary
    two = _far([{"M": 8, "N": 500}, {"M": 4, "N": 1000}, {"M": 16, "N": 500}], room=rows)
    assert two == [["M=36,N=1000", "M=68,N=1000"], ["M=16,N=2500"]], two  # M=16,N=4500: 72000 elements
    exponent = {"log_n": KeyReading(KeyRole.EXPONENT, "a dimension is a power of it")}
    assert _far([{"log_n": 10, "act": 2}], roles=exponent) == []


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
