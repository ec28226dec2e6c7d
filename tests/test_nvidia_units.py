"""Numbers and units as Nsight Compute prints them."""

from __future__ import annotations

import pytest

from kernelopt.profiling.units import display_decimals, from_base, parse_number, to_base


@pytest.mark.parametrize(
    ("text", "value"),
    [("13,485", 13485.0), ("9,495.42", 9495.42), ("0", 0.0), ('"1,073,741,824"', 1073741824.0), ("78.19", 78.19)],
)
def test_parse_number(text: str, value: float) -> None:
    assert parse_number(text) == value


@pytest.mark.parametrize("text", ["n/a", "N/A", "", "  ", "nan"])
def test_not_available_is_none(text: str) -> None:
    assert parse_number(text) is None


def test_garbage_raises() -> None:
    with pytest.raises(ValueError):
        parse_number("lots")


@pytest.mark.parametrize(
    ("value", "unit", "base", "base_unit"),
    [
        (64.74, "us", 64740.0, "ns"),
        (1.2, "ms", 1.2e6, "ns"),
        (10776576, "nsecond", 10776576.0, "ns"),
        (2.33, "Mbyte", 2.33e6, "byte"),
        (16.38, "Kbyte/block", 16380.0, "byte/block"),
        (3.76, "Tbyte/s", 3.76e12, "byte/s"),
        (345.14, "Gbyte/second", 345.14e9, "byte/s"),
        (1.98, "Ghz", 1.98e9, "hz"),
        (2.5, "cycle/nsecond", 2.5e9, "cycle/s"),
        (38, "register/thread", 38.0, "register/thread"),
        (78.19, "%", 78.19, "%"),
        (5, "", 5.0, ""),
    ],
)
def test_to_base(value: float, unit: str, base: float, base_unit: str) -> None:
    got, got_unit = to_base(value, unit)
    assert got == pytest.approx(base) and got_unit == base_unit
    assert from_base(got, unit) == pytest.approx(value)


def test_display_decimals() -> None:
    assert display_decimals("345.14") == 2 and display_decimals("13,485") == 0 and display_decimals("7.155") == 3
