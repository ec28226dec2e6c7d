"""The one evaluator of a kernel file's integer arithmetic (tunables/arithmetic.py): Python's own value of each
expression it reads, ``None`` for what it does not, and the narrower readings its callers name."""

from __future__ import annotations

import random

import libcst as cst
import pytest

from kernelopt.tunables.arithmetic import BOUND_OPERATORS, POWER_MOST, integer_value


def _value(code: str, names: dict[str, object] | None = None, **kw: object) -> int | None:
    return integer_value(cst.parse_expression(code), names, **kw)  # type: ignore[arg-type]


def _random_expr(rng: random.Random, depth: int) -> str:
    if depth == 0 or rng.random() < 0.3:
        return rng.choice(["nw", "ns", str(rng.randint(0, 300))])
    pick = rng.randrange(4)
    if pick == 0:
        return f"-({_random_expr(rng, depth - 1)})"
    if pick == 1:
        f = rng.choice(["min", "max"])
        return f"{f}({_random_expr(rng, depth - 1)}, {_random_expr(rng, depth - 1)})"
    op = rng.choice(["+", "-", "*", "//", "%", "<<", ">>", "**"])
    right = str(rng.randint(0, 5)) if op in ("<<", ">>", "**") else _random_expr(rng, depth - 1)
    return f"({_random_expr(rng, depth - 1)}) {op} ({right})"


def test_it_is_python_s_value_of_every_integer_expression_it_reads() -> None:
    rng = random.Random(16)
    names = {"nw": 4, "ns": 3}
    read = 0
    for _ in range(400):
        code = _random_expr(rng, 4)
        try:
            want: object = eval(code, {"__builtins__": {}, "min": min, "max": max}, dict(names))
        except ZeroDivisionError:
            want = None
        got = _value(code, names)
        assert got == want, code
        read += got is not None
    assert read > 300  # most of them are read, not skipped as None


@pytest.mark.parametrize(
    ("code", "names"),
    [
        ("BLOCK * 2", {}),  # a name not known
        ("nw * 2", {"nw": None}),  # a name bound to what was not worked out
        ("nw * 2", {"nw": True}),  # a bool is not an integer here
        ("nw * 2.0", {"nw": 4}),  # a float
        ("triton.next_power_of_2(n)", {"n": 4}),  # an attribute's call
        ("abs(nw)", {"nw": 4}),  # a call it does not read
        ("max(nw)", {"nw": 4}),  # Python refuses max of one integer
        ("min(nw, key=f)", {"nw": 4}),
        ("nw // 0", {"nw": 4}),
        ("nw % 0", {"nw": 4}),
        ("nw << -1", {"nw": 4}),  # a negative shift
        ("nw ** -1", {"nw": 4}),  # a float
        (f"nw ** {POWER_MOST + 1}", {"nw": 2}),  # past the bound: ``nw ** 10 ** 10`` never runs
        ("nw << 10 ** 10", {"nw": 2}),
        ("((((nw ** 64) ** 64) ** 64) ** 64) ** 64", {"nw": 4}),  # the base past 2 ** 64 (late16's l4)
        ("x[0]", {"x": 4}),
    ],
)
def test_what_it_does_not_read_is_none(code: str, names: dict[str, object]) -> None:
    assert _value(code, names) is None


def test_the_narrower_readings_its_callers_name() -> None:
    # a guard's bound: the six operators and integer literals alone, a shift bounded as every reading's
    bound = {"operators": BOUND_OPERATORS, "calls": ()}
    assert _value("1024 // 2 + (1 << 60) - (1 << 60)", **bound) == 512
    assert _value("1 << (1 << 36)", **bound) is None  # read at once, where unbounded it took 21 s and gigabytes
    assert [_value(c, **bound) for c in ("2 ** 10", "7 % 4", "-1", "max(2, 3)", "n * 2")] == [None] * 5
    # a quotient's divisor: a literal or a given name, nothing computed
    plain = {"operators": (), "calls": ()}
    assert [_value(c, {"D": 4}, **plain) for c in ("8", "D", "D * 2", "E")] == [8, 4, None, None]
    # a size folded: every value on the way in 1..2**31 (a step through 0 or a negative is no size)
    size = {"operators": BOUND_OPERATORS | {cst.Power}, "calls": (), "within": (1, 2**31)}
    assert [_value(c, **size) for c in ("65536 // 4", "1 << 16", "2 ** 31", "2 ** 32 // 4", "(1 - 1) + 5", "0")] == [
        16384,
        65536,
        2**31,
        None,
        None,
        None,
    ]
