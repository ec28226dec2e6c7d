"""late53: the pins late52's l220 refused, written where a bound can go (docs/faults.md, "l220's refused pins where a
bound can go (late53, 2026-12-07)"). The test failed on main before its fix; it runs no kernel (the trials'
interpreter checks run the written picks: tests/test_breaker26_cases.py and tests/test_breaker27_cases.py under
``KERNELOPT_GPU_PICKS=1``)."""

from __future__ import annotations

from pathlib import Path

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


def test_l232_a_list_s_value_a_heuristic_under_it_sets_is_no_knob_of_the_list(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """A retune of l230's written fla_logcumsumexp (``tune --device cpu``, 22:05 UTC) searched ``BT`` over the list's
    configs and timed ``BT=16`` and ``64`` at the entries, where the heuristic under the list ran 32 in every config:
    figures of configurations that never ran. A config's value that a heuristic under the list sets is no knob of the
    list, and a heuristic falling back on the config's own value (``args["num_warps"]``) no computed setting to
    tabulate (its value a literal knob since late55's l252); the list as the user wrote it keeps its knobs."""
    from kernelopt.tunables import discover

    two = 'triton.Config({"BLOCK": 32}, num_warps=4), triton.Config({"BLOCK": 128}, num_warps=4)'
    text, edit, _ = _pinned(monkeypatch, two, {"BLOCK": 128, "num_warps": 8})
    assert edit is not None
    kernel = tmp_path / "kernel.py"
    kernel.write_text(edit.new_source, encoding="utf-8")
    found = {t.key: t for t in discover(kernel)}
    for key in ("head_scale.configs[0].BLOCK", "head_scale.configs[1].num_warps"):
        assert not found[key].editable and "set per call by the @triton.heuristics" in (found[key].refused_reason or "")
    heuristic = found["head_scale.heuristics.num_warps"]  # its value a knob, in place (late55 l252)
    assert heuristic.editable and heuristic.value == 8 and heuristic.computed is None, heuristic
    kernel.write_text(text, encoding="utf-8")
    found = {t.key: t for t in discover(kernel)}
    assert found["head_scale.configs[0].BLOCK"].editable and found["head_scale.configs[1].num_warps"].editable
