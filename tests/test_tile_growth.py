"""The dominance rules hold only where tiles grow with the block knobs (tuneleft9).

tuneleft8's rules (``Space.larger_tiles``: no tile larger than one refused for its ``tl.dot``'s shared memory is
proposed, no K smaller than one that failed a GPU's K >= 16) took every block knob to grow the tiles. A knob that divides
a tile (``tl.arange(0, SPAN // BLOCK_D)``: the form ``BLOCK = N // SPLIT``) shrinks it, and a block-named knob that
spans no tile of the kernel (a count of programs, a loop's trip count) says nothing of them: the rule then set aside
configurations whose tiles were smaller than the refused one's, never timing them. The kernel's body now tells which way
each knob moves its tiles (:func:`kernelopt.tunables.tile_growth.tile_growth`), and the rule follows it."""

from __future__ import annotations

from collections.abc import Sequence

import pytest

from kernelopt.tunables import discover_source
from kernelopt.tunables.tile_growth import tile_growth
from kernelopt.tuning.budget import Budget, ManualClock
from kernelopt.tuning.candidate import Config, Outcome, Result
from kernelopt.tuning.launch import space_from_tunables
from kernelopt.tuning.session import tune

SHARE = """
import torch
import triton
import triton.language as tl

SPAN = tl.constexpr(4096)


@triton.jit
def _share(a_ptr, b_ptr, c_ptr, M, N, BLOCK_M: tl.constexpr, BLOCK_D: tl.constexpr, BLOCK_G: tl.constexpr):
    # each program reduces its rows over a SPAN-wide window taken BLOCK_D pieces at a time: a piece is SPAN // BLOCK_D
    KS = SPAN // BLOCK_D
    rm = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
    rk = tl.arange(0, KS)
    acc = tl.zeros((BLOCK_M, 16), dtype=tl.float32)
    for g in range(BLOCK_G):  # a block-named count of passes, no tile
        for d in range(BLOCK_D):
            a = tl.load(a_ptr + rm[:, None] * SPAN + d * KS + rk[None, :], mask=rm[:, None] < M, other=0.0)
            b = tl.load(b_ptr + (d * KS + rk)[:, None] * 16 + tl.arange(0, 16)[None, :])
            acc += tl.dot(a, b, input_precision="ieee")
    tl.store(c_ptr + rm[:, None] * 16 + tl.arange(0, 16)[None, :], acc, mask=rm[:, None] < M)


def run(a, b):
    c = torch.empty(a.shape[0], 16, device=a.device, dtype=torch.float32)
    _share[(triton.cdiv(a.shape[0], 32),)](a, b, c, a.shape[0], 16, BLOCK_M=32, BLOCK_D=64, BLOCK_G=1)
    return c
"""


def test_the_kernel_body_tells_which_way_each_knob_moves_its_tiles() -> None:
    assert tile_growth(SHARE, "_share") == {"BLOCK_M": 1, "SPAN": 1, "BLOCK_D": -1}  # BLOCK_G spans no tile
    odd = """
@triton.jit
def k(p, A: tl.constexpr, B: tl.constexpr, C: tl.constexpr):
    x = tl.arange(0, A % 64)
    y = tl.zeros((A, B if C else 16), dtype=tl.float32)
    q = tl.make_block_ptr(p, (64, 64), (64, 1), (0, 0), (tl.cdiv(64, C), B), (1, 0))
"""
    # A both in a % (direction unknown) and a shape: unknown; C in a condition and a cdiv's divisor: unknown
    assert tile_growth(odd, "k") == {"A": 0, "B": 1, "C": 0}
    assert tile_growth(odd, "nothing") == {} and tile_growth("def (", "k") == {}


def _space() -> object:
    tunables = [t for t in discover_source(SHARE) if t.name not in ("num_warps", "num_stages")]
    return space_from_tunables(tunables, problem_sizes={"M": 4096}, source=SHARE)


def test_larger_tiles_follow_the_direction_each_knob_moves_them() -> None:
    space = _space()
    assert {"BLOCK_M", "BLOCK_D", "BLOCK_G"} <= space.block_knobs()  # type: ignore[attr-defined]
    refused = {"BLOCK_M": 64, "BLOCK_D": 16, "BLOCK_G": 1}
    # a larger divisor is a smaller piece: before, (64, 32) was "each at least" the refused tiles and set aside
    assert not space.larger_tiles({"BLOCK_M": 64, "BLOCK_D": 32, "BLOCK_G": 1}, refused)  # type: ignore[attr-defined]
    assert space.larger_tiles({"BLOCK_M": 128, "BLOCK_D": 8, "BLOCK_G": 1}, refused)  # type: ignore[attr-defined]
    # a count of passes moves no tile: another value is no larger tile, and not compared as one
    assert not space.larger_tiles({"BLOCK_M": 128, "BLOCK_D": 8, "BLOCK_G": 2}, refused)  # type: ignore[attr-defined]
    # the launch options aside: the bound is measured at one stage in the interpreter, which ignores them
    staged = {**refused, "num_stages": 2}
    assert space.larger_tiles({**refused, "num_stages": 4}, staged)  # type: ignore[attr-defined]


class _Dot:
    """The interpreter's tl.dot bound on ``_share``: its operand tiles are BLOCK_M x (4096 // BLOCK_D) and
    (4096 // BLOCK_D) x 16 fp32, refused past 100 KiB (``grows_with_tiles``); the rest timed."""

    LIMIT = 100 * 1024

    def __init__(self) -> None:
        self.asked: list[Config] = []

    @classmethod
    def refuses(cls, c: Config | dict) -> bool:
        ks = 4096 // int(c["BLOCK_D"])
        return (int(c["BLOCK_M"]) * ks + ks * 16) * 4 > cls.LIMIT

    def evaluate(self, batch: Sequence[Config]) -> list[Result]:
        out = []
        for c in batch:
            self.asked.append(c)
            if self.refuses(c):
                out.append(Result(config=c.as_dict(), outcome=Outcome.INVALID, reason="tl.dot", grows_with_tiles=True))
            else:
                out.append(Result(config=c.as_dict(), outcome=Outcome.OK, latency_us=100.0 + int(c["BLOCK_D"])))
        return out

    def retime(self, batch: Sequence[Config]) -> list[Result]:
        return [r.model_copy(update={"retimed": True}) for r in self.evaluate(batch)]

    def close(self) -> None:
        pass


@pytest.mark.timeout(30)
def test_a_sweep_times_every_configuration_whose_tiles_fit() -> None:
    """An exhaustive session over _share's space, the bound refusing what it refuses: every configuration whose tiles
    fit is timed. Read as if every block knob grew the tiles (the kernel not read, as before), some that fit were never
    proposed (150 of 420 on 2026-12-05): each had a larger BLOCK_D (a smaller piece) than a refused one."""
    from kernelopt.tuning.candidate import COMPUTED

    missed: dict[bool, int] = {}
    for source in (SHARE, None):
        tunables = [t for t in discover_source(SHARE) if t.name not in ("num_warps", "num_stages")]
        space = space_from_tunables(tunables, problem_sizes={"M": 4096}, source=source)
        ev = _Dot()
        tune(space, ev, budget=Budget(space.size.count, ManualClock()), strategy="exhaustive")  # type: ignore[arg-type]
        fits = [c for c in space.configs() if COMPUTED not in c.values() and not ev.refuses(c)]
        asked = {c.key() for c in ev.asked}
        assert any(ev.refuses(c) for c in ev.asked), "the space must reach past the bound for the test to say anything"
        missed[source is None] = sum(c.key() not in asked for c in fits)
    assert missed[False] == 0, missed  # the kernel read: every configuration that fits is timed
    assert missed[True] > 0, missed  # every block knob read as growing: some never proposed
