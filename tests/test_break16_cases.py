"""A fresh clone broken, sixteenth trial (break16, 2026-12-06): the fifteenth session's changes tried on near
neighbours of the kernels they were made for; one test per finding (docs/faults.md, "A fresh clone broken, sixteenth
trial")."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

DATA = Path(__file__).parent / "data"


@pytest.mark.timeout(120)
@pytest.mark.parametrize("case", ["warps_helper", "warps_augmented"])
def test_b13_a_block_computed_from_num_warps_by_a_helper_or_an_augmented_assignment_is_netted(
    case: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """break16 b13 (a **wrong written kernel** on a GPU): n69's ReLU (``n // BLOCK`` programs, no masks) with its
    block computed from the warps by a helper's body (``def _block(): return NUM_WARPS * 32``) or an augmented
    assignment (``BLOCK = 32``, ``BLOCK *= nw``): no chain of assignments reads either, so a pick of
    ``num_warps=32`` (BLOCK 1024) passed the entries (8192, 1024), was "only num_warps moved, which change no result
    at any size", the net not cast, and written, wrong at n=64. Now the net is cast and fails it."""
    from kernelopt.tuning import folder as tf
    from tests.test_newuser13_cases import _gpu_prepared
    from tests.test_tuning_net import _evaluator, _session

    monkeypatch.setenv("TRITON_INTERPRET", "1")
    prepared = _gpu_prepared(Path(shutil.copytree(DATA / "break16" / case, tmp_path / case)), monkeypatch)
    with _evaluator(prepared) as evaluator:
        done = tf._checked_edit(_session(prepared, [({"num_warps": 32}, 10.0)], ({"num_warps": 2}, 20.0)), evaluator)
    assert done.edit is None and done.net is not None and done.net.failed is not None, done.edit_note
    assert done.edit_note is not None and "output not written" in done.edit_note, done.edit_note


def test_b13_what_a_launch_option_computes_beyond_a_chain_of_assignments() -> None:
    """``readers.chained_values`` names each read of an option's names that is neither its launch's nor a followed
    assignment's, where it is; an option passed on in a tuple (``return BLOCK_SIZE, num_warps``), a kernel's own
    parameter of the name and the launch alone read none."""
    from kernelopt.tunables import discover_source
    from kernelopt.tunables.readers import chained_values

    def chained(source: str) -> dict[str, object]:
        return chained_values(discover_source(source), source, ["num_warps"])

    helper = (DATA / "break16" / "warps_helper" / "kernel.py").read_text()
    augmented = (DATA / "break16" / "warps_augmented" / "kernel.py").read_text()
    assert chained(helper) == {"_block (line 16)": None}
    assert chained(augmented) == {"BLOCK (line 17)": None}
    module = (DATA / "newuser13" / "warps_module" / "kernel.py").read_text()
    assert chained(module) == {"BLOCK": 64}
    assert chained(module.replace("BLOCK = NUM_WARPS * 32", "BLOCK = 64")) == {}
    passed_on = (DATA / "breaker7" / "xent_chunked" / "kernel.py").read_text()
    assert "return BLOCK_SIZE, num_warps" in passed_on and chained(passed_on) == {}
    own = helper.replace("def _block():", "def _block(NUM_WARPS):").replace("_block()", "_block(2)")
    assert chained(own) == {}
