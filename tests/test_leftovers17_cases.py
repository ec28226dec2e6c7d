"""leftovers17: the fifteenth session's correctness and judgement leftovers (docs/faults.md, "leftovers17"). Each
test runs what a user runs: kernels under Triton's interpreter, Triton's own compile for sm_90 (no GPU needed),
``tune`` on a kernel file."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import load_fresh, triton_interpreted


def _flag_cases() -> dict[str, tuple[str, dict[str, object], dict[str, object]]]:
    """b14's flag kernel four ways, each launched with a flag of 1: the kernel's source, and its signature and
    constexprs as a GPU launch of it binds them (Triton's JIT makes an int argument of 1 a constexpr, unless
    ``do_not_specialize`` names it)."""
    from tests.test_break16_cases import _FLAGGED
    from tests.test_late16_cases import _flag_forms

    data = {"x_ptr": "*fp32", "y_ptr": "*fp32", "n": "i32", "BLOCK": "constexpr"}
    local = _FLAGGED.replace("    if flag and n > 0:", "    f = flag\n    if f and n > 0:")
    assert local != _FLAGGED
    forms = _flag_forms()
    return {
        "argument": (_FLAGGED, {**data, "flag": "constexpr"}, {"flag": 1, "BLOCK": 64}),
        "local": (local, {**data, "flag": "constexpr"}, {"flag": 1, "BLOCK": 64}),  # the code generator's tensor
        "loaded": (forms["loaded"], {**data, "flag_ptr": "*i32"}, {"BLOCK": 64}),
        "unspecialized": (forms["unspecialized"], {**data, "flag": "i32"}, {"BLOCK": 64}),
    }


@pytest.mark.timeout(240)
def test_l1_only_an_argument_the_jit_specializes_is_a_constexpr_in_and(tmp_path: Path) -> None:
    """late16 l3 (b14's false pass): the interpreter read any integer scalar holding 1 as the constexpr a GPU launch
    makes of an argument of 1, so ``flag = tl.load(flag_ptr)`` holding 1, an argument under ``do_not_specialize``
    and a local assigned the argument each ran ``if flag and n > 0`` where the sm_90 compile joins an int32 by
    ``logical_and`` and fails. Each verdict of the interpreter is now the compile's, and the argument itself runs."""
    import torch

    from tests.test_gpu_parity import _compiled

    cases = _flag_cases()
    interpreted: dict[str, str | None] = {}
    with triton_interpreted():
        for name, (text, _, _) in cases.items():
            path = tmp_path / f"{name}.py"
            path.write_text(text)
            module = load_fresh(path, f"_leftovers17_flag_{name}")
            try:
                out = module.run(torch.ones(10), 1)
            except Exception as exc:  # the interpreter's refusal is its verdict
                interpreted[name] = str(exc)
            else:
                assert torch.equal(out, torch.full((10,), 2.0)), name
                interpreted[name] = None
    both = tmp_path / "compiled.py"  # the four kernels in one file: one compile process
    both.write_text("\n".join(text.replace("flag_kernel", f"flag_{name}") for name, (text, _, _) in cases.items()))
    jobs = [
        {"kernel": f"flag_{name}", "signature": signature, "constexprs": constexprs, "options": {}, "arch": 90}
        for name, (_, signature, constexprs) in cases.items()
    ]
    compiled = dict(zip(cases, _compiled(both, jobs), strict=True))
    for name, cpu in interpreted.items():
        assert (compiled[name]["error"] is None) == (cpu is None), (name, cpu, compiled[name])
    assert interpreted["argument"] is None  # the specialized argument runs: not every verdict a refusal
    assert all(
        "Cannot bitcast data-type of size 32 to data-type of size 1" in (interpreted[n] or "")
        for n in ("loaded", "unspecialized", "local")
    )
