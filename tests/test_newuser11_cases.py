"""A new user's first hour on a fresh clone, eleventh trial (2026-12-06): what the twelfth session changed (per-bucket
tables holding computed warps, rows only of timed configurations, one round per comparison, the pace and the request
bound, the net's quarter size, integer outputs, the entries' one rule) tried on the user's own kernels, and bad input
of every kind; one test per fix (docs/faults.md, "A new user's first hour, eleventh trial")."""

from __future__ import annotations

from pathlib import Path

import pytest

DATA = Path(__file__).parent / "data"

#: a reference whose get_inputs says it takes an integer size, and one whose scale has a float default
TYPED_REFERENCE = """import torch


def get_inputs(n: int = 4096, scale=1, flag: bool = False, device: str = "cpu"):
    return [torch.randn(n).to(device) * scale]


def reference(x):
    return x
"""


def test_n60_a_bool_or_a_fraction_where_get_inputs_takes_an_integer_is_refused_before_the_session(
    tmp_path: Path,
) -> None:
    """n60: ``SHAPES = [{"n": 4096}, {"n": True}]`` ran a session at n=1 and said "timed on n=4096 (not in the
    interpreter, too large: n=True)"; ``{"n": 1000.5}`` where ``get_inputs(n: int = 4096)`` reached the bench worker
    and ended in torch's long ``randn()`` TypeError. The entries' one rule refuses both in one line, before the
    session; a fraction where nothing says the parameter is an integer (a scale) and a bool where it takes one are
    left alone."""
    from kernelopt.errors import EXIT_BAD_INPUT, InputFileError
    from kernelopt.tuning.shapes import check_entries

    reference = tmp_path / "reference.py"
    reference.write_text(TYPED_REFERENCE)
    for entry, said in [
        ({"n": True}, "SHAPES[1] {'n': True} cannot be built: n is the bool True, where get_inputs takes an integer; "
         "write 'n': 1 if that is the size meant"),
        ({"n": 1000.5}, "SHAPES[1] {'n': 1000.5} cannot be built: n is the float 1000.5, where get_inputs takes an "
         "integer (n: int); write 'n' as an integer"),
        ({"scale": True}, "SHAPES[1] {'scale': True} cannot be built: scale is the bool True, where get_inputs takes "
         "an integer; write 'scale': 1 if that is the size meant"),
    ]:  # fmt: skip
        with pytest.raises(InputFileError) as caught:
            check_entries(reference, [{"n": 4096}, entry])
        assert caught.value.exit_code == EXIT_BAD_INPUT
        assert caught.value.one_line().endswith(said), caught.value.one_line()
    check_entries(reference, [{"n": 8}, {"n": 8, "scale": 0.5}, {"n": 8, "flag": True}])
