"""floor18: the net's floor under an original asserting ``n % 1000 == 0`` (docs/faults.md v77). break18's b22 gave
a refused floor rung a last stand-in, its halving rounded down to a multiple of every divisor up to 64 of the entries'
common factor; a modulus above 64 escaped it. A refused rung now tries the divisors of the entries' common factor
below it, largest first (``net.FLOOR_DIVISOR_TRIES`` at most): every modulus the entries satisfy divides that factor,
so one of its multiples is among them down to the modulus itself."""

from __future__ import annotations

from pathlib import Path

import pytest

from kernelopt.tuning.net import SizeClass
from tests.test_wrongkernel17_cases import _caught, _checked
from tests.test_wrongkernel18_cases import VECTOR, _floors


@pytest.mark.timeout(120)
def test_v77_a_pick_that_raises_below_the_entries_of_an_original_asserting_n_mod_1000_fails_the_floor(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """v77 (programs_mod1000_floor: v70's kernel, at least 8 programs of 256, asserting ``n % 1000 == 0``; SHAPES
    100000 and 200000): ``BLOCK=512`` was **written** with the rules on, the floor held at 12500's stand-in 12000
    and stopped at 6251, 6250, 6240 and 5600 (b22's multiple of 800), which the original refuses; it raises at 3000
    and 2000 elements, which the original runs. Now the rung's divisors of 100000 below 6250 run (5000 passes), then
    those below 3125 (2500 refused, 2000 run): the pick fails at n=2000; nothing is written."""
    [floor] = _floors(VECTOR, [{"n": 100000}, {"n": 200000}], 256)
    fourth = [p.kwargs["n"] for p in floor.divisors[3]]  # the rung of 3125, its halving and rounding 3104 before
    assert fourth[:4] == [2500, 2000, 1250, 1000] and 0 < len(fourth) <= 12, fourth
    done = _checked(tmp_path, monkeypatch, "programs_mod1000_floor", {"BLOCK": 512})
    _caught(done, SizeClass.FLOOR, "n=2000")
