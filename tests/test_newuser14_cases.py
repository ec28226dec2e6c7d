"""A new user's first hour on a fresh clone, fourteenth trial (2026-12-06): what the sixteenth session changed (blocks
computed from num_warps through module level, a parameter's default, a helper, ``*=``; the set-aside of an entry the
original cannot run; the table's fallbacks; the re-time's estimate; an atomic setting held; a list whose pick the
host reads) tried on the user's own kernels, and bad input of every kind; one test per fix (docs/faults.md, "A new
user's first hour, fourteenth trial")."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from tests.test_newuser13_cases import _gpu_prepared

DATA = Path(__file__).parent / "data" / "newuser14"


@pytest.mark.timeout(120)
def test_n75_a_block_computed_from_the_warps_through_the_launch_s_options_dict_is_netted(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """n75 (**a wrong written kernel** on a GPU): a ReLU over ``n // BLOCK`` programs without masks whose launch
    options are a dict, ``opts = {"num_warps": 2}``, ``BLOCK = opts["num_warps"] * 32``, ``relu_kernel[...](...,
    BLOCK=BLOCK, **opts)``. A pick of ``num_warps=32`` was written as ``opts = {"num_warps": 32}`` (BLOCK 1024): it
    passed the entries (8192, 1024), the net was not cast ("only num_warps moved": a dict holding the literal binds no
    name), and the file was wrong at n=64, 1088 and 8256. Now the dict's read by the option's key casts the net."""
    from kernelopt.tuning import folder as tf
    from tests.test_tuning_net import _evaluator, _session

    monkeypatch.setenv("TRITON_INTERPRET", "1")
    prepared = _gpu_prepared(Path(shutil.copytree(DATA / "opts_dict", tmp_path / "opts_dict")), monkeypatch)
    with _evaluator(prepared) as evaluator:
        done = tf._checked_edit(_session(prepared, [({"num_warps": 32}, 10.0)], ({"num_warps": 2}, 20.0)), evaluator)
    assert done.edit is None and done.net is not None and done.net.failed is not None, done.edit_note
    assert done.edit_note is not None and done.edit_note.startswith("the written kernel fails at n=8704 "), (
        done.edit_note
    )


def test_n75_a_launch_options_dict_is_read_by_its_key_alone() -> None:
    """What a moved launch option held in a dict computes (``readers.chained_values``): a read of the dict by the
    option's key (``opts["num_warps"]``, ``cfg.get("num_warps")``) is named by its line; the dict's splat into the
    launch and its subscript by another key (``cfg["BLOCK"]`` beside ``dict(BLOCK=64, num_warps=2)``) are not."""
    from kernelopt.tunables import discover_source
    from kernelopt.tunables.readers import chained_values

    source = (DATA / "opts_dict" / "kernel.py").read_text()
    assert chained_values(discover_source(source), source, ["num_warps"]) == {"line 16 (opts['num_warps'])": None}
    through_get = source.replace('opts["num_warps"] * 32', 'opts.get("num_warps") * 32')
    assert chained_values(discover_source(through_get), through_get, ["num_warps"]) == {
        "line 16 (opts['num_warps'])": None
    }
    alone = source.replace('BLOCK = opts["num_warps"] * 32', "BLOCK = 64")
    assert chained_values(discover_source(alone), alone, ["num_warps"]) == {}
    other_key = source.replace('opts = {"num_warps": 2}', "opts = dict(BLOCK=64, num_warps=2)").replace(
        'BLOCK = opts["num_warps"] * 32', 'BLOCK = opts["BLOCK"]'
    )
    assert chained_values(discover_source(other_key), other_key, ["num_warps"]) == {}
