"""late55: late53's leftovers on written list pins (docs/faults.md, "late53's leftovers on written list pins (late55,
2026-12-07)"). Each test failed on main before its fix; none runs a kernel (breaker22's p1 test runs the written
fla_kda_gate in the interpreter)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.test_late52_cases import _pinned

FLA = Path(__file__).parent / "data" / "breaker22" / "fla_kda_gate" / "kernel.py"

#: (a change to FLA's CachedAutotuner, the reason its refusal names): each a way a subclass could run the kernel
#: otherwise than Triton's Autotuner does, or hand a hook a config's own values
CHANGED = [
    (
        ("    def run(self, *args, **kwargs):\n", "    def _bench(self, *a, config, **m):\n        return 1.0\n\n"),
        "CachedAutotuner overrides Autotuner._bench",
    ),
    (("return super().run(*args, **kwargs)", "return self.fn.run(*args, **kwargs)"), "CachedAutotuner reaches self.fn"),
    (
        ("return super().run(*args, **kwargs)", "kwargs = {}\n        return super().run(*args, **kwargs)"),
        "CachedAutotuner.run rebinds args or kwargs",
    ),
    (('"pre_hook": None,', '"pre_hook": print,'), "CachedAutotuner builds a config whose pre_hook is not None"),
    (
        ("super().__init__(fn, arg_names,", "super().__init__(fn.fn, arg_names,"),
        "CachedAutotuner.__init__ does not hand its callable to Autotuner.__init__ first",
    ),
    (
        ("from triton.runtime.autotuner import Autotuner", "from mylib import Autotuner"),
        "CachedAutotuner is not a plain subclass of Triton's Autotuner",
    ),
]


def test_l250_a_project_s_autotuner_that_runs_its_kernel_as_triton_s_takes_the_heuristic_pin() -> None:
    """breaker22's fla_kda_gate under FLA's ``@fla_cache_autotune``: its ``CachedAutotuner`` (read in kernel.py)
    subclasses Triton's ``Autotuner``, overrides only ``__init__`` (its callable handed on first) and ``run`` (a
    config from a JSON file put in ``self.cache``, its ``pre_hook`` None, then ``return super().run(*args,
    **kwargs)``), so every call reaches a heuristic under it as under Triton's: l230's form is written there (on main:
    "the project's own (fla_cache_autotune), not Triton's", p1's ``BT=128`` lost). A subclass that could run the kernel
    otherwise stays refused, the line naming the class and why."""
    from kernelopt.tunables.list_pin import heuristic_pin

    text = FLA.read_text()
    written, note = heuristic_pin(text, "kda_gate_fwd_kernel", {"BT": 128, "num_warps": 8}, 'args["BD"] <= 64')
    assert written is not None, note
    heuristic = (
        "    **autotune_cache_kwargs,\n)\n@triton.heuristics({\n"
        '    "BT": lambda args: 128 if args["BD"] <= 64 else args["BT"],\n'
        '    "num_warps": lambda args: 8 if args["BD"] <= 64 else args["num_warps"],\n'
        "})\n@triton.jit(do_not_specialize=['T'])\n"
    )
    assert heuristic in written, written
    for (old, new), why in CHANGED:
        assert old in text, old
        refused, note = heuristic_pin(text.replace(old, new), "kda_gate_fwd_kernel", {"BT": 128}, 'args["BD"] <= 64')
        assert refused is None, (old, new)
        assert "the project's own (fla_cache_autotune), not read as Triton's: " + why in note, note


def test_l251_an_autotuner_handed_a_pre_hook_takes_no_heuristic_pin(monkeypatch: pytest.MonkeyPatch) -> None:
    """Triton's ``Autotuner`` calls the decorator's ``pre_hook`` with the config's own values (``full_nargs``, the
    config's ``all_kwargs()``), not the heuristic's the kernel runs: l230 refused a config's ``pre_hook`` and wrote
    the heuristic under ``@triton.autotune(..., pre_hook=...)``. Refused so (by name, by position, or through a splat
    that is not a dict setting none); the same list without it is written."""
    configs = 'triton.Config({"BLOCK": 32}, num_warps=4), triton.Config({"BLOCK": 16}, num_warps=4)'
    text, edit, note = _pinned(monkeypatch, configs, {"BLOCK": 128})
    assert edit is not None, note
    for spelled in ('key=["n"], pre_hook=lambda nargs: None', 'key=["n"], **HOOKS'):
        hooked = text.replace('key=["n"]', spelled)
        if "HOOKS" in spelled:
            hooked = hooked.replace("\n\n\n@triton.autotune", '\n\nHOOKS = {"pre_hook": print}\n\n\n@triton.autotune')
        monkeypatch.setattr("tests.test_late52_cases._autotuned", lambda _c, t=hooked: t)
        _, edit, note = _pinned(monkeypatch, configs, {"BLOCK": 128})
        assert edit is None and note is not None, spelled
        assert "head_scale's autotuner is handed a pre_hook, which it calls with a config's own values" in note, note
