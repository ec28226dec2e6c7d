"""late55: late53's leftovers on written list pins (docs/faults.md, "late53's leftovers on written list pins (late55,
2026-12-07)"). Each test failed on main before its fix; none runs a kernel (breaker22's p1 test runs the written
fla_kda_gate in the interpreter)."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

import pytest

from tests.test_late52_cases import _pinned
from tests.test_review28_cases import _autotuned

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
    (('"pre_hook": None', '"pre_hook": print'), "CachedAutotuner builds a config whose pre_hook is not None"),
    (
        ("super().__init__(fn, arg_names,", "super().__init__(fn.fn, arg_names,"),
        "CachedAutotuner.__init__ does not hand its callable to Autotuner.__init__ first",
    ),
    (
        ("= triton.Config({}, num_warps=4, **extra)", "= load(extra)"),
        "CachedAutotuner.run puts in self.cache a config it does not build",
    ),
    (
        (
            "        return super().run(*args, **kwargs)",
            "        keep(self)\n        return super().run(*args, **kwargs)",
        ),
        "CachedAutotuner.run hands self on",
    ),
    (
        ("from triton.runtime.autotuner import Autotuner", "from mylib import Autotuner"),
        "CachedAutotuner is not a plain subclass of Triton's Autotuner",
    ),
]


#: FLA's CachedAutotuner and its factory, cut to their shape (tests/data/breaker22/fla_kda_gate/kernel.py has them whole)
CACHED = """class CachedAutotuner(Autotuner):
    def __init__(self, fn, arg_names, configs, key, reset_to_zero, restore_value, **kwargs):
        super().__init__(fn, arg_names, configs, key, reset_to_zero, restore_value, **kwargs)
        self.kernel_name = fn.fn.__name__ if hasattr(fn, "fn") else fn.__name__

    def run(self, *args, **kwargs):
        if tuple(kwargs) not in self.cache:
            extra = {"pre_hook": None}
            self.cache[tuple(kwargs)] = triton.Config({}, num_warps=4, **extra)
        return super().run(*args, **kwargs)


def cache_autotune(configs, key=None, prune_configs_by=None, reset_to_zero=None, restore_value=None, pre_hook=None):
    def decorator(fn):
        return CachedAutotuner(fn, fn.arg_names, configs, key, reset_to_zero, restore_value, pre_hook=pre_hook)

    return decorator


"""


def test_l250_a_project_s_autotuner_that_runs_its_kernel_as_triton_s_takes_the_heuristic_pin() -> None:
    """breaker22's fla_kda_gate under FLA's ``@fla_cache_autotune``: its ``CachedAutotuner`` (read in kernel.py)
    subclasses Triton's ``Autotuner``, overrides only ``__init__`` (its callable handed on first) and ``run`` (a
    config from a JSON file put in ``self.cache``, its ``pre_hook`` None, then ``return super().run(*args,
    **kwargs)``), so every call reaches a heuristic under it as under Triton's: l230's form is written there (on main:
    "the project's own (fla_cache_autotune), not Triton's", p1's ``BT=128`` lost). A subclass that could run the kernel
    otherwise stays refused, the line naming the class and why."""
    from kernelopt.tunables.list_pin import heuristic_pin
    from kernelopt.tunables.own_autotuner import own_autotuner_refusal
    from kernelopt.tunables.syntax import parsed

    text = FLA.read_text()
    module = parsed(text).module
    assert own_autotuner_refusal(module, "fla_cache_autotune") is None
    own = _autotuned('triton.Config({"BLOCK": 32}, num_warps=4), triton.Config({"BLOCK": 16}, num_warps=4)')
    own = own.replace("import torch\n", f"import torch\nfrom triton.runtime.autotuner import Autotuner\n\n{CACHED}")
    own = own.replace("@triton.autotune(", "@cache_autotune(")
    written, note = heuristic_pin(own, "head_scale", {"BLOCK": 128}, 'args["BD"] <= 64')
    assert written is not None, note
    heuristic = '@triton.heuristics({"BLOCK": lambda args: 128 if args["BD"] <= 64 else args["BLOCK"]})\n'
    assert written == own.replace("@triton.jit\n", heuristic + "@triton.jit\n"), written
    for (old, new), why in CHANGED:
        assert old in own, old
        said = own_autotuner_refusal(parsed(own.replace(old, new)).module, "cache_autotune")
        assert said is not None and said.startswith(why), (why, said)
    hooked = own.replace("return super().run(*args, **kwargs)", "return self.fn.run(*args, **kwargs)")
    refused, note = heuristic_pin(hooked, "head_scale", {"BLOCK": 128}, 'args["BD"] <= 64')
    assert (
        refused is None
        and "the project's own (cache_autotune), not read as Triton's: CachedAutotuner reaches self.fn" in note
    )


def test_l251_an_autotuner_handed_a_pre_hook_takes_no_heuristic_pin(monkeypatch: pytest.MonkeyPatch) -> None:
    """Triton's ``Autotuner`` calls the decorator's ``pre_hook`` with the config's own values (``full_nargs``, the
    config's ``all_kwargs()``), not the heuristic's the kernel runs: l230 refused a config's ``pre_hook`` and wrote
    the heuristic under ``@triton.autotune(..., pre_hook=...)``. Refused so (by name, by position, or through a splat
    that is not a dict setting none); the same list without it is written."""
    from kernelopt.tunables.own_autotuner import hookless_args
    from kernelopt.tunables.syntax import parsed

    configs = 'triton.Config({"BLOCK": 32}, num_warps=4), triton.Config({"BLOCK": 16}, num_warps=4)'
    hooked = _autotuned(configs).replace('key=["n"]', 'key=["n"], pre_hook=lambda nargs: None')
    monkeypatch.setattr("tests.test_late52_cases._autotuned", lambda _c: hooked)
    _, edit, note = _pinned(monkeypatch, configs, {"BLOCK": 128})
    assert edit is None and note is not None
    assert "head_scale's autotuner is handed a pre_hook, which it calls with a config's own values" in note, note
    before = ["configs", "key", "prune_configs_by", "reset_to_zero", "restore_value"]
    for spelled, holds in (
        ('HOOKS = {"pre_hook": print}\nf(c, k, **HOOKS)', False),
        ('HOOKS = {"cache_results": True} if X else {}\nf(c, k, **HOOKS)', True),
        ("f(c, k, None, None, None, print)", False),
        ("f(c, k, *more)", False),
        ("f(c, k, pre_hook=None)", True),
    ):
        module = parsed(spelled + "\n").module
        call = module.body[-1].body[0].value  # type: ignore[attr-defined]
        assert hookless_args(call, module, before) is holds, spelled


def test_l252_a_written_pick_s_value_is_a_knob_a_retune_moves_in_place(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """A retune of l230's written form (``"BLOCK": lambda args: 128 if args["BD"] <= 64 else args["BLOCK"]`` under
    the list) found no knob: the configs under it are not editable (l232), and the heuristic's value read as a
    computation of ``args["BLOCK"]``, "no size to tabulate it by" (on the CPU: "no tunable knob"). Its value is a
    literal knob now: moved in place, the bound and the list's fallback kept; a change by name moves it alone (the
    configs under it carry the name too), and a raise past the sizes the entries told is bounded again (l140's rule), never
    written for every size the hand-written bound covers."""
    from kernelopt.tunables import discover
    from kernelopt.tunables.analysis import analyze
    from kernelopt.tunables.edit import apply
    from kernelopt.tuning import folder as tf
    from kernelopt.tuning.space import KnobOrigin

    two = 'triton.Config({"BLOCK": 32}, num_warps=4), triton.Config({"BLOCK": 128}, num_warps=4)'
    _, edit, _ = _pinned(monkeypatch, two, {"BLOCK": 128, "num_warps": 8})
    assert edit is not None
    written = edit.new_source
    kernel = tmp_path / "kernel.py"
    kernel.write_text(written, encoding="utf-8")
    found = {t.key: t for t in discover(kernel)}
    for key, value in (("head_scale.heuristics.BLOCK", 128), ("head_scale.heuristics.num_warps", 8)):
        assert found[key].editable and found[key].value == value, found[key]
    moved = apply(kernel, {"BLOCK": 64}, write=False).new_source  # by name, as tune's change: the configs carry it too
    assert moved == written.replace('"BLOCK": lambda args: 128 if', '"BLOCK": lambda args: 64 if'), moved
    key = "head_scale.heuristics.BLOCK"
    origins = {"BLOCK": KnobOrigin(keys=(key,), value=128)}
    wide = written.replace('128 if args["BD"] <= 64', '128 if args["BD"] <= 4096')  # a bound written by hand
    raised = wide.replace('128 if args["BD"] <= 4096', '256 if args["BD"] <= 4096')
    prepared = SimpleNamespace(
        base_source=wide, space=SimpleNamespace(origins=origins), tunables=analyze(wide, "kernel.py")[2], gpu=None
    )
    monkeypatch.setattr(tf, "_told", lambda _p: lambda kernel, param: [16, 64] if param == "BD" else [])
    text, note = tf._size_bounded(prepared, {"BLOCK": 256}, raised)  # type: ignore[arg-type]
    assert text is not None and '(256 if args["BD"] <= 64 else 128) if args["BD"] <= 4096' in text, text
    assert note is not None and "BD up to 64 checked" in note, note
