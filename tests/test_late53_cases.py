"""late53: the pins late52's l220 refused, written where a bound can go (docs/faults.md, "l220's refused pins where a
bound can go (late53, 2026-12-07)"). The test failed on main before its fix; it runs no kernel (the trials'
interpreter checks run the written picks: tests/test_breaker26_cases.py and tests/test_breaker27_cases.py under
``KERNELOPT_GPU_PICKS=1``)."""

from __future__ import annotations

import pytest

from tests.test_late52_cases import _pinned


def test_l230_a_bounded_pin_is_a_heuristic_under_the_user_s_list(monkeypatch: pytest.MonkeyPatch) -> None:
    """l220 refused every pin raising a tile beside a size (six trial picks lost, breaker12-27). The pick is now set
    under the bound by a ``@triton.heuristics`` right under the user's ``@triton.autotune``, the list left as the user
    wrote it: within the bound each config runs the pick's values, past it its own, and the autotuner picks among them
    as before (not the least config, which a pin of it would have run unbenched). A setting every config already holds
    at the pick's value is left to the list."""
    text, edit, note = _pinned(monkeypatch, 'triton.Config({"BLOCK": 32}, num_warps=4)', {"BLOCK": 128})
    assert edit is not None and note is not None, note
    heuristic = '@triton.heuristics({"BLOCK": lambda args: 128 if args["BD"] <= 64 else args["BLOCK"]})\n'
    assert edit.new_source == text.replace("@triton.jit\n", heuristic + "@triton.jit\n"), edit.new_source
    assert 'BLOCK=128 only where args["BD"] <= 64 (a @triton.heuristics under head_scale' in note, note
    assert "the autotune list elsewhere" in note and "BD up to 64 checked" in note, note
    two = 'triton.Config({"BLOCK": 32}, num_warps=4), triton.Config({"BLOCK": 128}, num_warps=4)'
    text, edit, note = _pinned(monkeypatch, two, {"BLOCK": 128, "num_warps": 8})
    assert edit is not None, note
    assert edit.new_source == text.replace(
        "@triton.jit\n",
        "@triton.heuristics({\n"
        '    "BLOCK": lambda args: 128 if args["BD"] <= 64 else args["BLOCK"],\n'
        '    "num_warps": lambda args: 8 if args["BD"] <= 64 else args["num_warps"],\n'
        "})\n@triton.jit\n",
    ), edit.new_source
    assert f"configs=[{two}]" in edit.new_source  # the user's list, kept for every size past the bound
